//! The pieces the course is made of (boxes, ramps, stair flights), its sections and their
//! areas, how they are painted and what collides with them.

use bevy::prelude::*;
use bevy_rapier3d::prelude::{CollisionGroups, Group};

use crate::marks::{OVERHANG_GROUP, STAIR_GROUP};

/// The kind of ground under the character, for the metrics table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// Level ground.
    Flat,
    /// The single 15 cm step (up and down).
    Step,
    /// Lane A's three short staircases.
    Stairs,
    /// Lane E's long straight flight (17 cm rises), up and down.
    LongStairs,
    /// Lane E's turning stair: up along Z, a quarter turn on a landing, over a flight along X,
    /// a quarter turn on a landing, down along Z.
    TurningStairs,
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
    pub const ALL: [Section; 10] = [
        Section::Flat,
        Section::Step,
        Section::Stairs,
        Section::LongStairs,
        Section::TurningStairs,
        Section::Ramps,
        Section::Rough,
        Section::Kerbs,
        Section::Platforms,
        Section::Overhang,
    ];

    /// Every kind of stairs.
    pub const STAIRS: [Section; 3] = [Section::Stairs, Section::LongStairs, Section::TurningStairs];

    /// Short label.
    pub fn label(self) -> &'static str {
        match self {
            Section::Flat => "flat",
            Section::Step => "step 15cm",
            Section::Stairs => "stairs",
            Section::LongStairs => "long stairs",
            Section::TurningStairs => "turning stairs",
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

/// Which horizontal axis a ramp climbs (or a flight of stairs runs) along.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Along world X.
    X,
    /// Along world Z (the lanes' direction).
    Z,
}

impl Axis {
    /// (across, along) coordinates of the point (x, z).
    pub fn split(self, p: Vec2) -> (f32, f32) {
        match self {
            Axis::X => (p.y, p.x),
            Axis::Z => (p.x, p.y),
        }
    }

    /// The point (x, z) at `across` and `along`.
    pub fn join(self, across: f32, along: f32) -> Vec2 {
        match self {
            Axis::X => Vec2::new(along, across),
            Axis::Z => Vec2::new(across, along),
        }
    }
}

/// A slab whose top face rises along `axis` from `base` at `low` to `base + height` at `high`.
#[derive(Clone, Copy, Debug)]
pub struct RampPiece {
    /// Which way the slope runs.
    pub axis: Axis,
    /// Centre across the slope (x for a ramp along Z, z for one along X).
    pub across: f32,
    /// Where the slope meets its base, along `axis`.
    pub low: f32,
    /// Where the slope meets its plateau, along `axis` (may be less than `low`).
    pub high: f32,
    /// Height of its base: 0 on the floor, a landing's top for a flight starting there, m.
    pub base: f32,
    /// Rise from the base to the plateau, m.
    pub height: f32,
    /// Width across the slope.
    pub width: f32,
    /// Who collides with it.
    pub solidity: Solidity,
}

impl RampPiece {
    /// A ramp along Z of `degrees` up to `height`, starting at `low` and rising toward `dir` (±1).
    pub fn with_angle(x: f32, low: f32, dir: f32, degrees: f32, height: f32, width: f32) -> Self {
        let run = height / degrees.to_radians().tan();
        RampPiece {
            axis: Axis::Z,
            across: x,
            low,
            high: low + dir.signum() * run,
            base: 0.0,
            height,
            width,
            solidity: Solidity::Solid,
        }
    }

    /// Slab thickness (its lower part hides under the ground and the plateau).
    pub const THICKNESS: f32 = 0.3;

    /// The slope's top height over (x, z), if the point is on its footprint.
    pub fn surface(&self, p: Vec2) -> Option<f32> {
        let (across, along) = self.axis.split(p);
        let (lo, hi) = (self.low.min(self.high), self.low.max(self.high));
        let inside = (across - self.across).abs() <= self.width * 0.5 && along >= lo && along <= hi;
        inside.then(|| self.base + self.height * ((along - self.low) / (self.high - self.low)).clamp(0.0, 1.0))
    }

    /// The slope's angle, degrees.
    pub fn degrees(&self) -> f32 {
        (self.height / (self.high - self.low).abs()).atan().to_degrees()
    }

    /// The slab's centre, rotation and half extents.
    pub fn slab(&self) -> (Vec3, Quat, Vec3) {
        let run = self.high - self.low;
        let s = run.signum();
        let angle = (self.height / run.abs()).atan();
        let len = (run * run + self.height * self.height).sqrt();
        let mid = self.axis.join(self.across, (self.low + self.high) * 0.5);
        let mid = Vec3::new(mid.x, self.base + self.height * 0.5, mid.y);
        let (rotation, half) = match self.axis {
            Axis::Z => (Quat::from_rotation_x(-s * angle), Vec3::new(self.width, Self::THICKNESS, len) * 0.5),
            Axis::X => (Quat::from_rotation_z(s * angle), Vec3::new(len, Self::THICKNESS, self.width) * 0.5),
        };
        let up = rotation * Vec3::Y;
        (mid - up * Self::THICKNESS * 0.5, rotation, half)
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

/// The footprint of a staircase (lane A's up, landing, down; lane E's long flight; each part of
/// lane E's turning stair) and its rise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StairFlight {
    /// Height of each step, m.
    pub rise: f32,
    /// Depth of each tread along the way it is walked, m.
    pub tread: f32,
    /// Minimum corner (x, z) (lane A: the first riser's foot).
    pub min: Vec2,
    /// Maximum corner (x, z) (lane A: the last riser's foot).
    pub max: Vec2,
}
