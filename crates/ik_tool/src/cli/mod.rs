//! Command-line parsing and dispatch for `ik_tool`.
//!
//! Method: `clap` derive over [`Cli`]: the subcommand (`mannequin`, `contacts`, `clean`,
//! `retarget`, `inplace`, `gait`, `rig-creature`, and clap's `help`), its input file and its `--flag value` options, each number checked for range
//! by its value parser. Inputs: the arguments after the program name. Outputs: a [`Command`] or
//! a `clap` error (usage errors exit with status 2, `--help` with 0); [`run`] carries the command
//! out and returns the text to print.
//!
//! Invariants: unknown subcommands, unknown flags, missing or malformed values and extra
//! arguments are all usage errors (the binary prints clap's message and usage and exits with
//! status 2); bad input files are [`ToolError::Input`] (status 2). Output files are written only
//! once everything has succeeded, and `clean` never writes over its input.

use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::ToolError;
use crate::clean::{CleanOptions, clean_clip};
use crate::contacts::{ClipContacts, summary};
use crate::gltf_patch::{AnimationPatch, patch};
use crate::gltf_read::{self, Document};
use crate::legs::{Legs, find_file_legs, parse_map};
use crate::motion::{ContactOptions, label_feet, root_motion};

mod inplace;
mod output;
mod values;
pub use crate::mannequin::root_motion::Carrier as RootCarrier;
pub use inplace::InPlaceArgs;
pub(crate) use output::{output_folder, progress_bar, same_file, write_output};
use values::{convention_help, convention_name, count, factor, seconds, speed, vote};

const AFTER_HELP: &str = "\
Contacts are labelled with the character travelling at the clip's own speed; clips keyed
coarser than 60 Hz are resampled to 60 Hz with cubic interpolation. Inputs are glTF binaries
(.glb) or glTF JSON (.gltf) with embedded or external buffers. Bad input exits with 2.";

/// The `ik_tool` command line.
#[derive(Debug, Parser)]
#[command(name = "ik_tool", about = "The bevy_ik command-line tool", after_help = AFTER_HELP)]
#[command(subcommand_required = true, arg_required_else_help = false)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Sub,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Sub {
    /// Write the skinned mannequin with Idle/Walk/Jog clips and its contact labels (next to it, as NAME.ik.json).
    Mannequin(MannequinArgs),
    /// Label foot contacts of every clip (or one), print a summary per foot, plot one clip's ball
    /// height, speed and labels, write the labels as the demo's sidecar (docs/sidecar.md).
    Contacts(ContactsArgs),
    /// Remove foot sliding offline (pelvis and ball particles, soft and hard constraints, legs
    /// re-solved each frame); writes a copy of IN in which only the changed channels differ and
    /// prints a before/after table.
    Clean(CleanArgs),
    /// Retarget clips of SOURCE onto the TARGET character (another rigged humanoid, any naming,
    /// units, axes, rest pose): writes TARGET with the retargeted clips as OUT, and their contact
    /// labels next to it (OUT.ik.json). Feet are put back with IK where the source's stood.
    Retarget(RetargetArgs),
    /// Bake clips with root motion in place: writes a copy of IN whose travelling clips are in
    /// place, and its sidecar (OUT.ik.json) with each one's travel speed and turning rate.
    Inplace(InPlaceArgs),
    /// Print each clip's gait figures: knee flexion at heel strike, least in stance, peak in
    /// swing; how long the foot is flat, toe-up at heel strike, heel-off; trunk lean, speed,
    /// cadence, stride.
    Gait(crate::gait_report::GaitArgs),
    /// Find a creature's legs in IN's skeleton, whatever their names; print them in pairs.
    RigCreature(crate::creature::RigCreatureArgs),
}

