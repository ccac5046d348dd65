//! [`FootstepPrediction`]: swinging feet steered so they land on one surface — a whole tread,
//! not across its edge — using [`ik_core::footstep`].
//!
//! Each frame, before foot locking, per leg: the contact label (the [`FootLock`]'s,
//! else the placement's planted weight, as of last frame) and the animated toe in the
//! character's frame feed the leg's [`FootstepState`]. While the foot swings and a step has
//! been learned, the landing is predicted (the root's velocity is measured from its world
//! position frame to frame), the ground under its footprint (heel point to toe tip, from the
//! leg's sole points, its length that of the flat foot) is probed — a ray down at six points,
//! and a box the size of the sole swept down over the whole footprint for what stands up
//! between the rays (a rail, a lip; [`GroundProbe::cast_box`], rapier's or Avian's shape cast) —
//! and when it straddles an edge a shift along the stride is chosen ([`choose_landing`]: with
//! room to spare beyond heel and tip where a shift gives it, else the middle of a tread barely
//! longer than the foot). The
//! shift eases in over the swing and is held through the contact; it moves the toe the lock
//! follows (so the lock holds the foot where it landed), or, without a lock, the
//! foot itself. The swinging foot is also carried over the ground on its way (placement's swing
//! floors): raised evenly toward higher ground under its toe tip's path ahead, in time to be
//! over it, and let down past a nosing over frames, not in one; a foot labelled planted this
//! frame ([`crate::feet::ContactSource::Manual`]) is carried over nothing.
//!
//! [`FootLock`]: crate::feet::FootLock

use std::cell::Cell;

use bevy::prelude::*;
use ik_core::Xform;
use ik_core::foot_placement::{FootRig, SwingFloor, ground_under};
use ik_core::footstep::{
    FootprintGround, FootstepSettings, FootstepState, choose_landing, descending_floor, landing_still_fits,
    rising_floor, turn_about_y,
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
pub struct FootstepPrediction {
    /// Search limits and learning.
    pub settings: FootstepSettings,
}

/// Per-character memory of the prediction (inside the placer's state).
#[derive(Clone, Debug, Default)]
pub(crate) struct StepMemory {
    /// Per leg.
    pub steps: Vec<FootstepState>,
    /// Per leg, the last region the sole box found clear ([`SoleGround`]).
    cleared: Vec<Option<ClearSole>>,
    /// Per leg, the ground point (world) the foot last stood on.
    takeoff: Vec<Option<Vec3>>,
    /// Per leg, the ground under this swing's predicted landing: where it was probed and the
    /// height found (world), reused while the landing moves less than [`SOLE_REUSE`].
    landing_ground: Vec<Option<(Vec3, f32)>>,
}

/// How the character's root moves, measured from its world transform frame to frame (inside
/// the placer's state): the stride's direction for footstep prediction, the "front" of
/// [`ik_core::foot_placement::PelvisSupport::FrontFoot`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RootMotion {
    /// The root's world position and rotation last frame.
    last: Option<(Vec3, Quat)>,
    /// The root's smoothed world velocity, m/s.
    pub velocity: Vec3,
    /// The root's smoothed turning rate about world +Y, rad/s.
    pub yaw_rate: f32,
}

impl RootMotion {
    /// Below this horizontal speed (m/s) the root counts as standing: no direction of travel.
    const STANDING: f32 = 0.2;

    /// Takes this frame's root transform, `dt` after the last one (non-finite input is skipped).
    pub fn update(&mut self, to_world: Xform, dt: f32) {
        let (at, rotation) = (to_world.translation, to_world.rotation);
        if let (Some((last_at, last_rotation)), true) = (self.last, dt > 0.0) {
            let velocity = (at - last_at) / dt;
            if velocity.is_finite() {
                self.velocity = self.velocity.lerp(velocity, 0.3);
            }
            let turned = turn_about_y(last_rotation, rotation);
            if turned.is_finite() {
                self.yaw_rate += (turned / dt - self.yaw_rate) * 0.3;
            }
        }
        self.last = (at.is_finite() && rotation.is_finite()).then_some((at, rotation));
    }

    /// The horizontal world direction the root travels in, `None` while nearly standing.
    pub fn forward(&self) -> Option<Vec3> {
        let flat = Vec3::new(self.velocity.x, 0.0, self.velocity.z);
        (flat.length() > Self::STANDING).then(|| flat.normalize())
    }

