//! Issue 40, item 2 and its bar: retargeted feet stand where the source's stood.
//!
//! The mannequin's Walk and Jog retargeted onto the mannequin with its spine leaning 8° forward
//! at rest (pelvis → head leans with it), onto every generated convention (`ik_tool
//! mannequin --convention`) and onto every humanoid of the committed corpus (`assets/characters`, less `refusals.txt`):
//! during each of the source's stances the target's planted point (its ball, else the sole
//! under its ankle) stays within 0.5 cm of its floor and drifts at most 1 cm, and the target's
//! own labels find every source stance, ends within 2 frames ([`ik_tool::stance::check`], what
//! `retarget` prints; a stance across a loop's seam is one). No exception: the kaiju, whose
//! hocks were taken for ankles until its digitigrade legs were rigged a bone lower, could not
//! reach the Jog's stride (drift 2.31 cm); now 0.00 cm.

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

/// The gait figures of the Walk in the file at `path` (`ik_tool gait`).
fn walk_gait(path: &Path) -> ik_tool::gait_report::GaitFigures {
    ik_tool::gait_report::measure_file(path, Some("Walk")).unwrap().remove(0)
}

/// The largest difference, degrees, between two walks' knee flexion at heel strike, least in
/// stance and peak in swing, and their toes' rise at heel strike.
fn gait_gap(a: &ik_tool::gait_report::GaitFigures, b: &ik_tool::gait_report::GaitFigures) -> f32 {
    let angles = |g: &ik_tool::gait_report::GaitFigures| {
        [g.knee_at_strike, g.knee_least_in_stance, g.knee_peak_in_swing, g.toe_up_at_strike]
    };
    angles(a)
        .iter()
        .zip(angles(b))
        .map(|(x, y)| x.zip(y).map_or(f32::INFINITY, |(x, y)| (x - y).abs()))
        .fold(0.0, f32::max)
}

#[test]
fn retargeted_feet_stand_where_the_source_s_stood_on_every_corpus_humanoid() {
    let dir = TempDir::new("retarget_stance");
    let lean = dir.path("leaning.glb");
    std::fs::write(&lean, leaning(8.0)).unwrap();
    let mut targets = vec![("leaning".to_string(), lean)];
    for (name, c) in ik_tool::mannequin::conventions() {
        let path = dir.path(&format!("{name}.glb"));
        std::fs::write(&path, ik_tool::mannequin::generate_convention(&c).unwrap().glb).unwrap();
        targets.push((name.to_string(), path));
    }
    for path in corpus_humanoids() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        targets.push((name, path));
    }
    assert!(targets.len() >= 18, "the generated rigs and the corpus's humanoids: {targets:?}");
    let options = RetargetOptions { replace: true, ..Default::default() };
    let source_gait = walk_gait(&mannequin());
    let mut failures = Vec::new();
    for (name, target) in &targets {
        let out = dir.path(&format!("out_{name}.glb"));
        run_clips(&mannequin(), target, &out, Some(&["Walk", "Jog"]), &options).unwrap();
        // Issue 41's bar: the Walk's knee and foot angles within 5° of the source's. Held here
        // on the rigs of the mannequin's proportions (the generated ones, and the Mesh2Motion
        // human, legs 0.8 % shorter); printed for the rest.
        let gap = gait_gap(&source_gait, &walk_gait(&out));
        println!("{name} Walk: knee and foot angles at most {gap:.1}° off the source's");
        let held = if corpus_humanoids().iter().any(|p| p == target) { name == "m2m_human_ual" } else { true };
        if held && gap > 5.0 {
            failures.push(format!("{name} Walk: knee and foot angles {gap:.1}° off the source's (> 5°)"));
        }
        for (clip, figures, _) in figures(&mannequin(), &out) {
            for (k, t) in figures.iter().enumerate() {
                println!(
                    "{name} {clip} foot {k}: planted point {:.2}..{:.2} cm above its floor, drift {:.2} cm, its own \
                     labels find {} of {} stances, ends within {} frames",
                    100.0 * t.height[0],
                    100.0 * t.height[1],
                    100.0 * t.drift,
                    t.found,
                    t.stances,
                    t.ends
                );
                let met = t.height[0] >= -0.005
                    && t.height[1] <= 0.005
                    && t.drift <= 0.01
                    && t.found == t.stances
                    && t.ends <= 2;
                if !met {
                    failures.push(format!("{name} {clip} foot {k}: {t:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
