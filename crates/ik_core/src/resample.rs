//! Resampling a clip keyed coarser than [`TARGET_RATE`]: a Catmull–Rom spline through its
//! linear keys, so contact labels see smooth toe speeds rather than the kinks of linear keys.
//!
//! **Method** ([`catmull_rom`]): between keys `k` and `k + 1` a cubic Hermite segment whose
//! tangents come from the neighbouring keys (one-sided at the ends); quaternions (as `Vec4`) are
//! kept in one hemisphere and renormalized. [`resample_locals`] does it for every bone of a
//! pose sequence keyed at one rate. **Invariants:** the spline passes through every key; times
//! outside the keys hold the first / last value; rotations come out unit length.
//!
//! ```
//! use glam::Vec4;
//! use ik_core::resample::catmull_rom;
//! // y = t² keyed at 30 Hz: the spline stays within 1e-4 of it between keys.
//! let times: Vec<f32> = (0..=30).map(|i| i as f32 / 30.0).collect();
//! let values: Vec<Vec4> = times.iter().map(|t| Vec4::new(0.0, t * t, 0.0, 0.0)).collect();
//! let t = 10.5 / 30.0;
//! assert!((catmull_rom(&times, &values, t, false).y - t * t).abs() < 1e-4);
//! ```

use glam::{Quat, Vec4};

use crate::Xform;

/// Rate coarser clips are resampled to, Hz.
pub const TARGET_RATE: f32 = 60.0;

/// Hermite basis weights `(h00, h10, h01, h11)` at `s` in [0, 1].
pub fn hermite(s: f32) -> (f32, f32, f32, f32) {
    let (s2, s3) = (s * s, s * s * s);
    (2.0 * s3 - 3.0 * s2 + 1.0, s3 - 2.0 * s2 + s, -2.0 * s3 + 3.0 * s2, s3 - s2)
}

fn same_hemisphere(q: Vec4, reference: Vec4) -> Vec4 {
    if q.dot(reference) < 0.0 { -q } else { q }
}

/// The Catmull–Rom spline through `values` keyed at ascending `times`, at `t` (see the module
/// docs); `rotation`: the values are quaternions. The first value for no keys' worth of span.
pub fn catmull_rom(times: &[f32], values: &[Vec4], t: f32, rotation: bool) -> Vec4 {
    let n = times.len().min(values.len());
    if n == 0 {
        return if rotation { Vec4::W } else { Vec4::ZERO };
    }
    let finish = |v: Vec4| if rotation { Vec4::from(Quat::from_vec4(v).normalize()) } else { v };
    if n == 1 || t.is_nan() || t <= times[0] {
        return values[0];
    }
    if t >= times[n - 1] {
        return values[n - 1];
    }
    // times[k] <= t < times[k + 1]
    let k = times[..n].partition_point(|&x| x <= t).saturating_sub(1).min(n - 2);
    let dt = times[k + 1] - times[k];
    if dt <= 0.0 {
        return values[k + 1];
    }
    let s = ((t - times[k]) / dt).clamp(0.0, 1.0);
    let hemi = |q: Vec4, r: Vec4| if rotation { same_hemisphere(q, r) } else { q };
    let p0 = values[k];
    let p1 = hemi(values[k + 1], p0);
    let before = hemi(if k > 0 { values[k - 1] } else { p0 }, p0);
    let after = hemi(if k + 2 < n { values[k + 2] } else { p1 }, p1);
    let t_before = if k > 0 { times[k - 1] } else { times[k] };
    let t_after = if k + 2 < n { times[k + 2] } else { times[k + 1] };
    let m0 = (p1 - before) / (times[k + 1] - t_before).max(1e-6);
    let m1 = (after - p0) / (t_after - times[k]).max(1e-6);
    let (h00, h10, h01, h11) = hermite(s);
    finish(p0 * h00 + m0 * (h10 * dt) + p1 * h01 + m1 * (h11 * dt))
}

/// `keys` (`key_times.len() × bones` locals, frame-major) resampled at `times` with
/// [`catmull_rom`] per bone and property; the result is `times.len() × bones`.
pub fn resample_locals(key_times: &[f32], keys: &[Xform], bones: usize, times: &[f32]) -> Vec<Xform> {
    let n = key_times.len().min(keys.len() / bones.max(1));
    let mut out = Vec::with_capacity(times.len() * bones);
    let track = |f: &dyn Fn(&Xform) -> Vec4, b: usize| (0..n).map(|k| f(&keys[k * bones + b])).collect::<Vec<_>>();
    let tracks: Vec<[Vec<Vec4>; 3]> = (0..bones)
        .map(|b| {
            [
                track(&|x| x.translation.extend(0.0), b),
                track(&|x| Vec4::from(x.rotation), b),
                track(&|x| x.scale.extend(0.0), b),
            ]
        })
        .collect();
    for &t in times {
        for [translation, rotation, scale] in &tracks {
            out.push(Xform {
                translation: catmull_rom(&key_times[..n], translation, t, false).truncate(),
                rotation: Quat::from_vec4(catmull_rom(&key_times[..n], rotation, t, true)),
                scale: catmull_rom(&key_times[..n], scale, t, false).truncate(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn the_spline_passes_through_the_keys_and_holds_outside_them() {
        let times = [0.0, 0.5, 1.0];
        let values = [Vec4::ZERO, Vec4::ONE, Vec4::splat(4.0)];
        for (t, v) in times.iter().zip(values) {
            assert!(catmull_rom(&times, &values, *t, false).distance(v) < 1e-6);
        }
        assert_eq!(catmull_rom(&times, &values, -1.0, false), Vec4::ZERO);
        assert_eq!(catmull_rom(&times, &values, 2.0, false), Vec4::splat(4.0));
        assert_eq!(catmull_rom(&times, &values, f32::NAN, false), Vec4::ZERO);
        assert_eq!(catmull_rom(&[], &[], 0.5, true), Vec4::W);
    }

    #[test]
    fn resampled_rotations_are_unit_and_translations_follow_the_keys() {
        let key_times = [0.0, 0.5, 1.0];
        let keys: Vec<Xform> = (0..3)
            .map(|k| {
                let q = Quat::from_rotation_y(k as f32 * 0.5);
                Xform { translation: Vec3::X * k as f32, rotation: q, scale: Vec3::ONE }
            })
            .collect();
        let out = resample_locals(&key_times, &keys, 1, &[0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(out.len(), 5);
        assert!(out.iter().all(|x| (x.rotation.length() - 1.0).abs() < 1e-5 && x.is_finite()));
        assert!((out[2].translation.x - 1.0).abs() < 1e-6 && (out[1].translation.x - 0.5).abs() < 1e-6);
    }
}
