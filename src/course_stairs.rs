//! The course's staircases as data: lane A's three short ones (built by [`stairs`]) and lane E
//! (x = 22, walked toward +Z; issue 17): a long straight flight, 10 steps of 17 cm up, a
//! landing and 10 down, then a turning stair — 5 steps up along +Z to a square landing, a
//! quarter turn onto a flight along +X (5 up, a landing, 5 down), a square landing, a quarter
//! turn and 5 steps down along −Z.
//!
//! Method: every tread is a [`Solidity::Tread`] box standing on the floor (feet see it, the
//! character controller does not); the controller walks an invisible [`Solidity::ControllerOnly`]
//! ramp through the middle of each riser, from half a tread before a flight's first riser to
//! half a tread onto its top, and invisible boxes on the landings, so the body glides at the
//! stairs' mean height and foot IK finds the treads. A [`Flight`] is one run of steps up toward
//! +`axis` or −`axis`; [`stairs`] is a flight up, a landing and a flight down; the turning stair
//! joins flights along Z and X with square landings.
//! Invariants: boxes never overlap (flights, landings and the flight along X have disjoint
//! footprints); each landing's controller box starts where the flight's ramp reaches it (no lip
//! for the controller); a flight along X starting on a landing stands on it (its `base`).

use bevy::prelude::*;

use crate::course_pieces::{Axis, BoxPiece, Paint, RampPiece, Section, SectionArea, Solidity, StairFlight};

/// Centre line (x) of lane E.
pub const LANE_E: f32 = 22.0;
/// Lane E's rise and tread, m (a comfortable public stair).
pub const LANE_E_RISE: f32 = 0.17;
/// Lane E's tread depth, m.
pub const LANE_E_TREAD: f32 = 0.30;
/// Steps up (and down) of the long flight.
pub const LONG_STEPS: usize = 10;
/// Steps of each quarter of the turning stair (up along Z, up and down along X, down along Z).
pub const TURNING_STEPS: usize = 5;
/// Width of the turning stair's flights and side of its square landings, m.
const TURNING_WIDTH: f32 = 2.0;
/// How far a section's rectangle reaches before and after the stairs, m.
const MARGIN: f32 = 0.7;

/// Where a flight runs: along `axis`, centred `across` it, `width` wide.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Which way it runs.
    pub axis: Axis,
    /// Centre across it (x for a run along Z, z for one along X).
    pub across: f32,
    /// Width across it, m.
    pub width: f32,
}

impl Run {
    /// A stair box from the floor to `top`, spanning `a`..`b` along the run.
    fn column(&self, a: f32, b: f32, top: f32, solidity: Solidity) -> BoxPiece {
        let (lo, hi) = (a.min(b), a.max(b));
        let center = self.axis.join(self.across, (lo + hi) * 0.5);
        let half = self.axis.join(self.width * 0.5, (hi - lo) * 0.5);
        BoxPiece {
            center: Vec3::new(center.x, top * 0.5, center.y),
            half: Vec3::new(half.x, top * 0.5, half.y),
            paint: Paint::Stairs,
            solidity,
        }
    }

    /// The footprint (min, max corner, x and z) of `a`..`b` along the run.
    fn footprint(&self, a: f32, b: f32) -> (Vec2, Vec2) {
        let (p, q) =
            (self.axis.join(self.across - self.width * 0.5, a), self.axis.join(self.across + self.width * 0.5, b));
        (p.min(q), p.max(q))
    }
}

/// One flight of steps toward `dir` (±1) along its run: its first riser at `start`, standing on
/// `base`. Only `steps - 1` treads are its own: the top step is the landing it climbs to.
#[derive(Clone, Copy, Debug)]
pub struct Flight {
    /// Where it runs.
    pub run: Run,
    /// The first riser, along the run.
    pub start: f32,
    /// +1: climbs toward +axis; −1: toward −axis.
    pub dir: f32,
    /// The floor or landing it starts on, m.
    pub base: f32,
    /// Height of each step, m.
    pub rise: f32,
    /// Depth of each tread, m.
    pub tread: f32,
    /// Rises up to its top.
    pub steps: usize,
}

