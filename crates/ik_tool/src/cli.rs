//! Command-line parsing and dispatch for `ik_tool`.
//!
//! Method: a hand-rolled parser over the argument list (no dependency): the first argument is
//! the subcommand, then its input file (for `contacts` and `clean`) and its `--flag value`
//! options. Inputs: the arguments after the program name. Outputs: a [`Command`] or a usage
//! error; [`run`] carries the command out and returns the text to print.
//!
//! Invariants: unknown subcommands, unknown flags, missing or malformed values and extra
//! arguments are all usage errors (the binary prints [`USAGE`] and exits with status 2); bad
//! input files are [`ToolError::Input`] (status 2). Output files are written only once
//! everything has succeeded, and `clean` never writes over its input.

use std::path::{Path, PathBuf};

use ik_core::contact::MAX_VOTE_WINDOW;

use crate::ToolError;
use crate::clean::{CleanOptions, clean_clip};
use crate::contacts::{ClipContacts, summary};
use crate::gltf_patch::{AnimationPatch, patch};
use crate::gltf_read::{self, Document};
use crate::json::Json;
use crate::legs::{Legs, find_legs, parse_map};
use crate::motion::{ContactOptions, label_feet, root_motion, sample_clip};

/// The usage text printed on bad arguments.
pub const USAGE: &str = "\
usage: ik_tool <command> [options]

commands:
  mannequin --out <path.glb>   write the skinned mannequin with Idle/Walk/Jog clips to <path.glb>
                               and its contact labels to <path>.ik.json (default
                               assets/mannequin.glb)
  mannequin --convention NAME [--out <path.glb>]
                               write the same character in another convention (bone names,
                               units, axes, facing, rest pose, hierarchy, node order, clips;
                               default out assets/conventions/NAME.glb); NAME is one of
                               unreal, mixamo, mixamo_cm, blender_zup, asset_pack,
                               asset_pack_feet_under_root, vrm_minus_z,
                               arbitrary_shuffled_a_pose, robot_100, everything
  mannequin --list-conventions print the convention names and what each one exercises
  contacts IN.glb [--clip NAME] [--plot OUT.png] [--json OUT.json]
                               label foot contacts of every clip (or one), print a summary per
                               foot, plot ball height, speed and labels of one clip, write the
                               labels as the demo's sidecar (docs/sidecar.md)
  clean IN.glb --out OUT.glb [--clip NAME | --all] [--root-speed-scale S]
                               remove foot sliding offline (pelvis and ball particles, soft and
                               hard constraints, legs re-solved each frame) for the character
                               travelling at S x the clip's speed; writes a copy of IN in which
                               only the changed channels differ and prints a before/after table
  help                         print this text

options of contacts and clean:
  --map ROLE=BONE,...|FILE     name the leg bones (roles pelvis, thigh_l, calf_l, foot_l, ball_l,
                               ... _r), inline or as a file (pairs or a JSON object); also
                               spelled --rig-map
  --root-speed S               the clip's own speed, m/s (default: the clip's root motion, else
                               its extras or <IN>.ik.json nominal_speed, else estimated from the
                               planted balls); in-place clips travel the way the feet point
  --velocity V                 lift-off speed relative to the ground, m/s (landing: 0.6 V;
                               default 0.2 x leg length per second)
  --height H                   lift-off height above the clip's lowest foot, m (landing: 0.6 H;
                               default 0.1 x leg length)
  --vote N                     majority-vote window, frames (default 3)
  --min-span S                 shortest contact span kept and longest gap closed, s (default 0.05)
  --smooth S                   smoothing of the contact signal, s (default 0.02)
options of clean:
  --root-speed-scale S         travel at S x the clip's speed (default 1): the output is the clip
                               to play while the character moves at that speed
  --iterations N               constraint sweeps (default 25000)
  --soft F                     soft constraint factor (default 0.05)
  --hard F                     hard constraint factor (default 0.9)

Contacts are labelled with the character travelling at the clip's own speed; clips keyed
coarser than 60 Hz are resampled to 60 Hz with cubic interpolation. Bad input exits with 2.
";

/// Options shared by `contacts` and `clean`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shared {
    /// `--map`: inline pairs or a file.
    pub map: Option<String>,
    /// `--root-speed`.
    pub root_speed: Option<f32>,
    /// Thresholds and smoothing.
    pub contacts: ContactOptions,
}

