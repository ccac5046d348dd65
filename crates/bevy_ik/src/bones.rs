//! Gathering bones from the Bevy hierarchy into a small [`ik_core`] pose, and writing back.
//!
//! A `BoneSet` holds the bones one IK component needs (its key bones plus every ancestor up to
//! a stop entity, or to the top of the hierarchy), parents first. Each frame `BoneSet::refresh`
//! re-reads their local `Transform`s — this frame's animated pose — and runs forward kinematics,
//! so solvers never see last frame's `GlobalTransform`. Writing back is the crate's one
//! write-back (`GatheredBones::write_back`): only the locals that differ from what the
//! `Transform` holds are written, so untouched bones keep their change ticks.
//!
//! IK is a correction on top of the animation, never fed back into itself: a bone whose
//! `Transform` still holds exactly what IK wrote last frame was not re-animated (a bone no clip
//! drives, or a paused player), so its animated pose is taken to be last frame's input instead.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use ik_core::Xform;
use ik_core::skeleton::forward_kinematics;

use crate::fault::IkFault;
use crate::write_back::GatheredBones;

/// Read access to every entity's local transform and parent.
pub type Hierarchy<'w, 's> = Query<'w, 's, (&'static Transform, Option<&'static ChildOf>)>;

/// Deepest hierarchy walked before it is declared broken (a cycle or a runaway chain).
const MAX_DEPTH: usize = 512;

/// A Bevy `Transform` as an [`Xform`] (the same glam types, no conversion).
#[inline]
pub fn xform_of(t: &Transform) -> Xform {
    Xform { translation: t.translation, rotation: t.rotation, scale: t.scale }
}

/// An entity's world transform composed fresh from the local transforms of it and its
/// ancestors. `None` when the entity (or an ancestor) has no `Transform` or the chain is broken.
pub fn world_of(entity: Entity, hierarchy: &Hierarchy) -> Option<Xform> {
    let (transform, mut parent) = hierarchy.get(entity).ok()?;
    let mut world = xform_of(transform);
    for _ in 0..MAX_DEPTH {
        let Some(p) = parent else { return Some(world) };
        let (t, next) = hierarchy.get(p.parent()).ok()?;
        world = xform_of(t).mul_xform(&world);
        parent = next;
    }
    None
}

/// The world transform of the last entity asked for, kept for the next request for the same
/// entity: chains solved one after another under the same stop (a character's two legs, its
/// two arms) compose it once. Valid only while no `Transform` changes (one solve pass).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StopCache(Option<(Entity, Xform)>);

impl StopCache {
    /// [`world_of`], reusing the last answer when `entity` is the same.
    pub fn world_of(&mut self, entity: Entity, hierarchy: &Hierarchy) -> Option<Xform> {
        if let Some((last, world)) = self.0
            && last == entity
        {
            return Some(world);
        }
        let world = world_of(entity, hierarchy)?;
        self.0 = Some((entity, world));
        Some(world)
    }
}

/// The joints of a chain ending at `tip`: `count` ancestors above it (or up to `root`), root first.
pub(crate) fn chain_entities(
    tip: Entity,
    root: Option<Entity>,
    count: usize,
    hierarchy: &Hierarchy,
) -> Result<Vec<Entity>, IkFault> {
    let mut joints = vec![tip];
    let mut current = tip;
    loop {
        if root == Some(current) || (root.is_none() && joints.len() > count) {
            break;
        }
        let (_, parent) = hierarchy
            .get(current)
            .map_err(|_| IkFault::MissingBone(format!("{current} has no Transform or was despawned")))?;
        let Some(parent) = parent else {
            return Err(IkFault::MissingBone(match root {
                Some(r) => format!("chain root {r} is not an ancestor of tip {tip}"),
                None => format!("tip {tip} has fewer than {count} ancestors"),
            }));
        };
        current = parent.parent();
        joints.push(current);
        if joints.len() > 512 {
            return Err(IkFault::MissingBone(format!("hierarchy above {tip} is broken")));
        }
    }
    joints.reverse();
    Ok(joints)
}

/// The gather rule of `GatheredBones`: a `Transform` holding exactly what IK wrote into it
/// last frame was not re-animated, so its animated input is still last frame's (`None`: keep
/// it); anything else is this frame's animation (`Some(current)`).
#[inline]
pub(crate) fn animated_input(current: Xform, written: Option<Xform>) -> Option<Xform> {
    (written != Some(current)).then_some(current)
}

