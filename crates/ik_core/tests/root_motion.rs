//! Root motion (`ik_core::root_motion`): a clip's travel split from its in-place pose, on
//! synthetic hips and root tracks whose true travel is known in closed form.

use core::f32::consts::{FRAC_PI_2, PI, TAU};

use glam::{Quat, Vec3};
use ik_core::Xform;
use ik_core::root_motion::{
    Carrier, ClipTravel, RootMotionError, RootMotionSettings, Travel, blend_travel, carrier_track, extract_travel,
    find_carrier,
};
use proptest::prelude::*;

const RATE: f32 = 30.0;

/// Samples `f(t)` at `RATE` Hz from 0 to `duration` inclusive (the last sample is the clip's end).
fn sample(duration: f32, f: impl Fn(f32) -> Xform) -> Vec<Xform> {
    let n = (duration * RATE).round() as usize;
    (0..=n).map(|i| f(i as f32 / RATE)).collect()
}

/// A walk's hips in model space (+Y up, +Z forward), 1.0 s cycle: `travel` m along +Z per cycle,
/// 2 cm bob twice a cycle, 2.5 cm sway once, 3 cm surge, ±0.08 rad yaw wobble, pitch.
fn walk_hips(travel: f32, t: f32) -> Xform {
    let position = Vec3::new(
        0.025 * (TAU * t).sin(),
        0.95 + 0.02 * (2.0 * TAU * t).cos(),
        travel * t + 0.03 * (2.0 * TAU * t).sin(),
    );
    let rotation = Quat::from_rotation_y(0.08 * (TAU * t).sin()) * Quat::from_rotation_x(0.05 * (2.0 * TAU * t).sin());
    Xform::from_translation_rotation(position, rotation)
}

fn settings() -> RootMotionSettings {
    RootMotionSettings::new(Vec3::Y, Vec3::Z, 0.9)
}

fn extract(track: &[Xform], settings: &RootMotionSettings) -> (ClipTravel, Vec<Travel>) {
    let mut travel = vec![Travel::IDENTITY; track.len()];
    let clip = extract_travel(track, RATE, settings, &mut travel).expect("a valid clip");
    (clip, travel)
}

/// Position and angle jump between the in-place remainder at the clip's end and at its start.
fn wrap_jump(track: &[Xform], travel: &[Travel]) -> (f32, f32) {
    let first = travel[0].remove_from(&track[0]);
    let last = travel[track.len() - 1].remove_from(&track[track.len() - 1]);
    (first.translation.distance(last.translation), first.rotation.angle_between(last.rotation))
}

#[test]
fn a_hips_walk_travels_1_12_m_per_s_and_its_remainder_is_continuous_at_the_wrap() {
    let track = sample(1.0, |t| walk_hips(1.12, t));
    let (clip, travel) = extract(&track, &settings());
    let error = (clip.speed - 1.12).abs() / 1.12;
    let (jump, turn) = wrap_jump(&track, &travel);
    println!(
        "walk: speed {:.5} m/s ({:.4} %), turn rate {:.2e} rad/s, wrap jump {:.3e} m {:.2e} rad",
        clip.speed,
        100.0 * error,
        clip.turn_rate,
        jump,
        turn
    );
    assert!(clip.travels);
    assert!(error < 0.01, "speed {} vs 1.12 m/s", clip.speed);
    assert!(clip.turn_rate.abs() < 1e-3, "a straight walk does not turn: {}", clip.turn_rate);
    assert!((clip.velocity - Vec3::Z * 1.12).length() < 0.01, "forward: {}", clip.velocity);
    assert!(jump <= 0.002 && turn <= 0.002, "remainder jump at the wrap {jump} m, {turn} rad");
    // The travel is steady: the sway, bob and surge stay in the pose, and M · remainder is the clip.
    let mut sway: f32 = 0.0;
    for (x, m) in track.iter().zip(&travel) {
        let rest = m.remove_from(x);
        sway = sway.max(rest.translation.x.abs());
        let back = m.to_xform().mul_xform(&rest);
        assert!(back.translation.distance(x.translation) < 1e-5 && back.rotation.angle_between(x.rotation) < 1e-3);
    }
    assert!((sway - 0.025).abs() < 0.002, "the sway stays in the pose: {sway}");
    assert!((travel[15].translation - Vec3::Z * 0.56).length() < 1e-4, "half way: {}", travel[15].translation);
}

