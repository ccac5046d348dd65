//! [`HumanoidIk`]: rig a humanoid in one call. Put it on the entity that holds a character's
//! spawned scene; once its bones exist they are matched ([`ik_core::rig`]: the name profiles of
//! the common conventions — Unreal, Mixamo, Blender, asset packs, VRM — else the skeleton's
//! shape alone, or your own map) and the character gets a [`FootPlacer`] (+ [`FootLock`] and
//! [`FootstepPrediction`]), a
//! [`LookAtSpread`] down the spine and a reaching right arm ([`IkChain`] + [`Pole`] +
//! [`IkFade`]), measured from its rest pose. The feet's soles (heel, toe tip and the floor they
//! stand on) are measured from the vertices the foot bones carry in the character's own meshes
//! (the `scene` feature); without a mesh they are estimated from the joints
//! ([`FlatSole::estimate`]). To give them by hand, replace [`LegBones::rest`] on the
//! [`FootPlacer`] once [`HumanoidRigged`] has been triggered.
//!
//! Lifecycle: a character is rigged when [`HumanoidIk`] is added to it if its bones exist, and
//! otherwise when its scene instance is ready (an observer of Bevy's `WorldInstanceReady`, with
//! the `scene` feature; a hand-built hierarchy without a scene is looked at each frame until
//! its bones appear). Rigging runs in `PreUpdate`, so it measures the scene as spawned (start a
//! clip only once [`RiggedHumanoid`] is there, as the demo does, to measure the rest pose). A
//! rig whose bones disappear (the scene was respawned, bones replaced) is taken down in
//! `PostUpdate` before the IK systems run on them, and made again from the new bones; a failed
//! rig is retried only when the hierarchy under it changes or its scene is ready again. Each
//! outcome is told once, with bone names: the role mapping on success (logged, and a
//! [`HumanoidRigged`] entity event), one message naming the missing roles, the candidate bones
//! and the map syntax on failure (logged, [`RigFailed`] inserted and a [`HumanoidRigFailed`]
//! event).

use bevy::ecs::entity::{EntityMapper, MapEntities};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use ik_core::foot_placement::FootRest;
use ik_core::rig::{HumanoidRig, RigFrame, RigProfile, RigReport, SkeletonBone, rig_humanoid};
use ik_core::sole::FlatSole;

use crate::bind_pose::BindPose;
use crate::bones::Hierarchy;
use crate::chain::{IkChain, Pole};
use crate::fade::IkFade;
use crate::feet::{FootLock, FootPlacer, FootPlacerState, LegBones, LegRest};
use crate::footstep::FootstepPrediction;
use crate::look_at::{LookAtJoint, LookAtSpread, LookAtState};
use crate::target::IkTarget;

/// What marks an entity holding a spawned scene (its bones come when the scene is ready).
#[cfg(feature = "scene")]
type SceneHolder = bevy::world_serialization::WorldAssetRoot;
/// Without the `scene` feature nothing is known to hold a scene: bones are looked for each
/// frame until they appear.
#[cfg(not(feature = "scene"))]
#[derive(Component)]
pub(crate) struct SceneHolder;

/// Which naming scheme to match bones with.
#[derive(Reflect, Clone, Debug, Default, PartialEq)]
pub enum RigChoice {
    /// Try the built-in name profiles, then the skeleton's shape (see [`ik_core::rig`]).
    #[default]
    Auto,
    /// Your own map of role names (`pelvis`, `spine_0`, `head`, `thigh_l`, `ball_r`, …) to bone
    /// names; see [`ik_core::rig::parse_role`].
    Map(Vec<(String, String)>),
}

