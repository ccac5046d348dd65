use super::*;
use crate::Skeleton;

const PELVIS: usize = 1;
const CHEST: usize = 3;
const LEGS: [LegChain; 2] = [
    LegChain { hip: 4, knee: 5, ankle: 6, toe: Some(7), toe_end: None },
    LegChain { hip: 8, knee: 9, ankle: 10, toe: Some(11), toe_end: None },
];
const SPINE: [(usize, f32); 2] = [(2, 1.0), (CHEST, 1.0)];

/// Root, pelvis, spine, chest and two legs, knees slightly bent, left foot 20 cm ahead.
fn biped() -> (Skeleton, Vec<Xform>) {
    let t = Xform::from_translation;
    let mut parents = vec![None, Some(0), Some(1), Some(2)];
    let mut rest = vec![Xform::IDENTITY, t(Vec3::Y * 0.93), t(Vec3::Y * 0.1), t(Vec3::Y * 0.25)];
    for (x, z) in [(0.1f32, 0.2f32), (-0.1, -0.1)] {
        let hip = parents.len();
        parents.extend([Some(PELVIS), Some(hip), Some(hip + 1), Some(hip + 2)]);
        rest.extend([
            t(Vec3::new(x, -0.05, 0.0)),
            t(Vec3::new(0.0, -0.43, 0.04 + z * 0.5)),
            t(Vec3::new(0.0, -0.38, z * 0.5 - 0.04)),
            t(Vec3::new(0.0, -0.06, 0.14)),
        ]);
    }
    let names = (0..parents.len()).map(|i| format!("b{i}")).collect();
    let skeleton = Skeleton::new(parents, names, rest).unwrap();
    let model = skeleton.rest_model();
    (skeleton, model)
}

fn warp(parents: &[Option<usize>]) -> PoseWarp<'_> {
    PoseWarp { parents, pelvis: PELVIS, legs: &LEGS, spine: &SPINE, settings: WarpSettings::default() }
}

#[test]
fn moving_as_the_clip_does_leaves_the_pose_exactly_as_it_was() {
    let (skeleton, model) = biped();
    let (mut locals, mut out) = (skeleton.rest().to_vec(), model.clone());
    let mut state = WarpState::default();
    let motion = WarpMotion::new(Vec3::Z * 1.4, 1.4);
    let report = warp(skeleton.parents()).run(&mut locals, &mut out, &motion, 1.0 / 60.0, &mut state).unwrap();
    assert_eq!((report.scale, report.angle, report.play_rate), (1.0, 0.0, 1.0));
    assert_eq!(locals, skeleton.rest());
    assert_eq!(out, model);
}

#[test]
fn orientation_turns_the_feet_about_the_pelvis_and_the_chest_keeps_facing_the_clip() {
    let (skeleton, model) = biped();
    for degrees in [-90.0f32, -45.0, 30.0, 90.0, 135.0] {
        let (mut locals, mut out) = (skeleton.rest().to_vec(), model.clone());
        let direction = Quat::from_rotation_y(degrees.to_radians()) * Vec3::Z;
        let motion = WarpMotion::new(direction * 1.4, 1.4);
        let report = warp(skeleton.parents())
            .run(&mut locals, &mut out, &motion, 1.0 / 60.0, &mut WarpState::default())
            .unwrap();
        let expected = degrees.clamp(-90.0, 90.0);
        assert!((report.angle.to_degrees() - expected).abs() < 1e-3, "{degrees}: {report:?}");
        let chest = out[CHEST].rotation * Vec3::Z;
        assert!(chest.angle_between(Vec3::Z) < 1e-4, "{degrees}: the chest turned to {chest}");
        let pelvis = out[PELVIS].translation;
        for leg in LEGS {
            let after = out[leg.toe.unwrap()].translation;
            let before = model[leg.toe.unwrap()].translation - pelvis;
            let turned = Quat::from_rotation_y(expected.to_radians()) * Vec3::new(before.x, 0.0, before.z);
            let got = after - pelvis;
            let miss = Vec3::new(got.x, 0.0, got.z).distance(turned);
            if expected == degrees {
                // Past the limit the remaining angle is stride work along a skewed direction.
                assert!(miss < 1e-3, "{degrees}: ball {:?} off the turned path by {miss}", leg.toe);
            }
        }
    }
}

