//! Footstep prediction: when and where a swinging foot will land, learned from its own past
//! steps, and a landing moved along the stride so the whole foot fits on one level (a tread,
//! not across its edge).
//!
//! **Method.** [`FootstepState::update`] follows one foot's contact label and its animated toe
//! in the character's frame (root space). At each touch-down it learns the swing's length (time
//! since lift-off) and where, relative to the root, the toe landed, each blended into what it
//! knew by [`FootstepSettings::learning_rate`]. While the foot swings it predicts the time left
//! and the share of the swing done ([`Footstep`]); where the foot lands in the world is the
//! root's position then (now plus its velocity times the time left) plus the learned landing
//! offset ([`Footstep::landing`]; [`Footstep::landing_turning`] for a body that also turns: it
//! travels an arc and the offset turns with it). [`landing_fits`] probes the ground under the
//! predicted footprint (heel to toe tip along the stride): it fits when the ground there is one
//! surface (within [`FootstepSettings::edge_height`] of a straight line: flat or a ramp, not a
//! riser). [`choose_landing`] picks the shift along the stride (at most
//! [`FootstepSettings::max_shift`]): one with [`FootstepSettings::edge_margin`] to spare beyond
//! heel and tip ([`search_landing`]: the nearest), else, with [`FootstepSettings::tight_fit`],
//! the middle of a tread barely longer than the foot that leaves half the margin behind the
//! heel and all of it ahead of the tip (else a quarter and a half), else none (the landing as
//! animated);
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
    /// the middle of a tread barely longer than the foot, if that leaves half the margin behind
    /// the heel and all of it ahead of the tip (the toe lifts off toward the next riser, and
    /// nothing shapes the swing's path over it yet), else half of each (a 27 cm foot on a 30 cm
    /// tread). Off: the animation's own landing. Default on.
    pub tight_fit: bool,
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
        }
    }
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

