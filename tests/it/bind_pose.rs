//! The rest pose comes from the skin, not from the frame a clip has reached: a character whose
//! walk started the moment its scene was ready (as Bevy's animated-mesh example does) and which
//! is rigged a few frames later gets the same rig — frame, ankle and toe rest heights, foot up,
//! sole points — as one rigged with no clip playing, on the corpus humanoids and the mannequin.
//! A skeleton whose nodes hold no rest at all (every joint at its parent's origin, the rest in
//! the inverse bind matrices alone, as babylon2gltf writes them) is rigged and retargeted from
//! its skin.

use bevy::gltf::GltfPlugin;
use bevy::prelude::*;
use bevy::world_serialization::{WorldAssetRoot, WorldInstanceReady};
use bevy_ik::prelude::*;

use crate::common::{gltf_app_with, headless_app, load_gltf, update_until_rigged};

/// What the character's nodes hold when it is rigged.
#[derive(Clone, Copy, PartialEq)]
enum Nodes {
    /// Their own rest, no clip playing.
    AtRest,
    /// The walk's frame half a second in, started when the scene was ready.
    Playing,
    /// Nothing: every skin joint's transform the identity (at its parent's origin).
    Empty,
}

/// Sets every skin joint's transform under `root` to the identity.
fn empty_the_joints(app: &mut App, root: Entity) {
    let world = app.world_mut();
    let is_under = |world: &World, mut at: Entity| {
        while let Some(parent) = world.get::<ChildOf>(at).map(ChildOf::parent) {
            if parent == root {
                return true;
            }
            at = parent;
        }
        false
    };
    let skins: Vec<(Entity, Vec<Entity>)> = world
        .query::<(Entity, &bevy::mesh::skinning::SkinnedMesh)>()
        .iter(world)
        .map(|(e, skin)| (e, skin.joints.clone()))
        .collect();
    let joints: Vec<Entity> =
        skins.into_iter().filter(|(e, _)| is_under(world, *e)).flat_map(|(_, joints)| joints).collect();
    assert!(!joints.is_empty(), "a skinned mesh under the character");
    for joint in joints {
        *world.get_mut::<Transform>(joint).unwrap() = Transform::IDENTITY;
    }
}

/// What the rig measured at rest: the frame (leg length, height, up, forward); per leg the
/// ankle and toe heights, the foot's up, heel and tip.
fn rest_figures(path: &str, nodes: Nodes) -> (Vec<f32>, String) {
    let mut app = gltf_app_with(headless_app(), GltfPlugin::default());
    let (scene, walk) = load_gltf(&mut app, path, |g| {
        let walk = g.named_animations.iter().find(|(name, _)| name.to_lowercase().contains("walk"));
        (g.scenes[0].clone(), walk.map(|(_, h)| h.clone()).or_else(|| g.animations.first().cloned()).unwrap())
    });
    app.world_mut().resource_mut::<IkSettings>().enabled = false;
    let character = app.world_mut().spawn(WorldAssetRoot(scene)).id();
    if nodes == Nodes::Playing {
        let (graph, node) = AnimationGraph::from_clip(walk);
        let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
        app.world_mut().entity_mut(character).observe(
            move |_: On<WorldInstanceReady>,
                  mut players: Query<(Entity, &mut AnimationPlayer)>,
                  mut commands: Commands| {
                for (entity, mut player) in &mut players {
                    // Half a second in: the feet are off their rest pose.
                    player.play(node).repeat().seek_to(0.5);
                    commands.entity(entity).insert(AnimationGraphHandle(graph.clone()));
                }
            },
        );
    }
    // The scene spawned (and the clip playing) before the rig is asked for.
    for _ in 0..10 {
        app.update();
    }
    if nodes == Nodes::Empty {
        empty_the_joints(&mut app, character);
    }
    app.world_mut().entity_mut(character).insert(HumanoidIk::default());
    update_until_rigged(&mut app, character);
    let rigged = app.world().get::<RiggedHumanoid>(character).expect("rigged");
    let frame = &rigged.frame;
    let mut figures = vec![frame.leg_length, frame.height];
    figures.extend(frame.up.to_array().into_iter().chain(frame.forward.to_array()));
    let placer = app.world().get::<FootPlacer>(character).expect("feet");
    for rest in placer.legs.iter().filter_map(|l| l.rest) {
        figures.extend([rest.ankle_height, rest.toe_height]);
        figures.extend(rest.foot_up.to_array());
        figures.extend(rest.heel.into_iter().chain(rest.toe_tip).flat_map(|p| p.to_array()));
    }
    (figures, rigged.mapping.clone())
}

