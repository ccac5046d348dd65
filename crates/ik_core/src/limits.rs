//! Joint limits: a hinge, or a cone with a twist range, measured from a reference rotation.
//!
//! **Method**: a limit looks at the offset `D = reference⁻¹ · local` from a reference local
//! rotation (usually the rest pose's), split into swing and twist about an axis in the bone's
//! frame, so the same values fit any rig. **Inputs**: a [`JointLimit`] ([`LimitShape::Hinge`]
//! or [`LimitShape::Cone`]) and a local rotation. **Outputs**: [`JointLimit::clamp`] (the rotation
//! brought inside) and [`JointLimit::violation`] (radians outside, exactly 0 inside).
//! **Invariants**: a rotation inside comes back bit for bit; a clamped one measures under
//! `1e-5` rad; finite input never gives NaN. The method in full: `docs/solvers.md` in the
//! repository.
//!
//! ```
//! use ik_core::glam::{Quat, Vec3};
//! use ik_core::limits::JointLimit;
//!
//! // A knee: turns only about X, from 0 to 150° off its rest rotation.
//! let knee = JointLimit::hinge(Quat::IDENTITY, Vec3::X, 0.0, 150f32.to_radians());
//! let bent_backwards = Quat::from_rotation_x(-0.5);
//! assert!((knee.violation(bent_backwards) - 0.5).abs() < 1e-4);
//! let clamped = knee.clamp(bent_backwards);
//! assert!(knee.violation(clamped) < 1e-5 && clamped.angle_between(Quat::IDENTITY) < 1e-3);
//! let bent = Quat::from_rotation_x(1.0);
//! assert_eq!(knee.clamp(bent), bent); // inside: unchanged
//! ```

use core::f32::consts::PI;

use glam::{Quat, Vec3};

/// Offsets this close to a limit's edge (radians) count as inside, so clamping is idempotent.
const EDGE: f32 = 1e-6;

/// The allowed offsets from the reference rotation; axes are in the bone's own frame.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub enum LimitShape {
    /// A one-axis joint (knee, elbow, finger): turns only about `axis`, by `[min, max]` radians.
    Hinge {
        /// The hinge axis, in the bone's frame at the reference rotation.
        axis: Vec3,
        /// Smallest allowed turn about `axis` (radians, right-handed).
        min: f32,
        /// Largest allowed turn about `axis` (radians).
        max: f32,
    },
    /// A ball joint (shoulder, hip, spine): the bone axis stays inside a cone, with a twist range.
    Cone {
        /// The bone's axis (the direction towards its child), in its frame at the reference.
        axis: Vec3,
        /// Largest angle the bone axis may swing away from its reference direction (radians).
        max_swing: f32,
        /// Smallest allowed twist about the bone axis (radians).
        min_twist: f32,
        /// Largest allowed twist about the bone axis (radians).
        max_twist: f32,
    },
}

/// A limit on one joint: its shape, relative to a reference local rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct JointLimit {
    /// The local rotation the limit is measured from (usually the rest pose's local rotation).
    pub reference: Quat,
    /// What offsets from `reference` are allowed.
    pub shape: LimitShape,
}

impl JointLimit {
    /// A hinge about `axis` (bone frame) allowing turns in `[min, max]` from `reference`.
    pub fn hinge(reference: Quat, axis: Vec3, min: f32, max: f32) -> Self {
        JointLimit { reference, shape: LimitShape::Hinge { axis, min, max } }
    }

    /// A cone of half-angle `max_swing` about the bone `axis`, with twist in `[min_twist, max_twist]`.
    pub fn cone(reference: Quat, axis: Vec3, max_swing: f32, min_twist: f32, max_twist: f32) -> Self {
        JointLimit { reference, shape: LimitShape::Cone { axis, max_swing, min_twist, max_twist } }
    }

    /// True when every number of the limit is finite.
    pub fn is_finite(&self) -> bool {
        let numbers_finite = match self.shape {
            LimitShape::Hinge { axis, min, max } => axis.is_finite() && min.is_finite() && max.is_finite(),
            LimitShape::Cone { axis, max_swing, min_twist, max_twist } => {
                axis.is_finite() && max_swing.is_finite() && min_twist.is_finite() && max_twist.is_finite()
            }
        };
        self.reference.is_finite() && numbers_finite
    }

    /// How far `local` lies outside the limit, in radians: the larger of the swing angle past
    /// its maximum and the twist angle past the nearer end of its range; `0` inside.
    pub fn violation(&self, local: Quat) -> f32 {
        if !local.is_finite() || local.length_squared() < 1e-12 {
            return PI;
        }
        let parts = self.offset_parts(local);
        (parts.swing_angle - parts.max_swing).max(twist_excess(parts.twist_angle, parts.lo, parts.hi).0).max(0.0)
    }

    /// `local` brought inside the limit: the swing shortened along its own direction to the
    /// maximum, the twist clamped to the nearer end of its range. Inside: returned unchanged.
    pub fn clamp(&self, local: Quat) -> Quat {
        if !local.is_finite() || local.length_squared() < 1e-12 {
            return self.reference.normalize();
        }
        let parts = self.offset_parts(local);
        let (excess, nearest) = twist_excess(parts.twist_angle, parts.lo, parts.hi);
        let swing_over = parts.swing_angle > parts.max_swing + EDGE;
        let twist_over = excess > EDGE;
        if !swing_over && !twist_over {
            return local;
        }
        let twist = Quat::from_axis_angle(parts.axis, if twist_over { nearest } else { parts.twist_angle });
        let swing =
            if swing_over { Quat::from_axis_angle(parts.swing_axis, parts.max_swing.max(0.0)) } else { parts.swing };
        (self.reference * swing * twist).normalize()
    }

