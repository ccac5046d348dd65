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
