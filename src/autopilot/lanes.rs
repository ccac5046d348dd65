//! The autopilot's figures on lane D: planted feet over the moving platforms, and planted feet
//! under the board hanging over the floor (issue 17's platform and overhang bars).
//!
//! Method: every walking frame, after the feet are measured, [`LaneFigures::record`] folds each
//! foot's [`LaneMetrics`] (its slide over the platform it is planted on, added up over the
//! contact) and, under the board, its [`FootMetrics`] gap to the true floor (the board is not
//! floor to those rays) into maxima per pass. [`LaneFigures::print`] prints them as `bar:`
//! lines (met on every character the demo tests walk): the platforms with foot locking off and
//! on (the bar is on), the board with foot IK on.
//! Invariants: a figure not measured in the passes it needs prints "NOT measured" and makes
//! `print` return false (the headless run then exits non-zero).

use std::collections::BTreeMap;

use super::figures::{BarCount, PASSES};
use crate::course_lanes::{OVERHANG_SPAN, PlatformKind};
use crate::lane_metrics::LaneMetrics;
use crate::metrics::FootMetrics;

/// The pass with foot IK on and locking off, and the one with locking on.
const LOCK_OFF: usize = 1;
const LOCK_ON: usize = 2;
/// What a planted foot may slide over its platform in one contact, m.
pub const GOAL_SLIDE: f32 = 0.01;
/// How high above the floor a planted foot under the board may be, m.
pub const GOAL_UNDER_OVERHANG: f32 = 0.01;

/// One platform in one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlatformFigures {
    /// Largest slide over the platform in one contact, m.
    pub slide: f32,
    /// … of the contacts that began with the whole sole over the platform, m.
    pub inside: f32,
    /// … of the contacts that began across its edge (heel or toe tip off it), m.
    pub across: f32,
    /// Contacts planted on it.
    pub contacts: u32,
    /// Of those, the contacts that began across its edge.
    pub across_contacts: u32,
    /// Planted frames on it.
    pub frames: u32,
}

/// Under the board in one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OverhangFigures {
    /// Highest a planted foot's lowest sole point came above the floor under it, m.
    pub highest: f32,
    /// Planted frames under it.
    pub frames: u32,
}

/// Lane D's figures per pass.
#[derive(Clone, Debug, Default)]
pub struct LaneFigures {
    /// Per (pass, platform).
    pub platforms: BTreeMap<(usize, PlatformKind), PlatformFigures>,
    /// Per pass.
    pub overhang: BTreeMap<usize, OverhangFigures>,
}

impl LaneFigures {
    /// Folds one frame of one character's feet into `pass`'s figures.
    pub fn record(&mut self, pass: usize, feet: &FootMetrics, lanes: &LaneMetrics) {
        for (foot, lane) in feet.feet.iter().zip(&lanes.feet) {
            if let Some((kind, slide)) = lane.riding {
                let p = self.platforms.entry((pass, kind)).or_default();
                p.frames += 1;
                p.slide = p.slide.max(slide);
                let worst = if lane.across_edge { &mut p.across } else { &mut p.inside };
                *worst = worst.max(slide);
                p.contacts += u32::from(lane.contact_started);
                p.across_contacts += u32::from(lane.contact_started && lane.across_edge);
            }
            if lane.under_overhang && foot.contact && foot.measured {
                let o = self.overhang.entry(pass).or_default();
                o.frames += 1;
                o.highest = o.highest.max(foot.gap.max(0.0));
            }
        }
    }

