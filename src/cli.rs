//! Command-line flags of the demo.
//!
//! Method: a hand-rolled parser over `std::env::args` (no extra dependency). Inputs: the
//! argument list. Output: [`Args`], or an error message naming the bad flag (the caller prints
//! it with the usage text and exits with status 2). Invariants: `frames` is only meaningful with
//! `screenshot`; `headless` implies `autopilot` (there is nothing else to do without a window).

use std::path::PathBuf;

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

/// Everything the flags can set.
#[derive(Clone, Debug, Default)]
pub struct Args {
    /// `--character PATH.glb`: the user's humanoid instead of the mannequin.
    pub character: Option<PathBuf>,
    /// `--rig-map PATH`: `role = bone` lines mapping rig roles to the character's bone names.
    pub rig_map: Option<PathBuf>,
    /// `--clips idle=NAME,walk=NAME,run=NAME`: which clips play which role.
    pub clips: crate::clips::ClipOverrides,
    /// `--screenshot PATH`: save the window to this PNG after `frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    /// `--frames N`: frames to render before the screenshot (default 120).
    pub frames: u32,
    /// `--autopilot`: walk the fixed route with IK off/on, print the table, exit.
    pub autopilot: bool,
    /// `--headless`: no window, no renderer (implies `--autopilot`).
    pub headless: bool,
    /// `--tour`: the character walks the autopilot's route in a loop with the IK switches as
    /// set (hands-free demo; no table).
    pub tour: bool,
    /// `--view NAME`: start in a lab (`two_bone`, `chains`, `look_at`, `caterpillar`).
    pub view: StartView,
    /// `--inspector`: open the inspector window at start.
    pub inspector: bool,
    /// `--gizmos`: draw IK gizmos from the start.
    pub gizmos: bool,
    /// `--at X,Z[,YAW_DEG]`: start the character there (course coordinates).
    pub at: Option<(f32, f32, f32)>,
    /// `--orbit YAW_DEG,PITCH_DEG,DISTANCE`: initial camera orbit.
    pub orbit: Option<(f32, f32, f32)>,
}

/// The usage text printed on a bad flag or `--help`.
pub const USAGE: &str = "\
bevy_ik demo

USAGE: bevy_ik_demo [FLAGS]
  --character PATH.glb   use your own humanoid glTF (rigged through the rig profiles)
  --rig-map PATH         role = bone lines for a rig the profiles do not know (roles: pelvis,
                         spine_0.., neck, head, thigh_l, calf_l, foot_l, ball_l, upperarm_l,
                         lowerarm_l, hand_l, clavicle_l and the _r ones)
  --clips SPEC           which clips to play: idle=NAME,walk=NAME,run=NAME (any of them; a
                         name or #N for the N-th clip); others are chosen by name, then by the
                         speed measured from their feet
  --screenshot PATH      save a PNG after --frames N frames (default 120), then exit
  --frames N             frames before the screenshot
  --autopilot            walk the course with foot IK off/on, print the metrics table, exit
  --headless             run the autopilot without a window or renderer
  --tour                 walk the autopilot's route in a loop with IK as switched (no table)
  --view NAME            start in: course, two_bone, chains, look_at, caterpillar
  --inspector            open the IK inspector at start
  --gizmos               draw IK gizmos from the start
  --at X,Z[,YAW]         start the character at course position X,Z (yaw in degrees)
  --orbit YAW,PITCH,DIST initial camera orbit (degrees, degrees, metres)
";

fn floats(flag: &str, value: &str, min: usize, max: usize) -> Result<Vec<f32>, String> {
    let parsed: Result<Vec<f32>, _> = value.split(',').map(|v| v.trim().parse::<f32>()).collect();
    match parsed {
        Ok(v) if v.len() >= min && v.len() <= max && v.iter().all(|x| x.is_finite()) => Ok(v),
        _ => Err(format!("{flag} expects {min} to {max} comma-separated numbers, got `{value}`")),
    }
}

impl Args {
    /// Parses flags (without the program name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
        let mut out = Args { frames: 120, ..Default::default() };
        let mut it = args.into_iter();
        while let Some(flag) = it.next() {
            let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
            match flag.as_str() {
                "--character" => out.character = Some(PathBuf::from(value("--character")?)),
                "--rig-map" => out.rig_map = Some(PathBuf::from(value("--rig-map")?)),
                "--clips" => out.clips = crate::clips::ClipOverrides::parse(&value("--clips")?)?,
                "--screenshot" => out.screenshot = Some(PathBuf::from(value("--screenshot")?)),
                "--frames" => {
                    let v = value("--frames")?;
                    out.frames = v.parse().map_err(|_| format!("--frames expects a count, got `{v}`"))?;
                }
                "--autopilot" => out.autopilot = true,
                "--headless" => {
                    out.headless = true;
                    out.autopilot = true;
                }
                "--view" => {
                    let v = value("--view")?;
                    out.view = StartView::parse(&v).ok_or_else(|| format!("unknown view `{v}`"))?;
                }
                "--tour" => out.tour = true,
                "--inspector" => out.inspector = true,
                "--gizmos" => out.gizmos = true,
                "--at" => {
                    let v = floats("--at", &value("--at")?, 2, 3)?;
                    out.at = Some((v[0], v[1], v.get(2).copied().unwrap_or(0.0)));
                }
                "--orbit" => {
                    let v = floats("--orbit", &value("--orbit")?, 3, 3)?;
                    out.orbit = Some((v[0], v[1], v[2]));
                }
                "--help" | "-h" => return Err(String::new()),
                other => return Err(format!("unknown flag `{other}`")),
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Args, String> {
        Args::parse(s.split_whitespace().map(String::from))
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
    }
}
