//! Runtime retargeting ([`RetargetClips`]): the mannequin's Walk, loaded by Bevy's glTF loader,
//! remade at runtime for generated characters that have no clips of their own (other names,
//! facing, rest poses, units, leg proportions), the same path a user's game takes.
//!
//! Bars (issue 15, runtime path): the clip made at runtime is the one `ik_tool retarget` writes
//! for the same pair (every driven bone within 0.25° at every frame: the offline path's own
//! bars then hold for it), and played through the plugin (foot placement on a plane, locking
//! off) with the root moving at the Walk's speed × the leg-length scale, a planted ball drifts
//! ≤ 1 cm during the mannequin's contacts. Every bone it rotates is keyed at its rest scale too.

use bevy::gltf::GltfPlugin;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::prelude::*;
use ik_tool::mannequin::convention::{ClipSet, RestPose as Rest};
use ik_tool::mannequin::{Convention, conventions, generate_convention};

use crate::common::{ClipLabels, DT, gltf_app_with, headless_app_with_assets, load_gltf, update_until, walk_labels};

/// A folder holding the mannequin and one generated character without clips.
struct Files {
    folder: std::path::PathBuf,
}

impl Files {
    fn new(name: &str, convention: &Convention) -> Self {
        let folder = std::env::temp_dir().join(format!("bevy_ik_runtime_retarget_{name}_{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let mannequin = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/mannequin.glb");
        std::fs::copy(mannequin, folder.join("mannequin.glb")).unwrap();
        std::fs::write(folder.join("target.glb"), generate_convention(convention).unwrap().glb).unwrap();
        Files { folder }
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.folder).ok();
    }
}

fn preset(name: &str, leg_scale: f32, rest: Option<Rest>) -> Convention {
    let base = conventions().into_iter().find(|(n, _)| *n == name).expect("a preset").1;
    Convention { clips: ClipSet::None, leg_scale, rest: rest.unwrap_or(base.rest), ..base }
}

/// Spawns the mannequin (the source, never animated) and the target with `HumanoidIk` and
/// `RetargetClips` for the Walk; returns the app, the target and its retargeted clips.
fn retarget_at_runtime(files: &Files) -> (App, Entity, RetargetedClips, Handle<AnimationClip>) {
    let assets = AssetPlugin { file_path: files.folder.to_string_lossy().into(), ..default() };
    let mut app = gltf_app_with(headless_app_with_assets(assets), GltfPlugin::default());
    let (source_scene, walk) =
        load_gltf(&mut app, "mannequin.glb", |g| (g.scenes[0].clone(), g.named_animations["Walk"].clone()));
    let target_scene = load_gltf(&mut app, "target.glb", |g| g.scenes[0].clone());
    let source = app.world_mut().spawn((WorldAssetRoot(source_scene), Transform::from_xyz(-3.0, 0.0, 0.0))).id();
    let target = app
        .world_mut()
        .spawn((
            WorldAssetRoot(target_scene),
            HumanoidIk { foot_lock: false, ..default() },
            RetargetClips::new(source, vec![walk.clone()]),
        ))
        .id();
    update_until(&mut app, "the retargeted clips", |app| {
        if let Some(failed) = app.world().get::<RetargetClipsFailed>(target) {
            panic!("{}", failed.message);
        }
        app.world().get::<RetargetedClips>(target).is_some()
    });
    let clips = app.world().get::<RetargetedClips>(target).unwrap().clone();
    (app, target, clips, walk)
}

/// The largest angle, degrees, between the runtime clip and `ik_tool retarget`'s Walk for the
/// same pair, over every animated bone of the target and every 1/60 s.
fn against_ik_tool(app: &mut App, files: &Files, target: Entity, runtime: &Handle<AnimationClip>) -> f32 {
    let out = files.folder.join("offline.glb");
    ik_tool::retarget::run_clips(
        &files.folder.join("mannequin.glb"),
        &files.folder.join("target.glb"),
        &out,
        Some(&["Walk"]),
        &Default::default(),
    )
    .expect("ik_tool retargets the pair");
    let offline = load_gltf(app, "offline.glb", |g| g.named_animations["Walk"].clone());
    // The runtime clip is keyed on the targets it gave the clipless character (named from the
    // scene's entity down); Bevy's loader names the offline file's from the scene's top node.
    let mut ids = app.world_mut().query::<(Entity, &bevy::animation::AnimationTargetId)>();
    let bones: Vec<(bevy::animation::AnimationTargetId, bevy::animation::AnimationTargetId)> =
        ids.iter(app.world()).filter_map(|(bone, id)| Some((*id, loader_target(app.world(), bone, target)?))).collect();
    let clips = app.world().resource::<Assets<AnimationClip>>();
    let (runtime, offline) = (clips.get(runtime).unwrap(), clips.get(&offline).unwrap());
    let rotation = || bevy::animation::animated_field!(Transform::rotation);
    let (mut worst, mut compared) = (0.0f32, 0);
    let frames = (offline.duration() * 60.0).round() as usize;
    for (ours, loaders) in bones {
        for f in 0..=frames {
            let t = f as f32 / 60.0;
            let (Some(a), Some(b)) =
                (runtime.sample_clamped(rotation(), ours, t), offline.sample_clamped(rotation(), loaders, t))
            else {
                continue;
            };
            worst = worst.max(a.angle_between(b).to_degrees());
            compared += 1;
        }
    }
    assert!(compared > 100, "only {compared} samples had both clips animating the bone");
    worst
}

