//! Command-line flags of the demo.
//!
//! Method: `clap` derive over [`Args`]. Inputs: the argument list. Output: [`Args`], or clap's
//! error naming the bad flag (the caller prints it with the usage and exits with
//! [`clap::Error::exit_code`]: 2 for a bad flag, 0 for `--help`). Invariants: `frames` is only
//! meaningful with `screenshot`; `headless` implies `autopilot` (there is nothing else to do
//! without a window).

use std::path::PathBuf;

use clap::Parser;

/// Which scene the camera shows at start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StartView {
    /// The obstacle course with the playable character.
    #[default]
    Course,
    /// Two-bone arm with draggable target and pole.
    TwoBone,
    /// CCD and FABRIK side by side.
    Chains,
    /// Look-at spread vs head only.
    LookAt,
    /// Follow-the-leader caterpillar.
    Caterpillar,
}

impl StartView {
    /// Parses a view name as given to `--view`.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "course" => StartView::Course,
            "two_bone" | "two-bone" | "arm" => StartView::TwoBone,
            "chains" | "ccd_fabrik" | "ccd-fabrik" => StartView::Chains,
            "look_at" | "look-at" | "lookat" => StartView::LookAt,
            "caterpillar" | "follow" => StartView::Caterpillar,
            _ => return None,
        })
    }
}

/// What to do for a `--character` without a walk clip (`--retarget`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RetargetMode {
    /// Retarget the mannequin's Walk (and Idle / Jog where the file has none) onto it.
    #[default]
    Auto,
    /// Play only the file's own clips (without a walk the character stands).
    Off,
}

/// The creature `--creature` adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CreatureKind {
    /// The Khronos Fox on its own clips ([`bevy_ik::prelude::CreatureIk`]).
    Fox,
    /// Eight legs of three bones, no clips ([`bevy_ik::prelude::ProceduralGait`]).
    Spider,
    /// Six legs of three bones, no clips ([`bevy_ik::prelude::ProceduralGait`]).
    Hexapod,
}

/// Everything the flags can set.
#[derive(Clone, Debug, Default, Parser)]
#[command(name = "bevy_ik_demo", about = "bevy_ik demo")]
pub struct Args {
    /// Use your own humanoid glTF (rigged through the rig profiles, the names or the shape).
    #[arg(long, value_name = "PATH.glb")]
    pub character: Option<PathBuf>,
    /// `role = bone` lines for a rig the profiles do not know (roles: pelvis, spine_0.., neck,
    /// head, thigh_l, calf_l, foot_l, ball_l, upperarm_l, lowerarm_l, hand_l, clavicle_l and the
    /// _r ones).
    #[arg(long, value_name = "PATH")]
    pub rig_map: Option<PathBuf>,
    /// Which clips to play: idle=NAME,walk=NAME,run=NAME (any of them; a name or #N for the N-th
    /// clip); others are chosen by name, then by the speed measured from their feet.
    #[arg(long, value_name = "SPEC", value_parser = clip_overrides, default_value = "", hide_default_value = true)]
    pub clips: crate::clips::ClipOverrides,
    /// A --character with no walk clip: `auto` retargets the mannequin's Idle/Walk/Jog onto it
    /// at run time (the roles its own clips do not fill; nothing is written), `off` plays only
    /// its own clips (no walk: it stands).
    #[arg(long, value_name = "MODE", value_enum, default_value_t = RetargetMode::Auto)]
    pub retarget: RetargetMode,
    /// Save the window to this PNG after --frames N frames, then exit.
    #[arg(long, value_name = "PATH")]
    pub screenshot: Option<PathBuf>,
    /// Frames to render before the screenshot.
    #[arg(long, value_name = "N", default_value_t = 120)]
    pub frames: u32,
    /// Walk the course with foot IK off/on, print the metrics table, exit: 0 when every bar was
    /// met, 1 when one could not be measured, 3 when one was NOT met.
    #[arg(long)]
    pub autopilot: bool,
    /// Run the autopilot without a window or renderer (implies --autopilot).
    #[arg(long)]
    pub headless: bool,
    /// Run the headless course for every character file in this folder, one process each, and
    /// print a scoreboard (see `DIR/refusals.txt` for the files that must be refused).
    #[arg(long, value_name = "DIR")]
    pub scoreboard: Option<PathBuf>,
    /// Walk the autopilot's route in a loop with IK as switched (hands-free demo; no table).
    #[arg(long)]
    pub tour: bool,
    /// Start in: course, two_bone, chains, look_at, caterpillar.
    #[arg(long, value_name = "NAME", value_parser = view, default_value = "course")]
    pub view: StartView,
    /// Open the IK inspector at start.
    #[arg(long)]
    pub inspector: bool,
    /// Draw IK gizmos from the start.
    #[arg(long)]
    pub gizmos: bool,
    /// Start the character at course position X,Z (yaw in degrees), on what the controller
    /// stands on there; with --headless / --autopilot it stands there and each foot's gap to the
    /// ground is measured instead of the walk.
    #[arg(long, value_name = "X,Z[,YAW]", value_parser = at, allow_hyphen_values = true)]
    pub at: Option<(f32, f32, f32)>,
    /// Fixed game-time step of the autopilot and of screenshots, seconds (default 1/60; e.g.
    /// 0.1 checks that the walk and its figures do not depend on the frame rate).
    #[arg(long, value_name = "SECONDS", value_parser = step, default_value = "0.016666668")]
    pub step: f32,
    /// Autopilot: leave out its first pass (foot IK off: the animation as it is), which only
    /// gives the table its contrast columns; every bar comes from the two IK passes.
    #[arg(long)]
    pub skip_ik_off: bool,
    /// Root motion drives: a character whose clips carry the body forward moves at their
    /// travel's speed (J toggles it); by default the controller's speed moves it, the clips
    /// played in place.
    #[arg(long)]
    pub clip_drives: bool,
    /// A creature follows the player: `fox`, the Khronos Fox on its own Walk, its four paws
    /// found, placed and locked by bevy_ik's `CreatureIk`; `spider` (eight legs) or `hexapod`
    /// (six), built in code and walked with no clips by `ProceduralGait`, along the player's
    /// path at --creature-speed. With --headless its feet's figures are printed.
    #[arg(long, value_enum, value_name = "KIND")]
    pub creature: Option<CreatureKind>,
    /// The spider's or the hexapod's walking speed along the player's path, m/s. With
    /// --headless it starts once the player's first pass is done, walks that pass's path at
    /// this speed whatever the player does, then turns 360° in place.
    #[arg(long, value_name = "M/S", value_parser = speed, default_value = "1.5")]
    pub creature_speed: f32,
    /// Keep a `--character`'s size even when its legs say it is under 0.5 m or over 2.5 m tall
    /// (by default such a character is scaled to 1.75 m, with one line saying so).
    #[arg(long)]
    pub keep_scale: bool,
    /// Initial camera orbit (degrees, degrees, metres).
    #[arg(long, value_name = "YAW,PITCH,DIST", value_parser = orbit, allow_hyphen_values = true)]
    pub orbit: Option<(f32, f32, f32)>,
}

