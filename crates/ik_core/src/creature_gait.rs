//! A procedural gait for a creature with any number of legs (a quadruped, a hexapod, a spider):
//! where each foot is planted, when it steps, where it lands, and the body's height and tilt
//! over the feet that carry it.
//!
//! **Method** ([`CreatureGait::update`]). Each leg has a home point in body space (where its
//! foot rests under a body standing still). Legs are put in two groups that take turns: legs
//! ordered front to back on each side, group = (index along the side + side) mod 2 — diagonal
//! pairs for four legs, tripods for six, alternating for eight. A gait phase advances with the
//! distance travelled (speed plus yaw rate times the widest leg's radius) over the stride, so
//! the feet keep time at any speed and when turning in place; each half cycle is one group's
//! turn to step. A planted foot stays put until its group's turn comes, it drifts out of its
//! comfort radius around its home point, or it gets out of its leg's reach (a forced step). No
//! leg lifts while a leg of the other group swings (a forced step excepted), and never more
//! than half of them are in the air. A step swings the foot on a lifted, eased arc to a landing
//! predicted along the body's velocity and turn: the home point carried to where the body will
//! be at the middle of the foot's next stance. The landing is checked against the ground
//! ([`FootprintGround`]): a candidate whose neighbourhood (a ring of [`CreatureGaitSettings::foot_radius`])
//! differs in height by more than [`CreatureGaitSettings::edge_height`] straddles an edge, so
//! the nearest candidate around the prediction that does not is taken. The body's height and
//! tilt follow a least-squares plane through the planted feet, smoothed by springs, and the
//! body never sinks below [`CreatureGaitSettings::min_clearance`] over the ground under it.
//!
//! **Inputs**: the legs (at creation), the body's pose, velocity and yaw rate ([`CreatureBody`]),
//! a ground query, `dt`. **Outputs**: per leg a [`CreatureFoot`] (world target for the leg's
//! IK, planted flag, swing progress), and a suggested body pose ([`CreatureBodyPose`]).
//! **Invariants**: a planted foot's target does not move while the leg can reach it; every
//! target lies within its leg's reach of its hip (on the suggested pose); at most half the legs
//! swing at once (one, for a creature of one leg); non-finite input reads as zero or identity; `dt ≤ 0` changes nothing; nothing
//! allocates after [`CreatureGait::new`]. A planted foot left more than three reaches from its
//! hip (a teleport) is put back under its home point at once. Ground probes per frame: one under
//! each hip and one under the body, and for each landing searched up to nine for each of its
//! `1 + 8 · search_rings` candidates (a search runs at lift-off, and again only when the
//! prediction moves by [`CreatureGaitSettings::replan_distance`]).

use glam::{Quat, Vec3};

use crate::Xform;
use crate::footstep::{FootprintGround, Footstep};
use crate::spring::{QuatSpring, Spring};

mod body;
mod landing;
mod stepping;

/// Tuning of [`CreatureGait::update`]. Lengths in metres, times in seconds, angles in radians.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct CreatureGaitSettings {
    /// Distance the body travels over one gait cycle (each leg steps once a cycle) at a walking
    /// pace, m. It lengthens with speed, up to [`CreatureGaitSettings::max_stride`], so a swing
    /// of [`CreatureGaitSettings::swing_duration`] fits in its half cycle. Default 0.3.
    pub stride: f32,
    /// Longest stride, m; also at most 1.8 comfort radii of the shortest-reaching leg. Faster
    /// than that, the swings shorten instead. Default 0.8.
    pub max_stride: f32,
    /// Longest time a foot spends in the air, s (shortened at speed so it fits in 80 % of a
    /// half cycle). Default 0.25.
    pub swing_duration: f32,
    /// How high a swing lifts the foot above the straight line from lift-off to landing, m.
    /// Default 0.08.
    pub lift: f32,
    /// How far a planted foot may drift from its home point (horizontally) before it steps out
    /// of turn, m; never more than 80 % of the leg's room around its home point inside its
    /// reach. Default 0.35.
    pub comfort_radius: f32,
    /// Radius of the ring of ground probes around a landing candidate, m: a landing is at least
    /// about this far from an edge. Default 0.05.
    pub foot_radius: f32,
    /// Largest height difference between a landing and the ground in its ring that is not an
    /// edge, m. Default 0.03.
    pub edge_height: f32,
    /// Rings of candidates searched around a predicted landing that straddles an edge (eight
    /// candidates a ring). Default 3.
    pub search_rings: u32,
    /// Spacing of those rings, m. Default 0.05.
    pub search_step: f32,
    /// Distance the predicted landing of a swinging foot must move before the ground is searched
    /// again, m. Default 0.02.
    pub replan_distance: f32,
    /// Half-life of the springs that carry the body's height and tilt toward the plane of the
    /// planted feet, s. Default 0.1.
    pub body_half_life: f32,
    /// Steepest tilt of the body, rad. Default 0.5 (about 29°).
    pub max_tilt: f32,
    /// Least height of the body's origin over the highest ground under it and its hips, m.
    /// Default 0.05.
    pub min_clearance: f32,
}

