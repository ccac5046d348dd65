//! The obstacle course: flat ground, a single 15 cm step, three staircases (10, 15 and 20 cm
//! rises), ramps of 10°, 20° and 30°, and a patch of rough bumpy ground.
//!
//! Method: [`CourseLayout::new`] describes every piece as plain data (boxes, ramps, the rough
//! patch), the metric sections as rectangles and the autopilot route as a polyline;
//! [`spawn_course`] turns it into rapier colliders, plus lit meshes when [`Visuals`] is on.
//! Colliders and meshes come from the same numbers, so what is drawn is what feet stand on.
//! Stairs are walked the way many games do it: the character controller slides up an invisible
//! ramp through the middle of each riser (a sensor only the controller sees), while the
//! treads are real colliders in a group the controller ignores — so the body glides at the
//! stairs' mean height and foot IK finds the treads.
//! Invariants: world +Y up, ground top at y = 0; boxes never overlap (no z-fighting, no internal
//! seams at equal heights); lanes run along Z: A (x = 0) step and stairs, B (x = 5) ramps,
//! C (x = 10) rough ground, D (x = 16) a sliding platform, a turning disc and a board to walk
//! under ([`crate::course_lanes`]); kerbs on the crossings A → B and B → C.

use bevy::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::course_lanes::{LANE_D, PlatformPiece};
use crate::course_mesh::RoughPatch;

pub use crate::course_spawn::spawn_course;

/// Whether to spawn meshes and lights (off in `--headless`).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visuals(pub bool);

/// The kind of ground under the character, for the metrics table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// Level ground.
    Flat,
    /// The single 15 cm step (up and down).
    Step,
    /// The staircases.
    Stairs,
    /// The 10°, 20° and 30° ramps.
    Ramps,
    /// Rough bumpy ground.
    Rough,
    /// The 13 cm kerbs on the crossings between lanes.
    Kerbs,
    /// Lane D's sliding platform and turning disc.
    Platforms,
    /// Lane D's board hanging over the floor.
    Overhang,
}

impl Section {
    /// All sections in table order.
    pub const ALL: [Section; 8] = [
        Section::Flat,
        Section::Step,
        Section::Stairs,
        Section::Ramps,
        Section::Rough,
        Section::Kerbs,
        Section::Platforms,
        Section::Overhang,
    ];

    /// Short label.
    pub fn label(self) -> &'static str {
        match self {
            Section::Flat => "flat",
            Section::Step => "step 15cm",
            Section::Stairs => "stairs",
            Section::Ramps => "ramps",
            Section::Rough => "rough",
            Section::Kerbs => "kerbs 13cm",
            Section::Platforms => "platforms",
            Section::Overhang => "under board",
        }
    }
}

/// Colour family of a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// The 15 cm step.
    Step,
    /// Stair treads.
    Stairs,
    /// Ramps and their plateaus.
    Ramp,
    /// Kerbs.
    Kerb,
    /// The board hanging over lane D and its posts.
    Overhang,
}

/// Collision group of stair treads: feet see them, the character controller does not.
pub const STAIR_GROUP: Group = Group::GROUP_2;
/// Collision group of things hanging over the floor: the feet's rays see them, the character
/// controller and the metrics' floor rays do not.
pub const OVERHANG_GROUP: Group = Group::GROUP_3;
/// Collision group of the moving platforms: feet and metrics see them, the character
/// controller does not (it walks on their still stand-ins, see [`crate::platforms`]).
pub const PLATFORM_GROUP: Group = Group::GROUP_4;

/// What the controller and the feet make of a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solidity {
    /// Seen by everything.
    Solid,
    /// Stair treads: seen by feet, not by the character controller.
    Tread,
    /// Invisible sensor seen only by the character controller (stair ramps and landings).
    ControllerOnly,
    /// Hangs over the floor: seen by the feet's rays, not by the character controller (the
    /// body passes through it) nor as the floor.
    Overhang,
}

impl Solidity {
    pub(crate) fn components(self) -> (CollisionGroups, bool) {
        match self {
            Solidity::Solid => (CollisionGroups::default(), false),
            Solidity::Tread => (CollisionGroups::new(STAIR_GROUP, Group::ALL), false),
            Solidity::ControllerOnly => (CollisionGroups::default(), true),
            Solidity::Overhang => (CollisionGroups::new(OVERHANG_GROUP, Group::ALL), false),
        }
    }
}