/// Flags of `retarget`.
#[derive(Debug, Args)]
pub struct RetargetArgs {
    /// The character whose clips are retargeted (.glb or .gltf).
    #[arg(value_name = "SOURCE.glb")]
    pub source: PathBuf,
    /// The character that gets them (.glb or .gltf; may have no animation).
    #[arg(value_name = "TARGET.glb")]
    pub target: PathBuf,
    /// The target with the retargeted clips (.glb); its sidecar is written next to it.
    #[arg(long, short = 'o', value_name = "OUT.glb")]
    pub out: PathBuf,
    /// Retarget only this clip.
    #[arg(long, value_name = "NAME", conflicts_with = "all")]
    pub clip: Option<String>,
    /// Retarget every clip (the default).
    #[arg(long)]
    pub all: bool,
    /// Name the source's bones (rig-map syntax, inline or a file).
    #[arg(long, value_name = "ROLE=BONE,...|FILE")]
    pub source_map: Option<String>,
    /// Name the target's bones (rig-map syntax, inline or a file).
    #[arg(long, value_name = "ROLE=BONE,...|FILE")]
    pub target_map: Option<String>,
    /// Keep the hands where the source's are relative to the chest (IK) instead of taking the
    /// arms' rotations only.
    #[arg(long)]
    pub keep_hands: bool,
    /// Replace the target's own clips that share a name with a retargeted one (each is named in
    /// the summary); without it they are kept and the source's clip of that name is skipped.
    #[arg(long)]
    pub replace: bool,
}

/// Flags of `mannequin`.
#[derive(Debug, Args)]
pub struct MannequinArgs {
    /// Output path (default assets/mannequin.glb, or assets/conventions/NAME.glb).
    #[arg(long, short = 'o', value_name = "PATH.glb")]
    pub out: Option<PathBuf>,
    /// Write the same character in another convention (bone names, units, axes, facing, rest
    /// pose, hierarchy, node order, clips).
    #[arg(long, value_name = "NAME", value_parser = convention_name, long_help = convention_help())]
    pub convention: Option<String>,
    /// Print the convention names and what each one exercises.
    #[arg(long)]
    pub list_conventions: bool,
    /// Give the walking clips root motion on this bone (default out assets/root_motion/NAME_BONE.glb).
    #[arg(long, value_enum, value_name = "BONE")]
    pub root_motion: Option<RootCarrier>,
}

/// Flags of `contacts`.
#[derive(Debug, Args)]
pub struct ContactsArgs {
    /// The character (.glb or .gltf).
    #[arg(value_name = "IN.glb")]
    pub input: PathBuf,
    /// Label only this clip.
    #[arg(long, value_name = "NAME")]
    pub clip: Option<String>,
    /// Plot ball height, speed and labels of the clip to this PNG.
    #[arg(long, value_name = "OUT.png")]
    pub plot: Option<PathBuf>,
    /// Write the labels as a sidecar (docs/sidecar.md).
    #[arg(long, value_name = "OUT.json")]
    pub json: Option<PathBuf>,
    /// Options shared with `clean`.
    #[command(flatten)]
    pub shared: SharedArgs,
}

/// Flags of `clean`.
#[derive(Debug, Args)]
pub struct CleanArgs {
    /// The character (.glb or .gltf).
    #[arg(value_name = "IN.glb")]
    pub input: PathBuf,
    /// The cleaned copy (.glb).
    #[arg(long, short = 'o', value_name = "OUT.glb")]
    pub out: PathBuf,
    /// Clean only this clip.
    #[arg(long, value_name = "NAME", conflicts_with = "all")]
    pub clip: Option<String>,
    /// Clean every clip (the default).
    #[arg(long)]
    pub all: bool,
    /// Travel at S x the clip's speed (default 1): the output is the clip to play while the
    /// character moves at that speed.
    #[arg(long, value_name = "S", value_parser = speed)]
    pub root_speed_scale: Option<f32>,
    /// Constraint sweeps (default 25000).
    #[arg(long, value_name = "N", value_parser = count)]
    pub iterations: Option<usize>,
    /// Soft constraint factor (default 0.05).
    #[arg(long, value_name = "F", value_parser = factor)]
    pub soft: Option<f32>,
    /// Hard constraint factor (default 0.9).
    #[arg(long, value_name = "F", value_parser = factor)]
    pub hard: Option<f32>,
    /// Options shared with `contacts`.
    #[command(flatten)]
    pub shared: SharedArgs,
}