    /// [`Self::forward`] in the character's model space (zero while nearly standing), for
    /// [`ik_core::foot_placement::FootPlacement::travel`].
    pub fn travel_in_model(&self, to_world: Xform) -> Vec3 {
        self.forward().and_then(|f| (to_world.rotation.inverse() * f).try_normalize()).unwrap_or(Vec3::ZERO)
    }
}

/// What [`steer_swings`] reads from the placer.
pub(crate) struct Legs<'a> {
    /// Animated ball per leg (model space: [`ik_core::foot_placement::FootRig::ball`]).
    pub toes: &'a [Option<Vec3>],
    /// The legs' rigs (sole points).
    pub rigs: &'a [FootRig],
    /// The animated model pose.
    pub model: &'a [Xform],
    /// This frame's contact labels, where known before the lock runs
    /// ([`crate::feet::ContactSource::Manual`]): a foot labelled planted is carried over no
    /// floor, though the prediction still follows last frame's labels (what it learned from).
    pub planted_now: Option<&'a [bool]>,
    /// Per leg, the animated floor under the foot (model y; empty: y = 0), as for
    /// [`ik_core::foot_placement::FootPlacement::floor_heights`].
    pub floor_heights: &'a [f32],
}

/// Fills `steer` (model space, per leg) with the landing shifts that apply this frame and
/// `floors` with the ground each swinging foot is carried over (model y; none without a
/// prediction): stepping down by more than an edge, [`descending_floor`] from where it was
/// last frame (`feet`' offset over its animated floor) to the ground under its landing;
/// stepping up by more than an edge, [`rising_floor`] toward the ground under its toe tip at
/// four points of the learned path ahead ([`AHEAD`]) and under its landing (each found like
/// foot placement's, past anything hanging over it); level, none; none for a foot
/// [`Legs::planted_now`]. Records the predictions in `feet`, whose contact labels (last
/// frame's) are read. `ray` is (start above, length) in world units; `motion` has this frame's
/// root transform.
pub(crate) fn steer_swings(
    prediction: &FootstepPrediction,
    (memory, motion): (&mut StepMemory, &RootMotion),
    legs: Legs,
    (to_world, dt): (Xform, f32),
    feet: &mut [FootStatus],
    (probe, root, ray): (&GroundProbe, Entity, (f32, f32)),
    (steer, floors): (&mut [Vec3], &mut [SwingFloor]),
) {
    let settings = &prediction.settings;
    memory.steps.resize(legs.toes.len(), FootstepState::default());
    let (velocity, yaw_rate) = (motion.velocity, motion.yaw_rate);
    // The stride's direction: where the root goes (no steering while nearly standing).
    let forward = motion.forward();
    let up = (to_world.rotation * Vec3::Y).normalize_or(Vec3::Y);
    let scale = to_world.scale.y.abs();
    memory.cleared.resize(legs.toes.len(), None);
    memory.takeoff.resize(legs.toes.len(), None);
    memory.landing_ground.resize(legs.toes.len(), None);
    let model_height = |p: Vec3| to_world.inverse_transform_point(p).y;
    for (i, (step, toe)) in memory.steps.iter_mut().zip(legs.toes).enumerate() {
        steer[i] = Vec3::ZERO;
        floors[i] = SwingFloor::default();
        let (Some(toe), Some(status)) = (*toe, feet.get_mut(i)) else { continue };
        if status.contact {
            memory.takeoff[i] = status.hit.then_some(status.ground_point);
            memory.landing_ground[i] = None;
        }
        let aged = memory.cleared[i].filter(|c| c.frames_left > 0 && !status.contact);
        let cleared = Cell::new(aged.map(|c| ClearSole { frames_left: c.frames_left - 1, ..c }));
        let mut ground = SoleGround { probe, root, up, ray, cleared: &cleared };
        status.landing = None;
        let predicted = step.update(status.contact, toe, dt, settings);
        let mut goal = f32::NAN;
        if let (Some(next), Some(_)) = (predicted, forward) {
            // Where and along which line the foot lands, the body's turning included.
            let (landing, forward) = next.landing_turning(to_world, velocity, yaw_rate);
            let footprint = footprint(&legs.rigs[i], legs.model, toe, scale);
            let current = step.target_shift();
            // Between searches that found no landing with room to spare, keep the shift while
            // it still fits (a late landing moves on with the body).
            let search = step.search_due()
                || (current != 0.0 && !landing_still_fits(landing, forward, footprint, current, &mut ground, settings));
            goal = if search {
                let choice = choose_landing(landing, forward, footprint, current, &mut ground, settings);
                step.searched(choice.roomy);
                // Late in a swing a prediction moving by a centimetre can tip the choice to
                // the other side of the animated landing; one the foot cannot reach in time
                // keeps the shift it has.
                if step.reachable(choice.shift, settings) { choice.shift } else { current }
            } else {
                current
            };
            let at = landing + forward * goal;
            status.landing = Some(at);
            // The ground the swing is carried over, from where the foot stood to where it lands:
            // foot placement's own probe from the foot's height, so what hangs over the landing
            // (a board, a table) is not taken for its ground (world y).
            let ground_height = |p: Vec3| {
                let from = to_world.inverse_transform_point(Vec3::new(p.x, status.toe_world.y, p.z));
                let mut cast = |o: Vec3, d: Vec3, m: f32| probe.cast(o, d, m, root);
                let (start, length) = (ray.0 / scale.max(1e-6), ray.1 / scale.max(1e-6));
                ground_under(&mut cast, to_world, start, length, from).map(|hit| to_world.transform_point(hit.point).y)
            };
            let flat = |p: Vec3| Vec3::new(p.x, 0.0, p.z);
            let under = match memory.landing_ground[i].filter(|(p, _)| flat(*p).distance(flat(at)) <= SOLE_REUSE) {
                Some((_, height)) => Some(height),
                None => {
                    let height = ground_height(at);
                    memory.landing_ground[i] = height.map(|h| (at, h));
                    height
                }
            };
            if let (Some(takeoff), Some(height)) = (memory.takeoff[i], under) {
                let (from, to) = (model_height(takeoff), model_height(Vec3::new(at.x, height, at.z)));
                // Where the foot was (model y): its correction last frame over its animated floor.
                let last = status.offset + legs.floor_heights.get(i).copied().unwrap_or(0.0);
                let per_model = 1.0 / scale.max(1e-6);
                let edge = settings.edge_height * per_model;
                floors[i] = if to < from - edge {
                    // Stepping down (by more than an edge): let down from where it was.
                    descending_floor(last, to, next.remaining, dt, settings.swing_drop_speed * per_model)
                } else if to > from + edge {
                    // Stepping up: toward the ground its toe tip will be over along the learned
                    // path (where the root will be then, plus the toe's offset), and the landing.
                    let mut ahead = [(to, next.remaining); AHEAD.len() + 1];
                    for (slot, share) in ahead.iter_mut().zip(AHEAD) {
                        let Some(toe) = step.toe_ahead(&next, at, to_world, velocity, share) else { continue };
                        let tip = toe + forward * footprint.1;
                        if let Some(h) = ground_height(tip) {
                            *slot = (model_height(Vec3::new(tip.x, h, tip.z)), next.remaining * share);
                        }
                    }
                    rising_floor(last, ahead, dt)
                } else {
                    // Level: placement alone keeps the foot off the ground.
                    SwingFloor::default()
                };
            }
        }
        if legs.planted_now.is_some_and(|now| now.get(i) == Some(&true)) {
            floors[i] = SwingFloor::default();
        }
        memory.cleared[i] = cleared.get();
        let applied = step.swing_shift(goal, dt, settings);
        status.landing_shift = applied;
        if let (Some(forward), true) = (forward, applied != 0.0) {
            let model_forward = to_world.rotation.inverse() * forward / scale.max(1e-6);
            steer[i] = model_forward * applied;
        }
    }
}

