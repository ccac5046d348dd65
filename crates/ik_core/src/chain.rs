//! The chain job FABRIK ([`crate::fabrik`]) and CCD ([`crate::ccd`]) share: a [`ChainJob`]
//! (model-space joints root first, a target, optional [`JointLimit`]s), its caller-owned
//! [`ChainScratch`] and [`WarmStart`], the [`ChainSolution`]; how a solve starts (the warm
//! start or the input pose, clamped, a straight start bent) and finishes (positions to local
//! corrections, never NaN); and gathering a chain from a skeleton and applying corrections.

use glam::{Quat, Vec3};

use crate::limits::{JointLimit, shortest_arc as arc};
use crate::{IkError, Xform};

/// Default tolerance: the tip counts as on the target within 1 mm.
pub const DEFAULT_TOLERANCE: f32 = 0.001;

/// Default iteration cap, sized for a per-frame, warm-started solve.
pub const DEFAULT_MAX_ITERATIONS: u32 = 10;

/// Bones shorter than this fraction of the chain's length count as zero length.
pub(crate) const ZERO_LENGTH: f32 = 1e-6;

/// Inputs of one chain solve (FABRIK or CCD), all in the same (model) space.
#[derive(Clone, Copy, Debug)]
pub struct ChainJob<'a> {
    /// Model-space transforms of the chain's joints, root first, tip last (at least 2). Each
    /// joint's parent bones up to the previous chain joint move rigidly with that joint.
    pub joints: &'a [Xform],
    /// Each joint's current local rotation; needed only with `limits` (may be empty otherwise).
    pub locals: &'a [Quat],
    /// One optional limit per joint, or empty for none.
    pub limits: &'a [Option<JointLimit>],
    /// Where the tip should go.
    pub target: Vec3,
    /// Distance from the target (metres) at which the tip counts as there. Default 1 mm.
    pub tolerance: f32,
    /// Most iterations (full passes) to run. Default [`DEFAULT_MAX_ITERATIONS`].
    pub max_iterations: u32,
    /// How much of the solve the corrections carry, clamped to [0, 1]: each correction is
    /// slerped from identity by it (0 gives exact identities, the input pose bit for bit). The
    /// solution's `error` and `reached` describe the full solve. Default 1.
    pub weight: f32,
}

impl<'a> ChainJob<'a> {
    /// A job without limits, with the default tolerance and iteration cap.
    pub fn new(joints: &'a [Xform], target: Vec3) -> Self {
        ChainJob {
            joints,
            locals: &[],
            limits: &[],
            target,
            tolerance: DEFAULT_TOLERANCE,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            weight: 1.0,
        }
    }

    /// The same job with per-joint limits and the local rotations they are checked against.
    pub fn with_limits(self, locals: &'a [Quat], limits: &'a [Option<JointLimit>]) -> Self {
        ChainJob { locals, limits, ..self }
    }

    /// Checks the inputs: at least two joints, matching buffers, every value finite, every
    /// rotation non-zero and the chain longer than zero.
    pub fn validate(&self) -> Result<(), IkError> {
        let n = self.joints.len();
        if n < 2 {
            return Err(IkError::ChainTooShort { needed: 2, got: n });
        }
        if !self.limits.is_empty() && self.limits.len() != n {
            return Err(IkError::LengthMismatch { expected: n, got: self.limits.len() });
        }
        if (!self.limits.is_empty() || !self.locals.is_empty()) && self.locals.len() != n {
            return Err(IkError::LengthMismatch { expected: n, got: self.locals.len() });
        }
        let usable = |q: &Quat| q.is_finite() && q.length_squared() > 1e-12;
        let finite = self.joints.iter().all(|j| j.is_finite() && usable(&j.rotation))
            && self.locals.iter().all(usable)
            && self.limits.iter().flatten().all(JointLimit::is_finite)
            && self.target.is_finite()
            && self.tolerance.is_finite()
            && self.weight.is_finite();
        if !finite {
            return Err(IkError::NonFiniteInput);
        }
        let reach: f32 = self.joints.windows(2).map(|w| (w[1].translation - w[0].translation).length()).sum();
        if !(reach.is_finite() && (self.target - self.joints[0].translation).length().is_finite()) {
            return Err(IkError::NonFiniteInput);
        }
        if reach <= 0.0 {
            return Err(IkError::ZeroLengthBone { bone: 0 });
        }
        Ok(())
    }

