//! Critically damped springs (scalar, vector, rotation) and [`turn_towards`].
//!
//! **Method.** A critically damped spring obeys `x'' = −2y·x' − y²·(x − g)` for a goal `g` held
//! still over the step. Its exact solution over a step `dt` is
//! `x(dt) = g + e^{−y·dt}·(j₀ + j₁·dt)`, `v(dt) = e^{−y·dt}·(v − j₁·y·dt)` with `j₀ = x − g` and
//! `j₁ = v + j₀·y`. Because the step is the exact solution, not an integration step, the motion
//! is the same at any frame rate (up to float rounding). The rotation spring runs the same
//! equation on the rotation offset `log(value · goal⁻¹)` (a scaled axis, shortest way round).
//!
//! **Half-life.** `half_life` is the time a spring starting at rest needs to cover half the
//! distance to a still goal: `y = HALF_LIFE_DAMPING / half_life`, with `HALF_LIFE_DAMPING` the
//! root of `(1 + u)·e^{−u} = ½` (≈ 1.6783). (Some texts use `y = 2·ln 2 / half_life`, which
//! reaches halfway at about 1.21 half-lives.)
//!
//! **Invariants.**
//! - From rest the value approaches a still goal monotonically: no overshoot. (A spring already
//!   moving fast toward its goal can pass it once, as any critically damped system can.)
//! - `dt ≤ 0` changes nothing. `half_life ≤ 0` (or a step so long that the remainder is below
//!   float precision) snaps to the goal with zero velocity.
//! - A non-finite goal, `dt` or NaN `half_life` is ignored: the state is kept as it was. A state
//!   that is (or would become) non-finite, e.g. after overflow with huge finite inputs, snaps
//!   to the goal. So the state never holds NaN or infinity once a finite goal has been given.

use glam::{Quat, Vec2, Vec3};

/// `u` solving `(1 + u)·e^{−u} = ½`: the damping of a spring whose half-life is one second.
pub const HALF_LIFE_DAMPING: f32 = 1.678_347;

/// Beyond this `y·dt` the remaining offset (`< e^{−60}` of it) is below float precision: snap.
const SNAP_DECAY: f32 = 60.0;

/// Types a spring can drive: values that add, subtract and scale by `f32`.
pub trait SpringValue:
    Copy + core::ops::Add<Output = Self> + core::ops::Sub<Output = Self> + core::ops::Mul<f32, Output = Self>
{
    /// The zero value (rest velocity).
    const ZERO: Self;
    /// True when every component is finite.
    fn is_finite_value(self) -> bool;
}

impl SpringValue for f32 {
    const ZERO: Self = 0.0;
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }
}

impl SpringValue for Vec2 {
    const ZERO: Self = Vec2::ZERO;
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }
}

impl SpringValue for Vec3 {
    const ZERO: Self = Vec3::ZERO;
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }
}

/// The spring's damping `y` for a half-life, or `None` when the spring should snap.
fn damping(half_life: f32, dt: f32) -> Option<f32> {
    if half_life <= 0.0 {
        return None;
    }
    let y = HALF_LIFE_DAMPING / half_life;
    if !y.is_finite() || y * dt > SNAP_DECAY { None } else { Some(y) }
}

/// Critically damped spring with a half-life: exact solution, frame-rate independent.
///
/// ```
/// use ik_core::spring::Spring;
/// let mut speed = Spring::new(0.0f32);
/// for _ in 0..60 {
///     speed.update(2.0, 0.25, 1.0 / 60.0);
/// }
/// assert!(speed.value > 1.9 && speed.value <= 2.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Spring<T> {
    /// Current value.
    pub value: T,
    /// Current velocity (value units per second).
    pub velocity: T,
}

impl<T: SpringValue> Spring<T> {
    /// A spring at rest at `value`.
    pub fn new(value: T) -> Self {
        Spring { value, velocity: T::ZERO }
    }

    /// Puts the spring at rest on `value`.
    pub fn snap(&mut self, value: T) {
        self.value = value;
        self.velocity = T::ZERO;
    }

    /// Advances the spring by `dt` seconds toward `goal`; returns the new value.
    ///
    /// `half_life`: seconds to cover half the distance from rest (≤ 0 snaps). See the module
    /// documentation for what non-finite or degenerate inputs do.
    pub fn update(&mut self, goal: T, half_life: f32, dt: f32) -> T {
        if !goal.is_finite_value() || !dt.is_finite() || half_life.is_nan() || dt <= 0.0 {
            return self.value;
        }
        if !self.value.is_finite_value() || !self.velocity.is_finite_value() {
            self.snap(goal);
            return self.value;
        }
        let Some(y) = damping(half_life, dt) else {
            self.snap(goal);
            return self.value;
        };
        let j0 = self.value - goal;
        let j1 = self.velocity + j0 * y;
        let e = (-y * dt).exp();
        let value = (j0 + j1 * dt) * e + goal;
        let velocity = (self.velocity - j1 * (y * dt)) * e;
        if value.is_finite_value() && velocity.is_finite_value() {
            self.value = value;
            self.velocity = velocity;
        } else {
            self.snap(goal);
        }
        self.value
    }
}

/// Rotation spring (velocity = angular velocity as scaled axis, rad/s).
///
/// The value chases the goal the shortest way round (never more than half a turn). The
/// velocity is expressed in the same space as the rotations (it is applied on the left:
/// `value ≈ exp(velocity·dt) · value` over a short step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuatSpring {
    /// Current rotation (unit quaternion).
    pub value: Quat,
    /// Current angular velocity, scaled axis (axis × rad/s).
    pub velocity: Vec3,
}

