//! Two-bone IK: an exact, closed-form solve for arms and legs.
//!
//! **Method**: the law of cosines bends the middle joint, the root swings the tip onto the
//! target, then the limb twists about the root→target line toward the pole. **Inputs**
//! ([`TwoBoneJob`]): model-space joints, target, optional pole, `soften`, `weight`. **Outputs**
//! ([`TwoBoneSolution`]): local corrections (`local' = local · correction`), solved positions,
//! `reached`. **Invariants**: bone lengths and twist kept; an out-of-reach target gives a straight
//! limb, never NaN; `weight` 0 is the input pose bit for bit; bad input is an [`IkError`]. The
//! method in full: `docs/solvers.md` in the repository.
//!
//! ```
//! use ik_core::TwoBoneJob;
//! use ik_core::glam::Vec3;
//!
//! // A leg: hip at 1 m, knee a little forward, ankle on the floor; lift the foot forward.
//! let job = TwoBoneJob {
//!     root: Vec3::new(0.0, 1.0, 0.0),
//!     mid: Vec3::new(0.0, 0.5, 0.02),
//!     tip: Vec3::ZERO,
//!     target: Vec3::new(0.0, 0.2, 0.3),
//!     pole: Some(Vec3::new(0.0, 0.5, 1.0)), // the knee bends forward
//!     ..Default::default()
//! };
//! let solution = job.run()?;
//! assert!(solution.reached && (solution.tip - job.target).length() < 1e-4);
//! assert!(solution.mid.z > 0.0);
//! let thigh = |knee: Vec3| (knee - job.root).length();
//! assert!((thigh(solution.mid) - thigh(job.mid)).abs() < 1e-5);
//! # Ok::<(), ik_core::IkError>(())
//! ```

use glam::{Mat3, Quat, Vec3};

use crate::{IkError, Xform};

/// Below this sine of the angle between the pole and the root→target line the pole is ignored.
const POLE_GUARD_SIN: f32 = 0.0175;
/// Below this sine of the angle between the bones the closed-form frame solve is not used (its
/// bend normal `upper × lower` would be too imprecise); the bend + swing + twist steps are.
const FRAME_MIN_SIN: f32 = 0.02;
/// Relative length under which a bone counts as zero length.
const ZERO_LENGTH: f32 = 1e-6;
/// `reached` is set when the solved tip is this close to the target, relative to the limb length.
pub const REACHED_TOLERANCE: f32 = 1e-4;

/// Inputs of one two-bone solve, all in the same (model) space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneJob {
    /// Position of the root joint (shoulder, hip).
    pub root: Vec3,
    /// Position of the middle joint (elbow, knee).
    pub mid: Vec3,
    /// Position of the tip joint (wrist, ankle): the end effector.
    pub tip: Vec3,
    /// Model rotation of the root joint (used to express the correction locally).
    pub root_rotation: Quat,
    /// Model rotation of the middle joint.
    pub mid_rotation: Quat,
    /// Where the tip should go.
    pub target: Vec3,
    /// A point the middle joint should bend toward; `None` keeps the current bend plane.
    pub pole: Option<Vec3>,
    /// Soft extension: the fraction of full reach over which the limb eases into full
    /// extension, in `[0, 1]`. Default 0 (off): reachable targets are hit exactly.
    pub soften: f32,
    /// Blend between the input pose (0) and the full solve (1). Default 1.
    pub weight: f32,
}

impl Default for TwoBoneJob {
    fn default() -> Self {
        TwoBoneJob {
            root: Vec3::ZERO,
            mid: Vec3::ZERO,
            tip: Vec3::ZERO,
            root_rotation: Quat::IDENTITY,
            mid_rotation: Quat::IDENTITY,
            target: Vec3::ZERO,
            pole: None,
            soften: 0.0,
            weight: 1.0,
        }
    }
}

/// Output of a two-bone solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneSolution {
    /// Multiply onto the root joint's local rotation: `local' = local · root_correction`.
    pub root_correction: Quat,
    /// Multiply onto the middle joint's local rotation.
    pub mid_correction: Quat,
    /// The middle joint's solved position (model space).
    pub mid: Vec3,
    /// The tip's solved position (model space).
    pub tip: Vec3,
    /// True when the solved tip is within [`REACHED_TOLERANCE`] × limb length of the target.
    pub reached: bool,
}

