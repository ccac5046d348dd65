//! Root motion: a clip's travel over the ground split from its in-place pose.
//!
//! **Method.** The *carrier* bone (the highest ancestor of the hips that travels, else the
//! hips: [`find_carrier`]) is read in model space per sample ([`carrier_track`]). Its ground
//! frame is its position projected on the ground plane (through the origin, normal `up`) and
//! its heading, the turn about `up` of its rotation since the first sample (unwrapped, so turns
//! past half a circle accumulate). The travel `M(t)` ([`Travel`]) is a rigid motion of the
//! whole model space, a turn about `up` and a translation, identity at the first sample. For a
//! looping clip it is the *steady* motion (constant speed in the character's own frame,
//! constant turning rate: a line or a circular arc) that carries the first sample's ground
//! frame onto the last's in one duration; for a clip that does not loop it follows the ground
//! frame sample by sample. The in-place remainder is `M(t)⁻¹ · carrier(t)`.
//!
//! **Inputs**: the carrier's model-space transforms sampled at `frame_rate` Hz from time 0 to
//! the clip's end; [`RootMotionSettings`]. **Outputs**: one [`Travel`] per sample in the
//! caller's buffer, and [`ClipTravel`] (speed, turning rate, the per-frame query
//! [`ClipTravel::delta_wrapped`]).
//!
//! **Invariants.** `M(t) · remainder(t) = carrier(t)` at every sample. For a loop the remainder
//! is periodic (the jump at the wrap is travel, not a pose change) and `k` loops travel the
//! cycle's travel `k` times. A clip whose net motion is within tolerance has identity travel and
//! `travels == false`. Bad input is a [`RootMotionError`], never a panic or NaN; no allocation.

use core::f32::consts::PI;
use core::fmt;

use glam::{Quat, Vec3};

use crate::Xform;
use crate::limits::signed_angle_about;
use crate::rig::RigFrame;

/// Default in-place tolerance on the net ground displacement, in leg lengths (4.5 cm on a
/// 0.9 m leg): a mocap idle drifting less than this over its clip is in place.
pub const STILL_DISTANCE: f32 = 0.05;
/// Default in-place tolerance on the net turn about up, radians (about 3°).
pub const STILL_TURN: f32 = 0.05;

/// How to read a clip's root motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootMotionSettings {
    /// Up in model space (the rig's [`RigFrame::up`]); need not be unit length.
    pub up: Vec3,
    /// The character's forward in model space at the clip's first sample
    /// ([`RigFrame::forward`]); its part along `up` is ignored.
    pub forward: Vec3,
    /// Whether the clip loops (its end wraps to its start).
    pub looping: bool,
    /// Whether travel includes motion along `up` (a clip climbing stairs); else the carrier's
    /// height stays in the in-place remainder.
    pub vertical: bool,
    /// A net ground displacement (model units) at or below this is no travel.
    pub still_distance: f32,
    /// A net turn (radians) at or below this is no turn.
    pub still_turn: f32,
}

impl RootMotionSettings {
    /// Settings for a looping clip, horizontal travel only, with the default tolerances
    /// ([`STILL_DISTANCE`] leg lengths, [`STILL_TURN`]).
    pub fn new(up: Vec3, forward: Vec3, leg_length: f32) -> Self {
        RootMotionSettings {
            up,
            forward,
            looping: true,
            vertical: false,
            still_distance: STILL_DISTANCE * leg_length,
            still_turn: STILL_TURN,
        }
    }

    /// [`RootMotionSettings::new`] from a rig's measured frame.
    pub fn from_frame(frame: &RigFrame) -> Self {
        Self::new(frame.up, frame.forward, frame.leg_length)
    }

    /// Unit up, forward and left (`up × forward`), or why not.
    fn axes(&self) -> Result<Axes, RootMotionError> {
        let tolerances = [self.still_distance, self.still_turn];
        if tolerances.iter().any(|t| !t.is_finite() || *t < 0.0) {
            return Err(RootMotionError::BadTolerance);
        }
        let up = self.up.try_normalize().ok_or(RootMotionError::BadAxes)?;
        let forward = self.forward.reject_from_normalized(up).try_normalize().ok_or(RootMotionError::BadAxes)?;
        Ok(Axes { up, forward, left: up.cross(forward) })
    }
}

#[derive(Clone, Copy)]
struct Axes {
    up: Vec3,
    forward: Vec3,
    left: Vec3,
}

