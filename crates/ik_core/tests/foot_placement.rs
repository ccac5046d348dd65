//! Bars for foot placement: a 15 cm step, a swinging foot, a 20° slope, world transforms,
//! missing ground, dt = 0, smoothing and limits.

mod common;

use common::*;
use glam::{Quat, Vec3};
use ik_core::foot_placement::{
    FootPlacement, FootPlacementSettings, FootPlacementState, FootReport, FootRig, GroundHit, SwingFloor,
};
use ik_core::leg::LegChain;
use ik_core::{IkError, Skeleton, Xform};

#[test]
fn one_foot_on_a_15_cm_step_both_feet_within_5_mm_and_pelvis_15_cm_lower() {
    let skel = biped();
    let animated = standing(&skel, 0.04);
    let out = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 120, 1.0 / 60.0, step_ground);
    let [left, right] = out.reports;
    println!(
        "15 cm step: float before L {:.2} cm R {:.2} cm; after L {:.2} mm R {:.2} mm; pelvis {:.2} cm",
        left.float_before * 100.0,
        right.float_before * 100.0,
        left.float_after * 1000.0,
        right.float_after * 1000.0,
        out.pelvis_offset * 100.0
    );
    assert!((left.float_before - 0.15).abs() < 1e-3, "without placement the low foot floats {}", left.float_before);
    assert!(right.float_before.abs() < 1e-3);
    assert!(left.float_after.abs() < 0.005 && right.float_after.abs() < 0.005);
    assert!((out.pelvis_offset + 0.15).abs() < 1e-3, "pelvis offset {}", out.pelvis_offset);
    let pelvis_drop = model_of(&skel, &animated)[PELVIS].translation.y - out.model[PELVIS].translation.y;
    assert!((pelvis_drop - 0.15).abs() < 1e-3);
    assert!(left.hit && right.hit && left.planted == 1.0 && right.planted == 1.0);
    assert!((left.ground_height + 0.15).abs() < 1e-5 && right.ground_height.abs() < 1e-5);
}

#[test]
fn springs_ease_in_and_the_first_frame_is_placed_directly() {
    let skel = biped();
    let animated = standing(&skel, 0.04);
    // First frame with dt = 0: targets used directly.
    let first = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 1, 0.0, step_ground);
    assert!((first.pelvis_offset + 0.15).abs() < 1e-4 && first.reports[0].float_after.abs() < 0.005);
    // Later frames with dt = 0 hold still: placed on frame 1 (fresh), then nothing moves.
    let held = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 5, 0.0, step_ground);
    assert!(held.offsets.iter().all(|o| (o + 0.15).abs() < 1e-4));
    // Ground drops under the left foot after 10 frames (4 rays a frame: ankle and toe of each
    // foot). A small drop the bent leg can reach: the pelvis eases down, no jump. A drop the
    // leg cannot reach: the pelvis goes down at once as far as the leg needs (a planted foot
    // never hovers), then eases the rest of the way; it never rises on the way.
    for (drop, eases) in [(0.03, true), (0.15, false)] {
        let mut ray = 0;
        let ground = |o: Vec3, d: Vec3, m: f32| {
            ray += 1;
            let h = if o.x > 0.0 && ray > 40 { -drop } else { 0.0 };
            plane_hit(o, d, m, Vec3::Y * h, Vec3::Y)
        };
        let out = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 60, 1.0 / 60.0, ground);
        let after_change = out.offsets[10];
        let worst_float = out.left_floats[10..].iter().fold(0f32, |m, f| m.max(f.abs()));
        println!(
            "ground {drop} m lower: pelvis {after_change:.4} m on the first frame, worst left float {:.2} mm",
            worst_float * 1e3
        );
        assert!(out.offsets[9].abs() < 1e-6);
        if eases {
            assert!(after_change < -1e-4 && after_change > -drop * 0.5, "first frame after the change: {after_change}");
        } else {
            assert!(worst_float < 5e-3, "the planted foot hovered {worst_float} m while the pelvis eased");
        }
        assert!(out.offsets[10..].windows(2).all(|w| w[1] <= w[0] + 1e-6), "the pelvis rose on the way down");
        assert!((out.pelvis_offset + drop).abs() < 2e-3);
    }
    // Zero half-lives: no smoothing, placed on the first frame after the change.
    let snap =
        FootPlacementSettings { pelvis_half_life: 0.0, foot_half_life: 0.0, tilt_half_life: 0.0, ..Default::default() };
    let mut ray = 0;
    let ground = |o: Vec3, d: Vec3, m: f32| {
        ray += 1;
        let h = if o.x > 0.0 && ray > 40 { -0.15 } else { 0.0 };
        plane_hit(o, d, m, Vec3::Y * h, Vec3::Y)
    };
    let out = run(&skel, &animated, Xform::IDENTITY, snap, 12, 1.0 / 60.0, ground);
    assert!((out.offsets[10] + 0.15).abs() < 1e-4);
}