impl Default for CreatureGaitSettings {
    fn default() -> Self {
        CreatureGaitSettings {
            stride: 0.3,
            max_stride: 0.8,
            swing_duration: 0.25,
            lift: 0.08,
            comfort_radius: 0.35,
            foot_radius: 0.05,
            edge_height: 0.03,
            search_rings: 3,
            search_step: 0.05,
            replan_distance: 0.02,
            body_half_life: 0.1,
            max_tilt: 0.5,
            min_clearance: 0.05,
        }
    }
}

/// One leg, in body space (+Z forward, +X left, +Y up, origin at the body's origin).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct CreatureLeg {
    /// Where the leg is attached, body space.
    pub hip: Vec3,
    /// Where its foot rests when the body stands still at its ride height on level ground, body
    /// space. The home points' mean depth below the origin is the body's ride height.
    pub home: Vec3,
    /// Farthest the foot can be from the hip, m. Non-positive or non-finite: the hip–home
    /// distance.
    pub reach: f32,
}

/// The body this frame, world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreatureBody {
    /// The body's origin.
    pub position: Vec3,
    /// Its orientation; only its heading (turn about +Y) carries the home points, the tilt is
    /// the gait's to suggest.
    pub rotation: Quat,
    /// Its velocity, m/s.
    pub velocity: Vec3,
    /// Its rate of turn about world +Y, rad/s (positive turns +Z toward +X).
    pub yaw_rate: f32,
}

impl Default for CreatureBody {
    fn default() -> Self {
        CreatureBody { position: Vec3::ZERO, rotation: Quat::IDENTITY, velocity: Vec3::ZERO, yaw_rate: 0.0 }
    }
}

/// Fastest body speed read, m/s, and turn, rad/s: beyond them input is clamped.
const MAX_SPEED: f32 = 1e3;
/// Longest frame advanced at once, s.
const MAX_DT: f32 = 1.0;

impl CreatureBody {
    /// Non-finite fields read as zero (identity rotation); speeds clamped to 1000 per second.
    fn sanitized(self) -> CreatureBody {
        let finite = |v: Vec3| if v.is_finite() { v } else { Vec3::ZERO };
        let unit = self.rotation.is_finite() && self.rotation.length_squared() > 1e-12;
        let rotation = unit.then(|| self.rotation.normalize());
        let yaw_rate = if self.yaw_rate.is_finite() { self.yaw_rate.clamp(-MAX_SPEED, MAX_SPEED) } else { 0.0 };
        CreatureBody {
            position: finite(self.position),
            rotation: rotation.unwrap_or(Quat::IDENTITY),
            velocity: finite(self.velocity).clamp_length_max(MAX_SPEED),
            yaw_rate,
        }
    }

    /// The body's origin and heading (its turn about +Y alone).
    fn heading(&self) -> Xform {
        let facing = self.rotation * Vec3::Z;
        let yaw = if facing.x.abs() + facing.z.abs() > 1e-6 { facing.x.atan2(facing.z) } else { 0.0 };
        Xform::from_translation_rotation(self.position, Quat::from_rotation_y(yaw))
    }

