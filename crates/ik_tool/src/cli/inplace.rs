//! `ik_tool inplace`: clips with root motion baked in place, their travel written to the sidecar.
//!
//! Method: each chosen clip is sampled with its root motion taken out
//! ([`crate::travel::sample_in_place`]); a clip that travels gets its carrier's translation and
//! rotation rewritten at the clip's frames with the in-place remainder, and
//! `extras.ik_root_motion` (carrier, speed, turning rate, velocity, `baked`). The new file is
//! read back and labelled like `contacts --json` (its clips now in place, travelling at the
//! recorded speed) into `OUT.ik.json`, each baked clip with its `root_motion` record. Clips already in place are
//! left as they are.
//!
//! Invariants: the input is never written over; nothing is written unless everything
//! succeeded; only the carriers' channels change.

use std::path::PathBuf;

use clap::Args;
use glam::Vec4;

use super::{Shared, chosen, open, same_file, write_output};
use crate::ToolError;
use crate::gltf_patch::{AnimationPatch, NewChannel, patch};
use crate::gltf_read::{self, Document, Property};
use crate::legs::Legs;
use crate::sidecar::{RootMotion, Sidecar};
use crate::travel::sample_in_place;

/// Flags of `inplace`.
#[derive(Clone, Debug, PartialEq, Args)]
pub struct InPlaceArgs {
    /// The character (.glb or .gltf).
    #[arg(value_name = "IN.glb")]
    pub input: PathBuf,
    /// The copy with the clips in place (.glb); its sidecar is written next to it.
    #[arg(long, short = 'o', value_name = "OUT.glb")]
    pub out: PathBuf,
    /// Bake only this clip.
    #[arg(long, value_name = "NAME")]
    pub clip: Option<String>,
    /// Name the leg bones (rig-map syntax, inline or a file).
    #[arg(long, visible_alias = "rig-map", value_name = "ROLE=BONE,...|FILE")]
    pub map: Option<String>,
}

/// The carrier's channels of a baked clip: translation and rotation of the remainder.
fn carrier_channels(sampled: &crate::motion::Sampled, bone: usize, node: usize) -> Vec<NewChannel> {
    let (bones, frames) = (sampled.bones(), sampled.timeline.frames);
    let times: Vec<f32> = (0..frames).map(|f| sampled.timeline.time(f)).collect();
    let at = |f: usize| sampled.locals[f * bones + bone];
    let mut rotations: Vec<Vec4> = Vec::with_capacity(frames);
    for f in 0..frames {
        let q = Vec4::from(at(f).rotation);
        let flip = rotations.last().is_some_and(|p| p.dot(q) < 0.0);
        rotations.push(if flip { -q } else { q });
    }
    let translations = (0..frames).map(|f| at(f).translation.extend(0.0)).collect();
    vec![
        NewChannel { node, property: Property::Translation, times: times.clone(), values: translations },
        NewChannel { node, property: Property::Rotation, times, values: rotations },
    ]
}

/// Runs `ik_tool inplace` (see the module docs); returns the lines to print.
pub fn run(args: &InPlaceArgs) -> Result<String, ToolError> {
    let InPlaceArgs { input, out, clip, map } = args;
    if same_file(input, out) {
        return Err(ToolError::Input(format!(
            "{}: --out is the input file; write the clips in place to another file",
            input.display()
        )));
    }
    let shared = Shared { map: map.clone(), ..Default::default() };
    let (doc, legs, _, note) = open(input, &shared)?;
    let mut text = note.map(|n| n + "\n").unwrap_or_default();
    let (mut patches, mut baked) = (Vec::new(), Vec::new());
    for c in chosen(&doc, clip.as_deref())? {
        let sampled = sample_in_place(&doc, c, &legs)?;
        let Some(travel) = &sampled.travel else {
            text.push_str(&format!("{}: in place already; kept as it is\n", c.name));
            continue;
        };
        text.push_str(&format!("{}: {}; baked in place\n", c.name, travel.describe()));
        let record = crate::sidecar::root_motion_record(travel, true);
        let node = sampled.node_of_bone[travel.carrier];
        let extras = serde_json::value::to_raw_value(&record)
            .map_err(|e| ToolError::Format(format!("ik_root_motion note: {e}")))?;
        patches.push(AnimationPatch {
            animation: c.index,
            channels: carrier_channels(&sampled, travel.carrier, node),
            extras: Some(("ik_root_motion".into(), extras)),
        });
        baked.push((crate::sidecar::clip_name(&doc, c.index), record));
    }
    let bytes = patch(&doc, &patches)?;
    let written = gltf_read::parse(&out.display().to_string(), &bytes)
        .map_err(|e| ToolError::Format(format!("output check failed: {e}")))?;
    let sidecar = sidecar(&written, &legs, &shared, baked)?;
    let path = crate::mannequin::sidecar_path(out);
    write_output(out, bytes)?;
    write_output(&path, sidecar.to_json_text())?;
    text.push_str(&format!("wrote {}\nwrote {}", out.display(), path.display()));
    Ok(text)
}

/// The written file's sidecar (labelled like `contacts --json`), with the baked clips' records.
fn sidecar(
    written: &Document,
    legs: &Legs,
    shared: &Shared,
    baked: Vec<(String, RootMotion)>,
) -> Result<Sidecar, ToolError> {
    let labelled = super::label_doc(written, legs, None, shared, None)?;
    let mut sidecar = crate::sidecar::from_contacts(written, &labelled, &shared.contacts);
    for (name, record) in baked {
        if let Some(clip) = sidecar.clips.iter_mut().find(|c| c.name == name) {
            clip.root_motion = Some(record);
        }
    }
    Ok(sidecar)
}
