//! Shared test fixture: a small biped (1.8 m human proportions) and synthetic clips built from
//! the procedural gait with two-bone IK; grounds, foot rigs and a placement job for the
//! foot-placement tests (`placement.rs`).
#![allow(dead_code)]

use glam::{Quat, Vec3};
use ik_core::gait::{GaitParams, sample_gait_at_time};
use ik_core::leg::{LegChain, LegMinHeights};
use ik_core::{Skeleton, TwoBoneJob, Xform};

mod placement;
pub use placement::*;

pub const ROOT: usize = 0;
pub const PELVIS: usize = 1;
pub const SPINE: usize = 2;
pub const LEFT: LegChain = LegChain { hip: 3, knee: 4, ankle: 5, toe: Some(6), toe_end: Some(7) };
pub const RIGHT: LegChain = LegChain { hip: 8, knee: 9, ankle: 10, toe: Some(11), toe_end: Some(12) };
pub const THIGH: f32 = 0.44;
pub const SHIN: f32 = 0.40;
pub const ANKLE_HEIGHT: f32 = 0.08;
pub const TOE_HEIGHT: f32 = 0.02;
/// Ball of the foot relative to the ankle in the flat rest pose.
pub const BALL_FROM_ANKLE: Vec3 = Vec3::new(0.0, -0.06, 0.14);
pub const PELVIS_HEIGHT: f32 = 0.98;

/// The biped: root (carries root motion), pelvis, spine, and two legs of hip, knee, ankle,
/// toe (ball) and toe end. Rest pose: standing straight, feet flat, all rotations identity.
pub fn biped() -> Skeleton {
    let t = Xform::from_translation;
    let mut parents = vec![None, Some(ROOT), Some(PELVIS)];
    let mut names: Vec<String> = vec!["root".into(), "pelvis".into(), "spine".into()];
    let mut rest = vec![Xform::IDENTITY, t(Vec3::Y * PELVIS_HEIGHT), t(Vec3::Y * 0.25)];
    for (side, x) in [("l", 0.1f32), ("r", -0.1)] {
        let hip = parents.len();
        parents.extend([Some(PELVIS), Some(hip), Some(hip + 1), Some(hip + 2), Some(hip + 3)]);
        for bone in ["hip", "knee", "ankle", "toe", "toe_end"] {
            names.push(format!("{side}_{bone}"));
        }
        rest.extend([
            t(Vec3::new(x, -(PELVIS_HEIGHT - THIGH - SHIN - ANKLE_HEIGHT), 0.0)),
            t(Vec3::NEG_Y * THIGH),
            t(Vec3::NEG_Y * SHIN),
            t(BALL_FROM_ANKLE),
            t(Vec3::Z * 0.06),
        ]);
    }
    Skeleton::new(parents, names, rest).unwrap()
}

/// The biped's two foot rigs (feet flat at rest).
pub fn biped_feet(skel: &Skeleton) -> [ik_core::foot_placement::FootRig; 2] {
    foot_rigs(&skel.rest_model(), [LEFT, RIGHT])
}

pub fn model_of(skel: &Skeleton, locals: &[Xform]) -> Vec<Xform> {
    let mut model = vec![Xform::IDENTITY; skel.len()];
    skel.model_from_local(locals, &mut model).unwrap();
    model
}

pub fn min_heights(skel: &Skeleton, chain: &LegChain) -> LegMinHeights {
    LegMinHeights::from_pose(&skel.rest_model(), chain)
}

/// Leg length from hip to ankle.
pub fn leg_reach() -> f32 {
    THIGH + SHIN
}

/// Two-bone solve of one leg so the ankle reaches `ankle` (knee forward), then sets the foot's
/// model rotation.
pub fn pose_leg(skel: &Skeleton, locals: &mut [Xform], chain: &LegChain, ankle: Vec3, foot_rotation: Quat) {
    let model = model_of(skel, locals);
    let hip = model[chain.hip].translation;
    let job = TwoBoneJob::from_model(&model, [chain.hip, chain.knee, chain.ankle], ankle, Some(hip + Vec3::Z)).unwrap();
    let solution = job.run().unwrap();
    let (a, b) = locals.split_at_mut(chain.knee);
    solution.apply(&mut a[chain.hip], &mut b[0]);
    let model = model_of(skel, locals);
    locals[chain.ankle].rotation = (model[chain.knee].rotation.inverse() * foot_rotation).normalize();
}