/// Why a clip's root motion could not be read. Nothing is written when this is returned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RootMotionError {
    /// The clip has fewer than two samples (its first and its end are both needed).
    TooFewSamples {
        /// Samples given.
        got: usize,
    },
    /// A sample (or a model transform computed from it) is NaN or infinite, or its rotation
    /// is zero.
    NonFinite {
        /// The sample's index.
        sample: usize,
    },
    /// The frame rate is not a positive finite number.
    BadFrameRate,
    /// `up` or `forward` is zero, non-finite, or `forward` is along `up`.
    BadAxes,
    /// A tolerance is negative or non-finite.
    BadTolerance,
    /// A buffer's length does not match the clip (frames × bones, or one entry per frame).
    LengthMismatch {
        /// Expected length.
        expected: usize,
        /// Length found.
        got: usize,
    },
    /// A bone index is outside the skeleton, or a parent does not come before its child.
    BadBone {
        /// The offending bone.
        bone: usize,
    },
}

impl fmt::Display for RootMotionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooFewSamples { got } => write!(
                f,
                "the clip has {got} samples; root motion needs at least two, the first at time 0 and the last at the clip's end"
            ),
            Self::NonFinite { sample } => {
                write!(
                    f,
                    "sample {sample} of the clip is NaN, infinite or has a zero rotation; re-export or clean the clip"
                )
            }
            Self::BadFrameRate => write!(f, "the frame rate must be a positive finite number of samples a second"),
            Self::BadAxes => {
                write!(f, "up and forward must be finite, non-zero and not parallel; take them from the rig's RigFrame")
            }
            Self::BadTolerance => write!(f, "the in-place tolerances must be finite and not negative"),
            Self::LengthMismatch { expected, got } => {
                write!(f, "a buffer has {got} entries where the clip needs {expected} (frames × bones, or one a frame)")
            }
            Self::BadBone { bone } => {
                write!(f, "bone {bone} is outside the skeleton or comes before its parent; check the parent list")
            }
        }
    }
}

impl std::error::Error for RootMotionError {}

/// A rigid motion of the character's model space over the ground: turn by `rotation` (about
/// up, by `yaw`) then translate. As a clip's travel `M(t)`, or a delta between two times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Travel {
    /// Translation, model units.
    pub translation: Vec3,
    /// The turn about up (`yaw` radians about the settings' up).
    pub rotation: Quat,
    /// The turn's angle, radians, unwrapped (a clip turning twice round has `4π`).
    pub yaw: f32,
}

impl Travel {
    /// No motion.
    pub const IDENTITY: Travel = Travel { translation: Vec3::ZERO, rotation: Quat::IDENTITY, yaw: 0.0 };

    fn about(up: Vec3, yaw: f32, translation: Vec3) -> Travel {
        Travel { translation, rotation: Quat::from_axis_angle(up, yaw), yaw }
    }

    /// The motion that undoes this one.
    pub fn inverse(&self) -> Travel {
        let rotation = self.rotation.inverse();
        Travel { translation: rotation * -self.translation, rotation, yaw: -self.yaw }
    }

    /// This motion followed by `next` (given in the frame this one arrives at): `self · next`.
    pub fn then(&self, next: &Travel) -> Travel {
        Travel {
            translation: self.translation + self.rotation * next.translation,
            rotation: (self.rotation * next.rotation).normalize(),
            yaw: self.yaw + next.yaw,
        }
    }

    /// Itself, or identity where a value overflowed (a query far past a huge clip's end).
    fn finite_or_identity(self) -> Travel {
        let finite = self.translation.is_finite() && self.rotation.is_finite() && self.yaw.is_finite();
        if finite { self } else { Travel::IDENTITY }
    }

    /// As an [`Xform`] (unit scale).
    pub fn to_xform(&self) -> Xform {
        Xform::from_translation_rotation(self.translation, self.rotation)
    }

    /// The in-place remainder of a model-space transform: `self⁻¹ · model`.
    pub fn remove_from(&self, model: &Xform) -> Xform {
        self.inverse().to_xform().mul_xform(model)
    }

    /// The in-place remainder of a bone's *local* transform, given its parent's model
    /// transform (the parent itself does not travel; [`Xform::IDENTITY`] for a root bone):
    /// `parent⁻¹ · self⁻¹ · parent · local`. What a runtime writes to the carrier's local.
    pub fn remove_from_local(&self, local: &Xform, parent_model: &Xform) -> Xform {
        parent_model.inverse().mul_xform(&self.remove_from(&parent_model.mul_xform(local)))
    }
}