/// A clip walking a circle: `rate` rad/s about up at `speed` m/s for `duration` s, with a sway
/// and a yaw wobble that are periodic over the clip, in the frame (`up`, `forward`).
fn turning_hips(up: Vec3, forward: Vec3, rate: f32, speed: f32, duration: f32, t: f32) -> Xform {
    let left = up.cross(forward);
    let heading = rate * t;
    let turn = Quat::from_axis_angle(up, heading);
    let ground = forward * (speed / rate * heading.sin()) + left * (speed / rate * (1.0 - heading.cos()));
    let phase = TAU * t / duration;
    let sway = turn * (left * 0.03 * phase.sin());
    let wobble = Quat::from_axis_angle(up, 0.1 * (2.0 * phase).sin());
    Xform::from_translation_rotation(ground + sway + up * (0.95 + 0.02 * (2.0 * phase).cos()), wobble * turn)
}

#[test]
fn a_turning_clip_recovers_its_yaw_rate_within_1_percent_in_either_up_convention() {
    for (up, forward) in [(Vec3::Y, Vec3::Z), (Vec3::Z, Vec3::NEG_Y)] {
        let track = sample(2.0, |t| turning_hips(up, forward, 0.6, 1.0, 2.0, t));
        let (clip, travel) = extract(&track, &RootMotionSettings::new(up, forward, 0.9));
        let rate_error = (clip.turn_rate - 0.6).abs() / 0.6;
        let speed_error = (clip.speed - 1.0).abs();
        let (jump, turn) = wrap_jump(&track, &travel);
        println!(
            "turn (up {up}): rate {:.5} rad/s ({:.4} %), speed {:.5} m/s, wrap jump {jump:.2e} m {turn:.2e} rad",
            clip.turn_rate,
            100.0 * rate_error,
            clip.speed
        );
        assert!(rate_error < 0.01, "turn rate {} vs 0.6 rad/s", clip.turn_rate);
        assert!(speed_error < 0.01, "speed {} vs 1.0 m/s", clip.speed);
        assert!(jump <= 0.002 && turn <= 0.002, "remainder jump at the wrap {jump} m, {turn} rad");
        assert!((clip.cycle.yaw - 1.2).abs() < 0.012);
    }
}

#[test]
fn a_clip_turning_past_half_a_circle_accumulates_its_yaw() {
    // 1.5 rad/s for 4 s: 6 rad, almost a full circle, walked at 0.8 m/s.
    let track = sample(4.0, |t| turning_hips(Vec3::Y, Vec3::Z, 1.5, 0.8, 4.0, t));
    let (clip, _) = extract(&track, &settings());
    println!("six radians: rate {:.5} rad/s, speed {:.5} m/s", clip.turn_rate, clip.speed);
    assert!((clip.turn_rate - 1.5).abs() < 0.015 && (clip.speed - 0.8).abs() < 0.008);
}

#[test]
fn an_in_place_clip_reports_no_travel() {
    // The walk's bob, sway, surge and wobble, and a 1 cm drift over the clip: within tolerance.
    let track = sample(1.0, |t| {
        let mut x = walk_hips(0.0, t);
        x.translation.z += 0.01 * t;
        x
    });
    let (clip, travel) = extract(&track, &settings());
    println!("in place: travels {}, speed {}, turn rate {}", clip.travels, clip.speed, clip.turn_rate);
    assert!(!clip.travels);
    assert_eq!((clip.speed, clip.turn_rate, clip.velocity), (0.0, 0.0, Vec3::ZERO));
    assert!(travel.iter().all(|m| *m == Travel::IDENTITY));
    assert_eq!(clip.delta_wrapped(&travel, 0.9, 0.1, 1.0), Travel::IDENTITY);
}

