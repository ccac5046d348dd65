//! `bevy_ik_demo --headless --at X,Z,YAW` puts the character on the course there (on what the
//! controller stands on: on stairs their invisible ramp, half a rise from the treads) and the
//! feet must land on the ground under them: on stairs, each sole within 1 cm of its tread
//! (the standing check's gap and penetration), on two staircases, across the stairs and facing
//! up them.

use std::process::Command;

/// The standing check's bar lines for `--at at`.
fn stand_at(at: &str) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_bevy_ik_demo"))
        .args(["--headless", "--at", at])
        .env("RUST_LOG", "error")
        .output()
        .expect("the demo runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "--at {at}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    stdout.lines().filter(|l| l.starts_with("bar: standing")).map(String::from).collect()
}

#[test]
fn at_on_the_stairs_lands_both_feet_on_the_treads() {
    // The 20 cm stairs' second tread (z 22.32–22.64, top 40 cm), facing across (+X); the
    // 15 cm stairs' landing side, facing up the flight (+Z) on the third tread (z 16.6–16.9).
    for at in ["0,22.48,90", "0.3,16.75,0"] {
        let lines = stand_at(at);
        println!("--at {at}:\n  {}", lines.join("\n  "));
        assert_eq!(lines.len(), 2, "--at {at}: {lines:?}");
        for line in &lines {
            assert!(line.ends_with("(<= 1 cm: met)"), "--at {at}: {line}");
        }
    }
}