/// Options of `contacts` and `clean`.
#[derive(Debug, Args)]
pub struct SharedArgs {
    /// Name the leg bones (roles pelvis, thigh_l, calf_l, foot_l, ball_l, ... _r), inline or as a
    /// file, in the rig-map syntax (`role = bone` entries, comma- or line-separated).
    #[arg(long, visible_alias = "rig-map", value_name = "ROLE=BONE,...|FILE")]
    pub map: Option<String>,
    /// The clip's own speed, m/s (default: the clip's root motion, else its extras or
    /// IN.ik.json nominal_speed, else estimated from the planted balls); in-place clips travel
    /// the way the feet point.
    #[arg(long, value_name = "S", value_parser = speed)]
    pub root_speed: Option<f32>,
    /// Lift-off speed relative to the ground, m/s (landing: 0.6 V; default 0.2 x leg length per
    /// second).
    #[arg(long, value_name = "V", value_parser = speed)]
    pub velocity: Option<f32>,
    /// Lift-off height above the clip's lowest foot, m (landing: 0.6 H; default 0.1 x leg length).
    #[arg(long, value_name = "H", value_parser = speed)]
    pub height: Option<f32>,
    /// Majority-vote window, frames (default 3).
    #[arg(long, value_name = "N", value_parser = vote)]
    pub vote: Option<usize>,
    /// Shortest contact span kept and longest gap closed, s (default 0.05).
    #[arg(long, value_name = "S", value_parser = seconds)]
    pub min_span: Option<f32>,
    /// Smoothing of the contact signal, s (default 0.02).
    #[arg(long, value_name = "S", value_parser = seconds)]
    pub smooth: Option<f32>,
}

/// The full help text (what `ik_tool --help` prints).
pub fn usage() -> String {
    let mut cli = Cli::command();
    cli.build();
    let mut text = cli.render_long_help().to_string();
    for sub in cli.get_subcommands_mut().filter(|s| s.get_name() != "help") {
        let name = sub.get_name().to_string();
        text.push_str(&format!("\n{name}:\n{}", sub.render_long_help()));
    }
    text
}

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

impl From<SharedArgs> for Shared {
    fn from(a: SharedArgs) -> Shared {
        let d = ContactOptions::default();
        let contacts = ContactOptions {
            velocity: a.velocity,
            height: a.height,
            vote_window: a.vote.unwrap_or(d.vote_window),
            min_span: a.min_span.unwrap_or(d.min_span),
            smooth: a.smooth.unwrap_or(d.smooth),
        };
        Shared { map: a.map, root_speed: a.root_speed, contacts }
    }
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
        /// `--root-motion`: the bone the walking clips travel on (`None`: in place).
        root_motion: Option<RootCarrier>,
    },
    /// Bake clips in place.
    InPlace(InPlaceArgs),
    /// List the mannequin conventions.
    Conventions,
    /// Label contacts.
    Contacts {
        /// Input glTF file.
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
        /// Input glTF file.
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
    /// Retarget clips.
    Retarget {
        /// Source character.
        source: PathBuf,
        /// Target character.
        target: PathBuf,
        /// Output `.glb`.
        out: PathBuf,
        /// One clip, or every clip.
        clip: Option<String>,
        /// `--source-map`: inline pairs or a file.
        source_map: Option<String>,
        /// `--target-map`: inline pairs or a file.
        target_map: Option<String>,
        /// `--keep-hands`.
        keep_hands: bool,
        /// `--replace`.
        replace: bool,
    },
    /// Print gait figures.
    Gait {
        /// Input glTF file.
        input: PathBuf,
        /// One clip, or every clip.
        clip: Option<String>,
    },
    /// Print a creature's legs.
    RigCreature(crate::creature::RigCreatureArgs),
}

