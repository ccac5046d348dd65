//! `ik_tool contacts`: contact labels of a clip's feet, as a summary, JSON and a plot.
//!
//! Method: for each chosen clip, [`crate::motion`] samples it, finds how fast the character
//! travels and labels both feet; this module turns the labels into a per-foot summary line
//! (contact frames, spans, height and speed ranges, agreement with labels stored in the file's
//! `extras` or its `.ik.json` sidecar when there are any) and into JSON.
//!
//! JSON (`--json`): an object from clip name to
//! `{ frame_rate, frame_count, start, root_speed, root_speed_source, looping, resampled, floor,
//!    settings: { velocity_threshold, height_threshold, vote_window, smooth },
//!    contacts: { <foot bone>: [bool] }, signal: { <foot bone>: [0..1] },
//!    toe_height: { <foot bone>: [m] }, toe_speed: { <foot bone>: [m/s] } }`,
//! the same shape as the mannequin's sidecar (`contacts` keyed by foot bone name, one label per
//! frame), so it can stand in for one.
//!
//! Invariants: nothing is written here; every number in the JSON is finite.

use crate::gltf_read::{Clip, Document};
use crate::json::Json;
use crate::motion::{ContactOptions, FootContacts, RootMotion, Sampled};

/// Everything labelled for one clip.
#[derive(Clone, Debug)]
pub struct ClipContacts {
    /// Clip name.
    pub clip: String,
    /// The sampled clip.
    pub sampled: Sampled,
    /// How fast it travels.
    pub motion: RootMotion,
    /// `[left, right]`.
    pub feet: [FootContacts; 2],
}

fn spans(labels: &[bool]) -> usize {
    labels.iter().enumerate().filter(|&(i, &c)| c && (i == 0 || !labels[i - 1])).count()
}

fn range(values: &[f32]) -> (f32, f32) {
    values.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)))
}

/// Labels stored in the file for this clip and foot (animation `extras.contacts`, else the
/// sidecar's), when they have one entry per frame.
pub fn stored_labels(
    doc: &Document,
    clip: &Clip,
    sidecar: Option<&Json>,
    key: &str,
    frames: usize,
) -> Option<Vec<bool>> {
    let extras = doc
        .json
        .get("animations")
        .and_then(Json::as_array)
        .and_then(|a| a.get(clip.index))
        .and_then(|a| a.get("extras"));
    let from = |meta: Option<&Json>| -> Option<Vec<bool>> {
        let list = meta?.get("contacts")?.get(key)?.as_array()?;
        let labels: Vec<bool> = list.iter().filter_map(Json::as_bool).collect();
        (labels.len() == frames && list.len() == frames).then_some(labels)
    };
    from(extras).or_else(|| from(sidecar.and_then(|s| s.get(&clip.name))))
}

/// The summary lines of one clip.
pub fn summary(doc: &Document, clip: &Clip, sidecar: Option<&Json>, c: &ClipContacts) -> String {
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
    for foot in &c.feet {
        let count = foot.contacts.iter().filter(|&&x| x).count();
        let (h0, h1) = range(&foot.toe_height);
        let (s0, s1) = range(&foot.toe_speed);
        out.push_str(&format!(
            "  {} ({}): {} contact frames ({:.0} %) in {} span(s); ball height {:.1}–{:.1} cm, speed {:.2}–{:.2} m/s",
            foot.side,
            foot.key,
            count,
            100.0 * count as f32 / t.frames.max(1) as f32,
            spans(&foot.contacts),
            100.0 * h0,
            100.0 * h1,
            s0,
            s1,
        ));
        if let Some(stored) = stored_labels(doc, clip, sidecar, &foot.key, t.frames) {
            let same = stored.iter().zip(&foot.contacts).filter(|(a, b)| a == b).count();
            out.push_str(&format!("; matches the file's labels on {same}/{} frames", t.frames));
        }
        out.push('\n');
    }
    out
}

fn per_foot(feet: &[FootContacts; 2], value: impl Fn(&FootContacts) -> Json) -> Json {
    Json::Obj(feet.iter().map(|f| (f.key.clone(), value(f))).collect())
}

/// The JSON object of one clip (see the module docs).
pub fn clip_json(c: &ClipContacts, options: &ContactOptions) -> Json {
    let t = &c.sampled.timeline;
    let settings = Json::obj()
        .with("velocity_threshold", options.settings.velocity_threshold)
        .with("height_threshold", options.settings.height_threshold)
        .with("vote_window", options.settings.vote_window)
        .with("smooth", options.smooth);
    Json::obj()
        .with("frame_rate", t.rate)
        .with("frame_count", t.frames)
        .with("start", t.start)
        .with("root_speed", c.motion.velocity.length())
        .with("root_speed_source", c.motion.source.as_str())
        .with("looping", c.sampled.looping)
        .with("resampled", t.resampled)
        .with("floor", c.feet[0].floor)
        .with("settings", settings)
        .with("contacts", per_foot(&c.feet, |f| Json::from(f.contacts.clone())))
        .with("signal", per_foot(&c.feet, |f| Json::from(f.signal.clone())))
        .with("toe_height", per_foot(&c.feet, |f| Json::from(f.toe_height.clone())))
        .with("toe_speed", per_foot(&c.feet, |f| Json::from(f.toe_speed.clone())))
}
