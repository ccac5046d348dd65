//! Look-at spread: turn a chain of joints (spine, chest, neck, head; root first) so the last
//! joint faces a target, each joint taking a share of the turn up to its own limit.
//!
//! **Method.** The turn is split in angle space about one common model-space axis `a`: the axis
//! and total angle `Θ` of the shortest rotation from the head's forward direction to the
//! direction from the eye point (the last joint, plus an optional offset) to the target. Joint
//! `i` turns by `θᵢ = min(sᵢ·λ, Lᵢ)` (share `sᵢ`, limit `Lᵢ`) with the single level `λ` chosen so
//! that `Σθᵢ = Θ`: this is exactly "split by share, clamp, pass what a clamped joint cannot take
//! to the joints still free, by their shares". Rotations about one axis add, so the head turns by
//! exactly `Σθᵢ` whatever the pivots are; the total is capped at `ΣLᵢ`.
//! A turn that looks down is shared differently: heads and necks look down, spines barely bend.
//! With `d = max(0, a · (up × forward))` (1 for a pure downward pitch, 0 for a turn about the
//! vertical or one that looks up), joint `i`'s share is `(1 − d)·sᵢ + d·dᵢ`, `dᵢ` its
//! [`LookAtJoint::down_share`].
//! Turning the lower joints carries the eye along a circle about their pivots, which changes the
//! direction to the target. The solve therefore repeats (fixed point): move the eye by the
//! current split, re-measure axis and `Θ` from there, re-split — at most
//! [`LookAtJob::iterations`] times, stopping once an iteration moves the eye by less than
//! [`CONVERGED_ANGLE`] as seen from the target. The error shrinks by roughly `r/D` per iteration
//! (`r`: how far the eye swings about the pivots, `D`: distance to the target). Measured on a
//! human spine with eyes 10 cm ahead of the head joint: ×0.05 per iteration for a target 2 m
//! away (3–4 iterations to converge, ~2e-6 rad left), ×0.27 at 0.5 m (1.4e-4 rad left after
//! the default cap of 6). The remaining error is reported as [`LookAtSolution::residual`].
//!
//! **Inputs** ([`LookAtJob`]): per joint a [`LookAtJoint`] (share, limit) and its model
//! transform; the last joint's local forward axis ([`local_forward_axis`]), an eye offset, the
//! target (model space), a weight. Smooth the target first with [`LookAtTarget`].
//!
//! **Outputs**: one local correction per joint in a caller-owned slice (`local' = local · Cᵢ`),
//! and a [`LookAtSolution`] (angle turned, clamped, axis, residual). Nothing is allocated.
//!
//! **Invariants.** Each correction is a rotation by `weight·θᵢ ≤ Lᵢ` about `a` seen in the
//! joint's own frame; joints never exceed their limits. A target at the eye, or a weight of 0,
//! gives exact identity corrections. A target straight behind turns about the vertical.
//! Bad input returns an [`IkError`] with identity corrections written.

use glam::{Quat, Vec3};

use crate::spring::{Spring, finite_dir, perpendicular_axis};
use crate::{IkError, Xform, model_turn_to_local_correction};

/// Default cap on the fixed-point iterations of [`LookAtJob::run`].
pub const DEFAULT_ITERATIONS: u32 = 6;

/// [`LookAtJob::run`] stops iterating once an iteration moves the eye by less than this angle
/// (radians) as seen from the target: the aim would change by less than that.
pub const CONVERGED_ANGLE: f32 = 1e-5;

/// One joint of a look-at chain.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct LookAtJoint {
    /// This joint's share of the turn, ≥ 0 (shares are relative: only their ratios among the
    /// joints still below their limits matter). Negative counts as 0.
    pub share: f32,
    /// The most this joint may turn, radians, ≥ 0. Negative counts as 0.
    pub limit: f32,
    /// This joint's share of a turn that looks down (relative, like `share`; blended with it by
    /// how much of the turn is a downward pitch). Negative counts as 0.
    pub down_share: f32,
    /// The most this joint may turn on a turn that looks down, radians (blended with `limit`
    /// like the shares). Negative counts as 0.
    pub down_limit: f32,
}

