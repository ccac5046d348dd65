//! Spring bars: the same goal is reached along the same curve at 30, 60 and 240 fps (within
//! 1e-4 at shared times), with no overshoot; the half-life means half the distance; degenerate
//! steps change nothing or snap; the rotation spring takes the shortest way; `turn_towards`
//! stops at its limit.

use core::f32::consts::PI;

use ik_core::glam::{Quat, Vec3};
use ik_core::spring::{QuatSpring, Spring, quat_log_shortest, turn_towards};

/// Angle between two rotations, precise near zero (unlike an `acos` of the dot product).
fn angle(a: Quat, b: Quat) -> f32 {
    quat_log_shortest(a * b.inverse()).length()
}

/// Runs a scalar spring from 0 toward 1 at `fps` for `seconds`, sampling every `1/30` s.
fn scalar_curve(fps: u32, seconds: f32, half_life: f32) -> Vec<f32> {
    let mut s = Spring::new(0.0f32);
    let per_sample = fps / 30;
    let mut samples = vec![s.value];
    for frame in 1..=(seconds * fps as f32).round() as u32 {
        s.update(1.0, half_life, 1.0 / fps as f32);
        if frame % per_sample == 0 {
            samples.push(s.value);
        }
    }
    samples
}

#[test]
fn same_curve_at_30_60_and_240_fps_within_1e4() {
    for half_life in [0.05, 0.2, 0.5] {
        let c30 = scalar_curve(30, 3.0, half_life);
        let c60 = scalar_curve(60, 3.0, half_life);
        let c240 = scalar_curve(240, 3.0, half_life);
        assert_eq!(c30.len(), c240.len());
        let worst = c30
            .iter()
            .zip(&c60)
            .zip(&c240)
            .map(|((a, b), c)| (a - b).abs().max((a - c).abs()).max((b - c).abs()))
            .fold(0.0f32, f32::max);
        println!("half-life {half_life}: worst gap between 30/60/240 fps curves = {worst:.2e}");
        assert!(worst <= 1e-4, "curves differ by {worst}");
        assert!((c30.last().unwrap() - 1.0).abs() < 1e-3, "goal reached");
    }
}

#[test]
fn vector_and_rotation_springs_are_frame_rate_independent_within_1e4() {
    let goal = Vec3::new(1.0, -2.0, 0.5);
    let qgoal = Quat::from_axis_angle(Vec3::new(0.3, 1.0, -0.2).normalize(), 2.5);
    let mut runs = Vec::new();
    for fps in [30u32, 60, 240] {
        let mut v = Spring::new(Vec3::ZERO);
        let mut q = QuatSpring::new(Quat::IDENTITY);
        let mut samples = Vec::new();
        for frame in 1..=(2 * fps) {
            v.update(goal, 0.15, 1.0 / fps as f32);
            q.update(qgoal, 0.15, 1.0 / fps as f32);
            if frame % (fps / 30) == 0 {
                samples.push((v.value, q.value));
            }
        }
        runs.push(samples);
    }
    let mut worst_v = 0.0f32;
    let mut worst_q = 0.0f32;
    for other in &runs[1..] {
        for (a, b) in runs[0].iter().zip(other) {
            worst_v = worst_v.max((a.0 - b.0).length());
            worst_q = worst_q.max(angle(a.1, b.1));
        }
    }
    println!("Vec3 spring gap {worst_v:.2e} m, Quat spring gap {worst_q:.2e} rad");
    assert!(worst_v <= 1e-4 && worst_q <= 1e-4, "{worst_v} {worst_q}");
}

#[test]
fn no_overshoot_from_rest_at_any_frame_rate_even_with_uneven_frames() {
    let mut rng = 3u64;
    for fps in [30.0f32, 60.0, 240.0, 0.0] {
        let mut s = Spring::new(Vec3::new(-3.0, 0.0, 2.0));
        let goal = Vec3::new(1.0, 1.0, 1.0);
        let start_gap = (s.value - goal).length();
        let mut last_gap = start_gap;
        let dir = (goal - s.value) / start_gap;
        for _ in 0..2000 {
            // fps 0: uneven frame times between 1 ms and 100 ms.
            let dt = if fps > 0.0 { 1.0 / fps } else { 0.001 + 0.099 * lcg(&mut rng) };
            s.update(goal, 0.1, dt);
            let along = (goal - s.value).dot(dir);
            assert!(along >= 0.0, "overshot the goal by {} m", -along);
            let gap = (s.value - goal).length();
            assert!(gap <= last_gap + 1e-7, "moved away from the goal");
            last_gap = gap;
        }
    }
}

