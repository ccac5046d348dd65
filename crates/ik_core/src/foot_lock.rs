//! Runtime foot locking: a per-foot state machine giving the toe target for the leg solver.
//!
//! **Method.** While the foot is *locked* the target is a fixed floor point; otherwise it is the
//! animated toe. Switching source is blended by cubic inertialization: at the switch the
//! difference between the current output and the new source (position and velocity) becomes an
//! offset that decays to zero over [`FootLockSettings::blend_time`] along a cubic Hermite curve
//! (`offset(s) = Δx·(2s³ − 3s² + 1) + Δv·T·(s³ − 2s² + s)`, `s = t/T`), so the output's position
//! and velocity are continuous through every lock and unlock. Locks and unlocks have their own
//! blend times ([`FootLockSettings::lock_blend_time`], [`FootLockSettings::blend_time`]); a lock
//! blend of 0 stops the toe at once (position continuous, velocity not, no glide).
//!
//! **Transitions.** The floor point of a lock is where the blend naturally brings the foot to
//! rest: the current output plus a third of its horizontal velocity times the blend time, at
//! `planted_height`. With that choice the horizontal glide is `−Δv·T·(1 − s)³/3`: monotonic,
//! no overshoot and no backward slide. Lock when the contact label is on and that rest point is
//! within [`FootLockSettings::lock_distance`] of the animated toe (so a foot still moving fast
//! waits until it slows down).
//! Unlock when the label goes off, or the animated toe gets further than
//! [`FootLockSettings::unlock_distance`] from the locked point (taken as the leg failing to
//! reach, unless the caller says the leg does reach: [`FootLockState::update_within_reach`]).
//!
//! **Inputs**: the animated toe position in *world* space each frame, the contact label, the
//! planted toe height, `dt`. **Output**: the toe target (and its velocity) in
//! [`FootLockState`], which the caller owns and keeps between frames; nothing allocates.
//!
//! **Invariants.** `dt = 0` advances nothing (the input velocity is kept); a zero blend time
//! switches at once; non-finite input returns [`IkError::NonFiniteInput`] and leaves the state
//! untouched; if finite but extreme input would overflow, the state resets onto the animated toe.

use glam::Vec3;

use crate::{IkError, Xform};

/// Tuning of [`FootLockState::update`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct FootLockSettings {
    /// Lock only if the point the foot would come to rest on is within this distance of the
    /// animated toe, m. Default 0.1.
    pub lock_distance: f32,
    /// Unlock when the animated toe is further than this from the output, m. Default 0.3.
    pub unlock_distance: f32,
    /// Seconds over which an unlock is blended (≤ 0: switch at once). Default 0.2.
    pub blend_time: f32,
    /// Seconds over which a lock is blended in (≤ 0: the toe stops at once where it is, which
    /// keeps its position continuous but not its velocity). A blended lock keeps velocity
    /// continuous too, at the cost of a glide of about `speed × lock_blend_time / 3` while it
    /// blends in. Default 0: a planted foot stops where it lands.
    pub lock_blend_time: f32,
}

impl Default for FootLockSettings {
    fn default() -> Self {
        FootLockSettings { lock_distance: 0.1, unlock_distance: 0.3, blend_time: 0.2, lock_blend_time: 0.0 }
    }
}

/// Contact from the animated toe alone, for clips without contact labels: in contact while the
/// toe is both slow and low.
///
/// ```
/// use ik_core::foot_lock::ContactHeuristic;
///
/// let contact = ContactHeuristic::default();
/// assert!(contact.in_contact(0.01, 0.1));
/// assert!(!contact.in_contact(0.01, 1.2), "moving fast: swinging");
/// assert!(!contact.in_contact(0.2, 0.0), "high: lifted");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct ContactHeuristic {
    /// Toe speed under which a foot may be in contact, m/s (world). Default 0.3.
    pub velocity_threshold: f32,
    /// Toe height above its flat-standing height under which a foot may be in contact, m.
    /// Default 0.05.
    pub height_threshold: f32,
}

impl Default for ContactHeuristic {
    fn default() -> Self {
        ContactHeuristic { velocity_threshold: 0.3, height_threshold: 0.05 }
    }
}

impl ContactHeuristic {
    /// Whether a toe `height` above its flat-standing height, moving at `speed`, is in contact.
    /// Non-finite input is never a contact.
    pub fn in_contact(&self, height: f32, speed: f32) -> bool {
        height < self.height_threshold && speed < self.velocity_threshold
    }
}

