//! The clip sidecar (`<character>.ik.json`) as typed serde structs: per clip its ground speed,
//! duration, frame rate, frame count and per-foot contact labels — the file `ik_tool contacts
//! --json` writes and a game reads to drive a character's clips and plant its feet (the demo
//! does). See `docs/sidecar.md` for the format. Behind the `sidecar` feature (serde).
//!
//! Method: [`Sidecar`] is an ordered list of [`ClipSidecar`]s that (de)serializes as a JSON
//! object from clip name to clip (in clip order); [`Sidecar::parse`] checks what it reads,
//! [`to_text`] writes label arrays on one line each.
//!
//! Invariants: `parse` accepts only clips with a finite positive `duration` and a finite
//! non-negative `nominal_speed`; clips without a name are called `clip<index>` (their index
//! among the file's animations, from 0).
//!
//! ```
//! use ik_core::sidecar::Sidecar;
//! let sidecar = Sidecar::parse(r#"{ "Walk": { "duration": 1.05, "nominal_speed": 1.4 } }"#).unwrap();
//! let walk = sidecar.clip("Walk").unwrap();
//! assert_eq!((walk.nominal_speed, walk.frame_count), (1.4, 1));
//! assert!(Sidecar::parse(r#"{ "Walk": { "duration": 0 } }"#).is_err());
//! ```

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Per-foot labels, one per frame: `true` while that foot is planted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FootLabels {
    /// Left foot.
    pub foot_l: Vec<bool>,
    /// Right foot.
    pub foot_r: Vec<bool>,
}

/// What `contacts` measured to make the labels (optional: hand-written sidecars omit it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Diagnostics {
    /// Time of frame 0 in the clip, s.
    pub start: f32,
    /// Where `nominal_speed` came from.
    pub root_speed_source: String,
    /// Whether the clip carries its own root motion (else it is in place).
    pub root_motion: bool,
    /// First and last frame hold the same pose.
    pub looping: bool,
    /// Resampled to 60 Hz with cubics (the clip was keyed coarser).
    pub resampled: bool,
    /// Height of the clip's lowest contact point, m.
    pub floor: f32,
    /// The foot bones' names, `[left, right]`.
    pub foot_bones: [String; 2],
    /// Whether each foot was labelled at its ball bone (else at an estimated sole point).
    pub ball: [bool; 2],
    /// Thresholds used: `enter_height`, `leave_height` (m), `enter_speed`, `leave_speed` (m/s),
    /// `min_span` (frames), `vote_window` (frames), `smooth` (s), per foot.
    pub thresholds: [Thresholds; 2],
    /// Smoothed 0..1 contact signal per frame.
    pub signal: FootValues,
    /// Contact point height above `floor` per frame, m.
    pub toe_height: FootValues,
    /// Contact point speed relative to the ground per frame, m/s.
    pub toe_speed: FootValues,
}

/// The labelling thresholds of one foot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// Landing height, m.
    pub enter_height: f32,
    /// Lift-off height, m.
    pub leave_height: f32,
    /// Landing speed, m/s.
    pub enter_speed: f32,
    /// Lift-off speed, m/s.
    pub leave_speed: f32,
    /// Shortest span kept / longest gap closed, frames.
    pub min_span: usize,
    /// Majority-vote window, frames.
    pub vote_window: usize,
    /// Smoothing of the signal, s.
    pub smooth: f32,
}

/// Per-foot numbers, one per frame.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FootValues {
    /// Left foot.
    pub foot_l: Vec<f32>,
    /// Right foot.
    pub foot_r: Vec<f32>,
}

/// One clip of the sidecar. Only `duration` is required when reading: a hand-written sidecar
/// may leave out the speed (0: standing), the frame rate and count (1 frame) and the labels
/// (none: the clip is unlabelled).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClipSidecar {
    /// Clip name (the key of the sidecar's object; not written inside the clip).
    #[serde(skip)]
    pub name: String,
    /// Ground speed the clip is made for, m/s: for an in-place clip the speed the ground moves
    /// backward under a planted foot; for a clip with root motion its mean horizontal speed.
    #[serde(default)]
    pub nominal_speed: f32,
    /// Length of the clip (its cycle, for a loop), s; positive.
    pub duration: f32,
    /// Frames per second of the labels, Hz.
    #[serde(default)]
    pub frame_rate: f32,
    /// Number of frames (labels per foot), including the closing frame of a loop.
    #[serde(default = "one_frame")]
    pub frame_count: usize,
    /// Contact labels per foot.
    #[serde(default)]
    pub contacts: FootLabels,
    /// Cycle phases at which the left and right feet land (the mannequin writes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landing_phase: Option<[f32; 2]>,
    /// The root motion the clip carries (or carried, before `ik_tool inplace` baked it out);
    /// absent for an in-place clip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_motion: Option<RootMotion>,
    /// How the labels were made (written by `contacts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Diagnostics>,
}

