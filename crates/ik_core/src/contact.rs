//! Contact labelling: which frames of a clip have a foot planted, from its contact point's path.
//!
//! **Inputs.** One contact point per foot (its ball, toe or an estimated sole point), one
//! position per frame *in the ground's frame* (the character travelling at the clip's ground
//! speed: an in-place clip's planted foot moves backward at the ground speed, so the caller adds
//! the travel; a clip with root motion already travels), the frame rate, whether the clip loops,
//! and [`ContactSettings`] (heights in m above the floor, speeds in m/s over the ground) —
//! [`ContactSettings::for_gait`] scales them to the leg length and the clip's ground speed.
//!
//! **Method** ([`label_contacts`]). (1) Speeds: horizontal speed over the ground, central
//! difference ([`ground_speeds`]; across the seam for a looping clip, one-sided at the ends
//! otherwise). (2) The floor the stances define ([`floor_height`]): of the slowest quarter of
//! the frames, the height at the 10th percentile — a fast dip in a swing never sets it, and one
//! low sample does not either. (3) The height band the stances allow ([`stance_noise`],
//! [`ContactSettings::fitted`]): [`HEIGHT_NOISE`] × how far the stance's own core (the frames
//! that hold still: no faster than [`STILL_SPEED`] × `enter_speed`, at least the slowest tenth)
//! strays above that floor, no less than `least_height` and no more than `enter_height` — a clean
//! clip whose planted foot holds the floor to the millimetre gets a band of a fraction of a
//! millimetre, a capture whose ball holds still a few millimetres up late in the stance (a toe
//! roll) a band that keeps it planted, a noisy capture the full `enter_height`. (4) Hysteresis: a free
//! foot lands where it is within the landing band of that floor and slower than `enter_speed`; a
//! planted foot lifts off where it rises above the lift-off band or moves faster than
//! `leave_speed`. A looping clip runs round the cycle twice so its first frame starts from the
//! state the cycle ends in. (5) An optional majority vote ([`majority_vote`]); gaps shorter
//! than `min_gap` frames closed and spans shorter than `min_span` dropped ([`tidy_spans`]),
//! across the seam when looping.
//! [`smooth_contacts`] turns labels into a 0..1 signal.
//!
//! **Why relative to the ground speed.** Real walks are not clean: the planted toe of a sample
//! walk moves at 0.24–1.27 m/s in the travelling frame of a 0.91 m/s walk (its body does not
//! travel at one speed), and a 4.4 m/s robot walk pushes its planted foot back at 0.5–1.7 × the
//! ground speed. A swing moves forward over the ground at about twice the ground speed, so
//! "slower over the ground than the ground speed itself" separates them on every clip checked
//! (the corpus walks in `ik_tool`'s `contacts_corpus` test), where an absolute threshold does
//! not.
//!
//! **Why a band from the stance's own noise.** A swing that leaves and meets the floor
//! tangentially (a generated walk's does: no vertical or horizontal speed at either end) stays
//! within a fixed 2 %-of-leg band and slower than the ground speed for several frames at both
//! ends, so a fixed band labels a 15 % stance as 40 % planted; those frames are a millimetre or
//! less above a floor the planted foot holds exactly. A real capture's planted foot wanders by
//! several millimetres (a toe roll by 1–2 cm), which widens its band up to `enter_height`.
//!
//! **Invariants.** Non-finite positions or settings, or a frame rate that is not a finite
//! positive number, return [`IkError::NonFiniteInput`] and leave the labels untouched; slices of
//! the wrong length return [`IkError::LengthMismatch`]; smoothed values lie in `[0, 1]`.
//!
//! ```
//! use glam::Vec3;
//! use ik_core::contact::{ContactSettings, label_contacts};
//! // A foot planted for 20 frames, then swinging forward at 2.8 m/s, 3 cm up (60 Hz, 1.4 m/s).
//! let path: Vec<Vec3> = (0..40)
//!     .map(|i| if i < 20 { Vec3::ZERO } else { Vec3::new(0.0, 0.03, 2.8 * (i - 19) as f32 / 60.0) })
//!     .collect();
//! let settings = ContactSettings::for_gait(0.85, 1.4, 60.0);
//! let mut labels = vec![false; path.len()];
//! let labelled = label_contacts(&path, 60.0, false, &settings, &mut labels).unwrap();
//! assert_eq!(labelled.floor, 0.0);
//! assert!(labels[..19].iter().all(|&c| c) && labels[21..].iter().all(|&c| !c));
//! ```

