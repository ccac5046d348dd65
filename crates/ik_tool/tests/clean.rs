//! Issue 7: `ik_tool contacts` and `ik_tool clean` on the committed mannequin.
//!
//! Bars: on `Walk` with the root travelling at 1.25× and 0.75× the clip's 1.4 m/s, cleaning
//! cuts the ball's travel during contacts by ≥ 90 % and never puts a ball beyond its leg's reach
//! of the hip; the output passes the `gltf` crate's validation and keeps every node, mesh, skin,
//! material, other clip and byte of the input's binary chunk; cleaning a clip that does not
//! slide turns no joint by more than 0.5°; contacts reproduce the mannequin's own labels, on the
//! 60 Hz file and on a 30 Hz copy resampled with cubics. Everything here is measured with the
//! `gltf` crate and `ik_core` forward kinematics, independently of the tool's own report, with
//! contact labels from the file's metadata. The tool runs with its default 25 000 iterations.

use glam::{Quat, Vec3};
use ik_core::{Skeleton, Xform};

mod common;
use common::*;

/// A clip read back with the `gltf` crate: key times and per-key locals of the skin's joints.
struct FileClip {
    skeleton: Skeleton,
    times: Vec<f32>,
    poses: Vec<Vec<Xform>>,
    contacts: [Vec<bool>; 2],
}

fn read_clip(bytes: &[u8], name: &str) -> FileClip {
    let doc = gltf::Gltf::from_slice(bytes).expect("the .glb validates");
    let skin = doc.skins().next().unwrap();
    let joints: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    let mut parent_of = vec![None; doc.nodes().len()];
    for node in doc.nodes() {
        for child in node.children() {
            parent_of[child.index()] = Some(node.index());
        }
    }
    let (mut parents, mut names, mut rest) = (vec![], vec![], vec![]);
    for &j in &joints {
        let node = doc.nodes().nth(j).unwrap();
        parents.push(parent_of[j].and_then(|p| joints.iter().position(|&k| k == p)));
        names.push(node.name().unwrap_or("").to_string());
        let (t, r, sc) = node.transform().decomposed();
        rest.push(Xform { translation: Vec3::from(t), rotation: Quat::from_array(r), scale: Vec3::from(sc) });
    }
    let skeleton = Skeleton::new(parents, names, rest).unwrap();
    let animation = doc.animations().find(|a| a.name() == Some(name)).unwrap();
    let meta: serde_json::Value = serde_json::from_str(animation.extras().as_ref().unwrap().get()).unwrap();
    let labels = |key: &str| -> Vec<bool> {
        meta["contacts"][key].as_array().unwrap().iter().map(|v| v.as_bool().unwrap()).collect()
    };
    let blob = doc.blob.as_deref();
    let (mut times, mut poses): (Vec<f32>, Vec<Vec<Xform>>) = (vec![], vec![]);
    for channel in animation.channels() {
        assert_eq!(channel.sampler().interpolation(), gltf::animation::Interpolation::Linear);
        let reader = channel.reader(|_| blob);
        let inputs: Vec<f32> = reader.read_inputs().unwrap().collect();
        if poses.is_empty() {
            poses = vec![skeleton.rest().to_vec(); inputs.len()];
            times = inputs.clone();
        }
        assert_eq!(inputs.len(), times.len(), "every channel keys the same frames");
        let bone = joints.iter().position(|&j| j == channel.target().node().index()).unwrap();
        match reader.read_outputs().unwrap() {
            gltf::animation::util::ReadOutputs::Translations(v) => {
                poses.iter_mut().zip(v).for_each(|(p, t)| p[bone].translation = Vec3::from(t));
            }
            gltf::animation::util::ReadOutputs::Rotations(v) => {
                poses.iter_mut().zip(v.into_f32()).for_each(|(p, r)| p[bone].rotation = Quat::from_array(r));
            }
            _ => panic!("translation and rotation channels only"),
        }
    }
    FileClip { skeleton, times, poses, contacts: [labels("foot_l"), labels("foot_r")] }
}

