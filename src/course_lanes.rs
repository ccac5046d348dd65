//! The course's walking-goal pieces (issue 17), as data: kerbs on the two crossings between
//! lanes, and lane D (x = 16, walked toward −Z) with a platform sliding across the lane at
//! 1 m/s, a disc turning at 30°/s and a board hanging 41–45 cm over the floor.
//!
//! Method: kerbs and the board are [`BoxPiece`]s like the rest of the course (the board is
//! [`Solidity::Overhang`]: the feet's rays see it, the character controller and the metrics'
//! "true floor" do not). A platform is a [`PlatformPiece`]: a shape and a motion, its pose a
//! pure function of game time ([`PlatformPiece::pose_at`]): a slide is a triangle wave across
//! the lane (constant speed, turning back at ± its amplitude), a turn a constant yaw rate about
//! the disc's own axis. [`crate::platforms`] moves the rapier bodies to those poses and carries
//! the character standing on them.
//! Invariants: platforms only slide horizontally and turn about +Y (their tops stay level at
//! [`PLATFORM_TOP`]); the sliding platform covers the lane's centre ± [`SLIDE_MARGIN`] at every
//! phase; nothing of lane D overlaps another lane.

use bevy::prelude::*;

use crate::course_pieces::{Axis, BoxPiece, Paint, RampPiece, Solidity};

/// Centre line (x) of lane D.
pub const LANE_D: f32 = 16.0;
/// Height of the platforms' tops above the floor, m (a 5 cm lip to step onto).
pub const PLATFORM_TOP: f32 = 0.05;
/// The sliding platform's speed, m/s.
pub const SLIDE_SPEED: f32 = 1.0;
/// The disc's turning rate, degrees per second, clockwise seen from above: on the lane's line,
/// 0.5 m beside its centre, its surface carries a walker along the lane (toward −Z). Turning
/// the other way it moved against the walker, and one walking no faster than the surface under
/// it (0.26–0.6 m/s where the route crosses) stood still on it until the route's time ran out.
pub const TURN_RATE_DEG: f32 = 30.0;
/// How far the sliding platform reaches past the lane's centre line on either side at every
/// phase, m.
pub const SLIDE_MARGIN: f32 = 1.75;
/// Height of the kerbs, m.
pub const KERB_HEIGHT: f32 = 0.13;
/// The board's underside and top above the floor, m.
pub const OVERHANG_SPAN: (f32, f32) = (0.41, 0.45);

/// Which of the moving platforms a figure is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlatformKind {
    /// Sliding back and forth across lane D at [`SLIDE_SPEED`].
    Sliding,
    /// A disc turning at [`TURN_RATE_DEG`].
    Turning,
}

impl PlatformKind {
    /// Both kinds, in report order.
    pub const ALL: [PlatformKind; 2] = [PlatformKind::Sliding, PlatformKind::Turning];

    /// How the report names it.
    pub fn label(self) -> String {
        match self {
            PlatformKind::Sliding => format!("platform sliding at {SLIDE_SPEED:.0} m/s"),
            PlatformKind::Turning => format!("disc turning at {TURN_RATE_DEG:.0} deg/s"),
        }
    }
}

/// A platform's collider shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlatformShape {
    /// A box of these half extents.
    Box(Vec3),
    /// A disc (vertical cylinder): radius and half height.
    Disc { radius: f32, half_height: f32 },
}

/// How a platform moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlatformMotion {
    /// Back and forth along `axis` (unit, horizontal) at `speed`, `amplitude` each way of its
    /// rest centre, starting at the centre moving toward +`axis`.
    Slide { axis: Vec3, amplitude: f32, speed: f32 },
    /// About +Y through its centre, radians per second.
    Turn { rate: f32 },
}

/// A moving platform of the course.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlatformPiece {
    /// Which figure it feeds.
    pub kind: PlatformKind,
    /// Centre at rest (time 0), world.
    pub center: Vec3,
    /// Collider shape.
    pub shape: PlatformShape,
    /// Motion.
    pub motion: PlatformMotion,
}