use glam::Vec3;

use crate::IkError;

/// Thresholds of [`label_contacts`]: heights above the floor (m), speeds over the ground
/// (m/s), spans (frames). `enter_*` should not exceed the matching `leave_*`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSettings {
    /// A free foot lands only within this height of the floor — at most: the band used is
    /// [`HEIGHT_NOISE`] × the stance's height noise within `least_height..=enter_height`
    /// ([`ContactSettings::fitted`]).
    pub enter_height: f32,
    /// A planted foot lifts off above this height (scaled with the landing band, keeping
    /// `leave_height / enter_height`).
    pub leave_height: f32,
    /// The least landing band, m; `least_height >= enter_height` uses `enter_height` as given.
    pub least_height: f32,
    /// A free foot lands only below this speed.
    pub enter_speed: f32,
    /// A planted foot lifts off above this speed.
    pub leave_speed: f32,
    /// Contact spans shorter than this many frames are dropped.
    pub min_span: usize,
    /// Gaps between contacts shorter than this many frames are closed (before spans are
    /// dropped).
    pub min_gap: usize,
    /// Majority-vote window over the hysteresis labels, frames (0 or 1: none).
    pub vote_window: usize,
}

/// Landing height, × leg length (1.7 cm for a 0.84 m leg).
pub const ENTER_HEIGHT: f32 = 0.02;
/// Lift-off height, × leg length (2.1 cm for a 0.84 m leg).
pub const LEAVE_HEIGHT: f32 = 0.025;
/// Landing speed over the ground, × the clip's ground speed.
pub const ENTER_SPEED: f32 = 1.0;
/// Lift-off speed over the ground, × the clip's ground speed.
pub const LEAVE_SPEED: f32 = 1.2;
/// Least speed threshold, × leg length per second (for clips that hardly travel).
pub const MIN_SPEED: f32 = 0.2;
/// Least landing band, × leg length (0.08 mm for a 0.84 m leg: float noise on a clean clip).
pub const LEAST_HEIGHT: f32 = 1e-4;
/// A gap between two contacts in which the foot stays within this share of the unfitted
/// lift-off band (1.7 mm for a 0.84 m leg) and slower than [`STILL_SPEED`] × the lift-off speed
/// is closed: the foot never left ([`label_contacts`]).
pub const STILL_HEIGHT: f32 = 0.08;
/// See [`STILL_HEIGHT`]; also, × `enter_speed`, the speed up to which a frame holds still for
/// [`stance_noise`].
pub const STILL_SPEED: f32 = 0.1;
/// Landing band, × the stance's height noise ([`stance_noise`]).
pub const HEIGHT_NOISE: f32 = 2.0;
/// Share of the frames, slowest first, that make a stance's core ([`stance_noise`]).
pub const STANCE_CORE: f32 = 0.1;

impl ContactSettings {
    /// The defaults for a leg of `leg_length` (m) on a clip travelling at `ground_speed` (m/s),
    /// sampled at `frame_rate` (Hz): land within at most [`ENTER_HEIGHT`] × leg of the floor
    /// (at least [`LEAST_HEIGHT`] × leg, as the stance's noise says) and slower than
    /// [`ENTER_SPEED`] × ground speed, lift off above [`LEAVE_HEIGHT`] / `ENTER_HEIGHT` × that
    /// band or faster than [`LEAVE_SPEED`] × ground speed (speeds never under [`MIN_SPEED`] × leg
    /// per second), spans and gaps of 0.05 s, a 3-frame vote.
    pub fn for_gait(leg_length: f32, ground_speed: f32, frame_rate: f32) -> Self {
        let least = MIN_SPEED * leg_length;
        let frames = ((0.05 * frame_rate).round().max(1.0)) as usize;
        ContactSettings {
            enter_height: ENTER_HEIGHT * leg_length,
            leave_height: LEAVE_HEIGHT * leg_length,
            least_height: LEAST_HEIGHT * leg_length,
            enter_speed: (ENTER_SPEED * ground_speed).max(least),
            leave_speed: (LEAVE_SPEED * ground_speed).max(least),
            min_span: frames,
            min_gap: frames,
            vote_window: 3,
        }
    }

