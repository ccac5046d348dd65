//! Spawning the playable character: a kinematic body moved by rapier's character controller,
//! an IK root (the "avatar") under it, and the glTF scene under that, at the file's own size.
//!
//! Method: the file is loaded once, as a `Gltf` asset; its default scene is spawned from that
//! asset once it is in ([`spawn_scene`]). When the scene instance is ready, [`finish_character`]
//! runs once per avatar: it detects the rig from the rest pose ([`HumanoidBones`]: the name
//! profiles, else the skeleton's shape, or the user's `--rig-map`), turns the model so it faces
//! the avatar's +Z with +Y up (files face ±Z, Z-up data sits under root matrices), sizes the
//! controller's capsule to the character's height, chooses idle / walk / run ([`crate::clips`]:
//! names, then the speeds measured from the clips' planted feet, or `--clips`) among the clips
//! [`crate::clip_setup`] made ready (labelled, and for a `--character` with no walk clip the
//! mannequin's retargeted onto it), builds the blend graph and inserts [`HumanoidIk`].
//! Animation starts only after the rig is measured (see
//! [`crate::rigging`]), so rest measurements see the rest pose. A rig that cannot be made is
//! reported once (the UI, the log, and a non-zero exit in headless runs); nothing runs again
//! every frame.
//! Invariants: hierarchy body → avatar (IK root, scale 1, its y = 0 plane is the floor, +Z
//! forward) → scene holder (a rotation only: the character keeps its authored size) → glTF nodes.

use bevy::gltf::Gltf;
use bevy::prelude::*;
use bevy::world_serialization::WorldInstanceReady;
use bevy_ik::humanoid::HumanoidBones;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::clips::{CharacterClips, ClipChoice, ClipOverrides, ClipRole, ClipsReady};
use crate::locomotion::{BlendClip, Locomotion};
use crate::marks::{Avatar, CharacterError};
use crate::marks::{JOG_SPEED, Motion, MoveIntent, Player, WALK_SPEED};
use crate::player::controller;
use crate::sidecar::{ClipInfo, ClipTable};

/// Which character to load and how to read it.
#[derive(Resource, Clone, Debug)]
pub struct CharacterSource {
    /// Asset path of the glb (`mannequin.glb`, or `user://NAME.glb` for `--character`).
    pub asset_path: String,
    /// Clip metadata and contact labels from the sidecar file, when there is one (else the
    /// clips are labelled at run time: [`crate::clip_setup`]).
    pub sidecar: Option<ClipTable>,
    /// Where [`Self::sidecar`] came from, for the UI and the log.
    pub labels_from: String,
    /// A user rig map (`role`, `bone`) from `--rig-map`.
    pub rig_map: Option<Vec<(String, String)>>,
    /// `--clips` overrides.
    pub clips: ClipOverrides,
    /// True for a user character (shown in the UI).
    pub custom: bool,
    /// The character's name for the UI: `mannequin`, or the `--character` file's name.
    pub name: String,
    /// Folder the `user://` asset source reads: the `--character` file's.
    pub user_dir: Option<std::path::PathBuf>,
    /// The mannequin's sidecar, for clips retargeted from it onto a `--character` with no walk
    /// (`None`: the mannequin itself, or `--retarget off`).
    pub retarget_from: Option<ClipTable>,
    /// The mannequin's clips retargeted onto the character (`Walk`, …), once they are; empty
    /// otherwise.
    pub retargeted: Vec<String>,
    /// Start position (x, z) and yaw, radians.
    pub start: (Vec2, f32),
    /// Keep the file's size even when its legs say it is far from a person's (`--keep-scale`).
    pub keep_scale: bool,
}

impl CharacterSource {
    /// How the plugin finds the character's roles: `--rig-map`, else by name or shape.
    pub fn rig_choice(&self) -> RigChoice {
        match &self.rig_map {
            Some(map) => RigChoice::Map(map.clone()),
            None => RigChoice::Auto,
        }
    }
}

/// The loaded glTF document of the character.
#[derive(Resource, Clone, Debug)]
pub struct CharacterGltf(pub Handle<Gltf>);