impl LookAtJoint {
    /// A joint from a share and a limit in degrees, taking the same share of a downward turn
    /// and the same limit.
    pub fn from_degrees(share: f32, limit_degrees: f32) -> Self {
        let limit = limit_degrees.to_radians();
        LookAtJoint { share, limit, down_share: share, down_limit: limit }
    }

    /// The same joint with `down_share` as its share of a turn that looks down.
    ///
    /// ```
    /// use ik_core::look_at::LookAtJoint;
    ///
    /// let chest = LookAtJoint::from_degrees(0.2, 20.0).with_down_share(0.03);
    /// assert_eq!((chest.share, chest.down_share), (0.2, 0.03));
    /// ```
    pub fn with_down_share(self, down_share: f32) -> Self {
        LookAtJoint { down_share, ..self }
    }

    /// The same joint turning at most `limit_degrees` on a turn that looks down.
    ///
    /// ```
    /// use ik_core::look_at::LookAtJoint;
    ///
    /// let spine = LookAtJoint::from_degrees(0.15, 15.0).with_down_limit_degrees(4.0);
    /// assert!((spine.down_limit.to_degrees() - 4.0).abs() < 1e-4);
    /// ```
    pub fn with_down_limit_degrees(self, limit_degrees: f32) -> Self {
        LookAtJoint { down_limit: limit_degrees.to_radians(), ..self }
    }
}

/// Scales the joints' limits so they add up to `total` radians (their ratios kept; the limits
/// on a downward turn by the same factor): a spread
/// that may turn at most `total` in all. Joints with no limit share `total` evenly when every
/// limit is 0; a non-finite or negative `total` counts as 0.
///
/// ```
/// use ik_core::look_at::{scale_limits, spine_chest_neck_head};
///
/// let mut spread = spine_chest_neck_head(); // 15° + 20° + 35° + 50° = 120°
/// scale_limits(&mut spread, 70f32.to_radians());
/// let total: f32 = spread.iter().map(|j| j.limit).sum();
/// assert!((total.to_degrees() - 70.0).abs() < 1e-3);
/// assert!((spread[3].limit.to_degrees() - 50.0 * 70.0 / 120.0).abs() < 1e-3);
/// ```
pub fn scale_limits(joints: &mut [LookAtJoint], total: f32) {
    let total = if total.is_finite() { total.max(0.0) } else { 0.0 };
    let sum: f32 = joints.iter().map(|j| j.limit.max(0.0)).sum();
    let even = total / joints.len().max(1) as f32;
    for joint in joints.iter_mut() {
        joint.limit = if sum > 0.0 { joint.limit.max(0.0) * total / sum } else { even };
        joint.down_limit = if sum > 0.0 { joint.down_limit.max(0.0) * total / sum } else { even };
    }
}

/// How much of a look-at is wanted for a target seen at `to_target` from the eye, given the
/// character's `forward` (same space): 1 while the target is within `field_of_view` radians of
/// forward, easing (smoothstep) to 0 at `field_of_view + fade` — so a head turns to what is in
/// front and lets go, smoothly, of what goes behind. Degenerate directions give 1; `fade` ≤ 0
/// switches at the edge.
///
/// ```
/// use glam::Vec3;
/// use ik_core::look_at::field_of_view_weight;
///
/// let (fov, fade) = (100f32.to_radians(), 30f32.to_radians());
/// assert_eq!(field_of_view_weight(Vec3::Z, Vec3::new(1.0, 0.2, 1.0), fov, fade), 1.0);
/// assert_eq!(field_of_view_weight(Vec3::Z, -Vec3::Z, fov, fade), 0.0, "straight behind");
/// let edge = field_of_view_weight(Vec3::Z, Vec3::new(1.0, 0.0, -0.364), fov, fade); // 110°
/// assert!(edge > 0.0 && edge < 1.0);
/// ```
pub fn field_of_view_weight(forward: Vec3, to_target: Vec3, field_of_view: f32, fade: f32) -> f32 {
    let (Some(forward), Some(to_target)) = (forward.try_normalize(), to_target.try_normalize()) else {
        return 1.0;
    };
    if !(field_of_view.is_finite() && fade.is_finite()) {
        return 1.0;
    }
    let angle = forward.dot(to_target).clamp(-1.0, 1.0).acos();
    if angle <= field_of_view {
        return 1.0;
    }
    if fade <= 0.0 || angle >= field_of_view + fade {
        return 0.0;
    }
    let t = 1.0 - (angle - field_of_view) / fade;
    t * t * (3.0 - 2.0 * t)
}