    /// The heading [`CreatureBody::heading`] will have after `time` seconds of the present
    /// velocity and turn (an arc when turning).
    fn predicted(&self, time: f32) -> Xform {
        let heading = self.heading();
        let arc = Footstep { remaining: time, progress: 0.0, landing_in_root: Vec3::ZERO };
        let (translation, _) =
            arc.landing_turning(Xform::from_translation(heading.translation), self.velocity, self.yaw_rate);
        let rotation = Quat::from_rotation_y(self.yaw_rate * time) * heading.rotation;
        Xform::from_translation_rotation(translation, rotation)
    }
}

/// One foot's output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreatureFoot {
    /// Where the leg's IK should put the foot, world space; within the leg's reach of its hip
    /// on the suggested body pose.
    pub target: Vec3,
    /// The ground's normal where the foot is planted or will land (+Y where unknown).
    pub normal: Vec3,
    /// The foot is on the ground.
    pub planted: bool,
    /// Share of the swing done, 0..1 (0 while planted).
    pub swing: f32,
}

impl Default for CreatureFoot {
    fn default() -> Self {
        CreatureFoot { target: Vec3::ZERO, normal: Vec3::Y, planted: true, swing: 0.0 }
    }
}

/// The body pose the gait suggests, world space: the input's position and heading, its height
/// and tilt from the planted feet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreatureBodyPose {
    /// The body's origin: the input's, at the suggested height.
    pub position: Vec3,
    /// The input's heading, tilted to the ground under the feet.
    pub rotation: Quat,
}

impl Default for CreatureBodyPose {
    fn default() -> Self {
        CreatureBodyPose { position: Vec3::ZERO, rotation: Quat::IDENTITY }
    }
}

/// A foot in the air: from where, to where, for how long.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Swing {
    from: Vec3,
    to: Vec3,
    /// The landing as predicted before the ground was searched (searched again when the
    /// prediction moves).
    predicted: Vec3,
    elapsed: f32,
    duration: f32,
}

/// A leg and its foot's state.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LegSlot {
    leg: CreatureLeg,
    group: u8,
    /// Horizontal room around the home point inside the reach, m.
    room: f32,
    /// The foot: where it is planted, or where it is in its swing.
    foot: Vec3,
    normal: Vec3,
    swing: Option<Swing>,
    /// The half cycle in which the foot last stepped in turn.
    stepped: u32,
}

/// One creature's gait state: its legs and where their feet are. Caller-owned, one per creature;
/// [`CreatureGait::new`] sizes it, [`CreatureGait::update`] advances it each frame without
/// allocating.
///
/// ```
/// use glam::{Quat, Vec3};
/// use ik_core::creature_gait::{CreatureBody, CreatureGait, CreatureGaitSettings, CreatureLeg};
///
/// // A quadruped: hips at the body's corners, feet 25 cm below and a little outside them.
/// let legs: Vec<CreatureLeg> = [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)]
///     .map(|(x, z)| CreatureLeg {
///         hip: Vec3::new(0.15 * x, 0.0, 0.3 * z),
///         home: Vec3::new(0.3 * x, -0.25, 0.3 * z),
///         reach: 0.45,
///     })
///     .to_vec();
/// let (settings, mut gait) = (CreatureGaitSettings::default(), CreatureGait::new(&legs));
/// let mut flat = |_: Vec3| Some(0.0); // height of the ground under a point
/// let mut body = CreatureBody { velocity: Vec3::new(0.0, 0.0, 1.0), ..Default::default() };
/// let mut lifted = 0;
/// for _ in 0..120 {
///     body.position += body.velocity / 60.0;
///     let pose = gait.update(&settings, body, &mut flat, 1.0 / 60.0);
///     (body.position.y, body.rotation) = (pose.position.y, pose.rotation);
///     let in_air = gait.feet().iter().filter(|f| !f.planted).count();
///     assert!(in_air <= 2, "never more than half the legs in the air");
///     lifted = lifted.max(in_air);
/// }
/// assert_eq!(lifted, 2, "diagonal pairs step together");
/// assert!((body.position.y - 0.25).abs() < 0.01, "the body rides at its height: {}", body.position.y);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CreatureGait {
    legs: Vec<LegSlot>,
    feet: Vec<CreatureFoot>,
    /// Progress through the present half cycle, 0..0.5.
    phase: f32,
    /// Half cycles begun so far (wrapping); even: group 0's turn.
    half_cycle: u32,
    /// Widest leg's horizontal distance from the origin, m.
    radius: f32,
    /// The body's origin over the ground under level feet, m.
    ride_height: f32,
    height: Spring<f32>,
    tilt: QuatSpring,
    /// Last goals of the body springs: height and ground slope (dy/dx, dy/dz), kept while no
    /// foot is planted.
    goal: (f32, glam::Vec2),
    pose: CreatureBodyPose,
    started: bool,
}