#[test]
fn a_foot_mid_swing_is_not_pulled_down() {
    let skel = biped();
    let mut animated = standing(&skel, 0.04);
    lift_foot(&skel, &mut animated, &LEFT, 0.25, 0.15);
    let animated_model = model_of(&skel, &animated);
    let out = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 120, 1.0 / 60.0, step_ground);
    let moved = (out.model[LEFT.ankle].translation - animated_model[LEFT.ankle].translation).length();
    println!(
        "swing foot 25 cm up over a 15 cm drop: moved {:.3} mm, planted weight {}",
        moved * 1000.0,
        out.reports[0].planted
    );
    assert_eq!(out.reports[0].planted, 0.0);
    assert!(moved < 1e-3, "swinging ankle moved {moved} m");
    assert!(out.pelvis_offset.abs() < 1e-4, "pelvis moved for a swinging foot: {}", out.pelvis_offset);
    // A foot 2 cm up (still planted in the animation) is brought down onto the ground: the
    // animation's hover is taken out of a planted foot.
    let mut animated = standing(&skel, 0.04);
    lift_foot(&skel, &mut animated, &LEFT, 0.02, 0.0);
    let out = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 120, 1.0 / 60.0, step_ground);
    assert_eq!(out.reports[0].planted, 1.0);
    assert!(out.reports[0].float_after.abs() < 0.005, "float {}", out.reports[0].float_after);
    // Half-way up the fade: partly corrected.
    let mut animated = standing(&skel, 0.04);
    lift_foot(&skel, &mut animated, &LEFT, 0.1, 0.0);
    let out = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 120, 1.0 / 60.0, step_ground);
    let w = out.reports[0].planted;
    assert!(w > 0.2 && w < 0.8, "planted weight {w}");
    // The 15 cm drop and the 10 cm hover, both in proportion to the planted weight.
    assert!((out.reports[0].offset + (0.15 + 0.1 * w) * w).abs() < 1e-3, "offset {}", out.reports[0].offset);
}

fn foot_up(model: &[Xform], rig: &FootRig) -> Vec3 {
    model[rig.leg.ankle].rotation * rig.foot_up
}

/// 60 frames of placement of `animated` with foot `shifts` (a lock's) on the 20° slope rising
/// forward ([`slope_ground`]): the last frame's model pose and reports.
fn place_shifted(
    skel: &Skeleton,
    animated: &[Xform],
    rigs: &[FootRig],
    shifts: &[Vec3],
) -> (Vec<Xform>, [FootReport; 2]) {
    let job = FootPlacement { foot_shifts: shifts, ..placement_job(skel.parents(), rigs) };
    let mut state = FootPlacementState::new(2);
    let mut reports = [FootReport::default(); 2];
    let (mut locals, mut model) = (animated.to_vec(), model_of(skel, animated));
    for _ in 0..60 {
        locals.copy_from_slice(animated);
        model = model_of(skel, &locals);
        job.run(&mut locals, &mut model, slope_ground, 1.0 / 60.0, &mut state, &mut reports).unwrap();
    }
    (model, reports)
}

