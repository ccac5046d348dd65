//! Evaluates a clip at a fixed frame rate.
//!
//! Method: the clip's own rate is the median key interval of its most densely keyed channel.
//! Clips keyed at 60 Hz or finer are evaluated at their own rate with the file's interpolation
//! (`STEP`, `LINEAR` with slerp for rotations, `CUBICSPLINE` Hermite). Coarser clips are
//! resampled to [`TARGET_RATE`] with cubic interpolation: `LINEAR` channels go through a
//! Catmull–Rom spline (tangents from the neighbouring keys; quaternions kept in one hemisphere
//! and renormalized), so contact labels see smooth toe speeds rather than the kinks of linear
//! keys. Frames are evenly spaced over the clip's span: frame 0 at the first key, the last
//! frame at the last key.
//!
//! Inputs: a [`Clip`] and the nodes' rest transforms. Outputs: a [`Timeline`] and per-frame
//! local transforms of every node (nodes a clip does not animate keep their rest transform).
//!
//! Invariants: times outside the keys hold the first/last value; outputs are finite for the
//! finite inputs [`crate::gltf_read`] guarantees; rotations are unit quaternions.

use glam::{Quat, Vec3, Vec4};
use ik_core::Xform;

use crate::gltf_read::{Channel, Clip, Interpolation, Property};

pub use ik_core::resample::TARGET_RATE;
use ik_core::resample::{catmull_rom, hermite};

/// The frames a clip is evaluated at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timeline {
    /// Time of frame 0 (the first key), s.
    pub start: f32,
    /// Frame rate, Hz (frames are `1 / rate` apart).
    pub rate: f32,
    /// Number of frames (intervals + 1; 1 for a clip with a single key time).
    pub frames: usize,
    /// The rate the clip is keyed at, Hz.
    pub source_rate: f32,
    /// True when the clip was coarser than [`TARGET_RATE`] and is resampled with cubics.
    pub resampled: bool,
}

impl Timeline {
    /// Time of frame `i`, s.
    pub fn time(&self, i: usize) -> f32 {
        self.start + i as f32 / self.rate
    }

    /// Span of the frames, s.
    pub fn duration(&self) -> f32 {
        (self.frames.saturating_sub(1)) as f32 / self.rate
    }
}

/// A frame rate for messages: whole when it is (`60 Hz`), else with two decimals (`60.27 Hz`:
/// a resampled clip's frames split its duration evenly, so they are rarely exactly 1/60 s apart).
pub fn rate_label(rate: f32) -> String {
    if (rate - rate.round()).abs() < 0.005 { format!("{:.0} Hz", rate.round()) } else { format!("{rate:.2} Hz") }
}

/// The clip's key rate: the median key interval of its channel with the most keys.
pub fn source_rate(clip: &Clip) -> Option<f32> {
    let channel = clip.channels.iter().max_by_key(|c| c.times.len())?;
    let mut steps: Vec<f32> = channel.times.windows(2).map(|w| w[1] - w[0]).filter(|d| *d > 1e-6).collect();
    if steps.is_empty() {
        return None;
    }
    steps.sort_by(f32::total_cmp);
    Some(1.0 / steps[steps.len() / 2])
}

/// The frames to evaluate the clip at (see the module docs).
pub fn timeline(clip: &Clip) -> Timeline {
    let (start, end) = clip.span();
    let source = source_rate(clip).unwrap_or(TARGET_RATE);
    let resampled = source < TARGET_RATE - 0.5;
    let wanted = if resampled { TARGET_RATE } else { source };
    let duration = end - start;
    if duration <= 1e-6 {
        return Timeline { start, rate: wanted, frames: 1, source_rate: source, resampled };
    }
    let intervals = (duration * wanted).round().max(1.0);
    Timeline { start, rate: intervals / duration, frames: intervals as usize + 1, source_rate: source, resampled }
}

