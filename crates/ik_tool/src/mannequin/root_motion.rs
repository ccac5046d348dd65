//! The mannequin with root motion: its locomotion clips travelling, as many user files come.
//!
//! Method: a post-process on a generated file (the mannequin, or any [`super::Convention`]),
//! so it follows however the in-place clips are authored. The file is read back; each clip
//! whose ground speed ([`crate::motion::root_motion`]: the clip's `nominal_speed`, else its
//! planted feet's backward speed) is at least [`MOVING`] gets that velocity added to one
//! bone's translation, frame by frame ([`crate::motion::add_travel`], in the bone's parent
//! frame): the *root* bone (the pelvis's top-most ancestor below the scene's top node, which
//! then travels with everything under it) or the *hips* themselves (no bone above them moves).
//! The carrier's translation channel is rewritten at the clip's frames ([`crate::gltf_patch`]);
//! the animation's `extras.ik_root_motion` records the carrier and speed. Idle and jump clips
//! stay in place; the sidecar (contact labels, frame for frame) is the in-place file's.
//!
//! Invariants: taking the travel out again ([`crate::travel`]) gives back the in-place clip;
//! a convention without a root bone refuses [`Carrier::Root`] with a message naming the remedy.

use std::path::{Path, PathBuf};

use crate::ToolError;
use crate::gltf_patch::{AnimationPatch, NewChannel, patch};
use crate::gltf_read::{self, Document, Property};
use crate::legs::{Legs, find_file_legs};
use crate::motion::{add_travel, root_motion, sample_clip};

/// Ground speed at and above which a clip is given root motion, m/s (walks and jogs, not
/// idles or jumps).
pub const MOVING: f32 = 0.3;

/// Which bone carries the travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Carrier {
    /// The root bone (the pelvis's top-most ancestor below the top node).
    Root,
    /// The hips (pelvis) bone; nothing above it moves.
    Hips,
}

impl Carrier {
    /// `root` or `hips`.
    pub fn name(self) -> &'static str {
        match self {
            Carrier::Root => "root",
            Carrier::Hips => "hips",
        }
    }
}

/// The bone (node index) that carries the travel, or why there is none.
fn carrier_node(doc: &Document, legs: &Legs, carrier: Carrier) -> Result<usize, ToolError> {
    if carrier == Carrier::Hips {
        return Ok(legs.pelvis);
    }
    let mut node = legs.pelvis;
    while let Some(parent) = doc.nodes[node].parent.filter(|&p| doc.nodes[p].parent.is_some()) {
        node = parent;
    }
    if node == legs.pelvis {
        return Err(doc.bad("the pelvis has no root bone above it; give --root-motion hips"));
    }
    Ok(node)
}

/// The carrier node, then the top-most nodes the clip translates that hang outside it and off
/// its ancestor chain (feet under a control bone when the hips carry the travel).
fn carried_nodes(doc: &Document, clip: &gltf_read::Clip, carrier: usize) -> Vec<usize> {
    let chain = |n: usize| core::iter::successors(Some(n), |&x| doc.nodes[x].parent);
    let ancestors: Vec<usize> = chain(carrier).skip(1).collect();
    let mut carried = vec![carrier];
    let translated = clip.channels.iter().filter(|c| c.property == Property::Translation).map(|c| c.node);
    let mut candidates: Vec<usize> = translated.filter(|n| !ancestors.contains(n)).collect();
    candidates.sort_by_key(|&n| chain(n).count());
    for n in candidates {
        if !chain(n).any(|x| carried.contains(&x)) {
            carried.push(n);
        }
    }
    carried
}

/// Adds root motion to every moving clip of the `.glb` `bytes` (see the module docs).
pub fn add_root_motion(label: &str, bytes: &[u8], carrier: Carrier) -> Result<Vec<u8>, ToolError> {
    let doc = gltf_read::parse(label, bytes)?;
    let legs = find_file_legs(&doc, None).map_err(|e| doc.bad(e))?;
    let node = carrier_node(&doc, &legs, carrier)?;
    let mut patches = Vec::new();
    for clip in &doc.clips {
        let ik = |e: ik_core::IkError| doc.bad(format!("animation \"{}\": {e}", clip.name));
        let mut sampled = sample_clip(&doc, clip);
        let motion = root_motion(&doc, clip, &sampled, &legs, None, None).map_err(ik)?;
        let speed = motion.velocity.length();
        if !motion.in_place || speed < MOVING {
            continue;
        }
        let (dt, bones, frames) = (1.0 / sampled.timeline.rate, sampled.bones(), sampled.timeline.frames);
        let times: Vec<f32> = (0..frames).map(|f| sampled.timeline.time(f)).collect();
        let mut channels = Vec::new();
        for carried in carried_nodes(&doc, clip, node) {
            let bone = sampled.bone_of_node[carried];
            add_travel(&sampled.parents, &mut sampled.locals, bone, motion.velocity, dt).map_err(ik)?;
            let values = (0..frames).map(|f| sampled.locals[f * bones + bone].translation.extend(0.0)).collect();
            channels.push(NewChannel { node: carried, property: Property::Translation, times: times.clone(), values });
        }
        let velocity = motion.velocity.to_array();
        let note = serde_json::json!({ "carrier": doc.nodes[node].name, "speed": speed, "velocity": velocity });
        let extras = serde_json::value::to_raw_value(&note).ok().map(|n| ("ik_root_motion".to_string(), n));
        patches.push(AnimationPatch { animation: clip.index, channels, extras });
    }
    patch(&doc, &patches)
}

/// Generates the mannequin (or the convention `name`) with root motion on `carrier` and writes
/// it to `out`, with the in-place file's sidecar next to it when it has one. Returns the paths.
pub fn write(out: &Path, convention: Option<&str>, carrier: Carrier) -> Result<Vec<PathBuf>, ToolError> {
    let (glb, sidecar) = match convention {
        None => {
            let m = super::generate()?;
            (m.glb, Some(m.sidecar))
        }
        Some(name) => {
            let preset = super::convention::find(name)
                .ok_or_else(|| ToolError::Input(format!("unknown convention `{name}`")))?;
            let asset = super::generate_convention(&preset)?;
            (asset.glb, asset.sidecar)
        }
    };
    let label = format!("the generated {}", convention.unwrap_or("mannequin"));
    let travelling = add_root_motion(&label, &glb, carrier)?;
    crate::cli::write_output(out, travelling)?;
    let mut written = vec![out.to_path_buf()];
    if let Some(text) = sidecar {
        let path = super::sidecar_path(out);
        crate::cli::write_output(&path, text)?;
        written.push(path);
    }
    Ok(written)
}

/// Default output path: `assets/root_motion/<convention or mannequin>_<carrier>.glb`.
pub fn default_out(convention: Option<&str>, carrier: Carrier) -> PathBuf {
    PathBuf::from(format!("assets/root_motion/{}_{}.glb", convention.unwrap_or("mannequin"), carrier.name()))
}
