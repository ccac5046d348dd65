//! Shared by the foot-placement tests: ray-cast grounds, foot rigs and a placement job.

use glam::{Quat, Vec3};
use ik_core::Xform;
use ik_core::foot_placement::{FootPlacement, FootPlacementSettings, FootRig, GroundHit};
use ik_core::leg::LegChain;

/// Ray against the plane through `point` with `normal` (rays only hit from above).
pub fn plane_hit(origin: Vec3, dir: Vec3, max: f32, point: Vec3, normal: Vec3) -> Option<GroundHit> {
    let denom = dir.dot(normal);
    if denom >= -1e-6 {
        return None;
    }
    let t = (point - origin).dot(normal) / denom;
    (t >= 0.0 && t <= max).then(|| GroundHit { point: origin + dir * t, normal })
}

/// Left side (+X in model space) 15 cm lower than the right.
pub fn step_ground(origin: Vec3, dir: Vec3, max: f32) -> Option<GroundHit> {
    let h = if origin.x > 0.0 { -0.15 } else { 0.0 };
    plane_hit(origin, dir, max, Vec3::Y * h, Vec3::Y)
}

/// A 20° slope through the origin, rising forward (+Z).
pub fn slope_ground(origin: Vec3, dir: Vec3, max: f32) -> Option<GroundHit> {
    plane_hit(origin, dir, max, Vec3::ZERO, Quat::from_rotation_x(-20f32.to_radians()) * Vec3::Y)
}

/// The foot rigs of two legs whose feet are flat in the model-space `rest` pose.
pub fn foot_rigs(rest: &[Xform], legs: [LegChain; 2]) -> [FootRig; 2] {
    legs.map(|leg| FootRig::from_flat_pose(rest, leg).unwrap())
}

/// [`foot_rigs`], also probed at the heel (6 cm behind the ankle) and toe tip (8 cm past the ball).
pub fn foot_rigs_with_heel_and_tip(rest: &[Xform], legs: [LegChain; 2]) -> [FootRig; 2] {
    foot_rigs(rest, legs).map(|f| f.with_heel_and_tip(rest, 0.06, 0.08))
}

/// A placement job on `rigs` with pelvis bone 1: identity model-to-world, default settings, no
/// shifts.
pub fn placement_job<'a>(parents: &'a [Option<usize>], rigs: &'a [FootRig]) -> FootPlacement<'a> {
    FootPlacement {
        parents,
        pelvis: super::PELVIS,
        feet: rigs,
        model_to_world: Xform::IDENTITY,
        foot_shifts: &[],
        floor_heights: &[],
        swing_floors: &[],
        settings: FootPlacementSettings::default(),
        weight: 1.0,
    }
}
