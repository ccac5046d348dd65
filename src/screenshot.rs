//! `--screenshot PATH --frames N`: render N frames, save the window to PATH, exit.
//!
//! Method: count frames in `Update`; at frame N spawn Bevy's `Screenshot::primary_window()`
//! with the `save_to_disk` observer; then wait until the file has appeared (at most 600 more
//! frames) and write `AppExit`. Inputs: the plan. Outputs: the PNG, exit status 0 (or 1 when
//! the file never appeared). Invariants: an old file at PATH is removed first, so its presence
//! means this run wrote it.

use std::path::PathBuf;

use bevy::app::AppExit;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};

/// What to capture and when.
#[derive(Resource, Clone, Debug)]
pub struct ScreenshotPlan {
    /// Output PNG.
    pub path: PathBuf,
    /// Frames before capture.
    pub frames: u32,
    /// Frames so far.
    pub frame: u32,
    /// Frames waited for the file after the request.
    pub waited: u32,
}

impl ScreenshotPlan {
    /// A plan; removes a stale file at `path`.
    pub fn new(path: PathBuf, frames: u32) -> Self {
        let _ = std::fs::remove_file(&path);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        ScreenshotPlan { path, frames: frames.max(1), frame: 0, waited: 0 }
    }
}

/// Counts frames, requests the capture, exits once the file is written.
pub fn screenshot_and_exit(mut commands: Commands, mut plan: ResMut<ScreenshotPlan>, mut exit: MessageWriter<AppExit>) {
    plan.frame += 1;
    if plan.frame == plan.frames {
        info!("saving screenshot to {}", plan.path.display());
        commands.spawn(Screenshot::primary_window()).observe(save_to_disk(plan.path.clone()));
    } else if plan.frame > plan.frames {
        plan.waited += 1;
        let written = std::fs::metadata(&plan.path).map(|m| m.len() > 0).unwrap_or(false);
        if written && plan.waited > 2 {
            exit.write(AppExit::Success);
        } else if plan.waited > 600 {
            error!("the screenshot {} was never written", plan.path.display());
            exit.write(AppExit::error());
        }
    }
}
