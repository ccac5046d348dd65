//! The demo's own loading path on characters it was not tuned for: `bevy_ik_demo --headless
//! --character X.glb` on every file `ik_tool mannequin --convention` generates, exactly as a
//! user runs it. A character with a walk clip walks the course (foot IK off, on, on + locking):
//! every bar must be measured, and the bars must be met: penetration and planted float
//! on steps, stairs and ramps ≤ 1 cm with foot IK on, toe slide with locking ≤ 1 cm over the
//! whole course; the look-at never turns past its limit and the hand never reaches behind the
//! character (no bar line says "NOT met"). One without a walk clip stands astride the 15 cm step with both feet within
//! 1 cm of their ground. Every run must exit 0.
//!
//! Each run walks the whole course three times (about 20 s of a dev-profile process); two run
//! at a time. `IK_DEMO_CONVENTIONS=a,b` runs only the named presets.

use std::process::Command;

use ik_tool::mannequin::{conventions, generate_convention};

/// Demo processes run at once.
const AT_ONCE: usize = 2;

fn run_demo(name: &str) -> Result<String, String> {
    let convention =
        conventions().into_iter().find(|(n, _)| *n == name).map(|(_, c)| c).ok_or(format!("no preset {name}"))?;
    let dir = std::env::temp_dir().join(format!("bevy_ik_demo_{name}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join(format!("{name}.glb"));
    std::fs::write(&file, generate_convention(&convention).map_err(|e| e.to_string())?.glb)
        .map_err(|e| e.to_string())?;
    let output = Command::new(env!("CARGO_BIN_EXE_bevy_ik_demo"))
        .args(["--headless", "--character", file.to_str().unwrap()])
        .env("RUST_LOG", "warn")
        .output()
        .map_err(|e| e.to_string())?;
    std::fs::remove_dir_all(&dir).ok();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let bars: Vec<&str> = stdout.lines().filter(|l| l.starts_with("bar:")).collect();
    let report = format!("{name}:\n  {}", bars.join("\n  "));
    if output.status.code() != Some(0) {
        return Err(format!("{report}\n  exit status {:?}\n{stdout}\n{stderr}", output.status.code()));
    }
    let figure = |key: &str| -> Option<f32> {
        let line = bars.iter().find(|b| b.contains(key))?;
        line.split(key).nth(1)?.split_whitespace().next()?.parse().ok()
    };
    let measured = !bars.is_empty() && bars.iter().all(|b| !b.contains("NOT measured") && !b.contains("NOT met"));
    let standing: Vec<&&str> = bars.iter().filter(|b| b.contains("standing")).collect();
    let ok = if standing.is_empty() {
        let penetration = figure("max penetration ").unwrap_or(f32::INFINITY);
        let float = figure("max planted float ").unwrap_or(f32::INFINITY);
        let slide = figure("-> ").unwrap_or(f32::INFINITY);
        measured && penetration <= 1.0 && float <= 1.0 && slide <= 1.0
    } else {
        measured && standing.len() == 2 && standing.iter().all(|b| b.ends_with(": met)"))
    };
    if !ok {
        return Err(format!("{report}\n{stdout}"));
    }
    Ok(report)
}

#[test]
fn the_demo_walks_or_stands_characters_of_other_conventions_and_meets_the_bars() {
    let only = std::env::var("IK_DEMO_CONVENTIONS").ok();
    let names: Vec<&str> = conventions()
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| only.as_deref().is_none_or(|o| o.split(',').any(|w| w.trim() == *n)))
        .collect();
    assert!(!names.is_empty(), "IK_DEMO_CONVENTIONS names no preset: {only:?}");
    let mut results = Vec::new();
    for batch in names.chunks(AT_ONCE) {
        std::thread::scope(|scope| {
            let runs: Vec<_> = batch.iter().map(|name| scope.spawn(move || run_demo(name))).collect();
            results.extend(runs.into_iter().map(|r| r.join().unwrap_or_else(|_| Err("a run panicked".into()))));
        });
    }
    let mut failures = Vec::new();
    for result in results {
        match result {
            Ok(report) => println!("{report}"),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_character_the_demo_cannot_rig_exits_2_with_the_bone_names() {
    let dir = std::env::temp_dir().join(format!("bevy_ik_demo_badmap_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let convention = conventions().into_iter().find(|(n, _)| *n == "mixamo").unwrap().1;
    let file = dir.join("hero.glb");
    std::fs::write(&file, generate_convention(&convention).unwrap().glb).unwrap();
    let map = dir.join("hero.map");
    std::fs::write(&map, "pelvis = mixamorig:Hips\nthigh_l = mixamorig:LeftUpLg\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_bevy_ik_demo"))
        .args(["--headless", "--character", file.to_str().unwrap(), "--rig-map", map.to_str().unwrap()])
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("exit {:?}: {stderr}", output.status.code());
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("closest: mixamorig:LeftUpLeg") && stderr.contains("role = bone"), "{stderr}");
}