/// Offset of a triangle wave at time `t`: from 0 toward +`amplitude` at `speed`, back to
/// −`amplitude`, and so on (period 4 · amplitude / speed). 0 for a zero amplitude or speed.
pub fn slide_offset(t: f32, amplitude: f32, speed: f32) -> f32 {
    if amplitude <= 0.0 || speed <= 0.0 || !t.is_finite() {
        return 0.0;
    }
    let u = (speed * t + amplitude).rem_euclid(4.0 * amplitude);
    amplitude - (u - 2.0 * amplitude).abs()
}

impl PlatformPiece {
    /// The platform's centre and rotation at game time `t`, s.
    pub fn pose_at(&self, t: f32) -> (Vec3, Quat) {
        match self.motion {
            PlatformMotion::Slide { axis, amplitude, speed } => {
                (self.center + axis * slide_offset(t, amplitude, speed), Quat::IDENTITY)
            }
            PlatformMotion::Turn { rate } => (self.center, Quat::from_rotation_y(rate * t)),
        }
    }

    /// Height of its top above the floor, m.
    pub fn top(&self) -> f32 {
        self.center.y
            + match self.shape {
                PlatformShape::Box(half) => half.y,
                PlatformShape::Disc { half_height, .. } => half_height,
            }
    }

    /// Whether (x, z) is on the platform's top at time `t`.
    pub fn covers(&self, p: Vec2, t: f32) -> bool {
        let (center, rotation) = self.pose_at(t);
        let local = rotation.inverse() * (Vec3::new(p.x, center.y, p.y) - center);
        match self.shape {
            PlatformShape::Box(half) => local.x.abs() <= half.x && local.z.abs() <= half.z,
            PlatformShape::Disc { radius, .. } => Vec2::new(local.x, local.z).length() <= radius,
        }
    }
}

/// The kerbs: a raised strip 1.2 m wide (13 cm up, 13 cm down) on each crossing between lanes
/// (A → B at z = 28, walked toward +X; B → C at z = −0.5, toward +X). Returns their footprints
/// (min, max corner, x and z) for the sections.
pub fn kerbs(boxes: &mut Vec<BoxPiece>) -> Vec<(Vec2, Vec2)> {
    let mut areas = Vec::new();
    for (x0, z) in [(1.9, 28.0), (6.4, -0.5)] {
        let half = Vec3::new(0.6, KERB_HEIGHT * 0.5, 1.4);
        let center = Vec3::new(x0 + half.x, half.y, z);
        boxes.push(BoxPiece { center, half, paint: Paint::Kerb, solidity: Solidity::Solid });
        areas.push((Vec2::new(center.x - half.x - 0.6, z - 1.6), Vec2::new(center.x + half.x + 0.6, z + 1.6)));
    }
    areas
}

/// Lane D's pieces: the sliding platform (z 17–20), the turning disc (centre 0.5 m beside the
/// lane's centre line, z 11.7–15.7) and the board over the lane (z 8.4–9.6, on two posts beyond
/// the lane's edges). Returns the platforms and the board's footprint (min, max corner).
pub fn lane_d(boxes: &mut Vec<BoxPiece>) -> (Vec<PlatformPiece>, (Vec2, Vec2)) {
    let half_top = PLATFORM_TOP * 0.5;
    let amplitude = 0.75;
    let platforms = vec![
        PlatformPiece {
            kind: PlatformKind::Sliding,
            center: Vec3::new(LANE_D, half_top, 18.5),
            shape: PlatformShape::Box(Vec3::new(SLIDE_MARGIN + amplitude, half_top, 1.5)),
            motion: PlatformMotion::Slide { axis: Vec3::X, amplitude, speed: SLIDE_SPEED },
        },
        PlatformPiece {
            kind: PlatformKind::Turning,
            center: Vec3::new(LANE_D + 0.5, half_top, 13.7),
            shape: PlatformShape::Disc { radius: 2.0, half_height: half_top },
            motion: PlatformMotion::Turn { rate: -TURN_RATE_DEG.to_radians() },
        },
    ];
    let (under, top) = OVERHANG_SPAN;
    let board = BoxPiece {
        center: Vec3::new(LANE_D, (under + top) * 0.5, 9.0),
        half: Vec3::new(1.45, (top - under) * 0.5, 0.6),
        paint: Paint::Overhang,
        solidity: Solidity::Overhang,
    };
    boxes.push(board);
    for side in [-1.0f32, 1.0] {
        boxes.push(BoxPiece {
            center: Vec3::new(LANE_D + side * 1.5, under * 0.5, 9.0),
            half: Vec3::new(0.05, under * 0.5, 0.6),
            paint: Paint::Overhang,
            solidity: Solidity::Solid,
        });
    }
    let footprint = (
        Vec2::new(board.center.x - board.half.x, board.center.z - board.half.z),
        Vec2::new(board.center.x + board.half.x, board.center.z + board.half.z),
    );
    (platforms, footprint)
}