#[test]
fn a_shifted_foot_lands_its_toe_on_the_shifted_point_of_a_slope() {
    // A lock holding the left toe's ball (the sole under its joint) 10 cm behind and 3 cm
    // outside its animated place, on a 20° slope rising forward: the foot is probed and placed
    // there, tilted about the ball.
    let skel = biped();
    let animated = standing(&skel, 0.04);
    let rigs = biped_feet(&skel);
    let shifts = [Vec3::new(0.03, 0.5, -0.10), Vec3::ZERO];
    let animated_toe = rigs[0].ball(&model_of(&skel, &animated)).unwrap();
    let (model, reports) = place_shifted(&skel, &animated, &rigs, &shifts);
    let toe = rigs[0].ball(&model).unwrap();
    let off = Vec3::new(toe.x - animated_toe.x - 0.03, 0.0, toe.z - animated_toe.z + 0.10).length();
    println!("shifted toe: {:.3} mm off its point, float {:.2} mm", off * 1e3, reports[0].float_after * 1e3);
    assert!(off < 1e-3, "the toe is {off} m from where the shift put it (the shift's y is ignored)");
    assert!(reports[0].float_after.abs() < 0.005, "float {}", reports[0].float_after);
    // A shift list of the wrong length is an error, the pose untouched.
    let short = FootPlacement { foot_shifts: &shifts[..1], ..placement_job(skel.parents(), &rigs) };
    let (mut state, mut reports) = (FootPlacementState::new(2), [FootReport::default(); 2]);
    let mut untouched = animated.clone();
    let mut untouched_model = model_of(&skel, &untouched);
    let result = short.run(&mut untouched, &mut untouched_model, slope_ground, 1.0 / 60.0, &mut state, &mut reports);
    assert!(matches!(result, Err(IkError::LengthMismatch { .. })));
    assert_eq!(untouched, animated);
}

#[test]
fn a_shifted_foot_without_a_toe_bone_tilts_about_its_sole_ball() {
    // The same lock on the same 20° slope, on feet rigged without their toe bones (many real
    // characters have none): the lock holds the sole's ball point (`FootRig::ball`), and the
    // tilt to the slope turns the foot about that point, not about the ankle (which would move
    // the held ball 2–3 cm along the slope).
    let skel = biped();
    let animated = standing(&skel, 0.04);
    let rest = skel.rest_model();
    let toeless = [LEFT, RIGHT].map(|leg| LegChain { toe: None, toe_end: None, ..leg });
    let rigs = toeless.map(|leg| FootRig::from_flat_pose(&rest, leg).unwrap().with_estimated_sole(&rest));
    let animated_ball = rigs[0].ball(&model_of(&skel, &animated)).unwrap();
    let (model, _) = place_shifted(&skel, &animated, &rigs, &[Vec3::new(0.03, 0.0, -0.10), Vec3::ZERO]);
    let ball = rigs[0].ball(&model).unwrap();
    let off = Vec3::new(ball.x - animated_ball.x - 0.03, 0.0, ball.z - animated_ball.z + 0.10).length();
    let up = model[LEFT.ankle].rotation * rigs[0].foot_up;
    println!(
        "toe-less shifted ball: {:.3} mm off its point, tilt {:.1} deg",
        off * 1e3,
        up.angle_between(Vec3::Y).to_degrees()
    );
    assert!(up.angle_between(Vec3::Y) > 15f32.to_radians(), "the foot was not tilted to the slope");
    assert!(off < 1e-3, "the ball is {off} m from where the shift put it");
}

#[test]
fn on_a_20_degree_slope_the_foot_up_axis_is_within_1_degree_of_the_normal() {
    let skel = biped();
    let animated = standing(&skel, 0.04);
    let rigs = biped_feet(&skel);
    let slope = 20f32.to_radians();
    // Rising forward (pitch) and rising to the right (roll).
    for normal in [Quat::from_rotation_x(-slope) * Vec3::Y, Quat::from_rotation_z(slope) * Vec3::Y] {
        let ground = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::ZERO, normal);
        let out = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 120, 1.0 / 60.0, ground);
        for (k, rig) in rigs.iter().enumerate() {
            let angle = foot_up(&out.model, rig).angle_between(normal).to_degrees();
            let r = out.reports[k];
            println!(
                "20° slope {normal}: foot {k} up axis {angle:.3}° from normal, float {:.2} mm",
                r.float_after * 1000.0
            );
            assert!(angle < 1.0, "foot {k}: {angle}°");
            assert!(r.float_after.abs() < 0.005, "foot {k} float {}", r.float_after);
            assert!((r.ground_normal - normal).length() < 1e-5);
        }
    }
    // Beyond max tilt the tilt is limited.
    let steep = Quat::from_rotation_x(-50f32.to_radians()) * Vec3::Y;
    let ground = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::ZERO, steep);
    let settings = FootPlacementSettings::default();
    let out = run(&skel, &animated, Xform::IDENTITY, settings, 120, 1.0 / 60.0, ground);
    let tilt = foot_up(&out.model, &rigs[0]).angle_between(Vec3::Y);
    assert!((tilt - settings.max_tilt).abs() < 1f32.to_radians(), "tilt {} deg", tilt.to_degrees());
}