/// One foot's locking state, owned by the caller and updated once per frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootLockState {
    /// Output: where the toe should go (world space).
    pub position: Vec3,
    /// Output: its velocity, m/s.
    pub velocity: Vec3,
    /// The animated toe last frame.
    pub input_position: Vec3,
    /// The animated toe's velocity (finite difference), m/s.
    pub input_velocity: Vec3,
    /// Inertialization offset (output − source) at the last switch.
    pub offset_position: Vec3,
    /// Velocity offset at the last switch.
    pub offset_velocity: Vec3,
    /// Seconds since the last switch (stops at the blend time).
    pub blend_elapsed: f32,
    /// The fixed floor point while locked.
    pub contact_point: Vec3,
    /// True while following the floor point.
    pub locked: bool,
}

impl FootLockState {
    /// Unlocked, at rest on the animated toe.
    pub fn new(toe: Vec3) -> Self {
        let toe = if toe.is_finite() { toe } else { Vec3::ZERO };
        FootLockState {
            position: toe,
            velocity: Vec3::ZERO,
            input_position: toe,
            input_velocity: Vec3::ZERO,
            offset_position: Vec3::ZERO,
            offset_velocity: Vec3::ZERO,
            blend_elapsed: 0.0,
            contact_point: toe,
            locked: false,
        }
    }

    /// Speed of the animated toe `toe` (world space) since the last update, m/s; 0 for `dt ≤ 0`
    /// or non-finite input (and on the first frame, where the state starts at the toe).
    pub fn toe_speed(&self, toe: Vec3, dt: f32) -> f32 {
        let speed = (toe - self.input_position).length() / dt;
        if dt > 0.0 && speed.is_finite() { speed } else { 0.0 }
    }

    /// Advances one frame: `toe` is the animated toe (world space), `contact` its label this
    /// frame, `planted_height` the height of a planted toe (floor height + toe joint height).
    /// Returns the toe target (also in `self.position`). Knowing nothing of the leg, it takes
    /// the animated toe running past [`FootLockSettings::unlock_distance`] from the output as
    /// the leg failing to reach; see [`Self::update_within_reach`].
    pub fn update(
        &mut self,
        toe: Vec3,
        contact: bool,
        planted_height: f32,
        dt: f32,
        settings: &FootLockSettings,
    ) -> Result<Vec3, IkError> {
        self.update_within_reach(toe, contact, planted_height, dt, settings, false)
    }

    /// [`Self::update`] for a caller that knows whether the leg still reaches what the lock
    /// holds (e.g. [`crate::foot_placement::leg_reaches`]): while `leg_reaches`, the unlock
    /// distance does not let the toe go — a body starting from standing lags its stride's toe
    /// far behind a planted foot its leg still reaches — and only the contact label ends the
    /// hold.
    ///
    /// ```
    /// use glam::Vec3;
    /// use ik_core::foot_lock::{FootLockSettings, FootLockState};
    ///
    /// let settings = FootLockSettings { blend_time: 0.0, ..Default::default() };
    /// let mut lock = FootLockState::new(Vec3::ZERO);
    /// lock.update(Vec3::ZERO, true, 0.0, 1.0 / 60.0, &settings).unwrap();
    /// // The clip's toe 40 cm away, past the 30 cm unlock distance.
    /// let away = Vec3::new(0.0, 0.0, -0.4);
    /// lock.update_within_reach(away, true, 0.0, 1.0 / 60.0, &settings, true).unwrap();
    /// assert!(lock.locked, "the leg reaches: held");
    /// lock.update_within_reach(away, true, 0.0, 1.0 / 60.0, &settings, false).unwrap();
    /// assert!(!lock.locked, "out of reach: let go");
    /// ```
    pub fn update_within_reach(
        &mut self,
        toe: Vec3,
        contact: bool,
        planted_height: f32,
        dt: f32,
        settings: &FootLockSettings,
        leg_reaches: bool,
    ) -> Result<Vec3, IkError> {
        let s = settings;
        if !toe.is_finite()
            || !planted_height.is_finite()
            || !dt.is_finite()
            || s.lock_distance.is_nan()
            || s.unlock_distance.is_nan()
            || s.blend_time.is_nan()
            || s.lock_blend_time.is_nan()
        {
            return Err(IkError::NonFiniteInput);
        }
        self.step(toe, (contact, leg_reaches), planted_height, dt.max(0.0), s);
        if !self.is_finite() {
            // Finite but extreme input overflowed: start again on the animated toe.
            *self = FootLockState::new(toe);
        }
        Ok(self.position)
    }

