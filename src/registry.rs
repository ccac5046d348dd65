//! A warning for glTF scenes that cannot be spawned.
//!
//! Method: Bevy's scene spawner clones a glTF scene instance through reflection, so every
//! component type in it must be registered; the root package enables `reflect_auto_register`,
//! which registers Bevy's own types. A user's glTF (`--character`) may still bring a component
//! type nobody registered: [`report_unregistered`] names it (once per scene) instead of leaving
//! the spawner to stop silently. Inputs: loaded scenes, the type registry. Outputs: warnings.

use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;

/// Warns about component types in loaded scenes that lack a registration (once per scene).
pub fn report_unregistered(
    assets: Res<Assets<WorldAsset>>,
    registry: Res<AppTypeRegistry>,
    mut seen: Local<Vec<AssetId<WorldAsset>>>,
) {
    let registry = registry.read();
    for (id, asset) in assets.iter() {
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        let mut entities = asset.world.iter_entities();
        let used: Vec<_> = entities.by_ref().flat_map(|e| e.archetype().components().to_vec()).collect();
        for component in used {
            let Some(info) = asset.world.components().get_info(component) else { continue };
            if info.type_id().is_some_and(|t| registry.get(t).is_none()) {
                warn!(
                    "the scene uses the component type {} which the demo does not register: it cannot be spawned",
                    info.name()
                );
            }
        }
    }
}
