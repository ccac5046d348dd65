//! The clip sidecar (`<character>.ik.json`): the typed serde structs are
//! [`ik_core::sidecar`]'s (re-exported here); this module fills them from labelled clips
//! ([`from_contacts`]) and [`label_file`] labels every clip of a `.glb`
//! with the code `ik_tool contacts --json` runs ([`crate::cli`]): sampling, ground speed,
//! hysteresis contact labels.
//!
//! Invariants: every number written is finite; `duration > 0`; `frame_count ≥ 1`; each label
//! array holds `frame_count` entries; clips without a name are called `clip<index>` (their
//! index among the file's animations, from 0).

use std::path::Path;

use crate::ToolError;
use crate::contacts::ClipContacts;
use crate::gltf_read::Document;
use crate::motion::ContactOptions;
pub use ik_core::sidecar::*;

/// The sidecar record of a clip's travel; `baked` when it was taken out of the file.
pub fn root_motion_record(travel: &crate::travel::Travelled, baked: bool) -> RootMotion {
    RootMotion {
        carrier: travel.carrier_name.clone(),
        speed: finite(travel.clip.speed),
        turn_rate: finite(travel.clip.turn_rate),
        velocity: travel.clip.velocity.to_array().map(finite),
        baked,
    }
}

/// The sidecar of labelled clips (see the module docs).
pub fn from_contacts(doc: &Document, labelled: &[ClipContacts], options: &ContactOptions) -> Sidecar {
    Sidecar { clips: labelled.iter().map(|c| clip_from_contacts(doc, c, options)).collect() }
}

/// The sidecar name of animation `index`: its own name, else `clip<index>`.
pub fn clip_name(doc: &Document, index: usize) -> String {
    doc.animation_name(index).map_or_else(|| format!("clip{index}"), String::from)
}

/// The sidecar entry of one labelled clip.
pub fn clip_from_contacts(doc: &Document, c: &ClipContacts, options: &ContactOptions) -> ClipSidecar {
    let t = &c.sampled.timeline;
    let values = |f: &dyn Fn(&crate::motion::FootContacts) -> &Vec<f32>| FootValues {
        foot_l: f(&c.feet[0]).iter().map(|&v| finite(v)).collect(),
        foot_r: f(&c.feet[1]).iter().map(|&v| finite(v)).collect(),
    };
    let thresholds = c.feet.each_ref().map(|f| Thresholds {
        enter_height: finite(f.thresholds.enter_height),
        leave_height: finite(f.thresholds.leave_height),
        enter_speed: finite(f.thresholds.enter_speed),
        leave_speed: finite(f.thresholds.leave_speed),
        min_span: f.thresholds.min_span,
        vote_window: options.vote_window,
        smooth: finite(options.smooth),
    });
    ClipSidecar {
        name: clip_name(doc, c.index),
        nominal_speed: finite(c.motion.velocity.length()),
        duration: finite(t.duration().max(1.0 / t.rate)),
        frame_rate: finite(t.rate),
        frame_count: t.frames,
        contacts: FootLabels { foot_l: c.feet[0].contacts.clone(), foot_r: c.feet[1].contacts.clone() },
        landing_phase: None,
        root_motion: c.sampled.travel.as_ref().map(|t| root_motion_record(t, false)),
        diagnostics: Some(Diagnostics {
            start: finite(t.start),
            root_speed_source: c.motion.source.clone(),
            root_motion: !c.motion.in_place || c.sampled.travel.is_some(),
            looping: c.sampled.looping,
            resampled: t.resampled,
            floor: finite(c.feet[0].floor),
            foot_bones: c.feet.each_ref().map(|f| f.key.clone()),
            ball: c.feet.each_ref().map(|f| f.ball),
            thresholds,
            signal: values(&|f| &f.signal),
            toe_height: values(&|f| &f.toe_height),
            toe_speed: values(&|f| &f.toe_speed),
        }),
    }
}

/// Labels every clip of the `.glb` at `path` like `ik_tool contacts --json` with default
/// settings: finds the legs (with `rig_map`, the rig-map text of
/// [`ik_core::rig::parse_map`], when given), takes each clip's ground speed from its root motion, its `extras`, a sidecar next to
/// the file, or else measures it from the planted feet, and returns the sidecar. Bad input is
/// [`ToolError::Input`] with a message naming the file.
pub fn label_file(path: &Path, rig_map: Option<&str>) -> Result<Sidecar, ToolError> {
    let shared = crate::cli::Shared { map: rig_map.map(str::to_string), ..Default::default() };
    let (doc, labelled) = crate::cli::label_clips(path, None, &shared)?;
    Ok(from_contacts(&doc, &labelled.clips, &shared.contacts))
}