impl From<Cli> for Command {
    fn from(cli: Cli) -> Command {
        match cli.command {
            Sub::Mannequin(MannequinArgs { list_conventions: true, .. }) => Command::Conventions,
            Sub::Mannequin(MannequinArgs { out, convention, root_motion, .. }) => {
                let default = |c: &String| PathBuf::from(format!("assets/conventions/{c}.glb"));
                let out = out.unwrap_or_else(|| match root_motion {
                    Some(bone) => crate::mannequin::root_motion::default_out(convention.as_deref(), bone),
                    None => convention.as_ref().map_or("assets/mannequin.glb".into(), default),
                });
                Command::Mannequin { out, convention, root_motion }
            }
            Sub::Inplace(a) => Command::InPlace(a),
            Sub::Contacts(a) => {
                Command::Contacts { input: a.input, clip: a.clip, plot: a.plot, json: a.json, shared: a.shared.into() }
            }
            Sub::Clean(a) => {
                let shared: Shared = a.shared.into();
                let mut options = CleanOptions::default();
                options.scale = a.root_speed_scale.unwrap_or(options.scale);
                options.slide.iterations = a.iterations.unwrap_or(options.slide.iterations);
                options.slide.soft_factor = a.soft.unwrap_or(options.slide.soft_factor);
                options.slide.hard_factor = a.hard.unwrap_or(options.slide.hard_factor);
                options.root_speed = shared.root_speed;
                options.contacts = shared.contacts;
                Command::Clean { input: a.input, out: a.out, clip: a.clip, options, shared }
            }
            Sub::Retarget(a) => Command::Retarget {
                source: a.source,
                target: a.target,
                out: a.out,
                clip: a.clip,
                source_map: a.source_map,
                target_map: a.target_map,
                keep_hands: a.keep_hands,
                replace: a.replace,
            },
            Sub::Gait(a) => Command::Gait { input: a.input, clip: a.clip },
            Sub::RigCreature(a) => Command::RigCreature(a),
        }
    }
}

/// Parses the arguments after the program name. `Err` is clap's usage error (or the help text
/// asked for), printed by the binary with [`clap::Error::print`] and its
/// [`clap::Error::exit_code`] (2 for usage errors, 0 for `--help`).
pub fn parse(args: &[String]) -> Result<Command, clap::Error> {
    let all = std::iter::once("ik_tool".to_string()).chain(args.iter().cloned());
    Cli::try_parse_from(all).map(Command::from)
}

/// Runs a parsed command; returns the lines to print.
pub fn run(command: &Command) -> Result<String, ToolError> {
    match command {
        Command::Mannequin { out, convention, root_motion: Some(bone) } => {
            let written = crate::mannequin::root_motion::write(out, convention.as_deref(), *bone)?;
            Ok(written.iter().map(|p| format!("wrote {}", p.display())).collect::<Vec<_>>().join("\n"))
        }
        Command::InPlace(args) => inplace::run(args),
        Command::Mannequin { out, convention: None, .. } => {
            let (glb, sidecar) = crate::mannequin::write(out)?;
            Ok(format!("wrote {}\nwrote {}", glb.display(), sidecar.display()))
        }
        Command::Mannequin { out, convention: Some(name), .. } => {
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
        Command::Retarget { source, target, out, clip, source_map, target_map, keep_hands, replace } => {
            let options = crate::retarget::RetargetOptions {
                source_map: read_map(source_map.as_deref())?,
                target_map: read_map(target_map.as_deref())?,
                hands: *keep_hands,
                replace: *replace,
                contacts: ContactOptions::default(),
            };
            crate::retarget::run(source, target, out, clip.as_deref(), &options)
        }
        Command::RigCreature(a) => crate::creature::run(&a.input),
        Command::Gait { input, clip } => {
            let rows = crate::gait_report::measure_file(input, clip.as_deref())?;
            Ok(crate::gait_report::table(&input.display().to_string(), &rows))
        }
    }
}

/// The loaded input: document, legs, sidecar (and a note when the sidecar was unreadable).
type Opened = (Document, Legs, Option<serde_json::Value>, Option<String>);

/// A `--map` value: inline `role = bone` pairs (it has a `=`) or a file holding them.
fn read_map(map: Option<&str>) -> Result<Option<ik_core::rig::RigProfile>, ToolError> {
    let map = match map {
        None => None,
        Some(m) if m.contains('=') => Some(parse_map(m)),
        Some(file) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| ToolError::Input(format!("{file}: cannot read: {e}")))
                .map(|text| parse_map(&text))?,
        ),
    };
    map.transpose().map_err(ToolError::Input)
}

