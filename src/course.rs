//! The obstacle course: flat ground, a single 15 cm step, three staircases (10, 15 and 20 cm
//! rises), ramps of 10°, 20° and 30°, a patch of rough bumpy ground, moving platforms, a long
//! flight and a turning stair.
//!
//! Method: [`CourseLayout::new`] describes every piece as plain data (boxes, ramps, the rough
//! patch), the metric sections as rectangles and the autopilot route as a polyline;
//! [`spawn_course`](crate::course_spawn::spawn_course) turns it into rapier colliders, plus
//! lit meshes when [`Visuals`](crate::marks::Visuals) is on.
//! Colliders and meshes come from the same numbers, so what is drawn is what feet stand on.
//! Stairs are walked the way many games do it: the character controller slides up an invisible
//! ramp through the middle of each riser (a sensor only the controller sees), while the
//! treads are real colliders in a group the controller ignores — so the body glides at the
//! stairs' mean height and foot IK finds the treads.
//! Invariants: world +Y up, ground top at y = 0; boxes never overlap (no z-fighting, no internal
//! seams at equal heights); lanes run along Z: A (x = 0) step and stairs, B (x = 5) ramps,
//! C (x = 10) rough ground, D (x = 16) a sliding platform, a turning disc and a board to walk
//! under ([`crate::course_lanes`]), E (x = 22) a long flight and a turning stair
//! ([`crate::course_stairs`]); kerbs on the crossings A → B and B → C.

use bevy::prelude::*;

use crate::course_lanes::{LANE_D, PlatformPiece};
use crate::course_mesh::RoughPatch;
use crate::course_pieces::{Axis, BoxPiece, Paint, RampPiece, Section, SectionArea, Solidity, StairFlight};
use crate::course_stairs::{Flight, Run, stairs};

/// Every piece of the course, the metric sections and the autopilot route.
#[derive(Resource, Clone, Debug)]
pub struct CourseLayout {
    /// Boxes: the step, stair treads, ramp plateaus.
    pub boxes: Vec<BoxPiece>,
    /// Ramp slabs.
    pub ramps: Vec<RampPiece>,
    /// The rough patch.
    pub rough: RoughPatch,
    /// Section rectangles (first match wins; elsewhere is flat).
    pub areas: Vec<SectionArea>,
    /// Autopilot route (x, z), walked in order.
    pub route: Vec<Vec2>,
    /// Half size of the ground slab (x, z) and its centre.
    pub ground: (Vec2, Vec2),
    /// The staircases: where each flight is (x, z) and its rise.
    pub flights: Vec<StairFlight>,
    /// Lane D's moving platforms.
    pub platforms: Vec<PlatformPiece>,
    /// Footprints (min, max corner, x and z) of what hangs over the floor.
    pub overhangs: Vec<(Vec2, Vec2)>,
}

const LANE_WIDTH: f32 = 2.4;

