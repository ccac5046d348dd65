//! The ground under one sole point: the ray down through the caller's query, in model space,
//! and the overhang check.
//!
//! **Overhangs.** The ray down starts `ray_start_height` above the point, so it can start above
//! (or inside) something that hangs over the foot — a log, a table top, a shelf — and find its
//! top instead of the ground under it. Whenever the ray's hit is above the point, a second ray
//! goes up from just above the point ([`OVERHANG_LIFT`]) to that hit. If it meets an underside
//! more than [`OVERHANG_THICKNESS`] below the top hit, that top belongs to an overhang: the
//! ground is looked for again from just under the underside. A ray up that starts inside the
//! ground (the query answers at its origin) is tried again from higher up, in doubling steps,
//! until one starts outside or above the top hit: a point sunk into a tread is inside it all the
//! way up to the top, so that is no overhang and the foot is still lifted onto the tread, while
//! a point sunk a little into the floor under a log finds the log's underside from just above
//! the floor. A ray up that meets the same surface from below (a height field or a mesh, with
//! no inside) finds no overhang either.

use glam::Vec3;

use super::GroundHit;
use crate::Xform;

/// How far above the sole point the ray up starts, model units: inside the foot, clear of the
/// ground the point stands on.
pub const OVERHANG_LIFT: f32 = 0.01;
/// Least thickness of an overhang, model units: an underside closer to the top hit than this is
/// the same surface seen from below.
pub const OVERHANG_THICKNESS: f32 = 0.005;
/// Most rays up tried from a point inside the ground (each starting twice as high as the last,
/// from [`OVERHANG_LIFT`]: up to 2¹⁵ lifts, far past any ray start).
const MAX_LIFTS: usize = 16;

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
        // A ray down that starts inside something (an overhang the start height reaches into)
        // meets it at its own start: the inside of a board, never its top, however near its
        // underside the start is.
        let started_inside = top.0.y >= top_of_ray - 1e-4;
        let past_top = if started_inside { OVERHANG_THICKNESS } else { 0.0 };
        let mut lift = OVERHANG_LIFT;
        for _ in 0..MAX_LIFTS {
            let from = point + Vec3::Y * lift;
            if top.0.y <= from.y + OVERHANG_THICKNESS {
                return Some(top);
            }
            let Some(ceiling) = self.ray(ground, from, false, top.0.y - from.y + past_top) else { return Some(top) };
            let underside = ceiling.0.y;
            if underside - from.y <= 1e-4 {
                // Starting inside the ground: look again from higher up.
                lift *= 2.0;
                continue;
            }
            if !started_inside && top.0.y - underside <= OVERHANG_THICKNESS {
                // The top's own surface from below: no overhang.
                return Some(top);
            }
            let below = Vec3::new(point.x, underside - 1e-3, point.z);
            return self.ray(ground, below, true, below.y - bottom_of_ray);
        }
        Some(top)
    }
}

/// The ground under `point` (model space) as foot placement finds it: a ray down (model −Y)
/// from `ray_start` above the point, `ray_length` long, past anything hanging over the point
/// (see the module docs), through `ground` (world space, like
/// [`FootPlacement::run`](super::FootPlacement::run)'s). Returns the hit in model space.
///
/// ```
/// use glam::Vec3;
/// use ik_core::Xform;
/// use ik_core::foot_placement::{GroundHit, ground_under};
///
/// // A floor at y = 0 and nothing else.
/// let mut floor = |o: Vec3, d: Vec3, max: f32| {
///     let t = o.y / -d.y;
///     (d.y < 0.0 && t <= max).then(|| GroundHit { point: o + d * t, normal: Vec3::Y })
/// };
/// let hit = ground_under(&mut floor, Xform::IDENTITY, 0.5, 1.5, Vec3::new(1.0, 0.1, 2.0)).unwrap();
/// assert!(hit.point.abs_diff_eq(Vec3::new(1.0, 0.0, 2.0), 1e-6));
/// ```
pub fn ground_under<G>(
    ground: &mut G,
    to_world: Xform,
    ray_start: f32,
    ray_length: f32,
    point: Vec3,
) -> Option<GroundHit>
where
    G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
{
    let rays = Rays { to_world, start: ray_start, length: ray_length };
    rays.under(ground, point).map(|(point, normal)| GroundHit { point, normal })
}