/// Loads the input, finds its legs and reads the sidecar next to it.
fn open(input: &Path, shared: &Shared) -> Result<Opened, ToolError> {
    let doc = gltf_read::load(input)?;
    let map = read_map(shared.map.as_deref())?;
    let legs = find_file_legs(&doc, map.as_ref()).map_err(|e| doc.bad(e))?;
    let sidecar_path = crate::mannequin::sidecar_path(input);
    let (sidecar, note) = match std::fs::read_to_string(&sidecar_path) {
        Err(_) => (None, None),
        Ok(text) => match serde_json::from_str(&text) {
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
    pub sidecar: Option<serde_json::Value>,
    /// A note to print (an unreadable sidecar).
    pub note: Option<String>,
    /// The labelled clips, in file order.
    pub clips: Vec<ClipContacts>,
}

/// Loads `input` and labels `clip` (or every clip) as `contacts` does; the same code path as
/// [`crate::sidecar::label_file`].
pub fn label_clips(input: &Path, clip: Option<&str>, shared: &Shared) -> Result<(Document, Labelled), ToolError> {
    let (doc, legs, sidecar, note) = open(input, shared)?;
    let clips = label_doc(&doc, &legs, clip, shared, sidecar.as_ref())?;
    Ok((doc, Labelled { legs, sidecar, note, clips }))
}

/// Labels `clip` (or every clip) of a loaded file with its legs (see [`label_clips`]).
pub fn label_doc(
    doc: &Document,
    legs: &Legs,
    clip: Option<&str>,
    shared: &Shared,
    sidecar: Option<&serde_json::Value>,
) -> Result<Vec<ClipContacts>, ToolError> {
    let mut clips = Vec::new();
    for c in chosen(doc, clip)? {
        let sampled = crate::travel::sample_in_place(doc, c, legs)?;
        let ik = |e: ik_core::IkError| doc.bad(format!("animation \"{}\": {e}", c.name));
        let motion = root_motion(doc, c, &sampled, legs, shared.root_speed, sidecar).map_err(ik)?;
        let feet = label_feet(doc, &sampled, legs, &motion, &shared.contacts).map_err(ik)?;
        clips.push(ClipContacts { clip: c.name.clone(), index: c.index, sampled, motion, feet });
    }
    Ok(clips)
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
    let json_text = json.map(|_| crate::sidecar::from_contacts(&doc, &labelled, &shared.contacts).to_json_text());
    for path in [plot, json].into_iter().flatten() {
        output_folder(path)?;
    }
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
        write_output(path, body)?;
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    Ok(text.trim_end().to_string())
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
        if let Some(line) = &cleaned.travel {
            text.push_str(&format!("{}: {line}\n", c.name));
        }
        text.push_str(&cleaned.report.table());
        text.push('\n');
        if cleaned.report.kept.is_some() {
            continue;
        }
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
    write_output(out, bytes)?;
    text.push_str(&format!("wrote {}", out.display()));
    Ok(text)
}

#[cfg(test)]
mod tests;
