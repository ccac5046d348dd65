//! Characters the plugin was not tuned for: every convention `ik_tool mannequin --convention`
//! generates (Mixamo, Blender Z-up, asset-pack, VRM facing −Z, arbitrary names with shuffled
//! nodes, armature scales 0.01 and 100, T- and A-pose rests, IK-control feet, clip sets), loaded
//! through Bevy's own glTF loader and rigged by `HumanoidIk` with no map. The role → bone
//! mapping must be exactly the convention's (feet under the root or a control bone included),
//! the measured height the file's, forward the file's facing.

use bevy::gltf::GltfPlugin;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::prelude::*;
use ik_tool::mannequin::{Convention, conventions, generate_convention};

use crate::common::{gltf_app_with, headless_app_with_assets, load_gltf, update_until_rigged};

/// What happened to one convention.
struct Outcome {
    rigged: Option<RiggedHumanoid>,
    failed: Option<String>,
    names: Vec<(Entity, String)>,
}

fn rig_file(dir: &std::path::Path, file: &str) -> Outcome {
    let assets = AssetPlugin { file_path: dir.to_string_lossy().into_owned(), ..default() };
    let mut app = gltf_app_with(headless_app_with_assets(assets), GltfPlugin::default());
    let scene = load_gltf(&mut app, file, |g| g.scenes[0].clone());
    let root = app.world_mut().spawn((WorldAssetRoot(scene), HumanoidIk::default())).id();
    update_until_rigged(&mut app, root);
    let mut names = app.world_mut().query::<(Entity, &Name)>();
    let names = names.iter(app.world()).map(|(e, n)| (e, n.as_str().to_string())).collect();
    Outcome {
        rigged: app.world().get::<RiggedHumanoid>(root).cloned(),
        failed: app.world().get::<RigFailed>(root).map(|f| f.message.clone()),
        names,
    }
}

/// `(canonical mannequin bone, rigged entity)` for every role the rig found.
fn expected(rig: &ik_core::rig::HumanoidRig<Entity>) -> Vec<(String, Entity)> {
    let mut out = vec![("pelvis".to_string(), rig.pelvis), ("head".to_string(), rig.head)];
    out.extend(rig.spine.iter().enumerate().map(|(i, b)| (format!("spine_{:02}", i + 1), *b)));
    out.extend(rig.neck.map(|n| ("neck_01".to_string(), n)));
    for (side, s) in ["l", "r"].iter().enumerate() {
        let (leg, arm) = (&rig.legs[side], rig.arms[side]);
        let mut add = |stem: &str, e: Option<Entity>| out.extend(e.map(|e| (format!("{stem}_{s}"), e)));
        add("thigh", Some(leg.thigh));
        add("calf", Some(leg.calf));
        add("foot", Some(leg.foot));
        add("ball", leg.ball);
        add("clavicle", arm.and_then(|a| a.clavicle));
        add("upperarm", arm.map(|a| a.upper));
        add("lowerarm", arm.map(|a| a.lower));
        add("hand", arm.map(|a| a.hand));
    }
    out
}

fn check(name: &str, convention: &Convention, outcome: &Outcome, reference_height: Option<f32>) -> Result<f32, String> {
    let name_of = |e: Entity| outcome.names.iter().find(|(x, _)| *x == e).map_or("?".to_string(), |(_, n)| n.clone());
    let rigged = outcome.rigged.as_ref().ok_or_else(|| format!("{name}: not rigged: {:?}", outcome.failed))?;
    let rig = &rigged.rig;
    if rig.spine.len() != 3 || rig.neck.is_none() || rig.legs.iter().any(|l| l.ball.is_none()) {
        return Err(format!(
            "{name}: spine {} bones, neck {:?}, balls {:?}",
            rig.spine.len(),
            rig.neck,
            rig.legs.map(|l| l.ball)
        ));
    }
    for (canonical, entity) in expected(rig) {
        let want = convention.bone_name(&canonical).unwrap();
        let got = name_of(entity);
        if got != want {
            return Err(format!("{name}: {canonical} should be `{want}`, the rig has `{got}`\n{}", rigged.mapping));
        }
    }
    let frame = rigged.frame;
    let forward_error = frame.forward.angle_between(convention.forward()).to_degrees();
    let up_error = frame.up.angle_between(Vec3::Y).to_degrees();
    if forward_error > 5.0 || up_error > 5.0 {
        return Err(format!(
            "{name}: forward {} ({forward_error:.1}° off), up {} ({up_error:.1}° off)",
            frame.forward, frame.up
        ));
    }
    let height_error = reference_height.map_or(0.0, |h| (frame.height / h - 1.0).abs());
    println!(
        "{name:<28} rigged by {:<10} feet under {:<14} height {:.4} m ({:.2} % off the mannequin's), forward {:.1}° off, up {:.1}° off",
        rig.profile,
        format!("{:?}", convention.feet),
        frame.height,
        height_error * 100.0,
        forward_error,
        up_error
    );
    if height_error > 0.01 {
        return Err(format!("{name}: height {} m, the mannequin's is {:?}", frame.height, reference_height));
    }
    Ok(frame.height)
}

#[test]
fn every_generated_convention_rigs_with_no_map() {
    let dir = std::env::temp_dir().join(format!("bevy_ik_conventions_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut reference = None;
    let mut failures = Vec::new();
    for (name, convention) in conventions() {
        let asset = generate_convention(&convention).unwrap();
        let file = format!("{name}.glb");
        std::fs::write(dir.join(&file), &asset.glb).unwrap();
        let outcome = rig_file(&dir, &file);
        match check(name, &convention, &outcome, reference) {
            Ok(height) if reference.is_none() && height > 0.0 => reference = Some(height),
            Ok(_) => {}
            Err(e) => failures.push(e),
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
