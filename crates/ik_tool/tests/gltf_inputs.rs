//! Issue 14, item 5: `ik_tool` reads glTF through the `gltf` crate — a `.gltf` whose buffer is
//! an external `.bin`, and accessors with sparse storage — and bad inputs of those kinds exit
//! with status 2, one message line and no output file.
//!
//! Cases (built from the committed mannequin): the mannequin as `mannequin rig.gltf` +
//! `mannequin rig.bin` (the URI percent-encoded) reads back exactly like the `.glb`, and
//! `contacts` / `clean` on it give the same labels and a self-contained `.glb`; Walk's pelvis
//! translation keys overridden at two keys through a sparse accessor (over the dense keys, and
//! over no buffer view at all) read back key for key; a missing `.bin`, a short `.bin` and a
//! sparse accessor whose indices run past their buffer view are refused.

use std::path::{Path, PathBuf};

use glam::Vec4;
use ik_tool::gltf_write::{decode_glb, encode_glb};
use serde_json::{Value, json};

mod common;
use common::*;

/// The mannequin's JSON and binary chunk.
fn mannequin_parts() -> (Value, Vec<u8>) {
    let bytes = mannequin_bytes();
    let chunks = decode_glb(&bytes).unwrap();
    (serde_json::from_slice(chunks.json).unwrap(), chunks.bin.unwrap().to_vec())
}

/// Writes the mannequin as `mannequin rig.gltf` with its buffer in `mannequin rig.bin` (the
/// URI percent-encoded); returns the `.gltf` path.
fn write_gltf(dir: &TempDir) -> PathBuf {
    let (mut json, bin) = mannequin_parts();
    json["buffers"][0]["uri"] = "mannequin%20rig.bin".into();
    let path = dir.path("mannequin rig.gltf");
    std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    std::fs::write(dir.path("mannequin rig.bin"), bin).unwrap();
    path
}

#[test]
fn a_gltf_with_an_external_bin_reads_like_the_glb() {
    let dir = TempDir::new("external");
    let gltf = write_gltf(&dir);
    let glb = dir.path("mannequin.glb");
    std::fs::write(&glb, mannequin_bytes()).unwrap();
    let (a, b) = (ik_tool::gltf_read::load(&glb).unwrap(), ik_tool::gltf_read::load(&gltf).unwrap());
    assert_eq!(a.nodes, b.nodes, "same nodes");
    assert_eq!(a.clips, b.clips, "same clips, key for key");
    assert_eq!(b.clip_names(), "Idle, Walk, Jog");

    // contacts: the same labels from either file.
    let (ja, jb) = (dir.path("a.json"), dir.path("b.json"));
    for (input, json) in [(&glb, &ja), (&gltf, &jb)] {
        let (code, _, stderr) = ik_tool(&["contacts", s(input), "--clip", "Walk", "--json", s(json)]);
        assert_eq!(code, 0, "contacts {}: {stderr}", input.display());
    }
    let read = |p: &Path| -> Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    assert_eq!(read(&ja)["Walk"]["contacts"], read(&jb)["Walk"]["contacts"], "labels agree");

    // clean: the output is one self-contained .glb that loads without the .bin.
    let out = dir.path("cleaned.glb");
    let (code, stdout, stderr) = ik_tool(&["clean", s(&gltf), "--out", s(&out), "--clip", "Walk"]);
    assert_eq!(code, 0, "clean: {stderr}");
    assert!(stdout.contains("wrote"), "{stdout}");
    let bytes = std::fs::read(&out).unwrap();
    let cleaned = ik_tool::gltf_read::parse("cleaned.glb", &bytes).expect("loads with no folder to look in");
    assert_eq!(cleaned.root.buffers.len(), 1);
    assert!(cleaned.root.buffers[0].uri.is_none(), "the buffer is the binary chunk");
    assert_eq!(cleaned.clip("Idle").unwrap(), a.clip("Idle").unwrap(), "Idle kept as it was");
}

