//! Contact labels and clean-up on files a user would bring: a sliding in-place walk whose stance
//! is 15 % of the cycle (no stored speed, no sidecar), the same character with ankle-only feet
//! (no toe bones), and a static pose clip. Each file is built here from the mannequin's
//! skeleton and clip maker, written to a temp folder and run through the real `ik_tool` binary.
//!
//! Bars: `contacts` labels each foot of the 15 % walk as exactly one span per cycle covering
//! 12–18 % of it (ball and ankle-only feet); `--json` writes a sidecar the demo's format reads
//! (`nominal_speed`, `duration`, `frame_rate`, `frame_count`, `contacts.foot_l/foot_r`), equal
//! to what `ik_tool::sidecar::label_file` returns; `clean` cuts the contact travel by ≥ 80 %
//! and never turns a foot more than 20° between consecutive frames; on a clip with nothing to
//! fix it turns no joint by 0.5° or more. Figures are printed (`--nocapture`).

use std::f32::consts::TAU;
use std::path::Path;

use glam::{Quat, Vec3};
use ik_core::gait::GaitParams;
use ik_tool::gltf_write::{decode_glb, encode_glb};
use ik_tool::mannequin::{asset, clips, mesh, skeleton, skin};

mod common;
use common::*;

/// Ground speed of the generated walk, m/s.
const SPEED: f32 = 1.4;

/// The mannequin with one clip, "Walk": an in-place walk with a 15 % stance whose pelvis
/// wobbles back and forth by `slide` m twice a cycle (the planted feet slide), no stored speed.
/// `ankle_only` detaches the ball bones from the feet (renamed, moved under the top node).
/// `static_pose` replaces the walk by the rest pose held for a second.
fn build(slide: f32, ankle_only: bool, static_pose: bool) -> Vec<u8> {
    let rig = skeleton::rig().unwrap();
    let body = mesh::body(&rig);
    let weights = skin::bind(&rig, &body, &skin::BindParams::default());
    let walk = clips::clip_specs()[1];
    // Legs that follow the feet's paths, as a plain IK export's do (the mannequin's planned knee
    // is shaped for a walk's 60 % stance).
    let gait = GaitParams { stance_fraction: 0.15, speed: SPEED, ..walk.gait };
    let spec = clips::ClipSpec { gait, legs: clips::LegStyle::FOLLOW_PATH, ..walk };
    let mut clip = clips::build_clip(&rig, &spec).unwrap();
    let n = clip.intervals();
    for (i, p) in clip.pelvis_translation.iter_mut().enumerate() {
        p.z += slide * (2.0 * TAU * i as f32 / n as f32).sin();
    }
    if static_pose {
        let pelvis = rig.bone("pelvis");
        let rest = rig.skeleton.rest()[pelvis].translation;
        clip.pelvis_translation.iter_mut().for_each(|p| *p = rest);
        clip.rotations.iter_mut().for_each(|keys| keys.iter_mut().for_each(|q| *q = Quat::IDENTITY));
    }
    let glb = asset::glb(&rig, &body, &weights, &[clip]);
    let chunks = decode_glb(&glb).unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
    json["animations"][0].as_object_mut().unwrap().remove("extras");
    if static_pose {
        json["animations"][0]["name"] = "Pose".into();
    }
    if ankle_only {
        let nodes = json["nodes"].as_array_mut().unwrap();
        let index = |nodes: &Vec<serde_json::Value>, name: &str| nodes.iter().position(|n| n["name"] == name).unwrap();
        for side in ["l", "r"] {
            let (ball, foot) = (index(nodes, &format!("ball_{side}")), index(nodes, &format!("foot_{side}")));
            nodes[ball]["name"] = format!("prop_{side}").into();
            nodes[foot].as_object_mut().unwrap().remove("children");
            nodes[0]["children"].as_array_mut().unwrap().push(ball.into());
        }
    }
    encode_glb(&json.to_string(), chunks.bin.unwrap())
}

/// Contact spans of a looping clip's labels (a span across the seam counts once).
fn cyclic_spans(labels: &[bool]) -> usize {
    let cycle = &labels[..labels.len() - 1];
    (0..cycle.len()).filter(|&i| cycle[i] && !cycle[(i + cycle.len() - 1) % cycle.len()]).count()
        + usize::from(cycle.iter().all(|&c| c))
}

fn labels(v: &serde_json::Value) -> Vec<bool> {
    v.as_array().unwrap().iter().map(|b| b.as_bool().unwrap()).collect()
}

