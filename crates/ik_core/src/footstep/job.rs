//! [`FootstepJob`]: footstep prediction for all of a character's legs in one call — each
//! swinging foot's landing predicted, moved along the stride onto one surface, and the ground
//! it is carried over on the way ([`SwingFloor`]) — and [`RootVelocity`], the root's motion
//! measured once a frame for it, pose warping and foot placement.

use glam::{Quat, Vec3};

use super::ground::{ClearSole, SOLE_REUSE, SoleGround, StepGround, footprint, horizontal_distance};
use super::{Footstep, turn_about_y};
use super::{FootstepSettings, FootstepState, choose_landing, descending_floor, landing_still_fits, rising_floor};
use crate::Xform;
use crate::foot_placement::{FootRig, SwingFloor};

/// How a character's root moves, measured from its world transform frame to frame: the
/// stride's direction for footstep prediction, the "front" of foot placement's pelvis support,
/// pose warping's velocity.
///
/// ```
/// use glam::{Quat, Vec3};
/// use ik_core::Xform;
/// use ik_core::footstep::RootVelocity;
///
/// let mut root = RootVelocity::default();
/// for frame in 0..60 {
///     let at = Vec3::Z * (1.4 * frame as f32 / 60.0);
///     root.update(Xform::from_translation_rotation(at, Quat::IDENTITY), 1.0 / 60.0);
/// }
/// assert!((root.measured.unwrap() - Vec3::Z * 1.4).length() < 1e-3);
/// assert_eq!(root.forward(), Some(Vec3::Z));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RootVelocity {
    /// The root's world position and rotation last frame.
    last: Option<(Vec3, Quat)>,
    /// The root's smoothed world velocity, m/s.
    pub velocity: Vec3,
    /// The root's smoothed turning rate about world +Y, rad/s.
    pub yaw_rate: f32,
    /// How fast its direction of travel turns about world +Y (smoothed, rad/s; 0 while nearly
    /// standing): the path's bend, which a body spinning to a new heading does not change.
    pub travel_turn_rate: f32,
    /// The root's velocity over the last frame that advanced (m/s, world; unsmoothed); `None`
    /// before two positions were seen.
    pub measured: Option<Vec3>,
    /// The last [`Self::forward`] while it moved, kept while it stands ([`Self::heading`]).
    heading: Option<Vec3>,
}

impl RootVelocity {
    /// Below this horizontal speed (m/s) the root counts as standing: no direction of travel.
    pub const STANDING: f32 = 0.2;

    /// Takes this frame's root transform, `dt` after the last one (non-finite input is skipped;
    /// `dt ≤ 0` keeps the velocities).
    pub fn update(&mut self, to_world: Xform, dt: f32) {
        let (at, rotation) = (to_world.translation, to_world.rotation);
        if let (Some((last_at, last_rotation)), true) = (self.last, dt > 0.0) {
            let velocity = (at - last_at) / dt;
            if velocity.is_finite() {
                let before = self.forward();
                self.velocity = self.velocity.lerp(velocity, 0.3);
                self.measured = Some(velocity);
                let bend = match (before, self.forward()) {
                    (Some(a), Some(b)) => a.cross(b).y.atan2(a.dot(b)) / dt,
                    _ => 0.0,
                };
                self.travel_turn_rate += (bend - self.travel_turn_rate) * 0.3;
            }
            let turned = turn_about_y(last_rotation, rotation);
            if turned.is_finite() {
                self.yaw_rate += (turned / dt - self.yaw_rate) * 0.3;
            }
        }
        self.last = (at.is_finite() && rotation.is_finite()).then_some((at, rotation));
        self.heading = self.forward().or(self.heading);
    }

    /// The horizontal world direction the root travels in, `None` while nearly standing.
    pub fn forward(&self) -> Option<Vec3> {
        let flat = Vec3::new(self.velocity.x, 0.0, self.velocity.z);
        (flat.length() > Self::STANDING).then(|| flat.normalize())
    }

    /// The horizontal world direction the root travels in, or last travelled in while it
    /// stands (a body slowing to a crawl on stairs keeps the line its feet were steered along);
    /// `None` before it ever moved.
    ///
    /// ```
    /// use glam::{Quat, Vec3};
    /// use ik_core::Xform;
    /// use ik_core::footstep::RootVelocity;
    ///
    /// let mut root = RootVelocity::default();
    /// let mut at = Vec3::ZERO;
    /// for speed in [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0] {
    ///     at += Vec3::X * speed * 0.1;
    ///     root.update(Xform::from_translation_rotation(at, Quat::IDENTITY), 0.1);
    /// }
    /// assert_eq!(root.forward(), None, "standing");
    /// assert!(root.heading().unwrap().abs_diff_eq(Vec3::X, 1e-5));
    /// ```
    pub fn heading(&self) -> Option<Vec3> {
        self.forward().or(self.heading)
    }