impl Flight {
    /// Where its top step (the landing's edge) starts, along the run.
    pub fn top_start(&self) -> f32 {
        self.start + self.dir * (self.steps - 1) as f32 * self.tread
    }

    /// Its top's height, m.
    pub fn top(&self) -> f32 {
        self.base + self.steps as f32 * self.rise
    }

    /// Pushes its treads and the controller's ramp through the middle of each riser, from half
    /// a tread before the first riser to half a tread onto the top step.
    fn build(&self, boxes: &mut Vec<BoxPiece>, ramps: &mut Vec<RampPiece>) {
        for i in 0..self.steps - 1 {
            let (a, b) =
                (self.start + self.dir * i as f32 * self.tread, self.start + self.dir * (i + 1) as f32 * self.tread);
            boxes.push(self.run.column(a, b, self.base + (i + 1) as f32 * self.rise, Solidity::Tread));
        }
        let half = 0.5 * self.tread;
        ramps.push(RampPiece {
            axis: self.run.axis,
            across: self.run.across,
            low: self.start - self.dir * half,
            high: self.top_start() + self.dir * half,
            base: self.base,
            height: self.top() - self.base,
            width: self.run.width,
            solidity: Solidity::ControllerOnly,
        });
    }
}

/// A staircase: `up` (toward +axis), a landing `landing` long, and its mirror down. The top
/// step, the landing and the first step down are one box (no seam at equal height); the
/// controller walks a box over the landing between the two ramps. Returns its length along
/// the run, m (first riser to last).
pub fn stairs(boxes: &mut Vec<BoxPiece>, ramps: &mut Vec<RampPiece>, up: Flight, landing: f32) -> f32 {
    let top_start = up.top_start();
    let top_end = top_start + 2.0 * up.tread + landing;
    let end = top_end + (up.steps - 1) as f32 * up.tread;
    up.build(boxes, ramps);
    Flight { start: end, dir: -1.0, ..up }.build(boxes, ramps);
    boxes.push(up.run.column(top_start, top_end, up.top(), Solidity::Tread));
    // The controller's ramps run half a tread behind the nosings, through the middle of each
    // riser: the body rides the stairs' mean height, so planted feet ask the pelvis for half a
    // rise less (and the foot on the upper tread for up to half a rise up).
    let half = 0.5 * up.tread;
    boxes.push(up.run.column(top_start + half, top_end - half, up.top(), Solidity::ControllerOnly));
    end - up.start
}

/// Lane E's pieces, sections and staircases; the route walks `route` after lane D.
pub struct LaneE {
    /// Section rectangles of the long flight and the turning stair.
    pub areas: Vec<SectionArea>,
    /// Footprints and rises of their flights.
    pub flights: Vec<StairFlight>,
    /// The route through lane E (x, z), from the turn out of lane D to the end.
    pub route: Vec<Vec2>,
}