/// Rig this character for IK as soon as its bones exist (see the module docs).
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity, camera: Entity) {
/// // `character`: the root of your spawned glTF scene (e.g. a `WorldAssetRoot` of
/// // `GltfAssetLabel::Scene(0).from_asset("mannequin.glb")`), or any hierarchy with humanoid
/// // bone names. Rigging waits until the bones exist.
/// commands.entity(character).insert(HumanoidIk { look_target: Some(IkTarget::Entity(camera)), ..default() });
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
#[require(RigPending)]
pub struct HumanoidIk {
    /// Which naming scheme to match.
    pub profile: RigChoice,
    /// What the head looks at (no [`LookAtSpread`] when `None`).
    #[entities]
    pub look_target: Option<IkTarget>,
    /// What the right hand reaches for (no arm chain when `None`). The reach starts faded out:
    /// set the arm's [`IkFade::active`] to reach.
    #[entities]
    pub hand_target: Option<IkTarget>,
    /// Add a [`FootLock`] to the foot placer.
    pub foot_lock: bool,
    /// Add a [`FootstepPrediction`] (swinging feet steered onto whole treads and carried over
    /// the ground on the way; six rays per swinging foot per frame, ten stepping up). Default on.
    pub footstep_prediction: bool,
    /// Give up (and report [`RigFailed`]) after this many frames without a match.
    pub patience_frames: u32,
    /// The most the look-at may turn spine, chest, neck and head in all, radians (the joints
    /// keep their 15/20/35/50 ratios). Default 70°: a glance over the shoulder, not an owl.
    pub look_limit: f32,
    /// Targets further than this from the character's forward are let go of, fading out over
    /// 30° ([`LookAtSpread::field_of_view`]), radians. Default 100°.
    pub look_field_of_view: f32,
    /// The way the character faces while its clips play, in its root's space, where they turn
    /// the whole body away from its rest pose (a conversion whose bind pose faces the other way
    /// from its clips: take its walk's [`ClipContacts::heading`](crate::clip_contacts::ClipContacts::heading)).
    /// Aims the look-at's field of view and puts the reaching elbow's pole behind the body.
    /// `None`: as the rest pose faces.
    pub facing: Option<Vec3>,
}

impl Default for HumanoidIk {
    fn default() -> Self {
        HumanoidIk {
            profile: RigChoice::Auto,
            look_target: None,
            hand_target: None,
            foot_lock: true,
            footstep_prediction: true,
            patience_frames: 120,
            look_limit: 70f32.to_radians(),
            look_field_of_view: 100f32.to_radians(),
            facing: None,
        }
    }
}

/// Inserted when [`HumanoidIk`] rigged the character: the bone of every role.
#[derive(Component, Clone, Debug)]
#[component(map_entities)]
pub struct RiggedHumanoid {
    /// The detected rig.
    pub rig: HumanoidRig<Entity>,
    /// Up, forward, height and leg length measured from the rest pose (in the character
    /// root's frame).
    pub frame: RigFrame,
    /// One line per role: `role = bone name`.
    pub mapping: String,
    /// The right-arm chain's tip (the hand), when a hand target was given.
    pub reaching_hand: Option<Entity>,
    /// The elbow pole entity spawned for the reaching arm.
    pub pole: Option<Entity>,
}

impl MapEntities for RiggedHumanoid {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        self.rig.for_each_handle_mut(|bone| *bone = mapper.get_mapped(*bone));
        self.reaching_hand.map_entities(mapper);
        self.pole.map_entities(mapper);
    }
}

/// Inserted when [`HumanoidIk`] could not rig the character.
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component)]
pub struct RigFailed {
    /// What went wrong: the missing roles, the candidate bones, and how to write a map.
    pub message: String,
}