/// A parsed command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Generate the mannequin to this `.glb` path.
    Mannequin {
        /// Output path of the glTF binary.
        out: PathBuf,
        /// A preset of [`crate::mannequin::conventions`] (`None`: the mannequin itself).
        convention: Option<String>,
    },
    /// List the mannequin conventions.
    Conventions,
    /// Label contacts.
    Contacts {
        /// Input `.glb`.
        input: PathBuf,
        /// One clip, or every clip.
        clip: Option<String>,
        /// Plot output.
        plot: Option<PathBuf>,
        /// JSON output.
        json: Option<PathBuf>,
        /// Shared options.
        shared: Shared,
    },
    /// Clean clips.
    Clean {
        /// Input `.glb`.
        input: PathBuf,
        /// Output `.glb`.
        out: PathBuf,
        /// One clip, or every clip (`--all`, the default).
        clip: Option<String>,
        /// Solve settings and travel scale.
        options: CleanOptions,
        /// Shared options.
        shared: Shared,
    },
    /// Print usage.
    Help,
}

fn number<T: std::str::FromStr>(flag: &str, value: Option<&String>) -> Result<T, String> {
    let text = value.ok_or(format!("{flag} needs a value"))?;
    text.parse().map_err(|_| format!("{flag}: `{text}` is not a valid number"))
}

fn fraction(flag: &str, value: Option<&String>, low: f32, high: f32) -> Result<f32, String> {
    let x: f32 = number(flag, value)?;
    if x.is_finite() && (low..=high).contains(&x) { Ok(x) } else { Err(format!("{flag} must be in [{low}, {high}]")) }
}

/// Parses the options common to `contacts` and `clean`; `Ok(false)` for a flag it does not know.
fn shared_flag(flag: &str, it: &mut std::slice::Iter<'_, String>, shared: &mut Shared) -> Result<bool, String> {
    match flag {
        "--map" | "--rig-map" => shared.map = Some(it.next().ok_or("--map needs a value")?.clone()),
        "--root-speed" => shared.root_speed = Some(fraction(flag, it.next(), 0.0, 100.0)?),
        "--velocity" => shared.contacts.velocity = Some(fraction(flag, it.next(), 0.0, 100.0)?),
        "--height" => shared.contacts.height = Some(fraction(flag, it.next(), 0.0, 100.0)?),
        "--min-span" => shared.contacts.min_span = fraction(flag, it.next(), 0.0, 10.0)?,
        "--vote" => {
            let n: usize = number(flag, it.next())?;
            if n > MAX_VOTE_WINDOW {
                return Err(format!("--vote must be at most {MAX_VOTE_WINDOW}"));
            }
            shared.contacts.vote_window = n;
        }
        "--smooth" => shared.contacts.smooth = fraction(flag, it.next(), 0.0, 10.0)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let (command, rest) = args.split_first().ok_or("missing command")?;
    match command.as_str() {
        "mannequin" => {
            let (mut out, mut convention, mut list) = (None, None, false);
            let mut it = rest.iter();
            while let Some(flag) = it.next() {
                match flag.as_str() {
                    "--out" | "-o" => out = Some(PathBuf::from(it.next().ok_or("--out needs a path")?)),
                    "--convention" => convention = Some(it.next().ok_or("--convention needs a name")?.clone()),
                    "--list-conventions" => list = true,
                    other => return Err(format!("unknown option `{other}`")),
                }
            }
            use crate::mannequin::convention;
            if let Some(name) = convention.as_deref().filter(|n| convention::find(n).is_none()) {
                return Err(format!("unknown convention `{name}` (known: {})", convention::names()));
            }
            if list {
                return Ok(Command::Conventions);
            }
            let default = |c: &String| PathBuf::from(format!("assets/conventions/{c}.glb"));
            let out = out.unwrap_or_else(|| convention.as_ref().map_or("assets/mannequin.glb".into(), default));
            Ok(Command::Mannequin { out, convention })
        }
        "contacts" | "clean" => {
            let mut input = None;
            let (mut clip, mut plot, mut json, mut out, mut all) = (None, None, None, None, false);
            let mut shared = Shared::default();
            let mut options = CleanOptions::default();
            let is_clean = command == "clean";
            let mut it = rest.iter();
            while let Some(arg) = it.next() {
                let path = |it: &mut std::slice::Iter<'_, String>| {
                    it.next().map(PathBuf::from).ok_or(format!("{arg} needs a path"))
                };
                match arg.as_str() {
                    "--clip" => clip = Some(it.next().ok_or("--clip needs a name")?.clone()),
                    "--plot" if !is_clean => plot = Some(path(&mut it)?),
                    "--json" if !is_clean => json = Some(path(&mut it)?),
                    "--out" | "-o" if is_clean => out = Some(path(&mut it)?),
                    "--all" if is_clean => all = true,
                    "--root-speed-scale" if is_clean => options.scale = fraction(arg, it.next(), 0.0, 100.0)?,
                    "--iterations" if is_clean => options.slide.iterations = number(arg, it.next())?,
                    "--soft" if is_clean => options.slide.soft_factor = fraction(arg, it.next(), 0.0, 1.0)?,
                    "--hard" if is_clean => options.slide.hard_factor = fraction(arg, it.next(), 0.0, 1.0)?,
                    flag if flag.starts_with('-') => {
                        if !shared_flag(flag, &mut it, &mut shared)? {
                            return Err(format!("unknown option `{flag}` for {command}"));
                        }
                    }
                    file if input.is_none() => input = Some(PathBuf::from(file)),
                    extra => return Err(format!("unexpected argument `{extra}`")),
                }
            }
            let input = input.ok_or(format!("{command} needs an input .glb"))?;
            if all && clip.is_some() {
                return Err("--clip and --all exclude each other".into());
            }
            options.root_speed = shared.root_speed;
            options.contacts = shared.contacts;
            if is_clean {
                let out = out.ok_or("clean needs --out OUT.glb")?;
                Ok(Command::Clean { input, out, clip, options, shared })
            } else {
                Ok(Command::Contacts { input, clip, plot, json, shared })
            }
        }
        "help" | "--help" | "-h" if rest.is_empty() => Ok(Command::Help),
        other => Err(format!("unknown command `{other}`")),
    }
}

