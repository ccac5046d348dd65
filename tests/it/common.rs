//! Shared helpers for the headless test apps.

use std::time::Duration;

use bevy::animation::AnimationPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_ik::prelude::*;

/// Frame length every test app advances by.
pub const DT: f32 = 1.0 / 60.0;

/// A headless app: minimal plugins, assets, transforms, animation and bevy_ik, with a fixed
/// 60 Hz time step so results do not depend on the machine.
pub fn headless_app() -> App {
    headless_app_with_assets(AssetPlugin::default())
}

/// [`headless_app`] reading assets through the given asset plugin (e.g. another folder).
pub fn headless_app_with_assets(assets: AssetPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, assets, TransformPlugin, AnimationPlugin, IkPlugin::default()));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(DT)));
    app
}

/// A world position as Bevy propagated it this frame.
pub fn world_translation(app: &mut App, entity: Entity) -> Vec3 {
    global_translation(app, entity)
}

/// A world position as Bevy propagated it this frame.
pub fn global_translation(app: &mut App, entity: Entity) -> Vec3 {
    app.world().get::<GlobalTransform>(entity).expect("entity has a GlobalTransform").translation()
}

/// A headless app that can load glTF files (meshes, images, scenes) without a renderer, with
/// the given glTF plugin (e.g. one converting to Bevy's coordinates).
pub fn gltf_app_with(mut app: App, gltf: bevy::gltf::GltfPlugin) -> App {
    use bevy::image::{CompressedImageFormatSupport, CompressedImageFormats, ImagePlugin};
    app.insert_resource(CompressedImageFormatSupport(CompressedImageFormats::NONE));
    app.add_plugins((
        ImagePlugin::default(),
        bevy::mesh::MeshPlugin,
        bevy::world_serialization::WorldSerializationPlugin,
        gltf,
    ));
    // `App::run` would call these; the glTF loader is only registered in `finish`.
    app.finish();
    app.cleanup();
    app
}

/// Updates the app until `done` says so (sleeping a little between frames, for the asset
/// threads); panics naming `what` after 600 frames.
pub fn update_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..600 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("timed out waiting for {what}");
}

/// Loads a glTF file through the app's asset server and reads what `read` takes from it;
/// panics with the load error if it fails.
pub fn load_gltf<R>(app: &mut App, path: &str, read: impl FnOnce(&bevy::gltf::Gltf) -> R) -> R {
    let handle: Handle<bevy::gltf::Gltf> = app.world().resource::<AssetServer>().load(path.to_string());
    update_until(app, path, |app| {
        let state = app.world().resource::<AssetServer>().load_state(&handle);
        assert!(!state.is_failed(), "loading {path} failed: {state:?}");
        app.world().resource::<Assets<bevy::gltf::Gltf>>().contains(&handle)
    });
    read(app.world().resource::<Assets<bevy::gltf::Gltf>>().get(&handle).expect("loaded"))
}

/// Updates until the root is rigged or its rig failed.
pub fn update_until_rigged(app: &mut App, root: Entity) {
    update_until(app, "the rig", |app| {
        app.world().get::<RiggedHumanoid>(root).is_some() || app.world().get::<RigFailed>(root).is_some()
    });
}

/// The sidecar's contacts for the mannequin's Walk (`assets/mannequin.ik.json`); every generated
/// convention's walk is the same clip.
pub struct ClipLabels {
    pub nominal_speed: f32,
    pub frame_rate: f32,
    /// `[left, right]`, one flag per clip frame.
    pub feet: [Vec<bool>; 2],
}

/// Reads [`ClipLabels`] for the Walk.
pub fn walk_labels() -> ClipLabels {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/mannequin.ik.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let walk = &json["Walk"];
    let foot = |name: &str| walk["contacts"][name].as_array().unwrap().iter().map(|v| v.as_bool().unwrap()).collect();
    ClipLabels {
        nominal_speed: walk["nominal_speed"].as_f64().unwrap() as f32,
        frame_rate: walk["frame_rate"].as_f64().unwrap() as f32,
        feet: [foot("foot_l"), foot("foot_r")],
    }
}

/// Plays `clip` on repeat on the scene's (first) `AnimationPlayer`; returns the player and
/// the clip's node.
pub fn play_on_repeat(app: &mut App, clip: Handle<AnimationClip>) -> (Entity, AnimationNodeIndex) {
    let mut players = app.world_mut().query_filtered::<Entity, With<AnimationPlayer>>();
    let player = players.iter(app.world()).next().expect("an AnimationPlayer");
    let (graph, node) = AnimationGraph::from_clip(clip);
    let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    app.world_mut().entity_mut(player).insert(AnimationGraphHandle(graph));
    app.world_mut().get_mut::<AnimationPlayer>(player).unwrap().play(node).repeat();
    (player, node)
}
