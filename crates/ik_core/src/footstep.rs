//! Footstep prediction: when and where a swinging foot will land, learned from its own past
//! steps, and a landing moved along the stride so the whole foot fits on one level (a tread,
//! not across its edge).
//!
//! **Method.** [`FootstepState::update`] follows one foot's contact label and its animated toe
//! in the character's frame (root space). At each touch-down it learns the swing's length (time
//! since lift-off), where, relative to the root, the toe landed, and the swing's path (at each
//! eighth of it, the toe's travel left to that landing), each blended into what it knew by
//! [`FootstepSettings::learning_rate`]. While the foot swings it predicts the time left and the
//! share of the swing done ([`Footstep`]), and the landing relative to the root: the learned one
//! at lift-off, then more and more (in proportion to the share done) the toe's own position now
//! plus the travel the path says is left, so a stride that shortens as the body slows is seen
//! before touch-down. Where the foot lands in the world is the root's position then (now plus
//! its velocity times the time left) plus that offset ([`Footstep::landing`];
//! [`Footstep::landing_turning`] for a body that also turns: it travels an arc and the offset
//! turns with it). [`landing_fits`] probes the ground under the
//! predicted footprint (heel to toe tip along the stride): it fits when the ground there is one
//! surface (within [`FootstepSettings::edge_height`] of a straight line: flat or a ramp, not a
//! riser). [`choose_landing`] picks the shift along the stride (at most
//! [`FootstepSettings::max_shift`]): one with [`FootstepSettings::edge_margin`] to spare beyond
//! heel and tip ([`search_landing`]: the nearest), else, with [`FootstepSettings::tight_fit`],
//! the middle of a tread barely longer than the foot that leaves all the margin at the end
//! facing higher ground (the tip going up, the heel going down: [`rises_ahead`]) and half of it
//! at the other, else the whole margin there and the other end hanging over the lower level by
//! up to [`FootstepSettings::tight_overhang`] of the foot, else (a tread shorter than the foot)
//! going up the ball on the tread with the tip's margin and the heel hanging as far as it
//! must, going down the heel with its margin and the arch on the tread and the toes hanging
//! (on the tread nearest, unless only the shift limit reaches its best place), else none (the
//! landing as animated);
//! [`landing_still_fits`] tells, between searches, that a chosen shift no longer does.
//! [`FootstepState::swing_shift`] eases that shift in over the swing, so the foot is steered
//! while in the air and lands where it fits.
//!
//! **Inputs**: contact labels, the animated toe in root space, `dt`; for the fit, a ground
//! query (world point → ground height under it). **Outputs**: [`Footstep`], a shift along the
//! stride. **Invariants**: nothing is predicted before one whole step was seen; `dt ≤ 0`
//! advances nothing; non-finite input is ignored (the state is kept); no allocation.

use glam::{Quat, Vec3};

use crate::Xform;
use crate::foot_placement::SwingFloor;

/// Tuning of footstep prediction and landing fitting.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct FootstepSettings {
    /// Largest shift of a landing along the stride to make the foot fit, m. Default 0.15 (half a 30 cm tread: any landing on such stairs can be moved onto a whole tread).
    pub max_shift: f32,
    /// A height change under the footprint larger than this is an edge the foot straddles, m.
    /// Default 0.02.
    pub edge_height: f32,
    /// Step of the search along the stride, m. Default 0.02.
    pub search_step: f32,
    /// Share of each new step's measurement blended into what was learned (0..1; 1: only the
    /// last step counts). Default 0.5.
    pub learning_rate: f32,
    /// Fastest a swing's chosen shift changes when a new fit is found mid-swing, m/s.
    /// Default 1.
    pub shift_speed: f32,
    /// Room looked for beyond the heel and the toe tip, m: a prediction is off by a centimetre
    /// or two, so a landing that fits with this room to spare is preferred; only when none
    /// does is one that fits exactly taken (with [`FootstepSettings::tight_fit`]). Default 0.02.
    pub edge_margin: f32,
    /// Where no landing fits with [`FootstepSettings::edge_margin`] to spare at both ends, take
    /// the middle of a tread barely longer than the foot, if that leaves all the margin at the
    /// end facing higher ground and half of it at the other, else all of it there and the other
    /// end over the lower level by up to [`FootstepSettings::tight_overhang`]. The end facing
    /// higher ground matters most: a tip catching the next riser going up, or a heel caught on
    /// the nosing behind going down, stands the foot on that edge with the rest of it in the
    /// air; a little of the other end over the lower tread is a foot resting a bit off it.
    /// Off: the animation's own landing. Default on.
    pub tight_fit: bool,
    /// With [`FootstepSettings::tight_fit`], the most of the foot's length (0..1) that may hang
    /// over the lower level at the end away from higher ground when nothing else fits (a 28 cm
    /// foot on a 30 cm tread). On a tread shorter than the foot, with any overhang allowed
    /// (above 0), the ball stands on the tread and the end away from higher ground hangs as far
    /// as it must: the heel going up, the toes going down (a 34 cm foot on a 30 cm tread).
    /// Default 0.1.
    pub tight_overhang: f32,
    /// Slowest a swinging foot stepping down is let down past an edge, m/s ([`descending_floor`]):
    /// where the ground under it drops away (past a nosing) its correction falls at this speed,
    /// faster only where that would not bring it to its landing in time. Default 1.5 (faster than a foot swinging down a 30° ramp, so only a drop past an edge is slowed).
    pub swing_drop_speed: f32,
}