    pub(crate) fn offset(&self, bone: usize) -> Vec3 {
        self.joints[bone + 1].translation - self.joints[bone].translation
    }
}

/// What a chain solve did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainSolution {
    /// Iterations run (0 when the start pose was already within tolerance).
    pub iterations: u32,
    /// Final distance from the tip to the target (metres), measured on the returned pose.
    pub error: f32,
    /// True when `error <= tolerance`.
    pub reached: bool,
}

/// The previous answer of a chain solve, to start the next one from (caller-owned).
///
/// It holds the solved model-space direction of every bone. A warm-started solve lays the
/// current chain along those directions from the *current* root with the *current* bone
/// lengths, so a moved root or changed lengths are handled; a chain with a different joint
/// count (or an empty state) starts cold from the input pose.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WarmStart {
    directions: Vec<Vec3>,
}

impl WarmStart {
    /// An empty state with room for a chain of `joints` joints.
    pub fn with_capacity(joints: usize) -> Self {
        WarmStart { directions: Vec::with_capacity(joints.saturating_sub(1)) }
    }

    /// Forgets the previous answer: the next solve starts from the input pose.
    pub fn clear(&mut self) {
        self.directions.clear();
    }

    /// The stored bone directions (unit, or zero for a zero-length bone), root bone first.
    pub fn directions(&self) -> &[Vec3] {
        &self.directions
    }
}

/// Working buffers of a chain solve, reused between solves (sized on first use).
#[derive(Clone, Debug, Default)]
pub struct ChainScratch {
    pub(crate) lengths: Vec<f32>,
    pub(crate) rotations: Vec<Quat>,
    /// Each joint's accumulated model-space turn.
    pub(crate) turns: Vec<Quat>,
    pub(crate) best: Vec<Quat>,
    pub(crate) positions: Vec<Vec3>,
    pub(crate) reach: f32,
}

impl ChainScratch {
    /// Buffers for chains of up to `joints` joints.
    pub fn with_capacity(joints: usize) -> Self {
        ChainScratch {
            lengths: Vec::with_capacity(joints),
            rotations: Vec::with_capacity(joints),
            turns: Vec::with_capacity(joints),
            best: Vec::with_capacity(joints),
            positions: Vec::with_capacity(joints),
            reach: 0.0,
        }
    }

    /// Model-space joint positions of the pose the last `Ok` solve returned, root first.
    pub fn solved_positions(&self) -> &[Vec3] {
        &self.positions
    }
}

/// Validates the job, sizes the scratch, and poses the start: the warm start's directions
/// (swung to face the target) when it fits, else the input pose (clamped into the limits); a
/// start lying on the target line is bent. Returns the start's tip error.
pub(crate) fn begin(
    job: &ChainJob,
    s: &mut ChainScratch,
    warm: Option<&WarmStart>,
    corrections: &mut [Quat],
) -> Result<f32, IkError> {
    let (expected, got) = (job.joints.len(), corrections.len());
    let checked =
        job.validate().and(if got == expected { Ok(()) } else { Err(IkError::LengthMismatch { expected, got }) });
    if let Err(e) = checked {
        corrections.fill(Quat::IDENTITY);
        return Err(e);
    }
    let n = job.joints.len();
    s.lengths.clear();
    s.lengths.extend((0..n - 1).map(|i| job.offset(i).length()));
    s.reach = s.lengths.iter().sum();
    s.rotations.clear();
    s.rotations.extend(job.joints.iter().map(|j| j.rotation.normalize()));
    s.turns.clear();
    s.turns.resize(n, Quat::IDENTITY);
    s.best.clear();
    s.best.resize(n, Quat::IDENTITY);
    s.positions.clear();
    s.positions.extend(job.joints.iter().map(|j| j.translation));
    match warm {
        Some(w) if w.directions.len() == n - 1 => {
            for i in 0..n - 1 {
                s.positions[i + 1] = s.positions[i] + w.directions[i] * s.lengths[i];
            }
            // The previous answer, swung about the root so its tip faces the new target.
            swing_onto_target_line(job.target, &mut s.positions);
            aim_at_positions(job, s);
        }
        _ if job.limits.iter().any(Option::is_some) => aim_at_positions(job, s),
        _ => {}
    }
    // Bend a straight start only when iterations will follow: with a cap of 0 the bent start
    // would be the answer, further from the target than the input pose.
    if job.max_iterations > 0 && tip_error(job, s) > job.tolerance.max(0.0) {
        unbend_singular_start(job, s);
    }
    Ok(tip_error(job, s))
}

