//! A character's clips before it is finished: labelled when its file has no sidecar, and the
//! mannequin's locomotion clips retargeted onto it when none of its own plays the walk — all at
//! run time, with the plugin's components.
//!
//! Method: once the scene is ready and the file loaded, [`label_clips`] takes the `Gltf`'s clips
//! (names from `named_animations`) with the sidecar's labels, or without a sidecar asks the
//! plugin for them ([`LabelClipContacts`] on the scene holder: ground speed from the planted
//! feet for in-place clips, hysteresis contact labels, as `ik_tool contacts` makes them), and
//! puts [`CharacterClips`] on the avatar when the plugin's [`ClipContactsLabelled`] (or
//! [`ClipContactsFailed`]) says it is done. [`retarget_missing`] then chooses clips as
//! [`crate::character::finish_character`] will ([`crate::clips::choose`]: names, measured
//! speeds, `--clips`). When no clip plays the walk (`--retarget auto`, a `--character`), it
//! spawns the mannequin's scene, hidden and never animated, as the source of a
//! [`RetargetClips`] for the roles still open (`Walk`, and `Idle` / `Jog` when the file has
//! none) and, on [`ClipsRetargeted`], adds the clips made, labelled by the plugin on this
//! character as its own clips are
//! (the mannequin's sidecar labels, speeds × [`RetargetedClips::scale`], only when that fails).
//! Then [`ClipsReady`].
//! Inputs: [`CharacterSource`], the loaded `Gltf`, the spawned scene. Outputs: the avatar's
//! [`CharacterClips`] and [`ClipsReady`]; [`CharacterSource::retargeted`] and `labels_from`.
//! Invariants: nothing is written to disk; labels that cannot be made are one warning (the
//! clips play unlabelled); clips that cannot be retargeted are one [`CharacterError`].

use bevy::ecs::system::SystemParam;
use bevy::gltf::Gltf;
use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::character::{CharacterGltf, CharacterSource, SceneReady};
use crate::clips::{CharacterClips, ClipRole, ClipsReady};
use crate::marks::{Avatar, CharacterError};
use crate::sidecar::{ClipInfo, ClipTable};

/// The character the clips come from (asset path).
pub const MANNEQUIN: &str = "mannequin.glb";

/// The mannequin's clip for a role.
pub fn mannequin_clip(role: ClipRole) -> &'static str {
    match role {
        ClipRole::Idle => "Idle",
        ClipRole::Walk => "Walk",
        ClipRole::Run => "Jog",
    }
}

/// The roles asked of the mannequin, in role order (on the avatar while retargeting).
#[derive(Component, Clone, Debug)]
pub struct RetargetRoles(pub Vec<ClipRole>);

/// The mannequin's file and its hidden scene, once asked for.
#[derive(Default)]
pub struct RetargetSource {
    gltf: Option<Handle<Gltf>>,
    scene: Option<Entity>,
}

/// Each clip's name in the file (empty for an unnamed one), in file order.
pub fn clip_names(gltf: &Gltf) -> Vec<String> {
    gltf.animations
        .iter()
        .map(|h| gltf.named_animations.iter().find(|(_, n)| *n == h).map_or(String::new(), |(k, _)| k.to_string()))
        .collect()
}

/// Once the scene is ready: the file's clips with the sidecar's labels, or with none to label;
/// otherwise asks the plugin to label them (answered in [`clips_labelled`] or
/// [`labelling_failed`]).
pub fn label_clips(
    mut commands: Commands,
    mut source: ResMut<CharacterSource>,
    gltf_handle: Option<Res<CharacterGltf>>,
    gltfs: Res<Assets<Gltf>>,
    avatars: Query<(Entity, &Avatar), Without<CharacterClips>>,
    holders: Query<Has<LabelClipContacts>, With<SceneReady>>,
) {
    let Some(gltf) = gltf_handle.and_then(|h| gltfs.get(&h.0)) else { return };
    for (entity, avatar) in &avatars {
        let Ok(asked) = holders.get(avatar.holder) else { continue };
        if source.sidecar.is_some() {
            let table = source.sidecar.clone();
            commands.entity(entity).insert(own_clips(&source, gltf, table));
        } else if gltf.animations.is_empty() {
            source.labels_from = "not labelled (no clips)".into();
            commands.entity(entity).insert(own_clips(&source, gltf, None));
        } else if !asked {
            let request = LabelClipContacts { clips: gltf.animations.clone(), profile: source.rig_choice() };
            commands.entity(avatar.holder).insert(request);
        }
    }
}

/// The file's clips with `table`.
fn own_clips(source: &CharacterSource, gltf: &Gltf, table: Option<ClipTable>) -> CharacterClips {
    if let Some(table) = &table {
        let names: Vec<&str> = table.clips.iter().map(|c| c.name.as_str()).collect();
        info!("clip labels {}: {}", source.labels_from, names.join(", "));
    }
    CharacterClips { names: clip_names(gltf), handles: gltf.animations.clone(), table, ..default() }
}

