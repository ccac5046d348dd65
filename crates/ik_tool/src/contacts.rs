//! `ik_tool contacts`: contact labels of a clip's feet, as a summary, JSON and a plot.
//!
//! Method: for each chosen clip, [`crate::motion`] samples it, finds how fast the character
//! travels and labels both feet; this module turns the labels into a per-foot summary line
//! (contact frames, spans, height and speed ranges, agreement with labels stored in the file's
//! `extras` or its `.ik.json` sidecar when there are any) and into JSON.
//!
//! JSON (`--json`): the demo's sidecar format, [`crate::sidecar::Sidecar`] (per clip
//! `nominal_speed`, `duration`, `frame_rate`, `frame_count`, `contacts: { foot_l, foot_r }` and
//! the measures behind the labels under `diagnostics`); see `docs/sidecar.md`.
//!
//! Invariants: nothing is written here.

use crate::gltf_read::{Clip, Document};
use crate::motion::{FootContacts, RootMotion, Sampled, span_count};
use serde_json::Value;

/// Everything labelled for one clip.
#[derive(Clone, Debug)]
pub struct ClipContacts {
    /// Clip name.
    pub clip: String,
    /// Index of the clip among the file's animations.
    pub index: usize,
    /// The sampled clip.
    pub sampled: Sampled,
    /// How fast it travels.
    pub motion: RootMotion,
    /// `[left, right]`.
    pub feet: [FootContacts; 2],
}

fn range(values: &[f32]) -> (f32, f32) {
    values.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)))
}

/// Labels stored in the file for this clip and foot (animation `extras.contacts`, else the
/// sidecar's; keyed `foot_l` / `foot_r` or by the foot bone's name `key`), when they have one
/// entry per frame.
pub fn stored_labels(
    doc: &Document,
    clip: &Clip,
    sidecar: Option<&Value>,
    (side, key): (&str, &str),
    frames: usize,
) -> Option<Vec<bool>> {
    let extras = doc.animation_extras(clip.index);
    let from = |meta: Option<&Value>| -> Option<Vec<bool>> {
        let contacts = meta?.get("contacts")?;
        let list = contacts.get(side).or_else(|| contacts.get(key))?.as_array()?;
        let labels: Vec<bool> = list.iter().filter_map(Value::as_bool).collect();
        (labels.len() == frames && list.len() == frames).then_some(labels)
    };
    from(extras.as_ref()).or_else(|| from(sidecar.and_then(|s| s.get(&clip.name))))
}

/// The summary lines of one clip.
pub fn summary(doc: &Document, clip: &Clip, sidecar: Option<&Value>, c: &ClipContacts) -> String {
    let t = &c.sampled.timeline;
    let mut out = format!(
        "{}: {} frames at {:.0} Hz{}{}, travelling at {:.2} m/s (from {}); floor at y = {:.3} m\n",
        c.clip,
        t.frames,
        t.rate,
        if t.resampled { format!(" (resampled with cubics from {:.0} Hz)", t.source_rate) } else { String::new() },
        if c.sampled.looping { ", looping" } else { "" },
        c.motion.velocity.length(),
        c.motion.source,
        (c.feet[0].floor * 1000.0).round() / 1000.0 + 0.0,
    );
    if let Some(travel) = &c.sampled.travel {
        out.push_str(&format!("  {}\n", travel.describe()));
    }
    for foot in &c.feet {
        let count = foot.contacts.iter().filter(|&&x| x).count();
        let (h0, h1) = range(&foot.toe_height);
        let (s0, s1) = range(&foot.toe_speed);
        out.push_str(&format!(
            "  {} ({}): {} contact frames ({:.0} %) in {} span(s); {} height {}–{} cm, speed {}–{} m/s",
            foot.side,
            foot.key,
            count,
            100.0 * count as f32 / t.frames.max(1) as f32,
            span_count(&foot.contacts, c.sampled.looping),
            if foot.ball { "ball" } else { "sole (estimated)" },
            crate::clean::fixed(100.0 * h0, 1),
            crate::clean::fixed(100.0 * h1, 1),
            crate::clean::fixed(s0, 2),
            crate::clean::fixed(s1, 2),
        ));
        let side = if foot.side == "left" { "foot_l" } else { "foot_r" };
        if let Some(stored) = stored_labels(doc, clip, sidecar, (side, &foot.key), t.frames) {
            let same = stored.iter().zip(&foot.contacts).filter(|(a, b)| a == b).count();
            out.push_str(&format!("; matches the file's labels on {same}/{} frames", t.frames));
        }
        out.push('\n');
    }
    out
}
