//! The demo's own loading path on characters it was not tuned for: `bevy_ik_demo --headless
//! --character X.glb` on every file `ik_tool mannequin --convention` generates, exactly as a
//! user runs it. A character with a walk clip walks the course (foot IK on, then on + locking;
//! `--skip-ik-off` leaves out the IK-off pass, which only gives the table its contrast columns):
//! every bar must be measured, and the bars must be met: penetration and planted float
//! on steps, stairs and ramps ≤ 1 cm with foot IK on, toe slide with locking ≤ 1 cm over the
//! whole course; on the stairs no swinging sole goes deeper than 0.5 cm into anything, no
//! planted sole hangs more than 20 % over a tread edge (locking on) and the pelvis drops at most
//! 5 cm more than the 20 cm rise; planted feet slide ≤ 1 cm over lane D's moving platforms
//! (locking on) and under its board no planted foot is raised onto the board's top; the look-at
//! never turns past its limit and the hand never reaches behind the character (no bar line says
//! "NOT met"). A character with no clip (`robot_100`, and presets with their clips taken
//! out) gets the mannequin's Idle/Walk/Jog retargeted onto it and must meet the same walking
//! bars, the output saying so; with `--retarget off` it stands astride the 15 cm step with both
//! feet within 1 cm of their ground. Two presets walk with root motion on their walking clips
//! (on the hips; on a root bone), played in place by `RootMotion`. Every run must exit 0.
//!
//! Each run walks the whole course twice (about 17 s of a dev-profile process); two run
//! at a time. `IK_DEMO_CONVENTIONS=a,b` runs only the runs whose name starts with a named preset.

use std::process::Command;

use ik_tool::mannequin::convention::{ClipSet, RestPose};
use ik_tool::mannequin::root_motion::{Carrier, add_root_motion};
use ik_tool::mannequin::{Convention, conventions, generate_convention};

/// Demo processes run at once.
const AT_ONCE: usize = 2;

/// What one demo run must show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Walks the course on its own clips.
    Walks,
    /// Walks the course on the mannequin's clips, retargeted.
    WalksRetargeted,
    /// Stands astride the step (no walk clip, `--retarget off`).
    Stands,
}

/// One demo run: a name, the character, the extra flags and the outcome it must show.
struct Run {
    name: String,
    convention: Convention,
    /// Its walking clips given root motion on this bone (`ik_tool mannequin --root-motion`).
    root_motion: Option<Carrier>,
    flags: &'static [&'static str],
    expect: Expect,
}

/// Every preset as it is, `robot_100` (no clips) also with `--retarget off`, and two presets
/// with their clips taken out: `everything` (scrambled names, Z-up at 1 cm units, facing −Z,
/// T-pose, feet under a control bone) and `asset_pack` with 15 % longer legs in an A-pose.
fn runs() -> Vec<Run> {
    let mut out: Vec<Run> = conventions()
        .into_iter()
        .map(|(name, convention)| Run {
            name: name.to_string(),
            convention,
            root_motion: None,
            flags: &[],
            expect: if convention.clips == ClipSet::None { Expect::WalksRetargeted } else { Expect::Walks },
        })
        .collect();
    let preset = |name: &str| conventions().into_iter().find(|(n, _)| *n == name).map(|(_, c)| c).unwrap();
    out.push(Run {
        name: "robot_100_retarget_off".into(),
        convention: preset("robot_100"),
        root_motion: None,
        flags: &["--retarget", "off"],
        expect: Expect::Stands,
    });
    out.push(Run {
        name: "everything_no_clips".into(),
        convention: Convention { clips: ClipSet::None, ..preset("everything") },
        root_motion: None,
        flags: &[],
        expect: Expect::WalksRetargeted,
    });
    out.push(Run {
        name: "asset_pack_long_legs_no_clips".into(),
        convention: Convention { clips: ClipSet::None, leg_scale: 1.15, rest: RestPose::A45, ..preset("asset_pack") },
        root_motion: None,
        flags: &[],
        expect: Expect::WalksRetargeted,
    });
    // Clips that carry the body forward (issue 39), on the hips and on a root bone: played in
    // place by bevy_ik's RootMotion, the controller moving the character.
    for (name, convention, carrier) in [("mixamo", "mixamo", Carrier::Hips), ("unreal", "unreal", Carrier::Root)] {
        out.push(Run {
            name: format!("{name}_root_motion_{}", carrier.name()),
            convention: preset(convention),
            root_motion: Some(carrier),
            flags: &[],
            expect: Expect::Walks,
        });
    }
    out
}

