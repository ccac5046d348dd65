//! The level-of-detail scenarios ([`crate::scenario::Scenario::DefaultStack`] and
//! [`crate::scenario::Scenario::Crowd`]): the walking character with `HumanoidIk`'s default
//! stack (feet + lock + footstep prediction + look-at; no hand chain, as `HumanoidIk` without a
//! hand target), at a fixed [`IkLevel`] or chosen by distance to a viewer, with or without a
//! frame budget, and what they measure: characters per level, the budget's rates, and how far
//! planted feet end from the ground (the slab's top plane, computed exactly).
//!
//! **Crowd.** The characters stand on the usual square grid (1.5 m apart; 10 000 of them cover
//! 150 m × 150 m); the viewer stands 1.7 m up, 5 m before the middle of the grid's front edge,
//! with the default [`IkLodSettings`] (Reduced past 15 m, Minimal past 40 m, Off past 120 m).
//! With the budget: [`IkBudget`] of 4 ms, characters within 10 m always every frame.

use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::rig::{self, ANKLE_HEIGHT, BALL_AHEAD, Character};

/// The frame budget of the crowd's budget row, µs.
pub const CROWD_BUDGET_MICROS: f32 = 4000.0;

/// What a level-of-detail run measured after its last frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LodFigures {
    /// Characters at Full, Reduced, Minimal and Off.
    pub levels: [usize; 4],
    /// Characters solved every frame, every 2nd and every 4th ([`IkBudgetReport::at_rate`]).
    pub at_rate: [usize; 3],
    /// The budget's own reading of the last IK window, µs.
    pub budget_window_micros: f32,
    /// Per level (Full, Reduced, Minimal): planted feet measured, the highest lowest-sole-point
    /// of one above the ground and the deepest below it (m, ≥ 0). Planted: labelled in contact
    /// by the walk this frame and at a planted weight ≥ 0.99 in the last solve; characters
    /// still blending their placement in or out are left out.
    pub feet: [FeetFigures; 3],
}

/// Planted feet against the ground at one level ([`LodFigures::feet`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FeetFigures {
    /// Planted feet measured.
    pub planted: usize,
    /// Highest lowest-sole-point above the ground, m.
    pub max_float: f32,
    /// Deepest lowest-sole-point below the ground, m (≥ 0).
    pub max_sink: f32,
}

/// Turns a full walking character ([`rig::add_full_ik`] + [`rig::add_walking`] with
/// prediction) into the default stack: the hand chain taken off, and `lod` put on (`None`:
/// no [`IkLod`] at all).
pub fn default_stack(world: &mut World, c: &Character, lod: Option<IkLod>) {
    world.entity_mut(c.arm[3]).remove::<(IkChain, Pole)>();
    if let Some(lod) = lod {
        world.entity_mut(c.root).insert(lod);
    }
}

/// The crowd's viewer and, with `budget`, the 4 ms budget; `count` characters on the grid.
pub fn crowd(world: &mut World, count: usize, budget: bool) {
    let side = (count as f32).sqrt().ceil().max(1.0) - 1.0;
    let middle = side * rig::SPACING * 0.5;
    world.spawn((Transform::from_xyz(middle, rig::ground_height(middle, -5.0) + 1.7, -5.0), IkLodViewer));
    if budget {
        world.insert_resource(IkBudget { micros: CROWD_BUDGET_MICROS, always_within: 10.0 });
    }
}

/// Characters per level, the budget's rates and the planted feet's float over the ground.
pub fn figures(world: &mut World) -> LodFigures {
    let mut out = LodFigures::default();
    let mut states = world.query::<&IkLodState>();
    for state in states.iter(world) {
        out.levels[state.level as usize] += 1;
    }
    if let Some(report) = world.get_resource::<IkBudgetReport>() {
        out.at_rate = report.at_rate;
        out.budget_window_micros = report.last_micros;
    }
    let plane = rig::ground_plane();
    let normal = plane.normal.normalize();
    let above = |p: Vec3| (p - Vec3::Y * plane.height).dot(normal);
    let mut placers = world.query::<(&FootPlacer, &FootPlacerState, Option<&FootContacts>, Option<&IkLodState>)>();
    let mut feet: Vec<(usize, Entity, Entity)> = Vec::new();
    for (placer, state, contacts, lod) in placers.iter(world) {
        let level = lod.map_or(0, |l| l.level as usize);
        if level > 2 || lod.is_some_and(|l| l.fades.placement < 1.0) {
            continue;
        }
        let labels = contacts.and_then(FootContacts::manual).map_or(vec![true; placer.legs.len()], <[bool]>::to_vec);
        for ((leg, status), label) in placer.legs.iter().zip(&state.feet).zip(labels) {
            if label && status.planted >= 0.99 {
                feet.push((level, leg.ankle, leg.toe.unwrap_or(leg.ankle)));
            }
        }
    }
    for (level, ankle, ball) in feet {
        let (Some(a), Some(b)) = (world.get::<GlobalTransform>(ankle), world.get::<GlobalTransform>(ball)) else {
            continue;
        };
        let lowest = [
            a.transform_point(Vec3::new(0.0, -ANKLE_HEIGHT, 0.0)),
            a.transform_point(Vec3::new(0.0, -ANKLE_HEIGHT, -0.45 * BALL_AHEAD)),
            b.translation(),
            b.transform_point(Vec3::new(0.0, 0.0, 0.55 * BALL_AHEAD)),
        ]
        .into_iter()
        .map(above)
        .fold(f32::INFINITY, f32::min);
        let f = &mut out.feet[level];
        f.max_float = if f.planted == 0 { lowest } else { f.max_float.max(lowest) };
        f.max_sink = f.max_sink.max(-lowest);
        f.planted += 1;
    }
    out
}
