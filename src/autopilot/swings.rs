//! How smoothly a swinging foot goes over the stairs: per swing, the largest change in one
//! frame of the foot's vertical correction (the placer's `FootStatus::offset`).
//!
//! Method: while the clip labels a foot off the ground and the body is on a flight of stairs,
//! the correction's change from the frame before is kept; when the foot lands, the swing's
//! largest change is recorded. A foot whose toe meets a nosing and is pushed up over it jumps
//! by most of a rise in a frame or two; one carried over the treads along its swing rises a
//! little every frame. Inputs: the clip's contact label and the correction per frame and foot.
//! Outputs: per pass, each swing's largest change and which way it stepped (up, down or level:
//! the ground under the foot where it landed against where it took off, more than
//! [`STEP_HEIGHT`] apart), their largest and median in [`SwingFigures::summary`]. Invariants: a
//! swing with no frame on stairs is not counted; the first frame of a swing has no change.

use std::collections::BTreeMap;

/// A swing whose landing ground is this much higher (lower) than its take-off's stepped up
/// (down), m.
pub const STEP_HEIGHT: f32 = 0.05;

/// Which way a swing stepped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    Up,
    Down,
    Level,
}

/// One foot's swing so far.
#[derive(Clone, Copy, Debug, Default)]
struct Swing {
    /// The correction last frame, while swinging.
    last: Option<f32>,
    /// The largest change in one frame on stairs so far, m.
    largest: Option<f32>,
    /// The height of the ground under the foot when it took off (world y).
    takeoff: Option<f32>,
}

/// Swinging feet over the stairs, per pass.
#[derive(Clone, Debug, Default)]
pub struct SwingFigures {
    /// Per foot, the swing under way.
    current: [Swing; 2],
    /// Per pass: each swing's largest one-frame change of the correction on stairs, m, and
    /// which way it stepped.
    pub stairs: BTreeMap<usize, Vec<(f32, Step)>>,
    /// Per foot, the ground height under it last frame (world y).
    ground: [Option<f32>; 2],
}

impl SwingFigures {
    /// Records one frame of one foot: `contact` as the clip labels it, the placer's vertical
    /// correction of the foot (`offset`, m), the height of the ground under it (world y, `None`
    /// without a hit), and whether the body is on stairs.
    pub fn record(
        &mut self,
        pass: usize,
        foot: usize,
        (contact, offset, ground, on_stairs): (bool, f32, Option<f32>, bool),
    ) {
        let (Some(swing), Some(last_ground)) = (self.current.get_mut(foot), self.ground.get_mut(foot)) else { return };
        let took_off = std::mem::replace(last_ground, ground);
        if contact {
            if let Some(largest) = swing.largest {
                let step = match (swing.takeoff, ground) {
                    (Some(from), Some(to)) if to > from + STEP_HEIGHT => Step::Up,
                    (Some(from), Some(to)) if to < from - STEP_HEIGHT => Step::Down,
                    _ => Step::Level,
                };
                self.stairs.entry(pass).or_default().push((largest, step));
            }
            *swing = Swing::default();
            return;
        }
        if swing.last.is_none() {
            swing.takeoff = took_off;
        }
        if let (Some(last), true, true) = (swing.last, on_stairs, offset.is_finite()) {
            let change = (offset - last).abs();
            swing.largest = Some(swing.largest.map_or(change, |l| l.max(change)));
        }
        swing.last = offset.is_finite().then_some(offset);
    }

    /// For `pass`, over its swings that stepped `step` (all with `None`): the largest of their
    /// largest changes, their median (m), and how many swings were measured; `None` without any.
    pub fn summary(&self, pass: usize, step: Option<Step>) -> Option<(f32, f32, usize)> {
        let mut changes: Vec<f32> =
            self.stairs.get(&pass)?.iter().filter(|(_, s)| step.is_none_or(|w| w == *s)).map(|(c, _)| *c).collect();
        changes.sort_by(f32::total_cmp);
        Some((*changes.last()?, changes[changes.len() / 2], changes.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swing_on_stairs_counts_its_largest_one_frame_change() {
        let mut figures = SwingFigures::default();
        // A swing rising 1 cm a frame, then pushed 12 cm up in one frame, then landing.
        // It took off from ground at 0 and lands on a tread 20 cm up.
        figures.record(1, 0, (true, 0.0, Some(0.0), true));
        for offset in [0.0, 0.01, 0.02, 0.14, 0.15] {
            figures.record(1, 0, (false, offset, Some(0.2), true));
        }
        figures.record(1, 0, (true, 0.15, Some(0.2), true));
        let (largest, median, n) = figures.summary(1, None).unwrap();
        assert!((largest - 0.12).abs() < 1e-6 && (median - 0.12).abs() < 1e-6 && n == 1);
        assert_eq!(figures.summary(1, Some(Step::Up)).map(|s| s.2), Some(1));
        // A smooth one stepping down: the median moves, the largest stays.
        figures.record(1, 1, (true, 0.0, Some(0.2), true));
        for offset in [0.0, 0.02, 0.04] {
            figures.record(1, 1, (false, offset, Some(0.2), true));
        }
        figures.record(1, 1, (true, 0.04, Some(0.0), true));
        let (largest, _, n) = figures.summary(1, None).unwrap();
        assert!((largest - 0.12).abs() < 1e-6 && n == 2);
        let (down, _, n) = figures.summary(1, Some(Step::Down)).unwrap();
        assert!((down - 0.02).abs() < 1e-6 && n == 1);
        assert_eq!(figures.summary(1, Some(Step::Level)), None);
        // A swing off the stairs is not counted.
        for offset in [0.0, 0.3] {
            figures.record(1, 0, (false, offset, None, false));
        }
        figures.record(1, 0, (true, 0.3, None, false));
        assert_eq!(figures.summary(1, None).unwrap().2, 2);
    }
}
