//! How a retargeted clip's planted feet stand: the check `retarget` prints.
//!
//! Method: during each of the *source's* stances (its contact labels, frame for frame), the
//! target's contact point (ball, else the estimated sole) is followed in the travelling frame:
//! its height above the target foot's floor ([`crate::motion::FootContacts::toe_height`]), and
//! its drift (distance from where it stood on the stance's first frame). The target clip's own
//! labels are matched against the source's: the same number of stances, and how far apart
//! their ends are (round the cycle for a looping clip, whose stance across the seam is one).
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

/// Contact spans of `labels`, `(first, past_last)` frames. With `looping` (the last frame
/// repeats the first) the last frame is left out and a span across the seam is one, its
/// `past_last` wrapped round (`past_last <= first`); a cycle all in contact is `(0, cycle)`.
///
/// ```
/// use ik_tool::stance::spans;
/// let labels = [true, true, false, false, true, true];
/// assert_eq!(spans(&labels, false), [(0, 2), (4, 6)]);
/// // Looping: frame 5 repeats frame 0, so frames 4 and 0–1 are one stance.
/// assert_eq!(spans(&labels, true), [(4, 2)]);
/// ```
pub fn spans(labels: &[bool], looping: bool) -> Vec<(usize, usize)> {
    let cycle = if looping && labels.len() > 2 { labels.len() - 1 } else { labels.len() };
    let at = |i: usize| labels[i % cycle];
    if cycle == 0 || (0..cycle).all(at) {
        return if cycle > 0 { vec![(0, cycle)] } else { Vec::new() };
    }
    let joined = looping && cycle < labels.len();
    let starts = (0..cycle).filter(|&i| at(i) && if i == 0 { !joined || !at(cycle - 1) } else { !at(i - 1) });
    starts
        .map(|s| {
            let mut end = s + 1;
            while (joined || end < cycle) && at(end) {
                end += 1;
            }
            (s, if joined { end % cycle } else { end })
        })
        .collect()
}

/// How many frames apart two frame numbers are, round the cycle (`cycle` frames) when given.
pub fn frames_apart(a: usize, b: usize, cycle: Option<usize>) -> usize {
    let d = a.abs_diff(b);
    cycle.map_or(d, |c| d.min(c.saturating_sub(d)))
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
    let looping = sampled.looping && frames > 2;
    let cycle = if looping { frames - 1 } else { frames.max(1) };
    Ok([0, 1].map(|k| {
        let foot = &clip.feet[k];
        let theirs = spans(&source[k], looping);
        let mut out =
            StanceCheck { stances: theirs.len(), height: [f32::INFINITY, f32::NEG_INFINITY], ..Default::default() };
        for &(a, b) in &theirs {
            let length = if b > a { b - a } else { b + cycle - a };
            // Past the seam a loop's frames are a cycle on: moved by its travel.
            let at = |f: usize| points[k].at(&world, bones, f.min(frames.saturating_sub(1)));
            let lap = if looping { at(frames - 1) - at(0) } else { glam::Vec3::ZERO };
            let start = at(a);
            for i in a..a + length {
                let (f, moved) = if i >= cycle { (i - cycle, lap) } else { (i, glam::Vec3::ZERO) };
                let h = foot.toe_height.get(f).copied().unwrap_or(0.0);
                out.height = [out.height[0].min(h), out.height[1].max(h)];
                out.drift = out.drift.max((at(f) + moved).distance(start));
            }
        }
        if theirs.is_empty() {
            out.height = [0.0, 0.0];
        }
        let own = spans(&foot.contacts, looping);
        out.found = own.len();
        let apart = |x: usize, y: usize| frames_apart(x, y, looping.then_some(cycle));
        out.ends = if own.len() == theirs.len() {
            own.iter().zip(&theirs).map(|(x, y)| apart(x.0, y.0).max(apart(x.1, y.1))).max().unwrap_or(0)
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