/// Triggered on a character when [`HumanoidIk`] rigged it (its [`RiggedHumanoid`] is there).
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity) {
/// commands.entity(character).insert(HumanoidIk::default()).observe(
///     |rigged: On<HumanoidRigged>, humanoids: Query<&RiggedHumanoid>| {
///         if let Ok(rig) = humanoids.get(rigged.entity) {
///             info!("rigged, {:.2} m tall", rig.frame.height);
///         }
///     },
/// );
/// # }
/// ```
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct HumanoidRigged {
    /// The character.
    pub entity: Entity,
}

/// Triggered on a character [`HumanoidIk`] could not rig (its [`RigFailed`] is there).
#[derive(EntityEvent, Clone, Debug, PartialEq, Eq)]
pub struct HumanoidRigFailed {
    /// The character.
    pub entity: Entity,
    /// The same message as [`RigFailed::message`].
    pub message: String,
}

/// Asks `rig_humanoids` to (re)try this character (required by [`HumanoidIk`]; inserted
/// again when its scene is ready, its bones were replaced or a failed rig's bones changed).
#[derive(Component, Default)]
pub(crate) struct RigPending;

/// Frames waited so far per character, and the bone count a failure was seen with (rigging's
/// own bookkeeping).
#[derive(Component, Default)]
pub(crate) struct RigAttempts {
    frames: u32,
    failed_with_bones: Option<usize>,
}

/// A spawned scene is ready: rig (or rig again) the [`HumanoidIk`] holding it.
#[cfg(feature = "scene")]
pub(crate) fn rig_when_scene_ready(
    ready: On<bevy::world_serialization::WorldInstanceReady>,
    humanoids: Query<(), (With<HumanoidIk>, Without<RiggedHumanoid>)>,
    mut commands: Commands,
) {
    if humanoids.contains(ready.entity) {
        commands.entity(ready.entity).remove::<(RigFailed, RigAttempts)>().insert(RigPending);
    }
}

/// Reads a character's skeleton (names, parents, rest positions) and detects its rig.
#[derive(SystemParam)]
pub struct HumanoidBones<'w, 's> {
    names: Query<'w, 's, &'static Name>,
    children: Query<'w, 's, &'static Children>,
    pub(crate) hierarchy: Hierarchy<'w, 's>,
    #[cfg(feature = "scene")]
    skins: Query<'w, 's, &'static bevy::mesh::skinning::SkinnedMesh>,
    #[cfg(feature = "scene")]
    meshes: Query<'w, 's, (), With<bevy::mesh::Mesh3d>>,
    #[cfg(feature = "scene")]
    inverse_binds: Option<Res<'w, Assets<bevy::mesh::skinning::SkinnedMeshInverseBindposes>>>,
}

impl HumanoidBones<'_, '_> {
    /// Every named descendant of `root` that can be a bone: its name, the index of its nearest
    /// named ancestor and its rest position relative to `root` (the skin's bind pose, else the
    /// current local transforms). With a skinned mesh under `root`, only its joints and their
    /// ancestors can be bones (mesh nodes named like bones, as RobotExpressive's `LegL` and
    /// `HandL`, are not).
    pub fn skeleton(&self, root: Entity) -> Vec<(Entity, String, Option<usize>, Vec3)> {
        let pose = self.bind_pose(root);
        let bones = self.skin_bones(root);
        let mut out: Vec<(Entity, String, Option<usize>, Vec3)> = Vec::new();
        let mut stack: Vec<(Entity, Option<usize>)> = vec![(root, None)];
        while let Some((entity, parent)) = stack.pop() {
            let mut here = parent;
            if entity != root
                && bones.as_ref().is_none_or(|b| b.contains(&entity))
                && let Ok(name) = self.names.get(entity)
                && let Some(rest) = pose.rest_of(entity, &self.hierarchy)
            {
                out.push((entity, name.as_str().to_string(), parent, rest.translation));
                here = Some(out.len() - 1);
            }
            if let Ok(children) = self.children.get(entity) {
                stack.extend(children.iter().rev().map(|c| (c, here)));
            }
        }
        out
    }

    /// Detects the rig under `root` (see [`ik_core::rig::rig_humanoid`]). The error is one
    /// message with bone names and the map syntax.
    pub fn detect(&self, root: Entity, choice: &RigChoice) -> Result<RigReport<Entity>, String> {
        let skeleton = self.skeleton(root);
        if skeleton.is_empty() {
            return Err("no named bones under the character yet".into());
        }
        let bones = skeleton_bones(&skeleton);
        let map = match choice {
            RigChoice::Auto => None,
            RigChoice::Map(map) => {
                Some(RigProfile::from_map("user map", map.iter().map(|(r, b)| (r.as_str(), b.as_str()))).map_err(
                    |unknown| {
                        format!("unknown role names in the rig map: {}. {}", unknown.join(", "), ik_core::rig::MAP_HINT)
                    },
                )?)
            }
        };
        rig_humanoid(&bones, map.as_ref()).map_err(|e| self.cause(root, e.to_string()))
    }

    /// The rest pose under `root`: its first skin's bind pose (see [`BindPose`]), else the
    /// current local transforms.
    pub(crate) fn bind_pose(&self, root: Entity) -> BindPose {
        #[cfg(feature = "scene")]
        {
            let skinned = self.children.iter_descendants(root).find_map(|e| Some((e, self.skins.get(e).ok()?)));
            let binds = self.inverse_binds.as_deref();
            if let Some((mesh, skin)) = skinned
                && let Some(binds) = binds.and_then(|b| b.get(&skin.inverse_bindposes))
                && let Some(mesh_rest) = BindPose::current(root).rest_of(mesh, &self.hierarchy)
            {
                return BindPose::from_skin(root, mesh_rest, &skin.joints, binds, &self.hierarchy);
            }
        }
        BindPose::current(root)
    }

    /// The joints of the skins under `root`, their ancestors, and the nodes below a joint that
    /// carry no mesh (end bones such as `LowerLegL_end`, which mark where a shin ends); `None`
    /// without a skin.
    fn skin_bones(&self, root: Entity) -> Option<bevy::platform::collections::HashSet<Entity>> {
        #[cfg(feature = "scene")]
        {
            let mut bones = bevy::platform::collections::HashSet::new();
            let skins = self.children.iter_descendants(root).filter_map(|e| self.skins.get(e).ok());
            let joints: Vec<Entity> = skins.flat_map(|s| s.joints.iter().copied()).collect();
            for &joint in &joints {
                let mut at = Some(joint);
                while let Some(e) = at.filter(|e| *e != root && bones.insert(*e)) {
                    at = self.hierarchy.get(e).ok().and_then(|(_, p)| p.map(ChildOf::parent));
                }
            }
            let no_mesh = |e: Entity| {
                !self.meshes.contains(e) && !self.children.iter_descendants(e).any(|d| self.meshes.contains(d))
            };
            let ends: Vec<Entity> =
                joints.iter().flat_map(|&j| self.children.iter_descendants(j)).filter(|&e| no_mesh(e)).collect();
            bones.extend(ends);
            (!bones.is_empty()).then_some(bones)
        }
        #[cfg(not(feature = "scene"))]
        {
            let _ = root;
            None
        }
    }

    /// A rig error with its real cause first when the character has no skin: its parts are
    /// separate meshes moved as plain nodes (as in Kenney's platformer kit), so no name or
    /// shape could have made a humanoid of them.
    fn cause(&self, root: Entity, message: String) -> String {
        #[cfg(feature = "scene")]
        if !self.children.iter_descendants(root).any(|e| self.skins.contains(e)) {
            return format!(
                "the character has no skinned mesh: its parts are separate meshes animated as plain nodes, with \
                 no bones to bend (humanoid IK needs a skinned skeleton; re-export it with an armature). What the \
                 rigging found: {message}"
            );
        }
        let _ = root;
        message
    }

    pub(crate) fn named_count(&self, root: Entity) -> usize {
        self.children.iter_descendants(root).filter(|e| self.names.contains(*e)).count()
    }
}

/// [`HumanoidBones::skeleton`]'s bones as the rigging's input (names borrowed from it).
pub(crate) fn skeleton_bones(skeleton: &[(Entity, String, Option<usize>, Vec3)]) -> Vec<SkeletonBone<'_, Entity>> {
    skeleton
        .iter()
        .map(|(e, name, parent, rest)| SkeletonBone { handle: *e, name: name.as_str(), parent: *parent, rest: *rest })
        .collect()
}