/// The channel's value at time `t`; `cubic` turns `LINEAR` keys into a Catmull–Rom spline.
pub fn sample_channel(channel: &Channel, t: f32, cubic: bool) -> Vec4 {
    let times = &channel.times;
    let n = times.len();
    let rotation = channel.property == Property::Rotation;
    if cubic && channel.interpolation == Interpolation::Linear {
        return catmull_rom(times, &channel.values, t, rotation);
    }
    let value = |k: usize| match channel.interpolation {
        Interpolation::CubicSpline => channel.values[3 * k + 1],
        _ => channel.values[k],
    };
    if n == 1 || t <= times[0] {
        return value(0);
    }
    if t >= times[n - 1] {
        return value(n - 1);
    }
    // times[k] <= t < times[k + 1]
    let k = times.partition_point(|&x| x <= t).saturating_sub(1).min(n - 2);
    let dt = times[k + 1] - times[k];
    if dt <= 0.0 {
        return value(k + 1);
    }
    let s = ((t - times[k]) / dt).clamp(0.0, 1.0);
    let (p0, p1) = (value(k), value(k + 1));
    let result = match channel.interpolation {
        Interpolation::Step => p0,
        Interpolation::Linear => {
            if rotation {
                let (a, b) = (Quat::from_vec4(p0).normalize(), Quat::from_vec4(p1).normalize());
                Vec4::from(a.slerp(b, s))
            } else {
                p0.lerp(p1, s)
            }
        }
        Interpolation::CubicSpline => {
            let out_tangent = channel.values[3 * k + 2];
            let in_tangent = channel.values[3 * (k + 1)];
            let (h00, h10, h01, h11) = hermite(s);
            p0 * h00 + out_tangent * (h10 * dt) + p1 * h01 + in_tangent * (h11 * dt)
        }
    };
    if rotation { Vec4::from(Quat::from_vec4(result).normalize()) } else { result }
}

/// Writes the clip's pose at time `t` into `locals` (one entry per node, by node index):
/// every node starts from `rest` and each channel overrides its property.
pub fn pose_at(rest: &[Xform], clip: &Clip, t: f32, cubic: bool, locals: &mut [Xform]) {
    locals.copy_from_slice(rest);
    for channel in &clip.channels {
        let Some(local) = locals.get_mut(channel.node) else { continue };
        let v = sample_channel(channel, t, cubic);
        match channel.property {
            Property::Translation => local.translation = v.truncate(),
            Property::Rotation => {
                let q = Quat::from_vec4(v);
                local.rotation = if q.length_squared() > 1e-12 { q.normalize() } else { Quat::IDENTITY };
            }
            Property::Scale => local.scale = Vec3::new(v.x, v.y, v.z),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(times: Vec<f32>, values: Vec<Vec4>, interpolation: Interpolation) -> Channel {
        Channel {
            index: 0,
            sampler: 0,
            node: 0,
            property: Property::Translation,
            interpolation,
            input: 0,
            times,
            values,
        }
    }

    #[test]
    fn coarse_linear_keys_resample_to_a_smooth_curve_through_the_keys() {
        // y = t² keyed at 30 Hz: the cubic passes through every key and stays within 1e-4 of
        // the parabola between keys, where linear keys are off by up to dt²/4.
        let times: Vec<f32> = (0..=30).map(|i| i as f32 / 30.0).collect();
        let values = times.iter().map(|t| Vec4::new(0.0, t * t, 0.0, 0.0)).collect();
        let c = channel(times, values, Interpolation::Linear);
        let clip = Clip { index: 0, name: "c".into(), channels: vec![c.clone()] };
        let tl = timeline(&clip);
        assert!(tl.resampled && (tl.rate - 60.0).abs() < 1e-3 && tl.frames == 61, "{tl:?}");
        for i in 2..58 {
            let t = tl.time(i);
            let y = sample_channel(&c, t, true).y;
            assert!((y - t * t).abs() < 1e-4, "t {t}: {y} vs {}", t * t);
        }
        let mid = 1.5 / 30.0;
        assert!((sample_channel(&c, mid, false).y - mid * mid).abs() > 2e-4);
    }
}