    /// These settings with the height band fitted to a stance height noise of `noise` m
    /// ([`stance_noise`]): landing band [`HEIGHT_NOISE`] × `noise` within
    /// `least_height..=enter_height`, lift-off band scaled by the same factor.
    ///
    /// ```
    /// use ik_core::contact::ContactSettings;
    /// let s = ContactSettings::for_gait(0.85, 1.4, 60.0);
    /// assert_eq!(s.fitted(1.0).enter_height, s.enter_height); // a noisy stance: the full band
    /// assert_eq!(s.fitted(0.0).enter_height, s.least_height); // a clean one: the least band
    /// assert!((s.fitted(0.003).enter_height - 0.006).abs() < 1e-7);
    /// ```
    pub fn fitted(&self, noise: f32) -> ContactSettings {
        let band = (HEIGHT_NOISE * noise).max(self.least_height).min(self.enter_height);
        let ratio = if self.enter_height > 0.0 { band / self.enter_height } else { 1.0 };
        ContactSettings { enter_height: band, leave_height: self.leave_height * ratio, ..*self }
    }

    fn finite(&self) -> bool {
        [self.enter_height, self.leave_height, self.least_height, self.enter_speed, self.leave_speed]
            .iter()
            .all(|v| v.is_finite())
    }
}

/// What [`label_contacts`] measured: the floor and the thresholds it labelled with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Labelled {
    /// The floor the stances define, m ([`floor_height`]).
    pub floor: f32,
    /// The settings with the height band fitted to the stance ([`ContactSettings::fitted`]).
    pub settings: ContactSettings,
}

/// Largest majority-vote window, frames (the vote runs in place with a 64-frame history).
pub const MAX_VOTE_WINDOW: usize = 127;

fn check_lengths(expected: usize, got: usize) -> Result<(), IkError> {
    if expected == got { Ok(()) } else { Err(IkError::LengthMismatch { expected, got }) }
}

fn check_rate(frame_rate: f32) -> Result<(), IkError> {
    if frame_rate.is_finite() && frame_rate > 0.0 { Ok(()) } else { Err(IkError::NonFiniteInput) }
}

/// Frames of one cycle: a looping clip's last frame repeats its first.
fn cycle_len(n: usize, looping: bool) -> usize {
    if looping && n > 2 { n - 1 } else { n }
}

/// Horizontal speed over the ground of each frame, m/s, into `speeds`: central difference,
/// one-sided at the ends; when `looping` (the last frame is the first one cycle on, moved by
/// the cycle's travel) across the seam instead; 0 for one frame; saturates at `f32::MAX`.
pub fn ground_speeds(positions: &[Vec3], frame_rate: f32, looping: bool, speeds: &mut [f32]) -> Result<(), IkError> {
    check_lengths(positions.len(), speeds.len())?;
    check_rate(frame_rate)?;
    let n = positions.len();
    let m = cycle_len(n, looping);
    let travel = if m < n { positions[n - 1] - positions[0] } else { Vec3::ZERO };
    for (i, s) in speeds.iter_mut().enumerate() {
        let (a, b, step) = match (i, m < n) {
            (0, true) => (positions[m - 1] - travel, positions[1], 2.0),
            (i, true) if i == n - 1 => (positions[n - 2], positions[1] + travel, 2.0),
            _ => {
                let (a, b) = (i.saturating_sub(1), (i + 1).min(n.saturating_sub(1)));
                (positions[a], positions[b], (b - a).max(1) as f32)
            }
        };
        let d = b - a;
        let v = Vec3::new(d.x, 0.0, d.z).length() * frame_rate / step;
        *s = if v.is_finite() { v } else { f32::MAX };
    }
    Ok(())
}

/// The floor the stances define: of the slowest quarter of the frames (at least one), the height
/// at the 10th percentile. `NaN`-free inputs give a finite answer; empty input gives 0.
pub fn floor_height(heights: &[f32], speeds: &[f32]) -> f32 {
    let mut order: Vec<usize> = (0..heights.len().min(speeds.len())).collect();
    if order.is_empty() {
        return 0.0;
    }
    order.sort_by(|&a, &b| speeds[a].total_cmp(&speeds[b]));
    let mut slow: Vec<f32> = order[..order.len().div_ceil(4)].iter().map(|&i| heights[i]).collect();
    slow.sort_by(f32::total_cmp);
    slow[(slow.len() - 1) / 10]
}