impl Default for FootstepSettings {
    fn default() -> Self {
        FootstepSettings {
            max_shift: 0.15,
            edge_height: 0.02,
            search_step: 0.02,
            learning_rate: 0.5,
            shift_speed: 1.0,
            edge_margin: 0.02,
            tight_fit: true,
            tight_overhang: 0.1,
            swing_drop_speed: 1.5,
        }
    }
}

/// The ground a swinging foot stepping down is carried over ([`SwingFloor`], model y): where it
/// was carried last frame (`last`: its correction over its animated floor, the
/// [`SwingFloor::height`] that would have held it there) less `drop_speed · dt`, or
/// less as much as brings it to `landing` (the ground under its predicted landing) in the
/// `remaining` time, whichever is more, never below `landing`. Raise only: while the foot is
/// over the tread it left, that ground holds it; once its probes pass the nosing and the ground
/// under it drops by a rise, the foot goes down over frames instead of in one. None (weight 0)
/// where `last` is not above `landing`, for `dt ≤ 0` or non-finite input. `drop_speed` and
/// `remaining` in the model's units per second and seconds; overdue (`remaining` 0), it lets
/// the foot down in this frame.
///
/// ```
/// use ik_core::footstep::descending_floor;
///
/// // Raised 10 cm last frame, landing 10 cm below the animated floor, 0.3 s to go, 60 fps.
/// let floor = descending_floor(0.1, -0.1, 0.3, 1.0 / 60.0, 1.0);
/// assert_eq!(floor.weight, 1.0);
/// assert!((floor.height - (0.1 - 1.0 / 60.0)).abs() < 1e-6);
/// // 0.05 s to go: fast enough to arrive.
/// assert!((descending_floor(0.1, -0.1, 0.05, 1.0 / 60.0, 1.0).height - (0.1 - 0.2 / 3.0)).abs() < 1e-6);
/// // Already down there: nothing to hold.
/// assert_eq!(descending_floor(-0.1, -0.1, 0.3, 1.0 / 60.0, 1.0).weight, 0.0);
/// ```
pub fn descending_floor(last: f32, landing: f32, remaining: f32, dt: f32, drop_speed: f32) -> SwingFloor {
    let finite = last.is_finite() && landing.is_finite() && remaining.is_finite() && drop_speed.is_finite();
    if !(finite && dt > 0.0 && dt.is_finite() && last > landing) {
        return SwingFloor::default();
    }
    let in_time = (last - landing) / remaining.max(dt);
    let speed = drop_speed.max(0.0).max(in_time);
    SwingFloor { height: (last - speed * dt).max(landing), weight: 1.0 }
}

