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
