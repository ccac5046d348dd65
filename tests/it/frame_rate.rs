//! The demo's walk at 10 fps and at 60 fps: `bevy_ik_demo --headless --step S` walks the
//! mannequin over the course with a fixed game-time step of S seconds (physics in substeps of at
//! most 1/60 s). The pelvis height on flat ground must agree within 1 cm, and penetration and
//! planted float on steps, stairs and ramps and the toe slide with locking over the whole course
//! must meet their 1 cm bars at both rates. At 60 fps every bar is met (exit status 0); at
//! 10 fps (a swing is four frames) two stair bars are known not to be (the README says so): the
//! run may exit 3 (a bar NOT met) only for those.

use std::process::Command;

/// The `bar:` lines that may read NOT met at 10 fps: planted feet across a tread edge and the
/// pelvis on the 20 cm stairs.
const KNOWN_AT_10_FPS: [&str; 2] = ["bar: planted feet on stairs", "bar: pelvis on the 20 cm stairs"];

/// The bar lines and the flat-ground pelvis line of one headless run at `step` seconds.
fn walk_at(step: f32) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_bevy_ik_demo"))
        .args(["--headless", "--step", &step.to_string()])
        .env("RUST_LOG", "error")
        .output()
        .expect("the demo runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let lines: Vec<String> =
        stdout.lines().filter(|l| l.starts_with("bar:") || l.starts_with("pelvis height")).map(String::from).collect();
    let missed: Vec<&String> = lines.iter().filter(|l| l.contains("NOT met")).collect();
    let only_known = step > 0.05 && missed.iter().all(|l| KNOWN_AT_10_FPS.iter().any(|k| l.starts_with(k)));
    let expected = if !missed.is_empty() && only_known { Some(3) } else { Some(0) };
    assert_eq!(output.status.code(), expected, "step {step}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    lines
}

/// The number right after `key` on the first line containing it.
fn figure(lines: &[String], key: &str) -> f32 {
    let line = lines.iter().find(|l| l.contains(key)).unwrap_or_else(|| panic!("no `{key}` in {lines:?}"));
    line.split(key).nth(1).and_then(|rest| rest.split_whitespace().next()).and_then(|v| v.parse().ok()).unwrap()
}

#[test]
fn pelvis_height_and_foot_bars_hold_at_10_and_60_fps() {
    let runs: Vec<(f32, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = [1.0 / 60.0, 0.1].map(|step| scope.spawn(move || (step, walk_at(step)))).into();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut pelvis = Vec::new();
    for (step, lines) in &runs {
        println!("step {step:.4} s:\n  {}", lines.join("\n  "));
        assert!(figure(lines, "max penetration ") <= 1.0, "step {step}: {lines:?}");
        assert!(figure(lines, "max planted float ") <= 1.0, "step {step}: {lines:?}");
        let toe_slide: Vec<String> = lines.iter().filter(|l| l.starts_with("bar: toe slide")).cloned().collect();
        assert!(figure(&toe_slide, "locking off -> ") <= 1.0, "step {step}: toe slide with locking: {lines:?}");
        assert!(lines.iter().all(|l| !l.contains("NOT measured")), "step {step}: {lines:?}");
        pelvis.push(figure(lines, "foot IK on: mean "));
    }
    let difference = (pelvis[0] - pelvis[1]).abs();
    println!(
        "pelvis height on flat ground: {:.2} cm at 60 fps, {:.2} cm at 10 fps: {difference:.2} cm apart",
        pelvis[0], pelvis[1]
    );
    assert!(difference <= 1.0, "pelvis heights {pelvis:?} cm differ by more than 1 cm");
}
