//! The generated mannequin loaded through Bevy's own glTF loader, headless: every rig role is
//! found, and its Walk clip, played by an `AnimationPlayer`, keeps labelled contacts on the floor
//! at the nominal ground speed. Skin weights are valid.

use bevy::gltf::{Gltf, GltfPlugin};
use bevy::image::{CompressedImageFormatSupport, CompressedImageFormats, ImagePlugin};
use bevy::mesh::skinning::SkinnedMesh;
use bevy::mesh::{Mesh, MeshPlugin, VertexAttributeValues};
use bevy::prelude::*;
use bevy::world_serialization::{WorldAssetRoot, WorldSerializationPlugin};
use bevy_ik::prelude::*;

use crate::common::{DT, headless_app};

/// The sidecar's per-clip contacts (`assets/mannequin.ik.json`).
struct ClipLabels {
    nominal_speed: f32,
    frame_rate: f32,
    feet: [Vec<bool>; 2],
}

fn walk_labels() -> ClipLabels {
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

/// A headless app that can load glTF files (meshes, images, scenes) without a renderer.
fn gltf_app() -> App {
    let mut app = headless_app();
    app.insert_resource(CompressedImageFormatSupport(CompressedImageFormats::NONE));
    app.add_plugins((ImagePlugin::default(), MeshPlugin, WorldSerializationPlugin, GltfPlugin::default()));
    // `App::run` would call these; the glTF loader is only registered in `finish`.
    app.finish();
    app.cleanup();
    app
}

fn update_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..600 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn the_mannequin_loads_rigs_and_walks_on_the_floor_at_its_nominal_speed() {
    let mut app = gltf_app();
    let gltf: Handle<Gltf> = app.world().resource::<AssetServer>().load("mannequin.glb");
    update_until(&mut app, "mannequin.glb", |app| {
        let state = app.world().resource::<AssetServer>().load_state(&gltf);
        assert!(!state.is_failed(), "loading mannequin.glb failed: {state:?}");
        app.world().resource::<Assets<Gltf>>().contains(&gltf)
    });
    let (scene, walk) = {
        let gltfs = app.world().resource::<Assets<Gltf>>();
        let g = gltfs.get(&gltf).unwrap();
        (g.scenes[0].clone(), g.named_animations["Walk"].clone())
    };
    let character = app.world_mut().spawn((WorldAssetRoot(scene), HumanoidIk::default())).id();
    update_until(&mut app, "the rig", |app| {
        app.world().get::<RiggedHumanoid>(character).is_some() || app.world().get::<RigFailed>(character).is_some()
    });
    let failed = app.world().get::<RigFailed>(character).map(|f| f.message.clone());
    assert_eq!(failed, None, "every rig role found");
    let rig = app.world().get::<RiggedHumanoid>(character).unwrap().rig.clone();
    assert_eq!(rig.profile, "unreal");
    assert!(rig.legs.iter().all(|l| l.ball.is_some()) && rig.spine.len() == 3 && rig.neck.is_some());
    // This test measures the clip itself: no IK.
    app.world_mut().resource_mut::<IkSettings>().enabled = false;

    // Skin weights: sum to 1, at most 4 influences, joints inside the skin.
    let mut skinned = app.world_mut().query::<(&Mesh3d, &SkinnedMesh)>();
    let (mesh, skin) = skinned.iter(app.world()).next().map(|(m, s)| (m.0.clone(), s.joints.len())).unwrap();
    let meshes = app.world().resource::<Assets<Mesh>>();
    let mesh = meshes.get(&mesh).unwrap();
    let Some(VertexAttributeValues::Float32x4(weights)) = mesh.attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT) else {
        panic!("no joint weights")
    };
    let Some(VertexAttributeValues::Uint16x4(joints)) = mesh.attribute(Mesh::ATTRIBUTE_JOINT_INDEX) else {
        panic!("no joint indices")
    };
    let worst_sum = weights.iter().map(|w| (w.iter().sum::<f32>() - 1.0).abs()).fold(0.0f32, f32::max);
    assert!(worst_sum <= 1e-4, "weights sum to 1 within {worst_sum}");
    for (w, j) in weights.iter().zip(joints) {
        assert!(w.iter().filter(|x| **x > 0.0).count() <= 4);
        assert!(j.iter().zip(w).all(|(j, w)| *w == 0.0 || (*j as usize) < skin));
    }

    // Play Walk on the player the loader created.
    let mut players = app.world_mut().query_filtered::<Entity, With<AnimationPlayer>>();
    let player = players.iter(app.world()).next().expect("an AnimationPlayer");
    let (graph, node) = AnimationGraph::from_clip(walk);
    let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    app.world_mut().entity_mut(player).insert(AnimationGraphHandle(graph));
    app.world_mut().get_mut::<AnimationPlayer>(player).unwrap().play(node).repeat();

    let labels = walk_labels();
    let balls = [rig.legs[0].ball.unwrap(), rig.legs[1].ball.unwrap()];
    // Let the player apply its first pose (the scene starts in the rest pose).
    for _ in 0..3 {
        app.update();
    }
    let mut last: [Option<(Vec3, bool)>; 2] = [None, None];
    let (mut worst_height, mut speeds) = (0.0f32, Vec::new());
    for _ in 0..200 {
        app.update();
        let seek = app.world().get::<AnimationPlayer>(player).unwrap().animation(node).unwrap().seek_time();
        let frame = (seek * labels.frame_rate).round() as usize;
        for (side, ball) in balls.iter().enumerate() {
            let position = app.world().get::<GlobalTransform>(*ball).unwrap().translation();
            let contact = labels.feet[side][frame % labels.feet[side].len()];
            if contact {
                worst_height = worst_height.max(position.y.abs());
                if let Some((previous, true)) = last[side] {
                    speeds.push((position - previous).length() / DT);
                }
            }
            last[side] = Some((position, contact));
        }
    }
    let mean = speeds.iter().sum::<f32>() / speeds.len() as f32;
    let worst_speed = speeds.iter().map(|s| (s / labels.nominal_speed - 1.0).abs()).fold(0.0f32, f32::max);
    println!(
        "Walk: contact ball height within {:.2} mm, ground speed mean {:.4} m/s (worst {:.2} % off {} m/s over {} samples)",
        worst_height * 1000.0,
        mean,
        worst_speed * 100.0,
        labels.nominal_speed,
        speeds.len()
    );
    assert!(speeds.len() > 100, "enough contact frames sampled");
    assert!(worst_height <= 0.005, "toe within 5 mm of the floor during contacts");
    assert!((mean / labels.nominal_speed - 1.0).abs() <= 0.02, "planted toe at the nominal speed within 2 %");
}
