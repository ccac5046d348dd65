//! Two-bone IK bars: exact reach, straight when out of reach, pole side, continuous soft
//! extension, weight 0 returns the input pose bit for bit.

use ik_core::glam::{EulerRot, Quat, Vec3};
use ik_core::{IkError, Skeleton, TwoBoneJob, Xform, two_bone_positions};

/// A posed arm: shoulder, elbow, wrist with arbitrary animated rotations.
fn posed_arm(seed: f32) -> (Skeleton, Vec<Xform>) {
    let skeleton = Skeleton::new(
        vec![None, Some(0), Some(1), Some(2)],
        vec!["base".into(), "upper".into(), "lower".into(), "hand".into()],
        vec![
            Xform::from_translation_rotation(Vec3::new(0.1, 1.4, -0.2), Quat::from_rotation_y(0.3 * seed)),
            Xform::from_translation_rotation(
                Vec3::new(0.2, 0.0, 0.0),
                Quat::from_euler(EulerRot::XYZ, 0.2, 0.4 * seed, -0.6),
            ),
            Xform::from_translation_rotation(
                Vec3::new(0.0, -0.31, 0.0),
                Quat::from_euler(EulerRot::XYZ, 0.9, 0.1, 0.2 * seed),
            ),
            Xform::from_translation_rotation(Vec3::new(0.0, -0.27, 0.02), Quat::from_rotation_x(0.3)),
        ],
    )
    .unwrap();
    let locals = skeleton.rest().to_vec();
    (skeleton, locals)
}

fn solve(
    skeleton: &Skeleton,
    locals: &mut [Xform],
    target: Vec3,
    pole: Option<Vec3>,
    soften: f32,
    weight: f32,
) -> Vec<Xform> {
    let mut model = vec![Xform::IDENTITY; skeleton.len()];
    skeleton.model_from_local(locals, &mut model).unwrap();
    let job = TwoBoneJob { soften, weight, ..TwoBoneJob::from_model(&model, [1, 2, 3], target, pole).unwrap() };
    let solution = job.run().unwrap();
    let (head, tail) = locals.split_at_mut(2);
    solution.apply(&mut head[1], &mut tail[0]);
    skeleton.model_from_local(locals, &mut model).unwrap();
    model
}

/// Deterministic pseudo-random numbers in [0, 1).
fn lcg(state: &mut u64) -> f32 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 40) as f32) / ((1u64 << 24) as f32)
}

#[test]
fn every_reachable_target_is_reached_within_1e5_of_limb_length() {
    let mut rng = 7u64;
    let mut worst = 0.0f32;
    for i in 0..2000 {
        let (skeleton, mut locals) = posed_arm((i % 7) as f32 * 0.5);
        let model = skeleton.rest_model();
        let (a, b) = (
            (model[2].translation - model[1].translation).length(),
            (model[3].translation - model[2].translation).length(),
        );
        let reach = a + b;
        let dir = Vec3::new(lcg(&mut rng) - 0.5, lcg(&mut rng) - 0.5, lcg(&mut rng) - 0.5).normalize_or(Vec3::X);
        let distance = (a - b).abs() + (reach - (a - b).abs()) * lcg(&mut rng);
        let target = model[1].translation + dir * distance;
        let pole = model[1].translation + Vec3::new(lcg(&mut rng) - 0.5, lcg(&mut rng) - 0.5, 1.0);
        let solved = solve(&skeleton, &mut locals, target, Some(pole), 0.0, 1.0);
        let err = (solved[3].translation - target).length() / reach;
        worst = worst.max(err);
        // Bone lengths kept.
        assert!(((solved[2].translation - solved[1].translation).length() - a).abs() < 1e-5 * reach);
        assert!(((solved[3].translation - solved[2].translation).length() - b).abs() < 1e-5 * reach);
    }
    println!("two-bone, 2000 reachable targets: worst tip error {worst:.2e} × limb length");
    assert!(worst <= 1e-5, "worst relative error {worst}");
}

#[test]
fn unreachable_target_gives_a_straight_limb_pointing_at_it() {
    let (skeleton, mut locals) = posed_arm(1.0);
    let target = Vec3::new(2.0, 0.3, 1.0);
    let solved = solve(&skeleton, &mut locals, target, Some(Vec3::new(0.0, 2.0, 1.0)), 0.0, 1.0);
    let root = solved[1].translation;
    let to_target = (target - root).normalize();
    let upper = (solved[2].translation - root).normalize();
    let whole = (solved[3].translation - root).normalize();
    assert!(upper.angle_between(to_target) < 1e-3, "upper bone off by {}", upper.angle_between(to_target));
    assert!(whole.angle_between(to_target) < 1e-3);
}

#[test]
fn the_middle_joint_lies_on_the_poles_side() {
    let (skeleton, locals) = posed_arm(0.0);
    let model = skeleton.rest_model();
    let root = model[1].translation;
    let target = root + Vec3::new(0.3, -0.2, 0.1);
    let axis = (target - root).normalize();
    for k in 0..16 {
        let angle = k as f32 * std::f32::consts::TAU / 16.0;
        let side = Quat::from_axis_angle(axis, angle) * axis.any_orthonormal_vector();
        let pole = root + axis * 0.2 + side * 0.5;
        let solved = solve(&skeleton, &mut locals.clone(), target, Some(pole), 0.0, 1.0);
        let mid = solved[2].translation - root;
        let mid_side = (mid - axis * mid.dot(axis)).normalize();
        assert!(mid_side.dot(side) > 0.999, "pole at {angle} rad: mid side {mid_side}, pole side {side}");
    }
}