/// The bones `clip` rotates whose scale it does not key at their rest scale (what their
/// `Transform` holds before any clip plays): blended with a clip of the character's own that
/// scales them, such a bone would take that clip's scale whole.
fn bones_without_rest_scale(app: &mut App, clip: &Handle<AnimationClip>) -> Vec<String> {
    let mut bones = app.world_mut().query::<(&bevy::animation::AnimationTargetId, &Transform, &Name)>();
    let clip = app.world().resource::<Assets<AnimationClip>>().get(clip).unwrap();
    let rotation = || bevy::animation::animated_field!(Transform::rotation);
    let scale = || bevy::animation::animated_field!(Transform::scale);
    bones
        .iter(app.world())
        .filter(|(id, _, _)| clip.sample_clamped(rotation(), **id, 0.0).is_some())
        .filter(|(id, rest, _)| {
            let keyed = |t: f32| clip.sample_clamped(scale(), **id, t);
            ![0.0, clip.duration()].iter().all(|&t| keyed(t).is_some_and(|s| s.abs_diff_eq(rest.scale, 1e-4)))
        })
        .map(|(_, _, name)| name.to_string())
        .collect()
}

/// The target Bevy's glTF loader gives `bone` of a character spawned under `root`: the names
/// from the scene's top node (below the scene's own entity) down to the bone.
fn loader_target(world: &World, bone: Entity, root: Entity) -> Option<bevy::animation::AnimationTargetId> {
    let mut names = Vec::new();
    let mut at = bone;
    loop {
        let parent = world.get::<ChildOf>(at)?.parent();
        if world.get::<ChildOf>(parent).map(ChildOf::parent) == Some(root) {
            break; // `parent` is the scene's entity
        }
        names.push(world.get::<Name>(at)?.as_str().to_string());
        at = parent;
    }
    names.push(world.get::<Name>(at)?.as_str().to_string());
    Some(bevy::animation::AnimationTargetId::from_iter(names.iter().rev().map(String::as_str)))
}

/// Plays `clip` on repeat on the `AnimationPlayer` under `root` (the mannequin has its own).
fn play_on_repeat_under(app: &mut App, root: Entity, clip: Handle<AnimationClip>) -> (Entity, AnimationNodeIndex) {
    let mut players = app.world_mut().query_filtered::<Entity, With<AnimationPlayer>>();
    let all: Vec<Entity> = players.iter(app.world()).collect();
    let player = *all.iter().find(|&&p| is_under(app.world(), p, root)).expect("an AnimationPlayer under the target");
    let (graph, node) = AnimationGraph::from_clip(clip);
    let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    app.world_mut().entity_mut(player).insert(AnimationGraphHandle(graph));
    app.world_mut().get_mut::<AnimationPlayer>(player).unwrap().play(node).repeat();
    (player, node)
}

fn is_under(world: &World, mut entity: Entity, root: Entity) -> bool {
    for _ in 0..64 {
        if entity == root {
            return true;
        }
        match world.get::<ChildOf>(entity) {
            Some(parent) => entity = parent.parent(),
            None => return false,
        }
    }
    false
}

/// Plays the runtime Walk on the target through the plugin (foot placement on the plane,
/// locking off), the root moving at the Walk's speed × the scale; the largest drift of a
/// planted ball during the mannequin's contacts, m, and the contacts seen.
fn planted_slide(app: &mut App, target: Entity, clips: &RetargetedClips) -> (f32, usize) {
    let rig = app.world().get::<RiggedHumanoid>(target).expect("the target rigs").rig.clone();
    let forward = app.world().get::<RiggedHumanoid>(target).unwrap().frame.forward;
    let ClipLabels { nominal_speed, frame_rate, feet: labels } = walk_labels();
    let velocity = forward * nominal_speed * clips.scale;
    let (player, node) = play_on_repeat_under(app, target, clips.clips[0].clone());
    let balls = [rig.legs[0].ball.unwrap(), rig.legs[1].ball.unwrap()];
    let (mut slide, mut contacts) = (0.0f32, 0);
    let mut start: [Option<Vec3>; 2] = [None, None];
    for frame in 0..(3.0 * labels[0].len() as f32) as usize + 30 {
        app.world_mut().get_mut::<Transform>(target).unwrap().translation += velocity * DT;
        app.update();
        if frame < 30 {
            continue;
        }
        let seek = app.world().get::<AnimationPlayer>(player).unwrap().animation(node).unwrap().seek_time();
        let label = (seek * frame_rate).round() as usize;
        for (side, ball) in balls.iter().enumerate() {
            let at = app.world().get::<GlobalTransform>(*ball).unwrap().translation();
            let at = Vec3::new(at.x, 0.0, at.z);
            match (labels[side][label % labels[side].len()], start[side]) {
                (true, None) => start[side] = Some(at),
                (true, Some(s)) => slide = slide.max(s.distance(at)),
                (false, Some(_)) => {
                    start[side] = None;
                    contacts += 1;
                }
                _ => {}
            }
        }
    }
    (slide, contacts)
}