/// [`spine_chest_neck_head`] for a rig's look chain, root first: its top spine bones (at most
/// two: the spine's and the chest's entries; one bone takes the chest's), the neck's entry if
/// it has a neck, the head's. Each bone takes its role's entry; on a rig without a neck the
/// head bone is neck and head in one and takes both entries (shares and limits added), so the
/// spine turns no more of a look down than on a rig with a neck.
///
/// ```
/// use ik_core::look_at::{humanoid_spread, spine_chest_neck_head};
///
/// let [spine, chest, neck, head] = spine_chest_neck_head();
/// assert_eq!(humanoid_spread(3, true), vec![spine, chest, neck, head]);
/// assert_eq!(humanoid_spread(1, true), vec![chest, neck, head]);
/// let neckless = humanoid_spread(2, false);
/// assert_eq!(&neckless[..2], &[spine, chest]);
/// assert!((neckless[2].limit - (neck.limit + head.limit)).abs() < 1e-6);
/// assert!((neckless[2].down_share - (neck.down_share + head.down_share)).abs() < 1e-6);
/// ```
pub fn humanoid_spread(spine_bones: usize, neck: bool) -> Vec<LookAtJoint> {
    let [spine, chest, neck_joint, head] = spine_chest_neck_head();
    let spine_part: &[LookAtJoint] = match spine_bones {
        0 => &[],
        1 => &[chest],
        _ => &[spine, chest],
    };
    let mut out = spine_part.to_vec();
    if neck {
        out.extend([neck_joint, head]);
    } else {
        out.push(LookAtJoint {
            share: neck_joint.share + head.share,
            limit: neck_joint.limit + head.limit,
            down_share: neck_joint.down_share + head.down_share,
            down_limit: neck_joint.down_limit + head.down_limit,
        });
    }
    out
}

/// The lesson's spread for spine, chest, neck and head: shares 15/20/25/40 %, limits
/// 15°/20°/35°/50° (120° in all); of a turn that looks down, 2/3/35/60 %, the spine and chest
/// turning at most 4° and 6° (a person looks down with the head and neck: the spine takes 5 %
/// of it, and no more than 10° once the neck and head are at their limits).
pub fn spine_chest_neck_head() -> [LookAtJoint; 4] {
    [
        LookAtJoint::from_degrees(0.15, 15.0).with_down_share(0.02).with_down_limit_degrees(4.0),
        LookAtJoint::from_degrees(0.20, 20.0).with_down_share(0.03).with_down_limit_degrees(6.0),
        LookAtJoint::from_degrees(0.25, 35.0).with_down_share(0.35),
        LookAtJoint::from_degrees(0.40, 50.0).with_down_share(0.60),
    ]
}

/// A joint's forward axis in its own local frame, from its rest model rotation and the
/// character's model-space forward (+Z for our characters): `R⁻¹ · forward`, normalized.
/// Work it out once from the rest pose; skeletons point their bones differently.
/// Returns `model_forward` normalized (or +Z) if the inputs are degenerate.
pub fn local_forward_axis(rest_model_rotation: Quat, model_forward: Vec3) -> Vec3 {
    let fwd = finite_dir(model_forward).unwrap_or(Vec3::Z);
    let r = rest_model_rotation;
    if !r.is_finite() || r.length_squared() < 1e-12 {
        return fwd;
    }
    finite_dir(r.normalize().inverse() * fwd).unwrap_or(fwd)
}

/// Splits a turn of `angle` radians over `joints`: `angles[i] = min(sᵢ·λ, Lᵢ)` with `λ` such
/// that the angles add up to `angle`, or every joint with a share at its limit when `angle`
/// exceeds their sum. Returns `(total, clamped)`. `angles` must be as long as `joints`
/// (extra entries on either side are ignored). Joints with no share take nothing.
pub fn spread_turn(angle: f32, joints: &[LookAtJoint], angles: &mut [f32]) -> (f32, bool) {
    let level = spread_level(angle, joints, 0.0);
    let mut total = 0.0;
    for (joint, out) in joints.iter().zip(angles.iter_mut()) {
        *out = joint_angle(joint, level, 0.0);
        total += *out;
    }
    (total, level.is_infinite())
}

