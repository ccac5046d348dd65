//! bevy_ik demo: a mannequin (or your own humanoid) on an obstacle course with foot placement,
//! foot locking, look-at and a reaching hand, an egui inspector and metrics, lab scenes, and
//! flags for screenshots and a measuring autopilot.
//!
//! Method: parse the flags ([`cli`]), build the app ([`app`]) and run it — windowed through
//! winit, or for `--headless` by calling `App::update` in a loop and timing every frame.
//! Inputs: command-line flags. Outputs: a window, a PNG, or the autopilot's table on stdout.
//! Invariants: a bad flag prints the usage and exits with status 2; a character that cannot be
//! loaded exits with status 1 and one message.

// Bevy systems take their resources and queries as parameters: many, with long types.
#![allow(clippy::too_many_arguments, clippy::type_complexity)]

mod app;
mod autopilot;
mod camera;
mod character;
mod cli;
mod clip_setup;
mod clips;
mod course;
mod course_lanes;
mod course_mesh;
mod course_pieces;
mod course_spawn;
mod course_stairs;
mod follower;
mod fox;
mod gait_creature;
mod game;
mod headless;
mod labs;
mod lane_metrics;
mod locomotion;
mod marks;
mod metrics;
mod orb;
mod platforms;
mod player;
mod registry;
mod rigging;
mod scoreboard;
mod screenshot;
mod sidecar;
mod surfaces;
mod toggles;
mod ui;
mod view;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = match cli::Args::from_flags(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(error) => {
            // clap's message and usage (or the help asked for); 2 for a bad flag, 0 for --help.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    if let Some(dir) = &args.scoreboard {
        return scoreboard::run(dir);
    }
    let mut app = match app::build_app(&args) {
        Ok(app) => app,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(1);
        }
    };
    if args.headless {
        return headless::run(app);
    }
    match app.run() {
        bevy::app::AppExit::Success => ExitCode::SUCCESS,
        bevy::app::AppExit::Error(code) => ExitCode::from(code.get()),
    }
}
