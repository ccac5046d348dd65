//! Spawning the playable character: a kinematic body moved by rapier's character controller,
//! an IK root (the "avatar") under it, and the glTF scene under that, scaled to fit.
//!
//! Method: the scene loads asynchronously; once its instance is ready and the `Gltf` asset is
//! in, [`finish_character`] finds the `AnimationPlayer`, builds the Idle/Walk/Jog blend graph
//! (clips found by name), fits the model to the mannequin's leg length (thigh + shin, measured
//! in its rest pose, so any unit scale works), and inserts [`HumanoidIk`] on the avatar, which
//! rigs it through the rig profiles or the user's `--rig-map`. Animation starts only after the
//! rig is measured (see [`crate::rigging`]), so rest measurements see the rest pose.
//! Invariants: hierarchy body → avatar (IK root, scale 1, its y = 0 plane is the floor, +Z
//! forward) → scene holder (uniform fit scale) → glTF nodes.

use bevy::gltf::Gltf;
use bevy::prelude::*;
use bevy::world_serialization::WorldInstanceReady;
use bevy_ik::bones::{Hierarchy, world_of};
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;
use ik_core::rig::{RigProfile, detect, match_profile};

use crate::locomotion::{BlendClip, Locomotion};
use crate::player::{JOG_SPEED, Motion, MoveIntent, Player, WALK_SPEED, controller};
use crate::sidecar::{ClipInfo, ClipTable};

/// The mannequin's leg length (hip to knee to ankle), m: what other characters are fitted to.
pub const MANNEQUIN_LEG: f32 = 0.8366;

/// Which character to load and how to read it.
#[derive(Resource, Clone, Debug)]
pub struct CharacterSource {
    /// Asset path of the glb (`mannequin.glb`, or `user://NAME.glb` for `--character`).
    pub asset_path: String,
    /// The clip sidecar, when there is one.
    pub sidecar: Option<ClipTable>,
    /// A user rig map (`role`, `bone`) from `--rig-map`.
    pub rig_map: Option<Vec<(String, String)>>,
    /// True for a user character (shown in the UI).
    pub custom: bool,
    /// Start position (x, z) and yaw, radians.
    pub start: (Vec2, f32),
}

/// The loaded glTF document of the character.
#[derive(Resource, Clone, Debug)]
pub struct CharacterGltf(pub Handle<Gltf>);

/// The avatar: the character's IK root (child of the [`Player`] body).
#[derive(Component, Clone, Copy, Debug)]
pub struct Avatar {
    /// The entity holding the glTF scene (scaled to fit).
    pub holder: Entity,
}

/// Set when the scene instance has spawned.
#[derive(Component)]
pub struct SceneReady;

/// The blend space, waiting for the rig to be measured before animation starts.
#[derive(Component)]
pub struct PendingLocomotion(pub Option<Locomotion>);

/// Fit applied to the model (for the UI).
#[derive(Component, Clone, Copy, Debug)]
pub struct ModelFit {
    /// Uniform scale applied to the glTF scene.
    pub scale: f32,
}

/// Reads a `--rig-map` file: `role = bone` (or `role: bone`) per line, `#` comments.
pub fn read_rig_map(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut map = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((role, bone)) = line.split_once('=').or_else(|| line.split_once(':')) else {
            return Err(format!("line {}: expected `role = bone`, got `{line}`", n + 1));
        };
        map.push((role.trim().to_string(), bone.trim().trim_matches('"').to_string()));
    }
    if map.is_empty() { Err("the rig map is empty".into()) } else { Ok(map) }
}

/// Spawns the body, the avatar and the scene holder.
pub fn spawn_character(mut commands: Commands, assets: Res<AssetServer>, source: Res<CharacterSource>) {
    commands.insert_resource(CharacterGltf(assets.load(source.asset_path.clone())));
    let (at, yaw) = source.start;
    let body = commands
        .spawn((
            Name::new("Player"),
            Player,
            MoveIntent::default(),
            Motion::new(yaw),
            Transform::from_xyz(at.x, 0.0, at.y).with_rotation(Quat::from_rotation_y(yaw)),
            Visibility::default(),
            RigidBody::KinematicPositionBased,
            controller(),
        ))
        .id();
    let scene = assets.load(GltfAssetLabel::Scene(0).from_asset(source.asset_path.clone()));
    let holder = commands
        .spawn((Name::new("Character model"), WorldAssetRoot(scene), Transform::default(), Visibility::default()))
        .observe(|ready: On<WorldInstanceReady>, mut commands: Commands| {
            commands.entity(ready.entity).insert(SceneReady);
        })
        .id();
    let avatar = commands
        .spawn((Name::new("Character"), Avatar { holder }, Transform::default(), Visibility::default(), ChildOf(body)))
        .id();
    commands.entity(holder).insert(ChildOf(avatar));
    commands.entity(body).insert(Motion { avatar: Some(avatar), ..Motion::new(yaw) });
}

