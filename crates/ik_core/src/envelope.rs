//! The smallest slew-limited curve above a sampled one: for offline passes over whole clips
//! (a heel lift or a pelvis drop each frame needs on its own, eased so it never snaps); and
//! the smallest curve above one whose rise eases in ([`curvature_limited_above`]).
//!
//! **Method.** `e[i] = max_j (v[j] − step·|i − j|)`, the lowest curve that is at least `v`
//! everywhere and changes by at most `step` from one sample to the next; computed by one
//! forward and one backward sweep (`e[i] = max(v[i], e[i∓1] − step)`), twice round for a
//! cyclic curve (a looping clip, where the last sample is followed by the first).
//!
//! **Invariants.** `e ≥ v`; `|e[i+1] − e[i]| ≤ step` (and across the seam when cyclic); where
//! `v` already changes slowly enough, `e = v`. Non-finite samples are kept as they are and
//! nothing spreads through them; a non-finite or negative `step` returns `v` unchanged.
//!
//! ```
//! use ik_core::envelope::slew_limited_above;
//!
//! let drop = [0.0, 0.0, 3.0, 0.0, 0.0];
//! assert_eq!(slew_limited_above(&drop, 1.0, false), vec![1.0, 2.0, 3.0, 2.0, 1.0]);
//! ```

/// The smallest curve at least `values` that changes by at most `step` per sample; see the
/// module documentation.
pub fn slew_limited_above(values: &[f32], step: f32, cyclic: bool) -> Vec<f32> {
    let mut out = values.to_vec();
    let n = out.len();
    if n < 2 || !step.is_finite() || step < 0.0 {
        return out;
    }
    let laps = if cyclic { 2 } else { 1 };
    let lift = |out: &mut [f32], at: usize, from: usize| {
        let reach = out[from] - step;
        if out[at].is_finite() && reach.is_finite() && reach > out[at] {
            out[at] = reach;
        }
    };
    for lap in 0..laps {
        for i in 0..n {
            if i > 0 || lap > 0 {
                lift(&mut out, i, (i + n - 1) % n);
            }
        }
    }
    for lap in 0..laps {
        for i in (0..n).rev() {
            if i + 1 < n || lap > 0 {
                lift(&mut out, i, (i + 1) % n);
            }
        }
    }
    out
}

/// The smallest curve at least `values` whose rate grows by at most `accel` from one sample to
/// the next (`e[i−1] + e[i+1] − 2·e[i] ≤ accel`): every rise eases in, while it may ease out as
/// fast as `values` do — a heel that starts to rise slowly, as a nearly straight knee bends
/// fast for the first degrees its heel lifts. Found by raising any sample below the mean of its
/// neighbours less `accel / 2` until none is (each raise only increases, so it settles; at most
/// `4·n` sweeps). Non-finite samples are free: kept as they are and constraining nothing. The
/// ends of a curve that is not `cyclic` are free too.
///
/// ```
/// use ik_core::envelope::curvature_limited_above;
///
/// let jump = [0.0, 0.0, 0.0, 0.0, 4.0];
/// let eased = curvature_limited_above(&jump, 1.0, false);
/// // At least the jump everywhere, its rise easing in: each step at most 1 more than the last
/// // (0, 0, 1/3, 5/3, 4: steps 0, 1/3, 4/3, 7/3).
/// let expected = [0.0, 0.0, 1.0 / 3.0, 5.0 / 3.0, 4.0];
/// assert!(eased.iter().zip(expected).all(|(e, x)| (e - x).abs() < 1e-4), "{eased:?}");
/// ```
pub fn curvature_limited_above(values: &[f32], accel: f32, cyclic: bool) -> Vec<f32> {
    let mut out = values.to_vec();
    let n = out.len();
    if n < 3 || !accel.is_finite() || accel < 0.0 {
        return out;
    }
    for _ in 0..4 * n {
        let mut raised = false;
        for i in 0..n {
            if !cyclic && (i == 0 || i + 1 == n) {
                continue;
            }
            let lowest = 0.5 * (out[(i + n - 1) % n] + out[(i + 1) % n] - accel);
            if lowest.is_finite() && out[i].is_finite() && out[i] < lowest - 1e-6 {
                out[i] = lowest;
                raised = true;
            }
        }
        if !raised {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_is_above_the_curve_slew_limited_and_equal_where_it_is_slow_already() {
        let v = [0.0, 0.5, 4.0, 0.0, 0.0, 0.0, -1.0, 2.5];
        for cyclic in [false, true] {
            let e = slew_limited_above(&v, 1.0, cyclic);
            let brute: Vec<f32> = (0..v.len())
                .map(|i| {
                    (0..v.len())
                        .map(|j| {
                            let d = i.abs_diff(j);
                            let d = if cyclic { d.min(v.len() - d) } else { d };
                            v[j] - d as f32
                        })
                        .fold(f32::NEG_INFINITY, f32::max)
                })
                .collect();
            assert_eq!(e, brute, "cyclic {cyclic}");
            assert!(e.iter().zip(&v).all(|(e, v)| e >= v));
        }
        assert_eq!(slew_limited_above(&[0.0, 0.5, 1.0], 1.0, false), vec![0.0, 0.5, 1.0]);
        let with_nan = slew_limited_above(&[0.0, f32::NAN, 3.0], 1.0, false);
        assert!(with_nan[1].is_nan() && with_nan[0] == 0.0, "kept, and nothing spreads through it: {with_nan:?}");
        assert_eq!(slew_limited_above(&[0.0, 3.0], f32::NAN, false), vec![0.0, 3.0]);
    }

    #[test]
    fn a_rise_eases_in_and_free_samples_stay_free() {
        let mut needed = vec![f32::NEG_INFINITY; 40];
        needed[..21].fill(0.0);
        needed[18..21].copy_from_slice(&[2.0, 6.0, 12.0]);
        let eased = curvature_limited_above(&needed, 0.5, true);
        assert!(eased.iter().zip(&needed).all(|(e, n)| e >= n));
        let rates: Vec<f32> = (5..20).map(|i| eased[i + 1] - eased[i]).collect();
        assert!(rates.windows(2).all(|w| w[1] - w[0] <= 0.5 + 1e-4), "{rates:?}");
        assert_eq!(eased[2], 0.0, "far from the rise the needed value");
        assert!(eased[30] == f32::NEG_INFINITY, "free samples stay free");
        assert_eq!(curvature_limited_above(&[0.0, 0.0, 4.0], f32::NAN, false), vec![0.0, 0.0, 4.0]);
    }
}