/// Set when the scene instance has spawned.
#[derive(Component)]
pub struct SceneReady;

/// Set once [`finish_character`] has run for an avatar (whatever came of it).
#[derive(Component)]
pub struct CharacterFinished;

/// The blend space, waiting for the rig to be measured before animation starts.
#[derive(Component)]
pub struct PendingLocomotion(pub Option<Locomotion>);

/// What the demo found out about the model (for the UI and the log).
#[derive(Component, Clone, Debug, Default)]
pub struct ModelInfo {
    /// Height in the rest pose (lowest foot to head top), m.
    pub height: f32,
    /// Thigh + shin length, m.
    pub leg_length: f32,
    /// How each clip role was chosen, one line each.
    pub clips: Vec<String>,
}

/// Reads a `--rig-map` file in the rig-map syntax every tool shares ([`ik_core::rig::parse_map`]:
/// `role = bone` (or `role: bone`) entries, one per line or comma-separated, `#` comments).
pub fn read_rig_map(text: &str) -> Result<Vec<(String, String)>, String> {
    ik_core::rig::parse_map(text).map_err(|e| e.to_string())
}

/// Spawns the body, the avatar and the (still empty) scene holder, and loads the file once.
pub fn spawn_character(
    mut commands: Commands,
    assets: Res<AssetServer>,
    source: Res<CharacterSource>,
    layout: Res<crate::course::CourseLayout>,
) {
    commands.insert_resource(CharacterGltf(assets.load(source.asset_path.clone())));
    let (at, yaw) = source.start;
    // Just above whatever the controller stands on there (a tread's stair ramp, a ramp, a bump).
    let y = layout.start_height(at);
    let body = commands
        .spawn((
            Name::new("Player"),
            Player,
            MoveIntent::default(),
            Motion::new(yaw),
            Transform::from_xyz(at.x, y, at.y).with_rotation(Quat::from_rotation_y(yaw)),
            Visibility::default(),
            RigidBody::KinematicPositionBased,
            controller(1.8),
        ))
        .id();
    let holder = commands.spawn((Name::new("Character model"), Transform::default(), Visibility::default())).id();
    let avatar = commands
        .spawn((Name::new("Character"), Avatar { holder }, Transform::default(), Visibility::default(), ChildOf(body)))
        .id();
    commands.entity(holder).insert(ChildOf(avatar));
    commands.entity(body).insert(Motion { avatar: Some(avatar), ..Motion::new(yaw) });
}

/// Spawns the file's default scene (from the loaded `Gltf`, so the file is read once).
pub fn spawn_scene(
    mut commands: Commands,
    gltf_handle: Option<Res<CharacterGltf>>,
    gltfs: Res<Assets<Gltf>>,
    assets: Res<AssetServer>,
    avatars: Query<&Avatar>,
    holders: Query<(), With<WorldAssetRoot>>,
    error: Option<Res<CharacterError>>,
) {
    let Some(handle) = gltf_handle else { return };
    if error.is_some() {
        return;
    }
    let Some(gltf) = gltfs.get(&handle.0) else {
        if let Some(bevy::asset::LoadState::Failed(e)) = assets.get_load_state(&handle.0) {
            let message = load_failure(&e.to_string());
            error!("{message}");
            commands.insert_resource(CharacterError(message));
        }
        return;
    };
    for avatar in &avatars {
        if holders.get(avatar.holder).is_ok() {
            continue;
        }
        let Some(scene) = gltf.default_scene.clone().or_else(|| gltf.scenes.first().cloned()) else {
            let message = "the character's file has no scene".to_string();
            error!("{message}");
            commands.insert_resource(CharacterError(message));
            return;
        };
        commands.entity(avatar.holder).insert(WorldAssetRoot(scene)).observe(
            |ready: On<WorldInstanceReady>, mut commands: Commands| {
                commands.entity(ready.entity).insert(SceneReady);
            },
        );
    }
}