/// Runs a parsed command; returns the lines to print.
pub fn run(command: &Command) -> Result<String, ToolError> {
    match command {
        Command::Mannequin { out, convention: None } => {
            let (glb, sidecar) = crate::mannequin::write(out)?;
            Ok(format!("wrote {}\nwrote {}", glb.display(), sidecar.display()))
        }
        Command::Mannequin { out, convention: Some(name) } => {
            let preset = crate::mannequin::convention::find(name)
                .ok_or_else(|| ToolError::Input(format!("unknown convention `{name}`")))?;
            let written = crate::mannequin::write_convention(&preset, out)?;
            Ok(written.iter().map(|p| format!("wrote {}", p.display())).collect::<Vec<_>>().join("\n"))
        }
        Command::Conventions => Ok(crate::mannequin::convention::describe()),
        Command::Contacts { input, clip, plot, json, shared } => {
            run_contacts(input, clip.as_deref(), plot.as_deref(), json.as_deref(), shared)
        }
        Command::Clean { input, out, clip, options, shared } => run_clean(input, out, clip.as_deref(), options, shared),
        Command::Help => Ok(USAGE.trim_end().to_string()),
    }
}

/// The loaded input: document, legs, sidecar (and a note when the sidecar was unreadable).
fn open(input: &Path, shared: &Shared) -> Result<(Document, Legs, Option<Json>, Option<String>), ToolError> {
    let doc = gltf_read::load(input)?;
    let map = match &shared.map {
        None => None,
        Some(m) if m.contains('=') || m.trim_start().starts_with('{') => Some(parse_map(m)),
        Some(file) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| ToolError::Input(format!("{file}: cannot read: {e}")))
                .map(|text| parse_map(&text))?,
        ),
    };
    let map = map.transpose().map_err(ToolError::Input)?;
    let legs = find_legs(&doc.nodes, map.as_ref()).map_err(|e| doc.bad(e))?;
    let sidecar_path = crate::mannequin::sidecar_path(input);
    let (sidecar, note) = match std::fs::read_to_string(&sidecar_path) {
        Err(_) => (None, None),
        Ok(text) => match Json::parse(&text) {
            Ok(json) => (Some(json), None),
            Err(e) => (None, Some(format!("note: ignored {}: {e}", sidecar_path.display()))),
        },
    };
    Ok((doc, legs, sidecar, note))
}

