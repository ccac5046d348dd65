//! [`RootMotion`]: a character moved by the travel of the clips it plays, its pose made in
//! place before the IK systems (maths in [`ik_core::root_motion`]).
//!
//! **Method.** The first time a clip plays on a character's `AnimationPlayer`, its curves are
//! sampled at 60 Hz on the bones from the character root down to the hips, the bone that
//! carries the travel is found (the highest above the hips that travels, else the hips) and
//! its travel is split off: a steady motion for a clip the player repeats, the clip's own path
//! for one it plays once. Each frame, in [`crate::IkSystems::RootMotion`] (after the animation,
//! before the feet), every clip playing — at its speed, by its weight times its graph nodes'
//! weights, through any [`AnimationGraph`] — gives the travel since last frame; their blend is
//! [`RootMotionState`]'s delta, and the travel each pose carries is taken out of the carrier's
//! local `Transform`, so foot placement, locking, pose warping and footstep prediction see an
//! in-place pose and the body's real motion (the root moving, by [`RootMotionApply::ToTransform`]
//! or by your controller).
//!
//! **Your controller.** With [`RootMotionApply::Report`] (the default) nothing moves the
//! entity: read the delta and move it yourself (collisions, steps, gravity), ideally in
//! `PostUpdate` between [`crate::IkSystems::RootMotion`] and [`crate::IkSystems::Feet`] so the
//! feet see this frame's move:
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_ik::prelude::*;
//!
//! /// A kinematic controller: the animation's travel, kept out of walls (here: |x| ≤ 5 m).
//! fn follow_the_clip(mut characters: Query<(&RootMotionState, &mut Transform)>) {
//!     for (motion, mut transform) in &mut characters {
//!         motion.apply_to(&mut transform);
//!         transform.translation.x = transform.translation.x.clamp(-5.0, 5.0);
//!     }
//! }
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((DefaultPlugins, IkPlugin::default()))
//!         .add_systems(
//!             PostUpdate,
//!             follow_the_clip.after(IkSystems::RootMotion).before(IkSystems::Feet),
//!         )
//!         .run();
//! }
//! // On the character (rigged by `HumanoidIk`): `commands.entity(character).insert(RootMotion::default())`.
//! ```
//!
//! Root motion is locomotion, not a correction: it runs while [`crate::IkSettings::enabled`]
//! is off.

mod clip;

use bevy::animation::graph::{
    AnimationGraph, AnimationGraphHandle, AnimationMask, AnimationNodeIndex, AnimationNodeType,
};
use bevy::animation::{
    ActiveAnimation, AnimatedBy, AnimationClip, AnimationPlayer, AnimationTargetId, RepeatAnimation,
};
use bevy::ecs::entity::MapEntities;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use ik_core::Xform;
use ik_core::rig::RigFrame;
use ik_core::root_motion::{RootMotionSettings, Travel, blend_travel};

pub use clip::SAMPLE_RATE;
use clip::{Chain, ClipEntry};

use crate::IkSettings;
use crate::bones::{Hierarchy, xform_of};
use crate::fault::{FaultLatch, FaultSender, IkComponent, IkFault};
use crate::humanoid::{RigPending, RiggedHumanoid};

/// What [`RootMotion`] does with the travel besides reporting it in [`RootMotionState`].
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RootMotionApply {
    /// Report it only: your character controller moves the entity
    /// ([`RootMotionState::apply_to`]).
    #[default]
    Report,
    /// Also move the entity's `Transform` by it, in [`crate::IkSystems::RootMotion`].
    ToTransform,
}

/// The hips and the character's frame, for a character not rigged by
/// [`crate::humanoid::HumanoidIk`]. Directions and lengths in the character root's frame.
#[derive(Reflect, MapEntities, Clone, Copy, Debug, PartialEq)]
pub struct RootMotionRig {
    /// The hips (pelvis) bone, a descendant of the character root animated by its player.
    #[entities]
    pub hips: Entity,
    /// The character's up.
    pub up: Vec3,
    /// The character's forward.
    pub forward: Vec3,
    /// Thigh + shin + foot, for the in-place tolerance (a clip drifting less than 5 % of it
    /// over its length is in place).
    pub leg_length: f32,
}