/// The level `λ` of [`spread_turn`]: `Σ min(sᵢ·λ, Lᵢ) = angle`; infinite when the limits cannot
/// take it all. Water-filling without scratch memory: the set of clamped joints only grows, so
/// at most `n + 1` passes. `down` is the downward share of the turn ([`share_of`]).
fn spread_level(angle: f32, joints: &[LookAtJoint], down: f32) -> f32 {
    let angle = if angle.is_finite() { angle.max(0.0) } else { 0.0 };
    if angle == 0.0 {
        return 0.0;
    }
    let mut level = 0.0f32;
    for _ in 0..=joints.len() {
        let (mut clamped_sum, mut free_share) = (0.0f32, 0.0f32);
        for j in joints {
            let (s, l) = (share_of(j, down), limit_of(j, down));
            if s <= 0.0 {
                continue;
            }
            if s * level >= l {
                clamped_sum += l;
            } else {
                free_share += s;
            }
        }
        let rest = angle - clamped_sum;
        if free_share <= 0.0 {
            return if rest > 0.0 { f32::INFINITY } else { level };
        }
        let next = (rest / free_share).max(0.0);
        if !next.is_finite() {
            return f32::INFINITY;
        }
        if next <= level {
            return level;
        }
        level = next;
    }
    level
}

fn joint_angle(joint: &LookAtJoint, level: f32, down: f32) -> f32 {
    let (s, l) = (share_of(joint, down), limit_of(joint, down));
    if s <= 0.0 || level <= 0.0 { 0.0 } else { (s * level).min(l) }
}

/// A joint's share of a turn whose downward part is `down` in `[0, 1]`.
fn share_of(joint: &LookAtJoint, down: f32) -> f32 {
    (1.0 - down) * clean(joint.share) + down * clean(joint.down_share)
}

/// A joint's limit on a turn whose downward part is `down` in `[0, 1]` (an infinite limit
/// stays infinite).
fn limit_of(joint: &LookAtJoint, down: f32) -> f32 {
    match down {
        d if d <= 0.0 => clean(joint.limit),
        d if d >= 1.0 => clean(joint.down_limit),
        d => (1.0 - d) * clean(joint.limit) + d * clean(joint.down_limit),
    }
}

/// How much of a turn about `axis` looks down: `max(0, axis · (up × forward))`; 0 when the
/// forward direction is (near) vertical.
fn downward_part(axis: Vec3, up: Vec3, forward: Vec3) -> f32 {
    let Some(down_axis) = finite_dir(up.cross(forward)) else { return 0.0 };
    axis.dot(down_axis).clamp(0.0, 1.0)
}

/// Shares and limits: negative and NaN count as 0, +∞ stays.
fn clean(x: f32) -> f32 {
    if x > 0.0 { x } else { 0.0 }
}

/// Inputs of one look-at spread, all in model space.
#[derive(Clone, Copy, Debug)]
pub struct LookAtJob<'a> {
    /// Share and limit per joint, root first (e.g. [`spine_chest_neck_head`]).
    pub joints: &'a [LookAtJoint],
    /// Model transform of each joint, root first; each joint must be a descendant of the one
    /// before it (bones in between are allowed and simply follow).
    pub model: &'a [Xform],
    /// The last joint's forward axis in its own local frame ([`local_forward_axis`]).
    pub forward: Vec3,
    /// The eye point in the last joint's local frame (zero: the joint itself).
    pub eye_offset: Vec3,
    /// What to look at.
    pub target: Vec3,
    /// The character's up direction (+Y by default): what a turn that looks down is told by.
    pub up: Vec3,
    /// 0 keeps the input pose, 1 is the full spread; in between scales every joint's angle.
    pub weight: f32,
    /// Most fixed-point iterations accounting for the eye moving with the lower joints (≥ 1;
    /// default [`DEFAULT_ITERATIONS`]); the solve stops earlier once converged
    /// ([`CONVERGED_ANGLE`]).
    pub iterations: u32,
}