/// Extensions a file may require that Bevy's glTF loader does not read, and what to do.
const UNREAD_EXTENSIONS: &[(&str, &str)] = &[
    ("KHR_draco_mesh_compression", "re-export the file without Draco mesh compression"),
    ("EXT_meshopt_compression", "re-export the file without meshopt compression"),
    (
        "KHR_materials_pbrSpecularGlossiness",
        "re-export the file with metallic-roughness materials (glTF retired the specular-glossiness ones)",
    ),
    ("KHR_texture_basisu", "re-export the file with PNG or JPEG textures"),
];

/// The one message for a character file Bevy could not load (`error`, its loader's words): with
/// what to do when the file requires an extension the loader does not read.
fn load_failure(error: &str) -> String {
    let required = error.split("extensionsRequired[").nth(1).and_then(|rest| rest.split('"').nth(1));
    let Some(extension) = required.filter(|_| error.contains("Unsupported extension")) else {
        return format!("cannot load the character: {error}");
    };
    let remedy = UNREAD_EXTENSIONS
        .iter()
        .find(|(name, _)| *name == extension)
        .map_or_else(|| format!("re-export the file without {extension}"), |(_, remedy)| remedy.to_string());
    format!(
        "cannot load the character: the file requires the glTF extension {extension}, which Bevy's glTF loader does not read: {remedy}"
    )
}

/// Clip info for clip `index`: its labels (the sidecar's, measured, or the mannequin's; its
/// speed times the character's `scale`), else unlabelled at the speed its role suggests.
fn clip_info(clips: &CharacterClips, index: usize, role: ClipRole, duration: f32, scale: f32) -> ClipInfo {
    if let Some(info) = clips.info(index) {
        return ClipInfo { nominal_speed: info.nominal_speed * scale, ..info.clone() };
    }
    let speed = match role {
        ClipRole::Idle => 0.0,
        ClipRole::Walk => WALK_SPEED,
        ClipRole::Run => JOG_SPEED,
    };
    ClipInfo::unlabelled(&crate::sidecar::clip_key(&clips.names[index], index), speed, duration)
}

/// A person's legs per height (0.84 m legs on the 1.75 m mannequin).
const LEGS_PER_HEIGHT: f32 = 0.48;
/// Heights the demo leaves as they are, m (from the legs: [`LEGS_PER_HEIGHT`]).
const PERSON_SIZES: std::ops::RangeInclusive<f32> = 0.5..=2.5;
/// The height a character outside [`PERSON_SIZES`] is scaled to, m.
const SCALED_HEIGHT: f32 = 1.75;
/// Legs shorter than this cannot climb the course's 20 cm stairs like a person, m.
const SHORTEST_CLIMBING_LEGS: f32 = 0.45;

/// The factor the demo scales a character by: 1 when its legs say it is a person's size
/// (0.5–2.5 m tall) or `keep` (`--keep-scale`), else what makes it 1.75 m tall — a file in
/// centimetres read as metres, a 4 m robot. Height comes from the legs, never the mesh's box
/// (an oversized head would say 3 m).
pub fn size_scale(leg_length: f32, keep: bool) -> f32 {
    let height = leg_length / LEGS_PER_HEIGHT;
    if keep || !height.is_finite() || height <= 0.0 || PERSON_SIZES.contains(&height) {
        1.0
    } else {
        SCALED_HEIGHT / height
    }
}

/// `, scaled ×0.55 from legs of 1.54 m (--keep-scale keeps its size)`, or nothing at 1.
fn size_note(scale: f32, file_legs: f32) -> String {
    if scale == 1.0 {
        return String::new();
    }
    format!(
        ", scaled ×{scale:.3} from legs of {file_legs:.2} m to a {SCALED_HEIGHT} m person (--keep-scale keeps its size)"
    )
}

/// The rotation that turns a model whose rest pose faces `forward` with `up` into one facing
/// +Z with +Y up (both given in the holder's frame).
pub fn facing_rotation(up: Vec3, forward: Vec3) -> Quat {
    let up = up.normalize_or(Vec3::Y);
    let forward = (forward - up * forward.dot(up)).normalize_or(Vec3::Z);
    let from = Mat3::from_cols(up.cross(forward), up, forward);
    let q = Quat::from_mat3(&from.transpose());
    if q.is_finite() { q.normalize() } else { Quat::IDENTITY }
}

