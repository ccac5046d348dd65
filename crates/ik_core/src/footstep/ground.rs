//! The ground [`super::FootstepJob`] probes: a caller's rays and sole-sized box casts
//! ([`StepGround`]), seen by the landing search as a [`FootprintGround`] whose box casts are
//! reused while a swing's landing moves by millimetres a frame.

use glam::{Quat, Vec3};

use super::FootprintGround;
use crate::Xform;
use crate::foot_placement::{FootRig, GroundHit, ground_under};

/// The world footstep prediction probes, in world space: rays down, and a box swept down
/// (rapier's or Avian's shape cast) for what stands up between the rays (a rail, a lip).
///
/// ```
/// use glam::{Quat, Vec3};
/// use ik_core::foot_placement::GroundHit;
/// use ik_core::footstep::StepGround;
///
/// /// A floor at y = 0 and nothing on it.
/// struct Floor;
/// impl StepGround for Floor {
///     fn ray(&mut self, origin: Vec3, direction: Vec3, max: f32) -> Option<GroundHit> {
///         let t = origin.y / -direction.y;
///         (direction.y < 0.0 && t <= max).then(|| GroundHit { point: origin + direction * t, normal: Vec3::Y })
///     }
///     fn box_hits(&mut self, center: Vec3, _: Quat, half: Vec3, direction: Vec3, distance: f32) -> bool {
///         center.y - half.y + direction.y * distance <= 0.0
///     }
/// }
/// assert!(Floor.ray(Vec3::Y, Vec3::NEG_Y, 2.0).is_some());
/// ```
pub trait StepGround {
    /// The first ground a ray from `origin` along `direction` (unit) meets within `max`.
    fn ray(&mut self, origin: Vec3, direction: Vec3, max: f32) -> Option<GroundHit>;

    /// Whether a box centred at `center`, turned by `rotation`, of half extents `half`, swept
    /// along `direction` (unit) for `distance`, touches anything.
    fn box_hits(&mut self, center: Vec3, rotation: Quat, half: Vec3, direction: Vec3, distance: f32) -> bool;
}

/// How far above the height it checks ([`FootprintGround::clear`]'s `top`) the sole box starts
/// its sweep down to it, m.
const SOLE_LIFT: f32 = 0.05;
/// How much longer at each end and wider at each side than the footprint a sole box is first
/// swept, so that a footprint moved by less than this within the next frames is known clear
/// without another cast, m. Also how far a landing may move before its ground is probed again.
pub(super) const SOLE_REUSE: f32 = 0.02;
/// For how many frames of one swing a clear region is reused at most (something could move
/// into it); it is forgotten when the foot lands.
pub(super) const SOLE_REUSE_FRAMES: u8 = 30;

/// A region the sole box found clear: the footprint it was swept for (heel and tip, world), the
/// height it was checked down to, and the frames it may still be reused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ClearSole {
    heel: Vec3,
    tip: Vec3,
    top: f32,
    frames_left: u8,
}

impl ClearSole {
    /// The same region a frame older, if it may still be reused.
    pub fn aged(self) -> Option<Self> {
        (self.frames_left > 0).then(|| ClearSole { frames_left: self.frames_left - 1, ..self })
    }
}

/// A leg's view of the ground: rays down from `ray.0` above a point, `ray.1` long (world units),
/// and a box the size of the sole swept down over a whole footprint. A box [`SOLE_REUSE`] larger
/// all round is tried first; when it is clear, footprints within that distance are known clear
/// (`cleared`) for the next [`SOLE_REUSE_FRAMES`] frames, so a swing costs a box cast or two.
pub(super) struct SoleGround<'g, G: ?Sized> {
    pub ground: &'g mut G,
    pub up: Vec3,
    pub ray: (f32, f32),
    pub cleared: Option<ClearSole>,
}