fn floats(value: &str, min: usize, max: usize) -> Result<Vec<f32>, String> {
    let parsed: Result<Vec<f32>, _> = value.split(',').map(|v| v.trim().parse::<f32>()).collect();
    match parsed {
        Ok(v) if v.len() >= min && v.len() <= max && v.iter().all(|x| x.is_finite()) => Ok(v),
        _ => Err(format!("expects {min} to {max} comma-separated numbers")),
    }
}

fn at(value: &str) -> Result<(f32, f32, f32), String> {
    let v = floats(value, 2, 3)?;
    Ok((v[0], v[1], v.get(2).copied().unwrap_or(0.0)))
}

fn orbit(value: &str) -> Result<(f32, f32, f32), String> {
    let v = floats(value, 3, 3)?;
    Ok((v[0], v[1], v[2]))
}

fn step(value: &str) -> Result<f32, String> {
    match value.trim().parse::<f32>() {
        Ok(s) if s.is_finite() && (0.001..=0.25).contains(&s) => Ok(s),
        _ => Err("expects a step between 0.001 and 0.25 seconds".into()),
    }
}

fn speed(value: &str) -> Result<f32, String> {
    match value.trim().parse::<f32>() {
        Ok(s) if s.is_finite() && (0.1..=5.0).contains(&s) => Ok(s),
        _ => Err("expects a speed between 0.1 and 5 m/s".into()),
    }
}

fn view(name: &str) -> Result<StartView, String> {
    StartView::parse(name).ok_or_else(|| "unknown view (course, two_bone, chains, look_at, caterpillar)".into())
}

/// `--clips`; the empty default means "choose every clip by name and speed".
fn clip_overrides(text: &str) -> Result<crate::clips::ClipOverrides, String> {
    if text.is_empty() { Ok(Default::default()) } else { crate::clips::ClipOverrides::parse(text) }
}

impl Args {
    /// Parses flags (without the program name); `--headless` sets `autopilot` too.
    pub fn from_flags(args: impl IntoIterator<Item = String>) -> Result<Args, clap::Error> {
        let mut out = Args::try_parse_from(std::iter::once("bevy_ik_demo".to_string()).chain(args))?;
        out.autopilot |= out.headless;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Args, String> {
        Args::from_flags(s.split_whitespace().map(String::from)).map_err(|e| e.to_string())
    }

    #[test]
    fn headless_implies_autopilot_and_flags_parse() {
        let a = parse("--headless --frames 30 --view chains --at 1,2,90").unwrap();
        assert!(a.headless && a.autopilot);
        assert_eq!(a.frames, 30);
        assert_eq!(a.view, StartView::Chains);
        assert_eq!(a.at, Some((1.0, 2.0, 90.0)));
    }

    #[test]
    fn bad_flags_are_reported_by_name() {
        assert!(parse("--frames").unwrap_err().contains("--frames"));
        assert!(parse("--bogus").unwrap_err().contains("--bogus"));
        assert!(parse("--at 1").unwrap_err().contains("--at"));
        assert!(parse("--view nowhere").unwrap_err().contains("nowhere"));
        assert!(parse("--clips fly=Walk").unwrap_err().contains("fly"));
        assert_eq!(parse("--clips walk=Walking").unwrap().clips.0.len(), 1);
        let defaults = parse("").unwrap();
        assert_eq!((defaults.frames, defaults.view, defaults.clips.0.len()), (120, StartView::Course, 0));
        assert_eq!(parse("--retarget off").unwrap().retarget, RetargetMode::Off);
        assert_eq!(defaults.retarget, RetargetMode::Auto, "retargeting is on by default");
        assert!(parse("--retarget maybe").unwrap_err().contains("maybe"));
        assert_eq!(parse("--at -3,2").unwrap().at, Some((-3.0, 2.0, 0.0)), "negative coordinates");
        let usage = Args::from_flags(["--bogus".to_string()]).unwrap_err();
        assert_eq!(usage.exit_code(), 2, "a bad flag exits with 2");
        assert_eq!(Args::from_flags(["--help".to_string()]).unwrap_err().exit_code(), 0);
    }
}