/// The bones one IK component works on, with scratch buffers reused every frame.
#[derive(Clone, Debug, Default)]
pub(crate) struct BoneSet {
    /// Bone entities, parents before children.
    pub entities: Vec<Entity>,
    /// Parent of each bone within the set (`None`: its parent is the stop entity, or it is a
    /// hierarchy root).
    pub parents: Vec<Option<usize>>,
    /// Entity each bone's `ChildOf` pointed to when the set was built (checked every frame).
    parent_entities: Vec<Option<Entity>>,
    /// Entity the walk stopped at (the character root), if any.
    pub stop: Option<Entity>,
    /// Index in `entities` of each key bone, in the order the keys were given.
    pub keys: Vec<usize>,
    /// This frame's animated locals: the solver's input.
    pub read: Vec<Xform>,
    /// Locals after solving: what `GatheredBones::write_back` writes.
    pub locals: Vec<Xform>,
    /// What each `Transform` held when read this frame.
    current: Vec<Xform>,
    /// What IK left in each `Transform` last frame (`None` before the first write).
    written: Vec<Option<Xform>>,
    /// Transforms in the set's space (relative to `stop`, or world when there is no stop).
    pub model: Vec<Xform>,
    /// World transform of the stop entity this frame (identity without a stop).
    pub stop_world: Xform,
}

impl BoneSet {
    /// Gathers `keys` and all their ancestors below `stop` (or up to the hierarchy's top).
    /// Errors name the first key that is missing or not under `stop`.
    pub fn build(keys: &[Entity], stop: Option<Entity>, hierarchy: &Hierarchy) -> Result<BoneSet, String> {
        // Path of each key up to the stop, recorded with its depth below the stop.
        let mut depth_of: HashMap<Entity, (usize, Option<Entity>)> = HashMap::default();
        for &key in keys {
            let mut path = Vec::new();
            let mut current = key;
            let reached_stop = loop {
                if Some(current) == stop {
                    break true;
                }
                let Ok((_, parent)) = hierarchy.get(current) else {
                    return Err(format!("entity {current} (on the path of {key}) has no Transform or was despawned"));
                };
                let parent = parent.map(ChildOf::parent);
                path.push((current, parent));
                if path.len() > MAX_DEPTH {
                    return Err(format!("the hierarchy above {key} is deeper than {MAX_DEPTH} or has a cycle"));
                }
                match parent {
                    Some(p) => current = p,
                    None => break stop.is_none(),
                }
            };
            if !reached_stop {
                return Err(format!(
                    "bone {key} is not a descendant of {}",
                    stop.map_or("?".into(), |s| s.to_string())
                ));
            }
            let len = path.len();
            for (i, (entity, parent)) in path.into_iter().enumerate() {
                depth_of.insert(entity, (len - i, parent));
            }
        }
        let mut ordered: Vec<(usize, Entity, Option<Entity>)> =
            depth_of.iter().map(|(e, (d, p))| (*d, *e, *p)).collect();
        ordered.sort_by_key(|(d, e, _)| (*d, e.to_bits()));
        let entities: Vec<Entity> = ordered.iter().map(|(_, e, _)| *e).collect();
        let parent_entities: Vec<Option<Entity>> = ordered.iter().map(|(_, _, p)| *p).collect();
        let parents = parent_entities.iter().map(|p| p.and_then(|p| entities.iter().position(|e| *e == p))).collect();
        let keys = keys.iter().map(|k| entities.iter().position(|e| e == k).unwrap_or(0)).collect();
        let n = entities.len();
        Ok(BoneSet {
            entities,
            parents,
            parent_entities,
            stop,
            keys,
            read: vec![Xform::IDENTITY; n],
            locals: vec![Xform::IDENTITY; n],
            current: vec![Xform::IDENTITY; n],
            written: vec![None; n],
            model: vec![Xform::IDENTITY; n],
            stop_world: Xform::IDENTITY,
        })
    }