#[test]
fn a_clip_playing_when_rigging_happens_does_not_change_the_rest_pose() {
    for path in ["characters/CesiumMan.glb", "characters/RobotExpressive.glb", "mannequin.glb"] {
        let (still, mapping) = rest_figures(path, Nodes::AtRest);
        let (playing, playing_mapping) = rest_figures(path, Nodes::Playing);
        assert_eq!(mapping, playing_mapping, "{path}: the same bones");
        assert_eq!(still.len(), playing.len(), "{path}");
        let worst = still.iter().zip(&playing).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        println!("{path}: rest figures with the walk playing from the scene's start differ by {:.3} mm", worst * 1e3);
        assert!(worst <= 1e-3, "{path}: {still:?} vs {playing:?}");
    }
}

#[test]
fn a_skin_bound_at_the_scene_origin_under_a_turned_root_node_stands_as_its_nodes_do() {
    // GDQuest's Mannequiny: the root node is turned +90° about X, the skin's inverse bind
    // matrices bind the mesh at the scene's origin, not where its node stands. Bound at the
    // node, the rest pose lay on its back (the demo turned it 89° and sank it 77 cm).
    let (figures, mapping) = rest_figures("characters/gdquest_mannequiny.glb", Nodes::AtRest);
    let (up, forward) = (Vec3::from_slice(&figures[2..5]), Vec3::from_slice(&figures[5..8]));
    println!("{mapping}: up {up:?}, forward {forward:?}");
    assert!(up.angle_between(Vec3::Y).to_degrees() < 10.0, "stands up +Y: {up:?}");
    assert!(forward.angle_between(Vec3::Z).to_degrees() < 10.0, "faces +Z as its nodes do: {forward:?}");
}

#[test]
fn a_skeleton_whose_nodes_hold_no_rest_is_rigged_and_retargeted_from_its_skin() {
    // The rig: the same figures as from the nodes' own rest.
    let path = "mannequin.glb";
    let (at_rest, mapping) = rest_figures(path, Nodes::AtRest);
    let (empty, empty_mapping) = rest_figures(path, Nodes::Empty);
    assert_eq!(mapping, empty_mapping, "the same bones");
    let worst = at_rest.iter().zip(&empty).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    println!("rest figures from empty nodes differ by {:.3} mm", worst * 1e3);
    assert!(worst <= 1e-3, "{at_rest:?} vs {empty:?}");

    // Retargeting the Walk onto it: done, with the legs reaching as on the character at rest.
    let mut app = gltf_app_with(headless_app(), GltfPlugin::default());
    let (scene, walk) = load_gltf(&mut app, path, |g| (g.scenes[0].clone(), g.named_animations["Walk"].clone()));
    let source = app.world_mut().spawn((WorldAssetRoot(scene.clone()), Transform::from_xyz(-3.0, 0.0, 0.0))).id();
    let target = app.world_mut().spawn(WorldAssetRoot(scene)).id();
    for _ in 0..10 {
        app.update();
    }
    empty_the_joints(&mut app, target);
    app.world_mut()
        .entity_mut(target)
        .insert((HumanoidIk { foot_lock: false, ..default() }, RetargetClips::new(source, vec![walk])));
    crate::common::update_until(&mut app, "the retargeted clips", |app| {
        if let Some(failed) = app.world().get::<RetargetClipsFailed>(target) {
            panic!("{}", failed.message);
        }
        app.world().get::<RetargetedClips>(target).is_some()
    });
    let clips = app.world().get::<RetargetedClips>(target).unwrap();
    println!("retargeted onto empty nodes: scale {:.4}, missed {:?}", clips.scale, clips.reports[0].missed);
    assert!((clips.scale - 1.0).abs() < 1e-3, "the same legs as the source: scale {}", clips.scale);
}