fn chosen<'a>(doc: &'a Document, clip: Option<&str>) -> Result<Vec<&'a gltf_read::Clip>, ToolError> {
    match clip {
        Some(name) => Ok(vec![doc.clip(name)?]),
        None => Ok(doc.clips.iter().collect()),
    }
}

/// The clips of a file, labelled: the legs, the sidecar found next to the file (and a note when
/// it was unreadable), and each chosen clip's contacts.
pub struct Labelled {
    /// The legs found.
    pub legs: Legs,
    /// The `.ik.json` next to the input, when readable.
    pub sidecar: Option<Json>,
    /// A note to print (an unreadable sidecar).
    pub note: Option<String>,
    /// The labelled clips, in file order.
    pub clips: Vec<ClipContacts>,
}

/// Loads `input` and labels `clip` (or every clip) as `contacts` does; the same code path as
/// [`crate::sidecar::label_file`].
pub fn label_clips(input: &Path, clip: Option<&str>, shared: &Shared) -> Result<(Document, Labelled), ToolError> {
    let (doc, legs, sidecar, note) = open(input, shared)?;
    let mut clips = Vec::new();
    for c in chosen(&doc, clip)? {
        let sampled = sample_clip(&doc, c);
        let ik = |e: ik_core::IkError| doc.bad(format!("animation \"{}\": {e}", c.name));
        let motion = root_motion(&doc, c, &sampled, &legs, shared.root_speed, sidecar.as_ref()).map_err(ik)?;
        let feet = label_feet(&doc, &sampled, &legs, &motion, &shared.contacts).map_err(ik)?;
        clips.push(ClipContacts { clip: c.name.clone(), index: c.index, sampled, motion, feet });
    }
    Ok((doc, Labelled { legs, sidecar, note, clips }))
}

