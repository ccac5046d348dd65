//! `--headless`: run the app without a window or renderer by calling `App::update` in a loop,
//! timing every frame.
//!
//! Method: finish the app's plugins, then update until the app asks to exit (the autopilot
//! writes `AppExit` when its table is printed) or a safety limit of game frames is reached.
//! Output: the frame-time summary printed after the autopilot's table (wall time of whole
//! frames: physics, animation, IK and the demo; no rendering). Invariants: at most
//! [`MAX_FRAMES`] frames.

use std::process::ExitCode;
use std::time::Instant;

use bevy::app::AppExit;
use bevy::prelude::*;

/// Safety limit: 4 passes' worth of the longest allowed pass at 60 Hz, so the autopilot gives a
/// pass up (saying where and why) before this does.
pub const MAX_FRAMES: usize = 60 * 4 * crate::autopilot::headway::PASS_LIMIT_CEILING as usize;

/// Runs the app headless; returns the exit code.
pub fn run(mut app: App) -> ExitCode {
    app.finish();
    app.cleanup();
    let mut times = Vec::with_capacity(16_384);
    let started = Instant::now();
    let mut exit = None;
    for _ in 0..MAX_FRAMES {
        let t = Instant::now();
        app.update();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        if let Some(e) = app.should_exit() {
            exit = Some(e);
            break;
        }
    }
    let total = started.elapsed().as_secs_f64();
    // Skip the first second (asset loading, first-frame setup) for the steady-state figures.
    let steady: Vec<f64> = times.iter().skip(60).copied().collect();
    if !steady.is_empty() {
        let mut sorted = steady.clone();
        sorted.sort_by(f64::total_cmp);
        let mean = steady.iter().sum::<f64>() / steady.len() as f64;
        println!(
            "headless frame time ({} profile, no rendering): mean {mean:.2} ms ({:.0} fps), p95 {:.2} ms, max {:.2} ms over {} frames; {} frames in {total:.1} s",
            if cfg!(debug_assertions) { "dev" } else { "release" },
            1000.0 / mean,
            sorted[sorted.len() * 95 / 100],
            sorted[sorted.len() - 1],
            steady.len(),
            times.len(),
        );
    }
    // The follower's figures, when a creature followed the player; one it never measured makes
    // the run fail as "not measured" (exit 1), not pass.
    let world = app.world();
    let follower_measured = match world.get_resource::<crate::follower::Follower>().and_then(|f| f.kind) {
        Some(crate::cli::CreatureKind::Fox) => world.get_resource::<crate::fox::FoxFigures>().is_some_and(|fox| {
            println!("{}", fox.report());
            fox.measured()
        }),
        Some(_) => world.get_resource::<crate::gait_creature::GaitFigures>().is_some_and(|creature| {
            println!("{}", creature.report());
            creature.finished()
        }),
        None => true,
    };
    if let Some(source) = app.world().get_resource::<crate::character::CharacterSource>()
        && !source.retargeted.is_empty()
    {
        println!("character {}: {} retargeted from the mannequin", source.name, source.retargeted.join(", "));
    }
    match exit {
        Some(AppExit::Success) if follower_measured => ExitCode::SUCCESS,
        Some(AppExit::Success) => ExitCode::from(1),
        Some(AppExit::Error(code)) => ExitCode::from(code.get()),
        None => {
            eprintln!("headless run stopped after {MAX_FRAMES} frames without finishing");
            ExitCode::from(1)
        }
    }
}
