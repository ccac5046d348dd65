//! Follow the leader (caterpillar body), the chasing head and the bob wave.

use glam::Vec3;
use ik_core::IkError;
use ik_core::follow::{bob, chase, follow_the_leader};
use proptest::prelude::*;

const GAP: f32 = 0.42;

fn gaps(points: &[Vec3]) -> Vec<f32> {
    points.windows(2).map(|w| w[0].distance(w[1])).collect()
}

#[test]
fn a_stretched_body_is_pulled_to_the_gap_along_its_own_line() {
    // Twelve segments strung out 1 m apart along -X: each is pulled in to 0.42 m, staying on -X.
    let mut body: Vec<Vec3> = (0..12).map(|i| Vec3::new(-(i as f32), 0.0, 0.0)).collect();
    follow_the_leader(&mut body, GAP, -Vec3::X).unwrap();
    for (i, p) in body.iter().enumerate() {
        assert!((p.x + GAP * i as f32).abs() < 1e-5 && p.y.abs() < 1e-6 && p.z.abs() < 1e-6, "segment {i} at {p}");
    }
}

#[test]
fn the_body_winds_along_the_path_the_head_took() {
    // The head walks a quarter circle of radius 3 m in small steps; afterwards the segments on
    // the arc are strung along it in order, each at most 25 cm inside it (a pulled body cuts a
    // curve a little, like a towed trailer, the more the further back) and never outside it.
    let mut body: Vec<Vec3> = (0..8).map(|i| Vec3::new(3.0 + GAP * i as f32, 0.0, 0.0)).collect();
    let steps = 400;
    for s in 0..=steps {
        let a = std::f32::consts::FRAC_PI_2 * s as f32 / steps as f32;
        body[0] = Vec3::new(3.0 * a.cos(), 0.0, 3.0 * a.sin());
        follow_the_leader(&mut body, GAP, -Vec3::X).unwrap();
    }
    let mut previous_angle = f32::INFINITY;
    for (i, p) in body.iter().enumerate() {
        if p.z > 0.0 && p.x > 0.0 {
            assert!(p.length() <= 3.0 + 1e-4 && p.length() > 2.75, "segment {i} at radius {}", p.length());
            let angle = p.z.atan2(p.x);
            assert!(angle < previous_angle, "segment {i} out of order");
            previous_angle = angle;
        }
    }
    for g in gaps(&body) {
        assert!((g - GAP).abs() < 1e-5);
    }
}

#[test]
fn coincident_points_keep_a_direction() {
    // The second point on the head: it goes along the fallback (+Z).
    let mut body = [Vec3::new(1.0, 2.0, 3.0); 2];
    follow_the_leader(&mut body, GAP, Vec3::Z).unwrap();
    assert!(body[1].distance(Vec3::new(1.0, 2.0, 3.0 + GAP)) < 1e-6, "{}", body[1]);
    // The third point lands exactly on the second once that one has moved: it keeps the
    // previous pair's direction (+X) instead of stalling.
    let mut body = [Vec3::ZERO, Vec3::X, Vec3::new(GAP, 0.0, 0.0)];
    follow_the_leader(&mut body, GAP, Vec3::Z).unwrap();
    assert!(body[1].distance(Vec3::new(GAP, 0.0, 0.0)) < 1e-6);
    assert!(body[2].distance(Vec3::new(2.0 * GAP, 0.0, 0.0)) < 1e-6, "{}", body[2]);
}

#[test]
fn bad_input_is_refused_and_leaves_the_points_alone() {
    let original = [Vec3::ZERO, Vec3::X, Vec3::new(f32::NAN, 0.0, 0.0)];
    let mut body = original;
    assert_eq!(follow_the_leader(&mut body, GAP, Vec3::X), Err(IkError::NonFiniteInput));
    let mut body = [Vec3::ZERO, Vec3::X];
    assert_eq!(follow_the_leader(&mut body, 0.0, Vec3::X), Err(IkError::ZeroLengthBone { bone: 0 }));
    assert_eq!(follow_the_leader(&mut body, f32::INFINITY, Vec3::X), Err(IkError::NonFiniteInput));
    assert_eq!(body, [Vec3::ZERO, Vec3::X]);
    // Empty and single-point bodies are fine and unchanged.
    assert_eq!(follow_the_leader(&mut [], GAP, Vec3::X), Ok(()));
    let mut one = [Vec3::Y];
    follow_the_leader(&mut one, GAP, Vec3::X).unwrap();
    assert_eq!(one, [Vec3::Y]);
    assert_eq!(chase(Vec3::ZERO, Vec3::X, Vec3::splat(f32::NAN), 1.0, 1.0, 1.0, 0.1), Err(IkError::NonFiniteInput));
}