impl<G: StepGround + ?Sized> SoleGround<'_, G> {
    /// Whether a box over the footprint from `heel` to `tip`, `grow` longer at each end and
    /// wider at each side, swept down to `top`, touches nothing.
    fn box_clear(&mut self, heel: Vec3, tip: Vec3, top: f32, grow: f32) -> bool {
        let along = Vec3::new(tip.x - heel.x, 0.0, tip.z - heel.z);
        let Some(forward) = along.try_normalize() else { return true };
        let length = along.length();
        let half = Vec3::new(0.1 * length + grow, 0.005, 0.5 * length + grow);
        let middle = (heel + tip) * 0.5;
        let from = Vec3::new(middle.x, top + SOLE_LIFT + half.y, middle.z);
        let rotation = Quat::from_rotation_arc(Vec3::Z, forward);
        !self.ground.box_hits(from, rotation, half, Vec3::NEG_Y, SOLE_LIFT)
    }

    /// The ground under the world point `p` as foot placement finds it, probed from the height
    /// `from_y` (world), past anything hanging over it (a board, a table): its world height.
    pub fn under(&mut self, to_world: Xform, p: Vec3, from_y: f32) -> Option<f32> {
        let scale = to_world.scale.y.abs().max(1e-6);
        let from = to_world.inverse_transform_point(Vec3::new(p.x, from_y, p.z));
        let mut cast = |o: Vec3, d: Vec3, m: f32| self.ground.ray(o, d, m);
        let (start, length) = (self.ray.0 / scale, self.ray.1 / scale);
        ground_under(&mut cast, to_world, start, length, from).map(|hit| to_world.transform_point(hit.point).y)
    }
}

impl<G: StepGround + ?Sized> FootprintGround for SoleGround<'_, G> {
    fn height(&mut self, p: Vec3) -> Option<f32> {
        self.ground.ray(p + self.up * self.ray.0, -self.up, self.ray.1).map(|h| h.point.y)
    }

    /// A box as long as the footprint, a fifth as wide and 1 cm thick, swept down from
    /// [`SOLE_LIFT`] over `top`: anything it touches stands higher than `top`.
    fn clear(&mut self, heel: Vec3, tip: Vec3, top: f32) -> bool {
        let near = |a: Vec3, b: Vec3| horizontal_distance(a, b) <= SOLE_REUSE;
        if self.cleared.is_some_and(|c| near(c.heel, heel) && near(c.tip, tip) && top >= c.top) {
            return true;
        }
        if self.box_clear(heel, tip, top, SOLE_REUSE) {
            self.cleared = Some(ClearSole { heel, tip, top, frames_left: SOLE_REUSE_FRAMES });
            return true;
        }
        self.box_clear(heel, tip, top, 0.0)
    }
}

/// How far apart `a` and `b` are seen from above (world xz), m.
pub(super) fn horizontal_distance(a: Vec3, b: Vec3) -> f32 {
    Vec3::new(a.x - b.x, 0.0, a.z - b.z).length()
}

/// The footprint of a foot about its toe joint (world units): how far its heel point lies behind
/// the toe and its toe tip ahead once the foot is flat (the sole's heel and tip, or 1.5 and 0.5
/// ankle-to-toe lengths without them). Measured as straight distances, so a foot pitched in its
/// swing has the footprint it will land with.
pub(super) fn footprint(rig: &FootRig, model: &[Xform], toe: Vec3, scale: f32) -> (f32, f32) {
    let from_toe = |p: Vec3| p.distance(toe) * scale;
    let ankle = model.get(rig.leg.ankle).map_or(0.0, |a| from_toe(a.translation));
    let point = |p: Option<crate::sole::SolePoint>| {
        p.and_then(|p| model.get(p.bone).map(|bone| from_toe(bone.transform_point(p.local))))
    };
    (point(rig.heel).unwrap_or(ankle * 1.5), point(rig.tip).unwrap_or(ankle * 0.5))
}