#[test]
fn soft_extension_moves_the_tip_continuously_through_full_reach() {
    let (skeleton, locals) = posed_arm(0.0);
    let model = skeleton.rest_model();
    let root = model[1].translation;
    let reach = 0.31 + (Vec3::new(0.0, -0.27, 0.02)).length();
    let dir = Vec3::new(0.2, -1.0, 0.3).normalize();
    let step = 0.0005;
    let mut previous: Option<Vec3> = None;
    let mut distance = 0.8 * reach;
    while distance < 1.2 * reach {
        let solved = solve(&skeleton, &mut locals.clone(), root + dir * distance, Some(root + Vec3::Z), 0.1, 1.0);
        let tip = solved[3].translation;
        if let Some(prev) = previous {
            let jump = (tip - prev).length();
            assert!(jump <= step + 1e-5, "tip jumped {jump} m for a target step of {step} m at {distance}");
        }
        assert!((tip - root).length() < reach, "soft extension never reaches full extension");
        previous = Some(tip);
        distance += step;
    }
}

#[test]
fn weight_zero_returns_the_input_pose_bit_exactly() {
    let (skeleton, locals) = posed_arm(2.0);
    let mut solved_locals = locals.clone();
    solve(&skeleton, &mut solved_locals, Vec3::new(0.5, 1.0, 0.5), Some(Vec3::Z), 0.0, 0.0);
    for (a, b) in locals.iter().zip(&solved_locals) {
        assert_eq!(a.rotation.to_array().map(f32::to_bits), b.rotation.to_array().map(f32::to_bits));
    }
}

#[test]
fn reached_flag_tells_reachable_from_unreachable() {
    let (skeleton, locals) = posed_arm(0.0);
    let model = skeleton.rest_model();
    let mut job =
        TwoBoneJob::from_model(&model, [1, 2, 3], model[1].translation + Vec3::new(0.3, -0.2, 0.0), None).unwrap();
    assert!(job.run().unwrap().reached);
    job.target = model[1].translation + Vec3::new(3.0, 0.0, 0.0);
    assert!(!job.run().unwrap().reached);
    let _ = locals;
}

#[test]
fn a_pole_on_the_target_line_keeps_the_current_bend_plane() {
    let (skeleton, locals) = posed_arm(1.0);
    let model = skeleton.rest_model();
    let root = model[1].translation;
    let target = root + Vec3::new(0.25, -0.3, 0.1);
    let on_line = root + (target - root) * 2.0;
    let mut job = TwoBoneJob::from_model(&model, [1, 2, 3], target, Some(on_line)).unwrap();
    let with_line_pole = job.run().unwrap();
    job.pole = None;
    let without_pole = job.run().unwrap();
    assert!((with_line_pole.mid - without_pole.mid).length() < 1e-6);
    assert!((with_line_pole.tip - target).length() < 1e-5);
    let _ = locals;
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let (skeleton, _) = posed_arm(0.0);
    let model = skeleton.rest_model();
    let mut job = TwoBoneJob::from_model(&model, [1, 2, 3], Vec3::new(f32::NAN, 0.0, 0.0), None).unwrap();
    assert_eq!(job.run(), Err(IkError::NonFiniteInput));
    job.target = Vec3::ONE;
    job.mid = job.root;
    assert_eq!(job.run(), Err(IkError::ZeroLengthBone { bone: 0 }));
}

#[test]
fn position_form_matches_the_law_of_cosines_in_2d() {
    let (mid, tip) =
        two_bone_positions(Vec3::ZERO, 1.2, 1.0, Vec3::new(1.5, 0.5, 0.0), Vec3::new(0.0, 3.0, 0.0)).unwrap();
    assert!((tip - Vec3::new(1.5, 0.5, 0.0)).length() < 1e-6);
    assert!((mid.length() - 1.2).abs() < 1e-6 && ((tip - mid).length() - 1.0).abs() < 1e-6);
    assert!(mid.y > 0.5 / 1.5 * mid.x, "elbow on the pole's side of the root-target line");
    let (_, far) = two_bone_positions(Vec3::ZERO, 1.2, 1.0, Vec3::new(5.0, 0.0, 0.0), Vec3::Y).unwrap();
    assert!((far - Vec3::new(2.2, 0.0, 0.0)).length() < 1e-6);
}

#[test]
fn a_limb_straight_to_rounding_still_reaches_a_reachable_target() {
    // A leg straight up to float rounding (its cross product is noise, ~1e-10): the bend axis
    // must come from the pole or plane, not from the noise.
    let job = TwoBoneJob {
        root: Vec3::new(-0.0995, 0.8381, 0.7354),
        mid: Vec3::new(-0.0898, 0.4966, 1.0128),
        tip: Vec3::new(-0.0810, 0.1863, 1.2649),
        target: Vec3::new(-0.0815, 0.2309, 1.1446),
        ..Default::default()
    };
    for pole in [None, Some(Vec3::new(0.0, 0.5, 2.0))] {
        let solution = TwoBoneJob { pole, ..job }.run().unwrap();
        let miss = (solution.tip - job.target).length();
        assert!(miss < 1e-5, "tip {miss} m off a reachable target (pole {pole:?})");
    }
}