#[test]
fn world_transform_converts_rays_and_hits() {
    let skel = biped();
    let animated = standing(&skel, 0.04);
    // Character at (3, 1.2, -2), turned 90° left: its left (+X) is world −Z.
    let to_world = Xform::from_translation_rotation(
        Vec3::new(3.0, 1.2, -2.0),
        Quat::from_rotation_y(core::f32::consts::FRAC_PI_2),
    );
    let ground = |o: Vec3, d: Vec3, m: f32| {
        assert!((d - Vec3::NEG_Y).length() < 1e-5, "ray not straight down in world: {d}");
        let h = if o.z < -2.0 { 1.2 - 0.15 } else { 1.2 };
        plane_hit(o, d, m, Vec3::Y * h, Vec3::Y)
    };
    let out = run(&skel, &animated, to_world, FootPlacementSettings::default(), 120, 1.0 / 60.0, ground);
    assert!((out.pelvis_offset + 0.15).abs() < 1e-3);
    assert!((out.reports[0].ground_height + 0.15).abs() < 1e-4 && out.reports[1].ground_height.abs() < 1e-4);
    assert!(out.reports.iter().all(|r| r.float_after.abs() < 0.005));
}

#[test]
fn no_ground_hit_leaves_that_foot_as_animated() {
    let skel = biped();
    let animated = standing(&skel, 0.04);
    let animated_model = model_of(&skel, &animated);
    // Nothing under the left foot; the right stands 10 cm lower.
    let ground = |o: Vec3, d: Vec3, m: f32| if o.x > 0.0 { None } else { plane_hit(o, d, m, Vec3::Y * -0.1, Vec3::Y) };
    let out = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 120, 1.0 / 60.0, ground);
    assert!(!out.reports[0].hit && out.reports[1].hit);
    assert!((out.pelvis_offset + 0.1).abs() < 1e-3);
    let ankle = out.model[LEFT.ankle];
    let was = animated_model[LEFT.ankle];
    assert!((ankle.translation - was.translation).length() < 1e-3, "left ankle moved to {}", ankle.translation);
    assert!(ankle.rotation.dot(was.rotation).abs() > 1.0 - 1e-6, "left foot tilted");
    // No ground at all: the whole pose as animated.
    let out = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 3, 1.0 / 60.0, |_, _, _| None);
    assert!(out.pelvis_offset == 0.0);
    for (a, b) in out.model.iter().zip(&animated_model) {
        assert!((a.translation - b.translation).length() < 1e-5);
    }
}

#[test]
fn corrections_are_limited_by_max_step_down_and_up() {
    let skel = biped();
    let animated = standing(&skel, 0.04);
    let settings = FootPlacementSettings { max_step_down: 0.3, max_step_up: 0.1, ..Default::default() };
    let cliff = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::Y * if o.x > 0.0 { -0.8 } else { 0.0 }, Vec3::Y);
    let out = run(&skel, &animated, Xform::IDENTITY, settings, 120, 1.0 / 60.0, cliff);
    assert!((out.pelvis_offset + 0.3).abs() < 1e-3);
    assert!((out.reports[0].offset + 0.3).abs() < 1e-3);
    assert!((out.reports[0].float_after - 0.5).abs() < 0.005);
    let ledge = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::Y * if o.x > 0.0 { 0.3 } else { 0.0 }, Vec3::Y);
    let out = run(&skel, &animated, Xform::IDENTITY, settings, 120, 1.0 / 60.0, ledge);
    assert!(out.pelvis_offset.abs() < 1e-6, "the pelvis is never raised");
    assert!((out.reports[0].offset - 0.1).abs() < 1e-3);
}

#[test]
fn bad_input_is_an_error_and_leaves_the_pose_untouched() {
    let skel = biped();
    let animated = standing(&skel, 0.04);
    let rigs = biped_feet(&skel);
    let mut locals = animated.clone();
    let mut model = model_of(&skel, &locals);
    let model0 = model.clone();
    let mut reports = [FootReport::default(); 2];
    let nan = FootPlacementSettings { ray_length: f32::NAN, ..Default::default() };
    let job = FootPlacement { settings: nan, ..placement_job(skel.parents(), &rigs) };
    let mut state = FootPlacementState::new(2);
    assert_eq!(
        job.run(&mut locals, &mut model, step_ground, 0.016, &mut state, &mut reports),
        Err(IkError::NonFiniteInput)
    );
    let job = FootPlacement { settings: FootPlacementSettings::default(), ..job };
    let mut wrong_state = FootPlacementState::new(3);
    assert_eq!(
        job.run(&mut locals, &mut model, step_ground, 0.016, &mut wrong_state, &mut reports),
        Err(IkError::LengthMismatch { expected: 2, got: 3 })
    );
    assert_eq!(locals, animated);
    assert_eq!(model, model0);
}