/// The ground a swinging foot is carried over toward higher ground ahead of it ([`SwingFloor`],
/// model y): where it was carried last frame (`last`, as for [`descending_floor`]) raised by as
/// much as brings it, at an even pace, to each height of `ahead` (`(height, seconds from now)`:
/// the ground its toe will be over then, e.g. along the learned path,
/// [`FootstepState::toe_ahead`]) by the time it gets there, and never below a height ahead it
/// has already risen to: the most any of them asks. A foot leaving a tread a few centimetres
/// short of the next riser rises over the frames before its toe gets there instead of being
/// pushed up the whole rise in one, and stays up until it is over the tread. Raise only (a
/// floor below the ground under the foot does nothing); none (weight 0) with nothing ahead, for
/// `dt ≤ 0` or a non-finite `last` (non-finite entries are skipped).
///
/// ```
/// use ik_core::footstep::rising_floor;
///
/// // A 20 cm tread 0.05 s ahead and the landing, 40 cm up, 0.4 s ahead; 60 fps.
/// let floor = rising_floor(0.0, [(0.2, 0.05), (0.4, 0.4)], 1.0 / 60.0);
/// assert!((floor.height - 0.2 / 3.0).abs() < 1e-6 && floor.weight == 1.0);
/// // Risen to the tread ahead and not yet over it: held there.
/// assert_eq!(rising_floor(0.2, [(0.2, 0.05), (0.1, 0.3)], 1.0 / 60.0).height, 0.2);
/// ```
pub fn rising_floor(last: f32, ahead: impl IntoIterator<Item = (f32, f32)>, dt: f32) -> SwingFloor {
    if !(last.is_finite() && dt > 0.0 && dt.is_finite()) {
        return SwingFloor::default();
    }
    let height = ahead
        .into_iter()
        .filter(|(height, time)| height.is_finite() && time.is_finite())
        .map(
            |(height, time)| if height > last { last + (height - last) * (dt / time.max(dt)).min(1.0) } else { height },
        )
        .fold(f32::NEG_INFINITY, f32::max);
    if height.is_finite() { SwingFloor { height, weight: 1.0 } } else { SwingFloor::default() }
}

/// A swinging foot's predicted landing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footstep {
    /// Seconds until it lands (0 once overdue).
    pub remaining: f32,
    /// Share of the swing done, 0..1.
    pub progress: f32,
    /// Where the toe lands relative to the root, in root space.
    pub landing_in_root: Vec3,
}

impl Footstep {
    /// Where the toe lands in the world: the root (`root`, its world transform now, moving at
    /// `velocity`) where it will be then, plus the landing offset.
    ///
    /// ```
    /// use glam::Vec3;
    /// use ik_core::Xform;
    /// use ik_core::footstep::Footstep;
    ///
    /// let step = Footstep { remaining: 0.25, progress: 0.5, landing_in_root: Vec3::new(0.1, 0.0, 0.3) };
    /// let at = step.landing(Xform::IDENTITY, Vec3::new(0.0, 0.0, 1.4));
    /// assert!((at - Vec3::new(0.1, 0.0, 0.65)).length() < 1e-6);
    /// ```
    pub fn landing(&self, root: Xform, velocity: Vec3) -> Vec3 {
        root.transform_point(self.landing_in_root) + velocity * self.remaining
    }

    /// [`Footstep::landing`] for a root that also turns about world +Y at `yaw_rate` (rad/s):
    /// the body travels along an arc (its velocity turning with it) and the landing offset
    /// turns with the root. Returns the landing and the stride's direction then (`velocity`'s
    /// horizontal direction turned; +Z without one).
    ///
    /// ```
    /// use glam::Vec3;
    /// use ik_core::Xform;
    /// use ik_core::footstep::Footstep;
    ///
    /// // Turning at 90°/s about +Y (from +Z toward +X) for 0.5 s at 1 m/s: the landing 0.4 m
    /// // ahead ends up toward +X as well.
    /// let step = Footstep { remaining: 0.5, progress: 0.5, landing_in_root: Vec3::new(0.0, 0.0, 0.4) };
    /// let (at, forward) = step.landing_turning(Xform::IDENTITY, Vec3::Z, 90f32.to_radians());
    /// assert!((forward - Vec3::new(0.7071, 0.0, 0.7071)).length() < 1e-3, "{forward}");
    /// assert!(at.x > 0.4 && at.z > 0.4, "{at}");
    /// let straight = step.landing_turning(Xform::IDENTITY, Vec3::Z, 0.0).0;
    /// assert!((straight - step.landing(Xform::IDENTITY, Vec3::Z)).length() < 1e-5);
    /// ```
    pub fn landing_turning(&self, root: Xform, velocity: Vec3, yaw_rate: f32) -> (Vec3, Vec3) {
        let forward = Vec3::new(velocity.x, 0.0, velocity.z).normalize_or(Vec3::Z);
        let yaw = if yaw_rate.is_finite() { yaw_rate * self.remaining } else { 0.0 };
        if yaw.abs() < 1e-4 {
            return (self.landing(root, velocity), forward);
        }
        let turn = Quat::from_rotation_y(yaw);
        // Travel along the arc: the chord of a circle turned through `yaw` at this speed.
        let distance = velocity.length() * self.remaining;
        let chord = 2.0 * (distance / yaw) * (0.5 * yaw).sin();
        let travel = Quat::from_rotation_y(0.5 * yaw) * velocity.normalize_or_zero() * chord.abs();
        let offset = turn * (root.rotation * (self.landing_in_root * root.scale));
        (root.translation + travel + offset, turn * forward)
    }
}

