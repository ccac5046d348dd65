//! Bars for the heel/toe leg chain: the toe reaches its target with the heel keeping its
//! offset, the knee hinge axis picks the bend side, soft extension never snaps, the ground
//! clamp keeps heel/toe/toe end up, bad input leaves the pose untouched.

mod common;

use common::*;
use glam::{Quat, Vec3};
use ik_core::leg::{LegChain, LegSettings, solve_leg};
use ik_core::{IkError, Xform};

fn settings() -> LegSettings {
    LegSettings { knee_side: Some(Vec3::X), ..Default::default() }
}

#[test]
fn toe_reaches_target_within_0_1_mm_and_heel_keeps_its_offset() {
    let skel = biped();
    let mut locals = standing(&skel, 0.06);
    let mut model = model_of(&skel, &locals);
    let before = model.clone();
    let old_offset = model[5].translation - model[6].translation;
    let target = model[6].translation + Vec3::new(0.04, 0.12, 0.1);
    let solution = solve_leg(skel.parents(), &mut locals, &mut model, &LEFT, target, &settings()).unwrap();
    assert!(solution.reached);
    assert!((model[6].translation - target).length() < 1e-4, "toe {} vs {target}", model[6].translation);
    assert!((model[5].translation - (target + old_offset)).length() < 1e-4, "heel off its target");
    // Model buffer agrees with FK of the new locals.
    let fk = model_of(&skel, &locals);
    for (a, b) in fk.iter().zip(&model) {
        assert!((a.translation - b.translation).length() < 1e-5, "{} vs {}", a.translation, b.translation);
        assert!(a.rotation.dot(b.rotation).abs() > 1.0 - 1e-6, "{} vs {}", a.rotation, b.rotation);
    }
    // Bone lengths kept, other leg untouched, translations untouched.
    for (p, c) in [(3usize, 4usize), (4, 5), (5, 6), (6, 7)] {
        let l0 = (before[c].translation - before[p].translation).length();
        let l1 = (model[c].translation - model[p].translation).length();
        assert!((l0 - l1).abs() < 1e-5);
    }
    for b in 8..13 {
        assert_eq!(model[b], before[b]);
    }
    let rest = standing(&skel, 0.06);
    for b in 0..skel.len() {
        assert_eq!(locals[b].translation, rest[b].translation);
    }
    // Corrections compose to the new rotations.
    for (k, bone) in [3usize, 4, 5, 6].into_iter().enumerate() {
        assert!((rest[bone].rotation * solution.corrections[k]).dot(solution.rotations[k]).abs() > 1.0 - 1e-6);
        assert_eq!(locals[bone].rotation, solution.rotations[k]);
    }
}

#[test]
fn knee_hinge_axis_picks_the_bend_side() {
    let skel = biped();
    // Straight rest legs: the bend side is not in the pose at all.
    for (side, forward) in [(Vec3::X, true), (Vec3::NEG_X, false)] {
        let mut locals = skel.rest().to_vec();
        let mut model = model_of(&skel, &locals);
        let target = model[6].translation + Vec3::Y * 0.2;
        let s = LegSettings { knee_side: Some(side), ..Default::default() };
        solve_leg(skel.parents(), &mut locals, &mut model, &LEFT, target, &s).unwrap();
        let knee = model[4].translation;
        let line_z = 0.5 * (model[3].translation.z + model[5].translation.z);
        assert!((model[6].translation - target).length() < 1e-4);
        if forward {
            assert!(knee.z > line_z + 0.1, "side +X: knee at z {} should point forward", knee.z);
        } else {
            assert!(knee.z < line_z - 0.1, "side -X: knee at z {} should point backward", knee.z);
        }
    }
}

#[test]
fn soft_extension_approaches_full_reach_without_snapping() {
    let skel = biped();
    let s = settings();
    let reach = leg_reach();
    let mut previous: Option<f32> = None;
    let mut max_step: f32 = 0.0;
    for i in 0..200 {
        let mut locals = standing(&skel, 0.06);
        let mut model = model_of(&skel, &locals);
        let drop = 0.0 + i as f32 * 0.002; // toe target pulled down and forward up to 40 cm past the floor
        let target = model[6].translation + Vec3::new(0.0, -drop, drop * 0.5);
        solve_leg(skel.parents(), &mut locals, &mut model, &LEFT, target, &s).unwrap();
        let d = (model[5].translation - model[3].translation).length();
        assert!(d <= s.max_extension * reach + 1e-5, "hip-heel {d} beyond reach {reach}");
        if let Some(p) = previous {
            assert!(d >= p - 1e-5, "extension went back from {p} to {d}");
            max_step = max_step.max(d - p);
        }
        previous = Some(d);
    }
    // Each 2.2 mm move of the target moves the heel at most that much: no pop.
    assert!(max_step <= 0.0023, "largest extension step {max_step}");
    assert!(previous.unwrap() > (1.0 - s.soften) * reach, "never reached the soft zone");
}