impl<'a> LookAtJob<'a> {
    /// A job with weight 1, no eye offset, up +Y and the default iteration count.
    pub fn new(joints: &'a [LookAtJoint], model: &'a [Xform], forward: Vec3, target: Vec3) -> Self {
        LookAtJob {
            joints,
            model,
            forward,
            eye_offset: Vec3::ZERO,
            target,
            up: Vec3::Y,
            weight: 1.0,
            iterations: DEFAULT_ITERATIONS,
        }
    }
}

/// Result of a look-at spread (the corrections go to the caller's slice).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LookAtSolution {
    /// Total angle the last joint turned, radians (weight applied).
    pub turned: f32,
    /// True when the target needed more than the joints' limits allow.
    pub clamped: bool,
    /// The common model-space turn axis (unit; +Y when nothing turned).
    pub axis: Vec3,
    /// How much of the turn looks down, `[0, 1]`: the share its shares and limits were blended
    /// by ([`LookAtJoint::down_share`], [`LookAtJoint::down_limit`]).
    pub down: f32,
    /// Angle left between the turned forward direction and the direction from the turned eye
    /// to the target, at full weight (includes what the limits refused).
    pub residual: f32,
    /// Fixed-point iterations run (≤ [`LookAtJob::iterations`]; fewer once converged).
    pub iterations: u32,
}

impl LookAtSolution {
    const NONE: LookAtSolution =
        LookAtSolution { turned: 0.0, clamped: false, axis: Vec3::Y, down: 0.0, residual: 0.0, iterations: 0 };
}

