//! The generated mannequin loaded through Bevy's own glTF loader, headless: every rig role is
//! found, and its Walk clip, played by an `AnimationPlayer`, keeps labelled contacts on the floor
//! at the nominal ground speed. Skin weights are valid.

use bevy::gltf::GltfPlugin;
use bevy::mesh::skinning::SkinnedMesh;
use bevy::mesh::{Mesh, VertexAttributeValues};
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::prelude::*;

use crate::common::{
    DT, gltf_app_with, headless_app, headless_app_with_assets, load_gltf, play_on_repeat, update_until_rigged,
    walk_labels,
};

/// A headless app that can load glTF files (meshes, images, scenes) without a renderer.
fn gltf_app() -> App {
    gltf_app_with(headless_app(), GltfPlugin::default())
}

/// Loads a glTF scene, rigs it with [`HumanoidIk`] (IK then switched off) and returns the
/// character, its rig and the file's `Walk` clip.
fn load_and_rig(app: &mut App, path: &str) -> (Entity, ik_core::rig::HumanoidRig<Entity>, Handle<AnimationClip>) {
    let (scene, walk) = load_gltf(app, path, |g| (g.scenes[0].clone(), g.named_animations["Walk"].clone()));
    let character = app.world_mut().spawn((WorldAssetRoot(scene), HumanoidIk::default())).id();
    update_until_rigged(app, character);
    let failed = app.world().get::<RigFailed>(character).map(|f| f.message.clone());
    assert_eq!(failed, None, "every rig role found");
    let rig = app.world().get::<RiggedHumanoid>(character).unwrap().rig.clone();
    assert_eq!(rig.profile, "unreal");
    assert!(rig.legs.iter().all(|l| l.ball.is_some()) && rig.spine.len() == 3 && rig.neck.is_some());
    // The clip itself is measured: no IK.
    app.world_mut().resource_mut::<IkSettings>().enabled = false;
    (character, rig, walk)
}

/// Plays `clip` on the scene's player for 200 frames and returns, over the sidecar's labelled
/// Walk contacts, the worst ball height and every ball ground speed (m/s, character space).
fn planted_balls(
    app: &mut App,
    rig: &ik_core::rig::HumanoidRig<Entity>,
    clip: Handle<AnimationClip>,
) -> (f32, Vec<f32>) {
    let (player, node) = play_on_repeat(app, clip);

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
    (worst_height, speeds)
}

#[test]
fn the_mannequin_loads_rigs_and_walks_on_the_floor_at_its_nominal_speed() {
    let mut app = gltf_app();
    let (_, rig, walk) = load_and_rig(&mut app, "mannequin.glb");
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

    let labels = walk_labels();
    let (worst_height, speeds) = planted_balls(&mut app, &rig, walk);
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

#[test]
fn a_clip_cleaned_by_ik_tool_loads_in_bevy_and_keeps_the_balls_still_at_its_new_speed() {
    // `ik_tool clean` refits Walk for travelling at 1.25 × 1.4 m/s: played in place, a planted
    // ball must then move backward at 1.75 m/s (so it stays still in the world).
    let dir = std::env::temp_dir().join(format!("bevy_ik_clean_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/mannequin.glb").to_string();
    let output = dir.join("walk_fast.glb").to_string_lossy().into_owned();
    let args: Vec<String> = ["clean", &input, "--out", &output, "--clip", "Walk", "--root-speed-scale", "1.25"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let command = ik_tool::cli::parse(&args).unwrap();
    ik_tool::cli::run(&command).unwrap();

    let assets = AssetPlugin { file_path: dir.to_string_lossy().into_owned(), ..Default::default() };
    let mut app = gltf_app_with(headless_app_with_assets(assets), GltfPlugin::default());
    let (_, rig, walk) = load_and_rig(&mut app, "walk_fast.glb");
    let (_, speeds) = planted_balls(&mut app, &rig, walk);
    std::fs::remove_dir_all(&dir).ok();
    let mean = speeds.iter().sum::<f32>() / speeds.len() as f32;
    println!("cleaned Walk ×1.25: planted ball ground speed mean {mean:.4} m/s over {} samples", speeds.len());
    assert!(speeds.len() > 100);
    assert!((mean / 1.75 - 1.0).abs() <= 0.05, "planted balls move at {mean} m/s, expected 1.75");
}
