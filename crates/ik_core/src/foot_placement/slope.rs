//! The slope a foot tilts to ([`sole_slope`]): across the foot, the mean of the ground normals
//! found under it; along it, the line through the ground under its two ends, kept within the
//! slopes actually found there.
//!
//! **Why the ends.** Where the ground under a foot bends — the foot of a ramp, its crest — the
//! mean normal pitches the sole by a share of the ramp that depends on how many probe points
//! happen to lie on each side, and the sole then rests on one end with the other hanging
//! (a heel on the floor with its toes over the ramp pitched up past it). The line through the
//! ground under the heel and the toe tip is the chord the sole can lie on; on an even slope it
//! is the slope itself. Kept between the least and the steepest slope found under the probes,
//! a step's treads (all level) still leave the sole level: the chord down a riser is no ground.

use glam::Vec3;

use crate::sole::SOLE_PROBES;

/// The ground normal a foot tilts to, from the `(point, normal)` found under each of its
/// probe points (ankle, ball, heel, toe tip; model space, +Y up). Normals steeper than about
/// 84° (walls, risers' faces) are left out. `None` when nothing else was found.
///
/// ```
/// use glam::Vec3;
/// use ik_core::foot_placement::sole_slope;
///
/// // Heel on the floor, ankle and ball too, the toe tip 5 cm up a 30° ramp beginning under the
/// // ball: the sole pitches up along the chord from heel to tip, less than the ramp.
/// let ramp = Vec3::new(0.0, 30f32.to_radians().cos(), -30f32.to_radians().sin());
/// let hits = [
///     Some((Vec3::new(0.0, 0.0, 0.0), Vec3::Y)),
///     Some((Vec3::new(0.0, 0.0, 0.12), Vec3::Y)),
///     Some((Vec3::new(0.0, 0.0, -0.06), Vec3::Y)),
///     Some((Vec3::new(0.0, 0.05, 0.2), ramp)),
/// ];
/// let n = sole_slope(&hits).unwrap();
/// let pitch = (-n.z / n.y).atan().to_degrees();
/// assert!(pitch > 10.0 && pitch < 12.0, "{pitch}");
/// ```
pub fn sole_slope(hits: &[Option<(Vec3, Vec3)>; SOLE_PROBES]) -> Option<Vec3> {
    let normals = hits.iter().flatten().map(|h| h.1.normalize_or(Vec3::Y)).filter(|n| n.y > 0.1);
    let mean = normals.clone().sum::<Vec3>().try_normalize()?;
    // The ends: the heel (else the ankle) and the toe tip (else the ball).
    let (Some(rear), Some(front)) =
        ([2, 0].map(|k| hits[k]).into_iter().flatten().next(), [3, 1].map(|k| hits[k]).into_iter().flatten().next())
    else {
        return Some(mean);
    };
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    let run = flat(front.0 - rear.0);
    let Some(along) = run.try_normalize().filter(|_| run.length() > 1e-3) else { return Some(mean) };
    // A normal's rise per unit run along the foot.
    let gradient = |n: Vec3| -n.dot(along) / n.y;
    let (least, steepest) = normals.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), n| {
        let g = gradient(n);
        (lo.min(g), hi.max(g))
    });
    let chord = ((front.0.y - rear.0.y) / run.length()).clamp(least, steepest);
    // The mean's slope across the foot, the chord's along it.
    let across = -flat(mean) / mean.y;
    let slope = across + along * (chord - across.dot(along));
    Some(Vec3::new(-slope.x, 1.0, -slope.z).normalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pitch(n: Vec3) -> f32 {
        (-n.z / n.y).atan().to_degrees()
    }

    /// Probe hits for a foot along +Z (heel z −0.06, ankle 0, ball 0.12, tip 0.2) on the
    /// ground `height(z)` with the normal `normal(z)`.
    fn hits(height: impl Fn(f32) -> f32, normal: impl Fn(f32) -> Vec3) -> [Option<(Vec3, Vec3)>; SOLE_PROBES] {
        [0.0, 0.12, -0.06, 0.2].map(|z| Some((Vec3::new(0.0, height(z), z), normal(z))))
    }

    #[test]
    fn an_even_slope_is_followed_and_a_stair_stays_level() {
        let up = Vec3::new(0.0, 20f32.to_radians().cos(), -20f32.to_radians().sin());
        let even = sole_slope(&hits(|z| z * 20f32.to_radians().tan(), |_| up)).unwrap();
        assert!((pitch(even) - 20.0).abs() < 1e-3, "{}", pitch(even));
        // Heel and ankle on a tread, ball and tip on the next one 20 cm up: level treads, level
        // sole (the chord up the riser is no ground).
        let stair = sole_slope(&hits(|z| if z > 0.05 { 0.2 } else { 0.0 }, |_| Vec3::Y)).unwrap();
        assert!(stair.abs_diff_eq(Vec3::Y, 1e-6), "{stair}");
        assert_eq!(sole_slope(&[None; SOLE_PROBES]), None);
    }

    #[test]
    fn across_a_crest_the_sole_lies_along_the_chord_within_the_slopes_found() {
        let down = Vec3::new(0.0, 30f32.to_radians().cos(), 30f32.to_radians().sin());
        // Level ground up to z 0.05, then a 30° ramp down: the heel and ankle on the level,
        // ball and tip on the ramp. The mean normal says 15°; the chord from heel to tip is
        // steeper, within the ramp's 30°.
        let crest = |z: f32| if z > 0.05 { -(z - 0.05) * 30f32.to_radians().tan() } else { 0.0 };
        let n = sole_slope(&hits(crest, |z| if z > 0.05 { down } else { Vec3::Y })).unwrap();
        let chord = (crest(0.2) - crest(-0.06)) / 0.26;
        assert!((pitch(n) - chord.atan().to_degrees()).abs() < 1e-3, "{}", pitch(n));
        assert!(pitch(n) < -15.0 && pitch(n) > -30.0, "{}", pitch(n));
        // Tilted sideways as well: the mean's cross slope is kept.
        let side = Vec3::new(0.2, 1.0, 0.0).normalize();
        let n = sole_slope(&hits(|_| 0.0, |_| side)).unwrap();
        assert!(n.abs_diff_eq(side, 1e-5), "{n}");
    }
}
