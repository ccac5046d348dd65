//! Contact labelling: which frames of a clip have a foot planted, from its toe trajectory.
//!
//! **Method.** (1) Raw labels: a frame is in contact when the toe's speed is under
//! [`ContactSettings::velocity_threshold`] *and* it is less than
//! [`ContactSettings::height_threshold`] above the floor. Speed is the central difference of
//! positions (one-sided at the ends). (2) A majority vote over a centred window of
//! [`ContactSettings::vote_window`] frames removes single-frame activations and dropouts.
//! (3) Optionally, [`smooth_contacts`] turns the labels into a 0..1 signal with a Gaussian blur
//! (useful as a weight, or thresholded at ½ for a softer edge).
//!
//! **Robust labelling** ([`label_contacts_hysteresis`], used by `ik_tool`): hysteresis instead
//! of one threshold pair — a foot *enters* contact only where it is lower than
//! [`HysteresisSettings::enter_height`] and slower than [`HysteresisSettings::enter_speed`],
//! and *leaves* only where it rises above [`HysteresisSettings::leave_height`] or moves faster
//! than [`HysteresisSettings::leave_speed`] (speeds of the step to the next frame, so the
//! incoming swing does not blur the landing frame) — then gaps shorter than
//! [`HysteresisSettings::min_gap`] frames are closed and spans shorter than
//! [`HysteresisSettings::min_span`] frames removed. Heights are measured above the floor
//! given; the caller scales the thresholds to the character (e.g. by leg length).
//!
//! **Inputs.** Toe positions, one per frame, in *world* space (root motion applied: an in-place
//! clip's planted toe slides backward and would never be labelled), at a fixed frame rate, and
//! the floor height. **Outputs** go to caller-owned slices of the same length; nothing allocates.
//!
//! **Defaults** ([`ContactSettings::default`]): 0.3 m/s and 0.1 m. Usable speed thresholds run
//! from about 0.1 m/s (clean data; misses contacts in noisy capture) to 0.5 m/s (extends
//! contacts into the start and end of the swing); 0.3 m/s sits in the middle and, at 60 fps,
//! tolerates ±2 mm of jitter per frame. The height test only rejects still-but-airborne poses.
//! A 3-frame vote removes one-frame blips without eating short running contacts (which may
//! last only 2 frames at 30 Hz); prefer 60 Hz data.
//!
//! **Invariants.** Non-finite positions or floor, or a frame rate that is not finite and > 0,
//! return [`IkError::NonFiniteInput`] and leave the output untouched; smoothed values lie in
//! `[0, 1]`.

use glam::Vec3;

use crate::IkError;

/// Thresholds for [`label_contacts`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSettings {
    /// Toe speed below which it may be planted, m/s. Default 0.3.
    pub velocity_threshold: f32,
    /// Height above the floor below which it may be planted, m. Default 0.1.
    pub height_threshold: f32,
    /// Majority-vote window, frames (even sizes grow to the next odd; 0 or 1: no vote; at most
    /// [`MAX_VOTE_WINDOW`]). Default 3.
    pub vote_window: usize,
}

impl Default for ContactSettings {
    fn default() -> Self {
        ContactSettings { velocity_threshold: 0.3, height_threshold: 0.1, vote_window: 3 }
    }
}

/// Largest majority-vote window, frames (the vote runs in place with a 64-frame history).
pub const MAX_VOTE_WINDOW: usize = 127;

fn check_lengths(expected: usize, got: usize) -> Result<(), IkError> {
    if expected == got { Ok(()) } else { Err(IkError::LengthMismatch { expected, got }) }
}

fn check_rate(frame_rate: f32) -> Result<(), IkError> {
    if frame_rate.is_finite() && frame_rate > 0.0 { Ok(()) } else { Err(IkError::NonFiniteInput) }
}

/// Toe speed at frame `i`, m/s: central difference, one-sided at the ends, 0 for one frame.
/// Positions must be finite; huge differences saturate at `f32::MAX`.
pub fn toe_speed(positions: &[Vec3], frame_rate: f32, i: usize) -> f32 {
    let n = positions.len();
    if n < 2 || i >= n {
        return 0.0;
    }
    let (a, b) = (i.saturating_sub(1), (i + 1).min(n - 1));
    let span = (b - a) as f32;
    let speed = (positions[b] - positions[a]).length() * frame_rate / span;
    if speed.is_finite() { speed } else { f32::MAX }
}