/// An axis-aligned box standing on the ground.
#[derive(Clone, Copy, Debug)]
pub struct BoxPiece {
    /// Centre, world.
    pub center: Vec3,
    /// Half extents.
    pub half: Vec3,
    /// Colour family.
    pub paint: Paint,
    /// Who collides with it.
    pub solidity: Solidity,
}

/// A slab whose top face rises from the ground at `z_low` to `height` at `z_high`.
#[derive(Clone, Copy, Debug)]
pub struct RampPiece {
    /// Lane centre x.
    pub x: f32,
    /// Where the slope meets the ground.
    pub z_low: f32,
    /// Where the slope meets its plateau (may be less than `z_low`).
    pub z_high: f32,
    /// Plateau height.
    pub height: f32,
    /// Lane width.
    pub width: f32,
    /// Who collides with it.
    pub solidity: Solidity,
}

impl RampPiece {
    /// A ramp of `degrees` up to `height`, starting at `z_low` and rising toward `dir` (±1).
    pub fn with_angle(x: f32, z_low: f32, dir: f32, degrees: f32, height: f32, width: f32) -> Self {
        let run = height / degrees.to_radians().tan();
        RampPiece { x, z_low, z_high: z_low + dir.signum() * run, height, width, solidity: Solidity::Solid }
    }

    /// Slab thickness (its lower part hides under the ground and the plateau).
    pub const THICKNESS: f32 = 0.3;

    /// The slab's centre, rotation and half extents.
    pub fn slab(&self) -> (Vec3, Quat, Vec3) {
        let run = self.z_high - self.z_low;
        let s = run.signum();
        let angle = (self.height / run.abs()).atan();
        let len = (run * run + self.height * self.height).sqrt();
        let rotation = Quat::from_rotation_x(-s * angle);
        let up = rotation * Vec3::Y;
        let mid = Vec3::new(self.x, self.height * 0.5, (self.z_low + self.z_high) * 0.5);
        (mid - up * Self::THICKNESS * 0.5, rotation, Vec3::new(self.width * 0.5, Self::THICKNESS * 0.5, len * 0.5))
    }
}

/// A rectangle of the course (x, z) that belongs to a section.
#[derive(Clone, Copy, Debug)]
pub struct SectionArea {
    /// Which section.
    pub section: Section,
    /// Minimum corner (x, z).
    pub min: Vec2,
    /// Maximum corner (x, z).
    pub max: Vec2,
}

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

/// One staircase (up, landing, down) of lane A.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StairFlight {
    /// Height of each step, m.
    pub rise: f32,
    /// Minimum corner (x, z): the first riser's foot.
    pub min: Vec2,
    /// Maximum corner (x, z): the last riser's foot.
    pub max: Vec2,
}

const LANE_WIDTH: f32 = 2.4;

