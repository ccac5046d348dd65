//! How a retargeted clip's planted feet stand: the check `retarget` prints.
//!
//! Method: during each of the *source's* stances (its contact labels, frame for frame), the
//! target's contact point (ball, else the estimated sole) is followed in the travelling frame:
//! its height above the target foot's floor ([`crate::motion::FootContacts::toe_height`]), and
//! its drift (distance from where it stood on the stance's first frame). The target clip's own
//! labels are matched against the source's: the same number of stances, and how far apart
//! their ends are.
//!
//! Inputs: the written target clip, labelled ([`ClipContacts`]), its legs and the source's
//! labels. Outputs: [`StanceCheck`] per foot, and a line for the summary.
//!
//! Invariants: frames past the shorter of the two clips are not compared; a foot with no
//! source stance has zero figures.

use ik_core::IkError;

use crate::contacts::ClipContacts;
use crate::gltf_read::Document;
use crate::legs::Legs;
use crate::motion::{contact_points, world_frames};

/// One foot's figures over the source's stances.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StanceCheck {
    /// Source stances (contact spans).
    pub stances: usize,
    /// Lowest and highest contact point above the target foot's floor during them, m.
    pub height: [f32; 2],
    /// Largest distance from the stance's first frame, m.
    pub drift: f32,
    /// Stances the target clip's own labels find.
    pub found: usize,
    /// Largest distance between a source stance's start or end and the target's, frames
    /// (`usize::MAX` when the counts differ).
    pub ends: usize,
}

/// Contact spans of `labels`, `(first, past_last)` frames (a loop's wrap not joined).
pub fn spans(labels: &[bool]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (f, &c) in labels.iter().chain([&false]).enumerate() {
        match (c, start) {
            (true, None) => start = Some(f),
            (false, Some(s)) => {
                out.push((s, f));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The figures of both feet of `clip` (the written target clip) over `source` labels.
pub fn check(
    doc: &Document,
    legs: &Legs,
    clip: &ClipContacts,
    source: &[Vec<bool>; 2],
) -> Result<[StanceCheck; 2], IkError> {
    let sampled = &clip.sampled;
    let bones = sampled.bones();
    let frames = sampled.timeline.frames;
    let points = contact_points(doc, sampled, legs)?;
    let top = sampled.top_of(sampled.bone_of_node[legs.pelvis]);
    let dt = 1.0 / sampled.timeline.rate;
    let world = world_frames(&sampled.parents, &sampled.locals, dt, top, clip.motion.added_velocity(1.0))?;
    Ok([0, 1].map(|k| {
        let foot = &clip.feet[k];
        let theirs = spans(&source[k]);
        let mut out =
            StanceCheck { stances: theirs.len(), height: [f32::INFINITY, f32::NEG_INFINITY], ..Default::default() };
        for &(a, b) in &theirs {
            let start = points[k].at(&world, bones, a.min(frames.saturating_sub(1)));
            for f in a..b.min(frames) {
                let h = foot.toe_height.get(f).copied().unwrap_or(0.0);
                out.height = [out.height[0].min(h), out.height[1].max(h)];
                out.drift = out.drift.max(points[k].at(&world, bones, f).distance(start));
            }
        }
        if theirs.is_empty() {
            out.height = [0.0, 0.0];
        }
        let own = spans(&foot.contacts);
        out.found = own.len();
        out.ends = if own.len() == theirs.len() {
            own.iter().zip(&theirs).map(|(x, y)| x.0.abs_diff(y.0).max(x.1.abs_diff(y.1))).max().unwrap_or(0)
        } else {
            usize::MAX
        };
        out
    }))
}

/// One line per foot for the summary: the target's figures, the source's in brackets.
pub fn describe(checks: &[StanceCheck; 2], source: &[StanceCheck; 2]) -> String {
    let cm = |x: f32| crate::clean::fixed(100.0 * x, 2);
    let line = |side: &str, c: &StanceCheck, s: &StanceCheck| {
        let ends =
            if c.ends == usize::MAX { "counts differ".to_string() } else { format!("ends within {} frames", c.ends) };
        format!(
            "  {side} foot, during the source's {} stances: planted point {}–{} cm above its floor (source {}–{}), \
             drift up to {} cm (source {}); its own labels find {} ({ends})\n",
            c.stances,
            cm(c.height[0]),
            cm(c.height[1]),
            cm(s.height[0]),
            cm(s.height[1]),
            cm(c.drift),
            cm(s.drift),
            c.found,
        )
    };
    line("left", &checks[0], &source[0]) + &line("right", &checks[1], &source[1])
}