#[test]
fn a_clipless_character_walks_with_the_mannequin_s_walk_retargeted_at_runtime() {
    let characters = [
        ("vrm_minus_z", preset("vrm_minus_z", 1.0, None)),
        ("mixamo_cm", preset("mixamo_cm", 1.0, None)),
        ("asset_pack_long_legs_a_pose", preset("asset_pack", 1.15, Some(Rest::A45))),
    ];
    let mut failures = Vec::new();
    for (name, convention) in characters {
        let files = Files::new(name, &convention);
        let (mut app, target, clips, _) = retarget_at_runtime(&files);
        let difference = against_ik_tool(&mut app, &files, target, &clips.clips[0]);
        let unscaled = bones_without_rest_scale(&mut app, &clips.clips[0]);
        let (slide, contacts) = planted_slide(&mut app, target, &clips);
        let report = clips.reports[0];
        println!(
            "{name:<28}: against ik_tool {difference:.3}°, slide {:.2} cm over {contacts} contacts, scale {:.3}, \
             feet off their goal on {:?} frames, legs at {:.1} / {:.1} % of reach",
            slide * 100.0,
            clips.scale,
            report.missed,
            report.extension[0] * 100.0,
            report.extension[1] * 100.0
        );
        if difference > 0.25 {
            failures.push(format!("{name}: {difference:.3}° from ik_tool's clip"));
        }
        if !unscaled.is_empty() {
            failures.push(format!("{name}: bones rotated but not keyed at their rest scale: {unscaled:?}"));
        }
        if slide > 0.01 || contacts < 4 {
            failures.push(format!("{name}: slide {:.2} cm over {contacts} contacts", slide * 100.0));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_source_that_is_not_a_humanoid_fails_once_with_a_message() {
    let files = Files::new("bad_source", &preset("unreal", 1.0, None));
    let assets = AssetPlugin { file_path: files.folder.to_string_lossy().into(), ..default() };
    let mut app = gltf_app_with(headless_app_with_assets(assets), GltfPlugin::default());
    let walk = load_gltf(&mut app, "mannequin.glb", |g| g.named_animations["Walk"].clone());
    let target_scene = load_gltf(&mut app, "target.glb", |g| g.scenes[0].clone());
    // A "source" with two bones and no humanoid roles.
    let source = app.world_mut().spawn((Transform::default(), Name::new("prop"))).id();
    let child = app.world_mut().spawn((Transform::default(), Name::new("lid"))).id();
    app.world_mut().entity_mut(source).add_child(child);
    let target = app
        .world_mut()
        .spawn((WorldAssetRoot(target_scene), HumanoidIk::default(), RetargetClips::new(source, vec![walk])))
        .id();
    update_until(&mut app, "the failure", |app| app.world().get::<RetargetClipsFailed>(target).is_some());
    let message = app.world().get::<RetargetClipsFailed>(target).unwrap().message.clone();
    println!("{message}");
    assert!(message.contains("the source"), "the message says which character: {message}");
    for _ in 0..10 {
        app.update();
    }
    assert!(app.world().get::<RetargetedClips>(target).is_none());
    assert_eq!(app.world().get::<RetargetClipsFailed>(target).unwrap().message, message, "not retried");
}

#[test]
fn a_source_that_is_gone_fails_instead_of_waiting() {
    let files = Files::new("gone_source", &preset("mixamo", 1.0, None));
    let assets = AssetPlugin { file_path: files.folder.to_string_lossy().into(), ..default() };
    let mut app = gltf_app_with(headless_app_with_assets(assets), GltfPlugin::default());
    let walk = load_gltf(&mut app, "mannequin.glb", |g| g.named_animations["Walk"].clone());
    let target_scene = load_gltf(&mut app, "target.glb", |g| g.scenes[0].clone());
    let gone = app.world_mut().spawn_empty().id();
    app.world_mut().despawn(gone);
    let target = app
        .world_mut()
        .spawn((WorldAssetRoot(target_scene), HumanoidIk::default(), RetargetClips::new(gone, vec![walk])))
        .id();
    update_until(&mut app, "the failure", |app| app.world().get::<RetargetClipsFailed>(target).is_some());
    let message = &app.world().get::<RetargetClipsFailed>(target).unwrap().message;
    assert!(message.contains("does not exist"), "{message}");
}