#[test]
fn ground_clamp_keeps_heel_toe_and_toe_end_above_their_min_heights() {
    let skel = biped();
    let mut locals = standing(&skel, 0.06);
    // Pitch the foot toe-down by 0.6 rad so the toe end dips when the ball is on the floor.
    let model = model_of(&skel, &locals);
    locals[5].rotation = (model[4].rotation.inverse() * Quat::from_rotation_x(0.6)).normalize();
    let mut model = model_of(&skel, &locals);
    let mins = min_heights(&skel, &LEFT);
    let target = Vec3::new(0.1, -0.3, 0.15); // 30 cm under the floor
    let s = LegSettings { min_heights: Some(mins), ..settings() };
    let solution = solve_leg(skel.parents(), &mut locals, &mut model, &LEFT, target, &s).unwrap();
    assert!((solution.toe_target.y - mins.toe).abs() < 1e-6);
    assert!(model[5].translation.y >= mins.heel - 1e-4, "heel {}", model[5].translation.y);
    assert!((model[6].translation.y - mins.toe).abs() < 1e-4, "toe {}", model[6].translation.y);
    assert!(model[7].translation.y >= mins.toe_end - 1e-4, "toe end {} below {}", model[7].translation.y, mins.toe_end);
    assert!(solution.toe_end_target.is_some(), "the toe end needed lifting in this pose");
    // Without the clamp the toe goes under the floor.
    let mut locals2 = standing(&skel, 0.06);
    let mut model2 = model_of(&skel, &locals2);
    solve_leg(skel.parents(), &mut locals2, &mut model2, &LEFT, Vec3::new(0.1, -0.05, 0.15), &settings()).unwrap();
    assert!(model2[6].translation.y < 0.0);
}

#[test]
fn without_knee_side_the_current_bend_plane_is_kept() {
    let skel = biped();
    let mut locals = standing(&skel, 0.1);
    let mut model = model_of(&skel, &locals);
    let plane =
        (model[4].translation - model[3].translation).cross(model[5].translation - model[4].translation).normalize();
    let target = model[6].translation + Vec3::new(0.0, 0.15, 0.05);
    solve_leg(skel.parents(), &mut locals, &mut model, &LEFT, target, &LegSettings::default()).unwrap();
    let after =
        (model[4].translation - model[3].translation).cross(model[5].translation - model[4].translation).normalize();
    assert!(plane.dot(after) > 0.999, "bend plane turned: {plane} -> {after}");
    assert!((model[6].translation - target).length() < 1e-4);
}

#[test]
fn bad_input_is_an_error_and_leaves_the_pose_untouched() {
    let skel = biped();
    let locals0 = standing(&skel, 0.05);
    let model0 = model_of(&skel, &locals0);
    let cases: [(LegChain, Vec3, IkError); 4] = [
        (
            LegChain { hip: 3, knee: 40, ankle: 5, toe: None, toe_end: None },
            Vec3::ZERO,
            IkError::BrokenHierarchy { bone: 40 },
        ),
        (
            LegChain { hip: 3, knee: 9, ankle: 10, toe: None, toe_end: None },
            Vec3::ZERO,
            IkError::BrokenHierarchy { bone: 9 },
        ),
        (LEFT, Vec3::new(f32::NAN, 0.0, 0.0), IkError::NonFiniteInput),
        (LEFT, Vec3::new(0.0, f32::INFINITY, 0.0), IkError::NonFiniteInput),
    ];
    for (chain, target, err) in cases {
        let mut locals = locals0.clone();
        let mut model = model0.clone();
        assert_eq!(solve_leg(skel.parents(), &mut locals, &mut model, &chain, target, &settings()), Err(err));
        assert_eq!(locals, locals0);
        assert_eq!(model, model0);
    }
    // A zero-length shin.
    let mut locals = locals0.clone();
    locals[5].translation = Vec3::ZERO;
    let mut model = model_of(&skel, &locals);
    let snapshot = (locals.clone(), model.clone());
    assert_eq!(
        solve_leg(skel.parents(), &mut locals, &mut model, &LEFT, Vec3::Y, &settings()),
        Err(IkError::ZeroLengthBone { bone: 1 })
    );
    assert_eq!((locals, model), snapshot);
    // Buffers of the wrong length.
    let mut short = vec![Xform::IDENTITY; 3];
    let mut model = model0.clone();
    assert!(matches!(
        solve_leg(skel.parents(), &mut short, &mut model, &LEFT, Vec3::Y, &settings()),
        Err(IkError::LengthMismatch { .. })
    ));
}

#[test]
fn a_straight_leg_pointing_anywhere_still_reaches_within_0_1_mm() {
    // A limb straight to rounding has a noise-sized bend cross product; the solve must not use
    // it as a bend axis.
    let skel = biped();
    let mut worst: f32 = 0.0;
    for i in 0..100 {
        let mut locals = skel.rest().to_vec();
        locals[LEFT.hip].rotation =
            glam::Quat::from_euler(glam::EulerRot::XYZ, -0.9 + 0.017 * i as f32, 0.01 * i as f32, 0.05);
        let mut model = model_of(&skel, &locals);
        let hip = model[LEFT.hip].translation;
        let target = hip + (model[LEFT.toe.unwrap()].translation - hip) * 0.85;
        solve_leg(skel.parents(), &mut locals, &mut model, &LEFT, target, &settings()).unwrap();
        worst = worst.max((model[6].translation - target).length());
        let knee = model[4].translation;
        let ankle = model[5].translation;
        let forward = (ankle - hip).cross(locals_side(&model)).normalize();
        assert!((knee - hip).dot(forward) > 0.0, "knee bent backward at pose {i}");
    }
    assert!(worst < 1e-4, "worst miss {worst} m");
}

fn locals_side(model: &[ik_core::Xform]) -> Vec3 {
    model[4].rotation * Vec3::X
}
