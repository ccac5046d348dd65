//! The inline state of a two-bone [`IkChain`](crate::chain::IkChain) — its three joints, this
//! frame's animated locals, the solved locals and what IK wrote last frame.

use bevy::prelude::*;
use ik_core::Xform;

use crate::bones::{Hierarchy, StopCache, animated_input, xform_of};
use crate::fault::IkFault;
use crate::write_back::GatheredBones;

/// The three joints of a two-bone chain (root, middle, tip), held inline: what a
/// [`BoneSet`](crate::bones::BoneSet) holds for longer chains, in one block of the chain's
/// component instead of nine heap blocks.
/// Same rules: this frame's animated locals are read fresh, a bone still holding what IK wrote
/// last frame keeps last frame's input, and the solve runs in the root's parent's space. Kept
/// small (the solve streams it every frame): model transforms are worked out when needed, and
/// what a `Transform` held when read is either `read` or `written` (see `fresh`).
#[derive(Clone, Debug)]
pub(crate) struct Limb {
    /// Root, middle and tip entities.
    pub(crate) entities: [Entity; 3],
    /// Each joint's parent when built (the root's is the stop entity, if any).
    parents: [Option<Entity>; 3],
    /// This frame's animated locals of all three joints: the solver's input.
    read: [Xform; 3],
    /// Root and middle locals after solving: what is written (the tip never turns).
    pub(crate) locals: [Xform; 2],
    /// What IK left in the root's and middle's `Transform`s last frame (where `has_written`).
    written: [Xform; 2],
    /// Whether IK has written the root and the middle joint yet.
    has_written: [bool; 2],
    /// Whether the root's and middle's `Transform`s held fresh (animated) values when read this
    /// frame, so they held `read`; otherwise they still held `written`.
    fresh: [bool; 2],
    /// Whether the root's and middle's new locals differ from what their `Transform`s held
    /// (decided by [`Limb::settle`] after each solve, before `written` is updated).
    changed: [bool; 2],
    /// World transform of the root's parent this frame (identity without one).
    pub(crate) stop_world: Xform,
}

impl Limb {
    pub(crate) fn build(joints: &[Entity], hierarchy: &Hierarchy) -> Result<Limb, IkFault> {
        let [root, mid, tip] = joints else {
            return Err(IkFault::MissingBone(format!("a two-bone chain needs 3 joints, got {}", joints.len())));
        };
        let mut parents = [None; 3];
        for (parent, &entity) in parents.iter_mut().zip(joints) {
            let (_, child_of) = hierarchy
                .get(entity)
                .map_err(|_| IkFault::MissingBone(format!("{entity} has no Transform or was despawned")))?;
            *parent = child_of.map(ChildOf::parent);
        }
        Ok(Limb {
            entities: [*root, *mid, *tip],
            parents,
            read: [Xform::IDENTITY; 3],
            locals: [Xform::IDENTITY; 2],
            written: [Xform::IDENTITY; 2],
            has_written: [false; 2],
            fresh: [true; 2],
            changed: [false; 2],
            stop_world: Xform::IDENTITY,
        })
    }

    /// Re-reads the locals (this frame's animated pose). Errors when a joint was despawned or
    /// re-parented since the limb was built.
    pub(crate) fn refresh(&mut self, hierarchy: &Hierarchy, stops: &mut StopCache) -> Result<(), String> {
        for i in 0..3 {
            let entity = self.entities[i];
            let Ok((transform, parent)) = hierarchy.get(entity) else {
                return Err(format!("bone {entity} was despawned or lost its Transform"));
            };
            if parent.map(ChildOf::parent) != self.parents[i] {
                return Err(format!("bone {entity} was re-parented"));
            }
            let current = xform_of(transform);
            if i == 2 {
                self.read[2] = current;
                continue;
            }
            let animated = animated_input(current, self.has_written[i].then_some(self.written[i]));
            self.fresh[i] = animated.is_some();
            if let Some(animated) = animated {
                self.read[i] = animated;
            }
        }
        self.stop_world = match self.parents[0] {
            Some(stop) => stops.world_of(stop, hierarchy).ok_or_else(|| format!("root {stop} was despawned"))?,
            None => Xform::IDENTITY,
        };
        self.locals = [self.read[0], self.read[1]];
        Ok(())
    }

    /// The joints' transforms in the root's parent's space (forward kinematics of `locals`).
    pub(crate) fn model(&self) -> [Xform; 3] {
        let root = self.locals[0];
        let mid = root.mul_xform(&self.locals[1]);
        [root, mid, mid.mul_xform(&self.read[2])]
    }

    /// Decides which joints have something to write: those whose new local differs from what
    /// their `Transform` held when read. Once per solve, before [`GatheredBones::mark_written`]
    /// (which overwrites `written`, what a non-fresh `Transform` held).
    pub(crate) fn settle(&mut self) {
        for i in 0..2 {
            let held = if self.fresh[i] { self.read[i] } else { self.written[i] };
            self.changed[i] = self.locals[i] != held;
        }
    }
}

/// The root and the middle joint are written (the tip never turns); `pending` is valid after
/// [`Limb::settle`].
impl GatheredBones for Limb {
    fn len(&self) -> usize {
        2
    }

    fn entity(&self, i: usize) -> Entity {
        self.entities[i]
    }

    #[inline]
    fn pending(&self, i: usize) -> Option<Xform> {
        (*self.changed.get(i)?).then(|| self.locals[i])
    }

    fn mark_written(&mut self) {
        self.written = self.locals;
        self.has_written = [true; 2];
    }

    fn restore_animated(&mut self) {
        self.locals = [self.read[0], self.read[1]];
    }

    fn changes_are_finite(&self) -> bool {
        self.locals.iter().zip(&self.read).all(|(new, old)| new == old || new.is_finite())
    }
}
