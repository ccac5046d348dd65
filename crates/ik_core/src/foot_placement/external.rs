//! External feet: legs whose foot (ankle) bone does not hang below the shin (knee), as in
//! IK-control rigs where the foot hangs from the root or from a control bone and the animation
//! keys the shin so that its end meets the foot.
//!
//! **Method.** Before anything moves, the foot's position in the knee's frame is measured from
//! this frame's animated pose (`ankle_in_knee = knee_model⁻¹ · ankle_model.translation`). While
//! the leg is solved the foot is treated as if it were rigidly attached there: after the pelvis
//! drop and after every change of the knee, its model translation is put back at
//! `knee_model · ankle_in_knee`, so the two-bone solve brings exactly that point to the placed
//! ankle target. Last, the foot's model translation and the rotation foot placement chose are
//! turned into its local transform through its own parent's (current) model transform, and
//! written; its children (the toe) follow by forward kinematics.
//!
//! **Invariants.** Nothing is done for a foot below its shin (the ordinary leg costs what it
//! did). The foot must not be an ancestor of its hip or knee. Every value written is finite.

use glam::{Quat, Vec3};

use crate::leg::{LegChain, descends_from, refresh_model};
use crate::{IkError, Xform};

/// Whether the chain's ankle (foot) is outside the knee's subtree.
#[inline]
pub(crate) fn is_external(parents: &[Option<usize>], leg: &LegChain) -> bool {
    !descends_from(parents, leg.ankle, leg.knee)
}

/// Whether every ancestor of `bone` comes before its child.
fn ordered_up(parents: &[Option<usize>], mut bone: usize) -> bool {
    while let Some(p) = parents.get(bone).copied().flatten() {
        if p >= bone {
            return false;
        }
        bone = p;
    }
    true
}

/// Checks an external-foot chain (its knee below its hip, the foot anywhere outside the knee's
/// subtree but not above hip or knee, toe and toe end below the foot) and what moving the foot
/// reads: finite, and the foot's parent without a zero scale axis (the foot could not be moved
/// in its frame; reported as [`IkError::NonFiniteInput`]). Returns the foot's position in the
/// knee's frame.
pub(crate) fn validate(
    parents: &[Option<usize>],
    locals: &[Xform],
    model: &[Xform],
    leg: &LegChain,
) -> Result<Vec3, IkError> {
    let n = parents.len();
    if locals.len() != n || model.len() != n {
        return Err(IkError::LengthMismatch { expected: n, got: locals.len().min(model.len()) });
    }
    if leg.hip >= n {
        return Err(IkError::BrokenHierarchy { bone: leg.hip });
    }
    if leg.knee >= n || !descends_from(parents, leg.knee, leg.hip) {
        return Err(IkError::BrokenHierarchy { bone: leg.knee });
    }
    let ankle = leg.ankle;
    if ankle >= n
        || ankle == leg.hip
        || ankle == leg.knee
        || !ordered_up(parents, ankle)
        || descends_from(parents, leg.hip, ankle)
        || descends_from(parents, leg.knee, ankle)
    {
        return Err(IkError::BrokenHierarchy { bone: ankle });
    }
    let mut previous = ankle;
    for bone in [leg.toe, leg.toe_end].into_iter().flatten() {
        if bone >= n || !descends_from(parents, bone, previous) {
            return Err(IkError::BrokenHierarchy { bone });
        }
        previous = bone;
    }
    let parent = parents[ankle].map_or(Xform::IDENTITY, |p| model[p]);
    let (knee, foot) = (model[leg.knee], model[ankle]);
    let in_knee = knee.inverse_transform_point(foot.translation);
    let finite = knee.is_finite()
        && foot.is_finite()
        && locals[ankle].is_finite()
        && parent.is_finite()
        && in_knee.is_finite()
        && parent.scale.abs().min_element() > 0.0
        && parent.inverse_transform_point(foot.translation).is_finite()
        && (parent.rotation.inverse() * foot.rotation).is_finite();
    if !finite {
        return Err(IkError::NonFiniteInput);
    }
    Ok(in_knee)
}

/// Puts the foot's model translation back at the shin's end, `knee_model · ankle_in_knee`.
#[inline]
pub(crate) fn attach(model: &mut [Xform], leg: &LegChain, ankle_in_knee: Vec3) {
    let at = model[leg.knee].transform_point(ankle_in_knee);
    if at.is_finite() {
        model[leg.ankle].translation = at;
    }
}

/// Writes the foot's local transform so its model transform is `translation` (the attached
/// shin end, already in `model`) and `rotation`, through its own parent's model transform;
/// refreshes the model of the foot and its subtree. Returns whether it wrote (only finite
/// values are written).
pub(crate) fn place(
    parents: &[Option<usize>],
    locals: &mut [Xform],
    model: &mut [Xform],
    ankle: usize,
    rotation: Quat,
) -> bool {
    let parent = parents[ankle].map_or(Xform::IDENTITY, |p| model[p]);
    let translation = parent.inverse_transform_point(model[ankle].translation);
    let local_rotation = (parent.rotation.inverse() * rotation).normalize();
    if !(translation.is_finite() && local_rotation.is_finite()) {
        // Keep `model` the forward kinematics of `locals`.
        model[ankle] = parent.mul_xform(&locals[ankle]);
        return false;
    }
    locals[ankle].translation = translation;
    locals[ankle].rotation = local_rotation;
    if parents[ankle].is_none() {
        model[ankle] = locals[ankle];
    }
    refresh_model(parents, locals, model, ankle);
    true
}
