//! Figures the autopilot keeps per pass: the pelvis over the 20 cm stairs, slope warping per
//! ramp, and the look-at and hand-reach bars.

use bevy::prelude::*;

/// The pelvis over the 20 cm stairs in one pass: how low it came against the ground the
/// planted feet stand on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StairPelvis {
    /// Lowest pelvis height above the stance ground (the lowest tread a planted foot is on), m.
    pub lowest: f32,
    /// Where that was (x, z).
    pub at: Vec2,
    /// Frames measured.
    pub frames: u32,
}

/// Slope warping on one ramp in one pass: the worst feet and the lean going up and down.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlopeFigures {
    /// Deepest penetration, m.
    pub penetration: f32,
    /// Highest planted float, m.
    pub float: f32,
    /// Most forward lean (going up), radians.
    pub lean_up: f32,
    /// Most backward lean (going down), radians (≤ 0).
    pub lean_down: f32,
    /// Steepest slope seen along the movement, up and down, radians.
    pub slope: (f32, f32),
    /// Frames measured.
    pub frames: u32,
}

/// The natural-default bars: how far the look-at turned against its limit, and where the
/// hand reached, over the autopilot route.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gaze {
    /// Largest total turn of the look-at (the last joint's), radians.
    pub max_turn: f32,
    /// The look-at's configured total limit (sum of its joints' limits), radians.
    pub limit: f32,
    /// Frames the look-at was solved on.
    pub look_frames: u32,
    /// Largest downward turn taken by the spine's own joints (those below the neck), radians.
    pub spine_down: f32,
    /// Frames the look-at turned downward.
    pub down_frames: u32,
    /// Widest bearing (about the vertical, from the character's root) of the orb from the
    /// character's forward while the hand reached for it (its fade on), radians.
    pub widest_reach: f32,
    /// Frames the hand reached.
    pub reach_frames: u32,
    /// Frames the hand was fading out (letting go of a target that left the cone).
    pub letting_go_frames: u32,
}

/// How the printed `bar:` lines came out, counted as they print, so a headless run's exit
/// status says the worst of them ([`BarCount::exit`]).
///
/// ```ignore
/// let mut bars = BarCount::default();
/// println!("bar: x 0.4 cm (<= 1 cm: {})", bars.verdict(true, 0.4 <= 1.0, "NOT measured"));
/// assert_eq!(bars.exit(), AppExit::Success);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BarCount {
    /// Bars measured and NOT met.
    pub missed: u32,
    /// Bars that could not be measured.
    pub unmeasured: u32,
}

impl BarCount {
    /// Counts one bar; returns its verdict: `not_measured` when it could not be measured, else
    /// "met" or "NOT met".
    pub fn verdict(&mut self, measured: bool, met: bool, not_measured: &'static str) -> &'static str {
        match (measured, met) {
            (false, _) => {
                self.unmeasured += 1;
                not_measured
            }
            (true, true) => "met",
            (true, false) => {
                self.missed += 1;
                "NOT met"
            }
        }
    }

    /// Counts a bar printed as not measured.
    pub fn not_measured(&mut self) {
        self.unmeasured += 1;
    }

    /// The headless exit status: 0 when every bar was met, 1 when one could not be measured
    /// (and none was missed), 3 when one was measured and NOT met.
    pub fn exit(&self) -> AppExit {
        match (self.missed, self.unmeasured) {
            (0, 0) => AppExit::Success,
            (0, _) => AppExit::from_code(1),
            _ => AppExit::from_code(3),
        }
    }
}

/// One pass's IK configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassConfig {
    /// Foot placement on.
    pub foot_ik: bool,
    /// Foot locking on.
    pub foot_lock: bool,
}

impl PassConfig {
    /// Column label.
    pub fn label(self) -> &'static str {
        match (self.foot_ik, self.foot_lock) {
            (false, _) => "IK off",
            (true, false) => "IK on",
            (true, true) => "IK+lock",
        }
    }
}

/// The three passes, in order.
pub const PASSES: [PassConfig; 3] = [
    PassConfig { foot_ik: false, foot_lock: false },
    PassConfig { foot_ik: true, foot_lock: false },
    PassConfig { foot_ik: true, foot_lock: true },
];

/// Maxima for one (pass, section, foot).
#[derive(Clone, Copy, Debug, Default)]
pub struct Maxima {
    /// Deepest penetration, m.
    pub penetration: f32,
    /// Highest planted float, m.
    pub float: f32,
    /// Largest toe slide in one contact, m.
    pub slide: f32,
    /// Frames measured.
    pub frames: u32,
    /// Contacts ended here.
    pub contacts: u32,
    /// Deepest penetration while the foot swings (the clip labels it off the ground), m.
    pub swing_penetration: f32,
    /// Largest share of a planted foot's sole over a drop (see
    /// [`FootFigures::overhang`](crate::metrics::FootFigures::overhang)), 0–1.
    pub overhang: f32,
}

impl Default for StairPelvis {
    fn default() -> Self {
        StairPelvis { lowest: f32::INFINITY, at: Vec2::ZERO, frames: 0 }
    }
}

/// The staircase whose pelvis drop is a goal (its rise, m).
pub const GOAL_STAIR_RISE: f32 = 0.20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_status_says_the_worst_verdict() {
        let mut bars = BarCount::default();
        assert_eq!(bars.verdict(true, true, "n/a"), "met");
        assert_eq!(bars.exit(), AppExit::Success);
        assert_eq!(bars.verdict(false, true, "NOT measured"), "NOT measured");
        assert_eq!(bars.exit(), AppExit::from_code(1));
        assert_eq!(bars.verdict(true, false, "n/a"), "NOT met");
        bars.not_measured();
        assert_eq!(bars, BarCount { missed: 1, unmeasured: 2 });
        assert_eq!(bars.exit(), AppExit::from_code(3));
    }
}