#[test]
fn the_stride_scales_the_balls_offsets_along_the_movement() {
    let (skeleton, model) = biped();
    let (mut locals, mut out) = (skeleton.rest().to_vec(), model.clone());
    let motion = WarpMotion::new(Vec3::Z * 1.4 * 1.08, 1.4);
    let report =
        warp(skeleton.parents()).run(&mut locals, &mut out, &motion, 1.0 / 60.0, &mut WarpState::default()).unwrap();
    assert!((report.scale - 1.08).abs() < 1e-5 && (report.play_rate - 1.0).abs() < 1e-5, "{report:?}");
    for leg in LEGS {
        let toe = leg.toe.unwrap();
        let before = model[toe].translation.z - model[PELVIS].translation.z;
        let after = out[toe].translation.z - model[PELVIS].translation.z;
        assert!((after - 1.08 * before).abs() < 2e-3, "ball z offset {before} -> {after}");
        assert!(report.reached);
    }
}

#[test]
fn past_the_scale_range_the_play_rate_makes_up_the_rest() {
    let (skeleton, model) = biped();
    let motion = WarpMotion::new(Vec3::Z * 2.8 * 1.4, 1.4);
    let (mut locals, mut out) = (skeleton.rest().to_vec(), model.clone());
    let report =
        warp(skeleton.parents()).run(&mut locals, &mut out, &motion, 1.0 / 60.0, &mut WarpState::default()).unwrap();
    let max = WarpSettings::default().max_scale;
    assert!((report.scale - max).abs() < 1e-5, "{report:?}");
    assert!((report.scale * report.play_rate - 2.8).abs() < 1e-4, "{report:?}");
}

#[test]
fn the_springs_ease_toward_a_new_goal_and_weights_scale_the_result() {
    let (skeleton, model) = biped();
    let mut state = WarpState::default();
    let mut settings = WarpSettings { orientation_weight: 0.5, ..WarpSettings::default() };
    let job = PoseWarp { settings, ..warp(skeleton.parents()) };
    let run = |job: &PoseWarp, velocity: Vec3, state: &mut WarpState| {
        let (mut locals, mut out) = (skeleton.rest().to_vec(), model.clone());
        job.run(&mut locals, &mut out, &WarpMotion::new(velocity, 1.4), 1.0 / 60.0, state).unwrap()
    };
    run(&job, Vec3::Z * 1.4, &mut state);
    let first = run(&job, Vec3::X * 1.4, &mut state);
    assert!(first.angle > 0.0 && first.angle < 45f32.to_radians() * 0.5, "eases in: {first:?}");
    let mut last = first;
    for _ in 0..120 {
        last = run(&job, Vec3::X * 1.4, &mut state);
    }
    assert!((last.angle.to_degrees() - 45.0).abs() < 0.1, "half of 90°: {last:?}");
    settings.stride_weight = 0.0;
    let off = run(&PoseWarp { settings, ..job }, Vec3::Z * 2.0, &mut WarpState::default());
    assert_eq!(off.scale, 1.0);
}