impl LookAtJob<'_> {
    /// Checks lengths and finiteness of every input.
    fn validate(&self, corrections: &[Quat]) -> Result<(), IkError> {
        let n = self.joints.len();
        if n == 0 {
            return Err(IkError::ChainTooShort { needed: 1, got: 0 });
        }
        if self.model.len() != n {
            return Err(IkError::LengthMismatch { expected: n, got: self.model.len() });
        }
        if corrections.len() != n {
            return Err(IkError::LengthMismatch { expected: n, got: corrections.len() });
        }
        let joints_finite = self
            .joints
            .iter()
            .all(|j| !j.share.is_nan() && !j.limit.is_nan() && !j.down_share.is_nan() && !j.down_limit.is_nan());
        let model_ok = self.model.iter().all(|m| m.is_finite() && m.rotation.length_squared() > 1e-12);
        if !joints_finite
            || !model_ok
            || !self.forward.is_finite()
            || !self.eye_offset.is_finite()
            || !self.target.is_finite()
            || !self.up.is_finite()
            || !self.weight.is_finite()
        {
            return Err(IkError::NonFiniteInput);
        }
        if finite_dir(self.forward).is_none() {
            return Err(IkError::ZeroLengthBone { bone: n - 1 });
        }
        Ok(())
    }

    /// Runs the spread, writing one local correction per joint into `corrections` (same length
    /// as `joints`); apply as `local' = local · corrections[i]`.
    ///
    /// Errors (identity corrections written): empty chain, length mismatch, non-finite input or
    /// a zero rotation (`NonFiniteInput`), zero forward axis (`ZeroLengthBone` on the last joint).
    pub fn run(&self, corrections: &mut [Quat]) -> Result<LookAtSolution, IkError> {
        corrections.iter_mut().for_each(|c| *c = Quat::IDENTITY);
        self.validate(corrections)?;
        let n = self.joints.len();
        let head = &self.model[n - 1];
        let Some(forward) = finite_dir(head.rotation.normalize() * self.forward) else {
            return Err(IkError::ZeroLengthBone { bone: n - 1 });
        };
        let eye = head.transform_point(self.eye_offset);
        if !eye.is_finite() {
            return Err(IkError::NonFiniteInput);
        }
        let mut solved: Option<(Vec3, f32, f32)> = None; // (axis, level, downward part)
        let mut moved_eye = eye;
        let mut iterations = 0;
        for _ in 0..self.iterations.max(1) {
            let Some((axis, wanted)) = turn_to(forward, self.target - moved_eye) else {
                break; // the target sits on the (moved) eye: keep what we have
            };
            if let Some((prev_axis, ..)) = solved
                && axis.dot(prev_axis) < 0.0
            {
                break; // the target crossed behind: keep the previous side instead of flipping
            }
            let down = downward_part(axis, self.up, forward);
            let level = spread_level(wanted, self.joints, down);
            let next_eye = self.turned_eye(eye, axis, level, down);
            let step = next_eye.distance(moved_eye);
            moved_eye = next_eye;
            solved = Some((axis, level, down));
            iterations += 1;
            // Converged: the eye moved less than `CONVERGED_ANGLE` as seen from the target,
            // so another pass would change the aim by less than that.
            if step <= CONVERGED_ANGLE * (self.target - moved_eye).length() {
                break;
            }
        }
        let Some((axis, level, down)) = solved else {
            return Ok(LookAtSolution::NONE);
        };
        let full: f32 = self.joints.iter().map(|j| joint_angle(j, level, down)).sum();
        let weight = self.weight.clamp(0.0, 1.0);
        let mut turned = 0.0;
        for ((joint, model), c) in self.joints.iter().zip(self.model).zip(corrections.iter_mut()) {
            let angle = weight * joint_angle(joint, level, down);
            if angle > 0.0 {
                *c = model_turn_to_local_correction(model.rotation.normalize(), Quat::from_axis_angle(axis, angle));
                turned += angle;
            }
        }
        let residual = match turn_to(Quat::from_axis_angle(axis, full) * forward, self.target - moved_eye) {
            Some((_, r)) => r,
            None => 0.0,
        };
        let solution = LookAtSolution { turned, clamped: level.is_infinite(), axis, down, residual, iterations };
        let finite =
            solution.turned.is_finite() && solution.residual.is_finite() && corrections.iter().all(|c| c.is_finite());
        if !finite {
            corrections.iter_mut().for_each(|c| *c = Quat::IDENTITY);
            return Err(IkError::NonFiniteInput);
        }
        Ok(solution)
    }

    /// Where the eye goes when joint `i` turns by `θᵢ(level)` about `axis` through its pivot,
    /// each joint carrying the ones above it.
    fn turned_eye(&self, eye: Vec3, axis: Vec3, level: f32, down: f32) -> Vec3 {
        let mut pivot = self.model[0].translation;
        let mut sum = 0.0;
        for i in 0..self.joints.len() {
            sum += joint_angle(&self.joints[i], level, down);
            let turn = Quat::from_axis_angle(axis, sum);
            let next = self.model.get(i + 1).map_or(eye, |m| m.translation);
            pivot += turn * (next - self.model[i].translation);
        }
        pivot
    }
}

/// Axis and angle of the shortest turn from unit `forward` to direction `to`; `None` when `to`
/// is (near) zero. Opposite directions turn about the vertical where possible.
fn turn_to(forward: Vec3, to: Vec3) -> Option<(Vec3, f32)> {
    let dir = finite_dir(to)?;
    if to.length() < 1e-6 {
        return None;
    }
    let cross = forward.cross(dir);
    let angle = cross.length().atan2(forward.dot(dir));
    let axis = if cross.length() > 1e-6 { cross.normalize() } else { perpendicular_axis(forward) };
    Some((axis, angle))
}

/// Caller-owned smoothing of the look target: a critically damped spring on its position.
/// Smooth in a space that does not move with the character (world), then convert.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LookAtTarget {
    /// The spring holding the smoothed target.
    pub spring: Spring<Vec3>,
    /// False until the first update, which snaps to the target instead of swinging from zero.
    pub started: bool,
}

impl LookAtTarget {
    /// Moves the smoothed target toward `target` (half-life in seconds, see
    /// [`Spring::update`]); returns the smoothed target. Non-finite targets are ignored.
    pub fn update(&mut self, target: Vec3, half_life: f32, dt: f32) -> Vec3 {
        if !self.started && target.is_finite() {
            self.spring.snap(target);
            self.started = true;
        }
        self.spring.update(target, half_life, dt)
    }

    /// Forgets the smoothed target; the next update snaps.
    pub fn reset(&mut self) {
        *self = LookAtTarget::default();
    }
}
