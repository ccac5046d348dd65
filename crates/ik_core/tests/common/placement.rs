//! Shared by the foot-placement tests: ray-cast grounds, foot rigs and a placement job.

use glam::{Quat, Vec3};
use ik_core::foot_placement::{
    FootPlacement, FootPlacementSettings, FootPlacementState, FootReport, FootRig, GroundHit,
};
use ik_core::leg::LegChain;

use super::{biped_feet, model_of};
use ik_core::{Skeleton, Xform};

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
        travel: Vec3::ZERO,
        settings: FootPlacementSettings::default(),
        weight: 1.0,
    }
}

/// The last frame of [`run`], and the pelvis offset and left foot's float of every frame.
pub struct Run {
    pub model: Vec<Xform>,
    pub reports: [FootReport; 2],
    pub pelvis_offset: f32,
    pub offsets: Vec<f32>,
    /// The left foot's float after placement, per frame.
    pub left_floats: Vec<f32>,
}

/// Runs `frames` frames of placement on the same animated pose; returns the last frame.
pub fn run<G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>>(
    skel: &Skeleton,
    animated: &[Xform],
    model_to_world: Xform,
    settings: FootPlacementSettings,
    frames: usize,
    dt: f32,
    mut ground: G,
) -> Run {
    let rigs = biped_feet(skel);
    let job = FootPlacement { model_to_world, settings, ..placement_job(skel.parents(), &rigs) };
    let mut state = FootPlacementState::new(2);
    let mut reports = [FootReport::default(); 2];
    let mut locals = animated.to_vec();
    let mut model = model_of(skel, &locals);
    let mut offsets = Vec::new();
    let mut left_floats = Vec::new();
    let mut pelvis_offset = 0.0;
    for _ in 0..frames {
        locals.copy_from_slice(animated);
        model = model_of(skel, &locals);
        pelvis_offset = job.run(&mut locals, &mut model, &mut ground, dt, &mut state, &mut reports).unwrap();
        offsets.push(pelvis_offset);
        left_floats.push(reports[0].float_after);
    }
    let fk = model_of(skel, &locals);
    for (a, b) in fk.iter().zip(&model) {
        assert!((a.translation - b.translation).length() < 1e-5, "model buffer out of date");
    }
    Run { model, reports, pelvis_offset, offsets, left_floats }
}