/// Where, as shares of the time a swing has left, the ground under the toe tip's path ahead is
/// probed for [`rising_floor`] (the landing's ground is the last point).
const AHEAD: [f32; 4] = [0.125, 0.25, 0.5, 0.75];

/// How far above the height it checks ([`FootprintGround::clear`]'s `top`) the sole box starts
/// its sweep down to it, m.
const SOLE_LIFT: f32 = 0.05;
/// How much longer at each end and wider at each side than the footprint a sole box is first
/// swept, so that a footprint moved by less than this within the next frames is known clear
/// without another cast, m.
const SOLE_REUSE: f32 = 0.02;
/// For how many frames of one swing a clear region is reused at most (something could move
/// into it); it is forgotten when the foot lands.
const SOLE_REUSE_FRAMES: u8 = 30;

/// A region the sole box found clear: the footprint it was swept for (heel and tip, world), the
/// height it was checked down to, and the frames it may still be reused.
#[derive(Clone, Copy, Debug)]
struct ClearSole {
    heel: Vec3,
    tip: Vec3,
    top: f32,
    frames_left: u8,
}

/// The ground landings are fitted on: a ray down under each sampled point (`ray`: start above,
/// length), and a box the size of the sole swept down over a whole footprint for what stands up
/// between the rays. A box [`SOLE_REUSE`] larger all round is tried first; when it is clear,
/// footprints within that distance are known clear for [`SOLE_REUSE_FRAMES`] frames (`cleared`),
/// so a swing's landing, which moves by millimetres a frame, costs a box cast or two a swing.
struct SoleGround<'p, 'a, 'w, 's> {
    probe: &'p GroundProbe<'a, 'w, 's>,
    root: Entity,
    up: Vec3,
    ray: (f32, f32),
    cleared: &'p Cell<Option<ClearSole>>,
}