#[test]
fn a_toe_tip_over_a_higher_tread_lifts_the_planted_foot_onto_it() {
    // Stairs: the left foot's heel, ankle and ball stand on the lower tread (y = 0), but its toe
    // tip reaches over the next tread (20 cm higher, starting 5 cm ahead of the ball). Probed at
    // the ankle and ball only, the toe tip would end up inside the riser; probed at the tip too,
    // the foot rises onto the upper tread.
    let skel = biped();
    let rest = skel.rest_model();
    let ball_z = rest[LEFT.toe.unwrap()].translation.z;
    let stairs = |o: Vec3, d: Vec3, m: f32| {
        let top = if o.x > 0.0 && o.z > ball_z + 0.05 { 0.2 } else { 0.0 };
        plane_hit(o, d, m, Vec3::Y * top, Vec3::Y)
    };
    let rigs = foot_rigs_with_heel_and_tip(&skel.rest_model(), [LEFT, RIGHT]);
    let job = placement_job(skel.parents(), &rigs);
    let animated = standing(&skel, 0.0);
    let mut locals = animated.clone();
    let mut model = model_of(&skel, &locals);
    let mut state = FootPlacementState::new(2);
    let mut reports = [FootReport::default(); 2];
    job.run(&mut locals, &mut model, stairs, 0.0, &mut state, &mut reports).unwrap();
    let tip = model[rigs[0].tip.unwrap().bone].transform_point(rigs[0].tip.unwrap().local);
    println!("toe tip over a 20 cm riser: tip at {:.4} m, left sole float {:.4} m", tip.y, reports[0].float_after);
    assert!(tip.y >= 0.2 - 1e-3, "the toe tip is not inside the riser (tip at {})", tip.y);
    assert!(reports[0].float_after.abs() < 1e-3, "the lowest sole point rests on its ground");
    assert!(reports[1].float_after.abs() < 1e-3, "the right foot stays on the lower tread");
}

#[test]
fn the_sole_clears_a_nosing_or_a_crest_wherever_it_falls_between_probe_points() {
    // A step (20 cm up or down) or a ramp crest under the left foot, its edge anywhere from
    // heel to toe tip; the foot planted or swinging, flat or pitched ±20°. After placement no
    // point of the sole (sampled every 2 mm, heel to tip) may be more than 2 mm inside the
    // ground.
    let skel = biped();
    let rest = skel.rest_model();
    let rigs = foot_rigs_with_heel_and_tip(&skel.rest_model(), [LEFT, RIGHT]);
    let job = placement_job(skel.parents(), &rigs);
    let (heel, tip) = (rigs[0].heel.unwrap(), rigs[0].tip.unwrap());
    let heel_z = rest[heel.bone].transform_point(heel.local).z;
    let tip_z = rest[tip.bone].transform_point(tip.local).z;
    type Ground = fn(f32, f32) -> f32;
    let shapes: [(&str, Ground); 3] = [
        ("step up", |z, e| if z > e { 0.2 } else { 0.0 }),
        ("step down", |z, e| if z > e { -0.2 } else { 0.0 }),
        ("crest", |z, e| if z > e { -(z - e) * 30f32.to_radians().tan() } else { 0.0 }),
    ];
    let mut worst: f32 = 0.0;
    for (name, shape) in shapes {
        for lift in [0.0, 0.12] {
            for pitch in [-20f32, 0.0, 20.0] {
                for k in 0..=((tip_z - heel_z) / 0.01) as usize {
                    let edge = heel_z + 0.01 * k as f32;
                    let ground = |o: Vec3, d: Vec3, m: f32| {
                        let h = if o.x > 0.0 { shape(o.z, edge) } else { 0.0 };
                        let n = if o.x > 0.0 && name == "crest" && o.z > edge {
                            Quat::from_rotation_x(30f32.to_radians()) * Vec3::Y
                        } else {
                            Vec3::Y
                        };
                        let t = o.y - h;
                        (t >= 0.0 && t <= m && d.y < 0.0)
                            .then(|| GroundHit { point: Vec3::new(o.x, h, o.z), normal: n })
                    };
                    let mut animated = standing(&skel, 0.04);
                    lift_foot(&skel, &mut animated, &LEFT, lift, 0.0);
                    animated[LEFT.ankle].rotation =
                        (animated[LEFT.ankle].rotation * Quat::from_rotation_x(pitch.to_radians())).normalize();
                    let mut locals = animated.clone();
                    let mut model = model_of(&skel, &locals);
                    let mut state = FootPlacementState::new(2);
                    let mut reports = [FootReport::default(); 2];
                    job.run(&mut locals, &mut model, ground, 0.0, &mut state, &mut reports).unwrap();
                    let a = model[heel.bone].transform_point(heel.local);
                    let b = model[tip.bone].transform_point(tip.local);
                    for s in 0..=200 {
                        let p = a.lerp(b, s as f32 / 200.0);
                        let inside = shape(p.z, edge) - p.y;
                        if inside > worst {
                            worst = inside;
                        }
                        assert!(
                            inside < 2e-3,
                            "{name}, lift {lift}, pitch {pitch}°, edge {:.2} m from the heel: sole {inside} m inside at z {}",
                            edge - heel_z,
                            p.z
                        );
                    }
                }
            }
        }
    }
    println!("nosings and crests under the sole: worst point {:.2} mm inside", worst * 1e3);
}

