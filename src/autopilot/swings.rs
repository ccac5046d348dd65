//! How smoothly a swinging foot goes over the stairs: per swing, the largest change in one
//! frame of the foot's vertical correction (the placer's `FootStatus::offset`).
//!
//! Method: while the clip labels a foot off the ground and the body is on a flight of stairs,
//! the correction's change from the frame before is kept; when the foot lands, the swing's
//! largest change is recorded. A foot whose toe meets a nosing and is pushed up over it jumps
//! by most of a rise in a frame or two; one carried over the treads along its swing rises a
//! little every frame. Inputs: the clip's contact label and the correction per frame and foot.
//! Outputs: per pass, each swing's largest change (their largest and median in
//! [`SwingFigures::summary`]). Invariants: a swing with no frame on stairs is not counted; the
//! first frame of a swing has no change.

use std::collections::BTreeMap;

/// One foot's swing so far.
#[derive(Clone, Copy, Debug, Default)]
struct Swing {
    /// The correction last frame, while swinging.
    last: Option<f32>,
    /// The largest change in one frame on stairs so far, m.
    largest: Option<f32>,
}

/// Swinging feet over the stairs, per pass.
#[derive(Clone, Debug, Default)]
pub struct SwingFigures {
    /// Per foot, the swing under way.
    current: [Swing; 2],
    /// Per pass: each swing's largest one-frame change of the correction on stairs, m.
    pub stairs: BTreeMap<usize, Vec<f32>>,
}

impl SwingFigures {
    /// Records one frame of one foot: `contact` as the clip labels it, the placer's vertical
    /// correction of the foot (`offset`, m), and whether the body is on stairs.
    pub fn record(&mut self, pass: usize, foot: usize, (contact, offset, on_stairs): (bool, f32, bool)) {
        let Some(swing) = self.current.get_mut(foot) else { return };
        if contact {
            if let Some(largest) = swing.largest {
                self.stairs.entry(pass).or_default().push(largest);
            }
            *swing = Swing::default();
            return;
        }
        if let (Some(last), true, true) = (swing.last, on_stairs, offset.is_finite()) {
            let change = (offset - last).abs();
            swing.largest = Some(swing.largest.map_or(change, |l| l.max(change)));
        }
        swing.last = offset.is_finite().then_some(offset);
    }

    /// For `pass`: the largest of the swings' largest changes, their median (m), and how many
    /// swings were measured; `None` without any.
    pub fn summary(&self, pass: usize) -> Option<(f32, f32, usize)> {
        let mut changes = self.stairs.get(&pass)?.clone();
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
        for offset in [0.0, 0.01, 0.02, 0.14, 0.15] {
            figures.record(1, 0, (false, offset, true));
        }
        figures.record(1, 0, (true, 0.15, true));
        let (largest, median, n) = figures.summary(1).unwrap();
        assert!((largest - 0.12).abs() < 1e-6 && (median - 0.12).abs() < 1e-6 && n == 1);
        // A smooth one: the median moves, the largest stays.
        for offset in [0.0, 0.02, 0.04] {
            figures.record(1, 1, (false, offset, true));
        }
        figures.record(1, 1, (true, 0.04, true));
        let (largest, _, n) = figures.summary(1).unwrap();
        assert!((largest - 0.12).abs() < 1e-6 && n == 2);
        // A swing off the stairs is not counted.
        for offset in [0.0, 0.3] {
            figures.record(1, 0, (false, offset, false));
        }
        figures.record(1, 0, (true, 0.3, false));
        assert_eq!(figures.summary(1).unwrap().2, 2);
    }
}