impl SoleGround<'_, '_, '_, '_> {
    /// Whether a box over the footprint from `heel` to `tip`, `grow` longer at each end and
    /// wider at each side, swept down to `top`, touches nothing.
    fn box_clear(&self, heel: Vec3, tip: Vec3, top: f32, grow: f32) -> bool {
        let along = Vec3::new(tip.x - heel.x, 0.0, tip.z - heel.z);
        let Some(forward) = along.try_normalize() else { return true };
        let length = along.length();
        let half = Vec3::new(0.1 * length + grow, 0.005, 0.5 * length + grow);
        let middle = (heel + tip) * 0.5;
        let from = Vec3::new(middle.x, top + SOLE_LIFT + half.y, middle.z);
        let rotation = Quat::from_rotation_arc(Vec3::Z, forward);
        self.probe.cast_box(from, rotation, half, Vec3::NEG_Y, SOLE_LIFT, self.root).is_none()
    }
}

impl FootprintGround for SoleGround<'_, '_, '_, '_> {
    fn height(&mut self, p: Vec3) -> Option<f32> {
        self.probe.cast(p + self.up * self.ray.0, -self.up, self.ray.1, self.root).map(|h| h.point.y)
    }

    /// A box as long as the footprint, a fifth as wide and 1 cm thick, swept down from
    /// [`SOLE_LIFT`] over `top`: anything it touches stands higher than `top`.
    fn clear(&mut self, heel: Vec3, tip: Vec3, top: f32) -> bool {
        let flat = |p: Vec3| Vec3::new(p.x, 0.0, p.z);
        let near = |a: Vec3, b: Vec3| flat(a).distance(flat(b)) <= SOLE_REUSE;
        if self.cleared.get().is_some_and(|c| near(c.heel, heel) && near(c.tip, tip) && top >= c.top) {
            return true;
        }
        if self.box_clear(heel, tip, top, SOLE_REUSE) {
            self.cleared.set(Some(ClearSole { heel, tip, top, frames_left: SOLE_REUSE_FRAMES }));
            return true;
        }
        self.box_clear(heel, tip, top, 0.0)
    }
}

/// The footprint of a foot about its toe joint (world units): how far its heel point lies behind
/// the toe and its toe tip ahead once the foot is flat (the sole's heel and tip, or 1.5 and 0.5
/// toe lengths without them). Measured as straight distances, so a foot pitched in its swing
/// has the footprint it will land with.
fn footprint(rig: &FootRig, model: &[Xform], toe: Vec3, scale: f32) -> (f32, f32) {
    let from_toe = |p: Vec3| p.distance(toe) * scale;
    let ankle = from_toe(model[rig.leg.ankle].translation);
    let point = |p: Option<ik_core::sole::SolePoint>| p.map(|p| from_toe(model[p.bone].transform_point(p.local)));
    (point(rig.heel).unwrap_or(ankle * 1.5), point(rig.tip).unwrap_or(ankle * 0.5))
}