#[test]
fn bad_input_is_an_error_that_names_it_and_leaves_the_buffer_alone() {
    let mut track = sample(1.0, |t| walk_hips(1.12, t));
    let sentinel = Travel { yaw: 7.0, ..Travel::IDENTITY };
    let mut travel = vec![sentinel; track.len()];
    let run = |track: &[Xform], rate: f32, s: &RootMotionSettings, travel: &mut [Travel]| {
        extract_travel(track, rate, s, travel)
    };
    assert_eq!(run(&[], RATE, &settings(), &mut []), Err(RootMotionError::TooFewSamples { got: 0 }));
    assert_eq!(run(&track[..1], RATE, &settings(), &mut travel[..1]), Err(RootMotionError::TooFewSamples { got: 1 }));
    assert_eq!(
        run(&track, RATE, &settings(), &mut travel[1..]),
        Err(RootMotionError::LengthMismatch { expected: 31, got: 30 })
    );
    for rate in [0.0, -30.0, f32::NAN, f32::INFINITY] {
        assert_eq!(run(&track, rate, &settings(), &mut travel), Err(RootMotionError::BadFrameRate), "rate {rate}");
    }
    for (up, forward) in
        [(Vec3::ZERO, Vec3::Z), (Vec3::Y, Vec3::Y * 2.0), (Vec3::NAN, Vec3::Z), (Vec3::Y, Vec3::INFINITY)]
    {
        let s = RootMotionSettings { up, forward, ..settings() };
        assert_eq!(run(&track, RATE, &s, &mut travel), Err(RootMotionError::BadAxes), "{up} {forward}");
    }
    let s = RootMotionSettings { still_distance: f32::NAN, ..settings() };
    assert_eq!(run(&track, RATE, &s, &mut travel), Err(RootMotionError::BadTolerance));
    track[7].translation.x = f32::NAN;
    assert_eq!(run(&track, RATE, &settings(), &mut travel), Err(RootMotionError::NonFinite { sample: 7 }));
    track[7].translation.x = 0.0;
    track[9].rotation = Quat::from_xyzw(0.0, f32::INFINITY, 0.0, 1.0);
    let error = run(&track, RATE, &settings(), &mut travel).unwrap_err();
    assert_eq!(error, RootMotionError::NonFinite { sample: 9 });
    assert!(error.to_string().contains("sample 9"), "{error}");
    assert!(travel.iter().all(|m| *m == sentinel), "nothing written on an error");
}

/// root(0) → hips(1) → spine(2), hips → thigh(3). `root_moves`: the root travels +Z 1.12 m/s
/// and the hips only bob; else the root stands and the hips walk.
fn two_carriers(root_moves: bool) -> (Vec<Option<usize>>, Vec<Xform>) {
    let parents = vec![None, Some(0), Some(1), Some(1)];
    let mut locals = Vec::new();
    for i in 0..=30 {
        let t = i as f32 / RATE;
        let walk = walk_hips(1.12, t);
        let (root, hips) = if root_moves {
            let root = Xform::from_translation(Vec3::Z * 1.12 * t);
            (root, Xform { translation: walk.translation - root.translation, ..walk })
        } else {
            (Xform::IDENTITY, walk)
        };
        locals.extend([
            root,
            hips,
            Xform::from_translation(Vec3::Y * 0.1),
            Xform::from_translation(Vec3::new(0.1, -0.05, 0.0)),
        ]);
    }
    (parents, locals)
}

