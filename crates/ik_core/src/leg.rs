//! The heel/toe leg chain: put the ball of the foot on a target by changing only the local
//! rotations of hip, knee, ankle and toe, keeping as much of the animated pose as possible.
//!
//! **Method.**
//! 1. The toe (ball) target is optionally lifted to a minimum height; the heel (ankle) target
//!    is the toe target plus the pose's current toe→heel offset, also optionally lifted.
//! 2. The hip→heel distance is softly clamped: past `(max_extension − soften)·reach` it
//!    approaches `max_extension·reach` exponentially (continuous, slope ≤ 1), so the knee eases
//!    toward straight instead of snapping.
//! 3. A two-bone solve ([`TwoBoneJob`]) places the heel. Instead of a pole, the knee's hinge
//!    axis (`knee_side`, in the knee's local space, carried by the animation) says where the knee
//!    points: toward `(heel − hip) × side`. Without it the current bend plane is kept. A leg
//!    straight to rounding is first bent by 0.02 rad at the knee so the solve has a bend plane.
//! 4. The ankle turns (shortest arc) so the ball points at the toe target.
//! 5. With a toe end and minimum heights, the toe bone turns so the toe tip stays above its
//!    minimum height.
//!
//! **Inputs.** A pose as caller-owned buffers (`locals` and their forward kinematics `model`,
//! one entry per bone, model = FK of locals on entry), a [`LegChain`] of bone indices, a toe
//! target in model space and [`LegSettings`].
//!
//! **Outputs.** `locals` and `model` updated in place (only rotations of the chain's bones
//! change; `model` is refreshed for every bone from the hip on), and a [`LegSolution`] with the
//! new local rotations, the local corrections (`new = old · correction`) and the targets used.
//!
//! **Invariants.** Bone lengths are kept (rotations only). A target within the soft zone's
//! start is reached exactly (up to float rounding). Any bad input (index out of range, chain
//! out of hierarchy order, non-finite value or one so large the arithmetic overflows,
//! zero-length bone) returns an [`IkError`] with the buffers untouched. No allocation.

use glam::{Quat, Vec3};

use crate::{IkError, TwoBoneJob, Xform, turn_local_by_model_rotation};

/// Bone indices of one leg. Each bone must be a descendant of the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegChain {
    /// Hip (thigh) joint.
    pub hip: usize,
    /// Knee joint.
    pub knee: usize,
    /// Ankle (heel) joint.
    pub ankle: usize,
    /// Toe joint at the ball of the foot. Without it the target is a heel target.
    pub toe: Option<usize>,
    /// The tip of the toes (a leaf), used to keep the toes above the ground.
    pub toe_end: Option<usize>,
}

/// Minimum model-space heights (floor at y = 0) for the ground clamp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegMinHeights {
    /// Lowest the heel (ankle joint) may go.
    pub heel: f32,
    /// Lowest the toe (ball) joint may go.
    pub toe: f32,
    /// Lowest the toe end may go.
    pub toe_end: f32,
}

impl LegMinHeights {
    /// The heights of the chain's joints in a pose standing flat on the floor (usually the
    /// model-space rest pose). Missing toe / toe end read as 0.
    pub fn from_pose(model: &[Xform], chain: &LegChain) -> Self {
        let y = |i: Option<usize>| i.and_then(|i| model.get(i)).map_or(0.0, |x| x.translation.y);
        LegMinHeights { heel: y(Some(chain.ankle)), toe: y(chain.toe), toe_end: y(chain.toe_end) }
    }
}

/// How the leg is solved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegSettings {
    /// The knee's hinge axis in the knee bone's local space; the knee points toward
    /// `(heel − hip) × side` (for a character facing +Z with its left at +X, a side of +X in
    /// model space points the knee forward). `None` keeps the leg's current bend plane.
    /// Default `None`.
    pub knee_side: Option<Vec3>,
    /// Longest hip→heel distance, as a fraction of thigh + shin length. Default 1.
    pub max_extension: f32,
    /// Width of the soft zone below `max_extension`, as a fraction of thigh + shin length,
    /// in `[0, max_extension]`. 0 = hard clamp. Default 0.02.
    pub soften: f32,
    /// Keep heel, toe and toe end above these heights. Default `None` (no clamp).
    pub min_heights: Option<LegMinHeights>,
    /// Turn the ankle so the ball points at the toe target. Default true.
    pub orient_heel: bool,
    /// Turn the toe so the toe end stays above its minimum height (needs `toe_end` and
    /// `min_heights`). Default true.
    pub orient_toe: bool,
}