/// The ground under the sole points left unprobed (`probed(k)` false, [`super::SoleProbes`]):
/// the plane of the probed hit nearest each (horizontally), met straight under the point, so
/// every sole point still keeps clear of the ground where the ground is flat under the foot.
/// Costs no ray. Probed points (hit or missed) and points with no probed hit to go by are left
/// as they are; a plane steeper than 84° gives nothing.
pub(crate) fn fill_unprobed<const N: usize>(
    points: &[Option<(Vec3, f32)>; N],
    hits: [Option<(Vec3, Vec3)>; N],
    probed: impl Fn(usize) -> bool,
) -> [Option<(Vec3, Vec3)>; N] {
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    core::array::from_fn(|k| {
        let ((at, _), false) = (points[k]?, probed(k)) else { return hits[k] };
        let (hit, normal) = hits
            .iter()
            .flatten()
            .min_by(|a, b| flat(a.0 - at).length_squared().total_cmp(&flat(b.0 - at).length_squared()))?;
        let n = normal.normalize_or(Vec3::Y);
        (n.y > 0.1).then(|| {
            let y = hit.y - (n.x * (at.x - hit.x) + n.z * (at.z - hit.z)) / n.y;
            (Vec3::new(at.x, y, at.z), *normal)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unprobed_point_meets_the_plane_of_its_nearest_probed_neighbour() {
        // The ankle probed on a plane rising 10 % toward +Z; the toe 0.2 m ahead is not.
        let normal = Vec3::new(0.0, 1.0, -0.1);
        let points = [Some((Vec3::ZERO, 0.0)), Some((Vec3::new(0.0, 0.05, 0.2), 0.0))];
        let filled = fill_unprobed(&points, [Some((Vec3::ZERO, normal)), None], |k| k == 0);
        assert_eq!(filled[0], Some((Vec3::ZERO, normal)));
        let (toe, n) = filled[1].unwrap();
        assert!(toe.abs_diff_eq(Vec3::new(0.0, 0.02, 0.2), 1e-6) && n == normal, "{toe}");
        assert_eq!(fill_unprobed(&points, [None, None], |k| k == 0), [None, None]);
        // A probed point whose ray missed stays without ground.
        assert_eq!(fill_unprobed(&points, [Some((Vec3::ZERO, normal)), None], |_| true)[1], None);
    }

    /// The floor (a slab whose top is y = 0) and a board 41–45 cm up, as a physics engine casts
    /// against solids: a ray starting inside one hits at its origin.
    fn floor_and_board(origin: Vec3, dir: Vec3, max: f32) -> Option<GroundHit> {
        let slabs = [(-1.0f32, 0.0f32), (0.41, 0.45)];
        slabs
            .iter()
            .filter_map(|&(bottom, top)| {
                if origin.y >= bottom && origin.y <= top {
                    return Some(0.0);
                }
                let t =
                    if dir.y < 0.0 && origin.y > top { (origin.y - top) / -dir.y } else { (bottom - origin.y) / dir.y };
                (t >= 0.0 && t <= max && ((dir.y < 0.0 && origin.y > top) || (dir.y > 0.0 && origin.y < bottom)))
                    .then_some(t)
            })
            .min_by(f32::total_cmp)
            .map(|t| GroundHit { point: origin + dir * t, normal: if t == 0.0 { Vec3::ZERO } else { -dir } })
    }

    #[test]
    fn a_point_sunk_into_the_floor_under_a_board_finds_the_floor() {
        let rays = Rays { to_world: Xform::IDENTITY, start: 0.5, length: 1.5 };
        let mut ground = floor_and_board;
        // On the floor, and sunk 1.5 to 10 cm into it (a toe rolling off, a blend): the ray down
        // from 50 cm up lands on the board; the ray up from just above the point starts inside
        // the floor and must look again from higher up, not take the board's top for ground.
        // Sunk 8.6–9 cm, the ray down starts inside the board, within its least thickness of
        // the underside: still the board's inside, not its top.
        for sink in [0.0, 0.015, 0.03, 0.06, 0.086, 0.088, 0.09, 0.1] {
            let (hit, _) = rays.under(&mut ground, Vec3::new(0.0, -sink, 0.0)).unwrap();
            assert!(hit.y.abs() < 1e-4, "sunk {sink}: ground found at {}", hit.y);
        }
        // Sunk into a solid 20 cm tread (no board): the tread's top is the ground.
        let mut tread = |o: Vec3, d: Vec3, m: f32| {
            let inside = o.y <= 0.2;
            let t = if inside { 0.0 } else { (o.y - 0.2) / -d.y };
            (inside || (d.y < 0.0 && t <= m)).then(|| GroundHit { point: o + d * t, normal: Vec3::Y })
        };
        let (hit, _) = rays.under(&mut tread, Vec3::new(0.0, 0.0, 0.0)).unwrap();
        assert!((hit.y - 0.2).abs() < 1e-4, "tread top: {}", hit.y);
    }
}