impl CourseLayout {
    /// The course used by the demo and the autopilot.
    pub fn new() -> Self {
        let mut boxes = Vec::new();
        let w = LANE_WIDTH * 0.5;
        // Lane A: the 15 cm step, a platform 4 m long.
        boxes.push(BoxPiece {
            center: Vec3::new(0.0, 0.075, 5.0),
            half: Vec3::new(w, 0.075, 2.0),
            paint: Paint::Step,
            solidity: Solidity::Solid,
        });
        // Lane A: three staircases (up, landing, down).
        let mut ramps = Vec::new();
        let mut flights = Vec::new();
        for (z0, rise, tread, n) in [(10.0, 0.10, 0.32, 4), (16.0, 0.15, 0.30, 4), (22.0, 0.20, 0.32, 3)] {
            let length = stairs(&mut boxes, &mut ramps, z0, rise, tread, n, 1.2);
            flights.push(StairFlight { rise, min: Vec2::new(-w, z0), max: Vec2::new(w, z0 + length) });
        }
        // Lane B: ramps 10°, 20°, 30° up to 0.8 m, plateau, and down, walked toward -Z.
        let mut z = 25.5;
        for degrees in [10.0f32, 20.0, 30.0] {
            let up = RampPiece::with_angle(5.0, z, -1.0, degrees, 0.8, LANE_WIDTH);
            let plateau_start = up.z_high;
            let plateau_end = plateau_start - 1.2;
            let down = RampPiece::with_angle(5.0, plateau_end - (up.z_low - up.z_high), 1.0, degrees, 0.8, LANE_WIDTH);
            boxes.push(BoxPiece {
                center: Vec3::new(5.0, 0.4, (plateau_start + plateau_end) * 0.5),
                half: Vec3::new(w, 0.4, 0.6),
                paint: Paint::Ramp,
                solidity: Solidity::Solid,
            });
            ramps.push(up);
            ramps.push(down);
            z = down.z_low - 2.0;
        }
        let rough = RoughPatch { min: Vec2::new(8.0, 1.0), size: Vec2::new(4.0, 20.0), spacing: 0.1 };
        let kerb_areas = crate::course_lanes::kerbs(&mut boxes);
        let (platforms, board) = crate::course_lanes::lane_d(&mut boxes);
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
        let route = vec![
            Vec2::new(0.0, -2.0),
            Vec2::new(0.0, 28.0),
            Vec2::new(5.0, 28.0),
            Vec2::new(5.0, -0.5),
            Vec2::new(10.0, -0.5),
            Vec2::new(10.0, 22.5),
            Vec2::new(LANE_D, 22.5),
            Vec2::new(LANE_D, 7.5),
        ];
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
        self.ramps.iter().filter(|r| r.solidity == Solidity::Solid).find_map(|r| {
            let (lo, hi) = (r.z_low.min(r.z_high), r.z_low.max(r.z_high));
            let inside = (p.x - r.x).abs() <= r.width * 0.5 && p.y >= lo && p.y <= hi;
            inside.then(|| (r.height / (hi - lo)).atan().to_degrees().round() as u32)
        })
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
        let ramps = self.ramps.iter().filter(|r| sees(r.solidity)).filter_map(|r| {
            let (lo, hi) = (r.z_low.min(r.z_high), r.z_low.max(r.z_high));
            let inside = (p.x - r.x).abs() <= r.width * 0.5 && p.y >= lo && p.y <= hi;
            inside.then(|| r.height * ((p.y - r.z_low) / (r.z_high - r.z_low)).clamp(0.0, 1.0))
        });
        let rough = crate::course_mesh::walkable_height(&self.rough, p.x, p.y);
        boxes.chain(ramps).chain(platforms).fold(rough, f32::max)
    }

    /// Whether (x, z) is under something hanging over the floor.
    pub fn under_overhang(&self, p: Vec2) -> bool {
        self.overhangs.iter().any(|(min, max)| p.cmpge(*min).all() && p.cmple(*max).all())
    }