    /// [`Self::forward`] in the character's model space (zero while nearly standing), for
    /// [`crate::foot_placement::FootPlacement::travel`].
    pub fn travel_in_model(&self, to_world: Xform) -> Vec3 {
        self.forward().and_then(|f| (to_world.rotation.inverse() * f).try_normalize()).unwrap_or(Vec3::ZERO)
    }
}

/// What the job reads of one foot as foot placement left it last frame (world space).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootstepFoot {
    /// In contact (its label).
    pub contact: bool,
    /// The ground point under it, if its ray found one.
    pub ground: Option<Vec3>,
    /// The placement's vertical correction of its ankle (model units).
    pub offset: f32,
    /// The height of its ball (world y).
    pub ball_height: f32,
}

/// What the job decided for one foot this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootstepOutput {
    /// While it swings: where its ball is predicted to land (world), the shift included.
    pub landing: Option<Vec3>,
    /// The shift along the stride that applies now (m, world; negative: back).
    pub shift: f32,
    /// The same shift as a model-space offset of the foot (for foot locking or placement).
    pub steer: Vec3,
    /// The ground it is carried over ([`crate::foot_placement::FootPlacement::swing_floors`]).
    pub floor: SwingFloor,
}

/// One leg's memory between frames (caller-owned, one per leg: [`FootstepJob::run`] sizes it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootstepLeg {
    /// Its steps learned and its landing shift.
    pub step: FootstepState,
    /// The last footprint the sole box found clear.
    cleared: Option<ClearSole>,
    /// The ground point (world) the foot last stood on.
    takeoff: Option<Vec3>,
    /// The ground under this swing's predicted landing: where it was probed and the height found
    /// (world), reused while the landing moves less than [`SOLE_REUSE`].
    landing_ground: Option<(Vec3, f32)>,
    /// Where the landing was predicted (world, unshifted) when the last search found it room
    /// at neither end (a tight tier or a tread shorter than the foot): searched again once the
    /// prediction drifts half a [`FootstepSettings::search_step`] from it.
    tight_at: Option<Vec3>,
}

/// Where, as shares of the time a swing has left, the ground under the toe tip's path ahead is
/// probed for [`rising_floor`] (the landing's ground is the last point).
const AHEAD: [f32; 4] = [0.125, 0.25, 0.5, 0.75];