fn check_one_span(case: &str, sidecar: &serde_json::Value) {
    let walk = &sidecar["Walk"];
    let frames = walk["frame_count"].as_u64().unwrap() as usize;
    assert!(walk["duration"].as_f64().unwrap() > 0.0 && walk["frame_rate"].as_f64().unwrap() > 0.0);
    let speed = walk["nominal_speed"].as_f64().unwrap();
    println!("{case}: measured ground speed {speed:.3} m/s (generated at {SPEED})");
    assert!((speed - SPEED as f64).abs() < 0.1, "{case}: ground speed {speed}");
    for foot in ["foot_l", "foot_r"] {
        let l = labels(&walk["contacts"][foot]);
        assert_eq!(l.len(), frames);
        let share = l[..frames - 1].iter().filter(|&&c| c).count() as f32 / (frames - 1) as f32;
        let spans = cyclic_spans(&l);
        println!("{case} {foot}: {spans} span(s) per cycle covering {:.1} % of it", 100.0 * share);
        assert_eq!(spans, 1, "{case} {foot}: {spans} spans");
        assert!((0.12..=0.18).contains(&share), "{case} {foot}: contact {:.1} % of the cycle", 100.0 * share);
    }
}

#[test]
fn a_sliding_15_percent_stance_walk_gets_one_contact_span_per_foot_and_a_sidecar() {
    let dir = TempDir::new("walk15");
    let (input, json) = (dir.path("walk15.glb"), dir.path("walk15.json"));
    std::fs::write(&input, build(0.015, false, false)).unwrap();
    let (code, stdout, stderr) = ik_tool(&["contacts", s(&input), "--json", s(&json)]);
    assert_eq!(code, 0, "{stderr}");
    println!("{stdout}");
    assert!(stdout.contains("planted feet"), "speed measured from the planted feet: {stdout}");
    let text = std::fs::read_to_string(&json).unwrap();
    let sidecar: serde_json::Value = serde_json::from_str(&text).unwrap();
    check_one_span("15 % walk (balls)", &sidecar);
    // The library entry point gives the same sidecar.
    let labelled = ik_tool::sidecar::label_file(&input, None).unwrap();
    assert_eq!(labelled.to_json_text(), text, "label_file = contacts --json");
    let back = ik_tool::sidecar::Sidecar::parse(&text).unwrap();
    assert_eq!(back, labelled);
}

#[test]
fn ankle_only_feet_are_labelled_and_cleaned() {
    let dir = TempDir::new("ankles");
    let (input, json, out) = (dir.path("ankles.glb"), dir.path("ankles.json"), dir.path("ankles_clean.glb"));
    std::fs::write(&input, build(0.015, true, false)).unwrap();
    let (code, stdout, stderr) = ik_tool(&["contacts", s(&input), "--json", s(&json)]);
    assert_eq!(code, 0, "{stderr}");
    println!("{stdout}");
    assert!(stdout.contains("sole (estimated)"), "{stdout}");
    let sidecar: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    check_one_span("15 % walk (ankle-only)", &sidecar);
    let (code, stdout, stderr) = ik_tool(&["clean", s(&input), "--out", s(&out)]);
    assert_eq!(code, 0, "{stderr}");
    println!("{stdout}");
    let before = measure(&input, &sidecar["Walk"], false);
    let after = measure(&out, &sidecar["Walk"], false);
    report_and_check("ankle-only", &before, &after);
}

/// Per foot: contact point travel during the given contacts (travelling at the sidecar's speed
/// along +Z), and the largest foot turn between consecutive frames, degrees.
struct Measures {
    travel: [f32; 2],
    turn: [f32; 2],
}

fn measure(path: &Path, clip: &serde_json::Value, balls: bool) -> Measures {
    let doc = ik_tool::gltf_read::load(path).unwrap();
    let c = &doc.clips[0];
    let sampled = ik_tool::motion::sample_clip(&doc, c);
    let bones = sampled.bones();
    let speed = clip["nominal_speed"].as_f64().unwrap() as f32;
    let world = ik_tool::motion::world_frames(
        &sampled.parents,
        &sampled.locals,
        1.0 / sampled.timeline.rate,
        0,
        Vec3::Z * speed,
    )
    .unwrap();
    let bone = |name: &str| sampled.bone_of_node[doc.nodes.iter().position(|n| n.name == name).unwrap()];
    let mut travel = [0.0; 2];
    let mut turn = [0.0f32; 2];
    for (k, (side, key)) in [("l", "foot_l"), ("r", "foot_r")].into_iter().enumerate() {
        let foot = bone(&format!("foot_{side}"));
        let point = |f: usize| -> Vec3 {
            if balls {
                world[f * bones + bone(&format!("ball_{side}"))].translation
            } else {
                world[f * bones + foot].transform_point(Vec3::new(0.0, -0.08, 0.06))
            }
        };
        let l = labels(&clip["contacts"][key]);
        let n = sampled.timeline.frames;
        travel[k] = (1..n).filter(|&i| l[i] && l[i - 1]).map(|i| point(i).distance(point(i - 1))).sum();
        for f in 1..n {
            let (a, b) = (world[f * bones + foot].rotation, world[(f - 1) * bones + foot].rotation);
            turn[k] = turn[k].max((2.0 * a.dot(b).abs().min(1.0).acos()).to_degrees());
        }
    }
    Measures { travel, turn }
}

