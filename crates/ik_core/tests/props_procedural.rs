//! Property tests for springs, look-at, contact labels and foot locking: no NaN or infinity
//! out of any finite input, degenerate ones included (target behind the head or on it, dt = 0,
//! zero blend time, zero half-life); joint limits never exceeded; no overshoot from rest.

use ik_core::contact::{ContactSettings, label_contacts, majority_vote, smooth_contacts};
use ik_core::foot_lock::{FootLockSettings, FootLockState};
use ik_core::glam::{Quat, Vec3};
use ik_core::look_at::{LookAtJob, LookAtJoint, local_forward_axis};
use ik_core::spring::{QuatSpring, Spring, quat_log_shortest, turn_towards};
use ik_core::{IkError, Xform};
use proptest::prelude::*;

/// Any finite f32: mostly everyday magnitudes, sometimes extremes, zeros and subnormals.
fn finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -10.0f32..10.0,
        1 => prop::num::f32::NORMAL | prop::num::f32::ZERO | prop::num::f32::SUBNORMAL,
        1 => Just(0.0f32),
    ]
}

fn vec3() -> impl Strategy<Value = Vec3> {
    (finite(), finite(), finite()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn small_vec3() -> impl Strategy<Value = Vec3> {
    (-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn quat() -> impl Strategy<Value = Quat> {
    (finite(), finite(), finite(), finite()).prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w))
}

fn unit_quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z, w)| {
        let q = Quat::from_xyzw(x, y, z, w);
        if q.length() > 1e-3 { q.normalize() } else { Quat::IDENTITY }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn springs_stay_finite(value in vec3(), velocity in vec3(), goal in vec3(), half_life in finite(), dt in finite(),
                           q in quat(), qgoal in quat(), w in vec3()) {
        let mut s = Spring { value, velocity };
        s.update(goal, half_life, dt);
        s.update(goal, 0.0, dt);
        s.update(goal, half_life, 0.0);
        prop_assert!(s.value.is_finite() && s.velocity.is_finite());
        let mut f = Spring { value: value.x, velocity: velocity.y };
        f.update(goal.z, half_life, dt);
        prop_assert!(f.value.is_finite() && f.velocity.is_finite());
        let mut r = QuatSpring { value: q, velocity: w };
        r.update(qgoal, half_life, dt);
        r.update(qgoal, 0.0, dt);
        prop_assert!(r.value.is_finite() && r.velocity.is_finite());
    }

    #[test]
    fn spring_from_rest_never_overshoots(start in small_vec3(), goal in small_vec3(), half_life in 0.01f32..1.0,
                                        dts in prop::collection::vec(0.0f32..0.1, 1..60)) {
        let mut s = Spring::new(start);
        let dir = (goal - start).normalize_or_zero();
        for dt in dts {
            s.update(goal, half_life, dt);
            prop_assert!((goal - s.value).dot(dir) >= -1e-6);
        }
    }

    #[test]
    fn turn_towards_is_a_finite_unit_turn_within_its_limit(from in vec3(), to in vec3(), max in finite()) {
        let q = turn_towards(from, to, max);
        prop_assert!(q.is_finite() && (q.length() - 1.0).abs() < 1e-4);
        prop_assert!(quat_log_shortest(q).length() <= max.max(0.0) + 1e-4);
    }

    #[test]
    fn look_at_never_nan_and_never_past_a_limit(
        positions in prop::collection::vec(small_vec3(), 1..6),
        rotations in prop::collection::vec(unit_quat(), 6),
        params in prop::collection::vec((0.0f32..1.0, 0.0f32..1.5), 6),
        forward in small_vec3(),
        eye_offset in small_vec3(),
        target in prop_oneof![small_vec3().boxed(), vec3().boxed()],
        weight in -0.5f32..1.5,
        iterations in 0u32..8,
        degenerate in 0u8..4,
    ) {
        let n = positions.len();
        let mut model: Vec<Xform> = positions.iter().zip(&rotations).map(|(&p, &r)| Xform::from_translation_rotation(p, r)).collect();
        let joints: Vec<LookAtJoint> = params[..n].iter().map(|&(share, limit)| LookAtJoint { share, limit }).collect();
        let head = model[n - 1];
        let eye = head.transform_point(eye_offset);
        let forward_model = head.rotation * forward;
        let target = match degenerate {
            0 => eye,                                  // on the eyes
            1 => eye - forward_model * 3.0,            // straight behind
            2 => { model.iter_mut().for_each(|m| m.translation = head.translation); target } // all pivots coincide
            _ => target,
        };
        let job = LookAtJob { joints: &joints, model: &model, forward, eye_offset, target, weight, iterations };
        let mut corrections = vec![Quat::from_rotation_z(0.3); n];
        let result = job.run(&mut corrections);
        prop_assert!(corrections.iter().all(|c| c.is_finite() && (c.length() - 1.0).abs() < 1e-4));
        match result {
            Ok(solution) => {
                prop_assert!(solution.turned.is_finite() && solution.residual.is_finite() && solution.axis.is_finite());
                let total_limit: f32 = joints.iter().map(|j| j.limit).sum();
                prop_assert!(solution.turned <= total_limit + 1e-4);
                for (c, j) in corrections.iter().zip(&joints) {
                    prop_assert!(quat_log_shortest(*c).length() <= j.limit + 1e-4);
                }
            }
            Err(e) => {
                prop_assert_eq!(e, IkError::ZeroLengthBone { bone: n - 1 });
                prop_assert!(corrections.iter().all(|&c| c == Quat::IDENTITY));
            }
        }
        let axis = local_forward_axis(rotations[0], forward);
        prop_assert!(axis.is_finite() && (axis.length() - 1.0).abs() < 1e-4);
    }

    #[test]
    fn look_at_with_extreme_finite_input_never_nan(
        positions in prop::collection::vec(vec3(), 1..5),
        rotations in prop::collection::vec(quat(), 5),
        forward in vec3(), eye_offset in vec3(), target in vec3(), weight in finite(),
    ) {
        let n = positions.len();
        let model: Vec<Xform> = positions.iter().zip(&rotations).map(|(&p, &r)| Xform::from_translation_rotation(p, r)).collect();
        let joints = vec![LookAtJoint::from_degrees(0.25, 40.0); n];
        let job = LookAtJob { eye_offset, weight, ..LookAtJob::new(&joints, &model, forward, target) };
        let mut corrections = vec![Quat::IDENTITY; n];
        if let Ok(s) = job.run(&mut corrections) {
            prop_assert!(s.turned.is_finite() && s.residual.is_finite() && s.turned <= 40f32.to_radians() * n as f32 + 1e-4);
        }
        prop_assert!(corrections.iter().all(|c| c.is_finite()));
    }

    #[test]
    fn contact_labels_and_signal_are_sane(
        positions in prop::collection::vec(vec3(), 0..80),
        frame_rate in finite(), floor in finite(), sigma in finite(),
        velocity_threshold in finite(), height_threshold in finite(), vote_window in 0usize..200,
    ) {
        let settings = ContactSettings { velocity_threshold, height_threshold, vote_window };
        let mut labels = vec![false; positions.len()];
        let result = label_contacts(&positions, frame_rate, floor, &settings, &mut labels);
        prop_assert!(result.is_ok() || result == Err(IkError::NonFiniteInput));
        majority_vote(&mut labels, vote_window);
        let mut signal = vec![-1.0; positions.len()];
        if smooth_contacts(&labels, frame_rate, sigma, &mut signal).is_ok() {
            prop_assert!(signal.iter().all(|s| (0.0..=1.0).contains(s)));
        }
    }

    #[test]
    fn foot_lock_never_nan(
        frames in prop::collection::vec((vec3(), any::<bool>(), finite()), 1..60),
        start in vec3(), planted in finite(),
        lock_distance in finite(), unlock_distance in finite(), blend_time in prop_oneof![Just(0.0f32), finite()],
    ) {
        let settings = FootLockSettings { lock_distance, unlock_distance, blend_time, lock_blend_time: blend_time };
        let mut state = FootLockState::new(start);
        for (toe, contact, dt) in frames {
            let out = state.update(toe, contact, planted, dt, &settings).unwrap();
            prop_assert!(out.is_finite() && state.is_finite());
            let again = state.update(toe, contact, planted, 0.0, &settings).unwrap();
            prop_assert!(again.is_finite() && state.is_finite());
        }
    }
}