/// Largest angle between the way the rest pose faces and the way its walk clip travels that is
/// still walking forward (a walk that drifts, a curved path), degrees.
const SAME_FACING_DEG: f32 = 45.0;

/// The way the character walks, in the holder's frame, where its walk clip decides it: the
/// clip's heading (`walk_heading`) and how far it is from the rest pose's `forward`, degrees,
/// when that is more than [`SAME_FACING_DEG`] (a clip that turns the whole body, as a
/// conversion whose bind pose faces the other way); `None`: the rest pose's facing stands.
fn walking_forward(up: Vec3, forward: Vec3, walk_heading: Option<Vec3>) -> Option<(Vec3, f32)> {
    let flat = |v: Vec3| v.reject_from(up.normalize_or(Vec3::Y)).normalize_or_zero();
    let walk = walk_heading.map(flat).filter(|w| *w != Vec3::ZERO)?;
    let away = walk.angle_between(flat(forward)).to_degrees();
    (away > SAME_FACING_DEG).then_some((walk, away))
}

/// The clips' roles: every clip, with its name and the speed measured from its feet, at the
/// size the character walks at (`scale` times the file's, legs `leg_length` long in the file;
/// the speed bands are per leg length, so the choice is the same).
fn choose_clips(
    clips: &CharacterClips,
    scale: f32,
    leg_length: f32,
    wanted: &ClipOverrides,
) -> Result<ClipChoice, String> {
    let mut candidates = clips.candidates();
    candidates.iter_mut().for_each(|c| c.speed = c.speed.map(|s| s * scale));
    crate::clips::choose(&candidates, leg_length * scale, wanted)
}

/// The holder's turn for a rest pose facing `forward` whose walk heads `walk_heading`
/// ([`walking_forward`]), the way it then faces for [`HumanoidIk::facing`] (rigged under the
/// turned holder: +Z) where its walk clip decided it, and the log's note saying so.
fn turn_to_walk(up: Vec3, forward: Vec3, walk_heading: Option<Vec3>) -> (Quat, Option<Vec3>, String) {
    let by_clip = walking_forward(up, forward, walk_heading);
    let turn = facing_rotation(up, by_clip.map_or(forward, |(walk, _)| walk));
    let note = by_clip.map_or(String::new(), |(_, away)| {
        format!(" by its walk clip, which travels {away:.0}° from where its rest pose faces")
    });
    (turn, by_clip.map(|(walk, _)| turn * walk), note)
}

