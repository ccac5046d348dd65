//! [`Xform`]: a translation, rotation and scale, composed the way Bevy's `Transform` composes.

use glam::{Quat, Vec3};

/// A bone transform: translation, rotation and scale, applied scale first, then rotation, then
/// translation. Composition (`parent * child`) matches Bevy's `Transform::mul_transform`, which
/// is exact for uniform scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Xform {
    /// Position in the parent's space.
    pub translation: Vec3,
    /// Orientation in the parent's space (unit quaternion).
    pub rotation: Quat,
    /// Scale along the bone's own axes.
    pub scale: Vec3,
}

impl Default for Xform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Xform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Xform = Xform { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE };

    /// A pure translation.
    pub const fn from_translation(translation: Vec3) -> Self {
        Xform { translation, rotation: Quat::IDENTITY, scale: Vec3::ONE }
    }

    /// A translation and rotation with unit scale.
    pub const fn from_translation_rotation(translation: Vec3, rotation: Quat) -> Self {
        Xform { translation, rotation, scale: Vec3::ONE }
    }

    /// `self * child`: the child expressed in this transform's parent space.
    #[inline]
    pub fn mul_xform(&self, child: &Xform) -> Xform {
        Xform {
            translation: self.transform_point(child.translation),
            rotation: self.rotation * child.rotation,
            scale: self.scale * child.scale,
        }
    }

    /// Maps a point from this transform's space into its parent's space.
    #[inline]
    pub fn transform_point(&self, point: Vec3) -> Vec3 {
        self.translation + self.rotation * (self.scale * point)
    }

    /// Maps a point from the parent's space into this transform's space (exact for uniform and
    /// axis-aligned scale; zero scale axes map to zero).
    #[inline]
    pub fn inverse_transform_point(&self, point: Vec3) -> Vec3 {
        let local = self.rotation.inverse() * (point - self.translation);
        local * safe_recip(self.scale)
    }

    /// The inverse transform (exact for uniform scale).
    pub fn inverse(&self) -> Xform {
        let inv_rot = self.rotation.inverse();
        let inv_scale = safe_recip(self.scale);
        Xform { translation: inv_scale * (inv_rot * -self.translation), rotation: inv_rot, scale: inv_scale }
    }

    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

impl core::ops::Mul for Xform {
    type Output = Xform;
    fn mul(self, rhs: Xform) -> Xform {
        self.mul_xform(&rhs)
    }
}

fn safe_recip(v: Vec3) -> Vec3 {
    Vec3::new(
        if v.x != 0.0 { 1.0 / v.x } else { 0.0 },
        if v.y != 0.0 { 1.0 / v.y } else { 0.0 },
        if v.z != 0.0 { 1.0 / v.z } else { 0.0 },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_undoes_uniform_scale_rotation_translation() {
        let x = Xform {
            translation: Vec3::new(1.0, -2.0, 0.5),
            rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0),
            scale: Vec3::splat(2.5),
        };
        let p = Vec3::new(0.2, 0.7, -3.0);
        let back = x.inverse().transform_point(x.transform_point(p));
        assert!((back - p).length() < 1e-5, "{back} vs {p}");
        assert!((x.inverse_transform_point(x.transform_point(p)) - p).length() < 1e-5);
        let id = x * x.inverse();
        assert!(id.translation.length() < 1e-5 && id.rotation.abs_diff_eq(Quat::IDENTITY, 1e-6));
    }
}
