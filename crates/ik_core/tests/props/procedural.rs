//! Properties of springs, look-at, contact labels and foot locking: no NaN or infinity out of
//! any finite input, degenerate ones included (target behind the head or on it, dt = 0, zero
//! blend time, zero half-life); joint limits never exceeded; weight ≤ 0 or a target on the eye
//! turns nothing; no overshoot from rest.

use ik_core::contact::{ContactSettings, label_contacts, majority_vote, smooth_contacts};
use ik_core::foot_lock::{FootLockSettings, FootLockState};
use ik_core::glam::{Quat, Vec3};
use ik_core::look_at::{LookAtJob, LookAtJoint, local_forward_axis};
use ik_core::spring::{QuatSpring, Spring, quat_log_shortest, turn_towards};
use ik_core::{IkError, Xform};
use proptest::prelude::*;

use super::Verdict;

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

/// Spring states, goals, half-lives and time steps (any finite values).
#[derive(Clone, Debug)]
pub struct SpringInput {
    pub value: Vec3,
    pub velocity: Vec3,
    pub goal: Vec3,
    pub half_life: f32,
    pub dt: f32,
    pub q: Quat,
    pub qgoal: Quat,
    pub w: Vec3,
}

pub fn spring_input() -> impl Strategy<Value = SpringInput> {
    (vec3(), vec3(), vec3(), finite(), finite(), quat(), quat(), vec3()).prop_map(
        |(value, velocity, goal, half_life, dt, q, qgoal, w)| SpringInput {
            value,
            velocity,
            goal,
            half_life,
            dt,
            q,
            qgoal,
            w,
        },
    )
}

/// Vector, scalar and quaternion springs stay finite.
pub fn springs(input: SpringInput) -> Verdict {
    let SpringInput { value, velocity, goal, half_life, dt, q, qgoal, w } = input;
    let mut s = Spring { value, velocity };
    s.update(goal, half_life, dt);
    s.update(goal, 0.0, dt);
    s.update(goal, half_life, 0.0);
    check_finite!(s.value.is_finite() && s.velocity.is_finite());
    let mut f = Spring { value: value.x, velocity: velocity.y };
    f.update(goal.z, half_life, dt);
    check_finite!(f.value.is_finite() && f.velocity.is_finite());
    let mut r = QuatSpring { value: q, velocity: w };
    r.update(qgoal, half_life, dt);
    r.update(qgoal, 0.0, dt);
    check_finite!(r.value.is_finite() && r.velocity.is_finite());
    Ok(())
}

/// A spring at rest chasing a goal over a run of time steps.
#[derive(Clone, Debug)]
pub struct OvershootInput {
    pub start: Vec3,
    pub goal: Vec3,
    pub half_life: f32,
    pub dts: Vec<f32>,
}

pub fn overshoot_input() -> impl Strategy<Value = OvershootInput> {
    (small_vec3(), small_vec3(), 0.01f32..1.0, prop::collection::vec(0.0f32..0.1, 1..60))
        .prop_map(|(start, goal, half_life, dts)| OvershootInput { start, goal, half_life, dts })
}

/// A spring from rest never overshoots its goal.
pub fn spring_overshoot(input: OvershootInput) -> Verdict {
    let OvershootInput { start, goal, half_life, dts } = input;
    let mut s = Spring::new(start);
    let dir = (goal - start).normalize_or_zero();
    for dt in dts {
        s.update(goal, half_life, dt);
        check_finite!(s.value.is_finite());
        check!((goal - s.value).dot(dir) >= -1e-6);
    }
    Ok(())
}

/// Two directions and a turn limit.
#[derive(Clone, Debug)]
pub struct TurnInput {
    pub from: Vec3,
    pub to: Vec3,
    pub max: f32,
}

pub fn turn_input() -> impl Strategy<Value = TurnInput> {
    (vec3(), vec3(), finite()).prop_map(|(from, to, max)| TurnInput { from, to, max })
}

/// `turn_towards` is a finite unit turn within its limit.
pub fn turn(input: TurnInput) -> Verdict {
    let TurnInput { from, to, max } = input;
    let q = turn_towards(from, to, max);
    check_finite!(q.is_finite());
    check!((q.length() - 1.0).abs() < 1e-4);
    check!(quat_log_shortest(q).length() <= max.max(0.0) + 1e-4);
    Ok(())
}

/// A look-at spread over 1–5 joints, with degenerate targets (on the eyes, straight behind,
/// every pivot on the same point) or random ones.
#[derive(Clone, Debug)]
pub struct LookAtInput {
    pub positions: Vec<Vec3>,
    pub rotations: Vec<Quat>,
    pub params: Vec<(f32, f32)>,
    pub forward: Vec3,
    pub eye_offset: Vec3,
    pub target: Vec3,
    pub weight: f32,
    pub iterations: u32,
    pub degenerate: u8,
}