/// How far a stance strays above its floor, m: of the frames no faster than `still` m/s over
/// the ground, and at least the slowest [`STANCE_CORE`] of them (at least 3), the 75th
/// percentile of the height above `floor` (heights below it count as 0). Empty input gives 0.
pub fn stance_noise(heights: &[f32], speeds: &[f32], floor: f32, still: f32) -> f32 {
    let mut order: Vec<usize> = (0..heights.len().min(speeds.len())).collect();
    if order.is_empty() {
        return 0.0;
    }
    order.sort_by(|&a, &b| speeds[a].total_cmp(&speeds[b]));
    let slowest = ((STANCE_CORE * order.len() as f32).ceil() as usize).max(3);
    let core = order.iter().take_while(|&&i| speeds[i] <= still).count().max(slowest).min(order.len());
    let mut above: Vec<f32> = order[..core].iter().map(|&i| (heights[i] - floor).max(0.0)).collect();
    above.sort_by(f32::total_cmp);
    above[3 * (above.len() - 1) / 4]
}

/// Labels one foot (see the module docs): `labels[i]` is true where the foot is planted.
/// `positions` are in the ground's frame; `looping` says the last frame repeats the first.
/// Returns the floor the labels were measured from and the fitted thresholds.
pub fn label_contacts(
    positions: &[Vec3],
    frame_rate: f32,
    looping: bool,
    settings: &ContactSettings,
    labels: &mut [bool],
) -> Result<Labelled, IkError> {
    check_lengths(positions.len(), labels.len())?;
    check_rate(frame_rate)?;
    if !settings.finite() || positions.iter().any(|p| !p.is_finite()) {
        return Err(IkError::NonFiniteInput);
    }
    let n = positions.len();
    let m = cycle_len(n, looping);
    let mut speeds = vec![0.0; n];
    ground_speeds(positions, frame_rate, looping, &mut speeds)?;
    let heights: Vec<f32> = positions.iter().map(|p| p.y).collect();
    let floor = floor_height(&heights[..m], &speeds[..m]);
    let still = STILL_SPEED * settings.enter_speed;
    let fitted = settings.fitted(stance_noise(&heights[..m], &speeds[..m], floor, still));
    let s = &fitted;
    let step = |planted: bool, i: usize| {
        let (h, v) = (heights[i] - floor, speeds[i]);
        if planted { h <= s.leave_height && v <= s.leave_speed } else { h <= s.enter_height && v <= s.enter_speed }
    };
    let mut planted = false;
    if m < n {
        // Round the cycle once so frame 0 starts from the state the cycle ends in.
        for i in 0..m {
            planted = step(planted, i);
        }
    }
    for (i, label) in labels.iter_mut().enumerate().take(m) {
        planted = step(planted, i);
        *label = planted;
    }
    let above: Vec<f32> = heights[..m].iter().map(|h| h - floor).collect();
    let still = (STILL_HEIGHT * settings.leave_height, STILL_SPEED * s.leave_speed);
    close_still_gaps(&mut labels[..m], &above, &speeds[..m], still, m < n);
    let cycle = &mut labels[..m];
    if m < n {
        tidy_cycle(cycle, s);
        labels[n - 1] = labels[0];
    } else {
        majority_vote(cycle, s.vote_window);
        tidy_spans(cycle, s.min_gap, s.min_span);
    }
    Ok(Labelled { floor, settings: fitted })
}