impl TwoBoneSolution {
    /// Applies the corrections to the root and middle joints' local transforms. Identity
    /// corrections leave the locals untouched bit for bit.
    pub fn apply(&self, root_local: &mut Xform, mid_local: &mut Xform) {
        if self.root_correction != Quat::IDENTITY {
            root_local.rotation = (root_local.rotation * self.root_correction).normalize();
        }
        if self.mid_correction != Quat::IDENTITY {
            mid_local.rotation = (mid_local.rotation * self.mid_correction).normalize();
        }
    }
}

impl TwoBoneJob {
    /// A job for three joints of a model-space pose (`model[chain[0..3]]`).
    pub fn from_model(model: &[Xform], chain: [usize; 3], target: Vec3, pole: Option<Vec3>) -> Option<Self> {
        let (r, m, t) = (model.get(chain[0])?, model.get(chain[1])?, model.get(chain[2])?);
        Some(TwoBoneJob {
            root: r.translation,
            mid: m.translation,
            tip: t.translation,
            root_rotation: r.rotation,
            mid_rotation: m.rotation,
            target,
            pole,
            ..Default::default()
        })
    }

    /// Checks the inputs: every value finite and both bones longer than zero.
    pub fn validate(&self) -> Result<(), IkError> {
        self.checked_lengths().map(|_| ())
    }

    /// [`TwoBoneJob::validate`], returning the two bone lengths.
    fn checked_lengths(&self) -> Result<(f32, f32), IkError> {
        let finite = self.root.is_finite()
            && self.mid.is_finite()
            && self.tip.is_finite()
            && self.root_rotation.is_finite()
            && self.mid_rotation.is_finite()
            && self.target.is_finite()
            && self.pole.is_none_or(|p| p.is_finite())
            && self.soften.is_finite()
            && self.weight.is_finite();
        if !finite {
            return Err(IkError::NonFiniteInput);
        }
        let a = (self.mid - self.root).length();
        let b = (self.tip - self.mid).length();
        let scale = a + b;
        if !(scale.is_finite() && scale > 0.0) || a <= ZERO_LENGTH * scale {
            return Err(IkError::ZeroLengthBone { bone: 0 });
        }
        if b <= ZERO_LENGTH * scale {
            return Err(IkError::ZeroLengthBone { bone: 1 });
        }
        Ok((a, b))
    }

    /// Solves the chain. Returns an error (and no correction) for invalid input.
    pub fn run(&self) -> Result<TwoBoneSolution, IkError> {
        let (a, b) = self.checked_lengths()?;
        let upper = self.mid - self.root;
        let lower = self.tip - self.mid;
        let tolerance = REACHED_TOLERANCE * (a + b);
        let weight = self.weight.clamp(0.0, 1.0);
        if weight == 0.0 {
            return Ok(TwoBoneSolution {
                root_correction: Quat::IDENTITY,
                mid_correction: Quat::IDENTITY,
                mid: self.mid,
                tip: self.tip,
                reached: (self.tip - self.target).length() <= tolerance,
            });
        }
        let (root_turn, mid_turn) = self.solve_turns(upper, lower, a, b);
        let (root_turn, mid_turn) = if weight < 1.0 {
            (Quat::IDENTITY.slerp(root_turn, weight), Quat::IDENTITY.slerp(mid_turn, weight))
        } else {
            (root_turn, mid_turn)
        };
        let mid = self.root + root_turn * upper;
        let tip = mid + root_turn * (mid_turn * lower);
        let solution = TwoBoneSolution {
            root_correction: crate::model_turn_to_local_correction(self.root_rotation, root_turn),
            mid_correction: crate::model_turn_to_local_correction(self.mid_rotation, mid_turn),
            mid,
            tip,
            reached: (tip - self.target).length() <= tolerance,
        };
        let finite = solution.root_correction.is_finite()
            && solution.mid_correction.is_finite()
            && solution.tip.is_finite()
            && solution.mid.is_finite();
        if finite { Ok(solution) } else { Err(IkError::NonFiniteInput) }
    }

    /// The two model-space turns of the full solve: the root's (about the root joint) and the
    /// middle joint's (about the middle joint, applied before the root's). `upper` and `lower`
    /// are the bone vectors, `a` and `b` their lengths.
    ///
    /// No trigonometry: every turn is built from the cosine and sine of its angle (dot and
    /// cross products, the law of cosines, one square root), see [`turn_from_cos_sin`].
    fn solve_turns(&self, upper: Vec3, lower: Vec3, a: f32, b: f32) -> (Quat, Quat) {
        self.solve_turns_with(upper, lower, a, b, true)
    }

