//! Issue 40, items 4 and 5: `clean` never makes a clip worse, and cleans IK-control rigs.
//!
//! - Every clip of every committed corpus character and of the mannequin, cleaned with `clean
//!   --all`: no foot's contact travel grows and no foot's largest per-frame turn grows by more
//!   than 1° (the tool's before/after measures, [`ClipReport::feet`]); a clip the clean cannot
//!   improve is written back as it was (every channel's node, path, interpolation, key times and
//!   values, and the animation's extras, unchanged) and the table says so.
//! - An IK-control rig whose feet hang from the root (the generated
//!   `asset_pack_feet_under_root`, and RobotExpressive): `clean` runs, and at 1.3 × the walk's
//!   speed the planted feet's slide drops below 0.5 cm (from over 2 cm); every RobotExpressive
//!   clip is cleaned or kept.

use std::path::{Path, PathBuf};

use glam::Vec4;
use ik_tool::clean::ClipReport;
use ik_tool::cli::{Command, parse, run};
use ik_tool::gltf_read::{self, Interpolation, Property};

mod common;
use common::*;

/// The reports of `clean IN --out OUT ARGS` run in-process, and the printed text.
fn clean(input: &Path, out: &Path, args: &[&str]) -> Result<(Vec<ClipReport>, String), String> {
    let mut all = vec!["clean".to_string(), s(input).into(), "--out".into(), s(out).into()];
    all.extend(args.iter().map(|a| a.to_string()));
    let Ok(Command::Clean { input, clip, options, shared, .. }) = parse(&all) else { panic!("parses") };
    let (doc, labelled) = ik_tool::cli::label_clips(&input, clip.as_deref(), &shared).map_err(|e| e.to_string())?;
    let mut reports = Vec::new();
    for c in doc.clips.iter().filter(|c| clip.as_ref().is_none_or(|n| *n == c.name)) {
        let cleaned =
            ik_tool::clean::clean_clip(&doc, c, &labelled.legs, labelled.sidecar.as_ref(), &options, &mut |_, _| {})
                .map_err(|e| e.to_string())?;
        let mut report = cleaned.report;
        report.clip = c.name.clone();
        reports.push(report);
    }
    let text = run(&parse(&all).unwrap()).map_err(|e| e.to_string())?;
    Ok((reports, text))
}

/// What a clip plays: per channel its node, property, interpolation, key times and values.
type Keys = Vec<(usize, Property, Interpolation, Vec<f32>, Vec<Vec4>)>;

/// The keys of every clip of a file, by name, and each animation's `extras`.
fn animations(path: &Path) -> Vec<(String, Keys, Option<serde_json::Value>)> {
    let doc = gltf_read::load(path).unwrap();
    doc.clips
        .iter()
        .map(|c| {
            let keys =
                c.channels.iter().map(|k| (k.node, k.property, k.interpolation, k.times.clone(), k.values.clone()));
            (c.name.clone(), keys.collect(), doc.animation_extras(c.index))
        })
        .collect()
}

#[test]
fn clean_makes_no_clip_of_the_corpus_worse_and_leaves_what_it_cannot_improve() {
    let dir = TempDir::new("clean_corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(characters())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb"))
        .collect();
    files.sort();
    files.push(mannequin());
    let mut failures = Vec::new();
    let (mut cleaned, mut kept) = (0, 0);
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let out = dir.path(&format!("clean_{name}"));
        let (reports, text) = match clean(file, &out, &[]) {
            Ok(r) => r,
            Err(e) => {
                println!("{name}: refused: {e}");
                assert!(e.contains(&name), "{name}: the refusal names the file: {e}");
                // Only the files the corpus lists as refused are, each naming its cause, and
                // characters without clips (the demo retargets the mannequin's onto them).
                let expected = refusals().into_iter().find(|(file, _)| *file == name);
                let clipless = || gltf::Gltf::open(file).is_ok_and(|g| g.animations().count() == 0);
                if expected.is_none() && e.ends_with("no animation") && clipless() {
                    continue;
                }
                assert!(expected.is_some_and(|(_, why)| e.contains(&why)), "{name}: refused for the wrong cause: {e}");
                continue;
            }
        };
        let (before, after) = (animations(file), animations(&out));
        for r in &reports {
            for f in &r.feet {
                let (slide, turn) = (f.travel.map(|t| 100.0 * t + 0.0), f.max_foot_turn.map(f32::to_degrees));
                println!(
                    "{name} {}: {} foot slide {:.2} -> {:.2} cm, largest turn {:.1} -> {:.1}°{}",
                    r.clip,
                    f.side,
                    slide[0],
                    slide[1],
                    turn[0],
                    turn[1],
                    if r.kept.is_some() { " (kept as it was)" } else { "" }
                );
                if slide[1] > slide[0] + 1e-3 || turn[1] > turn[0] + 1.0 {
                    failures.push(format!("{name} {}: {} foot {slide:?} cm, {turn:?}°", r.clip, f.side));
                }
            }
            if r.kept.is_some() {
                kept += 1;
                assert!(text.contains("Not improved"), "{name} {}: the table says so", r.clip);
                let find = |list: &[(String, Keys, Option<serde_json::Value>)]| {
                    list.iter().find(|(n, ..)| *n == r.clip).cloned()
                };
                assert_eq!(find(&before), find(&after), "{name} {}: left exactly as it was", r.clip);
            } else {
                cleaned += 1;
            }
        }
    }
    println!("{cleaned} clips cleaned or with nothing to fix, {kept} kept as they were");
    // RobotExpressive's 14 clips, CesiumMan's one and the mannequin's three.
    assert!(cleaned + kept >= 18, "the corpus has clips to clean");
    assert!(failures.is_empty(), "clips made worse:\n{}", failures.join("\n"));
}

#[test]
fn feet_hanging_from_the_root_are_cleaned_like_feet_below_their_shins() {
    let dir = TempDir::new("clean_feet_under_root");
    let rig = dir.path("feet_under_root.glb");
    let c = ik_tool::mannequin::convention::find("asset_pack_feet_under_root").unwrap();
    std::fs::write(&rig, ik_tool::mannequin::generate_convention(&c).unwrap().glb).unwrap();
    let out = dir.path("out.glb");
    let (reports, text) = clean(&rig, &out, &["--clip", "Walking", "--root-speed-scale", "1.3"]).unwrap();
    println!("{text}");
    let r = &reports[0];
    assert!(r.kept.is_none() && !r.nothing_to_fix, "cleaned: {text}");
    for f in &r.feet {
        let slide = f.travel.map(|t| 100.0 * t);
        assert!(slide[0] > 2.0 && slide[1] < 0.5, "{}: slide {slide:?} cm", f.side);
    }
    // RobotExpressive's feet hang from its `Bone` too: every clip goes through.
    let robot = characters().join("RobotExpressive.glb");
    let (reports, _) = clean(&robot, &out, &[]).unwrap();
    assert_eq!(reports.len(), 14);
    assert_eq!(reports[0].feet.each_ref().map(|f| f.key.as_str()), ["FootL", "FootR"]);
}