fn run_demo(run: &Run) -> Result<String, String> {
    let name = &run.name;
    let dir = std::env::temp_dir().join(format!("bevy_ik_demo_{name}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join(format!("{name}.glb"));
    let mut glb = generate_convention(&run.convention).map_err(|e| e.to_string())?.glb;
    if let Some(carrier) = run.root_motion {
        glb = add_root_motion(name, &glb, carrier).map_err(|e| e.to_string())?;
    }
    std::fs::write(&file, &glb).map_err(|e| e.to_string())?;
    let output = Command::new(env!("CARGO_BIN_EXE_bevy_ik_demo"))
        .args(["--headless", "--skip-ik-off", "--character", file.to_str().unwrap()])
        .args(run.flags)
        .env("RUST_LOG", "warn")
        .output()
        .map_err(|e| e.to_string())?;
    let untouched = std::fs::read(&file).is_ok_and(|now| now == glb);
    let others: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let retarget_line = stdout.lines().find(|l| l.contains("retargeted from the mannequin"));
    let bars: Vec<&str> = stdout.lines().filter(|l| l.starts_with("bar:")).collect();
    let report = format!(
        "{name} ({:?}{}):\n  {}",
        run.expect,
        retarget_line.map_or(String::new(), |l| format!("; {l}")),
        bars.join("\n  ")
    );
    if output.status.code() != Some(0) {
        return Err(format!("{report}\n  exit status {:?}\n{stdout}\n{stderr}", output.status.code()));
    }
    if !untouched || others.len() != 1 {
        return Err(format!("{report}\n  the character's folder changed: {others:?} (file untouched: {untouched})"));
    }
    let says_retargeted = retarget_line.is_some_and(|l| l.contains("Idle, Walk, Jog retargeted from the mannequin"));
    if says_retargeted != (run.expect == Expect::WalksRetargeted) {
        return Err(format!("{report}\n  the output should say the clips are retargeted iff they are\n{stdout}"));
    }
    let figure = |key: &str| -> Option<f32> {
        let line = bars.iter().find(|b| b.contains(key))?;
        line.split(key).nth(1)?.split_whitespace().next()?.parse().ok()
    };
    let measured = !bars.is_empty() && bars.iter().all(|b| !b.contains("NOT measured") && !b.contains("NOT met"));
    let standing: Vec<&&str> = bars.iter().filter(|b| b.contains("standing")).collect();
    let ok = match run.expect {
        Expect::Walks | Expect::WalksRetargeted => {
            let penetration = figure("max penetration ").unwrap_or(f32::INFINITY);
            let float = figure("max planted float ").unwrap_or(f32::INFINITY);
            let slide = figure("-> ").unwrap_or(f32::INFINITY);
            measured && standing.is_empty() && penetration <= 1.0 && float <= 1.0 && slide <= 1.0
        }
        Expect::Stands => measured && standing.len() == 2 && standing.iter().all(|b| b.ends_with(": met)")),
    };
    if !ok {
        return Err(format!("{report}\n{stdout}"));
    }
    Ok(report)
}

#[test]
fn the_demo_walks_or_stands_characters_of_other_conventions_and_meets_the_bars() {
    let only = std::env::var("IK_DEMO_CONVENTIONS").ok();
    let runs: Vec<Run> = runs()
        .into_iter()
        .filter(|r| only.as_deref().is_none_or(|o| o.split(',').any(|w| r.name.starts_with(w.trim()))))
        .collect();
    assert!(!runs.is_empty(), "IK_DEMO_CONVENTIONS names no preset: {only:?}");
    assert!(
        only.is_some() || runs.iter().filter(|r| r.expect == Expect::WalksRetargeted).count() >= 2,
        "at least two characters without clips walk on retargeted ones"
    );
    let mut results = Vec::new();
    for batch in runs.chunks(AT_ONCE) {
        std::thread::scope(|scope| {
            let handles: Vec<_> = batch.iter().map(|run| scope.spawn(move || run_demo(run))).collect();
            results.extend(handles.into_iter().map(|r| r.join().unwrap_or_else(|_| Err("a run panicked".into()))));
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
