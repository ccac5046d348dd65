//! The physics-free backend: an infinite plane.

use bevy::prelude::*;
use ik_core::foot_placement::GroundHit;

/// An infinite plane through `(0, height, 0)` with normal `normal` (world space).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ik::prelude::*;
///
/// // A 10 cm high floor, tilted about 11° toward +X.
/// let floor = GroundPlane { height: 0.1, normal: Vec3::new(0.2, 1.0, 0.0) };
/// let hit = floor.cast(Vec3::new(0.0, 1.0, 0.0), Vec3::NEG_Y, 2.0).unwrap();
/// assert!((hit.point.y - 0.1).abs() < 1e-6);
/// App::new().insert_resource(IkGround::Plane(floor));
/// ```
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Default, Debug, PartialEq)]
pub struct GroundPlane {
    /// Height of the plane at the world origin.
    pub height: f32,
    /// The plane's normal (normalized on use; +Y when zero or not finite).
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

    /// How far a box (`half_extents` about `origin`, turned by `rotation`) travels along `dir`
    /// before it touches the plane from its front side: 0 when it starts touching or below it;
    /// `None` when it moves away or does not reach it within `max`.
    pub fn cast_box(&self, origin: Vec3, rotation: Quat, half_extents: Vec3, dir: Vec3, max: f32) -> Option<f32> {
        let normal = self.normal.normalize_or(Vec3::Y);
        // How far the box reaches toward the plane from its centre.
        let reach: f32 = [Vec3::X, Vec3::Y, Vec3::Z]
            .iter()
            .zip(half_extents.to_array())
            .map(|(axis, half)| half * (rotation * *axis).dot(normal).abs())
            .sum();
        let gap = (origin - Vec3::Y * self.height).dot(normal) - reach;
        if gap <= 0.0 {
            return gap.is_finite().then_some(0.0);
        }
        let closing = -dir.try_normalize()?.dot(normal);
        if closing <= 1e-6 {
            return None;
        }
        let t = gap / closing;
        (t <= max).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_reaches_the_plane_with_its_lowest_corner() {
        let floor = GroundPlane { height: 0.1, normal: Vec3::Y };
        let half = Vec3::new(0.05, 0.01, 0.14);
        // Level: its underside starts 30 cm over the floor.
        let t = floor.cast_box(Vec3::new(0.0, 0.41, 0.0), Quat::IDENTITY, half, Vec3::NEG_Y, 1.0).unwrap();
        assert!((t - 0.3).abs() < 1e-5, "{t}");
        // Pitched 90° about X: it stands 28 cm tall, its lowest point 14 cm under its centre.
        let upright = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        let t = floor.cast_box(Vec3::new(0.0, 0.41, 0.0), upright, half, Vec3::NEG_Y, 1.0).unwrap();
        assert!((t - 0.17).abs() < 1e-5, "{t}");
        assert_eq!(floor.cast_box(Vec3::new(0.0, 0.41, 0.0), Quat::IDENTITY, half, Vec3::NEG_Y, 0.2), None);
        assert_eq!(floor.cast_box(Vec3::new(0.0, 0.41, 0.0), Quat::IDENTITY, half, Vec3::Y, 1.0), None);
        assert_eq!(floor.cast_box(Vec3::new(0.0, 0.105, 0.0), Quat::IDENTITY, half, Vec3::NEG_Y, 1.0), Some(0.0));
    }

    #[test]
    fn a_plane_is_hit_from_above_only() {
        let plane = GroundPlane { height: 0.15, normal: Vec3::Y };
        let hit = plane.cast(Vec3::new(1.0, 1.0, 2.0), Vec3::NEG_Y, 2.0).unwrap();
        assert!((hit.point - Vec3::new(1.0, 0.15, 2.0)).length() < 1e-6);
        assert_eq!(plane.cast(Vec3::new(1.0, 1.0, 2.0), Vec3::NEG_Y, 0.5), None);
        assert_eq!(plane.cast(Vec3::new(1.0, -1.0, 2.0), Vec3::Y, 5.0), None);
    }

    #[test]
    fn a_nan_ray_or_plane_hits_nothing_or_stays_finite() {
        let plane = GroundPlane::default();
        assert_eq!(plane.cast(Vec3::splat(f32::NAN), Vec3::NEG_Y, 2.0), None);
        assert_eq!(plane.cast(Vec3::Y, Vec3::splat(f32::NAN), 2.0), None);
        let odd = GroundPlane { height: 0.0, normal: Vec3::splat(f32::NAN) };
        let hit = odd.cast(Vec3::Y, Vec3::NEG_Y, 2.0).unwrap();
        assert_eq!(hit.normal, Vec3::Y);
        assert!(hit.point.is_finite());
    }
}