/// Writes the corrections, the warm start and the solution; any non-finite result becomes an
/// error with identity corrections.
pub(crate) fn finish(
    job: &ChainJob,
    s: &mut ChainScratch,
    warm: Option<&mut WarmStart>,
    corrections: &mut [Quat],
    iterations: u32,
) -> Result<ChainSolution, IkError> {
    forward_kinematics(job, s);
    for (i, c) in corrections.iter_mut().enumerate() {
        *c = own_correction(s, i);
    }
    let error = tip_error(job, s);
    if !(error.is_finite() && corrections.iter().all(|c| c.is_finite()) && s.positions.iter().all(|p| p.is_finite())) {
        corrections.fill(Quat::IDENTITY);
        return Err(IkError::NonFiniteInput);
    }
    if let Some(w) = warm {
        w.directions.clear();
        w.directions.extend(s.positions.windows(2).map(|p| (p[1] - p[0]).normalize_or_zero()));
    }
    let weight = job.weight.clamp(0.0, 1.0);
    if weight < 1.0 {
        for c in corrections.iter_mut() {
            *c = if weight == 0.0 { Quat::IDENTITY } else { Quat::IDENTITY.slerp(*c, weight) };
        }
    }
    Ok(ChainSolution { iterations, error, reached: error <= job.tolerance.max(0.0) })
}

/// Turns every joint after the root about the root so the tip lies on the root→target ray. It
/// keeps the root–tip distance, so it can only bring the tip closer to the target.
pub(crate) fn swing_onto_target_line(target: Vec3, positions: &mut [Vec3]) {
    let root = positions[0];
    let tip = positions[positions.len() - 1];
    if let (Some(from), Some(to)) = ((tip - root).try_normalize(), (target - root).try_normalize()) {
        let swing = arc(from, to);
        for p in &mut positions[1..] {
            *p = root + swing * (*p - root);
        }
    }
}

/// A chain lying along the line through its root and an in-reach target cannot leave that line
/// (every FABRIK pass and CCD turn keeps it there), so it would never bend to reach. Such a
/// start is bent into a shallow arc (0.2 rad per joint) about an axis perpendicular to the
/// line, taken from the root joint's own axes, before iterating.
fn unbend_singular_start(job: &ChainJob, s: &mut ChainScratch) {
    const ARC_STEP: f32 = 0.2;
    let n = job.joints.len();
    let root = s.positions[0];
    let Some(line) = (job.target - root).try_normalize().or_else(|| (s.positions[n - 1] - root).try_normalize()) else {
        return;
    };
    let off_line = |p: Vec3| (p - root).reject_from_normalized(line).length();
    let straight = s.positions.iter().all(|&p| off_line(p) <= 1e-5 * s.reach) && off_line(job.target) <= 1e-5 * s.reach;
    if !straight || (job.target - root).length() >= s.reach {
        return;
    }
    let frame = s.rotations[0];
    let axis = [Vec3::Z, Vec3::X, Vec3::Y]
        .map(|a| frame * a)
        .into_iter()
        .min_by(|a, b| a.dot(line).abs().total_cmp(&b.dot(line).abs()))
        .and_then(|a| a.reject_from_normalized(line).try_normalize())
        .unwrap_or_else(|| line.any_orthonormal_vector());
    let mut bent = root;
    for i in 0..n - 1 {
        let bone = s.positions[i + 1] - s.positions[i];
        let turned = Quat::from_axis_angle(axis, ARC_STEP * i as f32) * bone;
        s.positions[i] = bent;
        bent += turned;
    }
    s.positions[n - 1] = bent;
    aim_at_positions(job, s);
}

/// Distance from the current tip to the target.
pub(crate) fn tip_error(job: &ChainJob, s: &ChainScratch) -> f32 {
    (s.positions[s.positions.len() - 1] - job.target).length()
}

/// True when bone `i` is too short to have a direction.
pub(crate) fn is_zero_bone(s: &ChainScratch, i: usize) -> bool {
    s.lengths[i] <= ZERO_LENGTH * s.reach
}

/// Re-poses the joint positions from the turns: `p'₀ = p₀`, `p'ᵢ₊₁ = p'ᵢ + Wᵢ · (pᵢ₊₁ − pᵢ)`.
pub(crate) fn forward_kinematics(job: &ChainJob, s: &mut ChainScratch) {
    s.positions[0] = job.joints[0].translation;
    for i in 0..job.joints.len() - 1 {
        s.positions[i + 1] = s.positions[i] + s.turns[i] * job.offset(i);
    }
}