#[test]
fn a_chasing_head_turns_at_its_rate_and_arrives_without_overshoot() {
    // Target 5 m behind the head: in 0.1 s the heading turns exactly 0.3 rad (3 rad/s).
    let (_, heading) = chase(Vec3::ZERO, Vec3::X, Vec3::new(-5.0, 0.0, 0.001), 2.0, 3.0, 0.5, 0.1).unwrap();
    assert!((heading.angle_between(Vec3::X) - 0.3).abs() < 1e-4, "{heading}");
    assert!((heading.length() - 1.0).abs() < 1e-5 && heading.y == 0.0);
    // Chasing a fixed target at 60 Hz for 10 s ends within 5 cm of it, never stepping past it.
    let target = Vec3::new(4.0, 0.0, 3.0);
    let (mut head, mut heading) = (Vec3::ZERO, Vec3::Z);
    for _ in 0..600 {
        let before = head.distance(target);
        (head, heading) = chase(head, heading, target, 2.0, 3.0, 0.5, 1.0 / 60.0).unwrap();
        assert!(head.distance(target) <= before + 2.0 / 60.0 + 1e-5);
    }
    assert!(head.distance(target) < 0.05, "ended {} m away", head.distance(target));
}

#[test]
fn the_bob_wave_lifts_only_upward_and_runs_down_the_body() {
    assert_eq!(bob(0.0, 0, 8.0, 0.7, 0.12), 0.0);
    let peak = bob(std::f32::consts::FRAC_PI_2 / 8.0, 0, 8.0, 0.7, 0.12);
    assert!((peak - 0.12).abs() < 1e-6);
    // The same height reaches segment 1 a phase step (0.7 / 8 s) later.
    let later = bob(std::f32::consts::FRAC_PI_2 / 8.0 + 0.7 / 8.0, 1, 8.0, 0.7, 0.12);
    assert!((later - 0.12).abs() < 1e-5);
    for i in 0..100 {
        assert!(bob(i as f32 * 0.037, i % 12, 8.0, 0.7, 0.12) >= 0.0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_gap_is_exact_and_the_head_stays(
        raw in proptest::collection::vec((-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0), 1..20),
        gap in 0.05f32..2.0,
    ) {
        let mut body: Vec<Vec3> = raw.iter().map(|&(x, y, z)| Vec3::new(x, y, z)).collect();
        let head = body[0];
        follow_the_leader(&mut body, gap, -Vec3::X).unwrap();
        prop_assert_eq!(body[0], head);
        for g in gaps(&body) {
            prop_assert!((g - gap).abs() < 1e-4 * gap.max(1.0), "gap {} vs {}", g, gap);
        }
    }

    #[test]
    fn chase_respects_speed_and_turn_limits(
        (hx, hz, tx, tz) in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
        yaw in 0.0f32..std::f32::consts::TAU,
        dt in 0.001f32..0.1,
    ) {
        let head = Vec3::new(hx, 0.3, hz);
        let heading = Vec3::new(yaw.cos(), 0.0, yaw.sin());
        let (next, dir) = chase(head, heading, Vec3::new(tx, 1.0, tz), 2.0, 3.0, 0.5, dt).unwrap();
        prop_assert!(next.distance(head) <= 2.0 * dt + 1e-5);
        prop_assert!(dir.angle_between(heading) <= 3.0 * dt + 1e-3);
        prop_assert!((dir.length() - 1.0).abs() < 1e-4 && dir.y == 0.0);
    }
}