/// Rigs every [`HumanoidIk`] asked for (in `PreUpdate`): added, its scene ready, its bones
/// replaced or changed after a failure.
#[allow(clippy::type_complexity)]
pub(crate) fn rig_humanoids(
    mut commands: Commands,
    mut pending: Query<
        (Entity, &HumanoidIk, Option<&mut RigAttempts>, Option<&Name>, Has<SceneHolder>),
        (With<RigPending>, Without<RiggedHumanoid>, Without<RigFailed>),
    >,
    bones: HumanoidBones,
    #[cfg(feature = "scene")] meshes: crate::mesh_sole::FootMeshes,
) {
    for (root, humanoid, attempts, name, holds_scene) in &mut pending {
        let count = bones.named_count(root);
        if count == 0 {
            if holds_scene {
                // Its scene is not spawned yet: the ready observer asks again.
                commands.entity(root).remove::<RigPending>();
            }
            continue;
        }
        if attempts.as_ref().is_some_and(|a| a.failed_with_bones == Some(count)) {
            continue;
        }
        let who = name.map_or_else(|| format!("{root}"), |n| format!("`{n}`"));
        match bones.detect(root, &humanoid.profile) {
            Ok(report) => {
                let pose = bones.bind_pose(root);
                #[cfg(feature = "scene")]
                let feet_vertices = report.rig.legs.map(|leg| meshes.vertices(root, leg.foot, &pose, &bones.hierarchy));
                #[cfg(not(feature = "scene"))]
                let feet_vertices = [Vec::new(), Vec::new()];
                let rigging = Rigging { root, rig: &report.rig, frame: &report.frame, feet_vertices, pose: &pose };
                let (reaching_hand, pole, soles) = attach(&mut commands, humanoid, &rigging, &bones.hierarchy);
                let mapping = report.mapping();
                info!("bevy_ik: rigged {who} ({}), {soles}:\n{mapping}", report.found_by);
                for dropped in &report.dropped {
                    warn!("bevy_ik: {who}: {dropped}");
                }
                commands.entity(root).remove::<(RigAttempts, RigPending)>().insert(RiggedHumanoid {
                    rig: report.rig,
                    frame: report.frame,
                    mapping,
                    reaching_hand,
                    pole,
                });
                commands.trigger(HumanoidRigged { entity: root });
            }
            Err(message) => {
                let frames = attempts.as_ref().map_or(0, |a| a.frames) + 1;
                if frames < humanoid.patience_frames.max(1) {
                    commands.entity(root).insert(RigAttempts { frames, failed_with_bones: None });
                } else {
                    error!("bevy_ik: cannot rig {who} as a humanoid: {message}");
                    commands.trigger(HumanoidRigFailed { entity: root, message: message.clone() });
                    commands
                        .entity(root)
                        .remove::<RigPending>()
                        .insert((RigAttempts { frames: 0, failed_with_bones: Some(count) }, RigFailed { message }));
                }
            }
        }
    }
}