    /// [`TwoBoneJob::solve_turns`]; `closed_form: false` always takes the stepwise path (bend,
    /// swing, twist), which the tests compare the closed form with.
    fn solve_turns_with(&self, upper: Vec3, lower: Vec3, a: f32, b: f32, closed_form: bool) -> (Quat, Quat) {
        let reach = a + b;

        // Direction and clamped, softened distance to the target.
        let to_target = self.target - self.root;
        let raw_distance = to_target.length();
        let dir = if raw_distance > ZERO_LENGTH * reach {
            to_target / raw_distance
        } else {
            (self.tip - self.root).normalize_or(upper / a)
        };
        let min_reach = (a - b).abs().max(1e-5 * reach);
        let distance = soften_distance(raw_distance, reach, self.soften).clamp(min_reach, reach);

        // The side the middle joint should bend to: the pole's (else the current plane).
        let pole_side = self.pole.and_then(|pole| perpendicular_part(pole - self.root, dir, POLE_GUARD_SIN));

        // 1. Bend the middle joint to the interior angle the law of cosines asks for.
        // The bend axis: the current plane's normal, or (for a straight or fully folded limb,
        // whose cross product is rounding noise) one from the pole or plane hint. Whatever the
        // axis, the turn is solved so the root→tip distance is exactly `distance`:
        // |upper + R(φ)·lower|² = d² ⇔ A·cos φ + B·sin φ = C.
        let normal = upper.cross(lower);
        let normal_squared = normal.length_squared();
        let ab = a * b;
        if let Some(side) = pole_side
            && closed_form
            && normal_squared > FRAME_MIN_SIN * FRAME_MIN_SIN * ab * ab
        {
            return frame_solve(upper, lower, normal, normal_squared.sqrt(), a, b, dir, side, distance);
        }
        let bend_axis = if normal_squared > 1e-8 * ab * ab {
            normal / normal_squared.sqrt()
        } else {
            let bend_hint = pole_side
                .or_else(|| perpendicular_part(upper, dir, 1e-4))
                .unwrap_or_else(|| dir.any_orthonormal_vector());
            bend_hint.cross(lower).try_normalize().unwrap_or_else(|| lower.any_orthonormal_vector())
        };
        let mid_turn = bend_turn(upper, lower, bend_axis, distance);

        // 2. Swing the root so the tip points at the target.
        let bent_tip = upper + mid_turn * lower;
        let swing = crate::limits::shortest_arc(bent_tip.normalize_or(dir), dir);

        // 3. Twist about the root→target line so the middle joint is on the pole's side.
        let twist = match (pole_side, perpendicular_part(swing * upper, dir, 1e-4)) {
            (Some(want), Some(have)) => turn_from_cos_sin(dir, have.dot(want), have.cross(want).dot(dir)),
            _ => Quat::IDENTITY,
        };
        ((twist * swing).normalize(), mid_turn)
    }
}

/// The common case in closed form: a bent limb (`|upper × lower| = normal_length`, at least
/// [`FRAME_MIN_SIN`] of `a·b`) and a pole side. The triangle root–middle–tip with sides `a`, `b`
/// and `distance` gives every cosine by the law of cosines and every sine from its area
/// (Heron), which stays exact near full extension where `√(1 − cos²)` would not. The middle
/// joint turns about the bend-plane normal from the current bone angle to the triangle's; the
/// root turn is the rotation taking the frame (upper direction, bend normal) to the solved
/// frame (solved upper direction in the plane of the root→target line and the pole side, the
/// solved plane's normal). The same turns as bend + swing + twist, without the dependent steps.
#[allow(clippy::too_many_arguments)]
fn frame_solve(
    upper: Vec3,
    lower: Vec3,
    normal: Vec3,
    normal_length: f32,
    a: f32,
    b: f32,
    dir: Vec3,
    side: Vec3,
    distance: f32,
) -> (Quat, Quat) {
    let d = distance;
    let ab = a * b;
    let axis = normal / normal_length;
    // Current bone angle θ between upper and lower.
    let (cos_theta, sin_theta) = (upper.dot(lower) / ab, normal_length / ab);
    // Four times the triangle's area: √((a+b+d)(−a+b+d)(a−b+d)(a+b−d)).
    let heron = ((a + b + d) * (b + d - a) * (a + d - b) * (a + b - d)).max(0.0).sqrt();
    // Wanted bone angle α (between upper and the solved lower): cos from the law of cosines.
    let cos_alpha = ((d * d - a * a - b * b) / (2.0 * ab)).clamp(-1.0, 1.0);
    let sin_alpha = (heron / (2.0 * ab)).min(1.0);
    // Middle turn φ = α − θ about the bend normal.
    let cos_phi = cos_alpha * cos_theta + sin_alpha * sin_theta;
    let sin_phi = sin_alpha * cos_theta - cos_alpha * sin_theta;
    let mid_turn = turn_from_cos_sin(axis, cos_phi, sin_phi);
    // Solved upper direction: at the triangle's root angle from the target line, pole side.
    let cos_root = ((a * a + d * d - b * b) / (2.0 * a * d)).clamp(-1.0, 1.0);
    let sin_root = (heron / (2.0 * a * d)).min(1.0);
    let upper_to = dir * cos_root + side * sin_root;
    let root_turn = frame_turn(upper / a, axis, upper_to, side.cross(dir));
    (root_turn, mid_turn)
}