impl CreatureGait {
    /// A creature with these legs (non-finite points read as the origin), feet to be put on
    /// their home points at the first [`CreatureGait::update`].
    pub fn new(legs: &[CreatureLeg]) -> CreatureGait {
        let slots: Vec<LegSlot> = legs.iter().map(|&leg| LegSlot::new(leg)).collect();
        let mut gait = CreatureGait {
            feet: vec![CreatureFoot::default(); slots.len()],
            radius: slots.iter().map(|s| s.leg.home.with_y(0.0).length()).fold(0.05, f32::max),
            ride_height: -slots.iter().map(|s| s.leg.home.y).sum::<f32>() / slots.len().max(1) as f32,
            legs: slots,
            phase: 0.4,
            half_cycle: 0,
            height: Spring::default(),
            tilt: QuatSpring::default(),
            goal: (0.0, glam::Vec2::ZERO),
            pose: CreatureBodyPose::default(),
            started: false,
        };
        stepping::assign_groups(&mut gait.legs);
        gait
    }

    /// The legs' outputs, in the order given to [`CreatureGait::new`].
    pub fn feet(&self) -> &[CreatureFoot] {
        &self.feet
    }

    /// The group (0 or 1) of leg `index`: legs of one group step together, in turn with the
    /// other. `None` past the last leg.
    pub fn group(&self, index: usize) -> Option<u8> {
        self.legs.get(index).map(|s| s.group)
    }

    /// The legs, as given to [`CreatureGait::new`] (sanitized).
    pub fn legs(&self) -> impl ExactSizeIterator<Item = &CreatureLeg> {
        self.legs.iter().map(|s| &s.leg)
    }

    /// The gait phase, 0..1: group 0 steps in its first half, group 1 in its second.
    pub fn phase(&self) -> f32 {
        self.phase + if self.half_cycle % 2 == 1 { 0.5 } else { 0.0 }
    }

    /// Puts every foot back on its home point (planted) and the body on its ride height at the
    /// next update: after a teleport or a respawn.
    pub fn reset(&mut self) {
        self.started = false;
    }

