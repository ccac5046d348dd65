//! Skeletons, forward kinematics, and the one piece of bone maths everything else uses.
//!
//! A [`Skeleton`] is a list of bones, each with an optional parent that comes **before** it
//! (so one pass from first to last visits parents before children), a name, and a rest local
//! transform. A pose is a slice of local [`Xform`]s, one per bone, in the parent's space.
//!
//! Forward kinematics composes locals from the roots down: `model[i] = model[parent] * local[i]`.
//!
//! Turning a bone by a rotation `T` given in model space means turning its local rotation by
//! `T` as seen from its parent: `local' = parent⁻¹ · T · parent · local`, or equivalently
//! multiplying the local by the correction `C = R⁻¹ · T · R` where `R` is the bone's own model
//! rotation (`local' = local · C`).

use glam::Quat;

use crate::{IkError, Xform};

/// A bone hierarchy with rest pose. Parents always come before their children.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skeleton {
    parents: Vec<Option<usize>>,
    names: Vec<String>,
    rest: Vec<Xform>,
}

impl Skeleton {
    /// Builds a skeleton from parent indices, bone names and rest locals (all the same length).
    ///
    /// Errors when the lengths differ or a parent index does not come before its child.
    pub fn new(parents: Vec<Option<usize>>, names: Vec<String>, rest: Vec<Xform>) -> Result<Self, IkError> {
        if names.len() != parents.len() {
            return Err(IkError::LengthMismatch { expected: parents.len(), got: names.len() });
        }
        if rest.len() != parents.len() {
            return Err(IkError::LengthMismatch { expected: parents.len(), got: rest.len() });
        }
        check_parents(&parents)?;
        Ok(Skeleton { parents, names, rest })
    }

    /// Number of bones.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// True when the skeleton has no bones.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// Parent index of each bone (`None` for roots).
    pub fn parents(&self) -> &[Option<usize>] {
        &self.parents
    }

    /// Parent of one bone.
    pub fn parent(&self, bone: usize) -> Option<usize> {
        self.parents.get(bone).copied().flatten()
    }

    /// Bone names, by index.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Rest-pose locals, by index.
    pub fn rest(&self) -> &[Xform] {
        &self.rest
    }

    /// Index of the bone with this exact name.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Finds a chain of bones by name, root first; errors list every missing name.
    pub fn find_chain(&self, names: &[&str]) -> Result<Vec<usize>, Vec<String>> {
        let mut missing = Vec::new();
        let mut found = Vec::with_capacity(names.len());
        for name in names {
            match self.find(name) {
                Some(i) => found.push(i),
                None => missing.push((*name).to_string()),
            }
        }
        if missing.is_empty() { Ok(found) } else { Err(missing) }
    }

    /// True when `ancestor` is `bone` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: usize, mut bone: usize) -> bool {
        loop {
            if bone == ancestor {
                return true;
            }
            match self.parent(bone) {
                Some(p) => bone = p,
                None => return false,
            }
        }
    }

    /// Forward kinematics: model-space transforms of every bone from its locals.
    /// `locals` and `model` must both have one entry per bone.
    pub fn model_from_local(&self, locals: &[Xform], model: &mut [Xform]) -> Result<(), IkError> {
        forward_kinematics(&self.parents, locals, &Xform::IDENTITY, model)
    }

    /// The model-space rest pose.
    pub fn rest_model(&self) -> Vec<Xform> {
        let mut model = vec![Xform::IDENTITY; self.len()];
        // Cannot fail: lengths match and parents were checked in `new`.
        let _ = self.model_from_local(&self.rest, &mut model);
        model
    }
}

/// Checks that every parent index comes before its child.
pub fn check_parents(parents: &[Option<usize>]) -> Result<(), IkError> {
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = *p
            && p >= i
        {
            return Err(IkError::BrokenHierarchy { bone: i });
        }
    }
    Ok(())
}

/// Forward kinematics over any parent list: `model[i] = model[parent] * local[i]`, with roots
/// placed under `base`. Parents must come before children.
pub fn forward_kinematics(
    parents: &[Option<usize>],
    locals: &[Xform],
    base: &Xform,
    model: &mut [Xform],
) -> Result<(), IkError> {
    if locals.len() != parents.len() {
        return Err(IkError::LengthMismatch { expected: parents.len(), got: locals.len() });
    }
    if model.len() != parents.len() {
        return Err(IkError::LengthMismatch { expected: parents.len(), got: model.len() });
    }
    for i in 0..parents.len() {
        let parent = match parents[i] {
            Some(p) if p < i => model[p],
            Some(_) => return Err(IkError::BrokenHierarchy { bone: i }),
            None => *base,
        };
        model[i] = parent.mul_xform(&locals[i]);
    }
    Ok(())
}