/// The rotation taking the orthonormal pair `(x0, y0)` to the orthonormal pair `(x1, y1)`.
#[inline]
fn frame_turn(x0: Vec3, y0: Vec3, x1: Vec3, y1: Vec3) -> Quat {
    let from = Mat3::from_cols(x0, y0, x0.cross(y0));
    let to = Mat3::from_cols(x1, y1, x1.cross(y1));
    Quat::from_mat3(&(to * from.transpose())).normalize()
}

/// The turn of `lower` about unit `axis` (perpendicular to `lower`) that makes
/// `|upper + R(axis, φ)·lower| = distance`, choosing the smaller turn (ties: positive).
///
/// With `A = upper·lower`, `B = upper·(axis × lower)` and `C = (d² − |upper|² − |lower|²)/2`,
/// the condition is `A·cos φ + B·sin φ = C`, i.e. `cos(φ − ψ) = C/R` with `R = √(A² + B²)` and
/// `(cos ψ, sin ψ) = (A, B)/R`. So `φ = ψ ± σ` with `cos σ = C/R`; the smaller `|φ|` is the
/// one with the larger `cos φ`: `ψ − σ` exactly when `sin ψ · sin σ > 0`. Cosine and sine of
/// `φ` come from the angle-sum identities; no angle is ever formed.
fn bend_turn(upper: Vec3, lower: Vec3, axis: Vec3, distance: f32) -> Quat {
    let cos_coef = upper.dot(lower);
    let sin_coef = upper.dot(axis.cross(lower));
    let wanted = 0.5 * (distance * distance - upper.length_squared() - lower.length_squared());
    let amplitude = (cos_coef * cos_coef + sin_coef * sin_coef).sqrt();
    if amplitude.is_nan() || amplitude <= 0.0 {
        return Quat::IDENTITY;
    }
    let (cos_psi, sin_psi) = (cos_coef / amplitude, sin_coef / amplitude);
    let cos_sigma = (wanted / amplitude).clamp(-1.0, 1.0);
    let sin_sigma = (1.0 - cos_sigma * cos_sigma).max(0.0).sqrt();
    let sign = if sin_psi * sin_sigma > 0.0 { -1.0 } else { 1.0 };
    let cos_phi = cos_psi * cos_sigma - sign * sin_psi * sin_sigma;
    let sin_phi = sin_psi * cos_sigma + sign * cos_psi * sin_sigma;
    turn_from_cos_sin(axis, cos_phi, sin_phi)
}

/// The rotation about unit `axis` by the angle `φ` whose cosine and sine are (proportional to)
/// `cos_phi` and `sin_phi`, without trigonometry: `(1 + cos φ, sin φ)` and `(sin φ, 1 − cos φ)`
/// are both proportional to the half-angle pair `(cos φ/2, sin φ/2)` (up to sign, which a
/// quaternion does not care about); the first is used for `cos φ ≥ 0`, the second otherwise,
/// so neither loses precision to cancellation.
#[inline]
fn turn_from_cos_sin(axis: Vec3, cos_phi: f32, sin_phi: f32) -> Quat {
    let q = if cos_phi >= 0.0 {
        let v = axis * sin_phi;
        Quat::from_xyzw(v.x, v.y, v.z, 1.0 + cos_phi)
    } else {
        let v = axis * (1.0 - cos_phi);
        Quat::from_xyzw(v.x, v.y, v.z, sin_phi)
    };
    q.normalize()
}

/// Soft extension: past `(1 − soften)·reach` the distance approaches `reach` exponentially.
fn soften_distance(distance: f32, reach: f32, soften: f32) -> f32 {
    let width = soften.clamp(0.0, 1.0) * reach;
    let start = reach - width;
    if width <= 0.0 || distance <= start {
        return distance;
    }
    start + width * (1.0 - (-(distance - start) / width).exp())
}