/// The controller's ramps up and down a raised box's two ends along `axis` (27°, run twice the
/// rise, ending at the edge): the controller walks the 15 cm step on them as it walks the stairs
/// on theirs, at any capsule size (rapier's autostep left a 1.2 m character's 19 cm capsule
/// stuck at its edge, now and then); the feet see the real edge. The 13 cm kerbs keep autostep:
/// ramps there moved the generated characters' approach to lane E's stairs off their treads.
pub fn edge_ramps(b: &BoxPiece, axis: Axis) -> [RampPiece; 2] {
    let (across, along, half_along, width) = match axis {
        Axis::Z => (b.center.x, b.center.z, b.half.z, 2.0 * b.half.x),
        Axis::X => (b.center.z, b.center.x, b.half.x, 2.0 * b.half.z),
    };
    let height = b.center.y + b.half.y;
    let ramp = |edge: f32, out: f32| RampPiece {
        axis,
        across,
        low: edge + out * 2.0 * height,
        high: edge,
        base: 0.0,
        height,
        width,
        solidity: Solidity::ControllerOnly,
    };
    [ramp(along - half_along, -1.0), ramp(along + half_along, 1.0)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_controller_walks_the_step_on_ramps_the_feet_do_not_see() {
        let layout = crate::course::CourseLayout::new();
        // Before, on and past the step's two risers (z = 3 up, z = 7 down).
        for (p, riser) in [(Vec2::new(0.0, 3.0), Vec2::Y), (Vec2::new(0.0, 7.0), -Vec2::Y)] {
            let heights: Vec<f32> = (-40..=40).map(|i| layout.controller_height(p + riser * i as f32 * 0.01)).collect();
            let top = heights[80];
            assert!(top > 0.12, "{p}: {top}");
            // No lip: every centimetre rises at most 27° worth (0.5 cm) on the way up.
            assert!(heights.windows(2).all(|w| (w[1] - w[0]).abs() <= 0.0051), "{p}: {heights:?}");
            // The feet's ground still has the riser.
            assert!(layout.feet_height(p - riser * 0.05) < 0.01, "{p}");
        }
    }

    #[test]
    fn the_slide_is_a_triangle_wave_at_its_speed() {
        let (amplitude, speed) = (0.75, 1.0);
        assert_eq!(slide_offset(0.0, amplitude, speed), 0.0);
        assert!((slide_offset(0.75, amplitude, speed) - 0.75).abs() < 1e-5);
        assert!((slide_offset(2.25, amplitude, speed) + 0.75).abs() < 1e-5);
        assert!((slide_offset(3.0, amplitude, speed)).abs() < 1e-5, "one period is 4 amplitudes / speed");
        // Every 1/60 s step moves it 1/60 m, except the steps that turn back at the ends.
        let dt = 1.0 / 60.0;
        let mut turning = 0;
        for i in 0..600 {
            let t = i as f32 * dt;
            let a = slide_offset(t, amplitude, speed);
            let step = (slide_offset(t + dt, amplitude, speed) - a).abs();
            assert!(a.abs() <= amplitude + 1e-5);
            if (step - dt).abs() > 1e-4 {
                turning += 1;
                assert!(a.abs() > amplitude - dt, "at {t} s the step is {step}");
            }
        }
        assert!(turning <= 8, "{turning} steps turn back in 10 s (about 7 turns)");
        assert_eq!(slide_offset(1.0, 0.0, 1.0), 0.0);
    }

    #[test]
    fn the_route_crosses_the_kerbs_the_platforms_and_walks_under_the_board() {
        use crate::course::CourseLayout;
        use crate::course_pieces::Section;
        let layout = CourseLayout::new();
        let route = &layout.route;
        let length = |points: &[Vec2]| points.windows(2).map(|w| w[0].distance(w[1])).sum::<f32>();
        // Lanes A–C end at (10, 22.5), lane D where the route turns out of it toward lane E;
        // lane D adds at most a quarter to the walk of lanes A–C.
        let lanes_a_to_c = route.iter().position(|p| *p == Vec2::new(10.0, 22.5)).unwrap();
        let lane_d_end = route.iter().rposition(|p| p.x == LANE_D).unwrap();
        let extra = length(&route[lanes_a_to_c..=lane_d_end]) / length(&route[..=lanes_a_to_c]);
        assert!(extra > 0.1 && extra <= 0.25, "lane D adds {:.0} %", extra * 100.0);
        let (mut sections, mut kerbs_up, mut last, mut under) = (Vec::new(), 0, 0.0, 0);
        for w in route.windows(2) {
            let n = (w[0].distance(w[1]) / 0.05).ceil() as usize;
            for i in 0..n {
                let p = w[0].lerp(w[1], i as f32 / n as f32);
                sections.push(layout.section_at(p));
                let h = layout.feet_height(p);
                kerbs_up += usize::from(layout.section_at(p) == Section::Kerbs && last == 0.0 && h > 0.0);
                if layout.under_overhang(p) {
                    // The board is not floor: feet stand on the floor under it.
                    assert_eq!(h, 0.0, "under the board at {p}");
                    under += 1;
                }
                last = h;
            }
        }
        for s in [Section::Kerbs, Section::Platforms, Section::Overhang] {
            assert!(sections.contains(&s), "the route misses {s:?}");
        }
        assert_eq!(kerbs_up, 2, "two kerbs stepped up onto");
        assert!(under * 5 >= 100, "{} cm of the route under the board", under * 5);
        // Kerbs are 13 cm up on the route.
        assert!((layout.feet_height(Vec2::new(2.5, 28.0)) - KERB_HEIGHT).abs() < 1e-6);
        assert!((layout.feet_height(Vec2::new(7.0, -0.5)) - KERB_HEIGHT).abs() < 1e-6);
    }

    #[test]
    fn platforms_keep_the_lane_covered_and_turn_at_their_rate() {
        let mut boxes = Vec::new();
        let (platforms, _) = lane_d(&mut boxes);
        let slide = platforms.iter().find(|p| p.kind == PlatformKind::Sliding).unwrap();
        let disc = platforms.iter().find(|p| p.kind == PlatformKind::Turning).unwrap();
        for i in 0..200 {
            let t = i as f32 * 0.05;
            for dx in [-SLIDE_MARGIN + 0.01, 0.0, SLIDE_MARGIN - 0.01] {
                assert!(slide.covers(Vec2::new(LANE_D + dx, 18.5), t), "lane uncovered at {dx} m, {t} s");
            }
            // The disc turns in place: its footprint is the same, its rotation 30°/s clockwise.
            assert!(disc.covers(Vec2::new(LANE_D, 12.0), t) && !disc.covers(Vec2::new(LANE_D, 11.5), t));
        }
        let (_, turned) = disc.pose_at(1.0);
        assert!((turned.to_euler(EulerRot::YXZ).0.to_degrees() + 30.0).abs() < 1e-3);
        // Where the route crosses it (the lane's line), its surface moves with the walker (−Z).
        let (centre, _) = disc.pose_at(0.0);
        let on_line = Vec3::new(LANE_D, PLATFORM_TOP, 13.7) - centre;
        assert!((turned * on_line - on_line).z < 0.0);
        assert!((slide.top() - PLATFORM_TOP).abs() < 1e-6 && (disc.top() - PLATFORM_TOP).abs() < 1e-6);
        // The board is over the lane, between its underside and top, and its posts beyond it.
        let board = boxes.iter().find(|b| b.solidity == Solidity::Overhang).unwrap();
        assert!((board.center.y - board.half.y - OVERHANG_SPAN.0).abs() < 1e-6);
        assert!((board.center.y + board.half.y - OVERHANG_SPAN.1).abs() < 1e-6);
        assert!(boxes.iter().filter(|b| b.solidity == Solidity::Solid).all(|b| (b.center.x - LANE_D).abs() > 1.4));
    }
}