impl CourseLayout {
    /// The course used by the demo and the autopilot.
    pub fn new() -> Self {
        let mut boxes = Vec::new();
        let w = LANE_WIDTH * 0.5;
        // Lane A: the 15 cm step, a platform 4 m long.
        let step = BoxPiece {
            center: Vec3::new(0.0, 0.075, 5.0),
            half: Vec3::new(w, 0.075, 2.0),
            paint: Paint::Step,
            solidity: Solidity::Solid,
        };
        boxes.push(step);
        let mut ramps = Vec::from(crate::course_lanes::edge_ramps(&step, Axis::Z));
        // Lane A: three staircases (up, landing, down).
        let mut flights = Vec::new();
        let lane_a = Run { axis: Axis::Z, across: 0.0, width: LANE_WIDTH };
        for (z0, rise, tread, steps) in [(10.0, 0.10, 0.32, 4), (16.0, 0.15, 0.30, 4), (22.0, 0.20, 0.32, 3)] {
            let up = Flight { run: lane_a, start: z0, dir: 1.0, base: 0.0, rise, tread, steps };
            let length = stairs(&mut boxes, &mut ramps, up, 1.2);
            flights.push(StairFlight { rise, tread, min: Vec2::new(-w, z0), max: Vec2::new(w, z0 + length) });
        }
        // Lane B: ramps 10°, 20°, 30° up to 0.8 m, plateau, and down, walked toward -Z.
        let mut z = 25.5;
        for degrees in [10.0f32, 20.0, 30.0] {
            let up = RampPiece::with_angle(5.0, z, -1.0, degrees, 0.8, LANE_WIDTH);
            let plateau_start = up.high;
            let plateau_end = plateau_start - 1.2;
            let down = RampPiece::with_angle(5.0, plateau_end - (up.low - up.high), 1.0, degrees, 0.8, LANE_WIDTH);
            boxes.push(BoxPiece {
                center: Vec3::new(5.0, 0.4, (plateau_start + plateau_end) * 0.5),
                half: Vec3::new(w, 0.4, 0.6),
                paint: Paint::Ramp,
                solidity: Solidity::Solid,
            });
            ramps.push(up);
            ramps.push(down);
            z = down.low - 2.0;
        }
        let rough = RoughPatch { min: Vec2::new(8.0, 1.0), size: Vec2::new(4.0, 20.0), spacing: 0.1 };
        let kerb_areas = crate::course_lanes::kerbs(&mut boxes);
        let (platforms, board) = crate::course_lanes::lane_d(&mut boxes);
        // Out of lane D past the board, across to lane E and along it.
        let lane_e = crate::course_stairs::lane_e(&mut boxes, &mut ramps, LANE_WIDTH, 6.5);
        flights.extend(lane_e.flights);
        let mut areas = vec![
            SectionArea { section: Section::Step, min: Vec2::new(-1.5, 2.2), max: Vec2::new(1.5, 7.8) },
            SectionArea { section: Section::Stairs, min: Vec2::new(-1.5, 9.3), max: Vec2::new(1.5, 25.8) },
            SectionArea { section: Section::Ramps, min: Vec2::new(3.5, 1.6), max: Vec2::new(6.5, 26.3) },
            SectionArea { section: Section::Rough, min: Vec2::new(8.0, 0.7), max: Vec2::new(12.0, 21.3) },
            // A contact begun on a platform is still measured as one while the body walks on
            // 1.5 m past it (its world slide is the platform's travel, kept out of the slide bar).
            SectionArea {
                section: Section::Platforms,
                min: Vec2::new(LANE_D - 3.0, 10.2),
                max: Vec2::new(LANE_D + 3.0, 21.0),
            },
            SectionArea {
                section: Section::Overhang,
                min: board.0 - Vec2::splat(0.6),
                max: board.1 + Vec2::splat(0.6),
            },
        ];
        areas.extend(kerb_areas.into_iter().map(|(min, max)| SectionArea { section: Section::Kerbs, min, max }));
        areas.extend(lane_e.areas);
        let mut route = vec![
            Vec2::new(0.0, -2.0),
            Vec2::new(0.0, 28.0),
            Vec2::new(5.0, 28.0),
            Vec2::new(5.0, -0.5),
            Vec2::new(10.0, -0.5),
            Vec2::new(10.0, 22.5),
            Vec2::new(LANE_D, 22.5),
            Vec2::new(LANE_D, 6.5),
        ];
        route.extend(lane_e.route);
        let ground = (Vec2::new(60.0, 50.0), Vec2::new(-20.0, 15.0));
        CourseLayout { boxes, ramps, rough, areas, route, ground, flights, platforms, overhangs: vec![board] }
    }

    /// Height (world y) the character controller stands at over (x, z): the highest box top,
    /// ramp surface or rough-ground bump there it collides with (on stairs their invisible ramp,
    /// the stairs' mean height), else the floor at 0.
    pub fn controller_height(&self, p: Vec2) -> f32 {
        self.surface_height(p, |solidity| solidity != Solidity::Tread)
    }

    /// Where a character put at (x, z) starts (world y): 5 cm above what the controller stands
    /// on there, so it settles onto it instead of starting inside or under it.
    pub fn start_height(&self, p: Vec2) -> f32 {
        self.controller_height(p) + 0.05
    }

    /// The angle (whole degrees) of the walkable ramp slab under (x, z), if any (not the
    /// stairs' controller ramps, not the plateaus).
    pub fn ramp_at(&self, p: Vec2) -> Option<u32> {
        let mut solid = self.ramps.iter().filter(|r| r.solidity == Solidity::Solid);
        solid.find_map(|r| r.surface(p).map(|_| r.degrees().round() as u32))
    }

    /// The highest box top or ramp surface over (x, z) among the pieces `sees` accepts, or the
    /// rough patch's walkable surface or a platform's top where it rests at time 0 (everything
    /// sees those), else 0. Nothing hanging over the floor counts.
    fn surface_height(&self, p: Vec2, sees: impl Fn(Solidity) -> bool) -> f32 {
        let sees = |solidity: Solidity| solidity != Solidity::Overhang && sees(solidity);
        let platforms = self.platforms.iter().filter(|q| q.covers(p, 0.0)).map(PlatformPiece::top);
        let boxes = self.boxes.iter().filter(|b| sees(b.solidity)).filter_map(|b| {
            let inside = (p.x - b.center.x).abs() <= b.half.x && (p.y - b.center.z).abs() <= b.half.z;
            inside.then_some(b.center.y + b.half.y)
        });
        let ramps = self.ramps.iter().filter(|r| sees(r.solidity)).filter_map(|r| r.surface(p));
        let rough = crate::course_mesh::walkable_height(&self.rough, p.x, p.y);
        boxes.chain(ramps).chain(platforms).fold(rough, f32::max)
    }