#[test]
fn half_life_covers_half_the_distance_from_rest() {
    for half_life in [0.1f32, 0.4, 1.0] {
        let mut s = Spring::new(0.0f32);
        let steps = 240;
        for _ in 0..steps {
            s.update(10.0, half_life, half_life / steps as f32);
        }
        assert!((s.value - 5.0).abs() < 1e-3, "after one half-life: {}", s.value);
    }
}

#[test]
fn zero_dt_changes_nothing_zero_half_life_snaps_bad_input_keeps_state() {
    let mut s = Spring { value: Vec3::new(1.0, 2.0, 3.0), velocity: Vec3::new(0.5, 0.0, -0.5) };
    let before = s;
    s.update(Vec3::ZERO, 0.2, 0.0);
    assert_eq!(s, before, "dt = 0");
    s.update(Vec3::ZERO, 0.2, -0.1);
    assert_eq!(s, before, "negative dt");
    s.update(Vec3::new(f32::NAN, 0.0, 0.0), 0.2, 0.1);
    assert_eq!(s, before, "NaN goal is ignored");
    s.update(Vec3::ZERO, f32::NAN, 0.1);
    assert_eq!(s, before, "NaN half-life is ignored");
    s.update(Vec3::ZERO, 0.2, f32::INFINITY);
    assert_eq!(s, before, "infinite dt is ignored");
    s.update(Vec3::X, 0.0, 0.1);
    assert_eq!(s, Spring::new(Vec3::X), "zero half-life snaps");
    s.update(Vec3::Y, -1.0, 0.1);
    assert_eq!(s, Spring::new(Vec3::Y), "negative half-life snaps");
    let mut broken = Spring { value: f32::NAN, velocity: 1.0 };
    broken.update(2.0, 0.3, 0.1);
    assert_eq!(broken, Spring::new(2.0), "a NaN state snaps to a finite goal");
    let mut huge = Spring { value: f32::MAX, velocity: -f32::MAX };
    huge.update(-f32::MAX, 1e-30, 1e-3);
    assert!(huge.value.is_finite() && huge.velocity.is_finite());
}

#[test]
fn rotation_spring_takes_the_shortest_way_round() {
    // 350° about +Y is 10° the other way: the spring must never be more than 10° from its start.
    let goal = Quat::from_rotation_y(350f32.to_radians());
    for g in [goal, -goal] {
        let mut q = QuatSpring::new(Quat::IDENTITY);
        let mut widest = 0.0f32;
        for _ in 0..120 {
            q.update(g, 0.1, 1.0 / 60.0);
            widest = widest.max(q.value.angle_between(Quat::IDENTITY));
            let yaw = quat_log_shortest(q.value).y;
            assert!(yaw <= 1e-6, "turned the long way: {yaw}");
        }
        assert!(widest <= 10f32.to_radians() + 1e-4, "widest {widest}");
        assert!(q.value.angle_between(g) < 1e-3);
    }
    let mut q = QuatSpring::new(Quat::IDENTITY);
    let before = q;
    q.update(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0), 0.1, 0.1);
    assert_eq!(q, before, "zero quaternion goal is ignored");
    q.update(Quat::from_rotation_x(PI), 0.1, 0.0);
    assert_eq!(q, before, "dt = 0");
}

#[test]
fn turn_towards_stops_at_its_limit_and_is_exact_within_it() {
    let from = Vec3::Z;
    let to = Vec3::new(1.0, 0.0, 1.0); // 45° away
    let limited = turn_towards(from, to, 30f32.to_radians());
    assert!((limited.angle_between(Quat::IDENTITY) - 30f32.to_radians()).abs() < 1e-5);
    let full = turn_towards(from, to, 60f32.to_radians());
    assert!((full * from).angle_between(to) < 1e-5);
    // Opposite directions: a half turn about the vertical.
    let back = turn_towards(Vec3::Z, -Vec3::Z, PI);
    assert!((back * Vec3::Z + Vec3::Z).length() < 1e-5);
    assert!(quat_log_shortest(back).normalize().y.abs() > 0.999);
    // Degenerate input: identity.
    assert_eq!(turn_towards(Vec3::ZERO, to, 1.0), Quat::IDENTITY);
    assert_eq!(turn_towards(from, Vec3::splat(f32::NAN), 1.0), Quat::IDENTITY);
    assert_eq!(turn_towards(from, to, -1.0), Quat::IDENTITY);
}

fn lcg(state: &mut u64) -> f32 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 40) as f32) / ((1u64 << 24) as f32)
}