    /// Re-reads every local transform (this frame's animated pose) and runs forward kinematics.
    /// Errors when a bone was despawned or re-parented since the set was built.
    pub fn refresh(&mut self, hierarchy: &Hierarchy) -> Result<(), String> {
        for (i, entity) in self.entities.iter().enumerate() {
            let Ok((transform, parent)) = hierarchy.get(*entity) else {
                return Err(format!("bone {entity} was despawned or lost its Transform"));
            };
            if parent.map(ChildOf::parent) != self.parent_entities[i] {
                return Err(format!("bone {entity} was re-parented"));
            }
            let current = xform_of(transform);
            if let Some(animated) = animated_input(current, self.written[i]) {
                self.read[i] = animated;
            }
            self.current[i] = current;
        }
        self.stop_world = match self.stop {
            Some(stop) => world_of(stop, hierarchy).ok_or_else(|| format!("root {stop} was despawned"))?,
            None => Xform::IDENTITY,
        };
        self.locals.copy_from_slice(&self.read);
        forward_kinematics(&self.parents, &self.locals, &Xform::IDENTITY, &mut self.model).map_err(|e| e.to_string())
    }

    /// Recomputes `model` from the current `locals` (after a solver changed some of them).
    pub fn update_model(&mut self) {
        // Cannot fail: the buffers have the set's length and parents come first by construction.
        let _ = forward_kinematics(&self.parents, &self.locals, &Xform::IDENTITY, &mut self.model);
    }

    /// Re-reads this frame's animated locals and applies the last solve's corrections to them
    /// (each bone's turn in its local frame and its shift), without solving: a character the
    /// frame budget skips keeps its IK on its new pose. Cheap on purpose: no parent checks, no
    /// world transform of the stop and no forward kinematics (`model` and `stop_world` stay the
    /// last solve's). Errors when a bone is gone.
    pub fn replay(&mut self, hierarchy: &Hierarchy) -> Result<(), String> {
        for i in 0..self.entities.len() {
            let Ok((transform, _)) = hierarchy.get(self.entities[i]) else {
                return Err(format!("bone {} was despawned or lost its Transform", self.entities[i]));
            };
            let current = xform_of(transform);
            let (read, local) = (self.read[i], self.locals[i]);
            let animated = animated_input(current, self.written[i]).unwrap_or(read);
            self.locals[i] = if read == local {
                animated
            } else {
                Xform {
                    rotation: (animated.rotation * (read.rotation.inverse() * local.rotation)).normalize(),
                    translation: animated.translation + (local.translation - read.translation),
                    ..animated
                }
            };
            self.read[i] = animated;
            self.current[i] = current;
        }
        if !self.changes_are_finite() {
            self.locals.copy_from_slice(&self.read);
        }
        Ok(())
    }

    /// Converts a world-space point into the set's space.
    pub fn world_to_model(&self, point: Vec3) -> Vec3 {
        self.stop_world.inverse_transform_point(point)
    }
}

impl GatheredBones for BoneSet {
    fn len(&self) -> usize {
        self.entities.len()
    }

    fn entity(&self, i: usize) -> Entity {
        self.entities[i]
    }

    #[inline]
    fn pending(&self, i: usize) -> Option<Xform> {
        let new = *self.locals.get(i)?;
        (new != self.current[i]).then_some(new)
    }

    fn mark_written(&mut self) {
        for (written, local) in self.written.iter_mut().zip(&self.locals) {
            *written = Some(*local);
        }
    }

    fn restore_animated(&mut self) {
        self.locals.copy_from_slice(&self.read);
        self.update_model();
    }

    fn changes_are_finite(&self) -> bool {
        self.locals.iter().zip(&self.read).all(|(new, old)| new == old || new.is_finite())
    }
}

/// After a fault, puts the animated pose back (unless the bones themselves are gone); returns
/// whether there is something to write.
pub(crate) fn restore_after_fault(bones: Option<&mut BoneSet>, outcome: &Result<(), IkFault>) -> bool {
    match (bones, outcome) {
        (_, Err(IkFault::MissingBone(_))) | (None, _) => false,
        (Some(bones), _) => {
            bones.restore_animated();
            true
        }
    }
}

/// Multiplies a local-space correction onto a local rotation (identity leaves it bit-exact).
pub(crate) fn apply_correction(local: &mut Xform, correction: Quat) {
    if correction != Quat::IDENTITY {
        local.rotation = (local.rotation * correction).normalize();
    }
}