/// Footstep prediction for one character's legs (see [`super`] for the method). Per swinging
/// leg: the landing predicted ([`FootstepState`], turning included), fitted on the ground
/// ([`choose_landing`], searched only when due or when the kept shift no longer fits), and
/// the ground the foot is carried over from where it stood to where it lands: stepping down by
/// more than [`FootstepSettings::edge_height`], [`descending_floor`]; stepping up,
/// [`rising_floor`] toward the ground under its toe tip at four points of the learned path
/// ahead; level, none.
///
/// ```
/// use glam::{Quat, Vec3};
/// use ik_core::Xform;
/// use ik_core::foot_placement::{FootRig, GroundHit};
/// use ik_core::footstep::{FootstepFoot, FootstepJob, FootstepLeg, FootstepOutput, RootVelocity, StepGround};
/// use ik_core::leg::LegChain;
///
/// struct Floor;
/// impl StepGround for Floor {
///     fn ray(&mut self, o: Vec3, d: Vec3, max: f32) -> Option<GroundHit> {
///         let t = o.y / -d.y;
///         (d.y < 0.0 && t <= max).then(|| GroundHit { point: o + d * t, normal: Vec3::Y })
///     }
///     fn box_hits(&mut self, _: Vec3, _: Quat, _: Vec3, _: Vec3, _: f32) -> bool {
///         false
///     }
/// }
/// // One leg standing (hip, knee, ankle, toe), the root walking at 1 m/s.
/// let at = |x, y, z| Xform::from_translation(Vec3::new(x, y, z));
/// let model = [at(0.1, 0.9, 0.0), at(0.1, 0.5, 0.02), at(0.1, 0.1, 0.0), at(0.1, 0.0, 0.12)];
/// let leg = LegChain { hip: 0, knee: 1, ankle: 2, toe: Some(3), toe_end: None };
/// let rig = FootRig::from_flat_pose(&model, leg).unwrap();
/// let mut root = RootVelocity::default();
/// root.update(Xform::IDENTITY, 0.1);
/// root.update(Xform::from_translation(Vec3::Z * 0.1), 0.1);
/// let job = FootstepJob {
///     to_world: Xform::from_translation(Vec3::Z * 0.1),
///     root: &root,
///     model: &model,
///     rigs: &[rig],
///     toes: &[rig.ball(&model)],
///     planted_now: None,
///     floor_heights: &[],
///     ray: (0.5, 1.5),
/// };
/// let (mut legs, mut out) = (Vec::new(), [FootstepOutput::default()]);
/// let feet = [FootstepFoot { contact: true, ..Default::default() }];
/// job.run(&Default::default(), &mut legs, &feet, &mut Floor, 0.1, &mut out);
/// assert_eq!(legs.len(), 1);
/// assert_eq!(out[0].landing, None, "a planted foot has no landing to predict");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FootstepJob<'a> {
    /// The character's model-to-world transform this frame.
    pub to_world: Xform,
    /// How the root moves (updated this frame).
    pub root: &'a RootVelocity,
    /// The animated model pose.
    pub model: &'a [Xform],
    /// The legs' rigs (sole points).
    pub rigs: &'a [FootRig],
    /// Animated ball per leg (model space: [`FootRig::ball`]).
    pub toes: &'a [Option<Vec3>],
    /// This frame's contact labels, where known before the job runs: a foot labelled planted
    /// is carried over no floor, though the prediction still follows last frame's labels.
    pub planted_now: Option<&'a [bool]>,
    /// Per leg, the animated floor under the foot (model y; empty: y = 0), as for
    /// [`crate::foot_placement::FootPlacement::floor_heights`].
    pub floor_heights: &'a [f32],
    /// Foot placement's ray: start above the point and length, world units.
    pub ray: (f32, f32),
}