/// The weighted mean of several clips' deltas (clips blended by their weights): translations
/// and yaws averaged, the turn rebuilt about `up`. Weights ≤ 0 or non-finite are left out;
/// identity when none is left.
///
/// ```
/// use glam::Vec3;
/// use ik_core::root_motion::{Travel, blend_travel};
///
/// let walk = Travel { translation: Vec3::Z * 0.02, ..Travel::IDENTITY };
/// let run = Travel { translation: Vec3::Z * 0.06, ..Travel::IDENTITY };
/// let mixed = blend_travel(Vec3::Y, &[(walk, 0.75), (run, 0.25)]);
/// assert!((mixed.translation.z - 0.03).abs() < 1e-6);
/// ```
pub fn blend_travel(up: Vec3, parts: &[(Travel, f32)]) -> Travel {
    let (mut translation, mut yaw, mut total) = (Vec3::ZERO, 0.0, 0.0);
    for (part, weight) in parts.iter().filter(|(_, w)| w.is_finite() && *w > 0.0) {
        (translation, yaw, total) = (translation + part.translation * *weight, yaw + part.yaw * weight, total + weight);
    }
    let up = up.try_normalize().unwrap_or(Vec3::Y);
    if total > 0.0 {
        Travel::about(up, yaw / total, translation / total).finite_or_identity()
    } else {
        Travel::IDENTITY
    }
}

/// A clip's travel, from [`extract_travel`]: what it is overall, and the query for any time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipTravel {
    /// False when the clip is in place (net motion within the tolerances): its travel is then
    /// identity everywhere and its speed and turning rate are 0.
    pub travels: bool,
    /// Whether the clip loops (from the settings).
    pub looping: bool,
    /// The clip's duration, seconds (`(samples − 1) / frame_rate`).
    pub duration: f32,
    /// Ground speed along the travel's path, model units per second (mean for a clip that
    /// does not loop).
    pub speed: f32,
    /// Turning rate about up, radians per second (positive turns forward toward left).
    pub turn_rate: f32,
    /// The steady velocity in the character's frame at the first sample, model space (along
    /// `up` too when the travel is vertical): a walk forward is along `forward`, a strafe
    /// along `left`.
    pub velocity: Vec3,
    /// The travel over the whole clip, `M(duration)`.
    pub cycle: Travel,
    /// Unit up of the ground frame.
    pub up: Vec3,
    /// Unit forward of the ground frame (at the first sample).
    pub forward: Vec3,
    /// The carrier's ground point at the first sample (the pivot of the steady motion).
    pub pivot: Vec3,
    /// Samples a second of the travel buffer.
    pub frame_rate: f32,
}

impl ClipTravel {
    /// The travel `M(time)`. A looping clip's travel is its steady motion at any time, past
    /// its end or before its start too (`k` loops travel the cycle `k` times); a clip that does
    /// not loop reads `travel` (the buffer [`extract_travel`] filled) between samples, its time
    /// clamped to the clip. Identity for a non-finite time or an overflow.
    pub fn at(&self, travel: &[Travel], time: f32) -> Travel {
        if !self.travels || !time.is_finite() {
            return Travel::IDENTITY;
        }
        if self.looping {
            return self.steady(time).finite_or_identity();
        }
        let Some(last) = travel.len().checked_sub(1) else { return Travel::IDENTITY };
        let at = (time * self.frame_rate).clamp(0.0, last as f32);
        let i = (at as usize).min(last.saturating_sub(1));
        let (a, b, s) = (travel[i], travel[(i + 1).min(last)], at - i as f32);
        Travel::about(self.up, a.yaw + (b.yaw - a.yaw) * s, a.translation.lerp(b.translation, s)).finite_or_identity()
    }

    /// The travel from clip time `from` to clip time `to`, in the character's frame at `from`:
    /// `M(from)⁻¹ · M(to)`. Times are unwrapped (a loop's time may run past its end); apply it
    /// as `entity = entity · delta`.
    pub fn delta(&self, travel: &[Travel], from: f32, to: f32) -> Travel {
        let delta = if self.looping && self.travels && from.is_finite() && to.is_finite() {
            // A steady motion is a one-parameter group: the delta depends on the span alone.
            self.steady(to - from)
        } else {
            self.at(travel, from).inverse().then(&self.at(travel, to))
        };
        delta.finite_or_identity()
    }