impl Default for LegSettings {
    fn default() -> Self {
        LegSettings {
            knee_side: None,
            max_extension: 1.0,
            soften: 0.02,
            min_heights: None,
            orient_heel: true,
            orient_toe: true,
        }
    }
}

impl LegSettings {
    /// Hip→heel distance up to which targets are reached exactly, for a leg of `reach`
    /// (thigh + shin): the start of the soft zone.
    pub fn exact_reach(&self, reach: f32) -> f32 {
        let (max, soft) = self.clamped();
        (max - soft) * reach
    }

    fn clamped(&self) -> (f32, f32) {
        let max = self.max_extension.clamp(0.0, 1.0);
        (max, self.soften.clamp(0.0, max))
    }
}

/// What [`solve_leg`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegSolution {
    /// New local rotations `[hip, knee, ankle, toe]` (toe = identity when there is no toe).
    pub rotations: [Quat; 4],
    /// Local corrections `[hip, knee, ankle, toe]`: `new = old · correction`.
    pub corrections: [Quat; 4],
    /// Toe target after the height clamp.
    pub toe_target: Vec3,
    /// Heel target before the soft clamp.
    pub heel_target: Vec3,
    /// Where the toe end was aimed, when the toe was turned.
    pub toe_end_target: Option<Vec3>,
    /// True when the toe (or heel, without a toe) ended within 1e-3 × leg length of its target.
    pub reached: bool,
}

/// Checks the chain against the buffers: indices in range, each bone a descendant of the
/// previous one, buffers the same length.
pub fn validate_chain(
    parents: &[Option<usize>],
    locals: &[Xform],
    model: &[Xform],
    chain: &LegChain,
) -> Result<(), IkError> {
    let n = parents.len();
    if locals.len() != n {
        return Err(IkError::LengthMismatch { expected: n, got: locals.len() });
    }
    if model.len() != n {
        return Err(IkError::LengthMismatch { expected: n, got: model.len() });
    }
    let mut previous = chain.hip;
    if previous >= n {
        return Err(IkError::BrokenHierarchy { bone: previous });
    }
    for bone in [Some(chain.knee), Some(chain.ankle), chain.toe, chain.toe_end].into_iter().flatten() {
        if bone >= n || !descends_from(parents, bone, previous) {
            return Err(IkError::BrokenHierarchy { bone });
        }
        previous = bone;
    }
    Ok(())
}

/// True when `ancestor` is a strict ancestor of `bone` (parents before children).
pub(crate) fn descends_from(parents: &[Option<usize>], mut bone: usize, ancestor: usize) -> bool {
    while let Some(p) = parents.get(bone).copied().flatten() {
        if p >= bone {
            return false;
        }
        if p == ancestor {
            return true;
        }
        bone = p;
    }
    false
}

/// Recomputes `model[root] = model[parent] · locals[root]` (a hierarchy root is left alone) and
/// the same for every descendant of `root`, after `locals[root]` changed. Bones outside that
/// subtree are not touched. Parents come before children, so one pass is enough: a bit per bone
/// after `root` records which lie under it (past 128 bones every later bone is recomputed, which
/// is harmless: `model` is the forward kinematics of `locals`).
pub(crate) fn refresh_model(parents: &[Option<usize>], locals: &[Xform], model: &mut [Xform], root: usize) {
    let n = parents.len().min(locals.len()).min(model.len());
    if root >= n {
        return;
    }
    if let Some(p) = parents[root]
        && p < root
    {
        model[root] = model[p].mul_xform(&locals[root]);
    }
    let mut under: u128 = 1; // bit k: bone `root + k` lies under `root` (or is it)
    for i in root + 1..n {
        let Some(p) = parents[i] else { continue };
        if p >= i || p < root {
            continue;
        }
        let from_root = p - root;
        if from_root < 128 && under >> from_root & 1 == 0 {
            continue;
        }
        model[i] = model[p].mul_xform(&locals[i]);
        if i - root < 128 {
            under |= 1 << (i - root);
        }
    }
}