    fn step(
        &mut self,
        toe: Vec3,
        (contact, leg_reaches): (bool, bool),
        planted_height: f32,
        dt: f32,
        s: &FootLockSettings,
    ) {
        // The blend in force is the one into the current source.
        let blend_time = if self.locked { s.lock_blend_time } else { s.blend_time }.max(0.0);
        let lock_blend_time = s.lock_blend_time.max(0.0);
        if dt > 0.0 {
            self.input_velocity = (toe - self.input_position) / dt;
        }
        self.input_position = toe;

        // Evaluate the output: current source plus the decaying offset.
        self.blend_elapsed += dt;
        let (source, source_velocity) = self.source();
        if blend_time > 0.0 && self.blend_elapsed < blend_time {
            let t = self.blend_elapsed / blend_time;
            let (h00, h10) = (t * t * (2.0 * t - 3.0) + 1.0, t * (t - 1.0) * (t - 1.0));
            let (d00, d10) = (6.0 * t * (t - 1.0) / blend_time, (3.0 * t - 1.0) * (t - 1.0));
            self.position = source + self.offset_position * h00 + self.offset_velocity * (blend_time * h10);
            self.velocity = source_velocity + self.offset_position * d00 + self.offset_velocity * d10;
        } else {
            self.position = source;
            self.velocity = source_velocity;
            self.offset_position = Vec3::ZERO;
            self.offset_velocity = Vec3::ZERO;
            self.blend_elapsed = blend_time;
        }

        // Switch source if needed; the output of this frame is kept, the offset takes it from here.
        // Where a lock would bring the foot to rest: a third of the horizontal velocity times the
        // blend time ahead (the cubic blend's stopping point), on the floor.
        let mut rest = self.position + Vec3::new(self.velocity.x, 0.0, self.velocity.z) * (lock_blend_time / 3.0);
        rest.y = planted_height;
        if !self.locked && contact && rest.distance(toe) < s.lock_distance {
            self.contact_point = rest;
            self.locked = true;
            self.start_blend();
        } else if self.locked && (!contact || (!leg_reaches && self.position.distance(toe) > s.unlock_distance)) {
            self.locked = false;
            self.start_blend();
        }
    }

    /// Moves what the lock holds with the surface the foot stands on: `motion` is that
    /// surface's rigid motion since the last frame (world, `now × last⁻¹`), `height` the
    /// surface's height under the toe (world y; the lock itself works on a plane, the motion
    /// acts on the real point). The locked floor point and the output follow it horizontally,
    /// so a planted foot rides a moving or turning platform; the animated toe is not touched
    /// (it moves with the character). Does nothing while unlocked, or for a non-finite motion.
    ///
    /// ```
    /// use glam::{Quat, Vec3};
    /// use ik_core::Xform;
    /// use ik_core::foot_lock::{FootLockSettings, FootLockState};
    ///
    /// let mut lock = FootLockState::new(Vec3::new(1.0, 0.0, 0.0));
    /// lock.update(Vec3::new(1.0, 0.0, 0.0), true, 0.0, 1.0 / 60.0, &FootLockSettings::default()).unwrap();
    /// // The platform turns a quarter turn about the world origin.
    /// let turn = Xform { rotation: Quat::from_rotation_y(core::f32::consts::FRAC_PI_2), ..Xform::IDENTITY };
    /// lock.carry(turn, 0.1);
    /// assert!((lock.contact_point - Vec3::new(0.0, 0.0, -1.0)).length() < 1e-5);
    /// ```
    pub fn carry(&mut self, motion: Xform, height: f32) {
        if !self.locked || !motion.is_finite() || !height.is_finite() {
            return;
        }
        let moved = |p: Vec3| {
            let q = motion.transform_point(Vec3::new(p.x, height, p.z));
            Vec3::new(q.x, p.y, q.z)
        };
        let (contact, position) = (moved(self.contact_point), moved(self.position));
        if contact.is_finite() && position.is_finite() {
            (self.contact_point, self.position) = (contact, position);
        }
    }

    /// The followed source: (position, velocity).
    fn source(&self) -> (Vec3, Vec3) {
        if self.locked { (self.contact_point, Vec3::ZERO) } else { (self.input_position, self.input_velocity) }
    }

    /// Starts an inertialization from the current output to the (new) source.
    fn start_blend(&mut self) {
        let (source, source_velocity) = self.source();
        self.offset_position = self.position - source;
        self.offset_velocity = self.velocity - source_velocity;
        self.blend_elapsed = 0.0;
    }

    /// True when every field is finite.
    pub fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.velocity.is_finite()
            && self.input_position.is_finite()
            && self.input_velocity.is_finite()
            && self.offset_position.is_finite()
            && self.offset_velocity.is_finite()
            && self.blend_elapsed.is_finite()
            && self.contact_point.is_finite()
    }
}
