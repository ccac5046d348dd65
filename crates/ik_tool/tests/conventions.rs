//! The mannequin in every convention preset, read back from the file with the `gltf` crate.
//!
//! Bars, per preset: the document validates; one skin with the expected joints, all reachable
//! from the scene; clips named as the preset says; in world space (nodes walked with their TRS
//! or matrices) the rest pose is the canonical one turned to the preset's facing (1e-4 m), so
//! the character is as tall as the default mannequin (1 %), stands on the floor (lowest joint
//! within 1 mm of y = 0), has its head above its pelvis, its toes ahead of its ankles and its
//! left foot on its left; every joint's world matrix times its inverse bind matrix is one
//! common matrix that puts the mesh on the floor at the default's height; each clip, played
//! from the file, moves every joint as the canonical clip does (1e-3 m). Also: the CLI writes
//! a preset and rejects an unknown name with status 2 and the list, and the bytes repeat.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use ik_core::Xform;
use ik_tool::mannequin::clips::{self, Clip};
use ik_tool::mannequin::convention::{ClipSource, Convention, Facing, FeetParent, conventions};
use ik_tool::mannequin::skeleton::{self, BONE_NAMES, Rig};
use ik_tool::mannequin::{convert, generate, generate_convention, jump};

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ik_tool_conventions_{tag}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// World matrices of every node (`None`: not reachable from the default scene), with the
/// given local overrides.
fn world(doc: &gltf::Document, locals: &HashMap<usize, Mat4>) -> Vec<Option<Mat4>> {
    let mut out = vec![None; doc.nodes().len()];
    fn visit(node: gltf::Node, parent: Mat4, locals: &HashMap<usize, Mat4>, out: &mut [Option<Mat4>]) {
        let local = locals.get(&node.index()).copied().unwrap_or(Mat4::from_cols_array_2d(&node.transform().matrix()));
        let m = parent * local;
        assert!(out[node.index()].is_none(), "node {} reached twice", node.index());
        out[node.index()] = Some(m);
        for child in node.children() {
            visit(child, m, locals, out);
        }
    }
    for node in doc.default_scene().expect("a default scene").nodes() {
        visit(node, Mat4::IDENTITY, locals, &mut out);
    }
    out
}

fn facing(c: &Convention) -> Quat {
    match c.facing {
        Facing::PlusZ => Quat::IDENTITY,
        Facing::MinusZ => Quat::from_rotation_y(std::f32::consts::PI),
    }
}

/// Highest vertex of the default mannequin, and its head joint height.
fn default_heights() -> (f32, f32) {
    let doc = gltf::Gltf::from_slice(&generate().unwrap().glb).unwrap();
    let top = doc
        .meshes()
        .flat_map(|m| m.primitives())
        .map(|p| p.get(&gltf::Semantic::Positions).unwrap().max().unwrap()[1].as_f64().unwrap() as f32)
        .fold(f32::MIN, f32::max);
    (top, skeleton::rig().unwrap().joint(skeleton::rig().unwrap().bone("head")).y)
}

/// The canonical clip behind a preset's clip.
fn canonical_clip(rig: &Rig, source: ClipSource) -> Clip {
    let specs = clips::clip_specs();
    match source {
        ClipSource::Idle => clips::build_clip(rig, &specs[0]),
        ClipSource::Walk => clips::build_clip(rig, &specs[1]),
        ClipSource::Jog => clips::build_clip(rig, &specs[2]),
        ClipSource::Jump => jump::build_jump(rig, "WalkJump"),
    }
    .unwrap()
}

fn canonical_frame(rig: &Rig, clip: &Clip, f: usize) -> Vec<Xform> {
    let mut locals = rig.skeleton.rest().to_vec();
    for (b, local) in locals.iter_mut().enumerate() {
        local.rotation = clip.rotations[b][f];
    }
    locals[rig.bone("pelvis")].translation = clip.pelvis_translation[f];
    let mut model = vec![Xform::IDENTITY; locals.len()];
    rig.skeleton.model_from_local(&locals, &mut model).unwrap();
    model
}

/// One key of a node: keyed translation and rotation, if any.
type Key = (Option<Vec3>, Option<Quat>);