/// Closes each gap between two contacts (round the seam when `looping`) in which the foot
/// stays within `height` of the floor and slower than `speed` (`above`: heights over the
/// floor): a still foot a millimetre off it — a clean capture's planted ball rising 1 mm
/// mid-stance, which the band fitted to that clean stance (0.1 mm) calls a lift-off — not a
/// step.
fn close_still_gaps(labels: &mut [bool], above: &[f32], speeds: &[f32], (height, speed): (f32, f32), looping: bool) {
    let n = labels.len();
    let Some(first) = labels.iter().position(|&l| l) else { return };
    let mut i = 0;
    while i < n {
        if labels[(first + i) % n] {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && !labels[(first + i) % n] {
            i += 1;
        }
        if i == n && !looping {
            break;
        }
        let gap = (start..i).map(|k| (first + k) % n);
        if gap.clone().all(|k| above[k] <= height && speeds[k] <= speed) {
            gap.for_each(|k| labels[k] = true);
        }
    }
}

/// Vote and tidy a looping cycle: rotated so it starts at a lift-off (or left whole when it is
/// all one label), processed as a line, rotated back.
fn tidy_cycle(cycle: &mut [bool], s: &ContactSettings) {
    let m = cycle.len();
    let Some(start) = (0..m).find(|&i| !cycle[i] && cycle[(i + m - 1) % m]) else {
        return;
    };
    cycle.rotate_left(start);
    majority_vote(cycle, s.vote_window);
    tidy_spans(cycle, s.min_gap, s.min_span);
    cycle.rotate_right(start);
}

/// In-place majority vote over a centred window of `window` frames (even sizes grow to the next
/// odd, capped at [`MAX_VOTE_WINDOW`]). Near the ends the window is cut short; a tie keeps the
/// frame's own label.
pub fn majority_vote(labels: &mut [bool], window: usize) {
    let radius = window.min(MAX_VOTE_WINDOW) / 2;
    let n = labels.len();
    if radius == 0 || n == 0 {
        return;
    }
    // Original labels of the `radius + 1` frames before the current one are kept in `history`
    // (bit k = frame i − 1 − k), because the slice itself is overwritten as we go.
    let mut history: u64 = 0;
    let mut count = labels[..(radius + 1).min(n)].iter().filter(|&&l| l).count();
    for i in 0..n {
        let original = labels[i];
        let (lo, hi) = (i.saturating_sub(radius), (i + radius).min(n - 1));
        let size = hi - lo + 1;
        labels[i] = match (2 * count).cmp(&size) {
            core::cmp::Ordering::Greater => true,
            core::cmp::Ordering::Less => false,
            core::cmp::Ordering::Equal => original,
        };
        history = (history << 1) | original as u64;
        // Slide: frame i + radius + 1 enters, frame i − radius leaves.
        if i + radius + 1 < n && labels[i + radius + 1] {
            count += 1;
        }
        if i >= radius && (history >> radius) & 1 == 1 {
            count -= 1;
        }
    }
}

/// Closes interior gaps shorter than `min_gap` frames, then drops contact spans shorter than
/// `min_span` frames.
pub fn tidy_spans(labels: &mut [bool], min_gap: usize, min_span: usize) {
    fill_runs(labels, false, min_gap);
    fill_runs(labels, true, min_span);
}

/// Flips interior runs of `value` shorter than `min` frames (runs touching an end are kept when
/// `value` is `false`, so a clip starting in the air keeps its start).
fn fill_runs(labels: &mut [bool], value: bool, min: usize) {
    let n = labels.len();
    let mut i = 0;
    while i < n {
        if labels[i] != value {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && labels[i] == value {
            i += 1;
        }
        let interior = start > 0 && i < n;
        if i - start < min && (value || interior) {
            labels[start..i].iter_mut().for_each(|l| *l = !value);
        }
    }
}
/// Smooths labels into a 0..1 contact signal with a Gaussian blur of standard deviation
/// `sigma` seconds (window ±3σ, renormalized at the clip's ends). `sigma ≤ 0` copies the labels
/// as 0/1. `signal` must be as long as `labels`.
pub fn smooth_contacts(labels: &[bool], frame_rate: f32, sigma: f32, signal: &mut [f32]) -> Result<(), IkError> {
    check_lengths(labels.len(), signal.len())?;
    check_rate(frame_rate)?;
    if sigma.is_nan() {
        return Err(IkError::NonFiniteInput);
    }
    let sigma_frames = sigma * frame_rate;
    let n = labels.len();
    if sigma_frames.is_nan() || sigma_frames <= 1e-3 || n == 0 {
        for (s, &l) in signal.iter_mut().zip(labels) {
            *s = if l { 1.0 } else { 0.0 };
        }
        return Ok(());
    }
    let reach = (3.0 * sigma_frames).ceil().min(n as f32) as usize;
    let inv = -0.5 / (sigma_frames * sigma_frames);
    for (i, s) in signal.iter_mut().enumerate() {
        let (mut sum, mut weight) = (0.0f32, 0.0f32);
        let lo = i.saturating_sub(reach);
        for (j, &label) in labels.iter().enumerate().take((i + reach).min(n - 1) + 1).skip(lo) {
            let k = j as f32 - i as f32;
            let w = (k * k * inv).exp();
            weight += w;
            if label {
                sum += w;
            }
        }
        *s = if weight > 0.0 {
            (sum / weight).clamp(0.0, 1.0)
        } else if labels[i] {
            1.0
        } else {
            0.0
        };
    }
    Ok(())
}