fn report_and_check(case: &str, before: &Measures, after: &Measures) {
    for k in 0..2 {
        let cut = 1.0 - after.travel[k] / before.travel[k];
        println!(
            "{case} foot {k}: contact travel {:.2} cm → {:.2} cm (cut {:.1} %), foot turn per frame ≤ {:.1}° (source {:.1}°)",
            100.0 * before.travel[k],
            100.0 * after.travel[k],
            100.0 * cut,
            after.turn[k],
            before.turn[k]
        );
        assert!(before.travel[k] > 0.005, "{case}: the source slides ({} m)", before.travel[k]);
        assert!(cut >= 0.80, "{case} foot {k}: travel cut by only {:.1} %", 100.0 * cut);
        assert!(after.turn[k] <= 20.0, "{case} foot {k}: the foot turns {:.1}° in one frame", after.turn[k]);
    }
}

#[test]
fn cleaning_the_sliding_walk_plants_the_feet_without_flipping_them() {
    let dir = TempDir::new("clean15");
    let (input, json, out) = (dir.path("walk15.glb"), dir.path("walk15.json"), dir.path("walk15_clean.glb"));
    std::fs::write(&input, build(0.015, false, false)).unwrap();
    let (code, _, stderr) = ik_tool(&["contacts", s(&input), "--json", s(&json)]);
    assert_eq!(code, 0, "{stderr}");
    let sidecar: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for scale in ["1", "1.25"] {
        let (code, stdout, stderr) = ik_tool(&["clean", s(&input), "--out", s(&out), "--root-speed-scale", scale]);
        assert_eq!(code, 0, "{stderr}");
        println!("{stdout}");
        let mut clip = sidecar["Walk"].clone();
        let speed = clip["nominal_speed"].as_f64().unwrap() * scale.parse::<f64>().unwrap();
        clip["nominal_speed"] = speed.into();
        report_and_check(&format!("15 % walk ×{scale}"), &measure(&input, &clip, true), &measure(&out, &clip, true));
    }
}

#[test]
fn a_static_pose_has_nothing_to_fix_and_no_joint_turns() {
    let dir = TempDir::new("static");
    let (input, out) = (dir.path("pose.glb"), dir.path("pose_clean.glb"));
    std::fs::write(&input, build(0.0, false, true)).unwrap();
    let (code, stdout, stderr) = ik_tool(&["clean", s(&input), "--out", s(&out)]);
    assert_eq!(code, 0, "{stderr}");
    println!("{stdout}");
    assert!(stdout.contains("Nothing to fix"), "{stdout}");
    // A foot that never moves: its heights and speeds print as 0, never -0.
    let (code, contacts, _) = ik_tool(&["contacts", s(&input)]);
    assert_eq!(code, 0, "{contacts}");
    assert!(contacts.contains("speed 0.00–0.00 m/s") && !contacts.contains("-0.0"), "{contacts}");
    let doc_in = ik_tool::gltf_read::load(&input).unwrap();
    let doc_out = ik_tool::gltf_read::load(&out).unwrap();
    let a = ik_tool::motion::sample_clip(&doc_in, &doc_in.clips[0]);
    let b = ik_tool::motion::sample_clip(&doc_out, &doc_out.clips[0]);
    let worst = a
        .locals
        .iter()
        .zip(&b.locals)
        .map(|(x, y)| (2.0 * x.rotation.dot(y.rotation).abs().min(1.0).acos()).to_degrees())
        .fold(0.0f32, f32::max);
    println!("static pose: largest joint change {worst:.4}°");
    assert!(worst < 0.5, "a joint turned {worst}°");
}

#[test]
fn bad_labelling_input_exits_with_status_2() {
    let dir = TempDir::new("bad");
    let input = dir.path("walk15.glb");
    std::fs::write(&input, build(0.0, false, false)).unwrap();
    let (code, _, stderr) = ik_tool(&["contacts", s(&input), "--map", "pelvis=nope,thigh_l=x"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(ik_tool::sidecar::label_file(&dir.path("missing.glb"), None).is_err());
    let err = ik_tool::sidecar::label_file(&input, Some("pelvis=nope")).unwrap_err();
    assert_eq!(err.exit_code(), 2, "{err}");
}