/// Takes a rig down when its bones are gone (a respawned scene) so `rig_humanoids` makes it
/// again from the new bones, and lets a failed rig be retried once the hierarchy changes.
pub(crate) fn watch_rigs(
    mut commands: Commands,
    rigged: Query<(Entity, &RiggedHumanoid, Option<&Name>)>,
    failed: Query<(Entity, &RigAttempts), With<RigFailed>>,
    alive: Query<(), With<Transform>>,
    bones: HumanoidBones,
) {
    for (root, rigged, name) in &rigged {
        let rig = &rigged.rig;
        let mut all = vec![rig.pelvis, rig.head];
        all.extend(rig.spine.iter().copied());
        all.extend(rig.legs.iter().flat_map(|l| [l.thigh, l.calf, l.foot]));
        all.extend(rig.arms.iter().flatten().flat_map(|a| [a.upper, a.lower, a.hand]));
        if all.iter().all(|e| alive.contains(*e)) {
            continue;
        }
        let who = name.map_or_else(|| format!("{root}"), |n| format!("`{n}`"));
        info!("bevy_ik: the bones of {who} were replaced (scene respawned?): rigging it again");
        if let Some(pole) = rigged.pole {
            commands.entity(pole).try_despawn();
        }
        commands
            .entity(root)
            .remove::<(RiggedHumanoid, FootPlacer, FootPlacerState, FootLock, FootstepPrediction, LookAtSpread, LookAtState)>()
            .insert(RigPending);
    }
    for (root, attempts) in &failed {
        if attempts.failed_with_bones.is_some_and(|n| n != bones.named_count(root)) {
            commands.entity(root).remove::<(RigFailed, RigAttempts)>().insert(RigPending);
        }
    }
}

/// What [`attach`] rigs: the character root, its rig and frame, and per leg the vertices its
/// foot carries (relative to the root; empty without a mesh).
struct Rigging<'a> {
    root: Entity,
    rig: &'a HumanoidRig<Entity>,
    frame: &'a RigFrame,
    feet_vertices: [Vec<Vec3>; 2],
    pose: &'a BindPose,
}

/// A leg's rest measurements (`forward`, `leg_length`: the character's, in the root's frame):
/// the sole from the foot's vertices when they make one, else estimated from the joints; the ankle and toe heights over that sole's floor. Also says
/// which it was, and the sole's length heel to tip.
fn leg_rest(
    a: &ik_core::Xform,
    toe: Option<&ik_core::Xform>,
    vertices: &[Vec3],
    forward: Vec3,
    leg_length: f32,
) -> (LegRest, bool, f32) {
    let measured = FootRest::measure(a, toe);
    let (sole, floor, from_mesh) = match FlatSole::from_vertices(vertices, a, toe, forward) {
        Some(sole) => (sole, sole.heel.y, true),
        None => (FlatSole::estimate(a, toe, forward, leg_length), 0.0, false),
    };
    let (heel, tip) = sole.local_points(a, toe);
    let rest = LegRest {
        ankle_height: measured.ankle_height - floor,
        toe_height: measured.toe_height - if toe.is_some() { floor } else { 0.0 },
        foot_up: measured.foot_up,
        toe_up: measured.toe_up,
        heel: Some(heel),
        toe_tip: Some(tip),
    };
    (rest, from_mesh, sole.heel.distance(sole.tip))
}

