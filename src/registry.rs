//! Reflection registrations glTF scenes need.
//!
//! Method: Bevy's scene spawner clones a glTF scene instance through reflection, so every
//! component type in it must be registered. The root package enables `reflect_auto_register`;
//! these explicit registrations keep scenes spawning if that feature is ever pruned again, and
//! [`report_unregistered`] warns (once per scene) about any component type a user's glTF brings
//! that is still missing, before Bevy's scene spawner stops on it.
//! Inputs: the app. Outputs: type registrations; warnings. Invariant: registering twice is a
//! no-op, so this may run next to plugins that register some of these types themselves.

use bevy::animation::{AnimatedBy, AnimationPlayer, AnimationTargetId};
use bevy::camera::primitives::Aabb;
use bevy::camera::visibility::{DynamicSkinnedMeshBounds, NoFrustumCulling};
use bevy::gltf::{GltfExtras, GltfMaterialExtras, GltfMaterialName, GltfMeshExtras, GltfMeshName, GltfSceneExtras, GltfSceneName};
use bevy::mesh::morph::{MeshMorphWeights, MorphWeights};
use bevy::mesh::skinning::SkinnedMesh;
use bevy::prelude::*;
use bevy::transform::components::TransformTreeChanged;

/// Registers the component types glTF scenes are built from.
pub fn register_scene_types(app: &mut App) {
    app.register_type::<Transform>()
        .register_type::<GlobalTransform>()
        .register_type::<TransformTreeChanged>()
        .register_type::<Name>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<Visibility>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<Aabb>()
        .register_type::<NoFrustumCulling>()
        .register_type::<DynamicSkinnedMeshBounds>()
        .register_type::<Mesh3d>()
        .register_type::<MeshMaterial3d<StandardMaterial>>()
        .register_type::<SkinnedMesh>()
        .register_type::<MorphWeights>()
        .register_type::<MeshMorphWeights>()
        .register_type::<AnimationPlayer>()
        .register_type::<AnimationTargetId>()
        .register_type::<AnimatedBy>()
        .register_type::<GltfExtras>()
        .register_type::<GltfSceneExtras>()
        .register_type::<GltfMeshExtras>()
        .register_type::<GltfMaterialExtras>()
        .register_type::<GltfSceneName>()
        .register_type::<GltfMeshName>()
        .register_type::<GltfMaterialName>();
}

/// Warns about component types in loaded scenes that lack a registration (once per scene).
pub fn report_unregistered(assets: Res<Assets<WorldAsset>>, registry: Res<AppTypeRegistry>, mut seen: Local<Vec<AssetId<WorldAsset>>>) {
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
                warn!("the scene uses the component type {} which the demo does not register: it cannot be spawned", info.name());
            }
        }
    }
}