/// Raw labels: `true` where the toe is slower than the velocity threshold and lower than the
/// height threshold above `floor_height`. `labels` must be as long as `positions`.
pub fn raw_contacts(
    positions: &[Vec3],
    frame_rate: f32,
    floor_height: f32,
    settings: &ContactSettings,
    labels: &mut [bool],
) -> Result<(), IkError> {
    check_lengths(positions.len(), labels.len())?;
    check_rate(frame_rate)?;
    if !floor_height.is_finite() || positions.iter().any(|p| !p.is_finite()) {
        return Err(IkError::NonFiniteInput);
    }
    for (i, label) in labels.iter_mut().enumerate() {
        let low = positions[i].y - floor_height < settings.height_threshold;
        *label = low && toe_speed(positions, frame_rate, i) < settings.velocity_threshold;
    }
    Ok(())
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

/// Raw labels followed by the majority vote: the whole labelling in one call.
pub fn label_contacts(
    positions: &[Vec3],
    frame_rate: f32,
    floor_height: f32,
    settings: &ContactSettings,
    labels: &mut [bool],
) -> Result<(), IkError> {
    raw_contacts(positions, frame_rate, floor_height, settings, labels)?;
    majority_vote(labels, settings.vote_window);
    Ok(())
}

/// Thresholds of [`label_contacts_hysteresis`] (heights above the floor, m; speeds, m/s;
/// spans, frames). `enter_*` should not exceed the matching `leave_*`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HysteresisSettings {
    /// A free foot lands only below this height.
    pub enter_height: f32,
    /// A planted foot lifts off above this height.
    pub leave_height: f32,
    /// A free foot lands only below this speed.
    pub enter_speed: f32,
    /// A planted foot lifts off above this speed.
    pub leave_speed: f32,
    /// Contact spans shorter than this many frames are dropped.
    pub min_span: usize,
    /// Gaps between contacts shorter than this many frames are closed (before spans are
    /// dropped).
    pub min_gap: usize,
}

impl Default for HysteresisSettings {
    /// Thresholds for a leg of about 0.85 m at 60 Hz: enter below 5 cm and 0.15 m/s, leave above
    /// 8 cm or 0.35 m/s, spans of at least 3 frames, gaps of 3 frames closed.
    fn default() -> Self {
        HysteresisSettings {
            enter_height: 0.05,
            leave_height: 0.08,
            enter_speed: 0.15,
            leave_speed: 0.35,
            min_span: 3,
            min_gap: 3,
        }
    }
}

/// Robust labels (see the module docs): hysteresis on the height above `floor_height` and on
/// the *step speed* (frame `i` → `i + 1`, the last frame's step backward: a frame is planted
/// when the foot stays put until the next one), then short gaps closed and short spans dropped.
/// `labels` must be as long as `positions`.
pub fn label_contacts_hysteresis(
    positions: &[Vec3],
    frame_rate: f32,
    floor_height: f32,
    settings: &HysteresisSettings,
    labels: &mut [bool],
) -> Result<(), IkError> {
    check_lengths(positions.len(), labels.len())?;
    check_rate(frame_rate)?;
    let s = settings;
    let values = [s.enter_height, s.leave_height, s.enter_speed, s.leave_speed, floor_height];
    if values.iter().any(|v| !v.is_finite()) || positions.iter().any(|p| !p.is_finite()) {
        return Err(IkError::NonFiniteInput);
    }
    let mut planted = false;
    for (i, label) in labels.iter_mut().enumerate() {
        let h = positions[i].y - floor_height;
        let v = step_speed(positions, frame_rate, i);
        planted =
            if planted { h <= s.leave_height && v <= s.leave_speed } else { h < s.enter_height && v < s.enter_speed };
        *label = planted;
    }
    tidy_spans(labels, s.min_gap, s.min_span);
    Ok(())
}

/// Speed of the step from frame `i` to `i + 1` (the last frame: from `i − 1`), m/s; 0 for one
/// frame; saturates at `f32::MAX`.
pub fn step_speed(positions: &[Vec3], frame_rate: f32, i: usize) -> f32 {
    let n = positions.len();
    if n < 2 || i >= n {
        return 0.0;
    }
    let (a, b) = if i + 1 < n { (i, i + 1) } else { (i - 1, i) };
    let speed = (positions[b] - positions[a]).length() * frame_rate;
    if speed.is_finite() { speed } else { f32::MAX }
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