    /// Whether (x, z) is under something hanging over the floor.
    pub fn under_overhang(&self, p: Vec2) -> bool {
        self.overhangs.iter().any(|(min, max)| p.cmpge(*min).all() && p.cmple(*max).all())
    }

    /// The stair nosings to draw (visual only, no collider): (centre, half extents) of a strip
    /// along every tread edge across the way it is walked with a drop below it, wrapping the edge 3 mm proud of the tread and
    /// the riser, so the edges read from above and from the front.
    pub fn nosings(&self) -> Vec<(Vec3, Vec3)> {
        const DEPTH: f32 = 0.04;
        const HEIGHT: f32 = 0.03;
        const PROUD: f32 = 0.003;
        let feet = |solidity: Solidity| solidity != Solidity::ControllerOnly;
        let mut strips = Vec::new();
        for b in self.boxes.iter().filter(|b| b.solidity == Solidity::Tread) {
            let top = b.center.y + b.half.y;
            // A tread is walked across its shorter side (a square landing along Z).
            let axis = if b.half.x < b.half.z { Axis::X } else { Axis::Z };
            let (across, along) = axis.split(Vec2::new(b.center.x, b.center.z));
            let (half_across, half_along) = axis.split(Vec2::new(b.half.x, b.half.z));
            for side in [-1.0f32, 1.0] {
                let edge = along + side * half_along;
                if self.surface_height(axis.join(across, edge + side * 0.01), feet) < top - 0.01 {
                    let at = axis.join(across, edge - side * (DEPTH * 0.5 - PROUD));
                    let half = axis.join(half_across + PROUD, DEPTH * 0.5);
                    let center = Vec3::new(at.x, top + PROUD - HEIGHT * 0.5, at.y);
                    strips.push((center, Vec3::new(half.x, HEIGHT * 0.5, half.y)));
                }
            }
        }
        strips
    }

    /// Height (world y) feet stand at over (x, z): the highest box top (treads included), ramp
    /// surface or rough-ground bump there, else the floor at 0.
    pub fn feet_height(&self, p: Vec2) -> f32 {
        self.surface_height(p, |solidity| solidity != Solidity::ControllerOnly)
    }

    /// The rise of the staircase whose footprint holds (x, z), if any, m.
    pub fn stair_rise_at(&self, p: Vec2) -> Option<f32> {
        self.stair_at(p).map(|f| f.rise)
    }

    /// The staircase whose footprint holds (x, z), if any.
    pub fn stair_at(&self, p: Vec2) -> Option<&StairFlight> {
        self.flights.iter().find(|f| p.cmpge(f.min).all() && p.cmple(f.max).all())
    }

    /// The section the point (x, z) belongs to.
    pub fn section_at(&self, p: Vec2) -> Section {
        self.areas
            .iter()
            .find(|a| p.x >= a.min.x && p.x <= a.max.x && p.y >= a.min.y && p.y <= a.max.y)
            .map_or(Section::Flat, |a| a.section)
    }
}