pub fn look_at_input() -> impl Strategy<Value = LookAtInput> {
    (
        prop::collection::vec(small_vec3(), 1..6),
        prop::collection::vec(unit_quat(), 6),
        prop::collection::vec((0.0f32..1.0, 0.0f32..1.5), 6),
        small_vec3(),
        small_vec3(),
        prop_oneof![small_vec3().boxed(), vec3().boxed()],
        -0.5f32..1.5,
        0u32..8,
        0u8..4,
    )
        .prop_map(|(positions, rotations, params, forward, eye_offset, target, weight, iterations, degenerate)| {
            LookAtInput { positions, rotations, params, forward, eye_offset, target, weight, iterations, degenerate }
        })
}

/// Look-at never outputs NaN, never turns a joint past its limit, and turns nothing at weight
/// ≤ 0 or with the target on the eyes.
pub fn look_at(input: LookAtInput) -> Verdict {
    let LookAtInput { positions, rotations, params, forward, eye_offset, target, weight, iterations, degenerate } =
        input;
    let n = positions.len();
    let mut model: Vec<Xform> =
        positions.iter().zip(&rotations).map(|(&p, &r)| Xform::from_translation_rotation(p, r)).collect();
    let joints: Vec<LookAtJoint> = params[..n]
        .iter()
        .map(|&(share, limit)| LookAtJoint { share, limit, down_share: share, down_limit: limit })
        .collect();
    let head = model[n - 1];
    let eye = head.transform_point(eye_offset);
    let forward_model = head.rotation * forward;
    let target = match degenerate {
        0 => eye,                       // on the eyes
        1 => eye - forward_model * 3.0, // straight behind
        2 => {
            model.iter_mut().for_each(|m| m.translation = head.translation);
            target
        } // all pivots coincide
        _ => target,
    };
    let job =
        LookAtJob { joints: &joints, model: &model, forward, eye_offset, target, up: Vec3::Y, weight, iterations };
    let mut corrections = vec![Quat::from_rotation_z(0.3); n];
    let result = job.run(&mut corrections);
    check_finite!(corrections.iter().all(|c| c.is_finite()));
    check!(corrections.iter().all(|c| (c.length() - 1.0).abs() < 1e-4));
    match result {
        Ok(solution) => {
            check_finite!(solution.turned.is_finite() && solution.residual.is_finite() && solution.axis.is_finite());
            let total_limit: f32 = joints.iter().map(|j| j.limit).sum();
            check!(solution.turned <= total_limit + 1e-4);
            for (c, j) in corrections.iter().zip(&joints) {
                check!(quat_log_shortest(*c).length() <= j.limit + 1e-4);
            }
            if weight <= 0.0 || degenerate == 0 {
                check!(corrections.iter().all(|&c| c == Quat::IDENTITY), "{:?}", corrections);
            }
        }
        Err(e) => {
            check_eq!(e, IkError::ZeroLengthBone { bone: n - 1 });
            check!(corrections.iter().all(|&c| c == Quat::IDENTITY));
        }
    }
    let axis = local_forward_axis(rotations[0], forward);
    check_finite!(axis.is_finite());
    check!((axis.length() - 1.0).abs() < 1e-4);
    Ok(())
}

/// Look-at on joints, axes, offsets, targets and weights of any finite size.
#[derive(Clone, Debug)]
pub struct ExtremeLookAtInput {
    pub positions: Vec<Vec3>,
    pub rotations: Vec<Quat>,
    pub forward: Vec3,
    pub eye_offset: Vec3,
    pub target: Vec3,
    pub weight: f32,
}

pub fn extreme_look_at_input() -> impl Strategy<Value = ExtremeLookAtInput> {
    (prop::collection::vec(vec3(), 1..5), prop::collection::vec(quat(), 5), vec3(), vec3(), vec3(), finite()).prop_map(
        |(positions, rotations, forward, eye_offset, target, weight)| ExtremeLookAtInput {
            positions,
            rotations,
            forward,
            eye_offset,
            target,
            weight,
        },
    )
}