/// Below this sine of the knee's bend a leg counts as straight (its bend plane is undefined).
const STRAIGHT_SIN: f32 = 1e-3;
/// How far (radians) a straight leg is pre-bent so a two-bone solve has a bend plane.
const PRE_BEND: f32 = 0.02;

/// Bends a (nearly) straight or fully folded leg `[hip, knee, ankle]` slightly at the knee, about `side` (the
/// knee's hinge axis in model space; the knee then points toward `(ankle − hip) × side`) or any
/// axis without one, so the following two-bone solve has a well-defined bend plane. A straight
/// limb's cross product is rounding noise and would give the solve an arbitrary bend axis.
pub(crate) fn unstraighten(
    parents: &[Option<usize>],
    locals: &mut [Xform],
    model: &mut [Xform],
    [hip, knee, ankle]: [usize; 3],
    side: Option<Vec3>,
) {
    let upper = model[knee].translation - model[hip].translation;
    let lower = model[ankle].translation - model[knee].translation;
    let scale = upper.length() * lower.length();
    if scale.is_nan() || scale <= 0.0 || lower.cross(-upper).length() > STRAIGHT_SIN * scale {
        return;
    }
    let down = lower.normalize_or(Vec3::NEG_Y);
    let axis =
        side.and_then(|s| (s - down * s.dot(down)).try_normalize()).unwrap_or_else(|| down.any_orthonormal_vector());
    let turn = Quat::from_axis_angle(axis, PRE_BEND);
    let parent_rotation = parents[knee].map_or(Quat::IDENTITY, |p| model[p].rotation);
    let rotation = turn_local_by_model_rotation(locals[knee].rotation, parent_rotation, turn);
    if rotation.is_finite() {
        locals[knee].rotation = rotation;
        refresh_model(parents, locals, model, knee);
    }
}

/// Soft clamp of a distance: past `start = (max − soft)·reach` it approaches `max·reach`.
pub(crate) fn soft_clamp(distance: f32, reach: f32, max: f32, soft: f32) -> f32 {
    let width = soft * reach;
    let start = (max - soft) * reach;
    if distance <= start {
        distance
    } else if width <= 0.0 {
        distance.min(max * reach)
    } else {
        start + width * (1.0 - (-(distance - start) / width).exp())
    }
}

/// Turns `bone` (shortest arc, in model space) so the direction from it to `child`'s current
/// position points at `target`. Refreshes `model` from `bone` on. No-op for degenerate
/// directions.
pub(crate) fn orient_towards(
    parents: &[Option<usize>],
    locals: &mut [Xform],
    model: &mut [Xform],
    bone: usize,
    child: usize,
    target: Vec3,
) {
    let origin = model[bone].translation;
    let (Some(have), Some(want)) =
        ((model[child].translation - origin).try_normalize(), (target - origin).try_normalize())
    else {
        return;
    };
    let turn = Quat::from_rotation_arc(have, want);
    let parent_rotation = parents[bone].map_or(Quat::IDENTITY, |p| model[p].rotation);
    let rotation = turn_local_by_model_rotation(locals[bone].rotation, parent_rotation, turn);
    if rotation.is_finite() {
        locals[bone].rotation = rotation;
        refresh_model(parents, locals, model, bone);
    }
}

/// Where a leg's soft extension zone starts (hip→ankle distance): at its animated extension or
/// at `(1 − soften)` of full reach, whichever is longer, and below full reach.
pub fn soft_zone_start(model: &[Xform], leg: &LegChain, soften: f32) -> f32 {
    let (hip, knee, ankle) = (model[leg.hip].translation, model[leg.knee].translation, model[leg.ankle].translation);
    let reach = (knee - hip).length() + (ankle - knee).length();
    let animated = (ankle - hip).length();
    animated.max((1.0 - soften) * reach).min(0.9999 * reach)
}