#[test]
fn the_job_weight_blends_the_placement_back_toward_the_input_pose() {
    let skel = biped();
    let animated = standing(&skel, 0.04);
    let rigs = biped_feet(&skel);
    let place = |weight: f32| {
        let job = FootPlacement { weight, ..placement_job(skel.parents(), &rigs) };
        let mut state = FootPlacementState::new(2);
        let mut reports = [FootReport::default(); 2];
        let mut locals = animated.to_vec();
        let mut model = model_of(&skel, &locals);
        let result = job.run(&mut locals, &mut model, step_ground, 0.0, &mut state, &mut reports);
        let fk = model_of(&skel, &locals);
        assert!(fk.iter().zip(&model).all(|(a, b)| (a.translation - b.translation).length() < 1e-5), "model stale");
        result.map(|offset| (locals, model, offset, reports))
    };
    let drop = |model: &[Xform]| model_of(&skel, &animated)[PELVIS].translation.y - model[PELVIS].translation.y;
    let (full_locals, full_model, full_offset, _) = place(1.0).unwrap();
    let (half_locals, half_model, half_offset, half_reports) = place(0.5).unwrap();
    let (none_locals, _, _, none_reports) = place(0.0).unwrap();
    println!("pelvis drop at weight 1: {:.4} m, 0.5: {:.4} m", drop(&full_model), drop(&half_model));
    assert!((drop(&full_model) - 0.15).abs() < 1e-3);
    assert!((drop(&half_model) - 0.075).abs() < 1e-3, "half weight drops the pelvis half way");
    assert_eq!(none_locals, animated, "weight 0 returns the input exactly");
    assert!(full_locals != half_locals);
    // The reports and the returned offset describe the full placement at any weight.
    assert_eq!(full_offset, half_offset);
    assert_eq!(half_reports, none_reports);
    assert!(matches!(place(f32::NAN), Err(IkError::NonFiniteInput)));
}