/// What a labelling's answer is for: the avatar of the holder it was asked on, its clips so far,
/// whether its retargeted clips were being labelled, and the roles retargeted.
type Asker<'a> =
    (Entity, &'a Avatar, Option<&'a mut CharacterClips>, Has<LabellingRetargeted>, Option<&'a RetargetRoles>);

/// What taking a labelling's answer needs (both observers of it).
#[derive(SystemParam)]
pub struct LabelAnswer<'w, 's> {
    commands: Commands<'w, 's>,
    source: ResMut<'w, CharacterSource>,
    gltf_handle: Option<Res<'w, CharacterGltf>>,
    gltfs: Res<'w, Assets<Gltf>>,
    avatars: Query<'w, 's, Asker<'static>>,
    done: Query<'w, 's, &'static RetargetedClips>,
}

/// The plugin's labels for the clips asked of it: the file's own (the avatar's clips), or
/// the retargeted ones (added to them, the clips then ready).
pub fn clips_labelled(labelled: On<ClipContactsLabelled>, mut answer: LabelAnswer, labels: Query<&ClipContactLabels>) {
    if let Ok(labels) = labels.get(labelled.entity) {
        answer.take(labelled.entity, Some(labels));
    }
}

/// The plugin could not label the clips asked of it: they play unlabelled (the file's own), or
/// the retargeted ones take the mannequin's labels.
pub fn labelling_failed(failed: On<ClipContactsFailed>, mut answer: LabelAnswer) {
    eprintln!("warning: {}; no float or slide figures", failed.message);
    answer.take(failed.entity, None);
}

impl LabelAnswer<'_, '_> {
    /// A labelling answered on `holder`: `labels`, or none when it failed.
    fn take(&mut self, holder: Entity, labels: Option<&ClipContactLabels>) {
        let done = self.done.get(holder).ok();
        let gltf = self.gltf_handle.as_ref().and_then(|h| self.gltfs.get(&h.0));
        let Some((entity, _, clips, retargeted, roles)) = self.avatars.iter_mut().find(|(_, a, ..)| a.holder == holder)
        else {
            return;
        };
        let source = &mut *self.source;
        match (clips, retargeted, roles, done) {
            (None, _, _, _) => {
                let Some(gltf) = gltf else {
                    warn!("the character's file was unloaded before its clips were labelled");
                    return;
                };
                let names = clip_names(gltf);
                let table = labels.map(|l| ClipTable::from_labels(&names, l));
                if table.is_none() {
                    source.labels_from = "not labelled".into();
                }
                self.commands.entity(entity).insert(own_clips(source, gltf, table));
            }
            (Some(mut clips), true, Some(roles), Some(done)) => {
                add_retargeted(source, &mut clips, &roles.0, done, labels);
                self.commands.entity(entity).insert(ClipsReady);
            }
            _ => {}
        }
    }
}

/// The roles to fill from the mannequin: none when a clip of the file plays the walk (or the
/// character is the mannequin, or `--retarget off`), else `Walk` and whichever of idle and run
/// no clip plays. None as well when the rig or `--clips` fails: finishing the character says why.
fn missing_roles(
    source: &CharacterSource,
    clips: &CharacterClips,
    bones: &HumanoidBones,
    holder: Entity,
) -> Vec<ClipRole> {
    if !source.custom || source.retarget_from.is_none() {
        return Vec::new();
    }
    let Ok(report) = bones.detect(holder, &source.rig_choice()) else { return Vec::new() };
    match crate::clips::choose(&clips.candidates(), report.frame.leg_length, &source.clips) {
        Ok(choice) if choice.walk.is_none() => ClipRole::ALL.into_iter().filter(|r| choice.get(*r).is_none()).collect(),
        _ => Vec::new(),
    }
}

/// On the avatar while the retargeted clips are being labelled.
#[derive(Component)]
pub struct LabellingRetargeted;

/// With the clips labelled: asks the plugin to retarget the mannequin's clips for the roles no
/// clip fills ([`clips_retargeted`] takes the answer), or marks the clips ready when none is
/// open (see the module docs).
#[allow(clippy::too_many_arguments)]
pub fn retarget_missing(
    mut commands: Commands,
    source: Res<CharacterSource>,
    mut mannequin: Local<RetargetSource>,
    assets: Res<AssetServer>,
    gltfs: Res<Assets<Gltf>>,
    avatars: Query<(Entity, &Avatar, &CharacterClips), (Without<ClipsReady>, Without<RetargetRoles>)>,
    bones: HumanoidBones,
    error: Option<Res<CharacterError>>,
) {
    if error.is_some() {
        return; // said once; the character is not used
    }
    for (entity, avatar, clips) in &avatars {
        let roles = missing_roles(&source, clips, &bones, avatar.holder);
        if roles.is_empty() {
            commands.entity(entity).insert(ClipsReady);
            continue;
        }
        match ask_mannequin(&mut commands, &mut mannequin, &assets, &gltfs, &roles) {
            Ok(Some(request)) => {
                let request = RetargetClips { profile: source.rig_choice(), ..request };
                commands.entity(avatar.holder).insert(request);
                commands.entity(entity).insert(RetargetRoles(roles));
            }
            Ok(None) => {} // the mannequin is loading
            Err(e) => give_up(&mut commands, &source, &e),
        }
    }
}

/// The mannequin's clips retargeted onto a character: labelled on it, as its own clips are
/// (the timing and speed of the clips as retargeted, not the mannequin's).
pub fn clips_retargeted(
    retargeted: On<ClipsRetargeted>,
    mut commands: Commands,
    source: Res<CharacterSource>,
    avatars: Query<(Entity, &Avatar), With<RetargetRoles>>,
    done: Query<&RetargetedClips>,
) {
    let Ok(done) = done.get(retargeted.entity) else { return };
    let Some((entity, _)) = avatars.iter().find(|(_, a)| a.holder == retargeted.entity) else { return };
    let request = LabelClipContacts { clips: done.clips.clone(), profile: source.rig_choice() };
    commands.entity(retargeted.entity).remove::<(ClipContactLabels, ClipContactsFailed)>().insert(request);
    commands.entity(entity).insert(LabellingRetargeted);
}

/// The mannequin's clips could not be retargeted: the character is not used.
pub fn retarget_failed(failed: On<RetargetClipsFailed>, mut commands: Commands, source: Res<CharacterSource>) {
    give_up(&mut commands, &source, &failed.message);
}

/// The request for `roles` from the mannequin, its scene spawned hidden the first time; `None`
/// while its file loads.
fn ask_mannequin(
    commands: &mut Commands,
    mannequin: &mut RetargetSource,
    assets: &AssetServer,
    gltfs: &Assets<Gltf>,
    roles: &[ClipRole],
) -> Result<Option<RetargetClips>, String> {
    let handle = mannequin.gltf.get_or_insert_with(|| assets.load(MANNEQUIN));
    let Some(gltf) = gltfs.get(&*handle) else {
        return match assets.get_load_state(&*handle) {
            Some(bevy::asset::LoadState::Failed(e)) => Err(format!("cannot load {MANNEQUIN}: {e}")),
            _ => Ok(None),
        };
    };
    let scene =
        gltf.default_scene.clone().or_else(|| gltf.scenes.first().cloned()).ok_or("the mannequin has no scene")?;
    let clips = roles
        .iter()
        .map(|r| {
            gltf.named_animations
                .get(mannequin_clip(*r))
                .cloned()
                .ok_or(format!("the mannequin has no {}", mannequin_clip(*r)))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let source = *mannequin.scene.get_or_insert_with(|| {
        // Far below the course, hidden, never animated: only its rest pose and bones are read.
        let at = Transform::from_xyz(0.0, -100.0, 0.0);
        commands.spawn((Name::new("Retarget source (mannequin)"), WorldAssetRoot(scene), at, Visibility::Hidden)).id()
    });
    Ok(Some(RetargetClips::new(source, clips)))
}

/// Adds the retargeted clips for `roles` with `labelled` (the plugin's labels of the clips as
/// retargeted), else the mannequin's labels with speeds × the retarget's scale, and says so.
fn add_retargeted(
    source: &mut CharacterSource,
    clips: &mut CharacterClips,
    roles: &[ClipRole],
    done: &RetargetedClips,
    labelled: Option<&ClipContactLabels>,
) {
    let names: Vec<String> = roles.iter().map(|r| mannequin_clip(*r).to_string()).collect();
    let table_of_mannequin = || {
        let labels = source.retarget_from.clone().unwrap_or_default();
        let scaled = |info: &ClipInfo| ClipInfo { nominal_speed: info.nominal_speed * done.scale, ..info.clone() };
        let clips = names.iter().filter_map(|n| labels.clips.iter().find(|c| &c.name == n).map(scaled)).collect();
        ClipTable { clips }
    };
    let (new, from) = match labelled {
        Some(labels) => (ClipTable::from_labels(&names, labels), "labelled as retargeted"),
        None => (table_of_mannequin(), "from the mannequin's sidecar"),
    };
    let own_labels = clips.table.as_ref().is_some_and(|t| !t.clips.is_empty());
    let table = clips.table.get_or_insert_with(ClipTable::default);
    table.clips.extend(new.clips);
    for (name, handle) in names.iter().zip(&done.clips) {
        clips.names.push(name.clone());
        clips.handles.push(handle.clone());
        clips.retargeted.push(name.clone());
    }
    source.labels_from =
        if own_labels { format!("{}; the retargeted clips' {from}", source.labels_from) } else { from.to_string() };
    source.retargeted = clips.retargeted.clone();
    println!("character {}: no walk clip; {} retargeted from the mannequin", source.name, source.retargeted.join(", "));
}

/// One message: the character cannot be used without the clips it lacks.
fn give_up(commands: &mut Commands, source: &CharacterSource, reason: &str) {
    let message = format!(
        "{} has no walk clip and the mannequin's clips cannot be retargeted onto it: {reason} \
         (--retarget off uses it without them)",
        source.name
    );
    error!("{message}");
    commands.insert_resource(CharacterError(message));
}
