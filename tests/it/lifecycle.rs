//! `HumanoidIk`'s lifecycle: a scene respawned after rigging is rigged again from its new bones
//! (no IK component left pointing at despawned bones, no warning), and a rig that cannot be made
//! is reported once, not every frame.

use bevy::gltf::GltfPlugin;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::prelude::*;

use crate::common::{gltf_app_with, headless_app, load_gltf, update_until};

fn gltf_app() -> App {
    let mut app = gltf_app_with(headless_app(), GltfPlugin::default());
    app.insert_resource(IkGround::Plane(GroundPlane::default()));
    app
}

fn mannequin_scene(app: &mut App) -> Handle<WorldAsset> {
    load_gltf(app, "mannequin.glb", |g| g.scenes[0].clone())
}

#[test]
fn a_respawned_scene_is_rigged_again_from_its_new_bones() {
    let mut app = gltf_app();
    let scene = mannequin_scene(&mut app);
    let character =
        app.world_mut().spawn((Name::new("hero"), WorldAssetRoot(scene.clone()), HumanoidIk::default())).id();
    update_until(&mut app, "the rig", |app| app.world().get::<RiggedHumanoid>(character).is_some());
    let first = app.world().get::<RiggedHumanoid>(character).unwrap().rig.pelvis;
    assert!(app.world().get::<RiggedHumanoid>(character).unwrap().mapping.contains("pelvis"));

    // Respawn: the old bones go, a new instance of the scene comes.
    app.world_mut().entity_mut(character).despawn_related::<Children>();
    app.world_mut().entity_mut(character).remove::<WorldAssetRoot>();
    app.update();
    app.world_mut().entity_mut(character).insert(WorldAssetRoot(scene));
    update_until(&mut app, "the new rig", |app| {
        app.world().get::<RiggedHumanoid>(character).is_some_and(|r| r.rig.pelvis != first)
    });
    for _ in 0..10 {
        app.update();
    }
    let rigged = app.world().get::<RiggedHumanoid>(character).unwrap();
    let placer = app.world().get::<FootPlacer>(character).expect("a foot placer on the new bones");
    assert_eq!(placer.pelvis, rigged.rig.pelvis);
    assert!(app.world().get_entity(placer.pelvis).is_ok());
    let state = app.world().get::<FootPlacerState>(character).expect("the foot placer ran");
    println!("after respawn: foot placer warnings {}", state.warnings);
    assert_eq!(state.warnings, 0, "no IK component points at despawned bones");
}

#[test]
fn a_rig_that_cannot_be_made_fails_once_with_bone_names_and_the_map_syntax() {
    #[derive(Resource, Default)]
    struct Failures(u32);
    let mut app = headless_app();
    app.init_resource::<Failures>();
    app.add_observer(|_: On<Add, RigFailed>, mut n: ResMut<Failures>| n.0 += 1);
    let root = app
        .world_mut()
        .spawn((Name::new("blob"), Transform::default(), HumanoidIk { patience_frames: 2, ..default() }))
        .id();
    // Two bones, nothing humanoid about them.
    let a = app.world_mut().spawn((Name::new("Body"), Transform::from_xyz(0.0, 1.0, 0.0), ChildOf(root))).id();
    app.world_mut().spawn((Name::new("Tentacle"), Transform::from_xyz(0.0, -0.5, 0.0), ChildOf(a)));
    for _ in 0..200 {
        app.update();
    }
    let failed = app.world().get::<RigFailed>(root).expect("the rig failed").message.clone();
    println!("{failed}");
    assert!(failed.contains("thigh_l") || failed.contains("left thigh"), "names the missing roles: {failed}");
    assert!(
        failed.contains("role = bone") || failed.contains("rig-map") || failed.contains("RigChoice::Map"),
        "gives the map syntax: {failed}"
    );
    assert!(app.world().get::<RiggedHumanoid>(root).is_none());
    assert_eq!(app.world().resource::<Failures>().0, 1, "reported once in 200 frames, not every frame");
}
