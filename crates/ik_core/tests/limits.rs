//! Joint-limit bars: rotations inside a limit pass unchanged, rotations outside are clamped to
//! the limit's edge (measured independently of the library's own decomposition), the violation
//! is the angle past the edge, and limits are relative to their reference rotation.

use std::f32::consts::{FRAC_PI_2, PI};

use ik_core::glam::{EulerRot, Quat, Vec3};
use ik_core::limits::{JointLimit, signed_angle_about, swing_twist};

/// Deterministic pseudo-random numbers in [0, 1).
fn lcg(state: &mut u64) -> f32 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 40) as f32) / ((1u64 << 24) as f32)
}

fn random_rotation(rng: &mut u64) -> Quat {
    Quat::from_euler(EulerRot::YXZ, (lcg(rng) - 0.5) * 2.0 * PI, (lcg(rng) - 0.5) * PI, (lcg(rng) - 0.5) * 2.0 * PI)
}

/// The angle between two rotations, accurate for small angles (unlike an `acos` of the dot).
fn rot_angle(a: Quat, b: Quat) -> f32 {
    let d = a.inverse() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

/// The angle between two vectors, accurate near 0 and π.
fn vec_angle(a: Vec3, b: Vec3) -> f32 {
    a.cross(b).length().atan2(a.dot(b))
}

/// Angle of the bone axis away from its reference direction, from plain vectors.
fn swing_of(reference: Quat, local: Quat, axis: Vec3) -> f32 {
    vec_angle(reference * axis, local * axis)
}

#[test]
fn hinge_inside_its_range_is_returned_bit_for_bit_and_measures_zero() {
    let reference = Quat::from_euler(EulerRot::XYZ, 0.3, -0.7, 1.1);
    let knee = JointLimit::hinge(reference, Vec3::X, -0.1, 2.4);
    for angle in [-0.1f32, 0.0, 0.5, 1.2, 2.39] {
        let local = reference * Quat::from_rotation_x(angle);
        assert_eq!(knee.clamp(local), local, "angle {angle}");
        assert!(knee.violation(local) < 1e-5, "angle {angle}: {}", knee.violation(local));
    }
}

#[test]
fn hinge_past_its_range_stops_at_the_nearer_end_and_violation_is_the_excess() {
    let reference = Quat::from_rotation_y(0.4);
    let knee = JointLimit::hinge(reference, Vec3::X, 0.0, 2.4);
    // 0.3 rad past the top end, and 0.2 rad below the bottom end.
    for (angle, end, excess) in [(2.7f32, 2.4f32, 0.3f32), (-0.2, 0.0, 0.2)] {
        let local = reference * Quat::from_rotation_x(angle);
        assert!((knee.violation(local) - excess).abs() < 1e-5, "violation {} for {angle}", knee.violation(local));
        let clamped = knee.clamp(local);
        let expected = reference * Quat::from_rotation_x(end);
        assert!(rot_angle(clamped, expected) < 1e-5, "clamped {clamped} for {angle}");
        assert!(knee.violation(clamped) < 1e-5);
    }
    // Going round the circle: -3.0 rad is 0.88 rad from 2.4 but 3.0 rad from 0.
    let local = reference * Quat::from_rotation_x(-3.0);
    assert!((knee.violation(local) - (2.0 * PI - 3.0 - 2.4)).abs() < 1e-5);
    assert!(rot_angle(knee.clamp(local), reference * Quat::from_rotation_x(2.4)) < 1e-5);
}

#[test]
fn hinge_removes_any_turn_off_its_axis() {
    let knee = JointLimit::hinge(Quat::IDENTITY, Vec3::X, -1.0, 1.0);
    // 0.5 rad about the hinge plus a 0.25 rad swing about Y (applied after).
    let local = Quat::from_rotation_y(0.25) * Quat::from_rotation_x(0.5);
    assert!((knee.violation(local) - 0.25).abs() < 1e-5, "violation {}", knee.violation(local));
    let clamped = knee.clamp(local);
    // Only a rotation about X remains: X is fixed by it.
    assert!((clamped * Vec3::X - Vec3::X).length() < 1e-5);
    assert!((signed_angle_about(clamped, Vec3::X) - 0.5).abs() < 1e-5);
}

#[test]
fn cone_clamps_the_bone_axis_onto_the_cone_edge_in_the_same_direction() {
    let reference = Quat::from_euler(EulerRot::ZYX, 0.2, 0.9, -0.4);
    let shoulder = JointLimit::cone(reference, Vec3::Y, 0.6, -0.5, 0.5);
    let mut rng = 11u64;
    let mut clamped_count = 0;
    for _ in 0..500 {
        let local = random_rotation(&mut rng);
        let swing = swing_of(reference, local, Vec3::Y);
        let clamped = shoulder.clamp(local);
        let clamped_swing = swing_of(reference, clamped, Vec3::Y);
        assert!(clamped_swing <= 0.6 + 1e-5, "swing {clamped_swing} past 0.6");
        assert!(shoulder.violation(clamped) < 1e-5);
        if swing > 0.6 + 1e-3 {
            clamped_count += 1;
            assert!((clamped_swing - 0.6).abs() < 1e-4, "{swing} clamped to {clamped_swing}");
            // Same swing direction: the bone axis moved within the plane it swung in.
            let rest_axis = reference * Vec3::Y;
            let plane = rest_axis.cross(local * Vec3::Y).normalize();
            assert!((clamped * Vec3::Y).dot(plane).abs() < 1e-4);
            assert!((shoulder.violation(local) - (swing - 0.6).max(shoulder.violation(local))).abs() < 1e-6);
        }
    }
    assert!(clamped_count > 300, "only {clamped_count} of 500 random rotations were outside");
}

#[test]
fn cone_twist_range_is_enforced_about_the_bone_axis() {
    let shoulder = JointLimit::cone(Quat::IDENTITY, Vec3::Y, 1.0, -0.5, 0.3);
    // Twist 0.8 about the bone axis, then a 0.4 rad swing: 0.5 rad past the twist range.
    let local = Quat::from_rotation_z(0.4) * Quat::from_rotation_y(0.8);
    assert!((shoulder.violation(local) - 0.5).abs() < 1e-5, "violation {}", shoulder.violation(local));
    let clamped = shoulder.clamp(local);
    let (swing, twist) = swing_twist(clamped, Vec3::Y);
    assert!((signed_angle_about(twist, Vec3::Y) - 0.3).abs() < 1e-5);
    assert!(rot_angle(swing, Quat::from_rotation_z(0.4)) < 1e-5, "swing kept");
}

#[test]
fn a_limit_measures_the_offset_from_its_reference_not_the_raw_rotation() {
    let mut rng = 5u64;
    for _ in 0..200 {
        let offset = random_rotation(&mut rng);
        let (ra, rb) = (random_rotation(&mut rng), random_rotation(&mut rng));
        let a = JointLimit::cone(ra, Vec3::Z, 0.7, -0.2, 0.9);
        let b = JointLimit::cone(rb, Vec3::Z, 0.7, -0.2, 0.9);
        assert!((a.violation(ra * offset) - b.violation(rb * offset)).abs() < 1e-4);
        let (ca, cb) = (ra.inverse() * a.clamp(ra * offset), rb.inverse() * b.clamp(rb * offset));
        assert!(rot_angle(ca, cb) < 1e-4, "clamped offsets differ by {}", rot_angle(ca, cb));
    }
}

#[test]
fn clamping_any_rotation_lands_within_1e5_rad_of_every_limit_kind() {
    let mut rng = 99u64;
    let mut worst = 0.0f32;
    for i in 0..2000 {
        let reference = random_rotation(&mut rng);
        let axis = Vec3::new(lcg(&mut rng) - 0.5, lcg(&mut rng) - 0.5, lcg(&mut rng) - 0.5);
        let (lo, hi) = ((lcg(&mut rng) - 0.7) * PI, (lcg(&mut rng) - 0.3) * PI);
        let limit = if i % 2 == 0 {
            JointLimit::hinge(reference, axis, lo, hi)
        } else {
            JointLimit::cone(reference, axis, lcg(&mut rng) * FRAC_PI_2, lo, hi)
        };
        let clamped = limit.clamp(random_rotation(&mut rng));
        assert!(clamped.is_finite() && (clamped.length() - 1.0).abs() < 1e-5);
        worst = worst.max(limit.violation(clamped));
    }
    assert!(worst < 1e-5, "worst violation after clamping {worst} rad");
}

#[test]
fn non_finite_rotations_clamp_to_the_reference_and_count_as_outside() {
    let reference = Quat::from_rotation_x(0.3);
    let limit = JointLimit::hinge(reference, Vec3::X, -1.0, 1.0);
    let nan = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
    assert_eq!(limit.clamp(nan), reference);
    assert!(limit.violation(nan) > 0.0);
    assert!(!JointLimit::hinge(reference, Vec3::X, f32::NAN, 1.0).is_finite());
}