/// Shortest swing [`FootstepState`] learns from, s: a contact that drops for a frame or two
/// (a label flickering at lift-off) is not a step; no walk or run swings this fast.
const MIN_SWING: f32 = 0.08;

/// How many points of a swing's path [`FootstepState`] learns (the travel left to the landing
/// at each eighth of the swing).
const PATH_POINTS: usize = 8;

/// One foot's prediction state; caller-owned, one per foot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootstepState {
    in_contact: bool,
    /// This swing so far: time since lift-off and the toe (root space) at the first frame of
    /// each eighth of the learned swing.
    samples: [Option<(f32, Vec3)>; PATH_POINTS],
    /// Learned path: at a share of the swing, the toe's travel left to its landing (root
    /// space), blended like the landing.
    path: [Option<(f32, Vec3)>; PATH_POINTS],
    /// The landing relative to the root predicted by the last update (computed once per
    /// frame, read by every [`FootstepState::prediction`]).
    refined: Option<Vec3>,
    /// Seconds since lift-off (while swinging).
    swinging_for: f32,
    /// A lift-off was seen, so the next touch-down measures a whole swing.
    lifted: bool,
    /// Learned swing length, s.
    swing_time: Option<f32>,
    /// Learned landing, root space.
    landing: Option<Vec3>,
    /// The shift along the stride chosen for this swing, m (moving toward `target`).
    shift: f32,
    /// The shift last asked for in this swing, m.
    target: f32,
    /// The shift the foot landed with (held through its contact, eased out over the next
    /// swing), m.
    held: f32,
    /// The shift applied last frame, m.
    applied: f32,
    /// The swing's progress at its last search that found nothing.
    failed_search: Option<f32>,
}

impl FootstepState {
    /// Advances one frame: `contact` is the foot's label, `toe_in_root` its animated toe in root
    /// space. Returns the prediction while the foot swings (once a whole step was learned).
    pub fn update(
        &mut self,
        contact: bool,
        toe_in_root: Vec3,
        dt: f32,
        settings: &FootstepSettings,
    ) -> Option<Footstep> {
        if !toe_in_root.is_finite() || !dt.is_finite() {
            return self.prediction();
        }
        let dt = dt.max(0.0);
        let rate = settings.learning_rate.clamp(0.0, 1.0);
        if !self.in_contact {
            // Time since the lift-off frame.
            self.swinging_for += dt;
        }
        match (self.in_contact, contact) {
            (false, true) => {
                if self.lifted && self.swinging_for >= MIN_SWING {
                    let blend = |old: Option<f32>, new: f32| old.map_or(new, |o| o + (new - o) * rate);
                    self.swing_time = Some(blend(self.swing_time, self.swinging_for));
                    self.landing = Some(self.landing.map_or(toe_in_root, |o| o.lerp(toe_in_root, rate)));
                    for (learned, sample) in self.path.iter_mut().zip(self.samples) {
                        let Some((at, toe)) = sample else { continue };
                        let point = (at / self.swinging_for, toe_in_root - toe);
                        *learned =
                            Some(learned.map_or(point, |(p, d)| (p + (point.0 - p) * rate, d.lerp(point.1, rate))));
                    }
                }
                self.held = self.applied;
                (self.shift, self.target) = (0.0, 0.0);
                self.failed_search = None;
            }
            (true, false) => {
                self.swinging_for = 0.0;
                self.lifted = true;
                self.samples = [None; PATH_POINTS];
            }
            (false, false) | (true, true) => {}
        }
        self.in_contact = contact;
        if let (false, Some(swing)) = (contact, self.swing_time.filter(|s| *s > 0.0)) {
            let eighth = (self.swinging_for / swing * PATH_POINTS as f32) as usize;
            if let Some(sample @ None) = self.samples.get_mut(eighth) {
                *sample = Some((self.swinging_for, toe_in_root));
            }
        }
        self.refined = if contact { None } else { self.refine_landing(toe_in_root) };
        self.prediction()
    }