/// Clip info for `name`: from the sidecar, else the defaults for its kind.
fn clip_info(name: &str, sidecar: Option<&ClipTable>, duration: f32) -> ClipInfo {
    let exact = sidecar.and_then(|t| t.clips.iter().find(|c| c.name == name));
    if let Some(info) = exact.or_else(|| sidecar.and_then(|t| t.find(name))) {
        return ClipInfo { name: name.to_string(), ..info.clone() };
    }
    let lower = name.to_ascii_lowercase();
    let speed = if lower.contains("walk") {
        WALK_SPEED
    } else if lower.contains("jog") || lower.contains("run") {
        JOG_SPEED
    } else {
        0.0
    };
    ClipInfo::unlabelled(name, speed, duration)
}

/// Once the scene is ready: animation graph, fit, and `HumanoidIk`.
#[allow(clippy::too_many_arguments)]
pub fn finish_character(
    mut commands: Commands,
    source: Res<CharacterSource>,
    gltf_handle: Option<Res<CharacterGltf>>,
    gltfs: Res<Assets<Gltf>>,
    clips: Res<Assets<AnimationClip>>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    avatars: Query<(Entity, &Avatar), (Without<PendingLocomotion>, Without<Locomotion>)>,
    ready: Query<(), With<SceneReady>>,
    children: Query<&Children>,
    names: Query<&Name>,
    players: Query<(), With<AnimationPlayer>>,
    targets: Option<Res<crate::orb::LookTargets>>,
    hierarchy: Hierarchy,
) {
    let Some(gltf) = gltf_handle.and_then(|h| gltfs.get(&h.0)) else { return };
    for (avatar_entity, avatar) in &avatars {
        if ready.get(avatar.holder).is_err() {
            continue;
        }
        // Clips by name: idle, walk, jog/run.
        let mut chosen: Vec<(String, Handle<AnimationClip>)> = Vec::new();
        for wanted in [&["idle"][..], &["walk"], &["jog", "run"]] {
            let mut named: Vec<(&Box<str>, &Handle<AnimationClip>)> = gltf.named_animations.iter().collect();
            named.sort_by(|a, b| a.0.cmp(b.0));
            if let Some((name, handle)) =
                named.into_iter().find(|(n, _)| wanted.iter().any(|w| n.to_ascii_lowercase().contains(w)))
            {
                chosen.push((name.to_string(), handle.clone()));
            }
        }
        let player = children.iter_descendants(avatar.holder).find(|e| players.get(*e).is_ok());
        let locomotion = match player {
            Some(player) if !chosen.is_empty() => {
                let (graph, nodes) = AnimationGraph::from_clips(chosen.iter().map(|(_, h)| h.clone()));
                commands.entity(player).insert(AnimationGraphHandle(graphs.add(graph)));
                let blend = chosen
                    .iter()
                    .zip(nodes)
                    .map(|((name, handle), node)| {
                        let duration = clips.get(handle).map_or(1.0, |c| c.duration());
                        BlendClip { node, info: clip_info(name, source.sidecar.as_ref(), duration) }
                    })
                    .collect();
                Some(Locomotion::new(player, blend))
            }
            _ => {
                warn!("the character has no Idle/Walk/Jog animations: it will glide in its rest pose");
                None
            }
        };
        // Fit: the legs (found the way HumanoidIk will find them) are scaled to the mannequin's.
        let bones: Vec<(Entity, &str)> =
            children.iter_descendants(avatar.holder).filter_map(|e| names.get(e).ok().map(|n| (e, n.as_str()))).collect();
        let rig = match &source.rig_map {
            None => detect(&bones, &RigProfile::builtin()).ok(),
            Some(map) => RigProfile::from_map("user map", map.iter().map(|(r, b)| (r.as_str(), b.as_str())))
                .ok()
                .and_then(|p| match_profile(&bones, &p).ok()),
        };
        let mut scale = 1.0;
        if let (Some(rig), Some(holder)) = (rig, world_of(avatar.holder, &hierarchy)) {
            let at = |e: Entity| world_of(e, &hierarchy).map(|w| holder.inverse().mul_xform(&w).translation);
            let leg = &rig.legs[0];
            if let (Some(hip), Some(knee), Some(ankle)) = (at(leg.thigh), at(leg.calf), at(leg.foot)) {
                let length = hip.distance(knee) + knee.distance(ankle);
                if length.is_finite() && length > 1e-4 {
                    scale = MANNEQUIN_LEG / length;
                    if (scale - 1.0).abs() < 0.02 {
                        scale = 1.0;
                    }
                }
            }
        }
        commands.entity(avatar.holder).insert(Transform::from_scale(Vec3::splat(scale)));
        let profile = match &source.rig_map {
            Some(map) => RigChoice::Map(map.clone()),
            None => RigChoice::Auto,
        };
        commands.entity(avatar_entity).insert((
            ModelFit { scale },
            PendingLocomotion(locomotion),
            HumanoidIk {
                profile,
                look_target: targets.as_ref().map(|t| IkTarget::Entity(t.camera.unwrap_or(t.orb))),
                hand_target: targets.as_ref().map(|t| IkTarget::Entity(t.orb)),
                foot_lock: true,
                patience_frames: 2,
            },
        ));
    }
}