/// Per-foot measures of a clip played while the character travels at `speed` along +Z.
struct Measures {
    /// Ball travel between adjacent contact frames, m.
    travel: [f32; 2],
    /// Largest hip→ball distance minus the leg's reach (thigh + shin + foot), m.
    worst_overreach: [f32; 2],
}

fn measure(clip: &FileClip, speed: f32) -> Measures {
    let sk = &clip.skeleton;
    let bone = |n: &str| sk.find(n).unwrap();
    let mut model = vec![Xform::IDENTITY; sk.len()];
    let mut balls = [vec![], vec![]];
    let mut worst_overreach = [f32::NEG_INFINITY; 2];
    let rest = sk.rest_model();
    for (pose, &t) in clip.poses.iter().zip(&clip.times) {
        sk.model_from_local(pose, &mut model).unwrap();
        for (k, side) in ["l", "r"].iter().enumerate() {
            let [hip, knee, ankle, ball] = ["thigh", "calf", "foot", "ball"].map(|b| bone(&format!("{b}_{side}")));
            let reach = [(hip, knee), (knee, ankle), (ankle, ball)]
                .iter()
                .map(|&(a, b)| rest[a].translation.distance(rest[b].translation))
                .sum::<f32>();
            let stretch = model[ball].translation.distance(model[hip].translation);
            worst_overreach[k] = worst_overreach[k].max(stretch - reach);
            balls[k].push(model[ball].translation + Vec3::Z * speed * t);
        }
    }
    let travel = [0, 1].map(|k| {
        let c = &clip.contacts[k];
        (1..balls[k].len()).filter(|&i| c[i] && c[i - 1]).map(|i| balls[k][i].distance(balls[k][i - 1])).sum()
    });
    Measures { travel, worst_overreach }
}

fn largest_joint_turn(a: &FileClip, b: &FileClip) -> f32 {
    let mut worst: f32 = 0.0;
    for (pa, pb) in a.poses.iter().zip(&b.poses) {
        for (x, y) in pa.iter().zip(pb) {
            worst = worst.max(2.0 * x.rotation.dot(y.rotation).abs().min(1.0).acos());
        }
    }
    worst.to_degrees()
}