/// Blends a solved pose back toward its input: each local of `solved` becomes
/// `lerp/slerp(input, solved, weight)` (translation and rotation; the solved scale is kept).
/// `weight` ≥ 1 leaves `solved` as it is, ≤ 0 (or NaN) restores `input` exactly. The job weight
/// of [`crate::foot_placement::FootPlacement`]; only the common prefix of the two slices is used.
///
/// ```
/// use glam::{Quat, Vec3};
/// use ik_core::Xform;
/// use ik_core::skeleton::blend_locals;
///
/// let input = [Xform::IDENTITY];
/// let mut solved = [Xform::from_translation_rotation(Vec3::X, Quat::from_rotation_y(1.0))];
/// blend_locals(&input, &mut solved, 0.5);
/// assert!((solved[0].translation - Vec3::X * 0.5).length() < 1e-6);
/// assert!((solved[0].rotation.angle_between(Quat::IDENTITY) - 0.5).abs() < 1e-5);
/// blend_locals(&input, &mut solved, 0.0);
/// assert_eq!(solved, input);
/// ```
pub fn blend_locals(input: &[Xform], solved: &mut [Xform], weight: f32) {
    if weight >= 1.0 {
        return;
    }
    for (solved, input) in solved.iter_mut().zip(input) {
        *solved = if weight > 0.0 {
            Xform {
                translation: input.translation.lerp(solved.translation, weight),
                rotation: input.rotation.slerp(solved.rotation, weight),
                scale: solved.scale,
            }
        } else {
            *input
        };
    }
}

/// The local rotation that turns a bone by `turn`, a rotation given in model space:
/// `parent⁻¹ · turn · parent · local`, normalized.
#[inline]
pub fn turn_local_by_model_rotation(local: Quat, parent_model: Quat, turn: Quat) -> Quat {
    (parent_model.inverse() * turn * parent_model * local).normalize()
}

/// The local-space correction `C` (to use as `local' = local · C`) equivalent to turning a bone
/// whose model rotation is `bone_model` by `turn` in model space: `C = R⁻¹ · turn · R`.
#[inline]
pub fn model_turn_to_local_correction(bone_model: Quat, turn: Quat) -> Quat {
    (bone_model.inverse() * turn * bone_model).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn arm() -> Skeleton {
        Skeleton::new(
            vec![None, Some(0), Some(1)],
            vec!["shoulder".into(), "elbow".into(), "hand".into()],
            vec![
                Xform::from_translation(Vec3::new(0.0, 1.5, 0.0)),
                Xform::from_translation_rotation(Vec3::X * 0.3, Quat::from_rotation_z(0.5)),
                Xform::from_translation(Vec3::X * 0.25),
            ],
        )
        .unwrap()
    }

    #[test]
    fn fk_composes_parent_then_child() {
        let s = arm();
        let model = s.rest_model();
        let expected_hand = Vec3::new(0.3, 1.5, 0.0) + Quat::from_rotation_z(0.5) * (Vec3::X * 0.25);
        assert!((model[2].translation - expected_hand).length() < 1e-6);
    }

    #[test]
    fn model_turn_and_local_correction_agree() {
        let s = arm();
        let mut locals = s.rest().to_vec();
        locals[0].rotation = Quat::from_rotation_y(0.7);
        let mut model = vec![Xform::IDENTITY; 3];
        s.model_from_local(&locals, &mut model).unwrap();
        let turn = Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), 0.4);
        let via_parent = turn_local_by_model_rotation(locals[1].rotation, model[0].rotation, turn);
        let via_correction = locals[1].rotation * model_turn_to_local_correction(model[1].rotation, turn);
        assert!(via_parent.angle_between(via_correction) < 1e-5);
        locals[1].rotation = via_parent;
        let mut turned = vec![Xform::IDENTITY; 3];
        s.model_from_local(&locals, &mut turned).unwrap();
        assert!(turned[1].rotation.angle_between(turn * model[1].rotation) < 1e-5);
    }

    #[test]
    fn broken_hierarchy_is_an_error() {
        let err = Skeleton::new(vec![Some(1), None], vec!["a".into(), "b".into()], vec![Xform::IDENTITY; 2]);
        assert_eq!(err, Err(IkError::BrokenHierarchy { bone: 0 }));
        assert_eq!(
            arm().find_chain(&["shoulder", "wrist", "hand", "finger"]),
            Err(vec!["wrist".into(), "finger".into()])
        );
    }
}