    /// Axis (normalized, +Y when zero), largest swing, and the sorted twist range.
    fn parts(&self) -> (Vec3, f32, f32, f32) {
        let (axis, swing, a, b) = match self.shape {
            LimitShape::Hinge { axis, min, max } => (axis, 0.0, min, max),
            LimitShape::Cone { axis, max_swing, min_twist, max_twist } => (axis, max_swing, min_twist, max_twist),
        };
        (axis.normalize_or(Vec3::Y), swing, a.min(b), a.max(b))
    }

    fn offset_parts(&self, local: Quat) -> OffsetParts {
        let (axis, max_swing, lo, hi) = self.parts();
        let offset = (self.reference.normalize().inverse() * local.normalize()).normalize();
        let (swing, twist) = swing_twist(offset, axis);
        let twist_angle = signed_angle_about(twist, axis);
        // Swing angle and axis from the swing quaternion (its axis is perpendicular to `axis`).
        let (v, w) = (swing.xyz(), swing.w);
        let sin_half = v.length();
        let swing_angle = 2.0 * sin_half.atan2(w.abs());
        let swing_axis = if sin_half > 1e-12 { v / sin_half * w.signum() } else { axis.any_orthonormal_vector() };
        OffsetParts { axis, max_swing, lo, hi, swing, swing_axis, swing_angle, twist_angle }
    }
}

struct OffsetParts {
    axis: Vec3,
    max_swing: f32,
    lo: f32,
    hi: f32,
    swing: Quat,
    swing_axis: Vec3,
    swing_angle: f32,
    twist_angle: f32,
}

/// Splits `rotation` into `(swing, twist)` with `rotation = swing · twist`, where `twist` turns
/// about the unit `axis` and `swing` turns about an axis perpendicular to it. At a swing of
/// exactly 180° the twist is undefined and taken as identity.
pub fn swing_twist(rotation: Quat, axis: Vec3) -> (Quat, Quat) {
    let along = axis * rotation.xyz().dot(axis);
    let twist = Quat::from_xyzw(along.x, along.y, along.z, rotation.w);
    let length = twist.length();
    let twist = if length > 1e-9 { twist / length } else { Quat::IDENTITY };
    ((rotation * twist.conjugate()).normalize(), twist)
}

/// The signed angle, in `[−π, π]`, of a rotation about the unit `axis` (a twist about `axis`).
pub fn signed_angle_about(twist: Quat, axis: Vec3) -> f32 {
    let (s, w) = (twist.xyz().dot(axis), twist.w);
    let (s, w) = if w < 0.0 { (-s, -w) } else { (s, w) };
    2.0 * s.atan2(w)
}

/// The shortest-arc rotation taking unit vector `from` onto unit vector `to`, accurate at every
/// angle. (`Quat::from_rotation_arc` returns identity below about 7e-4 rad and loses precision
/// near 180°; here an obtuse arc is built as two acute ones through a perpendicular vector.)
/// Opposite vectors turn 180° about an arbitrary perpendicular axis.
pub fn shortest_arc(from: Vec3, to: Vec3) -> Quat {
    let acute = |a: Vec3, b: Vec3| {
        let c = a.cross(b);
        Quat::from_xyzw(c.x, c.y, c.z, 1.0 + a.dot(b)).normalize()
    };
    if from.dot(to) >= 0.0 {
        return acute(from, to);
    }
    let middle = to.reject_from_normalized(from).try_normalize().unwrap_or_else(|| from.any_orthonormal_vector());
    (acute(middle, to) * acute(from, middle)).normalize()
}

/// How far `angle` lies outside `[lo, hi]` going round the circle, and the nearer end.
fn twist_excess(angle: f32, lo: f32, hi: f32) -> (f32, f32) {
    if (lo..=hi).contains(&angle) || hi - lo >= 2.0 * PI {
        return (0.0, angle);
    }
    let to_lo = wrap_angle(lo - angle).abs();
    let to_hi = wrap_angle(angle - hi).abs();
    if to_lo <= to_hi { (to_lo, lo) } else { (to_hi, hi) }
}

/// `angle` wrapped into `(−π, π]`.
fn wrap_angle(angle: f32) -> f32 {
    let wrapped = (angle + PI).rem_euclid(2.0 * PI) - PI;
    if wrapped <= -PI { wrapped + 2.0 * PI } else { wrapped }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_arc_is_exact_at_tiny_and_near_half_turn_angles() {
        for angle in [1e-6f32, 1e-4, 0.3, 2.0, PI - 1e-4, PI - 1e-6, PI] {
            let from = Vec3::new(0.3, -0.5, 0.8).normalize();
            let axis = from.any_orthonormal_vector();
            let to = Quat::from_axis_angle(axis, angle) * from;
            let arc = shortest_arc(from, to);
            assert!((arc * from - to).length() < 5e-7, "angle {angle}: off by {}", (arc * from - to).length());
            if (1e-4..=PI - 1e-4).contains(&angle) {
                assert!((arc.xyz().normalize() - axis).length() < 1e-3, "angle {angle}: axis {}", arc.xyz());
            }
        }
    }

    #[test]
    fn wrap_and_excess_go_round_the_circle() {
        assert!((wrap_angle(3.0 * PI / 2.0) + PI / 2.0).abs() < 1e-6);
        // Range [-0.1, 2.0]; -3.0 is 1.28 rad past 2.0 going round, 2.9 short of -0.1.
        let (excess, nearest) = twist_excess(-3.0, -0.1, 2.0);
        assert!((excess - (2.0 * PI - 5.0)).abs() < 1e-5 && nearest == 2.0);
    }
}
