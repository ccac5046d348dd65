//! The pose a skinned character was bound in, read from its skin instead of from whatever frame
//! a clip has reached when rigging happens (a clip started when the scene is ready has already
//! moved the bones).
//!
//! Method: a skin joint's rest transform relative to the character root is `F · IBM⁻¹`, with
//! `IBM` its inverse bind matrix and `F` where the skinned mesh was bound: most exporters bind
//! it where its node stands (relative to the root), some at the scene's origin (glTF ignores a
//! skinned mesh node's transform), so both are tried and the one that turns the skeleton's top joints
//! least from their current local rotations is kept (a clip turns a pelvis a little, not the
//! whole body 90°). Other bones compose their own
//! local transforms onto the nearest joint or the root. The bind pose is used only when it keeps
//! every joint's bone length as the current pose has it (rotations never change a length; a
//! file whose matrices disagree with its nodes falls back to the current pose), or when the
//! joints' nodes hold no rest at all (every joint at its parent's origin, as babylon2gltf
//! writes them: the matrices are the only rest the file has).

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use ik_core::Xform;

use crate::bones::{Hierarchy, xform_of};

/// Deepest hierarchy walked (as [`crate::bones`]).
const MAX_DEPTH: usize = 512;

/// Largest relative difference between a joint's bind and current bone length for the two to
/// count as the same bone.
#[cfg(feature = "scene")]
const LENGTH_TOLERANCE: f32 = 0.01;

/// Rest transforms relative to a character root: the skin's joints from their inverse bind
/// matrices, everything else from its local transform.
#[derive(Debug)]
pub(crate) struct BindPose {
    root: Entity,
    joints: HashMap<Entity, Xform>,
    /// The joints' nodes hold no rest at all (each at its parent's origin, as babylon2gltf
    /// writes them): the matrices are the only rest there is.
    nodes_empty: bool,
}

impl BindPose {
    /// No skin: every rest transform is the current one.
    pub(crate) fn current(root: Entity) -> Self {
        BindPose { root, joints: HashMap::default(), nodes_empty: false }
    }

    /// The bind pose of `joints` whose inverse bind matrices are `inverse_binds`, for a mesh at
    /// `mesh` relative to `root`; [`BindPose::current`] when the matrices are not finite or do
    /// not keep the current bone lengths.
    #[cfg(feature = "scene")]
    pub(crate) fn from_skin(
        root: Entity,
        mesh: Xform,
        joints: &[Entity],
        inverse_binds: &[Mat4],
        hierarchy: &Hierarchy,
    ) -> Self {
        let bound_at = |mesh: Mat4| {
            let mut pose = BindPose::current(root);
            for (joint, inverse_bind) in joints.iter().zip(inverse_binds) {
                let (scale, rotation, translation) = (mesh * inverse_bind.inverse()).to_scale_rotation_translation();
                if scale.is_finite() && rotation.is_finite() && translation.is_finite() {
                    pose.joints.insert(*joint, Xform { translation, rotation, scale });
                }
            }
            pose
        };
        let at_node = bound_at(Mat4::from_scale_rotation_translation(mesh.scale, mesh.rotation, mesh.translation));
        let at_origin = bound_at(Mat4::IDENTITY);
        // A tie (a mesh node that does not turn) keeps the node's placement.
        let pose = if at_origin.turn_from_current(hierarchy) + 1e-3 < at_node.turn_from_current(hierarchy) {
            at_origin
        } else {
            at_node
        };
        let current = BindPose::current(root);
        let nodes_empty = {
            let mut lengths = pose.bone_lengths(&current, hierarchy).peekable();
            lengths.peek().is_some() && lengths.all(|(_, now)| now <= f32::EPSILON)
        };
        if nodes_empty || pose.keeps_lengths(&current, hierarchy) {
            BindPose { nodes_empty, ..pose }
        } else {
            BindPose::current(root)
        }
    }

    /// How far the skeleton's top joints (those whose parent is no joint) turn from their
    /// current local rotations when bound this way, radians summed: a clip turns a pelvis a
    /// little, a wrong binding turns the whole body.
    #[cfg(feature = "scene")]
    fn turn_from_current(&self, hierarchy: &Hierarchy) -> f32 {
        let mut turn = 0.0;
        for (&joint, bind) in &self.joints {
            let Ok((transform, parent)) = hierarchy.get(joint) else { continue };
            let Some(parent) = parent.map(ChildOf::parent).filter(|p| !self.joints.contains_key(p)) else { continue };
            let Some(parent_rest) = self.rest_of(parent, hierarchy) else { continue };
            let local = parent_rest.inverse().mul_xform(bind);
            turn += local.rotation.angle_between(transform.rotation);
        }
        turn
    }

    /// Whether the joints with a joint parent are as far from it as in `current` (three
    /// in four: a clip may move a few joints' translations, as CesiumMan's walk moves 2 of 18).
    #[cfg(feature = "scene")]
    fn keeps_lengths(&self, current: &BindPose, hierarchy: &Hierarchy) -> bool {
        let (mut checked, mut kept) = (0usize, 0usize);
        for (bind, now) in self.bone_lengths(current, hierarchy) {
            checked += 1;
            kept += usize::from((bind - now).abs() <= LENGTH_TOLERANCE * bind.max(now).max(1e-4));
        }
        kept * 4 >= checked * 3
    }

    /// Each joint's distance from its joint parent, bound and in `current`.
    #[cfg(feature = "scene")]
    fn bone_lengths<'a>(
        &'a self,
        current: &'a BindPose,
        hierarchy: &'a Hierarchy,
    ) -> impl Iterator<Item = (f32, f32)> + 'a {
        let length = move |pose: &BindPose, a: Entity, b: Entity| {
            Some(pose.rest_of(a, hierarchy)?.translation.distance(pose.rest_of(b, hierarchy)?.translation))
        };
        self.joints.keys().filter_map(move |&joint| {
            let parent = hierarchy.get(joint).ok()?.1?.parent();
            self.joints.contains_key(&parent).then_some(())?;
            Some((length(self, joint, parent)?, length(current, joint, parent)?))
        })
    }

    /// A skin joint's rest transform relative to its parent where its node holds none (see
    /// `nodes_empty`); `None` for any other node, whose own local transform is its rest.
    pub(crate) fn empty_node_rest(&self, entity: Entity, hierarchy: &Hierarchy) -> Option<Xform> {
        let bind = self.joints.get(&entity).filter(|_| self.nodes_empty)?;
        let parent = hierarchy.get(entity).ok()?.1?.parent();
        Some(self.rest_of(parent, hierarchy)?.inverse().mul_xform(bind))
    }

    /// `entity`'s rest transform relative to the root; `None` when it is not under the root.
    pub(crate) fn rest_of(&self, entity: Entity, hierarchy: &Hierarchy) -> Option<Xform> {
        if entity == self.root {
            return Some(Xform::IDENTITY);
        }
        let mut local = Xform::IDENTITY;
        let mut at = entity;
        for _ in 0..MAX_DEPTH {
            if let Some(bind) = self.joints.get(&at) {
                return Some(bind.mul_xform(&local));
            }
            let (transform, parent) = hierarchy.get(at).ok()?;
            local = xform_of(transform).mul_xform(&local);
            at = parent?.parent();
            if at == self.root {
                return Some(local);
            }
        }
        None
    }
}