    /// The per-frame query: the travel from the clip time `previous` to `now`, both as a player
    /// reports them (wrapped into `[0, duration]`), played at `speed` (negative: backward). A
    /// looping clip whose time went against the play direction wrapped once (a seek reads the
    /// same). At `speed` 0 — a player paused while a blend space sets its clip times by seeks —
    /// the time went the shorter way round the loop. Identity for non-finite input or an
    /// overflow.
    ///
    /// ```
    /// use glam::{Quat, Vec3};
    /// use ik_core::Xform;
    /// use ik_core::root_motion::{RootMotionSettings, Travel, extract_travel};
    ///
    /// // The hips move +Z 1.12 m in a 1 s loop sampled at 30 Hz, bobbing 2 cm.
    /// let track: Vec<Xform> = (0..=30)
    ///     .map(|i| {
    ///         let t = i as f32 / 30.0;
    ///         let bob = 0.02 * (4.0 * std::f32::consts::PI * t).cos();
    ///         Xform::from_translation(Vec3::new(0.0, 0.95 + bob, 1.12 * t))
    ///     })
    ///     .collect();
    /// let settings = RootMotionSettings::new(Vec3::Y, Vec3::Z, 0.9);
    /// let mut travel = vec![Travel::IDENTITY; track.len()];
    /// let clip = extract_travel(&track, 30.0, &settings, &mut travel).unwrap();
    /// assert!(clip.travels && (clip.speed - 1.12).abs() < 1e-3);
    /// // The in-place hips keep their bob but not their travel.
    /// let in_place = travel[15].remove_from(&track[15]);
    /// assert!(in_place.translation.z.abs() < 1e-4);
    /// // Last frame at 0.95 s, this frame at 0.05 s (wrapped): 0.1 s of travel, 11.2 cm.
    /// let delta = clip.delta_wrapped(&travel, 0.95, 0.05, 1.0);
    /// assert!((delta.translation - Vec3::Z * 0.112).length() < 1e-4);
    /// // Seeked there at speed 0: the same 0.1 s forward, not 0.9 s back.
    /// let seeked = clip.delta_wrapped(&travel, 0.95, 0.05, 0.0);
    /// assert!((seeked.translation - Vec3::Z * 0.112).length() < 1e-4);
    /// ```
    pub fn delta_wrapped(&self, travel: &[Travel], previous: f32, now: f32, speed: f32) -> Travel {
        if ![previous, now, speed].iter().all(|v| v.is_finite()) {
            return Travel::IDENTITY;
        }
        let mut to = now;
        if self.looping {
            let half = 0.5 * self.duration;
            let forward = now < previous && (speed > 0.0 || (speed == 0.0 && previous - now > half));
            let backward = now > previous && (speed < 0.0 || (speed == 0.0 && now - previous > half));
            let turns = match (forward, backward) {
                (true, _) => 1.0,
                (_, true) => -1.0,
                _ => 0.0,
            };
            to += turns * self.duration;
        }
        self.delta(travel, previous, to)
    }

    /// The steady motion at time `t`: `pivot`'s ground frame carried at constant body velocity
    /// and turning rate, conjugated so that `steady(0)` is identity.
    fn steady(&self, t: f32) -> Travel {
        let left = self.up.cross(self.forward);
        let (vf, vl) = (self.velocity.dot(self.forward), self.velocity.dot(left));
        let (a, b) = arc(self.turn_rate * t, t);
        let moved =
            self.forward * (a * vf - b * vl) + left * (a * vl + b * vf) + self.up * (self.velocity.dot(self.up) * t);
        let turn = Travel::about(self.up, self.turn_rate * t, Vec3::ZERO);
        Travel { translation: self.pivot + moved - turn.rotation * self.pivot, ..turn }
    }
}

/// `t · (e^{iθ} − 1) / (iθ)` as `(real, imaginary)`: where a unit body velocity turning by `θ`
/// over `t` seconds ends up (series near θ = 0).
fn arc(theta: f32, t: f32) -> (f32, f32) {
    if theta.abs() < 1e-3 {
        (t * (1.0 - theta * theta / 6.0), t * theta / 2.0)
    } else {
        let (s, c) = theta.sin_cos();
        (t * s / theta, t * (1.0 - c) / theta)
    }
}

/// The net motion of a carrier over its samples.
struct Net {
    ground: Vec3,
    rise: f32,
    yaw: f32,
}