/// Lane E: the long flight (first riser at z = 10) and the turning stair (first riser at
/// z = 20, turning toward +X), pushed onto `boxes` and `ramps`.
pub fn lane_e(boxes: &mut Vec<BoxPiece>, ramps: &mut Vec<RampPiece>, lane_width: f32, from_z: f32) -> LaneE {
    let (rise, tread) = (LANE_E_RISE, LANE_E_TREAD);
    let lane = Run { axis: Axis::Z, across: LANE_E, width: lane_width };
    let long = Flight { run: lane, start: 10.0, dir: 1.0, base: 0.0, rise, tread, steps: LONG_STEPS };
    let length = stairs(boxes, ramps, long, 1.2);
    let (min, max) = lane.footprint(long.start, long.start + length);
    let mut flights = vec![StairFlight { rise, tread, min, max }];
    let area = |section, (min, max): (Vec2, Vec2)| SectionArea {
        section,
        min: min - Vec2::splat(MARGIN),
        max: max + Vec2::splat(MARGIN),
    };
    let mut areas = vec![area(Section::LongStairs, (min, max))];

    // The turning stair: up along +Z to a square landing.
    let w = TURNING_WIDTH;
    let first = Flight { run: Run { width: w, ..lane }, ..long };
    let first = Flight { start: 20.0, steps: TURNING_STEPS, ..first };
    first.build(boxes, ramps);
    let (z1, h1, half) = (first.top_start(), first.top(), 0.5 * tread);
    // A square landing: the side across the lane along Z, its controller box from where the
    // ramp reaches it.
    let landing = |boxes: &mut Vec<BoxPiece>, x: f32| {
        let run = Run { axis: Axis::Z, across: x, width: w };
        boxes.push(run.column(z1, z1 + w, h1, Solidity::Tread));
        boxes.push(run.column(z1 + half, z1 + w, h1, Solidity::ControllerOnly));
        run.footprint(z1, z1 + w)
    };
    let first_landing = landing(boxes, LANE_E);
    flights.push(StairFlight { rise, tread, min: first.run.footprint(first.start, z1).0, max: first_landing.1 });
    // A quarter turn onto a flight along +X, standing on the landing: up, a landing, down.
    let across_run = Run { axis: Axis::X, across: z1 + 0.5 * w, width: w };
    let x_start = LANE_E + 0.5 * w;
    let along_x = Flight { run: across_run, start: x_start, base: h1, ..first };
    let x_end = x_start + stairs(boxes, ramps, along_x, 1.2);
    let (min, max) = across_run.footprint(x_start, x_end);
    flights.push(StairFlight { rise, tread, min, max });
    // A square landing, a quarter turn toward −Z and down: the mirror of the first flight.
    let last_x = x_end + 0.5 * w;
    let last_landing = landing(boxes, last_x);
    let last = Flight { run: Run { across: last_x, ..first.run }, ..first };
    last.build(boxes, ramps);
    flights.push(StairFlight { rise, tread, min: last.run.footprint(last.start, z1).0, max: last_landing.1 });
    let (min, max) = (first.run.footprint(first.start, z1).0, last_landing.1);
    areas.push(area(Section::TurningStairs, (min, max)));

    let turn_z = z1 + 0.5 * w;
    let route = vec![
        Vec2::new(LANE_E, from_z),
        Vec2::new(LANE_E, turn_z),
        Vec2::new(last_x, turn_z),
        Vec2::new(last_x, first.start - 3.0),
    ];
    LaneE { areas, flights, route }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::CourseLayout;

    /// Points every centimetre from `a` toward `b`, 3 mm off the centimetres (so none falls
    /// on the seam between two treads, where rounding may leave a point on neither).
    fn samples(a: Vec2, b: Vec2) -> impl Iterator<Item = Vec2> {
        let n = (a.distance(b) / 0.01).round() as usize;
        (0..n).map(move |i| a + (b - a).normalize() * (0.003 + 0.01 * i as f32))
    }

    /// The feet's ground every centimetre from `a` to `b`: the heights of its rises (+) and
    /// drops (−) in order, and the highest point.
    fn profile(layout: &CourseLayout, a: Vec2, b: Vec2) -> (Vec<f32>, f32) {
        let (mut steps, mut last, mut highest) = (Vec::new(), layout.feet_height(a), 0.0f32);
        for p in samples(a, b) {
            let h = layout.feet_height(p);
            if (h - last).abs() > 1e-4 {
                steps.push(h - last);
            }
            (last, highest) = (h, highest.max(h));
        }
        (steps, highest)
    }

    fn all_near(steps: &[f32], expected: f32) -> bool {
        steps.iter().all(|s| (s - expected).abs() < 1e-4)
    }

    #[test]
    fn the_long_flight_climbs_ten_17_cm_steps_and_comes_down_ten() {
        let layout = CourseLayout::new();
        let (steps, highest) = profile(&layout, Vec2::new(LANE_E, 9.0), Vec2::new(LANE_E, 18.0));
        assert_eq!(steps.len(), 2 * LONG_STEPS, "{steps:?}");
        let (up, down) = steps.split_at(LONG_STEPS);
        assert!(all_near(up, LANE_E_RISE) && all_near(down, -LANE_E_RISE), "{steps:?}");
        assert!((highest - LONG_STEPS as f32 * LANE_E_RISE).abs() < 1e-4);
        // Treads 30 cm deep: the third tread's front and back edge are its own.
        let third = 10.0 + 2.5 * LANE_E_TREAD;
        for dz in [-0.14, 0.14] {
            assert!((layout.feet_height(Vec2::new(LANE_E, third + dz)) - 3.0 * LANE_E_RISE).abs() < 1e-4);
        }
        let middle = Vec2::new(LANE_E, 13.6);
        assert_eq!((layout.section_at(middle), layout.stair_rise_at(middle)), (Section::LongStairs, Some(LANE_E_RISE)));
    }

    #[test]
    fn the_turning_stair_climbs_turns_twice_and_comes_down() {
        let layout = CourseLayout::new();
        let route = &layout.route;
        let lane_e = route.iter().position(|p| p.x == LANE_E).unwrap();
        // From the end of the long flight: up along +Z, along +X (up and down), down along −Z.
        let legs = &route[lane_e + 1..];
        assert_eq!(legs.len(), 3);
        let mut ups = Vec::new();
        let mut from = Vec2::new(LANE_E, 19.0);
        let mut highest = 0.0f32;
        for &to in legs {
            let (steps, high) = profile(&layout, from, to);
            assert!(steps.iter().all(|s| (s.abs() - LANE_E_RISE).abs() < 1e-4), "{steps:?}");
            ups.push((steps.iter().filter(|s| **s > 0.0).count(), steps.iter().filter(|s| **s < 0.0).count()));
            (from, highest) = (to, highest.max(high));
        }
        let n = TURNING_STEPS;
        assert_eq!(ups, [(n, 0), (n, n), (0, n)], "rises and drops along each leg");
        assert!((highest - 2.0 * n as f32 * LANE_E_RISE).abs() < 1e-4);
        // The turns are on square landings n rises up, in the turning stair's section.
        for corner in &legs[..2] {
            assert!((layout.feet_height(*corner) - n as f32 * LANE_E_RISE).abs() < 1e-4, "{corner}");
            assert_eq!(layout.section_at(*corner), Section::TurningStairs);
            assert_eq!(layout.stair_rise_at(*corner), Some(LANE_E_RISE));
        }
    }

    #[test]
    fn the_controller_walks_lane_e_on_ramps_through_the_risers_without_a_lip() {
        let layout = CourseLayout::new();
        let route = &layout.route;
        let lane_e = route.iter().position(|p| p.x == LANE_E).unwrap();
        let mut last: Option<f32> = None;
        let mut on_stairs = 0;
        for w in route[lane_e..].windows(2) {
            for p in samples(w[0], w[1]) {
                let (body, feet) = (layout.controller_height(p), layout.feet_height(p));
                if let Some(last) = last {
                    // At most 1 cm up or down per centimetre: no slope past 45°, nothing to step.
                    assert!((body - last).abs() <= 0.01 + 1e-4, "controller {last} -> {body} at {p}");
                }
                if layout.stair_rise_at(p).is_some() {
                    // Through the middle of the risers: within half a rise of the tread.
                    assert!((body - feet).abs() <= 0.5 * LANE_E_RISE + 1e-4, "controller {body}, tread {feet} at {p}");
                    on_stairs += 1;
                }
                last = Some(body);
            }
        }
        assert!(on_stairs > 1500, "{on_stairs} cm of lane E's route on stairs");
    }

    #[test]
    fn no_two_boxes_the_feet_see_overlap() {
        let layout = CourseLayout::new();
        let feet: Vec<_> = layout.boxes.iter().filter(|b| b.solidity != Solidity::ControllerOnly).collect();
        for (i, a) in feet.iter().enumerate() {
            for b in &feet[i + 1..] {
                let gap = (a.center - b.center).abs() - (a.half + b.half);
                assert!(gap.max_element() > -1e-4, "{a:?} overlaps {b:?}");
            }
        }
    }
}