impl Default for QuatSpring {
    fn default() -> Self {
        Self::new(Quat::IDENTITY)
    }
}

impl QuatSpring {
    /// A rotation spring at rest at `value` (normalized; a non-finite or zero quaternion gives
    /// the identity).
    pub fn new(value: Quat) -> Self {
        QuatSpring { value: unit_or_identity(value), velocity: Vec3::ZERO }
    }

    /// Puts the spring at rest on `value`.
    pub fn snap(&mut self, value: Quat) {
        self.value = value;
        self.velocity = Vec3::ZERO;
    }

    /// Advances the spring by `dt` seconds toward `goal` (normalized here); returns the new value.
    /// Same rules as [`Spring::update`]; a zero-length goal counts as non-finite and is ignored.
    pub fn update(&mut self, goal: Quat, half_life: f32, dt: f32) -> Quat {
        let Some(goal) = goal.try_normalize_finite() else {
            return self.value;
        };
        if !dt.is_finite() || half_life.is_nan() || dt <= 0.0 {
            return self.value;
        }
        let Some(value) = self.value.try_normalize_finite() else {
            self.snap(goal);
            return self.value;
        };
        if !self.velocity.is_finite() {
            self.snap(goal);
            return self.value;
        }
        let Some(y) = damping(half_life, dt) else {
            self.snap(goal);
            return self.value;
        };
        let j0 = quat_log_shortest(value * goal.inverse());
        let j1 = self.velocity + j0 * y;
        let e = (-y * dt).exp();
        let offset = (j0 + j1 * dt) * e;
        let new_value = (quat_exp(offset) * goal).normalize();
        let velocity = (self.velocity - j1 * (y * dt)) * e;
        if new_value.is_finite() && velocity.is_finite() {
            self.value = new_value;
            self.velocity = velocity;
        } else {
            self.snap(goal);
        }
        self.value
    }
}

/// Normalizing that refuses zero-length and non-finite quaternions.
trait TryNormalizeFinite: Sized {
    fn try_normalize_finite(self) -> Option<Self>;
}

impl TryNormalizeFinite for Quat {
    fn try_normalize_finite(self) -> Option<Quat> {
        let len = self.length();
        if !self.is_finite() || !len.is_finite() || len < 1e-12 {
            return None;
        }
        let q = self * (1.0 / len);
        q.is_finite().then_some(q)
    }
}

fn unit_or_identity(q: Quat) -> Quat {
    q.try_normalize_finite().unwrap_or(Quat::IDENTITY)
}

/// The rotation of a unit quaternion as a scaled axis (axis × angle), taking the shortest way
/// (angle in `[0, π]`).
pub fn quat_log_shortest(q: Quat) -> Vec3 {
    let q = if q.w < 0.0 { -q } else { q };
    let v = Vec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < 1e-7 {
        // angle ≈ 2·s/w and axis = v/s, so axis·angle ≈ 2·v/w (w ≈ 1 here).
        return v * (2.0 / q.w.max(1e-7));
    }
    v * (2.0 * s.atan2(q.w) / s)
}

/// The unit quaternion rotating by a scaled axis (axis × angle).
pub fn quat_exp(scaled_axis: Vec3) -> Quat {
    let angle = scaled_axis.length();
    if angle < 1e-7 {
        let h = scaled_axis * 0.5;
        return Quat::from_xyzw(h.x, h.y, h.z, 1.0).normalize();
    }
    let (s, c) = (0.5 * angle).sin_cos();
    let v = scaled_axis * (s / angle);
    Quat::from_xyzw(v.x, v.y, v.z, c)
}

/// The rotation turning direction `from` toward `to` by at most `max_angle` radians.
///
/// Identity when either direction has zero length or is not finite, when they already agree
/// (within 1e-6 rad), or when `max_angle` is NaN or ≤ 0. Opposite directions turn about an axis
/// at right angles to `from`: the vertical (+Y, made perpendicular to `from`) where possible,
/// so a character turned fully around turns about its up axis.
pub fn turn_towards(from: Vec3, to: Vec3, max_angle: f32) -> Quat {
    let (Some(a), Some(b)) = (finite_dir(from), finite_dir(to)) else {
        return Quat::IDENTITY;
    };
    if max_angle.is_nan() || max_angle <= 0.0 {
        return Quat::IDENTITY;
    }
    let cross = a.cross(b);
    let angle = cross.length().atan2(a.dot(b));
    if angle < 1e-6 {
        return Quat::IDENTITY;
    }
    let axis = match cross.try_normalize() {
        Some(axis) if cross.length() > 1e-6 => axis,
        _ => perpendicular_axis(a),
    };
    Quat::from_axis_angle(axis, angle.min(max_angle))
}

/// A unit axis at right angles to the unit direction `a`, preferring the vertical.
pub(crate) fn perpendicular_axis(a: Vec3) -> Vec3 {
    let up = Vec3::Y - a * a.y;
    match up.try_normalize() {
        Some(axis) if up.length() > 1e-3 => axis,
        _ => a.any_orthonormal_vector(),
    }
}

/// `v` normalized, or `None` when it is zero-length or not finite.
pub(crate) fn finite_dir(v: Vec3) -> Option<Vec3> {
    if !v.is_finite() {
        return None;
    }
    // Rescale first so huge finite vectors do not overflow when squared.
    let m = v.abs().max_element();
    if m <= 0.0 || !m.is_finite() {
        return None;
    }
    (v / m).try_normalize()
}
