//! [`FootstepPrediction`]: swinging feet steered so they land on one surface — a whole tread,
//! not across its edge — and carried over the ground on their way. The prediction is ik_core's
//! [`FootstepJob`] (the method is there); this module gathers its inputs from the placer's
//! legs and gives it the Bevy ground: [`GroundProbe`]'s rays and sole-sized box casts (rapier's
//! or Avian's shape cast). The landing shift moves the toe the [`FootLock`] follows, or,
//! without a lock, the foot itself.
//!
//! [`FootLock`]: crate::feet::FootLock

use bevy::prelude::*;
use ik_core::Xform;
use ik_core::foot_placement::{FootRig, GroundHit};
use ik_core::footstep::{
    FootstepFoot, FootstepJob, FootstepLeg, FootstepOutput, FootstepSettings, RootVelocity, StepGround,
};

use crate::feet::FootStatus;
use crate::ground::GroundProbe;

/// Put next to a [`crate::feet::FootPlacer`] (usually with a [`crate::feet::FootLock`]) to
/// steer swinging feet onto whole treads and carry them over the ground on the way. The tuning
/// is ik_core's [`FootstepSettings`]. Costs six rays per swinging foot per frame on even ground
/// (under the landing's footprint), four more stepping up (under the toe tip's path ahead; more
/// where a ray starts inside something hanging over the foot), and a sole-sized box cast or two
/// per swing, more while it searches for a fit.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity) {
/// let mut prediction = FootstepPrediction::default();
/// prediction.settings.max_shift = 0.08; // never move a landing more than 8 cm
/// commands.entity(character).insert(prediction);
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default)]
#[require(FootstepPredictionState)]
pub struct FootstepPrediction {
    /// Search limits and learning.
    pub settings: FootstepSettings,
}

/// What a [`FootstepPrediction`] learned and decided (required by it; not reflected).
#[derive(Component, Clone, Debug, Default)]
pub struct FootstepPredictionState {
    /// Per leg, ik_core's memory.
    legs: Vec<FootstepLeg>,
    /// Per leg, last frame's feet as the job reads them.
    feet: Vec<FootstepFoot>,
    /// Per leg, this frame's landing shifts and swing floors.
    pub(crate) outputs: Vec<FootstepOutput>,
}

/// What the prediction stage reads from the placer this frame.
pub(crate) struct Legs<'a> {
    /// Animated ball per leg (model space: [`FootRig::ball`]).
    pub toes: &'a [Option<Vec3>],
    /// The legs' rigs (sole points).
    pub rigs: &'a [FootRig],
    /// The animated model pose.
    pub model: &'a [Xform],
    /// This frame's contact labels, where known before the lock runs.
    pub planted_now: Option<&'a [bool]>,
    /// Per leg, the animated floor under the foot (model y; empty: y = 0).
    pub floor_heights: &'a [f32],
}

/// The prediction stage: runs [`FootstepJob`] on the legs and records each foot's landing and
/// shift in `feet` (whose contact labels, last frame's, it reads). `ray` is foot placement's
/// (start above, length) in world units; `root` has this frame's root transform.
pub(crate) fn predict_steps(
    (settings, state): (&FootstepSettings, &mut FootstepPredictionState),
    (to_world, root): (Xform, &RootVelocity),
    legs: Legs,
    feet: &mut [FootStatus],
    (probe, character, ray): (&GroundProbe, Entity, (f32, f32)),
    dt: f32,
) {
    state.feet.clear();
    state.feet.extend(feet.iter().map(|f| FootstepFoot {
        contact: f.contact,
        ground: f.hit.then_some(f.ground_point),
        offset: f.offset,
        ball_height: f.toe_world.y,
    }));
    state.outputs.clear();
    state.outputs.resize(legs.toes.len(), FootstepOutput::default());
    let job = FootstepJob {
        to_world,
        root,
        model: legs.model,
        rigs: legs.rigs,
        toes: legs.toes,
        planted_now: legs.planted_now,
        floor_heights: legs.floor_heights,
        ray,
    };
    let mut ground = BevyGround { probe, character };
    job.run(settings, &mut state.legs, &state.feet, &mut ground, dt, &mut state.outputs);
    for (foot, out) in feet.iter_mut().zip(&state.outputs) {
        foot.landing = out.landing;
        foot.landing_shift = out.shift;
    }
}

/// The Bevy ground as footstep prediction probes it.
struct BevyGround<'p, 'a, 'w, 's> {
    probe: &'p GroundProbe<'a, 'w, 's>,
    character: Entity,
}

impl StepGround for BevyGround<'_, '_, '_, '_> {
    fn ray(&mut self, origin: Vec3, direction: Vec3, max: f32) -> Option<GroundHit> {
        self.probe.cast(origin, direction, max, self.character)
    }

    fn box_hits(&mut self, center: Vec3, rotation: Quat, half: Vec3, direction: Vec3, distance: f32) -> bool {
        self.probe.cast_box(center, rotation, half, direction, distance, self.character).is_some()
    }
}