/// The unit part of `v` perpendicular to unit `axis`, or `None` when `v` is within
/// `asin(min_sin)` of the axis.
fn perpendicular_part(v: Vec3, axis: Vec3, min_sin: f32) -> Option<Vec3> {
    let perp = v - axis * v.dot(axis);
    let len_squared = perp.length_squared();
    if len_squared > min_sin * min_sin * v.length_squared() && len_squared > 0.0 {
        Some(perp / len_squared.sqrt())
    } else {
        None
    }
}

/// The plain position form: where the middle joint and tip go for a root, bone lengths `a` and
/// `b`, a target and a pole point (which picks the bend side; in 3D it picks the bend plane).
/// Works for 2D problems with `z = 0`. An unreachable target gives a straight limb toward it.
pub fn two_bone_positions(root: Vec3, a: f32, b: f32, target: Vec3, pole: Vec3) -> Result<(Vec3, Vec3), IkError> {
    if !(root.is_finite() && target.is_finite() && pole.is_finite() && a.is_finite() && b.is_finite()) {
        return Err(IkError::NonFiniteInput);
    }
    let reach = a + b;
    if a <= ZERO_LENGTH * reach || reach <= 0.0 {
        return Err(IkError::ZeroLengthBone { bone: 0 });
    }
    if b <= ZERO_LENGTH * reach {
        return Err(IkError::ZeroLengthBone { bone: 1 });
    }
    let to_target = target - root;
    let raw = to_target.length();
    let dir = if raw > ZERO_LENGTH * reach { to_target / raw } else { (pole - root).normalize_or(Vec3::Y) };
    let d = raw.clamp((a - b).abs().max(1e-5 * reach), reach);
    let side = perpendicular_part(pole - root, dir, 0.0).unwrap_or_else(|| dir.any_orthonormal_vector());
    let cos_root = ((a * a + d * d - b * b) / (2.0 * a * d)).clamp(-1.0, 1.0);
    let sin_root = (1.0 - cos_root * cos_root).max(0.0).sqrt();
    let mid = root + dir * (a * cos_root) + side * (a * sin_root);
    Ok((mid, root + dir * d))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random numbers in [-1, 1).
    fn noise(state: &mut u32) -> f32 {
        *state ^= *state << 13;
        *state ^= *state >> 17;
        *state ^= *state << 5;
        (*state >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }

    fn same_turn(p: Quat, q: Quat) -> f32 {
        // q and −q are the same rotation.
        (p - q).length().min((p + q).length())
    }

    #[test]
    fn the_closed_form_gives_the_stepwise_turns() {
        let mut rng = 0x1234_5678u32;
        let mut worst = 0.0f32;
        let mut checked = 0;
        for _ in 0..20_000 {
            let v = |rng: &mut u32| Vec3::new(noise(rng), noise(rng), noise(rng));
            let root = v(&mut rng);
            let mid = root + v(&mut rng).normalize_or(Vec3::X) * (0.2 + noise(&mut rng).abs());
            let tip = mid + v(&mut rng).normalize_or(Vec3::Y) * (0.2 + noise(&mut rng).abs());
            let target = root + v(&mut rng) * 1.5;
            let job = TwoBoneJob { root, mid, tip, target, pole: Some(root + v(&mut rng) * 2.0), ..Default::default() };
            let (a, b) = job.checked_lengths().unwrap();
            let (upper, lower) = (mid - root, tip - mid);
            let (closed_root, closed_mid) = job.solve_turns_with(upper, lower, a, b, true);
            let (step_root, step_mid) = job.solve_turns_with(upper, lower, a, b, false);
            // Compare inside the reachable range, clear of full extension and full fold: there
            // the stepwise bend's √(1 − cos²) leaves the limb ~1e-4 rad off straight (the closed
            // form, with sines from the triangle's area, is straight to rounding) and the
            // stepwise twist of a (nearly) straight limb is skipped or ill-defined.
            let d = (target - root).length();
            if d > 0.999 * (a + b) || d < (a - b).abs() + 0.001 * (a + b) {
                continue;
            }
            checked += 1;
            let diff = same_turn(closed_root, step_root).max(same_turn(closed_mid, step_mid));
            worst = worst.max(diff);
        }
        assert!(checked > 5_000, "only {checked} cases compared");
        assert!(worst < 2e-5, "closed form and stepwise turns differ by {worst}");
    }
}
