//! Issue 7, bad input: each case gets one clear line on stderr, exit status 2, no output file,
//! and the input left as it was.
//!
//! Cases (built from the committed mannequin): not a glTF, a truncated file, no skin, no
//! animation, no legs, a clip name that does not exist, and `--out` naming the input.

use std::path::Path;
use std::process::Command;

use ik_tool::gltf_write::{decode_glb, encode_glb};

mod common;
use common::*;

/// The mannequin with its JSON edited by `edit`.
fn edited(edit: impl Fn(&mut serde_json::Value)) -> Vec<u8> {
    let bytes = mannequin_bytes();
    let chunks = decode_glb(&bytes).unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
    edit(&mut json);
    encode_glb(&json.to_string(), chunks.bin.unwrap())
}

/// Runs `ik_tool <command> IN <extra...>` on `input` written to a temp file; checks status 2,
/// one stderr line containing `expected`, no output files, input unchanged.
fn refused(case: &str, input: &[u8], command: &str, extra: &[&str], expected: &str) {
    let dir = TempDir::new(case);
    let in_path = dir.0.join("in.glb");
    std::fs::write(&in_path, input).unwrap();
    let (out, plot, json) = (dir.0.join("out.glb"), dir.0.join("out.png"), dir.0.join("out.json"));
    let p = |x: &Path| x.to_str().unwrap().to_string();
    let mut args = vec![command.to_string(), p(&in_path)];
    match command {
        "clean" => args.extend(["--out".into(), p(&out)]),
        _ => args.extend(["--plot".into(), p(&plot), "--json".into(), p(&json)]),
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let result = Command::new(env!("CARGO_BIN_EXE_ik_tool")).args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    assert_eq!(result.status.code(), Some(2), "{case}: exit status 2 ({stderr})");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{case}: one line: {stderr}");
    assert!(stderr.starts_with("ik_tool: ") && stderr.contains(expected), "{case}: {stderr:?} should say {expected:?}");
    for file in [&out, &plot, &json] {
        assert!(!file.exists(), "{case}: {} must not be written", file.display());
    }
    let leftovers: Vec<_> = std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "{case}: only the input remains: {leftovers:?}");
    assert_eq!(std::fs::read(&in_path).unwrap(), input, "{case}: input untouched");
}