impl RootMotionRig {
    /// The hips and a rig's measured frame.
    pub fn from_frame(hips: Entity, frame: &RigFrame) -> Self {
        RootMotionRig { hips, up: frame.up, forward: frame.forward, leg_length: frame.leg_length }
    }
}

/// Put on a character root: each frame the travel of the clips its `AnimationPlayer` plays is
/// reported in [`RootMotionState`] (and applied to the entity's `Transform` with
/// [`RootMotionApply::ToTransform`]), and taken out of the pose (see the module docs).
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity) {
/// // Rigged by HumanoidIk; the clips' travel moves the character.
/// commands
///     .entity(character)
///     .insert((HumanoidIk::default(), RootMotion { apply: RootMotionApply::ToTransform, ..default() }));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default)]
#[require(RootMotionState)]
pub struct RootMotion {
    /// Report the travel, or also move the entity by it.
    pub apply: RootMotionApply,
    /// Whether travel includes motion along up (a clip climbing stairs); else the hips' height
    /// stays in the pose.
    pub vertical: bool,
    /// The hips and frame; `None`: the character's [`RiggedHumanoid`] (waits until rigged).
    #[entities]
    pub rig: Option<RootMotionRig>,
}

/// What [`RootMotion`] measured this frame, and its memory. Deltas are in the space of the
/// entity's `Transform` (its parent's; the world for a top-level entity), scale included.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(Component, Default)]
pub struct RootMotionState {
    /// This frame's travel: add it to `Transform::translation`.
    pub delta_translation: Vec3,
    /// This frame's turn: `transform.rotation = delta_rotation * transform.rotation`.
    pub delta_rotation: Quat,
    /// The travel's velocity, units a second (the last one while time is paused).
    pub velocity: Vec3,
    /// The turning rate about the character's up, radians a second (positive turns forward
    /// toward its left).
    pub turn_rate: f32,
    /// Warnings logged so far (one per distinct fault).
    pub warnings: u32,
    #[reflect(ignore)]
    pub(crate) faults: FaultLatch,
    #[reflect(ignore)]
    memory: Memory,
}

impl RootMotionState {
    /// Moves `transform` by this frame's travel (what [`RootMotionApply::ToTransform`] does).
    pub fn apply_to(&self, transform: &mut Transform) {
        transform.translation += self.delta_translation;
        transform.rotation = (self.delta_rotation * transform.rotation).normalize();
    }

    /// Records the frame's travel `delta` (model space) as seen from the entity at `root`.
    fn record(&mut self, root: &Transform, delta: Travel, dt: f32) {
        let moved = root.mul_transform(Transform::from_translation(delta.translation).with_rotation(delta.rotation));
        self.delta_translation = moved.translation - root.translation;
        self.delta_rotation = (moved.rotation * root.rotation.inverse()).normalize();
        if dt > 0.0 {
            self.velocity = self.delta_translation / dt;
            self.turn_rate = delta.yaw / dt;
        }
        self.memory.moved = Some(moved);
    }
}

/// Per-character memory and buffers reused every frame.
#[derive(Clone, Debug, Default)]
struct Memory {
    /// Bones from under the character root down to the hips.
    chain: Vec<Entity>,
    /// Their animation targets.
    targets: Vec<Option<AnimationTargetId>>,
    /// Clips read so far.
    clips: Vec<ClipEntry>,
    /// Each playing node's clip time last frame.
    seeks: Vec<(AnimationNodeIndex, f32)>,
    /// This frame's, being gathered.
    next_seeks: Vec<(AnimationNodeIndex, f32)>,
    /// Each playing clip's travel since last frame, with its weight.
    deltas: Vec<(Travel, f32)>,
    /// Each playing clip's carrier (`None`: in place), the travel its pose carries, its weight,
    /// its entry in `clips`.
    holds: Vec<(Option<usize>, Travel, f32, usize)>,
    /// Scratch for one carrier's blend.
    parts: Vec<(Travel, f32)>,
    /// In-place locals to write this frame.
    writes: Vec<(Entity, Xform)>,
    /// Each chain bone's local as the IK systems left it last frame (a carrier still holding it
    /// was not re-animated: its travel is not taken out twice).
    noted: Vec<Option<Xform>>,
    /// The entity's transform moved by this frame's travel.
    moved: Option<Transform>,
}

/// What the root-motion system reads besides the characters.
#[derive(SystemParam)]
pub(crate) struct Animations<'w, 's> {
    players: Query<'w, 's, (&'static AnimationPlayer, &'static AnimationGraphHandle)>,
    animated: Query<'w, 's, (Option<&'static AnimatedBy>, Option<&'static AnimationTargetId>)>,
    graphs: Res<'w, Assets<AnimationGraph>>,
    clips: Res<'w, Assets<AnimationClip>>,
    time: Res<'w, Time>,
}

/// Reports each [`RootMotion`]'s travel and makes its pose in place (in parallel when
/// [`IkSettings::parallel`]), then writes the carriers and the moved entities.
#[allow(clippy::type_complexity)]
pub(crate) fn drive_root_motion(
    settings: Res<IkSettings>,
    animations: Animations,
    mut characters: Query<(Entity, &RootMotion, &mut RootMotionState, Option<&RiggedHumanoid>, Has<RigPending>)>,
    mut transforms: ParamSet<(Hierarchy, Query<&mut Transform>)>,
    mut faults: FaultSender,
) {
    let dt = animations.time.delta_secs();
    {
        let hierarchy = transforms.p0();
        let notices = faults.notices();
        let solve = |(root, motion, mut state, rigged, pending): (
            Entity,
            &RootMotion,
            Mut<RootMotionState>,
            Option<&RiggedHumanoid>,
            bool,
        )| {
            let state = &mut *state;
            let rig = motion.rig.or_else(|| rigged.map(|r| RootMotionRig::from_frame(r.rig.pelvis, &r.frame)));
            let outcome = match rig {
                Some(rig) => solve_character(root, motion, &rig, state, (&hierarchy, &animations), dt),
                None => no_rig(root, pending, state),
            };
            if state.faults.report(root, IkComponent::RootMotion, outcome.err(), notices) {
                state.warnings += 1;
            }
        };
        if settings.parallel {
            characters.par_iter_mut().batching_strategy(crate::batching()).for_each(solve);
        } else {
            characters.iter_mut().for_each(solve);
        }
    }
    faults.send();
    let mut writer = transforms.p1();
    for (root, motion, mut state, _, _) in &mut characters {
        let memory = &mut state.bypass_change_detection().memory;
        for (bone, local) in &memory.writes {
            if let Ok(mut transform) = writer.get_mut(*bone) {
                (transform.translation, transform.rotation) = (local.translation, local.rotation);
            }
        }
        if let (RootMotionApply::ToTransform, Some(moved)) = (motion.apply, memory.moved.take())
            && let Ok(mut transform) = writer.get_mut(root)
        {
            (transform.translation, transform.rotation) = (moved.translation, moved.rotation);
        }
    }
}

/// Notes the locals of the bones between each character root and its hips once the IK systems
/// are done with them (the last of [`crate::IkSystems::Chains`]): what they hold next frame if
/// nothing animates them (see [`make_in_place`]).
pub(crate) fn note_poses(
    settings: Res<IkSettings>,
    mut states: Query<&mut RootMotionState>,
    transforms: Query<&Transform>,
) {
    let note = |mut state: Mut<RootMotionState>| {
        let memory = &mut state.bypass_change_detection().memory;
        memory.noted.clear();
        memory.noted.extend(memory.chain.iter().map(|&b| transforms.get(b).ok().map(xform_of)));
    };
    if settings.parallel {
        states.par_iter_mut().batching_strategy(crate::batching()).for_each(note);
    } else {
        states.iter_mut().for_each(note);
    }
}

/// No hips known: waiting for [`crate::humanoid::HumanoidIk`] to rig, else a fault.
fn no_rig(root: Entity, pending: bool, state: &mut RootMotionState) -> Result<(), IkFault> {
    state.memory.writes.clear();
    state.memory.moved = None;
    if pending {
        return Ok(());
    }
    Err(IkFault::MissingComponent(format!(
        "RootMotion on {root} does not know the hips: add HumanoidIk to rig the character, or set RootMotion::rig"
    )))
}

/// One character's frame: the playing clips' travel since last frame (reported) and the travel
/// their pose carries (taken out of the carriers' locals, written after the parallel pass).
fn solve_character(
    root: Entity,
    motion: &RootMotion,
    rig: &RootMotionRig,
    state: &mut RootMotionState,
    (hierarchy, animations): (&Hierarchy, &Animations),
    dt: f32,
) -> Result<(), IkFault> {
    let memory = &mut state.memory;
    memory.writes.clear();
    memory.moved = None;
    memory.deltas.clear();
    memory.holds.clear();
    follow_chain(root, rig.hips, hierarchy, animations, memory)?;
    let Ok((Some(&AnimatedBy(player)), _)) = animations.animated.get(rig.hips) else {
        return Err(IkFault::MissingComponent(format!(
            "the hips {} are not animated (no AnimatedBy): play the clips on the character's AnimationPlayer",
            rig.hips
        )));
    };
    let Ok((player, graph)) = animations.players.get(player) else {
        return Err(IkFault::MissingComponent(format!(
            "the hips' player {player} has no AnimationPlayer with an AnimationGraphHandle"
        )));
    };
    let mut settings = RootMotionSettings::new(rig.up, rig.forward, rig.leg_length);
    settings.vertical = motion.vertical;
    let mut unreadable = None;
    if let Some(graph) = animations.graphs.get(&graph.0) {
        let hips_groups = memory.targets.last().copied().flatten().and_then(|id| graph.mask_groups.get(&id).copied());
        for (&node, active) in player.playing_animations() {
            let weight = active.weight() * graph_weight(graph, node, hips_groups.unwrap_or(0));
            let Some(AnimationNodeType::Clip(clip)) = graph.get(node).map(|n| &n.node_type) else { continue };
            let Some(asset) = animations.clips.get(clip) else { continue };
            settings.looping = active.repeat_mode() != RepeatAnimation::Never;
            let read = clip_travel(memory, hierarchy, clip.id(), asset, &settings);
            match read {
                Ok((entry, true)) => memory.follow(entry, node, active, weight),
                Ok((entry, false)) => memory.hold_still(entry, node, active, weight),
                Err(why) => unreadable = Some(IkFault::Clip(format!("clip {:?}: {why}", clip.id()))),
            }
        }
    }
    std::mem::swap(&mut memory.seeks, &mut memory.next_seeks);
    memory.next_seeks.clear();
    let up = settings.up;
    let delta = blend_travel(up, &memory.deltas);
    let Ok((root_transform, _)) = hierarchy.get(root) else {
        return Err(IkFault::MissingBone(format!("the character root {root} has no Transform")));
    };
    state.record(root_transform, delta, dt);
    make_in_place(&mut state.memory, up, hierarchy)?;
    unreadable.map_or(Ok(()), Err)
}

/// The product of the weights of `node` and the graph nodes above it; 0 when one of them masks
/// out the hips' mask groups.
fn graph_weight(graph: &AnimationGraph, node: AnimationNodeIndex, groups: AnimationMask) -> f32 {
    let (mut weight, mut at) = (1.0, Some(node));
    for _ in 0..64 {
        let Some(index) = at else { break };
        let Some(n) = graph.get(index) else { break };
        if n.mask & groups != 0 {
            return 0.0;
        }
        weight *= n.weight;
        at = graph.graph.raw_edges().iter().find(|e| e.target() == index).map(|e| e.source());
    }
    weight
}

/// Walks from the hips up to the character root; a new chain forgets the clips read on the old.
fn follow_chain(
    root: Entity,
    hips: Entity,
    hierarchy: &Hierarchy,
    animations: &Animations,
    memory: &mut Memory,
) -> Result<(), IkFault> {
    let n = memory.chain.len();
    let (mut at, mut depth, mut same) = (hips, 0, true);
    loop {
        let Ok((_, parent)) = hierarchy.get(at) else {
            return Err(IkFault::MissingBone(format!("the hips {hips} (or a bone above them) have no Transform")));
        };
        let Some(parent) = parent.map(|p| p.parent()) else {
            return Err(IkFault::MissingBone(format!("the hips {hips} are not under the character root {root}")));
        };
        same &= depth < n && memory.chain[n - 1 - depth] == at;
        depth += 1;
        if parent == root {
            break;
        }
        if depth >= 512 {
            return Err(IkFault::MissingBone(format!("the hierarchy above the hips {hips} loops or runs too deep")));
        }
        at = parent;
    }
    if same && depth == n {
        return Ok(());
    }
    memory.chain.clear();
    let mut at = hips;
    while at != root {
        memory.chain.push(at);
        at = hierarchy.get(at).ok().and_then(|(_, p)| p).map_or(root, |p| p.parent());
    }
    memory.chain.reverse();
    memory.targets.clear();
    memory.targets.extend(memory.chain.iter().map(|&b| animations.animated.get(b).ok().and_then(|(_, t)| t.copied())));
    memory.clips.clear();
    memory.noted.clear();
    Ok(())
}

/// The entry of a clip read on this character (read now if it is new) and whether it travels.
fn clip_travel(
    memory: &mut Memory,
    hierarchy: &Hierarchy,
    id: AssetId<AnimationClip>,
    asset: &AnimationClip,
    settings: &RootMotionSettings,
) -> Result<(usize, bool), String> {
    let looping = settings.looping;
    let index = match memory.clips.iter().position(|c| c.clip == id && c.looping == looping) {
        Some(i) => i,
        None => {
            let locals: Vec<Xform> =
                memory.chain.iter().map(|&b| hierarchy.get(b).map_or(Xform::IDENTITY, |(t, _)| xform_of(t))).collect();
            let read = clip::read_clip(asset, Chain { targets: &memory.targets, locals: &locals }, settings);
            let animates = clip::animated_bones(asset, &memory.targets);
            memory.clips.push(ClipEntry { clip: id, looping, read, animates });
            memory.clips.len() - 1
        }
    };
    match &memory.clips[index].read {
        Ok(travel) => Ok((index, travel.is_some())),
        Err(why) => Err(why.clone()),
    }
}

impl Memory {
    /// A travelling clip (entry `entry`) playing on `node`: its travel since last frame and the
    /// travel its pose carries now.
    fn follow(&mut self, entry: usize, node: AnimationNodeIndex, active: &ActiveAnimation, weight: f32) {
        let Ok(Some(carried)) = &self.clips[entry].read else { return };
        let now = active.seek_time();
        let previous = self.seeks.iter().find(|(n, _)| *n == node).map(|s| s.1).or(active.last_seek_time());
        let delta = carried.delta(previous.unwrap_or(now), now, active.speed());
        self.deltas.push((delta, weight));
        self.holds.push((Some(carried.carrier), carried.at(now), weight, entry));
        self.next_seeks.push((node, now));
    }

    /// A clip in place (entry `entry`) playing on `node`: no travel, by its weight.
    fn hold_still(&mut self, entry: usize, node: AnimationNodeIndex, active: &ActiveAnimation, weight: f32) {
        self.deltas.push((Travel::IDENTITY, weight));
        self.holds.push((None, Travel::IDENTITY, weight, entry));
        self.next_seeks.push((node, active.seek_time()));
    }
}

/// Takes the blended travel each carrier's pose carries out of its local (queued in
/// `memory.writes`), unless the carrier holds what IK left in it last frame (not re-animated: a
/// player's first frame, before its graph is ready, or a clip that does not animate it).
fn make_in_place(memory: &mut Memory, up: Vec3, hierarchy: &Hierarchy) -> Result<(), IkFault> {
    for k in 0..memory.holds.len() {
        let Some(carrier) = memory.holds[k].0 else { continue };
        if memory.holds[..k].iter().any(|h| h.0 == Some(carrier)) {
            continue; // blended already
        }
        memory.parts.clear();
        // The carrier's local is the blend of the clips that animate it (Bevy leaves the others
        // out of that bone's blend): an idle without curves on a root bone adds no stillness.
        let clips = &memory.clips;
        let share = |&(c, travel, weight, entry): &(Option<usize>, Travel, f32, usize)| {
            let weight = if clips[entry].animates(carrier) { weight } else { 0.0 };
            (if c == Some(carrier) { travel } else { Travel::IDENTITY }, weight)
        };
        memory.parts.extend(memory.holds.iter().map(share));
        let travel = blend_travel(up, &memory.parts);
        let Some(&bone) = memory.chain.get(carrier) else { continue };
        let Ok((local, _)) = hierarchy.get(bone) else { continue };
        let local = xform_of(local);
        if memory.noted.get(carrier) == Some(&Some(local)) {
            continue;
        }
        let mut parent = Xform::IDENTITY;
        for &above in &memory.chain[..carrier] {
            let Ok((t, _)) = hierarchy.get(above) else { continue };
            parent = parent.mul_xform(&xform_of(t));
        }
        let in_place = travel.remove_from_local(&local, &parent);
        if !in_place.is_finite() {
            return Err(IkFault::NonFiniteResult);
        }
        memory.writes.push((bone, in_place));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use bevy::animation::AnimationPlugin;
    use bevy::time::TimeUpdateStrategy;

    use super::*;
    use crate::IkPlugin;

    fn app() -> App {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin, AnimationPlugin));
        app.add_plugins(IkPlugin::default());
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(1.0 / 60.0)));
        app
    }

    #[test]
    fn root_motion_without_hips_is_reported_once_and_moves_nothing() {
        let mut app = app();
        let motion = RootMotion { apply: RootMotionApply::ToTransform, ..default() };
        let root = app.world_mut().spawn((Transform::from_xyz(1.0, 0.0, 2.0), motion)).id();
        for frame in 0..5 {
            app.update();
            let state = app.world().get::<RootMotionState>(root).unwrap();
            assert_eq!(state.warnings, 1, "frame {frame}: one warning, not one per frame");
            assert!(matches!(state.faults.current(), Some(IkFault::MissingComponent(_))), "frame {frame}");
            assert_eq!(app.world().get::<Transform>(root).unwrap().translation, Vec3::new(1.0, 0.0, 2.0));
        }
    }

    #[test]
    fn hips_no_player_animates_are_reported_naming_them() {
        let mut app = app();
        let root = app.world_mut().spawn(Transform::default()).id();
        let hips = app.world_mut().spawn((Transform::from_xyz(0.0, 0.9, 0.0), ChildOf(root))).id();
        let rig = RootMotionRig { hips, up: Vec3::Y, forward: Vec3::Z, leg_length: 0.85 };
        app.world_mut().entity_mut(root).insert(RootMotion { rig: Some(rig), ..default() });
        app.update();
        let state = app.world().get::<RootMotionState>(root).unwrap();
        let Some(IkFault::MissingComponent(detail)) = state.faults.current() else {
            panic!("expected a missing component, got {:?}", state.faults.current())
        };
        assert!(detail.contains(&hips.to_string()) && detail.contains("AnimatedBy"), "{detail}");
        assert_eq!(state.delta_translation, Vec3::ZERO);
    }
}