#[test]
fn a_foot_raised_with_its_floor_still_counts_as_planted_and_lands_on_the_ground() {
    // Slope warping raises a planted foot 12 cm with the stride plane and says so in
    // `floor_heights`: placement measures the foot from that floor (planted, put on the
    // ground). Without it the same foot reads as lifted and stays up.
    let skel = biped();
    let mut animated = standing(&skel, 0.04);
    lift_foot(&skel, &mut animated, &LEFT, 0.12, 0.0);
    let rigs = biped_feet(&skel);
    let flat = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::ZERO, Vec3::Y);
    let floors = [0.12, 0.0];
    let mut outcome = Vec::new();
    for floor_heights in [&floors[..], &[]] {
        let job = FootPlacement { floor_heights, ..placement_job(skel.parents(), &rigs) };
        let mut state = FootPlacementState::new(2);
        let mut reports = [FootReport::default(); 2];
        for _ in 0..60 {
            let mut locals = animated.clone();
            let mut model = model_of(&skel, &locals);
            job.run(&mut locals, &mut model, flat, 1.0 / 60.0, &mut state, &mut reports).unwrap();
        }
        println!(
            "floor heights {floor_heights:?}: planted weight {}, float after {:.2} cm",
            reports[0].planted,
            reports[0].float_after * 100.0
        );
        outcome.push((reports[0].planted, reports[0].float_after));
    }
    assert_eq!(outcome[0].0, 1.0, "with its floor the raised foot is planted");
    assert!(outcome[0].1.abs() < 0.005, "and on the ground: float {}", outcome[0].1);
    assert!(outcome[1].0 < 0.5, "without it the foot reads as lifting: planted weight {}", outcome[1].0);
    assert!(outcome[1].1 > 0.1, "and stays up: float {}", outcome[1].1);
    let wrong = FootPlacement { floor_heights: &floors[..1], ..placement_job(skel.parents(), &rigs) };
    let (mut locals, mut model) = (animated.clone(), model_of(&skel, &animated));
    let mut reports = [FootReport::default(); 2];
    let result = wrong.run(&mut locals, &mut model, flat, 1.0 / 60.0, &mut FootPlacementState::new(2), &mut reports);
    assert!(matches!(result, Err(IkError::LengthMismatch { .. })));
    assert_eq!(locals, animated);
}

#[test]
fn a_planted_foot_a_swing_floor_carries_still_reads_as_planted_by_the_clip() {
    // A footstep prediction that takes a foot for swinging raises it over its swing floor and
    // counts it that much less planted; the clip's own weight (`clip_planted`) must not
    // follow, or the prediction reads the raised foot as swinging next frame and keeps it up.
    let skel = biped();
    let animated = standing(&skel, 0.04);
    let rigs = biped_feet(&skel);
    let flat = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::ZERO, Vec3::Y);
    let floors = [SwingFloor { height: 0.2, weight: 1.0 }, SwingFloor::default()];
    let job = FootPlacement { swing_floors: &floors, ..placement_job(skel.parents(), &rigs) };
    let mut state = FootPlacementState::new(2);
    let mut reports = [FootReport::default(); 2];
    let mut locals = animated.clone();
    let mut model = model_of(&skel, &locals);
    job.run(&mut locals, &mut model, flat, 1.0 / 60.0, &mut state, &mut reports).unwrap();
    println!(
        "carried foot: planted {}, clip planted {}, offset {:.3}",
        reports[0].planted, reports[0].clip_planted, reports[0].offset
    );
    assert_eq!(reports[0].planted, 0.0, "carried by its swing floor, it does not stand");
    assert!(reports[0].offset > 0.15, "and is raised: offset {}", reports[0].offset);
    assert_eq!(reports[0].clip_planted, 1.0, "the clip has it down");
    assert_eq!((reports[1].planted, reports[1].clip_planted), (1.0, 1.0), "the other foot stands");
}

#[test]
fn a_foot_folded_against_its_hip_keeps_its_sole_above_a_slope_under_it() {
    // A leg cannot bring its ankle nearer its hip than the difference of its thigh and shin
    // (4 cm here). The left foot swings folded 5 cm below its hip over a 30° slope that reaches
    // 3 cm above its sole (a short-legged character's trailing foot on a steep ramp): the lift
    // it needs asks for an ankle nearer the hip than the leg folds. The ankle goes out level,
    // downhill, at the height asked for, not straight away from the hip into the slope.
    let skel = biped();
    let mut animated = standing(&skel, 0.04);
    let model = model_of(&skel, &animated);
    let hip = model[LEFT.hip].translation;
    let below_hip = hip.y - model[LEFT.ankle].translation.y - 0.05;
    lift_foot(&skel, &mut animated, &LEFT, below_hip, 0.0);
    let rigs = biped_feet(&skel);
    let normal = Quat::from_rotation_x(30f32.to_radians()) * Vec3::Y;
    let ankle = model_of(&skel, &animated)[LEFT.ankle].translation;
    // How deep the slope through `at` reaches into the sole (its deepest point).
    let depth = |model: &[Xform], at: Vec3| {
        let points = rigs[0].sole_points(model);
        let under = |p: Vec3| at.y - (normal.x * (p.x - at.x) + normal.z * (p.z - at.z)) / normal.y;
        points.iter().flatten().map(|(p, rest)| under(*p) - (p.y - rest)).fold(f32::NEG_INFINITY, f32::max)
    };
    let slope_at = Vec3::new(ankle.x, 0.0, ankle.z);
    let slope_at = slope_at + Vec3::Y * (0.03 - depth(&model_of(&skel, &animated), slope_at));
    let ground = |o: Vec3, d: Vec3, m: f32| {
        if o.x > 0.0 { plane_hit(o, d, m, slope_at, normal) } else { plane_hit(o, d, m, Vec3::ZERO, Vec3::Y) }
    };
    let out = run(&skel, &animated, Xform::IDENTITY, FootPlacementSettings::default(), 60, 1.0 / 60.0, ground);
    let into = depth(&out.model, slope_at);
    println!(
        "folded foot over a 30° slope 3 cm into its sole: ankle {:.1} cm from the hip, sole {:.2} cm into the slope",
        out.model[LEFT.ankle].translation.distance(out.model[LEFT.hip].translation) * 100.0,
        into * 100.0
    );
    assert_eq!(out.reports[0].planted, 0.0, "the folded foot is in the air");
    assert!(into < 1e-3, "the folded foot's sole is {into} m into the slope");
}