/// Joint `i`'s local correction `C = R⁻¹ · W_parent⁻¹ · Wᵢ · R` (exactly identity when the joint
/// took no turn of its own).
pub(crate) fn own_correction(s: &ChainScratch, i: usize) -> Quat {
    let parent = if i == 0 { Quat::IDENTITY } else { s.turns[i - 1] };
    if s.turns[i] == parent {
        return Quat::IDENTITY;
    }
    let r = s.rotations[i];
    (r.inverse() * parent.inverse() * s.turns[i] * r).normalize()
}

/// Clamps joint `i` into its limit (if any). Returns the extra model-space turn the clamp gave
/// joint `i` (to apply to its descendants too), or `None` when nothing changed.
pub(crate) fn clamp_joint(job: &ChainJob, s: &mut ChainScratch, i: usize) -> Option<Quat> {
    let limit = job.limits.get(i)?.as_ref()?;
    let local = job.locals[i].normalize();
    let current = (local * own_correction(s, i)).normalize();
    let clamped = limit.clamp(current);
    if clamped == current {
        return None;
    }
    let parent = if i == 0 { Quat::IDENTITY } else { s.turns[i - 1] };
    let r = s.rotations[i];
    let turn = (parent * r * (local.inverse() * clamped) * r.inverse()).normalize();
    let extra = (turn * s.turns[i].inverse()).normalize();
    s.turns[i] = turn;
    Some(extra)
}

/// Turns the chain so that each bone points at the desired position of its child joint held in
/// `positions` (root to tip, shortest arc from where the bone points after its parent's turn),
/// clamping each joint into its limit; `positions` ends up holding the posed joints.
pub(crate) fn aim_at_positions(job: &ChainJob, s: &mut ChainScratch) {
    let n = job.joints.len();
    s.positions[0] = job.joints[0].translation;
    let mut parent = Quat::IDENTITY;
    for i in 0..n - 1 {
        let offset = job.offset(i);
        let turn = match ((parent * offset).try_normalize(), (s.positions[i + 1] - s.positions[i]).try_normalize()) {
            (Some(from), Some(to)) if !is_zero_bone(s, i) => arc(from, to),
            _ => Quat::IDENTITY,
        };
        s.turns[i] = if turn == Quat::IDENTITY { parent } else { (turn * parent).normalize() };
        clamp_joint(job, s, i);
        parent = s.turns[i];
        s.positions[i + 1] = s.positions[i] + parent * offset;
    }
    s.turns[n - 1] = parent;
    clamp_joint(job, s, n - 1);
}

/// Copies the model transforms and local rotations of the bones of `chain` (root first) out of
/// whole-skeleton buffers into chain-ordered ones, ready for a [`ChainJob`].
pub fn gather_chain(
    model: &[Xform],
    locals: &[Xform],
    chain: &[usize],
    joints: &mut [Xform],
    chain_locals: &mut [Quat],
) -> Result<(), IkError> {
    for buffer_len in [joints.len(), chain_locals.len()] {
        if buffer_len != chain.len() {
            return Err(IkError::LengthMismatch { expected: chain.len(), got: buffer_len });
        }
    }
    for (k, &bone) in chain.iter().enumerate() {
        let (Some(m), Some(l)) = (model.get(bone), locals.get(bone)) else {
            return Err(IkError::BrokenHierarchy { bone });
        };
        joints[k] = *m;
        chain_locals[k] = l.rotation;
    }
    Ok(())
}

/// Multiplies chain corrections onto a skeleton's locals: `locals[chain[k]].rotation ·=
/// corrections[k]`. Identity corrections leave their locals untouched bit for bit.
pub fn apply_corrections(corrections: &[Quat], chain: &[usize], locals: &mut [Xform]) -> Result<(), IkError> {
    if corrections.len() != chain.len() {
        return Err(IkError::LengthMismatch { expected: chain.len(), got: corrections.len() });
    }
    if let Some(&bone) = chain.iter().find(|&&b| b >= locals.len()) {
        return Err(IkError::BrokenHierarchy { bone });
    }
    for (&bone, &c) in chain.iter().zip(corrections) {
        if c != Quat::IDENTITY {
            locals[bone].rotation = (locals[bone].rotation * c).normalize();
        }
    }
    Ok(())
}