/// One foot's prediction state; caller-owned, one per foot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FootstepState {
    in_contact: bool,
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
                if self.lifted && self.swinging_for > 0.0 {
                    let blend = |old: Option<f32>, new: f32| old.map_or(new, |o| o + (new - o) * rate);
                    self.swing_time = Some(blend(self.swing_time, self.swinging_for));
                    self.landing = Some(self.landing.map_or(toe_in_root, |o| o.lerp(toe_in_root, rate)));
                }
                self.held = self.applied;
                (self.shift, self.target) = (0.0, 0.0);
                self.failed_search = None;
            }
            (true, false) => {
                self.swinging_for = 0.0;
                self.lifted = true;
            }
            (false, false) | (true, true) => {}
        }
        self.in_contact = contact;
        self.prediction()
    }

    /// The prediction now, if swinging and learned.
    pub fn prediction(&self) -> Option<Footstep> {
        let (swing, landing) = (self.swing_time?, self.landing?);
        if self.in_contact || !self.lifted || swing <= 0.0 {
            return None;
        }
        Some(Footstep {
            remaining: (swing - self.swinging_for).max(0.0),
            progress: (self.swinging_for / swing).clamp(0.0, 1.0),
            landing_in_root: landing,
        })
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

/// Whether the footprint of a toe landing at `at` (world), shifted by `shift` along `forward`
/// (horizontal), from `back` behind the toe to `front` ahead of it, rests on one surface: the
/// ground heights sampled along it (`ground`: height under a world point) stay within
/// [`FootstepSettings::edge_height`] of the straight line between its ends (a ramp fits, a riser
/// or a kerb under it does not). A sample with no ground does not fit.
pub fn landing_fits(
    at: Vec3,
    forward: Vec3,
    (back, front): (f32, f32),
    shift: f32,
    mut ground: impl FnMut(Vec3) -> Option<f32>,
    settings: &FootstepSettings,
) -> bool {
    const SAMPLES: usize = 6;
    let Some(forward) = Vec3::new(forward.x, 0.0, forward.z).try_normalize() else { return true };
    let length = back + front;
    if !(at.is_finite() && length.is_finite() && shift.is_finite()) || length <= 0.0 {
        return true;
    }
    let mut heights = [0.0f32; SAMPLES];
    for (i, h) in heights.iter_mut().enumerate() {
        let along = -back + length * i as f32 / (SAMPLES - 1) as f32;
        let Some(g) = ground(at + forward * (shift + along)) else { return false };
        *h = g;
    }
    let (first, last) = (heights[0], heights[SAMPLES - 1]);
    heights.iter().enumerate().all(|(i, h)| {
        let line = first + (last - first) * i as f32 / (SAMPLES - 1) as f32;
        (h - line).abs() <= settings.edge_height
    })
}

/// The smallest shift (in [`FootstepSettings::search_step`]s, back before forward, at most
/// [`FootstepSettings::max_shift`], 0 excluded) along `forward` that makes the landing
/// [`landing_fits`]; `None` when none does.
///
/// ```
/// use glam::Vec3;
/// use ik_core::footstep::{FootstepSettings, landing_fits, search_landing};
///
/// // A riser at z = 1: the tread beyond is 20 cm higher. A toe landing at z = 0.95 (footprint
/// // 0.2 m back, 0.08 m ahead) straddles it; the search moves it back until the tip is clear.
/// let ground = |p: Vec3| Some(if p.z > 1.0 { 0.2 } else { 0.0 });
/// let (at, settings) = (Vec3::new(0.0, 0.0, 0.95), FootstepSettings::default());
/// assert!(!landing_fits(at, Vec3::Z, (0.2, 0.08), 0.0, ground, &settings));
/// let shift = search_landing(at, Vec3::Z, (0.2, 0.08), ground, &settings).unwrap();
/// assert!(0.95 + shift + 0.08 <= 1.0 && shift >= -0.15, "{shift}");
/// ```
pub fn search_landing(
    at: Vec3,
    forward: Vec3,
    footprint: (f32, f32),
    mut ground: impl FnMut(Vec3) -> Option<f32>,
    settings: &FootstepSettings,
) -> Option<f32> {
    let (max, step) = (settings.max_shift.max(0.0), settings.search_step.max(1e-3));
    let mut k = 1.0f32;
    while k * step <= max + 1e-6 {
        for shift in [-k * step, k * step] {
            if landing_fits(at, forward, footprint, shift, &mut ground, settings) {
                return Some(shift);
            }
        }
        k += 1.0;
    }
    None
}

/// Whether a landing `shift` chosen by [`choose_landing`] still fits where the foot is now
/// predicted to land: with a quarter of [`FootstepSettings::edge_margin`] to spare behind the
/// heel and half of it ahead of the tip (the least [`choose_landing`] takes). Cheap (one
/// footprint of rays), so a caller between searches can tell that its shift no longer does.
pub fn landing_still_fits(
    at: Vec3,
    forward: Vec3,
    (back, front): (f32, f32),
    shift: f32,
    ground: impl FnMut(Vec3) -> Option<f32>,
    settings: &FootstepSettings,
) -> bool {
    let margin = settings.edge_margin.max(0.0);
    landing_fits(at, forward, (back + 0.25 * margin, front + 0.5 * margin), shift, ground, settings)
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

/// What [`choose_landing`] decided for a swing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LandingChoice {
    /// The shift along the stride, m (0: the animation's own landing).
    pub shift: f32,
    /// The footprint fits there with [`FootstepSettings::edge_margin`] to spare beyond its heel
    /// and its toe tip.
    pub roomy: bool,
    /// It fits there at all; false when nothing within [`FootstepSettings::max_shift`] does
    /// (the shift is then 0: the animation's landing).
    pub fits: bool,
}

/// Chooses where a swing lands along the stride (see [`landing_fits`] for the arguments):
/// `current` (the shift chosen so far) while it fits with room to spare, else the animation's
/// own landing if that does, else the nearest shift that does ([`search_landing`]); when
/// nothing fits with room, with [`FootstepSettings::tight_fit`] the middle of the run of shifts
/// nearest the animation's landing that fit with half the room behind the heel (a tread barely
/// longer than the foot), else the animation's landing.
///
/// ```
/// use glam::Vec3;
/// use ik_core::footstep::{FootstepSettings, choose_landing};
///
/// // A riser at z = 1. A toe landing at z = 0.93 with a footprint 0.2 m back, 0.08 m ahead
/// // would put its tip 1 cm onto the upper tread; with 2 cm to spare, it moves back 4 cm (the
/// // search's 2 cm steps).
/// let ground = |p: Vec3| Some(if p.z > 1.0 { 0.2 } else { 0.0 });
/// let at = Vec3::new(0.0, 0.0, 0.93);
/// let choice = choose_landing(at, Vec3::Z, (0.2, 0.08), 0.0, ground, &FootstepSettings::default());
/// assert!(choice.roomy && choice.fits && (choice.shift + 0.04).abs() < 1e-5, "{choice:?}");
/// ```
pub fn choose_landing(
    at: Vec3,
    forward: Vec3,
    (back, front): (f32, f32),
    current: f32,
    mut ground: impl FnMut(Vec3) -> Option<f32>,
    settings: &FootstepSettings,
) -> LandingChoice {
    let margin = settings.edge_margin.max(0.0);
    let roomy = (back + margin, front + margin);
    let mut fits = |print: (f32, f32), shift: f32| landing_fits(at, forward, print, shift, &mut ground, settings);
    let found = |shift: f32, roomy: bool| LandingChoice { shift, roomy, fits: true };
    if fits(roomy, current) {
        return found(current, true);
    }
    if current != 0.0 && fits(roomy, 0.0) {
        return found(0.0, true);
    }
    if let Some(shift) = search_landing(at, forward, roomy, &mut ground, settings) {
        return found(shift, true);
    }
    if !settings.tight_fit {
        return LandingChoice { shift: 0.0, roomy: false, fits: false };
    }
    // No room to spare at both ends: the middle of the run of fits nearest the animation's
    // landing with half the room behind the heel and all of it ahead of the tip, where the toe
    // lifts off toward the next riser (a long-legged character's toe caught one lifting off a
    // tread with 1 cm to spare). A tread too short for that (a 27 cm foot on a 30 cm tread)
    // gets half of each.
    // The run nearest the shift the swing already has, so a prediction moving by a centimetre
    // does not flip the landing to the other side of an edge late in the swing.
    for (behind, ahead) in [(0.5 * margin, margin), (0.25 * margin, 0.5 * margin)] {
        let print = (back + behind, front + ahead);
        if let Some(shift) = middle_of_fits(at, forward, print, current, &mut ground, settings) {
            return found(shift, false);
        }
    }
    LandingChoice { shift: 0.0, roomy: false, fits: false }
}

/// The middle of the run of shifts (half a search step apart, within
/// [`FootstepSettings::max_shift`]) at which `print` [`landing_fits`], the run nearest the shift
/// `near`; `None` when none fits.
fn middle_of_fits(
    at: Vec3,
    forward: Vec3,
    print: (f32, f32),
    near: f32,
    mut ground: impl FnMut(Vec3) -> Option<f32>,
    settings: &FootstepSettings,
) -> Option<f32> {
    let half_step = 0.5 * settings.search_step.max(1e-3);
    let steps = (settings.max_shift.max(0.0) / half_step + 1e-3) as i32;
    let near = if near.is_finite() { near / half_step } else { 0.0 };
    // How far a run of fits (first, last step) lies from `near`, in steps.
    let distance = |(a, b): (i32, i32)| (a as f32 - near).max(near - b as f32).max(0.0);
    let mut best: Option<(i32, i32)> = None;
    let mut run: Option<i32> = None;
    for k in -steps..=steps + 1 {
        let fit = k <= steps && landing_fits(at, forward, print, k as f32 * half_step, &mut ground, settings);
        match (fit, run) {
            (true, None) => run = Some(k),
            (false, Some(start)) => {
                if best.is_none_or(|b| distance((start, k - 1)) < distance(b)) {
                    best = Some((start, k - 1));
                }
                run = None;
            }
            _ => {}
        }
    }
    best.map(|(start, end)| (start + end) as f32 * 0.5 * half_step)
}

#[cfg(test)]
mod tests;