/// A clip's root motion, as the sidecar records it (`ik_tool`'s root-motion split).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RootMotion {
    /// The bone that carries (carried) the travel.
    pub carrier: String,
    /// Speed along the travel's path, m/s.
    pub speed: f32,
    /// Turning rate about up, rad/s (positive: forward turns toward the character's left).
    #[serde(default)]
    pub turn_rate: f32,
    /// The travel's velocity at the clip's start, m/s, in the file's world frame.
    #[serde(default)]
    pub velocity: [f32; 3],
    /// True when the clip was baked in place (`ik_tool inplace`): the character must travel at
    /// this velocity (as at `nominal_speed`) for its feet to stand still.
    #[serde(default)]
    pub baked: bool,
}

/// A whole sidecar: clips in file order, (de)serialized as `{ "<clip>": ClipSidecar, ... }`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sidecar {
    /// The clips.
    pub clips: Vec<ClipSidecar>,
}

impl Sidecar {
    /// The clip with exactly this name.
    pub fn clip(&self, name: &str) -> Option<&ClipSidecar> {
        self.clips.iter().find(|c| c.name == name)
    }

    /// Parses sidecar text. Errors: not JSON, not an object of clips, or a clip without a
    /// positive duration or with a negative speed.
    pub fn parse(text: &str) -> Result<Sidecar, String> {
        let sidecar: Sidecar = serde_json::from_str(text).map_err(|e| format!("not a sidecar: {e}"))?;
        for clip in &sidecar.clips {
            if !(clip.duration.is_finite() && clip.duration > 0.0) {
                return Err(format!("clip `{}` has no positive duration", clip.name));
            }
            if !(clip.nominal_speed.is_finite() && clip.nominal_speed >= 0.0) {
                return Err(format!("clip `{}` has a negative nominal_speed", clip.name));
            }
        }
        Ok(sidecar)
    }

    /// The sidecar as pretty JSON text (label arrays on one line each), with a final newline.
    pub fn to_json_text(&self) -> String {
        to_text(self)
    }
}

/// The frame count of a clip whose sidecar leaves it out.
fn one_frame() -> usize {
    1
}

/// A finite number (0 otherwise): what every number written goes through.
pub fn finite(x: f32) -> f32 {
    if x.is_finite() { x } else { 0.0 }
}

/// `value` as indented JSON text (two spaces per level, objects one key per line, arrays on one
/// line — so a label array reads as one line) with a final newline, written by `serde_json`.
pub fn to_text<T: Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, InlineArrays::default());
    // Serializing the sidecar's structs and maps of strings cannot fail.
    let _ = value.serialize(&mut serializer);
    String::from_utf8(out).unwrap_or_default() + "\n"
}

/// A `serde_json` formatter: objects indented like [`serde_json::ser::PrettyFormatter`],
/// arrays and everything inside them compact.
#[derive(Default)]
struct InlineArrays {
    pretty: serde_json::ser::PrettyFormatter<'static>,
    compact: serde_json::ser::CompactFormatter,
    arrays: usize,
}

impl serde_json::ser::Formatter for InlineArrays {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.arrays += 1;
        self.compact.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.arrays = self.arrays.saturating_sub(1);
        self.compact.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.compact.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.compact.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.arrays > 0 { self.compact.begin_object(w) } else { self.pretty.begin_object(w) }
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.arrays > 0 { self.compact.end_object(w) } else { self.pretty.end_object(w) }
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        if self.arrays > 0 { self.compact.begin_object_key(w, first) } else { self.pretty.begin_object_key(w, first) }
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.arrays > 0 { self.compact.begin_object_value(w) } else { self.pretty.begin_object_value(w) }
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.arrays > 0 { self.compact.end_object_value(w) } else { self.pretty.end_object_value(w) }
    }
}

impl Serialize for Sidecar {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.clips.len()))?;
        for clip in &self.clips {
            map.serialize_entry(&clip.name, clip)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Sidecar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Clips;
        impl<'de> Visitor<'de> for Clips {
            type Value = Sidecar;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object from clip name to clip")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Sidecar, A::Error> {
                let mut clips = Vec::new();
                while let Some((name, mut clip)) = access.next_entry::<String, ClipSidecar>()? {
                    clip.name = name;
                    clips.push(clip);
                }
                Ok(Sidecar { clips })
            }
        }
        deserializer.deserialize_map(Clips)
    }
}
