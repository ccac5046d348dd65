//! The ground under one sole point: the ray down through the caller's query, in model space,
//! and the overhang check.
//!
//! **Overhangs.** The ray down starts `ray_start_height` above the point, so it can start above
//! (or inside) something that hangs over the foot — a log, a table top, a shelf — and find its
//! top instead of the ground under it. Whenever the ray's hit is above the point, a second ray
//! goes up from just above the point ([`OVERHANG_LIFT`]) to that hit. If it meets an underside
//! more than [`OVERHANG_THICKNESS`] below the top hit, that top belongs to an overhang: the
//! ground is looked for again from just under the underside. A ray up that starts inside the
//! ground (a point sunk into a tread: the query answers at its origin) or meets the same surface
//! from below (a height field or a mesh, with no inside) finds no overhang, so a foot below a
//! tread is still lifted onto it.

use glam::Vec3;

use super::GroundHit;
use crate::Xform;

/// How far above the sole point the ray up starts, model units: inside the foot, clear of the
/// ground the point stands on.
pub const OVERHANG_LIFT: f32 = 0.01;
/// Least thickness of an overhang, model units: an underside closer to the top hit than this is
/// the same surface seen from below.
pub const OVERHANG_THICKNESS: f32 = 0.005;

/// Everything a probe ray needs: the frame and the ray's extent.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rays {
    /// Model to world.
    pub to_world: Xform,
    /// Where the ray down starts above the point, model units.
    pub start: f32,
    /// How long it is, model units.
    pub length: f32,
}

impl Rays {
    /// One ray from `from` (model space) along model −Y (`down`) or +Y for `length` model
    /// units: the hit, model space (point, unit normal), if it lies on the ray and is finite.
    fn ray<G>(&self, ground: &mut G, from: Vec3, down: bool, length: f32) -> Option<(Vec3, Vec3)>
    where
        G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
    {
        let to_world = self.to_world;
        let dir = if down { Vec3::NEG_Y } else { Vec3::Y };
        let world_dir = (to_world.rotation * dir).normalize_or(dir);
        let max_distance = length.max(0.0) * to_world.scale.y.abs();
        let world_origin = to_world.transform_point(from);
        ground(world_origin, world_dir, max_distance)
            // A hit must lie on this ray: anything further is the query's mistake.
            .filter(|h| h.point.is_finite() && h.normal.is_finite())
            .filter(|h| (h.point - world_origin).length() <= max_distance * 1.001 + 1e-4)
            .map(|h| {
                let point = to_world.inverse_transform_point(h.point);
                let normal = ((to_world.rotation.inverse() * h.normal) * to_world.scale).normalize_or(Vec3::Y);
                (point, normal)
            })
            .filter(|(p, n)| p.is_finite() && n.is_finite())
    }

    /// The ground under `point` (model space): the ray down from `start` above it, past any
    /// overhang (see the module docs).
    pub fn under<G>(&self, ground: &mut G, point: Vec3) -> Option<(Vec3, Vec3)>
    where
        G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
    {
        let top_of_ray = point.y + self.start;
        let bottom_of_ray = top_of_ray - self.length;
        let top = self.ray(ground, point + Vec3::Y * self.start, true, self.length)?;
        let from = point + Vec3::Y * OVERHANG_LIFT;
        if top.0.y <= from.y + OVERHANG_THICKNESS {
            return Some(top);
        }
        let Some(ceiling) = self.ray(ground, from, false, top.0.y - from.y) else { return Some(top) };
        let underside = ceiling.0.y;
        if underside - from.y <= 1e-4 || top.0.y - underside <= OVERHANG_THICKNESS {
            // Inside the ground, or the top's own surface from below: no overhang.
            return Some(top);
        }
        let below = Vec3::new(point.x, underside - 1e-3, point.z);
        self.ray(ground, below, true, below.y - bottom_of_ray)
    }
}