/// The mannequin with Walk's pelvis translation output replaced by a sparse accessor that
/// overrides keys 3 and 10 (`dense`: over the original keys; else over zeros); the new keys.
fn sparse_walk(dense: bool) -> (Vec<u8>, [Vec4; 2]) {
    let (mut json, mut bin) = mannequin_parts();
    let walk = json["animations"].as_array().unwrap().iter().position(|a| a["name"] == "Walk").unwrap();
    let pelvis = json["nodes"].as_array().unwrap().iter().position(|n| n["name"] == "pelvis").unwrap();
    let channel = json["animations"][walk]["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"] == pelvis && c["target"]["path"] == "translation")
        .unwrap()
        .clone();
    let sampler = channel["sampler"].as_u64().unwrap() as usize;
    let output = json["animations"][walk]["samplers"][sampler]["output"].as_u64().unwrap() as usize;
    let values = [Vec4::new(0.5, 1.25, -0.75, 0.0), Vec4::new(-0.25, 0.5, 2.0, 0.0)];
    // Indices (u16, padded to 4 bytes), then the two VEC3 values.
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let indices_at = bin.len();
    bin.extend([3u16, 10].iter().flat_map(|i| i.to_le_bytes()));
    let values_at = bin.len();
    bin.extend(values.iter().flat_map(|v| v.truncate().to_array()).flat_map(f32::to_le_bytes));
    let views = json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({ "buffer": 0, "byteOffset": indices_at, "byteLength": 4 }));
    views.push(json!({ "buffer": 0, "byteOffset": values_at, "byteLength": 24 }));
    let (indices_view, values_view) = (views.len() - 2, views.len() - 1);
    let accessor = &mut json["accessors"][output];
    accessor["sparse"] = json!({
        "count": 2,
        "indices": { "bufferView": indices_view, "componentType": 5123 },
        "values": { "bufferView": values_view }
    });
    if !dense {
        accessor.as_object_mut().unwrap().remove("bufferView");
    }
    json["buffers"][0]["byteLength"] = bin.len().into();
    (encode_glb(&json.to_string(), &bin), values)
}

#[test]
fn sparse_accessors_are_read_key_for_key() {
    let original = ik_tool::gltf_read::parse("mannequin.glb", &mannequin_bytes()).unwrap();
    let pelvis = original.nodes.iter().position(|n| n.name == "pelvis").unwrap();
    let keys = |doc: &ik_tool::gltf_read::Document| {
        let walk = doc.clip("Walk").unwrap();
        let c =
            walk.channels.iter().find(|c| c.node == pelvis && c.property == ik_tool::gltf_read::Property::Translation);
        c.unwrap().values.clone()
    };
    let before = keys(&original);
    for dense in [true, false] {
        let (bytes, new) = sparse_walk(dense);
        let doc = ik_tool::gltf_read::parse("sparse.glb", &bytes).unwrap_or_else(|e| panic!("dense {dense}: {e}"));
        let after = keys(&doc);
        assert_eq!(after.len(), before.len(), "dense {dense}: every key read");
        for (k, value) in after.iter().enumerate() {
            let expected = match k {
                3 => new[0],
                10 => new[1],
                _ if dense => before[k],
                _ => Vec4::ZERO,
            };
            assert_eq!(*value, expected, "dense {dense}: key {k}");
        }
    }
    // The tool runs on it too: a dense base with two keys moved labels like any file.
    let dir = TempDir::new("sparse");
    let input = dir.path("sparse.glb");
    std::fs::write(&input, sparse_walk(true).0).unwrap();
    let (code, stdout, stderr) = ik_tool(&["contacts", s(&input), "--clip", "Walk"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Walk"), "{stdout}");
}

/// `clean IN --out OUT` on the files in `dir` exits 2 with one line containing `expected` and
/// leaves the folder as it was.
fn refused(dir: &TempDir, input: &Path, expected: &str) {
    let before = dir.files();
    let out = dir.path("out.glb");
    let (code, _, stderr) = ik_tool(&["clean", s(input), "--out", s(&out)]);
    assert_eq!(code, 2, "exit status 2: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("ik_tool: ") && stderr.contains(expected), "{stderr:?} should say {expected:?}");
    assert!(!out.exists(), "no output written");
    assert_eq!(dir.files(), before, "nothing else written");
}

#[test]
fn a_missing_or_short_bin_and_a_broken_sparse_accessor_are_refused() {
    let dir = TempDir::new("bad_bin");
    let gltf = write_gltf(&dir);
    let bin = dir.path("mannequin rig.bin");
    let data = std::fs::read(&bin).unwrap();
    std::fs::write(&bin, &data[..data.len() / 2]).unwrap();
    refused(&dir, &gltf, &format!("buffer 0 has {} bytes, the file says {}", data.len() / 2, data.len()));
    std::fs::remove_file(&bin).unwrap();
    refused(&dir, &gltf, "buffer 0: cannot read");
    assert!(refused_message(&dir, &gltf).contains("mannequin rig.bin"), "the message names the missing file");

    // Sparse indices that claim four entries in a 4-byte view.
    let (bytes, _) = sparse_walk(true);
    let chunks = decode_glb(&bytes).unwrap();
    let mut json: Value = serde_json::from_slice(chunks.json).unwrap();
    for accessor in json["accessors"].as_array_mut().unwrap() {
        if let Some(sparse) = accessor.get_mut("sparse") {
            sparse["count"] = 4.into();
        }
    }
    let input = dir.path("broken_sparse.glb");
    std::fs::write(&input, encode_glb(&json.to_string(), chunks.bin.unwrap())).unwrap();
    refused(&dir, &input, "sparse indices) runs past buffer view");
}

fn refused_message(dir: &TempDir, input: &Path) -> String {
    let (_, _, stderr) = ik_tool(&["contacts", s(input), "--json", s(&dir.path("x.json"))]);
    stderr
}