impl Default for CourseLayout {
    fn default() -> Self {
        CourseLayout::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_staircase_footprint_knows_its_rise() {
        let layout = CourseLayout::new();
        let rises: Vec<f32> = layout.flights.iter().map(|f| f.rise).collect();
        // Lane A's three, lane E's long flight and the three parts of its turning stair.
        assert_eq!(rises, [0.10, 0.15, 0.20, 0.17, 0.17, 0.17, 0.17]);
        for flight in &layout.flights[..3] {
            // The footprint runs from the first riser to the last, and the treads there are
            // the flight's own: the highest is n rises up.
            let (first, last) = (flight.min.y, flight.max.y);
            assert_eq!(layout.feet_height(Vec2::new(0.0, first - 0.01)), 0.0);
            assert!((layout.feet_height(Vec2::new(0.0, first + 0.01)) - flight.rise).abs() < 1e-5);
            assert!((layout.feet_height(Vec2::new(0.0, last - 0.01)) - flight.rise).abs() < 1e-5);
            assert_eq!(layout.feet_height(Vec2::new(0.0, last + 0.01)), 0.0);
            let middle = (flight.min + flight.max) * 0.5;
            assert_eq!(layout.stair_rise_at(middle), Some(flight.rise));
        }
        assert_eq!(layout.stair_rise_at(Vec2::new(0.0, 5.0)), None);
    }

    #[test]
    fn ramps_have_the_stated_angles_and_meet_the_ground() {
        let layout = CourseLayout::new();
        let mut angles: Vec<i32> =
            layout.ramps.iter().filter(|r| r.solidity == Solidity::Solid).map(|r| r.degrees().round() as i32).collect();
        angles.sort();
        angles.dedup();
        assert_eq!(angles, vec![10, 20, 30]);
        let mut along_x = 0;
        for r in &layout.ramps {
            let (c, q, h) = r.slab();
            // The slab's top face passes through (low, base) and (high, base + height) within
            // 1 mm, along its axis (Z for the ramps and lane A's stairs, X on the turning stair).
            let end = match r.axis {
                Axis::X => Vec3::X * h.x,
                Axis::Z => Vec3::Z * h.z,
            };
            let top = |sign: f32| c + q * (Vec3::Y * h.y + end * sign);
            let (a, b) = (top(-1.0), top(1.0));
            let (lo, hi) = if a.y < b.y { (a, b) } else { (b, a) };
            let along = |p: Vec3| r.axis.split(Vec2::new(p.x, p.z)).1;
            assert!((lo.y - r.base).abs() < 1e-3 && (along(lo) - r.low).abs() < 1e-3, "{lo:?} vs {}", r.low);
            assert!((hi.y - r.base - r.height).abs() < 1e-3 && (along(hi) - r.high).abs() < 1e-3, "{hi:?}");
            along_x += usize::from(r.axis == Axis::X && r.base > 0.0);
        }
        assert_eq!(along_x, 2, "the turning stair's flight along X (from its landing): up and down");
    }

    #[test]
    fn stairs_have_three_rise_heights_and_the_step_is_15_cm() {
        let layout = CourseLayout::new();
        let step = layout.boxes.iter().find(|b| b.paint == Paint::Step).unwrap();
        assert!((step.half.y * 2.0 - 0.15).abs() < 1e-6);
        let mut tops: Vec<i32> = layout
            .boxes
            .iter()
            .filter(|b| b.paint == Paint::Stairs && b.solidity == Solidity::Tread)
            .map(|b| (b.half.y * 2.0 * 100.0).round() as i32)
            .collect();
        tops.sort();
        tops.dedup();
        // Rises 10 cm (10..40), 15 cm (15..60), 20 cm (20..60).
        for expected in [10, 20, 30, 40, 15, 45, 60] {
            assert!(tops.contains(&expected), "{tops:?} lacks {expected}");
        }
        // Every stair ramp of lane A follows its stairs (through the middle of each riser):
        // 10/15/20 cm rises give 17°, 27° and 32°.
        let mut stair_angles: Vec<i32> = layout
            .ramps
            .iter()
            .filter(|r| r.solidity == Solidity::ControllerOnly && r.axis == Axis::Z && r.across == 0.0 && r.low > 8.0)
            .map(|r| r.degrees().round() as i32)
            .collect();
        stair_angles.sort();
        assert_eq!(stair_angles, vec![17, 17, 27, 27, 32, 32]);
        assert_eq!(layout.section_at(Vec2::new(0.0, 5.0)), Section::Step);
        assert_eq!(layout.section_at(Vec2::new(-10.0, 5.0)), Section::Flat);
    }

    #[test]
    fn surface_heights_are_the_treads_for_feet_and_the_ramps_for_the_controller() {
        let layout = CourseLayout::new();
        let feet = |solidity: Solidity| solidity != Solidity::ControllerOnly;
        let mut treads = 0;
        for b in layout.boxes.iter().filter(|b| b.solidity == Solidity::Tread) {
            let at = Vec2::new(b.center.x, b.center.z);
            let top = b.center.y + b.half.y;
            assert!((layout.surface_height(at, feet) - top).abs() < 1e-5, "tread at {at}: {top}");
            // The controller rides the stairs' mean height: within a rise of the tread.
            let controller = layout.controller_height(at);
            assert!(controller > 0.0 && (controller - top).abs() <= 0.2 + 1e-5, "controller {controller} vs {top}");
            treads += 1;
        }
        assert!(treads > 10);
        for r in layout.ramps.iter().filter(|r| r.solidity == Solidity::Solid) {
            let mid = r.axis.join(r.across, (r.low + r.high) * 0.5);
            for h in [layout.surface_height(mid, feet), layout.controller_height(mid)] {
                assert!((h - r.height * 0.5).abs() < 1e-4, "ramp middle {h} vs half of {}", r.height);
            }
        }
        assert_eq!(layout.surface_height(Vec2::new(-10.0, 5.0), feet), 0.0);
        // The rough patch's bumps count for both (the controller collides with them too).
        let bump = Vec2::new(10.0, 13.0);
        let top = layout.rough.height(bump.x, bump.y);
        assert!(top > 0.05, "{top}");
        assert_eq!((layout.feet_height(bump), layout.controller_height(bump)), (top, top));
    }
}