    /// Prints the bar lines, counting their verdicts in `bars`.
    pub fn print(&self, bars: &mut BarCount) {
        for kind in PlatformKind::ALL {
            let get = |pass: usize| self.platforms.get(&(pass, kind)).copied().filter(|p| p.contacts > 0);
            let off = get(LOCK_OFF).map_or("(not walked)".to_string(), |p| format!("{:.2} cm", p.slide * 100.0));
            let Some(on) = get(LOCK_ON) else {
                bars.not_measured();
                println!(
                    "bar: planted feet on the {}: NOT measured (no contact planted on it with foot locking on)",
                    kind.label()
                );
                continue;
            };
            println!(
                "bar: planted feet on the {}: largest slide over it in one contact {off} locking off -> {:.2} cm \
                 locking on, over {} contacts ({} landed across its edge: worst {:.2} cm; the others {:.2} cm) \
                 (<= {:.0} cm: {})",
                kind.label(),
                on.slide * 100.0,
                on.contacts,
                on.across_contacts,
                on.across * 100.0,
                on.inside * 100.0,
                GOAL_SLIDE * 100.0,
                bars.verdict(true, on.slide <= GOAL_SLIDE, "NOT measured")
            );
        }
        let ik_passes: Vec<OverhangFigures> =
            (LOCK_OFF..PASSES.len()).filter_map(|pass| self.overhang.get(&pass).copied()).collect();
        let (under, top) = OVERHANG_SPAN;
        let board = format!("a board {:.0}-{:.0} cm over lane D", under * 100.0, top * 100.0);
        if ik_passes.len() != PASSES.len() - LOCK_OFF || ik_passes.iter().any(|o| o.frames == 0) {
            println!("bar: overhang ({board}): NOT measured (no planted foot under it in both foot IK passes)");
            bars.not_measured();
            return;
        }
        let highest = ik_passes.iter().map(|o| o.highest).fold(0.0f32, f32::max);
        let frames: u32 = ik_passes.iter().map(|o| o.frames).sum();
        let off = self.overhang.get(&0).map_or(String::new(), |o| format!(" (IK off: {:.2} cm)", o.highest * 100.0));
        println!(
            "bar: overhang ({board}; the feet's rays see it, the body passes through): highest planted foot above the \
             floor under it, foot IK on: {:.2} cm{off} over {frames} frames (<= {:.0} cm, not onto its top: {})",
            highest * 100.0,
            GOAL_UNDER_OVERHANG * 100.0,
            bars.verdict(true, highest <= GOAL_UNDER_OVERHANG, "NOT measured")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane_metrics::LaneFoot;
    use crate::metrics::FootFigures;

    #[test]
    fn figures_keep_the_worst_contact_and_only_planted_feet_under_the_board() {
        let mut figures = LaneFigures::default();
        let planted = FootFigures { contact: true, measured: true, gap: 0.004, ..Default::default() };
        let swinging = FootFigures { contact: false, measured: true, gap: 0.3, ..Default::default() };
        let feet = FootMetrics { feet: [planted, swinging] };
        let riding = |slide: f32, started: bool, across_edge: bool| LaneFoot {
            riding: Some((PlatformKind::Sliding, slide)),
            contact_started: started,
            across_edge,
            under_overhang: true,
            ..Default::default()
        };
        // Two contacts of the left foot: one landed across the edge (5 mm), one inside (1 mm).
        for (slide, started, across) in
            [(0.0, true, true), (0.002, false, true), (0.005, false, true), (0.0, true, false), (0.001, false, false)]
        {
            let lanes = LaneMetrics {
                feet: [riding(slide, started, across), LaneFoot { under_overhang: true, ..riding(0.0, false, false) }],
            };
            figures.record(LOCK_ON, &feet, &lanes);
        }
        let p = figures.platforms[&(LOCK_ON, PlatformKind::Sliding)];
        assert_eq!((p.contacts, p.across_contacts, p.frames), (2, 1, 10));
        assert!((p.slide - 0.005).abs() < 1e-7 && (p.across - 0.005).abs() < 1e-7 && (p.inside - 0.001).abs() < 1e-7);
        assert!(!figures.platforms.contains_key(&(LOCK_ON, PlatformKind::Turning)));
        // The swinging foot, 30 cm up under the board, is not a foot raised onto it.
        let o = figures.overhang[&LOCK_ON];
        assert_eq!(o.frames, 5);
        assert!((o.highest - 0.004).abs() < 1e-7);
        // Not walked in the lock-off pass nor on the disc: not measured; the slider's met.
        let mut bars = BarCount::default();
        figures.print(&mut bars);
        assert_eq!(bars, BarCount { missed: 0, unmeasured: 2 });
    }
}