/// Per-frame local matrices of every animated node of one animation.
fn animation_frames(anim: &gltf::Animation, blob: Option<&[u8]>, doc: &gltf::Document) -> Vec<HashMap<usize, Mat4>> {
    let mut trs: HashMap<usize, Vec<Key>> = HashMap::new();
    let mut frames = 0;
    for channel in anim.channels() {
        let reader = channel.reader(|_| blob);
        let node = channel.target().node().index();
        let keys = trs.entry(node).or_default();
        match reader.read_outputs().unwrap() {
            gltf::animation::util::ReadOutputs::Translations(t) => {
                let t: Vec<Vec3> = t.map(Vec3::from).collect();
                keys.resize(t.len(), (None, None));
                t.iter().enumerate().for_each(|(i, v)| keys[i].0 = Some(*v));
            }
            gltf::animation::util::ReadOutputs::Rotations(r) => {
                let r: Vec<Quat> = r.into_f32().map(Quat::from_array).collect();
                keys.resize(r.len(), (None, None));
                r.iter().enumerate().for_each(|(i, q)| keys[i].1 = Some(*q));
            }
            _ => panic!("only translation and rotation channels"),
        }
        frames = reader.read_inputs().unwrap().count();
    }
    (0..frames)
        .map(|f| {
            trs.iter()
                .map(|(&node, keys)| {
                    let (t, r, s) = doc.nodes().nth(node).unwrap().transform().decomposed();
                    let (kt, kr) = keys[f];
                    let m = Mat4::from_scale_rotation_translation(
                        Vec3::from(s),
                        kr.unwrap_or(Quat::from_array(r)),
                        kt.unwrap_or(Vec3::from(t)),
                    );
                    (node, m)
                })
                .collect()
        })
        .collect()
}

