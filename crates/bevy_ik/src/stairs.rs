//! Stairs ahead of a character, found by probing the ground along its travel: what a
//! controller needs to put one step on each tread, with no level data.
//!
//! Method: a system in [`crate::IkSystems::Prepare`] follows each [`StairFinder`] root's world
//! position; from its horizontal travel it takes the direction it goes (kept while it stands), and whenever the
//! root has moved [`StairFinder::reprobe`] since the last probe or turned by more than
//! [`StairFinder::turn`], it casts rays down along that line through the [`GroundProbe`]
//! (rapier, Avian or the plane) and runs [`ik_core::stairs::find_flight`]. The flight is kept
//! between probes in the line's frame, so [`StairsAhead::risers_from`] answers for wherever the
//! root is now; a probe that finds nothing (a landing, a turn, the rays across the flight's
//! side) keeps it until the root is [`StairFinder::keep`] past its last riser. Output:
//! [`StairsAhead`] on the same entity (inserted on the first frame).
//! A controller turns it into a pace with [`ik_core::stairs::stair_speed`] and
//! [`ik_core::stairs::step_alignment`] (see [`StairsAhead`]).

use bevy::prelude::*;
use ik_core::stairs::{Flight, StairSettings, find_flight, stair_speed, step_alignment};

use crate::feet::FootPlacerState;
use crate::ground::{GroundProbe, GroundRays};

/// Finds stairs along a character's travel (put it on the character root, beside
/// [`crate::humanoid::HumanoidIk`] or a [`crate::feet::FootPlacer`]); the result is in
/// [`StairsAhead`].
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ik::stairs::StairFinder;
///
/// fn spawn(mut commands: Commands) {
///     // Metres; a character of another size scales the look-ahead and the step sizes.
///     commands.spawn((Transform::default(), StairFinder::default()));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Reflect, Clone, Debug)]
#[reflect(Component)]
pub struct StairFinder {
    /// What a flight is and how far to look ([`ik_core::stairs::StairSettings`]), world units.
    pub settings: StairSettings,
    /// Probe again after the root has moved this far, world units. Default 0.15.
    pub reprobe: f32,
    /// Probe again after the travel turned by more than this, radians. Default 0.26 (15°).
    pub turn: f32,
    /// Rays start this far above the root and are twice as long, world units. Default 1.5.
    pub ray_height: f32,
    /// How far past its last riser a flight is kept while no other is seen (its top landing,
    /// a turn onto the next flight), world units. Default 2.0: a landing up to 2 m across, so a
    /// controller keeps its stair pace while it turns onto the next flight.
    pub keep: f32,
    /// [`StairsAhead::walking_speed`] paces a walk from this far before a flight's first
    /// riser, world units. Default 2.0: the speed settles within half a metre, and footstep
    /// prediction, which learns each landing from the last steps, needs a few steps at the new
    /// speed before the first riser.
    pub pace_within: f32,
    /// How far past a riser a toe lands well, world units: the foot in the middle of its
    /// tread. Default 0.22 (a 32 cm tread, a toe joint about 20 cm ahead of the heel and 7 cm
    /// behind the tip).
    pub toe_on_tread: f32,
}

impl Default for StairFinder {
    fn default() -> Self {
        StairFinder {
            settings: StairSettings::default(),
            reprobe: 0.15,
            turn: 0.26,
            ray_height: 1.5,
            keep: 2.0,
            pace_within: 2.0,
            toe_on_tread: 0.22,
        }
    }
}

/// The flight [`StairFinder`] sees along the character's travel, if any, and the pace a walk
/// keeps on it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ik::prelude::*;
///
/// /// A walk at 1.4 m/s taking 70 cm steps, slowed to one step per tread near stairs.
/// fn pace(characters: Query<(&StairsAhead, &StairFinder, &GlobalTransform, Option<&FootPlacerState>)>) {
///     for (stairs, finder, at, feet) in &characters {
///         let speed = stairs.walking_speed(finder, at.translation(), (1.4, 0.7), feet).unwrap_or(1.4);
///         info!("walk at {speed} m/s");
///     }
/// }
/// # bevy::ecs::system::assert_is_system(pace);
/// ```
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(Component)]
pub struct StairsAhead {
    /// The flight along the line from [`StairsAhead::origin`] along
    /// [`StairsAhead::direction`], distances along it.
    pub flight: Option<Flight>,
    /// Where the root was when the ground was last probed (world).
    pub origin: Vec3,
    /// The horizontal direction probed (world, unit; zero before the root first moved).
    pub direction: Vec3,
    /// The root's position last frame (world), for its travel.
    last: Option<Vec3>,
    /// Where and along which direction the ground was last probed (world).
    probed: Option<(Vec3, Vec3)>,
}