#[test]
fn a_locked_foot_across_a_crest_lies_on_the_ramp_beyond_it() {
    // The left foot planted across the crest where level ground meets a 30° ramp going down
    // ahead, held at its ball (a lock: zero shifts), flat or with its heel rising. Tilted to
    // the slope about its ball, its heel comes forward: each point is probed where it ends, so
    // a heel that starts just behind the crest does not hold the foot up off the ramp. The
    // lowest sole point (every 2 mm, heel to tip) ends within 5 mm of the ground, and none more
    // than 2 mm inside it.
    let skel = biped();
    let rest = skel.rest_model();
    let rigs = foot_rigs_with_heel_and_tip(&rest, [LEFT, RIGHT]);
    let shifts = [Vec3::ZERO; 2];
    let job = FootPlacement { foot_shifts: &shifts, ..placement_job(skel.parents(), &rigs) };
    let (heel, tip) = (rigs[0].heel.unwrap(), rigs[0].tip.unwrap());
    let heel_z = rest[heel.bone].transform_point(heel.local).z;
    let slope = 30f32.to_radians();
    let mut worst: (f32, f32) = (0.0, 0.0);
    for behind in [0.005, 0.01, 0.015, 0.02] {
        let edge = heel_z + behind;
        let shape = move |z: f32| if z > edge { -(z - edge) * slope.tan() } else { 0.0 };
        let ground = move |o: Vec3, d: Vec3, m: f32| {
            let h = if o.x > 0.0 { shape(o.z) } else { 0.0 };
            let n = if o.x > 0.0 && o.z > edge { Quat::from_rotation_x(slope) * Vec3::Y } else { Vec3::Y };
            let t = o.y - h;
            (t >= 0.0 && t <= m && d.y < 0.0).then(|| GroundHit { point: Vec3::new(o.x, h, o.z), normal: n })
        };
        for heel_pitch in [0f32, 3.0] {
            let mut animated = standing(&skel, 0.04);
            animated[LEFT.ankle].rotation =
                (animated[LEFT.ankle].rotation * Quat::from_rotation_x(heel_pitch.to_radians())).normalize();
            let mut state = FootPlacementState::new(2);
            let mut reports = [FootReport::default(); 2];
            let (mut locals, mut model) = (animated.clone(), model_of(&skel, &animated));
            for _ in 0..60 {
                locals.copy_from_slice(&animated);
                model = model_of(&skel, &locals);
                job.run(&mut locals, &mut model, ground, 1.0 / 60.0, &mut state, &mut reports).unwrap();
            }
            let (a, b) = (model[heel.bone].transform_point(heel.local), model[tip.bone].transform_point(tip.local));
            let gaps = (0..=100).map(|s| a.lerp(b, s as f32 / 100.0)).map(|p| p.y - shape(p.z));
            let (float, inside) = gaps.fold((f32::INFINITY, 0f32), |(lo, deep), g| (lo.min(g), deep.max(-g)));
            worst = (worst.0.max(float), worst.1.max(inside));
            let case = format!("crest {behind} m ahead of the heel, heel pitched {heel_pitch}°");
            assert!(float < 0.005, "{case}: the sole floats {float} m over the ramp");
            assert!(inside < 0.002, "{case}: the sole is {inside} m inside the ground");
        }
    }
    println!("locked foot across a crest: float {:.2} mm, inside {:.2} mm at worst", worst.0 * 1e3, worst.1 * 1e3);
}