/// Once the clips are ready: rig detection, facing, clips, the blend graph and `HumanoidIk`.
/// Runs once per avatar.
#[allow(clippy::too_many_arguments)]
pub fn finish_character(
    mut commands: Commands,
    source: Res<CharacterSource>,
    clip_assets: Res<Assets<AnimationClip>>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    avatars: Query<(Entity, &Avatar, &ChildOf, &CharacterClips), (With<ClipsReady>, Without<CharacterFinished>)>,
    children: Query<&Children>,
    players: Query<(), With<AnimationPlayer>>,
    mut bodies: Query<&mut Motion>,
    targets: Option<Res<crate::orb::LookTargets>>,
    mut status: ResMut<crate::marks::RigStatus>,
    bones: HumanoidBones,
) {
    for (avatar_entity, avatar, body, clips) in &avatars {
        commands.entity(avatar_entity).insert(CharacterFinished);
        let profile = source.rig_choice();
        // The rig as HumanoidIk will find it, for the facing, the size and the speed bands.
        let frame = match bones.detect(avatar.holder, &profile) {
            Ok(report) => report.frame,
            Err(message) => {
                fail(&mut commands, &mut status, format!("cannot rig the character: {message}"));
                *status = crate::marks::RigStatus::Failed(message);
                continue;
            }
        };
        let scale = size_scale(frame.leg_length, source.keep_scale);
        let choice = match choose_clips(clips, scale, frame.leg_length, &source.clips) {
            Ok(choice) => choice,
            Err(message) => {
                fail(&mut commands, &mut status, message);
                continue;
            }
        };
        let walk_heading = choice.walk.and_then(|w| clips.info(w)).and_then(|c| c.heading);
        let (turn, facing, facing_note) = turn_to_walk(frame.up, frame.forward, walk_heading);
        commands.entity(avatar.holder).insert(Transform::from_rotation(turn).with_scale(Vec3::splat(scale)));
        let (height, leg_length) = (frame.height * scale, frame.leg_length * scale);
        // The capsule spans the whole body: 2.15 leg lengths (1.8 m for the mannequin's 0.84 m
        // legs; the rig's height stops at the head joint when there is no head-top bone).
        commands.entity(body.parent()).insert(controller(2.15 * leg_length));
        let report = clip_report(&choice, clips);
        info!(
            "character: {height:.2} m tall, legs {leg_length:.2} m{}, turned {:.0}° to face +Z{facing_note}; clips: {}",
            size_note(scale, frame.leg_length),
            turn.angle_between(Quat::IDENTITY).to_degrees(),
            report.join("; ")
        );
        warn_short_legs(leg_length);
        let player = children.iter_descendants(avatar.holder).find(|e| players.get(*e).is_ok());
        let blend =
            player.and_then(|p| blend_space(&mut commands, &mut graphs, &clip_assets, p, clips, &choice, scale));
        if let (Some(loco), Ok(mut motion)) = (&blend, bodies.get_mut(body.parent())) {
            motion.speeds = loco.walk_and_run_speeds();
        }
        if blend.is_none() {
            warn!("the character has no walk, run or idle clip: it keeps its rest pose while it moves");
        }
        commands.entity(avatar_entity).insert((
            ModelInfo { height, leg_length, clips: report },
            PendingLocomotion(blend),
            HumanoidIk {
                profile,
                look_target: targets.as_ref().map(|t| IkTarget::Entity(t.focus)),
                hand_target: targets.as_ref().map(|t| IkTarget::Entity(t.focus)),
                foot_lock: true,
                patience_frames: 2,
                facing,
                ..Default::default()
            },
            // Clips that carry the body forward are played in place (their travel reported,
            // not applied): the controller moves the character; in-place clips are untouched.
            RootMotion::default(),
            // Flights of stairs along its travel, found by the plugin's rays: what the
            // controller slows to one tread per step for (`player::slow_on_stairs`).
            StairFinder::default(),
        ));
    }
}

/// Says when legs this long cannot climb the course's steps like a person.
fn warn_short_legs(leg_length: f32) {
    if leg_length < SHORTEST_CLIMBING_LEGS {
        warn!(
            "character: legs {leg_length:.2} m long cannot climb the course's 15 and 20 cm steps like a person \
             (legs under {SHORTEST_CLIMBING_LEGS} m); it may stop at them"
        );
    }
}

/// One message: the UI shows it, the log has it, a headless run exits with it.
fn fail(commands: &mut Commands, status: &mut crate::marks::RigStatus, message: String) {
    error!("{message}");
    *status = crate::marks::RigStatus::Failed(message.clone());
    commands.insert_resource(CharacterError(message));
}

/// How each role was chosen, saying which clips came from the mannequin.
fn clip_report(choice: &ClipChoice, clips: &CharacterClips) -> Vec<String> {
    let mut report = choice.report.clone();
    for role in ClipRole::ALL {
        if choice.get(role).is_some_and(|i| i >= clips.names.len() - clips.retargeted.len())
            && let Some(line) = report.iter_mut().find(|l| l.starts_with(&format!("{}: ", role.key())))
        {
            line.push_str(", retargeted from the mannequin");
        }
    }
    report
}