    /// Where the toe will be (world) `share` (0..1) of the way through the time `step` has
    /// left: its `landing` (world, [`Footstep::landing`]) less the travel the learned path says
    /// is left then (root space, turned and scaled by `root`, the root's transform now) and
    /// less the root's own travel at `velocity` from then to touch-down. `None` before a path
    /// was learned. For probing the ground the foot will pass over.
    ///
    /// ```
    /// use glam::Vec3;
    /// use ik_core::Xform;
    /// use ik_core::footstep::{FootstepSettings, FootstepState};
    ///
    /// // Two steps learned (0.4 s, the toe moving 40 cm forward at an even pace, the root
    /// // standing; the path is sampled from the second), then the next swing's first frame.
    /// let (settings, mut foot) = (FootstepSettings::default(), FootstepState::default());
    /// for _ in 0..2 {
    ///     foot.update(true, Vec3::ZERO, 0.05, &settings);
    ///     for k in 0..8 {
    ///         foot.update(false, Vec3::Z * (0.05 * k as f32), 0.05, &settings);
    ///     }
    ///     foot.update(true, Vec3::Z * 0.4, 0.05, &settings);
    /// }
    /// let step = foot.update(false, Vec3::ZERO, 0.05, &settings).unwrap();
    /// let landing = step.landing(Xform::IDENTITY, Vec3::ZERO);
    /// let halfway = foot.toe_ahead(&step, landing, Xform::IDENTITY, Vec3::ZERO, 0.5).unwrap();
    /// assert!(halfway.z > 0.0 && halfway.z < landing.z, "{halfway} before {landing}");
    /// ```
    pub fn toe_ahead(&self, step: &Footstep, landing: Vec3, root: Xform, velocity: Vec3, share: f32) -> Option<Vec3> {
        let share = share.clamp(0.0, 1.0);
        let left = self.travel_left(step.progress + (1.0 - step.progress) * share)?;
        Some(landing - root.rotation * (left * root.scale) - velocity * (step.remaining * (1.0 - share)))
    }

    /// The toe's travel left to its landing at `progress` through the swing (root space), from
    /// the learned path (linear between its points, none left at touch-down); `None` before a
    /// path was learned.
    fn travel_left(&self, progress: f32) -> Option<Vec3> {
        self.path[0]?;
        let mut before: Option<(f32, Vec3)> = None;
        for (at, left) in self.path.iter().flatten().copied().chain([(1.0, Vec3::ZERO)]) {
            if at >= progress {
                return Some(match before {
                    Some((b, from)) if at > b => from.lerp(left, (progress - b) / (at - b)),
                    _ => left,
                });
            }
            before = Some((at, left));
        }
        Some(Vec3::ZERO)
    }

    /// The prediction now, if swinging and learned.
    pub fn prediction(&self) -> Option<Footstep> {
        let (swing, landing) = (self.swing_time?, self.landing?);
        if self.in_contact || !self.lifted || swing <= 0.0 {
            return None;
        }
        let progress = (self.swinging_for / swing).clamp(0.0, 1.0);
        let landing_in_root = self.refined.unwrap_or(landing);
        Some(Footstep { remaining: (swing - self.swinging_for).max(0.0), progress, landing_in_root })
    }

    /// The landing relative to the root with the toe (root space) at `toe` now: early in the
    /// swing, where it landed last time; later, more and more where the toe is plus what the
    /// learned path says is left (a stride shortening as the body slows shows). `None` before
    /// a step was learned.
    fn refine_landing(&self, toe: Vec3) -> Option<Vec3> {
        let (swing, landing) = (self.swing_time.filter(|s| *s > 0.0)?, self.landing?);
        let progress = (self.swinging_for / swing).clamp(0.0, 1.0);
        match (self.travel_left(progress), self.samples[0], self.path[0]) {
            (Some(left), Some((_, lift_off)), Some((_, whole))) => {
                // A stride shorter or longer than the learned one: so far the toe travelled
                // this share of what the path had it travel by now, and so will the rest.
                let (done, learned_done) = ((toe - lift_off).length(), (whole - left).length());
                let scale = if learned_done > 0.25 * whole.length() { done / learned_done } else { 1.0 };
                Some(landing.lerp(toe + left * scale.clamp(0.5, 1.5), progress))
            }
            _ => Some(landing),
        }
    }