#[test]
fn the_carrier_is_the_root_when_it_travels_else_the_hips() {
    for (root_moves, expected) in [(true, Carrier::Root(0)), (false, Carrier::Hips(1))] {
        let (parents, locals) = two_carriers(root_moves);
        let carrier = find_carrier(&parents, 1, &locals, &settings()).unwrap();
        let mut track = vec![Xform::IDENTITY; 31];
        carrier_track(&parents, carrier.bone().unwrap(), &locals, &mut track).unwrap();
        let (clip, _) = extract(&track, &settings());
        println!("root moves {root_moves}: carrier {carrier:?}, speed {:.5} m/s", clip.speed);
        assert_eq!(carrier, expected);
        assert!((clip.speed - 1.12).abs() < 0.0112);
    }
    // A static armature above the travelling root is skipped; nothing travelling is in place.
    let (parents, locals) = two_carriers(true);
    let parents_armature: Vec<Option<usize>> =
        [None].into_iter().chain(parents.iter().map(|p| Some(p.map_or(0, |p| p + 1)))).collect();
    let locals_armature: Vec<Xform> =
        locals.chunks(4).flat_map(|f| [Xform::IDENTITY].into_iter().chain(f.iter().copied())).collect();
    assert_eq!(find_carrier(&parents_armature, 2, &locals_armature, &settings()), Ok(Carrier::Root(1)));
    let still: Vec<Xform> = locals.chunks(4).flat_map(|f| [Xform::IDENTITY, f[2], f[2], f[3]]).collect();
    assert_eq!(find_carrier(&parents, 1, &still, &settings()), Ok(Carrier::InPlace));
    assert_eq!(find_carrier(&parents, 4, &locals, &settings()), Err(RootMotionError::BadBone { bone: 4 }));
    assert_eq!(
        find_carrier(&parents, 1, &locals[1..], &settings()),
        Err(RootMotionError::LengthMismatch { expected: 120, got: 123 })
    );
}

#[test]
fn an_armature_scaled_6_8e_5_with_centimetre_like_keys_still_travels_1_12_m_per_s() {
    // Armature (scale 6.8e-5, Z-up turned to Y-up) → hips → spine. Hips keys in armature units:
    // forward is the armature's −Y, up its +Z; a cycle's travel is 16 471 units.
    let scale = 6.8e-5;
    let armature =
        Xform { translation: Vec3::ZERO, rotation: Quat::from_rotation_x(-FRAC_PI_2), scale: Vec3::splat(scale) };
    let parents = [None, Some(0), Some(1)];
    let locals: Vec<Xform> = (0..=30)
        .flat_map(|i| {
            let model = walk_hips(1.12, i as f32 / RATE);
            let hips = armature.inverse().mul_xform(&model);
            [armature, hips, Xform::from_translation(Vec3::Z * 0.1 / scale)]
        })
        .collect();
    assert!(locals[31 * 3 - 2].translation.y < -16_000.0, "large keys: {}", locals[31 * 3 - 2].translation);
    let carrier = find_carrier(&parents, 1, &locals, &settings()).unwrap();
    let mut track = vec![Xform::IDENTITY; 31];
    carrier_track(&parents, 1, &locals, &mut track).unwrap();
    let (clip, travel) = extract(&track, &settings());
    let first = travel[0].remove_from_local(&locals[1], &armature);
    let last = travel[30].remove_from_local(&locals[31 * 3 - 2], &armature);
    let jump = first.translation.distance(last.translation) * scale;
    println!("armature 6.8e-5: carrier {carrier:?}, speed {:.5} m/s, wrap jump {jump:.2e} m", clip.speed);
    assert_eq!(carrier, Carrier::Hips(1));
    assert!((clip.speed - 1.12).abs() / 1.12 < 0.01, "speed {}", clip.speed);
    assert!(jump <= 0.002, "local remainder jump at the wrap {jump} m");
    let mid = travel[15].remove_from_local(&locals[15 * 3 + 1], &armature);
    assert!((armature.mul_xform(&mid).translation.z - walk_hips(0.0, 0.5).translation.z).abs() < 1e-3);
}