    /// The stair nosings to draw (visual only, no collider): (centre, half extents) of a strip
    /// along every tread edge with a drop below it, wrapping the edge 3 mm proud of the tread and
    /// the riser, so the edges read from above and from the front.
    pub fn nosings(&self) -> Vec<(Vec3, Vec3)> {
        const DEPTH: f32 = 0.04;
        const HEIGHT: f32 = 0.03;
        const PROUD: f32 = 0.003;
        let feet = |solidity: Solidity| solidity != Solidity::ControllerOnly;
        let mut strips = Vec::new();
        for b in self.boxes.iter().filter(|b| b.solidity == Solidity::Tread) {
            let top = b.center.y + b.half.y;
            for side in [-1.0f32, 1.0] {
                let edge = b.center.z + side * b.half.z;
                let beyond = Vec2::new(b.center.x, edge + side * 0.01);
                if self.surface_height(beyond, feet) < top - 0.01 {
                    let z = edge - side * (DEPTH * 0.5 - PROUD);
                    let center = Vec3::new(b.center.x, top + PROUD - HEIGHT * 0.5, z);
                    strips.push((center, Vec3::new(b.half.x + PROUD, HEIGHT * 0.5, DEPTH * 0.5)));
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
        self.flights.iter().find(|f| p.cmpge(f.min).all() && p.cmple(f.max).all()).map(|f| f.rise)
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

/// A staircase of `n` steps up, a landing, and `n` steps down, starting at `z0` (toward +Z).
/// The top step, the landing and the first step down are one box (no seam at equal height).
/// The treads are [`Solidity::Tread`]; the controller walks a ramp through the middle of each
/// riser (from half a tread before the first step to half a tread onto the top), the landing,
/// and the mirrored ramp. Returns the staircase's length along Z, m.
fn stairs(
    boxes: &mut Vec<BoxPiece>,
    ramps: &mut Vec<RampPiece>,
    z0: f32,
    rise: f32,
    tread: f32,
    n: usize,
    landing: f32,
) -> f32 {
    let w = LANE_WIDTH * 0.5;
    let mut push = |z_a: f32, z_b: f32, top: f32, solidity: Solidity| {
        boxes.push(BoxPiece {
            center: Vec3::new(0.0, top * 0.5, (z_a + z_b) * 0.5),
            half: Vec3::new(w, top * 0.5, (z_b - z_a) * 0.5),
            paint: Paint::Stairs,
            solidity,
        });
    };
    let top_start = z0 + (n - 1) as f32 * tread;
    let top_end = top_start + 2.0 * tread + landing;
    for i in 0..n - 1 {
        let top = (i + 1) as f32 * rise;
        push(z0 + i as f32 * tread, z0 + (i + 1) as f32 * tread, top, Solidity::Tread);
        push(top_end + (n - 2 - i) as f32 * tread, top_end + (n - 1 - i) as f32 * tread, top, Solidity::Tread);
    }
    let height = n as f32 * rise;
    push(top_start, top_end, height, Solidity::Tread);
    // The controller's ramp runs half a tread behind the nosings, through the middle of each
    // riser: the body rides the stairs' mean height, so planted feet ask the pelvis for half a
    // rise less (and the foot on the upper tread for up to half a rise up).
    let half = 0.5 * tread;
    push(top_start + half, top_end - half, height, Solidity::ControllerOnly);
    let ramp = |z_low: f32, z_high: f32| RampPiece {
        x: 0.0,
        z_low,
        z_high,
        height,
        width: LANE_WIDTH,
        solidity: Solidity::ControllerOnly,
    };
    ramps.push(ramp(z0 - half, top_start + half));
    ramps.push(ramp(top_end + n as f32 * tread - half, top_end - half));
    top_end + (n - 1) as f32 * tread - z0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_staircase_footprint_knows_its_rise() {
        let layout = CourseLayout::new();
        let rises: Vec<f32> = layout.flights.iter().map(|f| f.rise).collect();
        assert_eq!(rises, [0.10, 0.15, 0.20]);
        for flight in &layout.flights {
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
        let mut angles: Vec<i32> = layout
            .ramps
            .iter()
            .filter(|r| r.solidity == Solidity::Solid)
            .map(|r| (r.height / (r.z_high - r.z_low).abs()).atan().to_degrees().round() as i32)
            .collect();
        angles.sort();
        angles.dedup();
        assert_eq!(angles, vec![10, 20, 30]);
        for r in &layout.ramps {
            let (c, q, h) = r.slab();
            // The slab's top face passes through (z_low, 0) and (z_high, height) within 1 mm.
            let top_low = c + q * Vec3::new(0.0, h.y, -h.z);
            let top_high = c + q * Vec3::new(0.0, h.y, h.z);
            let (lo, hi) = if top_low.y < top_high.y { (top_low, top_high) } else { (top_high, top_low) };
            assert!(lo.y.abs() < 1e-3 && (lo.z - r.z_low).abs() < 1e-3, "{lo:?} vs {}", r.z_low);
            assert!((hi.y - r.height).abs() < 1e-3 && (hi.z - r.z_high).abs() < 1e-3, "{hi:?}");
        }
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
        // Every stair ramp follows its stairs (through the middle of each riser): 10/15/20 cm
        // rises give 17°, 27° and 32°.
        let mut stair_angles: Vec<i32> = layout
            .ramps
            .iter()
            .filter(|r| r.solidity == Solidity::ControllerOnly)
            .map(|r| (r.height / (r.z_high - r.z_low).abs()).atan().to_degrees().round() as i32)
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
            let mid = Vec2::new(r.x, (r.z_low + r.z_high) * 0.5);
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