#[test]
fn cleaning_walk_at_scaled_root_speed_removes_at_least_90_percent_of_the_slide_within_reach() {
    let dir = TempDir::new("clean_walk");
    let input = std::fs::read(mannequin()).unwrap();
    let source = read_clip(&input, "Walk");
    for scale in [1.25f32, 0.75] {
        let out = dir.path(&format!("walk_{scale}.glb"));
        let (code, stdout, stderr) = ik_tool(&[
            "clean",
            s(&mannequin()),
            "--out",
            s(&out),
            "--clip",
            "Walk",
            "--root-speed-scale",
            &scale.to_string(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("| left (foot_l) |"), "before/after table printed: {stdout}");
        let cleaned = read_clip(&std::fs::read(&out).unwrap(), "Walk");
        let speed = 1.4 * scale;
        let (before, after) = (measure(&source, speed), measure(&cleaned, speed));
        for k in 0..2 {
            let reduction = 1.0 - after.travel[k] / before.travel[k];
            println!(
                "×{scale} foot {k}: travel {:.2} cm → {:.2} cm ({:.1} %), overreach {:.2} cm",
                100.0 * before.travel[k],
                100.0 * after.travel[k],
                100.0 * reduction,
                100.0 * after.worst_overreach[k]
            );
            assert!(before.travel[k] > 0.15, "the scaled root makes the ball slide ({} m)", before.travel[k]);
            assert!(reduction >= 0.90, "×{scale} foot {k}: travel cut by only {:.1} %", 100.0 * reduction);
            assert!(
                after.worst_overreach[k] <= 0.0,
                "×{scale} foot {k}: ball {} m beyond reach",
                after.worst_overreach[k]
            );
        }
        let (first, last) = (&cleaned.poses[0], cleaned.poses.last().unwrap());
        for (a, b) in first.iter().zip(last) {
            assert!(
                a.translation.distance(b.translation) < 1e-5 && a.rotation.dot(b.rotation).abs() > 1.0 - 1e-6,
                "the loop stays seamless"
            );
        }
    }
    assert_eq!(std::fs::read(mannequin()).unwrap(), input, "the input is untouched");
}

#[test]
fn a_turned_and_moved_character_travels_the_way_its_feet_point() {
    // The top node turned 90° about +Y and moved: the feet point along world +X, and travel
    // must follow them. Measured in the rig's own frame, where forward is still +Z.
    let dir = TempDir::new("clean_turned");
    let bytes = std::fs::read(mannequin()).unwrap();
    let chunks = ik_tool::gltf_write::decode_glb(&bytes).unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
    let half = std::f32::consts::FRAC_PI_4;
    json["nodes"][0]["rotation"] = serde_json::json!([0.0, half.sin(), 0.0, half.cos()]);
    json["nodes"][0]["translation"] = serde_json::json!([3.0, 0.0, -2.0]);
    let (input, out) = (dir.path("turned.glb"), dir.path("turned_clean.glb"));
    std::fs::write(&input, ik_tool::gltf_write::encode_glb(&json.to_string(), chunks.bin.unwrap())).unwrap();
    let (code, _, stderr) =
        ik_tool(&["clean", s(&input), "--out", s(&out), "--clip", "Walk", "--root-speed-scale", "1.25"]);
    assert_eq!(code, 0, "{stderr}");
    let before = measure(&read_clip(&std::fs::read(&input).unwrap(), "Walk"), 1.75);
    let after = measure(&read_clip(&std::fs::read(&out).unwrap(), "Walk"), 1.75);
    for k in 0..2 {
        let reduction = 1.0 - after.travel[k] / before.travel[k];
        assert!(reduction >= 0.90, "turned character, foot {k}: travel cut by only {:.1} %", 100.0 * reduction);
    }
}

#[test]
fn a_clip_with_root_motion_gets_its_root_motion_scaled_and_its_feet_planted() {
    use ik_tool::gltf_patch::{AnimationPatch, NewChannel, patch};
    use ik_tool::gltf_read::Property;
    // Walk with the root bone carrying the 1.4 m/s travel itself.
    let dir = TempDir::new("clean_root_motion");
    let doc = ik_tool::gltf_read::load(&mannequin()).unwrap();
    let walk = doc.clip("Walk").unwrap();
    let root = doc.nodes.iter().position(|n| n.name == "root").unwrap();
    let times = walk.channels[0].times.clone();
    let values = times.iter().map(|t| glam::Vec4::new(0.0, 0.0, 1.4 * t, 0.0)).collect();
    let channel = NewChannel { node: root, property: Property::Translation, times: times.clone(), values };
    let (input, out) = (dir.path("moving.glb"), dir.path("moving_clean.glb"));
    std::fs::write(
        &input,
        patch(&doc, &[AnimationPatch { animation: walk.index, channels: vec![channel], extras: None }]).unwrap(),
    )
    .unwrap();
    let (code, stdout, stderr) =
        ik_tool(&["clean", s(&input), "--out", s(&out), "--clip", "Walk", "--root-speed-scale", "1.25"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("root motion in the clip"), "{stdout}");
    let source = read_clip(&std::fs::read(&input).unwrap(), "Walk");
    let cleaned = read_clip(&std::fs::read(&out).unwrap(), "Walk");
    let root_bone = cleaned.skeleton.find("root").unwrap();
    let end = cleaned.poses.last().unwrap()[root_bone].translation.z;
    assert!((end - 1.75 * times.last().unwrap()).abs() < 1e-3, "root motion scaled to 1.75 m/s: ends at {end}");
    // Before: the source with its root motion scaled (0.35 m/s more); after: the clip as is.
    let (before, after) = (measure(&source, 0.35), measure(&cleaned, 0.0));
    for k in 0..2 {
        let reduction = 1.0 - after.travel[k] / before.travel[k];
        println!("root motion foot {k}: {:.2} cm → {:.2} cm", 100.0 * before.travel[k], 100.0 * after.travel[k]);
        assert!(reduction >= 0.90, "root-motion Walk foot {k}: travel cut by only {:.1} %", 100.0 * reduction);
        assert!(after.worst_overreach[k] <= 0.0);
    }
}

#[test]
fn the_output_keeps_everything_but_the_changed_channels() {
    let dir = TempDir::new("clean_keep");
    let out = dir.path("walk.glb");
    let (code, _, stderr) =
        ik_tool(&["clean", s(&mannequin()), "--out", s(&out), "--clip", "Walk", "--root-speed-scale", "1.25"]);
    assert_eq!(code, 0, "{stderr}");
    let (a, b) = (std::fs::read(mannequin()).unwrap(), std::fs::read(&out).unwrap());
    let (ga, gb) = (gltf::Gltf::from_slice(&a).unwrap(), gltf::Gltf::from_slice(&b).unwrap());
    let (ja, jb) =
        (serde_json::to_value(ga.document.as_json()).unwrap(), serde_json::to_value(gb.document.as_json()).unwrap());
    for key in ["asset", "scene", "scenes", "nodes", "meshes", "materials", "skins"] {
        assert_eq!(ja[key], jb[key], "{key} unchanged");
    }
    for key in ["accessors", "bufferViews"] {
        let (old, new) = (ja[key].as_array().unwrap(), jb[key].as_array().unwrap());
        assert_eq!(old[..], new[..old.len()], "old {key} kept in place");
    }
    let (bin_a, bin_b) = (ga.blob.as_deref().unwrap(), gb.blob.as_deref().unwrap());
    assert_eq!(bin_a, &bin_b[..bin_a.len()], "the old binary chunk is a prefix of the new one");
    let names = |j: &serde_json::Value| {
        j["animations"].as_array().unwrap().iter().map(|x| x["name"].clone()).collect::<Vec<_>>()
    };
    assert_eq!(names(&ja), names(&jb));
    assert_eq!(ja["animations"][0], jb["animations"][0], "Idle unchanged");
    assert_eq!(ja["animations"][2], jb["animations"][2], "Jog unchanged");
    let (wa, wb) = (&ja["animations"][1], &jb["animations"][1]);
    assert_eq!(wa["channels"], wb["channels"], "Walk keeps its channels");
    let changed: Vec<String> = wa["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            wa["samplers"][c["sampler"].as_u64().unwrap() as usize]
                != wb["samplers"][c["sampler"].as_u64().unwrap() as usize]
        })
        .map(|c| {
            let node = c["target"]["node"].as_u64().unwrap() as usize;
            format!("{} {}", ja["nodes"][node]["name"].as_str().unwrap(), c["target"]["path"].as_str().unwrap())
        })
        .collect();
    assert!(
        changed.contains(&"pelvis translation".to_string()) && changed.contains(&"thigh_l rotation".to_string()),
        "{changed:?}"
    );
    let allowed = ["pelvis", "thigh_", "calf_", "foot_", "ball_"];
    assert!(
        changed.iter().all(|c| allowed.iter().any(|a| c.starts_with(a))),
        "only pelvis and leg channels change: {changed:?}"
    );
    assert_eq!(wb["extras"]["ik_clean"]["root_speed"].as_f64().map(|v| (v * 100.0).round()), Some(175.0));
}

#[test]
fn cleaning_clips_that_do_not_slide_turns_no_joint_more_than_half_a_degree() {
    let dir = TempDir::new("clean_roundtrip");
    let out = dir.path("all.glb");
    let (code, _, stderr) = ik_tool(&["clean", s(&mannequin()), "--out", s(&out), "--all"]);
    assert_eq!(code, 0, "{stderr}");
    let (a, b) = (std::fs::read(mannequin()).unwrap(), std::fs::read(&out).unwrap());
    for clip in ["Idle", "Walk", "Jog"] {
        let turn = largest_joint_turn(&read_clip(&a, clip), &read_clip(&b, clip));
        println!("{clip}: largest joint change {turn:.3}°");
        assert!(turn <= 0.5, "{clip}: a joint turned {turn}°");
    }
}

fn agreement(labels: &serde_json::Value, reference: &[bool]) -> f32 {
    let got: Vec<bool> = labels.as_array().unwrap().iter().map(|v| v.as_bool().unwrap()).collect();
    assert_eq!(got.len(), reference.len());
    got.iter().zip(reference).filter(|(a, b)| a == b).count() as f32 / reference.len() as f32
}

#[test]
fn contacts_match_the_mannequin_labels_and_write_plot_and_json() {
    let dir = TempDir::new("contacts");
    let (png, json) = (dir.path("walk.png"), dir.path("walk.json"));
    let (code, stdout, stderr) =
        ik_tool(&["contacts", s(&mannequin()), "--clip", "Walk", "--plot", s(&png), "--json", s(&json)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("left (foot_l)") && stdout.contains("right (foot_r)"), "{stdout}");
    let image = std::fs::read(&png).unwrap();
    assert_eq!(&image[..8], b"\x89PNG\r\n\x1a\n");
    let (w, h) =
        (u32::from_be_bytes(image[16..20].try_into().unwrap()), u32::from_be_bytes(image[20..24].try_into().unwrap()));
    assert_eq!((w, h), (1200, 900));
    let labels: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let walk = read_clip(&std::fs::read(mannequin()).unwrap(), "Walk");
    for (k, key) in ["foot_l", "foot_r"].iter().enumerate() {
        let share = agreement(&labels["Walk"]["contacts"][key], &walk.contacts[k]);
        assert!(share >= 0.95, "Walk {key}: labels agree on {:.0} % of frames", 100.0 * share);
    }
    assert_eq!(labels["Walk"]["frame_count"], 64);
}

#[test]
fn a_30_hz_copy_is_resampled_to_60_hz_and_labelled_like_the_original() {
    use ik_tool::gltf_patch::{AnimationPatch, NewChannel, patch};
    let dir = TempDir::new("contacts_30hz");
    let doc = ik_tool::gltf_read::load(&mannequin()).unwrap();
    let walk = doc.clip("Walk").unwrap();
    // Every other key, plus the last one.
    let keep: Vec<usize> = (0..64).step_by(2).chain([63]).collect();
    let channels = walk
        .channels
        .iter()
        .map(|c| NewChannel {
            node: c.node,
            property: c.property,
            times: keep.iter().map(|&i| c.times[i]).collect(),
            values: keep.iter().map(|&i| c.values[i]).collect(),
        })
        .collect();
    let coarse = dir.path("coarse.glb");
    std::fs::write(&coarse, patch(&doc, &[AnimationPatch { animation: walk.index, channels, extras: None }]).unwrap())
        .unwrap();
    let json = dir.path("coarse.json");
    let (code, stdout, stderr) = ik_tool(&["contacts", s(&coarse), "--clip", "Walk", "--json", s(&json)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("64 frames at 60 Hz (resampled with cubics from 30 Hz)"), "{stdout}");
    let labels: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let reference = read_clip(&std::fs::read(mannequin()).unwrap(), "Walk");
    for (k, key) in ["foot_l", "foot_r"].iter().enumerate() {
        let share = agreement(&labels["Walk"]["contacts"][key], &reference.contacts[k]);
        assert!(share >= 0.9, "30 Hz Walk {key}: labels agree on {:.0} % of frames", 100.0 * share);
    }
}
