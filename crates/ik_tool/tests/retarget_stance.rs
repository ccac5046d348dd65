//! Issue 40, item 2: a target's rest lean never tilts a stance.
//!
//! The mannequin's Walk and Jog retargeted onto the mannequin with its spine leaning 8° forward
//! at rest (pelvis → head leans with it), onto CesiumMan (1° lean) and onto the generated rig
//! whose feet hang from the root: during each of the source's stances the target's planted
//! point stays within 0.5 cm of the heights the source's own takes (above its floor) and drifts
//! at most 1 cm more than the source's ([`ik_tool::stance::check`], what `retarget` prints);
//! on the leaning mannequin the target's own labels find every source stance, ends within 2
//! frames.

use std::path::Path;

use ik_tool::cli::{Shared, label_clips};
use ik_tool::gltf_write::{decode_glb, encode_glb};
use ik_tool::retarget::{RetargetOptions, run_clips};
use ik_tool::stance::{StanceCheck, check};

mod common;
use common::*;

/// The mannequin with `spine_01` turned forward by `degrees` at rest.
fn leaning(degrees: f32) -> Vec<u8> {
    let bytes = mannequin_bytes();
    let chunks = decode_glb(&bytes).unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(chunks.json).unwrap();
    for node in json["nodes"].as_array_mut().unwrap() {
        if node["name"] == "spine_01" {
            let q: Vec<f32> = match node.get("rotation") {
                Some(r) => r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect(),
                None => vec![0.0, 0.0, 0.0, 1.0],
            };
            let lean = glam::Quat::from_rotation_x(degrees.to_radians()) * glam::Quat::from_slice(&q);
            node["rotation"] = serde_json::json!(lean.to_array());
        }
    }
    encode_glb(&json.to_string(), chunks.bin.unwrap())
}

/// The stance figures of every clip of `out` against the source's labels, and the source's own.
fn figures(source: &Path, out: &Path) -> Vec<(String, [StanceCheck; 2], [StanceCheck; 2])> {
    let (sdoc, slab) = label_clips(source, None, &Shared::default()).unwrap();
    let (tdoc, tlab) = label_clips(out, None, &Shared::default()).unwrap();
    let mut rows = Vec::new();
    for clip in ["Walk", "Jog"] {
        let s = slab.clips.iter().find(|c| c.clip == clip).unwrap();
        let t = tlab.clips.iter().find(|c| c.clip == clip).unwrap();
        let labels = s.feet.each_ref().map(|f| f.contacts.clone());
        let own = check(&sdoc, &slab.legs, s, &labels).unwrap();
        let target = check(&tdoc, &tlab.legs, t, &labels).unwrap();
        rows.push((clip.to_string(), target, own));
    }
    rows
}

#[test]
fn a_leaning_rest_pose_does_not_tilt_the_planted_feet() {
    let dir = TempDir::new("retarget_stance");
    let lean = dir.path("leaning.glb");
    std::fs::write(&lean, leaning(8.0)).unwrap();
    let feet_under_root = dir.path("feet_under_root.glb");
    let c = ik_tool::mannequin::convention::find("asset_pack_feet_under_root").unwrap();
    std::fs::write(&feet_under_root, ik_tool::mannequin::generate_convention(&c).unwrap().glb).unwrap();
    let cesium = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/characters/CesiumMan.glb");
    let options = RetargetOptions { replace: true, ..Default::default() };
    let mut failures = Vec::new();
    for (name, target, labels_bar) in
        [("leaning", &lean, true), ("feet_under_root", &feet_under_root, false), ("CesiumMan", &cesium, false)]
    {
        let out = dir.path(&format!("out_{name}.glb"));
        run_clips(&mannequin(), target, &out, Some(&["Walk", "Jog"]), &options).unwrap();
        for (clip, t, s) in figures(&mannequin(), &out) {
            for k in 0..2 {
                let (t, s) = (&t[k], &s[k]);
                println!(
                    "{name} {clip} foot {k}: height {:.2}..{:.2} cm (source {:.2}..{:.2}), drift {:.2} cm (source {:.2}), stances {}/{} ends {}",
                    100.0 * t.height[0],
                    100.0 * t.height[1],
                    100.0 * s.height[0],
                    100.0 * s.height[1],
                    100.0 * t.drift,
                    100.0 * s.drift,
                    t.found,
                    t.stances,
                    t.ends
                );
                let height_ok = t.height[0] >= s.height[0] - 0.005 && t.height[1] <= s.height[1] + 0.005;
                let drift_ok = t.drift <= s.drift + 0.01;
                let labels_ok = !labels_bar || (t.found == t.stances && t.ends <= 2);
                if !(height_ok && drift_ok && labels_ok) {
                    failures.push(format!("{name} {clip} foot {k}: {t:?} against the source's {s:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