/// Look-at with extreme finite input never outputs NaN and stays within its limits.
pub fn extreme_look_at(input: ExtremeLookAtInput) -> Verdict {
    let ExtremeLookAtInput { positions, rotations, forward, eye_offset, target, weight } = input;
    let n = positions.len();
    let model: Vec<Xform> =
        positions.iter().zip(&rotations).map(|(&p, &r)| Xform::from_translation_rotation(p, r)).collect();
    let joints = vec![LookAtJoint::from_degrees(0.25, 40.0); n];
    let job = LookAtJob { eye_offset, weight, ..LookAtJob::new(&joints, &model, forward, target) };
    let mut corrections = vec![Quat::IDENTITY; n];
    if let Ok(s) = job.run(&mut corrections) {
        check_finite!(s.turned.is_finite() && s.residual.is_finite());
        check!(s.turned <= 40f32.to_radians() * n as f32 + 1e-4);
    }
    check_finite!(corrections.iter().all(|c| c.is_finite()));
    Ok(())
}

/// A toe track (positions, contacts, dt), labelling and smoothing settings.
#[derive(Clone, Debug)]
pub struct ContactInput {
    pub positions: Vec<Vec3>,
    pub frame_rate: f32,
    pub floor: f32,
    pub sigma: f32,
    pub velocity_threshold: f32,
    pub height_threshold: f32,
    pub vote_window: usize,
}

pub fn contact_input() -> impl Strategy<Value = ContactInput> {
    (prop::collection::vec(vec3(), 0..80), finite(), finite(), finite(), finite(), finite(), 0usize..200).prop_map(
        |(positions, frame_rate, floor, sigma, velocity_threshold, height_threshold, vote_window)| ContactInput {
            positions,
            frame_rate,
            floor,
            sigma,
            velocity_threshold,
            height_threshold,
            vote_window,
        },
    )
}

/// Contact labelling refuses only non-finite input; the smoothed signal stays in [0, 1].
pub fn contacts(input: ContactInput) -> Verdict {
    let ContactInput { positions, frame_rate, floor, sigma, velocity_threshold, height_threshold, vote_window } = input;
    let settings = ContactSettings {
        enter_height: height_threshold,
        leave_height: height_threshold,
        least_height: height_threshold,
        enter_speed: velocity_threshold,
        leave_speed: velocity_threshold,
        min_span: vote_window / 4,
        min_gap: vote_window / 4,
        vote_window,
    };
    let mut labels = vec![false; positions.len()];
    let looping = floor > 0.0;
    let result = label_contacts(&positions, frame_rate, looping, &settings, &mut labels);
    check!(result.is_ok() || result == Err(IkError::NonFiniteInput), "{:?}", result);
    check_finite!(result.is_err() || result.is_ok_and(|l| l.floor.is_finite() && l.settings.enter_height.is_finite()));
    majority_vote(&mut labels, vote_window);
    let mut signal = vec![-1.0; positions.len()];
    if smooth_contacts(&labels, frame_rate, sigma, &mut signal).is_ok() {
        check_finite!(signal.iter().all(|s| s.is_finite()));
        check!(signal.iter().all(|s| (0.0..=1.0).contains(s)));
    }
    Ok(())
}

/// A run of foot-lock frames (toe, contact, dt) with any finite settings.
#[derive(Clone, Debug)]
pub struct FootLockInput {
    pub frames: Vec<(Vec3, bool, f32)>,
    pub start: Vec3,
    pub planted: f32,
    pub lock_distance: f32,
    pub unlock_distance: f32,
    pub blend_time: f32,
}

pub fn foot_lock_input() -> impl Strategy<Value = FootLockInput> {
    (
        prop::collection::vec((vec3(), any::<bool>(), finite()), 1..60),
        vec3(),
        finite(),
        finite(),
        finite(),
        prop_oneof![Just(0.0f32), finite()],
    )
        .prop_map(|(frames, start, planted, lock_distance, unlock_distance, blend_time)| FootLockInput {
            frames,
            start,
            planted,
            lock_distance,
            unlock_distance,
            blend_time,
        })
}

/// Foot locking accepts any finite input and never outputs NaN, also with dt = 0.
pub fn foot_lock(input: FootLockInput) -> Verdict {
    let FootLockInput { frames, start, planted, lock_distance, unlock_distance, blend_time } = input;
    let settings = FootLockSettings { lock_distance, unlock_distance, blend_time, lock_blend_time: blend_time };
    let mut state = FootLockState::new(start);
    for (toe, contact, dt) in frames {
        let out = state.update(toe, contact, planted, dt, &settings);
        check!(out.is_ok(), "{:?}", out);
        check_finite!(out.unwrap().is_finite() && state.is_finite());
        let again = state.update(toe, contact, planted, 0.0, &settings);
        check!(again.is_ok(), "{:?}", again);
        check_finite!(again.unwrap().is_finite() && state.is_finite());
    }
    Ok(())
}