/// The blend space of the chosen clips on `player` (its graph inserted); `None` without any.
fn blend_space(
    commands: &mut Commands,
    graphs: &mut Assets<AnimationGraph>,
    clip_assets: &Assets<AnimationClip>,
    player: Entity,
    clips: &CharacterClips,
    choice: &ClipChoice,
    scale: f32,
) -> Option<Locomotion> {
    let chosen: Vec<(usize, ClipRole)> = ClipRole::ALL.iter().filter_map(|r| choice.get(*r).map(|i| (i, *r))).collect();
    if chosen.is_empty() {
        return None;
    }
    let handles: Vec<Handle<AnimationClip>> = chosen.iter().map(|(i, _)| clips.handles[*i].clone()).collect();
    let (graph, nodes) = AnimationGraph::from_clips(handles.iter().cloned());
    commands.entity(player).insert(AnimationGraphHandle(graphs.add(graph)));
    let blend = chosen
        .iter()
        .zip(nodes)
        .zip(&handles)
        .map(|(((index, role), node), handle)| {
            let duration = clip_assets.get(handle).map_or(1.0, |c| c.duration());
            BlendClip { node, info: clip_info(clips, *index, *role, duration, scale) }
        })
        .collect();
    Some(Locomotion::new(player, blend))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_characters_far_from_a_persons_size_are_scaled() {
        // The mannequin (0.84 m legs) and CesiumMan (0.54 m) keep their size.
        assert_eq!((size_scale(0.84, false), size_scale(0.54, false)), (1.0, 1.0));
        // RobotExpressive's 1.54 m legs say 3.2 m tall: scaled to 1.75 m.
        let robot = size_scale(1.54, false);
        assert!((1.54 * robot / LEGS_PER_HEIGHT - 1.75).abs() < 1e-4, "{robot}");
        // A file in centimetres read as metres (84 m legs), and a 0.17-unit re-export.
        assert!((84.0 * size_scale(84.0, false) - 0.84).abs() < 1e-3);
        assert!((0.08 * size_scale(0.08, false) - 0.84).abs() < 1e-3);
        // --keep-scale, or no legs to measure: as it is.
        assert_eq!((size_scale(1.54, true), size_scale(0.0, false), size_scale(f32::NAN, false)), (1.0, 1.0, 1.0));
    }

    #[test]
    fn a_walk_clip_that_turns_the_body_turns_the_character() {
        // A walk drifting 20° to the side: the rest pose's facing stands.
        let out = Quat::from_rotation_y(20f32.to_radians()) * Vec3::Z;
        assert_eq!(walking_forward(Vec3::Y, Vec3::Z, Some(out)), None);
        assert_eq!(walking_forward(Vec3::Y, Vec3::Z, None), None);
        // A clip travelling the other way from the bind pose: its heading, flat, 174° away.
        let (forward, away) = walking_forward(Vec3::Y, Vec3::Z, Some(Vec3::new(0.1, 0.2, -1.0))).unwrap();
        assert!(forward.distance(Vec3::new(0.1, 0.0, -1.0).normalize()) < 1e-5, "{forward}");
        assert!((away - 174.3).abs() < 0.1, "{away}");
        assert!((facing_rotation(Vec3::Y, forward) * forward).distance(Vec3::Z) < 1e-5);
    }

    #[test]
    fn a_file_requiring_an_extension_bevy_does_not_read_says_what_to_do() {
        // Bevy 0.19's words for a file exported with specular-glossiness materials.
        let bevy = "Failed to load asset 'user://walk.glb' with asset loader 'bevy_gltf::loader::GltfLoader': \
                    invalid glTF file: invalid glTF: extensionsRequired[0] = \"KHR_materials_pbrSpecularGlossiness\": \
                    Unsupported extension";
        let message = load_failure(bevy);
        assert!(message.contains("requires the glTF extension KHR_materials_pbrSpecularGlossiness"), "{message}");
        assert!(message.contains("re-export the file with metallic-roughness materials"), "{message}");
        let draco = load_failure(&bevy.replace("KHR_materials_pbrSpecularGlossiness", "KHR_draco_mesh_compression"));
        assert!(draco.ends_with("re-export the file without Draco mesh compression"), "{draco}");
        let other = load_failure(&bevy.replace("KHR_materials_pbrSpecularGlossiness", "EXT_future"));
        assert!(other.ends_with("re-export the file without EXT_future"), "{other}");
        // Anything else is passed on as Bevy said it.
        assert_eq!(load_failure("path not found"), "cannot load the character: path not found");
    }
}