fn run_contacts(
    input: &Path,
    clip: Option<&str>,
    plot: Option<&Path>,
    json: Option<&Path>,
    shared: &Shared,
) -> Result<String, ToolError> {
    if plot.is_some() && clip.is_none() {
        let doc = gltf_read::load(input)?;
        if doc.clips.len() > 1 {
            return Err(doc.bad(format!("--plot draws one clip: choose it with --clip (found: {})", doc.clip_names())));
        }
    }
    let (doc, Labelled { legs, sidecar, note, clips: labelled }) = label_clips(input, clip, shared)?;
    let mut text = String::new();
    if let Some(note) = note {
        text.push_str(&note);
        text.push('\n');
    }
    text.push_str(&format!("{}: legs found with the {} profile\n", doc.label, legs.profile));
    for (c, result) in chosen(&doc, clip)?.into_iter().zip(&labelled) {
        text.push_str(&summary(&doc, c, sidecar.as_ref(), result));
    }
    let json_text =
        json.map(|_| crate::sidecar::Sidecar::from_contacts(&doc, &labelled, &shared.contacts).to_json_text());
    if let (Some(path), Some(c)) = (plot, labelled.first()) {
        let times: Vec<f32> = (0..c.sampled.timeline.frames).map(|f| c.sampled.timeline.time(f)).collect();
        let title = format!(
            "{}, {}: ball height, ball speed and contacts (travelling at {:.2} m/s)",
            input.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
            c.clip,
            c.motion.velocity.length()
        );
        let input = crate::plot::PlotInput {
            title: &title,
            times: &times,
            feet: &c.feet,
            velocity_threshold: c.feet[0].thresholds.leave_speed,
            height_threshold: c.feet[0].thresholds.leave_height,
        };
        crate::plot::draw(path, &input)?;
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    if let (Some(path), Some(body)) = (json, json_text) {
        std::fs::write(path, body)?;
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    Ok(text.trim_end().to_string())
}

/// True when `a` and `b` name the same file (or would, once `b` is created).
fn same_file(a: &Path, b: &Path) -> bool {
    let full = |p: &Path| -> Option<PathBuf> {
        if let Ok(c) = p.canonicalize() {
            return Some(c);
        }
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some(parent.canonicalize().ok()?.join(p.file_name()?))
    };
    a == b || matches!((full(a), full(b)), (Some(x), Some(y)) if x == y)
}

fn progress_bar(total: u64, clip: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} ({eta})") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(clip.to_string());
    bar
}

fn run_clean(
    input: &Path,
    out: &Path,
    clip: Option<&str>,
    options: &CleanOptions,
    shared: &Shared,
) -> Result<String, ToolError> {
    if same_file(input, out) {
        return Err(ToolError::Input(format!(
            "{}: --out is the input file; write the cleaned clips to another file",
            input.display()
        )));
    }
    let (doc, legs, sidecar, note) = open(input, shared)?;
    let clips = chosen(&doc, clip)?;
    let mut text = note.map(|n| n + "\n").unwrap_or_default();
    text.push_str(&format!("{}: legs found with the {} profile\n\n", doc.label, legs.profile));
    let mut patches = Vec::new();
    for c in clips {
        let bar = progress_bar(1, &c.name);
        let mut progress = |done: usize, total: usize| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        };
        let cleaned = clean_clip(&doc, c, &legs, sidecar.as_ref(), options, &mut progress);
        bar.finish_and_clear();
        let mut cleaned = cleaned?;
        cleaned.report.clip = c.name.clone();
        text.push_str(&cleaned.report.table());
        text.push('\n');
        patches.push(AnimationPatch {
            animation: c.index,
            channels: cleaned.channels,
            extras: Some(("ik_clean".into(), cleaned.note)),
        });
    }
    let bytes = patch(&doc, &patches)?;
    // The result must load like its input did before it is written.
    gltf_read::parse(&out.display().to_string(), &bytes)
        .map_err(|e| ToolError::Format(format!("output check failed: {e}")))?;
    std::fs::write(out, bytes)?;
    text.push_str(&format!("wrote {}", out.display()));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_commands_and_rejects_bad_arguments() {
        assert_eq!(
            parse(&args(&["mannequin", "--out", "x/m.glb"])),
            Ok(Command::Mannequin { out: "x/m.glb".into(), convention: None })
        );
        assert_eq!(
            parse(&args(&["mannequin", "--convention", "mixamo_cm"])),
            Ok(Command::Mannequin {
                out: "assets/conventions/mixamo_cm.glb".into(),
                convention: Some("mixamo_cm".into())
            })
        );
        assert!(parse(&args(&["mannequin", "--convention", "nope"])).unwrap_err().contains("mixamo_cm"));
        assert_eq!(parse(&args(&["mannequin", "--list-conventions"])), Ok(Command::Conventions));
        assert!(parse(&args(&[])).is_err());
        assert!(parse(&args(&["mannequin", "--out"])).is_err());
        assert!(parse(&args(&["mannequin", "--size", "2"])).is_err());
        assert!(parse(&args(&["bake"])).is_err());
        let Ok(Command::Clean { options, clip, .. }) = parse(&args(&[
            "clean",
            "a.glb",
            "--out",
            "b.glb",
            "--clip",
            "Walk",
            "--root-speed-scale",
            "1.25",
            "--iterations",
            "500",
        ])) else {
            panic!("clean parses");
        };
        assert_eq!((options.scale, options.slide.iterations, clip.as_deref()), (1.25, 500, Some("Walk")));
        assert_eq!(options.slide.soft_factor, 0.05);
        assert!(parse(&args(&["clean", "a.glb"])).unwrap_err().contains("--out"));
        assert!(parse(&args(&["clean", "a.glb", "--out", "b.glb", "--all", "--clip", "W"])).is_err());
        assert!(parse(&args(&["clean", "a.glb", "--out", "b.glb", "--hard", "1.5"])).is_err());
        assert!(parse(&args(&["contacts", "a.glb", "--out", "b.glb"])).is_err());
        assert!(parse(&args(&["contacts", "a.glb", "--velocity", "fast"])).unwrap_err().contains("not a valid number"));
        assert!(parse(&args(&["contacts", "a.glb", "b.glb"])).is_err());
        let Ok(Command::Contacts { shared, .. }) =
            parse(&args(&["contacts", "a.glb", "--height", "0.05", "--vote", "5"]))
        else {
            panic!("contacts parses");
        };
        assert_eq!((shared.contacts.height, shared.contacts.vote_window), (Some(0.05), 5));
    }
}