/// The [`LegSettings::soften`] width (with `max_extension` 1) whose soft zone starts at
/// [`soft_zone_start`]: a leg solved with it reaches any target up to its animated extension
/// exactly, so IK never pulls an animated leg short.
pub fn soften_past_pose(model: &[Xform], chain: &LegChain, soften: f32) -> f32 {
    let (hip, knee, ankle) =
        (model[chain.hip].translation, model[chain.knee].translation, model[chain.ankle].translation);
    let reach = (knee - hip).length() + (ankle - knee).length();
    if reach > 0.0 { (1.0 - soft_zone_start(model, chain, soften) / reach).clamp(0.0, 1.0) } else { 0.0 }
}

/// Solves the leg so the toe (ball) reaches `toe_target` (model space). See the module docs.
pub fn solve_leg(
    parents: &[Option<usize>],
    locals: &mut [Xform],
    model: &mut [Xform],
    chain: &LegChain,
    toe_target: Vec3,
    settings: &LegSettings,
) -> Result<LegSolution, IkError> {
    validate_chain(parents, locals, model, chain)?;
    let settings_finite = settings.knee_side.is_none_or(|s| s.is_finite())
        && settings.max_extension.is_finite()
        && settings.soften.is_finite()
        && settings.min_heights.is_none_or(|h| h.heel.is_finite() && h.toe.is_finite() && h.toe_end.is_finite());
    let bones = [Some(chain.hip), Some(chain.knee), Some(chain.ankle), chain.toe, chain.toe_end];
    let pose_finite = bones.into_iter().flatten().all(|b| model[b].is_finite() && locals[b].is_finite());
    if !(settings_finite && pose_finite && toe_target.is_finite()) {
        return Err(IkError::NonFiniteInput);
    }
    let old = [
        locals[chain.hip].rotation,
        locals[chain.knee].rotation,
        locals[chain.ankle].rotation,
        chain.toe.map_or(Quat::IDENTITY, |t| locals[t].rotation),
    ];

    // 1. Targets, with the ground clamp.
    let mut toe_target = toe_target;
    if let Some(h) = settings.min_heights {
        toe_target.y = toe_target.y.max(h.toe);
    }
    let (hip, knee, ankle) =
        (model[chain.hip].translation, model[chain.knee].translation, model[chain.ankle].translation);
    let mut heel_target = match chain.toe {
        Some(t) => toe_target + (ankle - model[t].translation),
        None => toe_target,
    };
    if let Some(h) = settings.min_heights {
        heel_target.y = heel_target.y.max(h.heel);
    }

    // 2. Soft extension clamp.
    let reach = (knee - hip).length() + (ankle - knee).length();
    let (max, soft) = settings.clamped();
    let to_heel = heel_target - hip;
    let distance = to_heel.length();
    let clamped_distance = soft_clamp(distance, reach, max, soft);
    let dir = to_heel.try_normalize().unwrap_or(Vec3::NEG_Y);
    let solve_target = if clamped_distance < distance { hip + dir * clamped_distance } else { heel_target };
    if !(heel_target.is_finite() && solve_target.is_finite() && reach.is_finite()) {
        // Finite but so large that the arithmetic overflowed.
        return Err(IkError::NonFiniteInput);
    }

    // 3. Two-bone solve to the heel; the knee's hinge axis picks the bend side.
    let side = settings.knee_side.and_then(|side| (model[chain.knee].rotation * side).try_normalize());
    let pole = side.and_then(|side| dir.cross(side).try_normalize()).map(|forward| hip + forward * reach);
    TwoBoneJob::from_model(model, [chain.hip, chain.knee, chain.ankle], solve_target, pole)
        .ok_or(IkError::BrokenHierarchy { bone: chain.hip })?
        .validate()?;
    let knee_local = locals[chain.knee];
    unstraighten(parents, locals, model, [chain.hip, chain.knee, chain.ankle], side);
    let solution = match TwoBoneJob::from_model(model, [chain.hip, chain.knee, chain.ankle], solve_target, pole)
        .ok_or(IkError::BrokenHierarchy { bone: chain.hip })
        .and_then(|job| job.run())
    {
        Ok(solution) => solution,
        Err(e) => {
            // Undo the pre-bend: errors leave the pose untouched.
            locals[chain.knee] = knee_local;
            refresh_model(parents, locals, model, chain.knee);
            return Err(e);
        }
    };
    {
        let (head, tail) = locals.split_at_mut(chain.knee);
        solution.apply(&mut head[chain.hip], &mut tail[0]);
    }
    refresh_model(parents, locals, model, chain.hip);

    // 4. Point the ball at the toe target.
    if let Some(toe) = chain.toe
        && settings.orient_heel
    {
        orient_towards(parents, locals, model, chain.ankle, toe, toe_target);
    }

    // 5. Keep the toe end above the ground.
    let mut toe_end_target = None;
    if let (Some(toe), Some(end), Some(h), true) = (chain.toe, chain.toe_end, settings.min_heights, settings.orient_toe)
    {
        let mut target = model[end].translation;
        if target.y < h.toe_end {
            target.y = h.toe_end;
            orient_towards(parents, locals, model, toe, end, target);
            toe_end_target = Some(target);
        }
    }

    let rotations = [
        locals[chain.hip].rotation,
        locals[chain.knee].rotation,
        locals[chain.ankle].rotation,
        chain.toe.map_or(Quat::IDENTITY, |t| locals[t].rotation),
    ];
    let corrections: [Quat; 4] = core::array::from_fn(|i| (old[i].inverse() * rotations[i]).normalize());
    let end = chain.toe.map_or(model[chain.ankle].translation, |t| model[t].translation);
    let aim = if chain.toe.is_some() { toe_target } else { heel_target };
    let reached = (end - aim).length() <= 1e-3 * reach.max(f32::MIN_POSITIVE);
    Ok(LegSolution { rotations, corrections, toe_target, heel_target, toe_end_target, reached })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small tree: 0 root; 1 and 4 its children; 2, 3 under 1 (3 under 2); 5 under 4.
    fn tree() -> (Vec<Option<usize>>, Vec<Xform>, Vec<Xform>) {
        let parents = vec![None, Some(0), Some(1), Some(2), Some(0), Some(4)];
        let locals: Vec<Xform> = (0..6)
            .map(|i| Xform {
                translation: Vec3::new(0.1 * i as f32, -0.4, 0.05),
                rotation: Quat::from_rotation_x(0.2 * i as f32) * Quat::from_rotation_y(0.1),
                scale: Vec3::ONE,
            })
            .collect();
        let mut model = locals.clone();
        refresh_model(&parents, &locals, &mut model, 0);
        for i in 1..6 {
            let fk = model[parents[i].unwrap()].mul_xform(&locals[i]);
            assert!(model[i].translation.distance(fk.translation) < 1e-6, "bone {i} refreshed from its root");
        }
        (parents, locals, model)
    }

    #[test]
    fn refresh_model_recomputes_the_turned_bone_and_its_descendants_only() {
        let (parents, mut locals, mut model) = tree();
        let before = model.clone();
        locals[1].rotation = Quat::from_rotation_z(0.7) * locals[1].rotation;
        // A sentinel in a bone outside the subtree shows whether it was touched.
        model[5].translation = Vec3::splat(99.0);
        refresh_model(&parents, &locals, &mut model, 1);
        for i in [1, 2, 3] {
            let fk = model[parents[i].unwrap()].mul_xform(&locals[i]);
            assert!(model[i].translation.distance(fk.translation) < 1e-6, "bone {i} follows the turn");
            assert!(model[i].translation.distance(before[i].translation) > 1e-3 || i == 1, "bone {i} moved");
        }
        assert_eq!(model[0], before[0]);
        assert_eq!(model[4], before[4]);
        assert_eq!(model[5].translation, Vec3::splat(99.0), "a bone outside the subtree is left alone");
    }
}