/// A standing pose: pelvis `crouch` metres below rest, feet flat where they stand at rest.
pub fn standing(skel: &Skeleton, crouch: f32) -> Vec<Xform> {
    let mut locals = skel.rest().to_vec();
    let rest = skel.rest_model();
    locals[PELVIS].translation.y -= crouch;
    for chain in [LEFT, RIGHT] {
        pose_leg(skel, &mut locals, &chain, rest[chain.ankle].translation, Quat::IDENTITY);
    }
    locals
}

/// Lifts one foot of a pose so its ankle is `lift` higher and `forward` ahead (a swing).
pub fn lift_foot(skel: &Skeleton, locals: &mut [Xform], chain: &LegChain, lift: f32, forward: f32) {
    let model = model_of(skel, locals);
    let ankle = model[chain.ankle].translation + Vec3::new(0.0, lift, forward);
    pose_leg(skel, locals, chain, ankle, Quat::IDENTITY);
}

/// A clip of the gait on the biped: `frames` frames at `fps`, the root travelling at
/// `root_speed_scale × speed` along +Z (1 = no slide). Returns frame-major locals and the
/// contact labels `[left, right]`.
pub fn gait_clip(
    skel: &Skeleton,
    params: &GaitParams,
    frames: usize,
    fps: f32,
    root_speed_scale: f32,
) -> (Vec<Xform>, [Vec<bool>; 2]) {
    let mut clip = Vec::with_capacity(frames * skel.len());
    let mut contacts = [Vec::with_capacity(frames), Vec::with_capacity(frames)];
    // Keep the flat ankle target inside this fraction of the leg's reach by lifting the heel.
    let limit = 0.97 * leg_reach();
    for frame in 0..frames {
        let time = frame as f32 / fps;
        let sample = sample_gait_at_time(params, time);
        let root = Vec3::Z * (params.speed * root_speed_scale * time);
        let mut locals = skel.rest().to_vec();
        locals[ROOT].translation = root;
        locals[PELVIS].translation = sample.pelvis;
        let model = model_of(skel, &locals);
        for (k, chain) in [LEFT, RIGHT].iter().enumerate() {
            let foot = sample.feet[k];
            contacts[k].push(foot.contact);
            // Ball on its gait point, the joint TOE_HEIGHT above the ground point.
            let ball = root + foot.position + Vec3::Y * TOE_HEIGHT;
            let pitch = foot.forward.y.atan2(foot.forward.z);
            let hip = model[chain.hip].translation;
            let ankle_for = |lift: f32| ball - Quat::from_rotation_x(lift) * BALL_FROM_ANKLE;
            // Planted or behind the hip, lift the heel (turn the foot about the ball, toe down)
            // until the ankle is within reach; a swinging foot ahead of the hip simply
            // stretches the leg.
            let mut lift = -pitch;
            if (ankle_for(lift) - hip).length() > limit && (foot.contact || ball.z < hip.z) {
                let (mut lo, mut hi) = (lift, lift + 1.2);
                for _ in 0..40 {
                    let mid = 0.5 * (lo + hi);
                    if (ankle_for(mid) - hip).length() > limit { lo = mid } else { hi = mid }
                }
                lift = hi;
            }
            pose_leg(skel, &mut locals, chain, ankle_for(lift), Quat::from_rotation_x(lift));
        }
        clip.extend_from_slice(&locals);
    }
    (clip, contacts)
}

/// Model-space position of `bone` on every frame of a frame-major clip.
pub fn track(skel: &Skeleton, clip: &[Xform], bone: usize) -> Vec<Vec3> {
    clip.chunks_exact(skel.len()).map(|frame| model_of(skel, frame)[bone].translation).collect()
}