#[test]
fn bad_input_is_refused_with_the_pose_and_the_state_untouched() {
    let (skeleton, model) = biped();
    let parents = skeleton.parents();
    let mut state = WarpState::default();
    let good = WarpMotion::new(Vec3::X, 1.4);
    let cases: Vec<(PoseWarp, WarpMotion, f32)> = vec![
        (warp(parents), WarpMotion::new(Vec3::NAN, 1.4), 0.016),
        (warp(parents), WarpMotion { clip_speed: f32::INFINITY, ..good }, 0.016),
        (warp(parents), WarpMotion { ground_normal: Vec3::NAN, ..good }, 0.016),
        (warp(parents), good, f32::NAN),
        (PoseWarp { pelvis: 99, ..warp(parents) }, good, 0.016),
        // A leg whose hip is not under the pelvis (the spine's chest).
        (PoseWarp { pelvis: CHEST, ..warp(parents) }, good, 0.016),
        (
            PoseWarp { settings: WarpSettings { max_scale: f32::NAN, ..Default::default() }, ..warp(parents) },
            good,
            0.016,
        ),
    ];
    for (job, motion, dt) in cases {
        let (mut locals, mut out) = (skeleton.rest().to_vec(), model.clone());
        assert!(job.run(&mut locals, &mut out, &motion, dt, &mut state).is_err());
        assert_eq!(locals, skeleton.rest());
        assert_eq!(out, model);
        assert_eq!(state, WarpState::default());
    }
    let mut short = model.clone();
    short.pop();
    let mut locals = skeleton.rest().to_vec();
    assert!(warp(parents).run(&mut locals, &mut short, &good, 0.016, &mut state).is_err());
}

/// The ground's normal for a ramp rising `degrees` along +Z.
fn ramp_normal(degrees: f32) -> Vec3 {
    Quat::from_rotation_x(-degrees.to_radians()) * Vec3::Y
}

#[test]
fn on_a_ramp_the_balls_follow_its_plane_and_the_spine_leans_into_it() {
    let (skeleton, model) = biped();
    for degrees in [-30.0f32, -10.0, 10.0, 20.0, 30.0] {
        let (mut locals, mut out) = (skeleton.rest().to_vec(), model.clone());
        let motion = WarpMotion { ground_normal: ramp_normal(degrees), ..WarpMotion::new(Vec3::Z * 1.4, 1.4) };
        let report = warp(skeleton.parents())
            .run(&mut locals, &mut out, &motion, 1.0 / 60.0, &mut WarpState::default())
            .unwrap();
        assert!((report.slope.to_degrees() - degrees).abs() < 1e-3, "{degrees}°: {report:?}");
        let lean = (0.3 * degrees).clamp(-12.0, 12.0);
        assert!((report.lean.to_degrees() - lean).abs() < 1e-3, "{degrees}°: {report:?}");
        for leg in LEGS {
            let (before, after) = (model[leg.toe.unwrap()].translation, out[leg.toe.unwrap()].translation);
            let rise = degrees.to_radians().tan() * before.z;
            assert!(
                (after.y - before.y - rise).abs() < 2e-3,
                "{degrees}°: ball rose {} not {rise}",
                after.y - before.y
            );
            assert!(Vec3::new(after.x - before.x, 0.0, after.z - before.z).length() < 2e-3, "{degrees}°");
        }
        // The chest tips toward +Z (uphill) by the lean.
        let up = out[CHEST].rotation * Vec3::Y;
        let tipped = up.z.atan2(up.y).to_degrees();
        assert!((tipped - lean).abs() < 0.01, "{degrees}°: the chest tipped {tipped}° not {lean}°");
    }
}

#[test]
fn without_slope_weight_or_standing_still_a_ramp_leaves_the_pose_exactly_as_it_was() {
    let (skeleton, model) = biped();
    let off = WarpSettings { slope_weight: 0.0, ..WarpSettings::default() };
    // Walking at the clip's speed with slope warping off; standing (an idle clip) on the ramp.
    let cases = [(off, Vec3::Z * 1.4, 1.4), (WarpSettings::default(), Vec3::ZERO, 0.0)];
    for (settings, velocity, clip_speed) in cases {
        let (mut locals, mut out) = (skeleton.rest().to_vec(), model.clone());
        let motion = WarpMotion { ground_normal: ramp_normal(20.0), ..WarpMotion::new(velocity, clip_speed) };
        let job = PoseWarp { settings, ..warp(skeleton.parents()) };
        let report = job.run(&mut locals, &mut out, &motion, 1.0 / 60.0, &mut WarpState::default()).unwrap();
        assert_eq!((report.slope, report.lean), (0.0, 0.0), "{velocity}");
        assert_eq!(locals, skeleton.rest());
        assert_eq!(out, model);
    }
}