impl StairsAhead {
    /// The flight's first and last riser seen, as distances from `at` (world) along the line
    /// probed (negative: behind), and the flight; `None` without one.
    pub fn risers_from(&self, at: Vec3) -> Option<(f32, f32, Flight)> {
        let flight = self.flight?;
        let along = (at - self.origin).dot(self.direction);
        Some((flight.first - along, flight.last - along, flight))
    }

    /// The speed for a walk at `walk_speed` taking `walk_step` per step (half its stride) with
    /// its root at `at` (world): one tread per step ([`stair_speed`]) while a flight is under
    /// it, kept behind it, or its first riser is within [`StairFinder::pace_within`]; before
    /// the first riser also nudged ([`step_alignment`]) so the swinging foot's landing as
    /// animated (`feet`' [`FootstepPrediction`](crate::footstep::FootstepPrediction) landing,
    /// its shift taken off) and the steps after it line up with the treads. `None` without
    /// stairs near: the walk's own speed.
    pub fn walking_speed(
        &self,
        finder: &StairFinder,
        at: Vec3,
        (walk_speed, walk_step): (f32, f32),
        feet: Option<&FootPlacerState>,
    ) -> Option<f32> {
        let (first, _, flight) = self.risers_from(at).filter(|(first, _, _)| *first <= finder.pace_within)?;
        let speed = stair_speed(walk_speed, walk_step, flight.tread);
        if first <= 0.0 {
            return Some(speed);
        }
        let landing = feet.into_iter().flat_map(|f| &f.feet).find_map(|f| {
            let landing = f.landing?;
            Some((landing - at).dot(self.direction) - f.landing_shift)
        });
        Some(landing.map_or(speed, |l| speed * step_alignment(first - l, flight.tread, finder.toe_on_tread)))
    }
}

/// Keeps each [`StairFinder`]'s [`StairsAhead`] (see the module docs).
pub(crate) fn find_stairs(
    mut commands: Commands,
    rays: GroundRays,
    mut finders: Query<(Entity, &StairFinder, &GlobalTransform, Option<&mut StairsAhead>)>,
) {
    let probe = rays.probe();
    for (root, finder, at, state) in &mut finders {
        let at = at.translation();
        let Some(mut state) = state else {
            commands.entity(root).insert(StairsAhead { last: Some(at), ..default() });
            continue;
        };
        let moved = state.last.map_or(Vec3::ZERO, |last| (at - last) * Vec3::new(1.0, 0.0, 1.0));
        state.last = Some(at);
        let Some(heading) = moved.try_normalize() else { continue };
        let due = state.probed.is_none_or(|(from, along)| {
            along.angle_between(heading) > finder.turn || (at - from).length() >= finder.reprobe
        });
        if !due {
            continue;
        }
        state.probed = Some((at, heading));
        match probe_line(&probe, root, at, heading, finder) {
            Some(flight) => (state.flight, state.origin, state.direction) = (Some(flight), at, heading),
            // Nothing along this line (turning on a landing, the rays across the flight's
            // side): the flight found before holds until the root is `keep` past its last riser.
            None if state.risers_from(at).is_some_and(|(_, last, _)| last >= -finder.keep) => {}
            None => state.flight = None,
        }
    }
}

/// The flight along `direction` from `at` (world), probed for `root`.
fn probe_line(probe: &GroundProbe, root: Entity, at: Vec3, direction: Vec3, finder: &StairFinder) -> Option<Flight> {
    let top = Vec3::Y * finder.ray_height;
    let length = 2.0 * finder.ray_height;
    let ground = |s: f32| probe.cast(at + direction * s + top, Vec3::NEG_Y, length, root).map(|hit| hit.point.y);
    find_flight(ground, &finder.settings)
}