#[test]
fn the_per_frame_delta_sums_to_the_clips_travel_over_loops_either_way_at_any_speed() {
    let walk = sample(1.0, |t| walk_hips(1.12, t));
    let turn = sample(2.0, |t| turning_hips(Vec3::Y, Vec3::Z, 0.6, 1.0, 2.0, t));
    for (track, name) in [(&walk, "walk"), (&turn, "turn")] {
        let (clip, travel) = extract(track, &settings());
        for speed in [1.0f32, -1.0, 1.7] {
            // 3.5 loops at 60 fps, the player's time wrapped into [0, duration).
            let frames = (3.5 * clip.duration * 60.0 / speed.abs()).round() as usize;
            let (mut moved, mut clock) = (Travel::IDENTITY, 0.0f32);
            for _ in 0..frames {
                let next = (clock + speed / 60.0).rem_euclid(clip.duration);
                moved = moved.then(&clip.delta_wrapped(&travel, clock, next, speed));
                clock = next;
            }
            let played = frames as f32 * speed / 60.0;
            let expected = clip.at(&travel, played);
            let error = moved.translation.distance(expected.translation);
            println!("{name} at speed {speed}: {played:.3} s played, moved {}, error {error:.2e} m", moved.translation);
            assert!(
                error < 2e-3 && (moved.yaw - expected.yaw).abs() < 1e-3,
                "{name} {speed}: {moved:?} vs {expected:?}"
            );
        }
        let whole = clip.delta(&travel, 0.0, clip.duration);
        assert!(whole.translation.distance(clip.cycle.translation) < 1e-4);
    }
    // 3.5 walk loops forward are 3.92 m along +Z.
    let (clip, travel) = extract(&walk, &settings());
    assert!((clip.at(&travel, 3.5).translation - Vec3::Z * 3.92).length() < 1e-3);
    assert_eq!(clip.delta_wrapped(&travel, f32::NAN, 0.5, 1.0), Travel::IDENTITY);
}

#[test]
fn a_clip_that_does_not_loop_follows_its_carrier_over_the_ground() {
    // A walk start: the hips speed up from 0 to 1.4 m/s over 1 s, bobbing, turning 0.3 rad.
    let track = sample(1.0, |t| {
        let mut x = walk_hips(0.0, t);
        x.translation.z += 0.7 * t * t;
        x.rotation = Quat::from_rotation_y(0.3 * t) * x.rotation;
        x
    });
    let s = RootMotionSettings { looping: false, ..settings() };
    let (clip, travel) = extract(&track, &s);
    let mut drift: f32 = 0.0;
    for (x, m) in track.iter().zip(&travel) {
        let ground = m.remove_from(x).translation.reject_from(Vec3::Y);
        drift = drift.max(ground.distance(track[0].translation.reject_from(Vec3::Y)));
    }
    let half = clip.delta(&travel, 0.0, 0.5).translation.z;
    println!(
        "walk start: mean speed {:.4} m/s, in-place ground drift {drift:.2e} m, first half {half:.4} m",
        clip.speed
    );
    assert!(drift < 1e-4, "the carrier's ground point stays put in the remainder: {drift}");
    assert!((half - (0.7 * 0.25 + 0.03 * (2.0 * PI).sin())).abs() < 0.01, "{half}");
    assert!((clip.delta(&travel, 0.0, 9.0).translation - clip.cycle.translation).length() < 1e-6, "clamped at the end");
}

/// A random clip: samples, frame rate, settings and a per-frame query.
#[derive(Clone, Debug)]
struct Case {
    track: Vec<Xform>,
    rate: f32,
    settings: RootMotionSettings,
    query: [f32; 3],
}