/// Ground point, height and unwrapped yaw of each sample, passed to `each(i, ground, height,
/// yaw)`; the net motion from the first sample to the last. Errors on the first non-finite one.
fn walk_samples(
    samples: impl Iterator<Item = Xform>,
    axes: &Axes,
    mut each: impl FnMut(usize, Vec3, f32, f32),
) -> Result<Net, RootMotionError> {
    let (mut first, mut yaw, mut net) = (None, 0.0f32, Net { ground: Vec3::ZERO, rise: 0.0, yaw: 0.0 });
    for (i, x) in samples.enumerate() {
        if !x.is_finite() || x.rotation.length_squared() < 1e-12 {
            return Err(RootMotionError::NonFinite { sample: i });
        }
        let (q, height) = (x.rotation.normalize(), x.translation.dot(axes.up));
        let ground = x.translation - axes.up * height;
        let &mut (q0, g0, h0) = first.get_or_insert((q, ground, height));
        let raw = signed_angle_about(q * q0.inverse(), axes.up);
        yaw += wrap_angle(raw - yaw);
        each(i, ground, height, yaw);
        net = Net { ground: ground - g0, rise: height - h0, yaw };
    }
    Ok(net)
}

/// `angle` wrapped into `[−π, π)`.
fn wrap_angle(angle: f32) -> f32 {
    (angle + PI).rem_euclid(2.0 * PI) - PI
}

fn moves(net: &Net, settings: &RootMotionSettings) -> bool {
    net.ground.length() > settings.still_distance
        || net.yaw.abs() > settings.still_turn
        || (settings.vertical && net.rise.abs() > settings.still_distance)
}

/// Splits a carrier's motion into travel and remainder: fills `travel` with `M(t)` per sample
/// (the remainder of sample `i` is `travel[i].remove_from(&track[i])`) and returns the clip's
/// [`ClipTravel`]. `track` holds the carrier's model-space transforms at `frame_rate` Hz, the
/// last at the clip's end; see the module documentation and [`ClipTravel::delta_wrapped`] for
/// an example.
///
/// Errors: fewer than two samples, a `travel` buffer of another length, a non-finite sample,
/// frame rate, axis or tolerance (`travel` untouched), or values so large the travel
/// overflows (`travel` reset to identity).
pub fn extract_travel(
    track: &[Xform],
    frame_rate: f32,
    settings: &RootMotionSettings,
    travel: &mut [Travel],
) -> Result<ClipTravel, RootMotionError> {
    if track.len() < 2 {
        return Err(RootMotionError::TooFewSamples { got: track.len() });
    }
    if travel.len() != track.len() {
        return Err(RootMotionError::LengthMismatch { expected: track.len(), got: travel.len() });
    }
    let duration = (track.len() - 1) as f32 / frame_rate;
    if !(frame_rate > 0.0 && frame_rate.is_finite() && duration.is_finite() && duration > 0.0) {
        return Err(RootMotionError::BadFrameRate);
    }
    let axes = settings.axes()?;
    let net = walk_samples(track.iter().copied(), &axes, |_, _, _, _| {})?;
    let pivot = track[0].translation.reject_from_normalized(axes.up);
    let mut clip = ClipTravel {
        travels: moves(&net, settings),
        looping: settings.looping,
        duration,
        speed: 0.0,
        turn_rate: 0.0,
        velocity: Vec3::ZERO,
        cycle: Travel::IDENTITY,
        up: axes.up,
        forward: axes.forward,
        pivot,
        frame_rate,
    };
    if !clip.travels {
        travel.fill(Travel::IDENTITY);
        return Ok(clip);
    }
    // The steady fit: body velocity v with v · arc(ψ, D) = the net displacement (complex).
    let (df, dl) = (net.ground.dot(axes.forward), net.ground.dot(axes.left));
    let (a, b) = arc(net.yaw, duration);
    let norm = a * a + b * b;
    let (vf, vl) = if norm > (1e-3 * duration).powi(2) {
        ((df * a + dl * b) / norm, (dl * a - df * b) / norm)
    } else {
        (0.0, 0.0)
    };
    let rise = if settings.vertical { net.rise / duration } else { 0.0 };
    clip.turn_rate = net.yaw / duration;
    clip.speed = vf.hypot(vl);
    clip.velocity = axes.forward * vf + axes.left * vl + axes.up * rise;
    let finite = [clip.turn_rate, clip.speed].iter().all(|v| v.is_finite()) && clip.velocity.is_finite();
    if !finite {
        return Err(RootMotionError::NonFinite { sample: track.len() - 1 });
    }
    if settings.looping {
        for (i, t) in travel.iter_mut().enumerate() {
            *t = clip.steady(i as f32 / frame_rate);
        }
    } else {
        let (vertical, h0) = (settings.vertical, track[0].translation.dot(axes.up));
        walk_samples(track.iter().copied(), &axes, |i, ground, height, yaw| {
            let turn = Quat::from_axis_angle(axes.up, yaw);
            let lift = if vertical { axes.up * (height - h0) } else { Vec3::ZERO };
            travel[i] = Travel { translation: ground - turn * pivot + lift, rotation: turn, yaw };
        })?;
    }
    if let Some(bad) = travel.iter().position(|t| !(t.translation.is_finite() && t.rotation.is_finite())) {
        travel.fill(Travel::IDENTITY);
        return Err(RootMotionError::NonFinite { sample: bad });
    }
    clip.cycle = travel[travel.len() - 1];
    Ok(clip)
}