#[test]
fn a_file_that_is_not_gltf_is_refused() {
    refused("not_gltf", b"PK\x03\x04 this is a zip archive", "clean", &[], "not a glTF file");
    refused("gltf_json", br#"{"asset":{"version":"2.0"}}"#, "contacts", &[], "no skin");
}

#[test]
fn a_truncated_file_is_refused() {
    let bytes = mannequin_bytes();
    refused("truncated", &bytes[..bytes.len() / 2], "clean", &[], "truncated glTF binary: the header says");
    refused("truncated_header", &bytes[..10], "contacts", &[], "truncated glTF binary");
}

#[test]
fn a_file_without_skin_is_refused() {
    let input = edited(|j| {
        j.as_object_mut().unwrap().remove("skins");
        for node in j["nodes"].as_array_mut().unwrap() {
            node.as_object_mut().unwrap().remove("skin");
        }
    });
    refused("no_skin", &input, "clean", &[], "no skin");
}

#[test]
fn a_file_without_animation_is_refused() {
    let input = edited(|j| {
        j.as_object_mut().unwrap().remove("animations");
    });
    refused("no_animation", &input, "clean", &[], "no animation");
    refused("no_animation_contacts", &input, "contacts", &[], "no animation");
}

#[test]
fn a_rig_without_recognisable_legs_is_refused() {
    // Names that say nothing and a left leg collapsed onto one point: neither the names nor the
    // skeleton's shape show a left leg.
    let broken = edited(|j| {
        for node in j["nodes"].as_array_mut().unwrap() {
            if let Some(i) = ["thigh_l", "calf_l", "foot_l", "ball_l"].iter().position(|n| node["name"] == *n) {
                node["name"] = format!("x{i}").into();
                node["translation"] = serde_json::json!([0.0, 0.0, 0.0]);
            }
        }
    });
    refused("no_legs", &broken, "clean", &[], "no legs found: cannot rig this humanoid: no bone for");
    // A renamed thigh (`upper_leg_left`) is found by the name matcher with no map, and a user
    // map that names it works too.
    let renamed = edited(|j| {
        for node in j["nodes"].as_array_mut().unwrap() {
            if node["name"] == "thigh_l" {
                node["name"] = "upper_leg_left".into();
            }
        }
    });
    let dir = TempDir::new("map_fixes_it");
    let (in_path, out) = (dir.0.join("in.glb"), dir.0.join("out.glb"));
    std::fs::write(&in_path, &renamed).unwrap();
    let map = "pelvis=pelvis,thigh_l=upper_leg_left,calf_l=calf_l,foot_l=foot_l,ball_l=ball_l,thigh_r=thigh_r,calf_r=calf_r,foot_r=foot_r,ball_r=ball_r";
    for extra in [&[][..], &["--map", map][..]] {
        std::fs::remove_file(&out).ok();
        let status = Command::new(env!("CARGO_BIN_EXE_ik_tool"))
            .args(["clean", in_path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--clip", "Walk"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(status.status.code(), Some(0), "{extra:?}: {}", String::from_utf8_lossy(&status.stderr));
        assert!(out.exists());
    }
}

#[test]
fn a_missing_clip_name_is_refused_with_the_names_found() {
    let input = mannequin_bytes();
    let names = "no animation named \"Run\" (found: Idle, Walk, Jog)";
    refused("no_clip", &input, "clean", &["--clip", "Run"], names);
    refused("no_clip_contacts", &input, "contacts", &["--clip", "Run"], names);
}

#[test]
fn writing_over_the_input_is_refused() {
    let dir = TempDir::new("same_file");
    let input = mannequin_bytes();
    let in_path = dir.0.join("in.glb");
    std::fs::write(&in_path, &input).unwrap();
    // The same file, named differently.
    let same = dir.0.join(".").join("in.glb");
    for command in ["clean", "inplace"] {
        let result = Command::new(env!("CARGO_BIN_EXE_ik_tool"))
            .args([command, in_path.to_str().unwrap(), "--out", same.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(2), "{command}: {stderr}");
        assert!(stderr.contains("--out is the input file") && stderr.lines().count() == 1, "{command}: {stderr}");
        assert_eq!(std::fs::read(&in_path).unwrap(), input, "{command}: input untouched");
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1, "{command}: nothing else written");
    }
}

#[test]
fn channels_samplers_and_extensions_the_gltf_crate_would_unwrap_are_refused_by_name() {
    let no_node = edited(|j| j["animations"][1]["channels"][2]["target"]["node"] = 999.into());
    let message = "animation \"Walk\": channel 2 targets node 999, which does not exist (the file has";
    refused("channel_node", &no_node, "clean", &[], message);
    refused("channel_node_contacts", &no_node, "contacts", &[], message);
    let bad_path = edited(|j| j["animations"][0]["channels"][1]["target"]["path"] = "position".into());
    refused("channel_path", &bad_path, "contacts", &[], "animation \"Idle\": channel 1 animates \"position\" of node");
    let bad_sampler = edited(|j| j["animations"][2]["samplers"][0]["interpolation"] = "CUBIC".into());
    refused("interpolation", &bad_sampler, "clean", &[], "animation \"Jog\": sampler 0 interpolates \"CUBIC\"");
    let draco = edited(|j| {
        j["extensionsUsed"] = serde_json::json!(["KHR_draco_mesh_compression"]);
        j["extensionsRequired"] = serde_json::json!(["KHR_draco_mesh_compression"]);
    });
    let message = "requires the glTF extension KHR_draco_mesh_compression, which ik_tool does not read: re-export the file without Draco compression";
    refused("draco", &draco, "contacts", &[], message);
}

#[test]
fn every_command_creates_an_output_folder_that_does_not_exist() {
    let dir = TempDir::new("new_folders");
    let m = mannequin();
    let (json, plot) = (dir.0.join("a/labels.json"), dir.0.join("b/plot.png"));
    let (cleaned, retargeted) = (dir.0.join("c/d/clean.glb"), dir.0.join("e/retarget.glb"));
    let p = |x: &Path| x.to_str().unwrap().to_string();
    let runs: [Vec<String>; 3] = [
        vec![
            "contacts".into(),
            p(&m),
            "--clip".into(),
            "Walk".into(),
            "--json".into(),
            p(&json),
            "--plot".into(),
            p(&plot),
        ],
        vec!["clean".into(), p(&m), "--clip".into(), "Walk".into(), "--out".into(), p(&cleaned)],
        vec![
            "retarget".into(),
            p(&m),
            p(&m.with_file_name("characters/CesiumMan.glb")),
            "--out".into(),
            p(&retargeted),
        ],
    ];
    for args in runs {
        let result = Command::new(env!("CARGO_BIN_EXE_ik_tool")).args(&args).output().unwrap();
        assert_eq!(result.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&result.stderr));
    }
    for file in [&json, &plot, &cleaned, &retargeted] {
        assert!(file.is_file(), "{} written", file.display());
    }
}

/// A reader that stops before the report is written (`ik_tool contacts FILE | head`) closes
/// the pipe: the command succeeded, so it exits 0 without a panic message.
#[test]
fn a_reader_that_closes_the_pipe_early_is_not_a_crash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ik_tool"))
        .args(["contacts", s(&mannequin())])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ik_tool runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