fn check_preset(name: &str, c: &Convention, (default_top, default_head): (f32, f32)) {
    let asset = generate_convention(c).unwrap();
    let dir = temp_dir(name);
    let path = dir.join(format!("{name}.glb"));
    let written = convert::write_convention(c, &path).unwrap();
    assert_eq!(written.len(), 1 + usize::from(c.sidecar), "{name}: sidecar only when the preset has one");
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes == asset.glb, "{name}: the file holds the generated bytes");
    assert!(generate_convention(c).unwrap().glb == bytes, "{name}: same bytes on two runs");
    let gltf = gltf::Gltf::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: invalid glTF: {e}"));
    let blob = gltf.blob.as_deref();
    let doc = &gltf.document;

    // Skin and joints.
    assert_eq!(doc.skins().count(), 1, "{name}: one skin");
    let skin = doc.skins().next().unwrap();
    let joints: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    let expected = BONE_NAMES.len() - usize::from(!c.root_bone) + usize::from(c.feet == FeetParent::Control);
    assert_eq!(joints.len(), expected, "{name}: joint count");
    let node_of: HashMap<String, usize> =
        doc.nodes().filter_map(|n| n.name().map(|s| (s.to_string(), n.index()))).collect();
    let file_names: Vec<String> = joints.iter().map(|&j| doc.nodes().nth(j).unwrap().name().unwrap().into()).collect();
    assert_eq!(file_names, asset.joint_names, "{name}: joint names in skin order");
    assert_eq!(node_of.len(), doc.nodes().len(), "{name}: node names are unique");
    let world_rest = world(doc, &HashMap::new());
    assert!(joints.iter().all(|&j| world_rest[j].is_some()), "{name}: every joint reachable");
    let joint = |canonical: &str| -> usize {
        let n = c.bone_name(canonical).unwrap_or_else(|| panic!("{name}: no {canonical}"));
        node_of[&n]
    };
    let pos = |w: &[Option<Mat4>], canonical: &str| w[joint(canonical)].unwrap().w_axis.truncate();

    // Clips.
    let names: Vec<Option<String>> = doc.animations().map(|a| a.name().map(str::to_string)).collect();
    let want: Vec<Option<String>> = c.clips.clips().iter().map(|(_, n)| n.map(str::to_string)).collect();
    assert_eq!(names, want, "{name}: clip names");

    // World rest pose: the canonical rest, turned to the facing.
    let rig = skeleton::rig().unwrap();
    let rest = convert::rest_pose(&rig, c.rest).unwrap();
    let turn = facing(c);
    for (b, canonical) in BONE_NAMES.iter().enumerate().filter(|(b, _)| *b > 0 || c.root_bone) {
        let error = pos(&world_rest, canonical).distance(turn * rest[b].translation);
        assert!(error < 1e-4, "{name}: {canonical} rests {error} m from the canonical rest");
    }
    let lowest = joints.iter().map(|&j| world_rest[j].unwrap().w_axis.y).fold(f32::MAX, f32::min);
    assert!(lowest.abs() < 1e-3, "{name}: lowest joint at {lowest} m");
    let head = pos(&world_rest, "head");
    assert!((head.y - default_head).abs() < 0.01 * default_head, "{name}: head at {head}");
    assert!(head.y > pos(&world_rest, "pelvis").y + 0.4, "{name}: head above pelvis");
    let forward = c.forward();
    let left = Vec3::Y.cross(forward);
    for side in ["l", "r"] {
        let toes = pos(&world_rest, &format!("ball_{side}")) - pos(&world_rest, &format!("foot_{side}"));
        assert!(toes.dot(forward) > 0.05, "{name}: toes {side} ahead of the ankle");
    }
    assert!((pos(&world_rest, "foot_l") - pos(&world_rest, "foot_r")).dot(left) > 0.1, "{name}: left foot on the left");

    // Skinning: joint world × inverse bind is one common matrix; the mesh under it stands on
    // the floor as tall as the default.
    let ibms: Vec<Mat4> =
        skin.reader(|_| blob).read_inverse_bind_matrices().unwrap().map(|m| Mat4::from_cols_array_2d(&m)).collect();
    let bind: Vec<Mat4> = joints.iter().zip(&ibms).map(|(&j, ibm)| world_rest[j].unwrap() * *ibm).collect();
    let size = bind[0].to_cols_array().iter().fold(0.0f32, |a, x| a.max(x.abs()));
    for (k, m) in bind.iter().enumerate() {
        assert!(m.abs_diff_eq(bind[0], 1e-4 * size), "{name}: joint {} binds the mesh elsewhere", file_names[k]);
    }
    let (mut top, mut bottom) = (f32::MIN, f32::MAX);
    for primitive in doc.meshes().flat_map(|m| m.primitives()) {
        for p in primitive.reader(|_| blob).read_positions().unwrap() {
            let y = bind[0].transform_point3(Vec3::from(p)).y;
            (top, bottom) = (top.max(y), bottom.min(y));
        }
    }
    assert!((top - default_top).abs() < 0.01 * default_top, "{name}: mesh top {top} vs default {default_top}");
    assert!(bottom.abs() < 1e-3, "{name}: mesh bottom {bottom}");

    // Clips: the file's motion is the canonical motion, turned.
    for (anim, (source, _)) in doc.animations().zip(c.clips.clips()) {
        let clip = canonical_clip(&rig, source);
        let frames = animation_frames(&anim, blob, doc);
        assert_eq!(frames.len(), clip.times.len(), "{name}: key count");
        let mut worst = 0.0f32;
        for f in (0..frames.len()).step_by(5) {
            let w = world(doc, &frames[f]);
            let model = canonical_frame(&rig, &clip, f);
            for (b, canonical) in BONE_NAMES.iter().enumerate().filter(|(b, _)| *b > 0 || c.root_bone) {
                worst = worst.max(pos(&w, canonical).distance(turn * model[b].translation));
            }
        }
        assert!(worst < 1e-3, "{name} {:?}: joints {worst} m off the canonical motion", anim.name());
    }
    println!("{name}: {} joints, {} clips, mesh {bottom:.4}..{top:.4} m, ok", joints.len(), names.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_preset_reads_back_as_the_same_character() {
    let heights = default_heights();
    for (name, c) in conventions() {
        check_preset(name, &c, heights);
    }
}

#[test]
fn presets_cover_every_axis() {
    let all: Vec<Convention> = conventions().into_iter().map(|(_, c)| c).collect();
    let has = |f: &dyn Fn(&Convention) -> bool| all.iter().any(f);
    use ik_tool::mannequin::convention::{ClipSet, Naming, RestPose};
    for n in [
        Naming::Unreal,
        Naming::Mixamo,
        Naming::Blender,
        Naming::AssetPack,
        Naming::Vrm,
        Naming::Arbitrary,
        Naming::Generic,
    ] {
        assert!(has(&|c| c.names == n), "{n:?}");
    }
    for s in [0.01, 1.0, 100.0] {
        assert!(has(&|c| c.armature_scale == s), "scale {s}");
    }
    assert!(has(&|c| c.z_up) && has(&|c| c.facing == Facing::MinusZ) && has(&|c| c.shuffled));
    for r in [RestPose::Mannequin, RestPose::T, RestPose::A45] {
        assert!(has(&|c| c.rest == r), "{r:?}");
    }
    for f in [FeetParent::Shins, FeetParent::Root, FeetParent::Control] {
        assert!(has(&|c| c.feet == f), "{f:?}");
    }
    for s in [
        ClipSet::Mannequin,
        ClipSet::None,
        ClipSet::Unnamed,
        ClipSet::Mixamo,
        ClipSet::WalkingWalkJump,
        ClipSet::WalkOnly,
    ] {
        assert!(has(&|c| c.clips == s), "{s:?}");
    }
    assert!(has(&|c| c.sidecar) && has(&|c| !c.sidecar));
    for (name, _) in conventions() {
        assert!(ik_tool::cli::usage().contains(name), "the usage lists {name}");
    }
}

#[test]
fn axes_show_in_the_file() {
    let load = |name: &str| {
        let c = ik_tool::mannequin::convention::find(name).unwrap();
        (c, gltf::Gltf::from_slice(&generate_convention(&c).unwrap().glb).unwrap())
    };
    fn node<'a>(doc: &'a gltf::Gltf, n: &str) -> gltf::Node<'a> {
        doc.nodes().find(|x| x.name() == Some(n)).unwrap()
    }
    // Centimetres: the hips rest 96 units up under a 0.01 armature.
    let (_, doc) = load("mixamo_cm");
    let armature = node(&doc, "Armature");
    assert_eq!(armature.transform().decomposed().2, [0.01; 3]);
    let hips = node(&doc, "mixamorig:Hips").transform().decomposed().0;
    assert!((hips[1] - 96.0).abs() < 0.01, "hips {hips:?}");
    // Z-up: a matrix top node, bone data along +Z.
    let (_, doc) = load("blender_zup");
    assert!(matches!(node(&doc, "Armature").transform(), gltf::scene::Transform::Matrix { .. }));
    let spine = node(&doc, "spine").transform().decomposed().0;
    assert!(spine[2] > 0.05 && spine[1].abs() < 0.02, "spine offset {spine:?} is along +Z");
    // Feet under the root: the foot nodes are the root's children and their translation is keyed.
    let (_, doc) = load("asset_pack_feet_under_root");
    let root = node(&doc, "Root");
    let foot = node(&doc, "Foot.L").index();
    assert!(root.children().any(|c| c.index() == foot));
    assert!(doc.animations().all(|a| a.channels().any(
        |ch| ch.target().node().index() == foot && ch.target().property() == gltf::animation::Property::Translation
    )));
    // Shuffled: some joint is listed before its parent.
    let (_, doc) = load("arbitrary_shuffled_a_pose");
    let skin = doc.skins().next().unwrap();
    let order: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    let before_parent =
        doc.nodes().any(|p| p.children().any(|ch| order.contains(&ch.index()) && ch.index() < p.index()));
    assert!(before_parent, "nodes are not parents-first");
    assert!(doc.animations().next().unwrap().name().is_none(), "the walk has no name");
}