/// Which bone carries a clip's travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrier {
    /// An ancestor of the hips travels (the highest that does): a root bone.
    Root(usize),
    /// No ancestor travels; the hips do.
    Hips(usize),
    /// Nothing travels: an in-place clip.
    InPlace,
}

impl Carrier {
    /// The carrying bone, if any.
    pub fn bone(self) -> Option<usize> {
        match self {
            Carrier::Root(b) | Carrier::Hips(b) => Some(b),
            Carrier::InPlace => None,
        }
    }
}

/// Finds the bone that carries a clip's travel: the highest ancestor of `hips` whose net
/// model-space motion over the clip is beyond the settings' tolerances, else `hips` if its own
/// is, else [`Carrier::InPlace`]. `locals` holds the clip frame-major, one local per bone of
/// `parents` per frame (parents before children).
pub fn find_carrier(
    parents: &[Option<usize>],
    hips: usize,
    locals: &[Xform],
    settings: &RootMotionSettings,
) -> Result<Carrier, RootMotionError> {
    let frames = clip_frames(parents, hips, locals)?;
    let axes = settings.axes()?;
    let depth = core::iter::successors(Some(hips), |&b| parents[b]).count() - 1;
    for up_steps in (0..=depth).rev() {
        let bone = (0..up_steps).fold(hips, |b, _| parents[b].unwrap_or(b));
        let samples = (0..frames).map(|f| model_of(parents, &locals[f * parents.len()..], bone));
        if moves(&walk_samples(samples, &axes, |_, _, _, _| {})?, settings) {
            return Ok(if up_steps > 0 { Carrier::Root(bone) } else { Carrier::Hips(bone) });
        }
    }
    Ok(Carrier::InPlace)
}

/// The model-space transform of `bone` in every frame of a frame-major clip of locals, into
/// `track` (one per frame): the input of [`extract_travel`].
pub fn carrier_track(
    parents: &[Option<usize>],
    bone: usize,
    locals: &[Xform],
    track: &mut [Xform],
) -> Result<(), RootMotionError> {
    let frames = clip_frames(parents, bone, locals)?;
    if track.len() != frames {
        return Err(RootMotionError::LengthMismatch { expected: frames, got: track.len() });
    }
    for (f, out) in track.iter_mut().enumerate() {
        *out = model_of(parents, &locals[f * parents.len()..], bone);
    }
    Ok(())
}

/// Frames in a frame-major clip of `parents.len()` bones, checking the hierarchy and `bone`.
fn clip_frames(parents: &[Option<usize>], bone: usize, locals: &[Xform]) -> Result<usize, RootMotionError> {
    if bone >= parents.len() {
        return Err(RootMotionError::BadBone { bone });
    }
    if let Some(bad) = parents.iter().enumerate().position(|(i, p)| p.is_some_and(|p| p >= i)) {
        return Err(RootMotionError::BadBone { bone: bad });
    }
    let frames = locals.len() / parents.len();
    if locals.len() != frames * parents.len() {
        return Err(RootMotionError::LengthMismatch { expected: frames * parents.len(), got: locals.len() });
    }
    if frames < 2 {
        return Err(RootMotionError::TooFewSamples { got: frames });
    }
    Ok(frames)
}

/// `bone`'s model transform from one frame's locals, composed up its ancestors.
fn model_of(parents: &[Option<usize>], frame: &[Xform], bone: usize) -> Xform {
    let mut model = frame[bone];
    let mut at = parents[bone];
    while let Some(p) = at {
        model = frame[p].mul_xform(&model);
        at = parents[p];
    }
    model
}
