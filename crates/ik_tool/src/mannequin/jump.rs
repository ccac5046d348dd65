//! `WalkJump`: a jump in place (not a walk), for conventions whose clip names mislead.
//!
//! Method, per keyframe at phase `φ = i / N` (1.2 s, 60 Hz): the pelvis height follows a
//! stand → crouch → push → flight (a parabola) → landing absorb → stand profile; the feet stay
//! flat at their rest spots while planted and rise with the pelvis (plus a knee tuck) in the
//! flight; [`ik_core::TwoBoneJob`] bends hip and knee onto each ankle with the knee toward a
//! pole in front; the spine leans into the crouch and the arms swing back in the crouch and
//! forward and up in the flight.
//!
//! Outputs: a [`Clip`] over the mannequin's skeleton (rotations relative to its rest, pelvis
//! translations), nominal speed 0, both feet planted except during the flight.
//!
//! Invariants: in place (the root never moves, the planted balls do not slide), the last key
//! repeats the first, all values finite.

use std::f32::consts::PI;

use glam::{Quat, Vec3};
use ik_core::{IkError, TwoBoneJob, Xform};

use super::clips::{Clip, REACH_FRACTION, SAMPLE_RATE};
use super::skeleton::Rig;

/// Cycle length, s.
pub const DURATION: f32 = 1.2;
/// Peak height of the flight above the take-off pelvis height, m.
pub const JUMP_HEIGHT: f32 = 0.25;
/// Phases at which the feet leave and touch the floor.
pub const FLIGHT: (f32, f32) = (0.45, 0.75);

fn smooth(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// Pelvis height offset from rest at phase `p`, and the flight parameter (in `[0, 1]` during
/// the flight, `None` on the ground).
fn profile(p: f32) -> (f32, Option<f32>) {
    let (stand, low, push) = (-0.03, -0.17, -0.01);
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * smooth(t);
    if p < 0.15 {
        (stand, None)
    } else if p < 0.35 {
        (lerp(stand, low, (p - 0.15) / 0.2), None)
    } else if p < FLIGHT.0 {
        (lerp(low, push, (p - 0.35) / 0.1), None)
    } else if p < FLIGHT.1 {
        let t = (p - FLIGHT.0) / (FLIGHT.1 - FLIGHT.0);
        (push + JUMP_HEIGHT * 4.0 * t * (1.0 - t), Some(t))
    } else if p < 0.85 {
        (lerp(push, -0.15, (p - FLIGHT.1) / 0.1), None)
    } else {
        (lerp(-0.15, stand, (p - 0.85) / 0.15), None)
    }
}

/// Samples the jump.
pub fn build_jump(rig: &Rig, name: &str) -> Result<Clip, IkError> {
    let n = (DURATION * SAMPLE_RATE).round() as usize;
    let count = rig.skeleton.len();
    let b = |name: &str| rig.bone(name);
    let pelvis = b("pelvis");
    let spine = [b("spine_01"), b("spine_02"), b("spine_03")];
    let arms = [b("upperarm_l"), b("upperarm_r")];
    let legs = [["thigh_l", "calf_l", "foot_l"], ["thigh_r", "calf_r", "foot_r"]].map(|l| l.map(b));
    let mut clip = Clip {
        name: name.to_string(),
        nominal_speed: 0.0,
        duration: n as f32 / SAMPLE_RATE,
        times: (0..=n).map(|i| i as f32 / SAMPLE_RATE).collect(),
        pelvis_translation: Vec::with_capacity(n + 1),
        rotations: vec![Vec::with_capacity(n + 1); count],
        contacts: [Vec::with_capacity(n + 1), Vec::with_capacity(n + 1)],
        max_planted_error: 0.0,
    };
    let mut model = vec![Xform::IDENTITY; count];
    for i in 0..=n {
        let phase = (i % n) as f32 / n as f32;
        let (drop, flight) = profile(phase);
        let crouch = (-drop / 0.17).clamp(0.0, 1.0);
        let mut locals = rig.skeleton.rest().to_vec();
        locals[pelvis].translation += Vec3::Y * drop;
        for &s in &spine {
            locals[s].rotation = Quat::from_rotation_x(0.3 * crouch / 3.0);
        }
        let swing = flight.map_or(0.6 * crouch, |t| -1.2 * (PI * t).sin());
        for (side, &arm) in arms.iter().enumerate() {
            let sign = [1.0, -1.0][side];
            locals[arm].rotation = Quat::from_rotation_x(swing) * Quat::from_rotation_z(-sign * 0.38);
        }
        ik_core::skeleton::forward_kinematics(rig.skeleton.parents(), &locals, &Xform::IDENTITY, &mut model)?;
        let lift = flight.map_or(0.0, |t| drop + 0.01 + 0.08 * (PI * t).sin());
        for [thigh, calf, foot] in legs {
            let hip = model[thigh].translation;
            let reach = REACH_FRACTION
                * (rig.joint(calf).distance(rig.joint(thigh)) + rig.joint(foot).distance(rig.joint(calf)));
            let goal = rig.joint(foot) + Vec3::Y * lift;
            let target = hip + (goal - hip).clamp_length_max(reach);
            let pole = (hip + target) * 0.5 + Vec3::Z * 0.5;
            let job = TwoBoneJob::from_model(&model, [thigh, calf, foot], target, Some(pole))
                .ok_or(IkError::BrokenHierarchy { bone: thigh })?;
            let (mut t, mut c) = (locals[thigh], locals[calf]);
            job.run()?.apply(&mut t, &mut c);
            (locals[thigh], locals[calf]) = (t, c);
            ik_core::skeleton::forward_kinematics(rig.skeleton.parents(), &locals, &Xform::IDENTITY, &mut model)?;
            locals[foot].rotation = model[calf].rotation.inverse().normalize();
        }
        clip.pelvis_translation.push(locals[pelvis].translation);
        for (bone, keys) in clip.rotations.iter_mut().enumerate() {
            let mut q = locals[bone].rotation.normalize();
            if keys.last().is_some_and(|prev: &Quat| prev.dot(q) < 0.0) {
                q = -q;
            }
            keys.push(q);
        }
        for labels in &mut clip.contacts {
            labels.push(flight.is_none());
        }
    }
    Ok(clip)
}