#[test]
fn walk_jump_is_a_jump_in_place() {
    let rig = skeleton::rig().unwrap();
    let clip = jump::build_jump(&rig, "WalkJump").unwrap();
    let balls = [rig.bone("ball_l"), rig.bone("ball_r")];
    let (mut peak, mut drift) = (0.0f32, 0.0f32);
    let start = canonical_frame(&rig, &clip, 0);
    for f in 0..clip.times.len() {
        let model = canonical_frame(&rig, &clip, f);
        for &b in &balls {
            let (p, p0) = (model[b].translation, start[b].translation);
            peak = peak.max(p.y);
            drift = drift.max(Vec3::new(p.x - p0.x, 0.0, p.z - p0.z).length());
            if clip.contacts[0][f] {
                assert!(p.distance(p0) < 0.005, "frame {f}: a planted ball moves {}", p.distance(p0));
            }
        }
    }
    println!("WalkJump: feet peak {peak:.3} m, horizontal drift {:.1} mm", drift * 1000.0);
    assert!(peak > 0.15 && drift < 0.03, "peak {peak}, drift {drift}");
    assert!(
        clip.contacts[0].iter().any(|c| !c) && clip.contacts == [clip.contacts[0].clone(), clip.contacts[0].clone()]
    );
}

#[test]
fn cli_writes_a_convention_and_rejects_an_unknown_one() {
    let dir = temp_dir("cli");
    let out_path = dir.join("x.glb");
    let run = |args: &[&str]| std::process::Command::new(env!("CARGO_BIN_EXE_ik_tool")).args(args).output().unwrap();
    let out = run(&["mannequin", "--convention", "mixamo_cm", "--out", out_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let c = ik_tool::mannequin::convention::find("mixamo_cm").unwrap();
    assert!(std::fs::read(&out_path).unwrap() == generate_convention(&c).unwrap().glb);
    assert!(!dir.join("x.ik.json").exists(), "no sidecar for user-style characters");
    let out = run(&["mannequin", "--convention", "no_such_rig"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(conventions().iter().all(|(n, _)| err.contains(n)), "the message lists the names: {err}");
    let out = run(&["mannequin", "--list-conventions"]);
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("robot_100: "));
    let _ = std::fs::remove_dir_all(&dir);
}