/// Adds the IK components for a detected rig; returns the reaching hand, its pole and where
/// the soles came from (for the log).
fn attach(
    commands: &mut Commands,
    humanoid: &HumanoidIk,
    rigging: &Rigging,
    hierarchy: &Hierarchy,
) -> (Option<Entity>, Option<Entity>, String) {
    let Rigging { root, rig, frame, .. } = *rigging;
    let facing = walking_facing(humanoid, frame);
    let (mut from_mesh, mut lengths) = (0, Vec::new());
    let legs = rig
        .legs
        .iter()
        .zip(&rigging.feet_vertices)
        .map(|(leg, vertices)| {
            let ankle = rigging.pose.rest_of(leg.foot, hierarchy);
            let toe = leg.ball.and_then(|b| rigging.pose.rest_of(b, hierarchy));
            let rest = ankle.map(|a| {
                let (rest, mesh, length) = leg_rest(&a, toe.as_ref(), vertices, frame.forward, frame.leg_length);
                from_mesh += usize::from(mesh);
                lengths.push(format!("{length:.3}"));
                rest
            });
            LegBones { hip: leg.thigh, knee: leg.calf, ankle: leg.foot, toe: leg.ball, rest }
        })
        .collect();
    let how = match from_mesh {
        2 => "soles measured from the mesh",
        0 => "soles estimated from the joints (no foot mesh reaching behind the ankle and past the ball)",
        _ => "one sole measured from the mesh, one estimated",
    };
    let soles = format!("{how}, heel to tip {}", lengths.join(" and "));
    let mut root_commands = commands.entity(root);
    root_commands.insert(FootPlacer::new(rig.pelvis, legs));
    if humanoid.foot_lock {
        root_commands.insert(FootLock::default());
    }
    if humanoid.footstep_prediction {
        root_commands.insert(FootstepPrediction::default());
    }
    if let Some(target) = humanoid.look_target {
        let mut joints: Vec<Entity> = rig.spine.iter().rev().take(2).rev().copied().collect();
        joints.extend(rig.neck);
        joints.push(rig.head);
        let mut shares = ik_core::look_at::humanoid_spread(rig.spine.len(), rig.neck.is_some());
        ik_core::look_at::scale_limits(&mut shares, humanoid.look_limit);
        let forward = rigging
            .pose
            .rest_of(rig.head, hierarchy)
            .map_or(Vec3::ZERO, |h| ik_core::look_at::local_forward_axis(h.rotation, frame.forward));
        root_commands.insert(LookAtSpread {
            joints: joints.iter().zip(&shares).map(|(b, j)| LookAtJoint { bone: *b, spread: *j }).collect(),
            target,
            forward,
            character_forward: facing,
            field_of_view: humanoid.look_field_of_view,
            ..Default::default()
        });
    }
    let (hand, pole) = attach_reach(commands, humanoid, rigging, facing).unzip();
    (hand, pole, soles)
}

/// The way the body faces while its clips play (root space): [`HumanoidIk::facing`] when given
/// and not along up, else the rest pose's.
fn walking_facing(humanoid: &HumanoidIk, frame: &RigFrame) -> Vec3 {
    humanoid.facing.and_then(|f| f.reject_from_normalized(frame.up).try_normalize()).unwrap_or(frame.forward)
}

/// The reaching right arm (when the rig kept it and a hand target is asked for): its hand and
/// the elbow's pole entity, behind the body facing `facing`.
fn attach_reach(
    commands: &mut Commands,
    humanoid: &HumanoidIk,
    rigging: &Rigging,
    facing: Vec3,
) -> Option<(Entity, Entity)> {
    let (Some(target), Some(arm)) = (humanoid.hand_target, rigging.rig.arms[1]) else { return None };
    // The elbow hint: out to the right, behind and below the shoulder, scaled to the character.
    let frame = rigging.frame;
    let (h, left) = (frame.height, frame.up.cross(facing));
    let at = left * (-0.39 * h) + frame.up * (0.55 * h) - facing * (0.33 * h);
    let pole =
        commands.spawn((Name::new("right elbow pole"), Transform::from_translation(at), ChildOf(rigging.root))).id();
    commands.entity(arm.hand).insert((
        IkChain { soften: 0.03, ..IkChain::two_bone(target) },
        Pole::new(IkTarget::Entity(pole)),
        IkFade::new(false),
    ));
    Some((arm.hand, pole))
}
