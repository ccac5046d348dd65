//! Where foot-placement rays go: [`IkGround`] picks a backend — rapier ray casts (feature
//! `rapier`, the default) or a physics-free [`GroundPlane`] — and [`GroundProbe`] casts through it.

use bevy::prelude::*;
use ik_core::foot_placement::GroundHit;

/// The ground foot placement traces against. A resource; live-editable.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource)]
pub enum IkGround {
    /// Ray casts into rapier's scene (the default with the `rapier` feature). The character
    /// root's own rigid body and all sensors are excluded.
    #[cfg(feature = "rapier")]
    Rapier,
    /// A flat, infinite plane: no physics engine needed (tests, simple games).
    Plane(GroundPlane),
}

impl Default for IkGround {
    fn default() -> Self {
        #[cfg(feature = "rapier")]
        return IkGround::Rapier;
        #[cfg(not(feature = "rapier"))]
        return IkGround::Plane(GroundPlane::default());
    }
}

/// An infinite plane through `(0, height, 0)` with normal `normal` (world space).
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
pub struct GroundPlane {
    /// Height of the plane at the world origin.
    pub height: f32,
    /// The plane's normal (normalized on use; +Y when zero).
    pub normal: Vec3,
}

impl Default for GroundPlane {
    fn default() -> Self {
        GroundPlane { height: 0.0, normal: Vec3::Y }
    }
}

impl GroundPlane {
    /// Where a ray from `origin` along `dir` meets the plane within `max` (front side only).
    pub fn cast(&self, origin: Vec3, dir: Vec3, max: f32) -> Option<GroundHit> {
        let normal = self.normal.normalize_or(Vec3::Y);
        let dir = dir.try_normalize()?;
        let denom = dir.dot(normal);
        if denom >= -1e-6 {
            return None;
        }
        let t = (Vec3::Y * self.height - origin).dot(normal) / denom;
        (t >= 0.0 && t <= max).then(|| GroundHit { point: origin + dir * t, normal })
    }
}

/// A ready-to-cast view of the ground for one frame: the backend plus whatever it needs.
pub struct GroundProbe<'a> {
    ground: &'a IkGround,
    #[cfg(feature = "rapier")]
    rapier: Option<&'a bevy_rapier3d::plugin::RapierContext<'a>>,
}

impl<'a> GroundProbe<'a> {
    /// A probe over a backend (with rapier's context when the backend is [`IkGround::Rapier`]).
    pub fn new(
        ground: &'a IkGround,
        #[cfg(feature = "rapier")] rapier: Option<&'a bevy_rapier3d::plugin::RapierContext<'a>>,
    ) -> Self {
        GroundProbe {
            ground,
            #[cfg(feature = "rapier")]
            rapier,
        }
    }

    /// Casts a world-space ray for a character, ignoring the character's own body.
    pub fn cast(&self, origin: Vec3, dir: Vec3, max: f32, character: Entity) -> Option<GroundHit> {
        let _ = character;
        match self.ground {
            #[cfg(feature = "rapier")]
            IkGround::Rapier => {
                use bevy_rapier3d::prelude::{QueryFilter, QueryFilterFlags};
                let context = self.rapier?;
                let filter = QueryFilter {
                    flags: QueryFilterFlags::EXCLUDE_SENSORS,
                    exclude_rigid_body: Some(character),
                    exclude_collider: Some(character),
                    ..QueryFilter::default()
                };
                let dir = dir.try_normalize()?;
                let (_, hit) = context.cast_ray_and_get_normal(origin, dir, max, true, filter)?;
                Some(GroundHit { point: hit.point, normal: hit.normal })
            }
            IkGround::Plane(plane) => plane.cast(origin, dir, max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plane_is_hit_from_above_only() {
        let plane = GroundPlane { height: 0.15, normal: Vec3::Y };
        let hit = plane.cast(Vec3::new(1.0, 1.0, 2.0), Vec3::NEG_Y, 2.0).unwrap();
        assert!((hit.point - Vec3::new(1.0, 0.15, 2.0)).length() < 1e-6);
        assert_eq!(plane.cast(Vec3::new(1.0, 1.0, 2.0), Vec3::NEG_Y, 0.5), None);
        assert_eq!(plane.cast(Vec3::new(1.0, -1.0, 2.0), Vec3::Y, 5.0), None);
    }
}