    /// Moves foot `index` with the ground it stands on: `step` is that ground's motion since the
    /// last update (a moving platform's rigid step, world space). A planted foot rides it, so
    /// it does not slide over the platform; a foot in the air keeps its landing. A non-finite
    /// step or an index past the last leg changes nothing.
    ///
    /// ```
    /// use glam::Vec3;
    /// use ik_core::Xform;
    /// use ik_core::creature_gait::{CreatureBody, CreatureGait, CreatureGaitSettings, CreatureLeg};
    /// use ik_core::footstep::FootprintGround;
    ///
    /// struct Floor;
    /// impl FootprintGround for Floor {
    ///     fn height(&mut self, _: Vec3) -> Option<f32> { Some(0.0) }
    /// }
    /// let leg = CreatureLeg { hip: Vec3::new(0.1, 0.0, 0.0), home: Vec3::new(0.3, -0.25, 0.0), reach: 0.45 };
    /// let mut gait = CreatureGait::new(&[leg, CreatureLeg { hip: -leg.hip, home: leg.home * Vec3::new(-1.0, 1.0, 1.0), ..leg }]);
    /// let body = CreatureBody { position: Vec3::Y * 0.25, ..Default::default() };
    /// gait.update(&CreatureGaitSettings::default(), body, &mut Floor, 1.0 / 60.0);
    /// let before = gait.feet()[0].target;
    /// gait.carry(0, Xform::from_translation(Vec3::new(0.01, 0.0, 0.0)));
    /// gait.update(&CreatureGaitSettings::default(), body, &mut Floor, 1.0 / 60.0);
    /// assert!((gait.feet()[0].target - before - Vec3::new(0.01, 0.0, 0.0)).length() < 1e-5);
    /// ```
    pub fn carry(&mut self, index: usize, step: Xform) {
        let Some(slot) = self.legs.get_mut(index).filter(|slot| slot.swing.is_none()) else { return };
        if step.is_finite() {
            slot.foot = step.transform_point(slot.foot);
            slot.normal = (step.rotation * slot.normal).normalize_or(Vec3::Y);
        }
    }

    /// Advances the gait by `dt` seconds for the body as it is now (`body`; see
    /// [`CreatureBody`]) over `ground` (height of the ground under a world point); returns the
    /// suggested body pose, and the feet are in [`CreatureGait::feet`]. Feeding the suggested
    /// height and tilt back as the next frame's body pose keeps the body on its feet. `dt ≤ 0`
    /// or non-finite: nothing changes (the last suggestion is returned); frames longer than a
    /// second count as one second.
    pub fn update<G: FootprintGround + ?Sized>(
        &mut self,
        settings: &CreatureGaitSettings,
        body: CreatureBody,
        ground: &mut G,
        dt: f32,
    ) -> CreatureBodyPose {
        if !(dt > 0.0 && dt.is_finite()) {
            return self.pose;
        }
        let (dt, body) = (dt.min(MAX_DT), body.sanitized());
        let first = !self.started;
        if first {
            self.place(settings, &body, ground);
        }
        let pace = stepping::Pace::new(settings, &body, self.radius, &self.legs);
        self.advance_phase(&pace, dt);
        self.advance_swings(settings, &body, &pace, ground, dt);
        self.lift_legs(settings, &body, &pace, ground);
        self.pose = self.fit_body(settings, &body, ground, dt, first);
        self.write_feet();
        self.pose
    }

    /// Every foot on the ground under its home point (or near it, off any edge), planted.
    fn place<G: FootprintGround + ?Sized>(
        &mut self,
        settings: &CreatureGaitSettings,
        body: &CreatureBody,
        ground: &mut G,
    ) {
        let heading = body.heading();
        for slot in &mut self.legs {
            let home = heading.transform_point(slot.leg.home);
            let hip = heading.transform_point(slot.leg.hip);
            let landing = landing::choose(home, hip, slot.leg.reach, settings, ground);
            (slot.foot, slot.normal, slot.swing) = (landing.point, landing.normal, None);
        }
        self.started = true;
    }

    /// Writes [`CreatureGait::feet`]: each foot kept within its leg's reach of its hip on the
    /// suggested pose.
    fn write_feet(&mut self) {
        let pose = Xform::from_translation_rotation(self.pose.position, self.pose.rotation);
        for (slot, foot) in self.legs.iter().zip(&mut self.feet) {
            let hip = pose.transform_point(slot.leg.hip);
            // Left as it is when in reach, so a planted target does not move by a rounding.
            let mut target = slot.foot;
            if target.distance(hip) > slot.leg.reach || !target.is_finite() {
                target = hip + (slot.foot - hip).clamp_length_max(slot.leg.reach);
            }
            if !target.is_finite() {
                target = pose.transform_point(slot.leg.home);
            }
            let swing = slot.swing.map_or(0.0, |s| (s.elapsed / s.duration).clamp(0.0, 1.0));
            *foot = CreatureFoot { target, normal: slot.normal, planted: slot.swing.is_none(), swing };
        }
    }
}

#[cfg(test)]
mod tests;