/// [`biped`] with its feet hanging from the root (an IK-control rig), posed the same.
fn biped_with_feet_on_the_root() -> (Vec<Option<usize>>, Vec<Xform>, Vec<Xform>) {
    let (skeleton, model) = biped();
    let mut parents = skeleton.parents().to_vec();
    let mut locals = skeleton.rest().to_vec();
    for leg in LEGS {
        parents[leg.ankle] = Some(0);
        locals[leg.ankle] = model[0].inverse().mul_xform(&model[leg.ankle]);
    }
    (parents, locals, model)
}

#[test]
fn feet_hanging_from_the_root_are_warped_as_feet_below_the_shins() {
    let (skeleton, model) = biped();
    let (parents, external_locals, external_model) = biped_with_feet_on_the_root();
    for (i, leg) in LEGS.iter().enumerate() {
        assert!(external_model[leg.ankle].translation.distance(model[leg.ankle].translation) < 1e-6, "leg {i}");
    }
    // Slower, turned 30° and up a 10° ramp (stride, orientation and slope at once); faster
    // than the clip down it, so a stretched leg lowers the pelvis (and the shins with it).
    let turned = Quat::from_rotation_y(30f32.to_radians()) * Vec3::Z;
    let motions = [
        WarpMotion { ground_normal: ramp_normal(10.0), ..WarpMotion::new(turned * 0.7, 1.4) },
        WarpMotion { ground_normal: ramp_normal(-10.0), ..WarpMotion::new(Vec3::Z * 2.2, 1.4) },
    ];
    let settings = WarpSettings { slope_weight: 1.0, ..Default::default() };
    let job = PoseWarp { settings, ..warp(skeleton.parents()) };
    let mut dropped = false;
    for motion in motions {
        let (mut locals, mut out) = (skeleton.rest().to_vec(), model.clone());
        let below = job.run(&mut locals, &mut out, &motion, 1.0 / 60.0, &mut WarpState::default()).unwrap();
        let (mut ext_locals, mut ext_out) = (external_locals.clone(), external_model.clone());
        let on_root = PoseWarp { parents: &parents, ..job }
            .run(&mut ext_locals, &mut ext_out, &motion, 1.0 / 60.0, &mut WarpState::default())
            .unwrap();
        assert!(below.scale != 1.0 && below.slope != 0.0, "{below:?}");
        let same = |a: f32, b: f32| (a - b).abs() < 1e-5;
        let floors = below.floor_heights.iter().zip(&on_root.floor_heights).all(|(a, b)| same(*a, *b));
        assert!(floors && same(below.pelvis_drop, on_root.pelvis_drop), "{below:?} vs {on_root:?}");
        assert_eq!(below.reached, on_root.reached);
        dropped |= below.pelvis_drop < -1e-3;
        for leg in LEGS {
            for bone in [leg.knee, leg.ankle, leg.toe.unwrap()] {
                let (a, b) = (out[bone], ext_out[bone]);
                assert!(a.translation.distance(b.translation) < 1e-4, "bone {bone}: {a:?} vs {b:?}");
                assert!(a.rotation.angle_between(b.rotation) < 1e-3, "bone {bone}: {a:?} vs {b:?}");
            }
            // Its local is what puts it there through the root, so a write-back moves it.
            let through_root = ext_out[0].mul_xform(&ext_locals[leg.ankle]);
            assert!(through_root.translation.distance(ext_out[leg.ankle].translation) < 1e-5);
        }
    }
    assert!(dropped, "no motion lowered the pelvis");
}