impl FootstepJob<'_> {
    /// Runs one frame: `legs` (resized to the legs here) is the memory, `feet` last frame's
    /// feet, `outputs` (one per leg) what applies this frame. Legs without a ball or a foot
    /// get the default output.
    pub fn run<G: StepGround + ?Sized>(
        &self,
        settings: &FootstepSettings,
        legs: &mut Vec<FootstepLeg>,
        feet: &[FootstepFoot],
        ground: &mut G,
        dt: f32,
        outputs: &mut [FootstepOutput],
    ) {
        legs.resize(self.toes.len(), FootstepLeg::default());
        let up = (self.to_world.rotation * Vec3::Y).normalize_or(Vec3::Y);
        for (i, (leg, out)) in legs.iter_mut().zip(outputs.iter_mut()).enumerate() {
            *out = FootstepOutput::default();
            let (Some(toe), Some(foot)) = (self.toes[i], feet.get(i)) else { continue };
            if foot.contact {
                leg.takeoff = foot.ground;
                leg.landing_ground = None;
                leg.tight_at = None;
            }
            let cleared = leg.cleared.filter(|_| !foot.contact).and_then(ClearSole::aged);
            let mut sole = SoleGround { ground: &mut *ground, up, ray: self.ray, cleared };
            let predicted = leg.step.update(foot.contact, toe, dt, settings);
            let mut goal = f32::NAN;
            if let (Some(next), Some(heading)) = (predicted, self.root.heading()) {
                let print = footprint(&self.rigs[i], self.model, toe, self.to_world.scale.y.abs());
                let (at, forward, shift) = self.fit_landing(leg, (&next, heading), print, &mut sole, settings);
                goal = shift;
                out.landing = Some(at);
                let swing = (&next, at, forward, print.1);
                out.floor = self.swing_floor(i, leg, swing, foot, &mut sole, dt, settings);
            }
            if self.planted_now.is_some_and(|now| now.get(i) == Some(&true)) {
                out.floor = SwingFloor::default();
            }
            leg.cleared = sole.cleared;
            out.shift = leg.step.swing_shift(goal, dt, settings);
            // Along the line the body last travelled: a root slowing below a walk (a crawl up a
            // flight) must not drop the shift the instant the foot lands and the lock takes it.
            if let (Some(forward), true) = (self.root.heading(), out.shift != 0.0) {
                let scale = self.to_world.scale.y.abs().max(1e-6);
                out.steer = self.to_world.rotation.inverse() * forward / scale * out.shift;
            }
        }
    }

    /// Where a leg's swing lands (world), the stride's direction then, and the shift along it
    /// asked for: kept between searches while it fits, else searched ([`choose_landing`]).
    /// `footprint`: how far the heel lies behind the ball and the toe tip ahead (world);
    /// `heading`: the line the body travels or last travelled ([`RootVelocity::heading`]).
    fn fit_landing<G: StepGround + ?Sized>(
        &self,
        leg: &mut FootstepLeg,
        (next, heading): (&Footstep, Vec3),
        footprint: (f32, f32),
        sole: &mut SoleGround<G>,
        settings: &FootstepSettings,
    ) -> (Vec3, Vec3, f32) {
        let root = self.root;
        // Where and along which line the foot lands, the body's turning included; a body
        // crawling slower than a walk (up a flight) strides along the line it came on.
        let (landing, forward) = next.landing_turning(self.to_world, root.velocity, root.travel_turn_rate);
        let forward = if root.forward().is_some() { forward } else { heading };
        let step = &mut leg.step;
        let current = step.target_shift();
        // Between searches that found no landing with room to spare, keep the shift while it
        // still fits (a late landing moves on with the body) and while a tight fit's landing
        // stays where it was searched: a 2 cm heel margin going down was eaten by the last
        // frames' 1.5 cm drift and the heel caught the nosing behind.
        let drifted = leg.tight_at.is_some_and(|at| horizontal_distance(at, landing) > 0.5 * settings.search_step);
        let search = step.search_due()
            || drifted
            || (current != 0.0 && !landing_still_fits(landing, forward, footprint, current, sole, settings));
        let goal = if search {
            let choice = choose_landing(landing, forward, footprint, current, sole, settings);
            step.searched(choice.roomy);
            leg.tight_at = (choice.fits && !choice.roomy).then_some(landing);
            // Late in a swing a prediction moving by a centimetre can tip the choice to the
            // other side of the animated landing; one the foot cannot reach in time keeps the
            // shift it has.
            if step.reachable(choice.shift, settings) { choice.shift } else { current }
        } else {
            current
        };
        (landing + forward * goal, forward, goal)
    }

    /// The ground leg `i` is carried over on its way from where it stood to `at` (see
    /// [`FootstepJob`]); `tip_ahead`: how far its toe tip lies ahead of its ball.
    #[allow(clippy::too_many_arguments)]
    fn swing_floor<G: StepGround + ?Sized>(
        &self,
        i: usize,
        leg: &mut FootstepLeg,
        (next, at, forward, tip_ahead): (&Footstep, Vec3, Vec3, f32),
        foot: &FootstepFoot,
        sole: &mut SoleGround<G>,
        dt: f32,
        settings: &FootstepSettings,
    ) -> SwingFloor {
        let to_world = self.to_world;
        let under = match leg.landing_ground.filter(|(p, _)| horizontal_distance(*p, at) <= SOLE_REUSE) {
            Some((_, height)) => Some(height),
            None => {
                let height = sole.under(to_world, at, foot.ball_height);
                leg.landing_ground = height.map(|h| (at, h));
                height
            }
        };
        let (Some(takeoff), Some(height)) = (leg.takeoff, under) else { return SwingFloor::default() };
        let model_height = |p: Vec3| to_world.inverse_transform_point(p).y;
        let (from, to) = (model_height(takeoff), model_height(Vec3::new(at.x, height, at.z)));
        // Where the foot was (model y): its correction last frame over its animated floor.
        let last = foot.offset + self.floor_heights.get(i).copied().unwrap_or(0.0);
        let per_model = 1.0 / to_world.scale.y.abs().max(1e-6);
        let edge = settings.edge_height * per_model;
        if to < from - edge {
            // Stepping down (by more than an edge): let down from where it was.
            descending_floor(last, to, next.remaining, dt, settings.swing_drop_speed * per_model)
        } else if to > from + edge {
            // Stepping up: toward the ground its toe tip will be over along the learned path
            // (where the root will be then, plus the toe's offset), and the landing.
            let mut ahead = [(to, next.remaining); AHEAD.len() + 1];
            for (slot, share) in ahead.iter_mut().zip(AHEAD) {
                let Some(toe) = leg.step.toe_ahead(next, at, to_world, self.root.velocity, share) else { continue };
                let tip = toe + forward * tip_ahead;
                if let Some(h) = sole.under(to_world, tip, foot.ball_height) {
                    *slot = (model_height(Vec3::new(tip.x, h, tip.z)), next.remaining * share);
                }
            }
            rising_floor(last, ahead, dt)
        } else {
            // Level: placement alone keeps the foot off the ground.
            SwingFloor::default()
        }
    }
}