/// Any track of finite values (everyday, huge, zero; unnormalized rotations), any axes.
fn any_case() -> impl Strategy<Value = Case> {
    let value = prop_oneof![4 => -10.0f32..10.0, 1 => -1e30f32..1e30, 1 => Just(0.0f32)];
    let vec3 = (value.clone(), value.clone(), value).prop_map(|(x, y, z)| Vec3::new(x, y, z));
    let quat =
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w));
    let axis = (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z)| Vec3::new(x, y, z));
    let sample = (vec3, quat).prop_map(|(t, r)| Xform::from_translation_rotation(t, r));
    (
        prop::collection::vec(sample, 0..24),
        prop_oneof![0.5f32..240.0, Just(1e-30f32)],
        (any::<bool>(), any::<bool>(), axis.clone(), axis),
        [-100.0f32..100.0, -100.0f32..100.0, -10.0f32..10.0],
    )
        .prop_map(|(track, rate, (looping, vertical, up, forward), query)| Case {
            track,
            rate,
            settings: RootMotionSettings { looping, vertical, ..RootMotionSettings::new(up, forward, 0.9) },
            query,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_tracks_give_finite_output_or_an_error(case in any_case()) {
        let mut travel = vec![Travel::IDENTITY; case.track.len()];
        if let Ok(clip) = extract_travel(&case.track, case.rate, &case.settings, &mut travel) {
            prop_assert!(clip.speed.is_finite() && clip.turn_rate.is_finite() && clip.velocity.is_finite());
            for (x, m) in case.track.iter().zip(&travel) {
                prop_assert!(m.translation.is_finite() && m.rotation.is_finite() && m.yaw.is_finite());
                prop_assert!(m.remove_from(x).is_finite());
            }
            let [a, b, speed] = case.query;
            let d = clip.delta_wrapped(&travel, a, b, speed);
            prop_assert!(d.translation.is_finite() && d.rotation.is_finite() && d.yaw.is_finite(), "{d:?}");
        }
    }
}

#[test]
fn blended_deltas_are_the_weighted_mean_of_translation_and_yaw() {
    let walk = sample(1.0, |t| walk_hips(1.12, t));
    let turn = sample(2.0, |t| turning_hips(Vec3::Y, Vec3::Z, 0.6, 1.0, 2.0, t));
    let (walk_clip, walk_travel) = extract(&walk, &settings());
    let (turn_clip, turn_travel) = extract(&turn, &settings());
    let a = walk_clip.delta_wrapped(&walk_travel, 0.5, 0.6, 1.0);
    let b = turn_clip.delta_wrapped(&turn_travel, 1.95, 0.05, 1.0);
    let mixed = blend_travel(Vec3::Y, &[(a, 0.75), (b, 0.25), (b, 0.0), (b, -1.0), (b, f32::NAN)]);
    let expected_yaw = 0.25 * 0.6 * 0.1;
    println!("blend: yaw {:.5} rad (expected {expected_yaw:.5}), translation {}", mixed.yaw, mixed.translation);
    assert!((mixed.yaw - expected_yaw).abs() < 1e-4);
    assert!(mixed.translation.distance(a.translation * 0.75 + b.translation * 0.25) < 1e-6);
    assert!((mixed.rotation.angle_between(Quat::IDENTITY) - expected_yaw).abs() < 1e-4);
    assert_eq!(blend_travel(Vec3::Y, &[(b, 0.0)]), Travel::IDENTITY);
}

#[test]
fn a_loop_a_blend_space_seeks_at_speed_0_travels_forward_through_its_wrap() {
    // A player paused (speed 0) whose clip time a blend space sets each frame, 1/60 s on:
    // every frame's travel is forward, the wrap's too (not the whole loop back).
    let track = sample(1.0, |t| walk_hips(1.4, t));
    let (clip, travel) = extract(&track, &settings());
    let (mut clock, mut total, mut least) = (0.0f32, 0.0f32, f32::INFINITY);
    for _ in 0..150 {
        let next = (clock + 1.0 / 60.0).rem_euclid(clip.duration);
        let step = clip.delta_wrapped(&travel, clock, next, 0.0).translation.z;
        (total, least, clock) = (total + step, least.min(step), next);
    }
    println!("seeked at speed 0: {total:.3} m over 2.5 s, least step {:.2} cm", least * 100.0);
    assert!(least > 0.0, "a frame went back {:.1} cm", -least * 100.0);
    assert!((total - 1.4 * 2.5).abs() < 0.02, "{total} m");
}