    /// Keeps `shift` (m, along the stride) as this swing's landing shift; returns the shift
    /// that applies now. Over a swing it eases (smoothstep of the swing's progress) from the
    /// shift the foot last landed with to this one, all of it at touch-down; through a contact
    /// the landing's shift is held (the foot stays where it landed). Without a prediction
    /// (nothing learned yet) it eases nothing in and holds what it had.
    /// A new `shift` moves the chosen one at most [`FootstepSettings::shift_speed`] × `dt`.
    pub fn swing_shift(&mut self, shift: f32, dt: f32, settings: &FootstepSettings) -> f32 {
        self.applied = match self.prediction() {
            Some(step) => {
                if shift.is_finite() {
                    self.target = shift;
                    let most = settings.shift_speed.max(0.0) * dt.max(0.0);
                    self.shift += (shift - self.shift).clamp(-most, most);
                }
                let t = step.progress;
                self.held + (self.shift - self.held) * t * t * (3.0 - 2.0 * t)
            }
            None if self.in_contact => self.held,
            None => self.applied,
        };
        self.applied
    }

    /// The landing shift chosen for this swing so far, m (on its way to
    /// [`FootstepState::target_shift`]).
    pub fn chosen_shift(&self) -> f32 {
        self.shift
    }

    /// The landing shift last asked for in this swing ([`FootstepState::swing_shift`]), m.
    pub fn target_shift(&self) -> f32 {
        self.target
    }

    /// Whether the chosen shift can still move to `shift` before touch-down at
    /// [`FootstepSettings::shift_speed`]. A landing the foot cannot reach in time is not worth
    /// switching to: the foot would land between the two, where the edge is.
    ///
    /// ```
    /// use glam::Vec3;
    /// use ik_core::footstep::{FootstepSettings, FootstepState};
    ///
    /// let settings = FootstepSettings::default(); // shifts move at up to 1 m/s
    /// let mut foot = FootstepState::default();
    /// // Learn a 0.4 s swing, then lift off again and swing for 0.3 s: 0.1 s left.
    /// foot.update(true, Vec3::ZERO, 0.1, &settings);
    /// for _ in 0..4 {
    ///     foot.update(false, Vec3::ZERO, 0.1, &settings);
    /// }
    /// foot.update(true, Vec3::Z, 0.1, &settings);
    /// for _ in 0..4 {
    ///     foot.update(false, Vec3::ZERO, 0.1, &settings);
    /// }
    /// assert!(foot.reachable(0.05, &settings) && foot.reachable(-0.1, &settings));
    /// assert!(!foot.reachable(0.15, &settings), "15 cm in 0.1 s is too far");
    /// ```
    pub fn reachable(&self, shift: f32, settings: &FootstepSettings) -> bool {
        let remaining = self.prediction().map_or(0.0, |p| p.remaining);
        (shift - self.shift).abs() <= settings.shift_speed.max(0.0) * remaining + 1e-4
    }

    /// Whether a landing search ([`search_landing`], up to a dozen footprints of rays) is due:
    /// not again within a fifth of the swing after one that found nothing (on rough ground
    /// nothing may fit, and searching every frame would be wasted).
    pub fn search_due(&self) -> bool {
        let progress = self.prediction().map_or(0.0, |p| p.progress);
        self.failed_search.is_none_or(|at| progress - at >= 0.2)
    }

    /// Records a search's outcome (see [`FootstepState::search_due`]).
    pub fn searched(&mut self, found: bool) {
        self.failed_search = (!found).then(|| self.prediction().map_or(0.0, |p| p.progress));
    }
}

/// The turn about world +Y from a body's rotation `from` to `to` (how far its +Z swung),
/// wrapped to ±π rad; what footprint prediction's turning rate is measured from.
///
/// ```
/// use glam::Quat;
/// use ik_core::footstep::turn_about_y;
///
/// let (a, b) = (Quat::from_rotation_y(3.0), Quat::from_rotation_y(-3.0));
/// assert!((turn_about_y(a, b) - (std::f32::consts::TAU - 6.0)).abs() < 1e-5, "the short way round");
/// ```
pub fn turn_about_y(from: Quat, to: Quat) -> f32 {
    let heading = |q: Quat| {
        let facing = q * Vec3::Z;
        facing.x.atan2(facing.z)
    };
    let turned = heading(to) - heading(from);
    (turned + core::f32::consts::PI).rem_euclid(core::f32::consts::TAU) - core::f32::consts::PI
}

mod ground;
mod job;
mod landing;

pub use ground::StepGround;
pub use job::{FootstepFoot, FootstepJob, FootstepLeg, FootstepOutput, RootVelocity};
pub use landing::{
    FootprintGround, LandingChoice, choose_landing, landing_fits, landing_still_fits, rises_ahead, search_landing,
};

#[cfg(test)]
mod tests;
