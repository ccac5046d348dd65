//! A sampled clip's feet before they are labelled: where each foot touches the floor, which way
//! the character faces, how fast the ground moves under an in-place clip and whether it loops.
//!
//! **Method.** Contact point of a foot ([`ContactPoint`]): its ball bone, or for an ankle-only
//! foot an estimated sole point fixed to the foot bone ([`crate::sole::toeless_contact`]: under
//! the ankle at its rest height above the rest pose's lowest joint, 0.07 × leg length forward).
//! Forward ([`rest_forward`]): the horizontal way the feet point at rest (ankle → ball, both
//! feet). Ground velocity of an in-place clip ([`ground_velocity`]): of the contact points'
//! velocities on frames where they are within 0.06 × leg length of the clip's lowest contact
//! point, the largest cluster of nearly equal ones (within 0.1 m/s or 10 %), averaged; zero
//! under 0.06 leg lengths a second. A clip loops ([`same_pose`]) when its first and last frames
//! hold the same pose. A clip whose pelvis travels faster than [`IN_PLACE_SPEED`] leg lengths a
//! second on average ([`mean_travel`], [`carries_root_motion`]) carries its own root motion; an
//! in-place one travels the way its feet face, else against the ground's motion
//! ([`travel_forward`]). Every speed bound is in leg lengths, so a file in centimetres, one in
//! metres and a giant label alike. These are the steps `ik_tool contacts` and `bevy_ik`'s runtime labeller share before
//! [`crate::contact::label_contacts`].
//!
//! **Inputs.** Model-space transforms (+Y up, metres), frame-major (`frames × bones`).
//! **Invariants.** Outputs are finite for finite inputs; nothing here allocates per frame but
//! [`ground_velocity`]'s sample list.
//!
//! ```
//! use glam::Vec3;
//! use ik_core::clip_feet::ground_velocity;
//! // Both feet planted in turn, the ground moving backward (−Z) at 1.2 m/s under them (60 Hz).
//! let planted = |phase: usize| -> Vec<Vec3> {
//!     (0..60).map(|f| if (f / 30) % 2 == phase { Vec3::new(0.0, 0.0, -1.2 * f as f32 / 60.0) }
//!         else { Vec3::new(0.0, 0.1, 0.0) }).collect()
//! };
//! let (left, right) = (planted(0), planted(1));
//! let v = ground_velocity([&left, &right], [0.85, 0.85], 60.0);
//! assert!((v.z + 1.2).abs() < 1e-3 && v.x.abs() < 1e-6);
//! ```

use glam::Vec3;

use crate::Xform;

/// Mean horizontal pelvis speed below which a clip counts as in place, leg lengths per second
/// (5 cm/s on 0.84 m legs).
pub const IN_PLACE_SPEED: f32 = 0.06;

/// Where a foot touches the floor: its ball bone, or a sole point fixed to its foot bone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// The foot (ankle) bone's index.
    pub foot: usize,
    /// The ball bone's index, when the rig has one.
    pub ball: Option<usize>,
    /// Sole point in the foot bone's local frame (used without a ball).
    pub sole: Vec3,
    /// Thigh + shin length in the rest pose, m (at least 1 mm).
    pub leg_length: f32,
}

impl ContactPoint {
    /// The contact point of the leg `[thigh, calf, foot]` (+ `ball`) from `rest`, the rest
    /// pose's model transforms of every bone, the character facing `forward` (see the module
    /// docs).
    pub fn from_rest(rest: &[Xform], [thigh, calf, foot]: [usize; 3], ball: Option<usize>, forward: Vec3) -> Self {
        let at = |b: usize| rest[b].translation;
        let lowest = rest.iter().map(|x| x.translation.y).fold(f32::INFINITY, f32::min);
        let leg_length = (at(calf) - at(thigh)).length() + (at(foot) - at(calf)).length();
        let above = at(foot).y - lowest;
        ContactPoint {
            foot,
            ball,
            sole: crate::sole::toeless_contact(&rest[foot], Vec3::Y, forward, above, leg_length),
            leg_length: leg_length.max(1e-3),
        }
    }

    /// The contact point of frame `f` of `world` (`frames × bones` model transforms).
    pub fn at(&self, world: &[Xform], bones: usize, f: usize) -> Vec3 {
        match self.ball {
            Some(b) => world[f * bones + b].translation,
            None => world[f * bones + self.foot].transform_point(self.sole),
        }
    }
}

/// The horizontal direction the feet point in in the rest pose (foot joint → ball, summed over
/// both `(foot, ball)` pairs of `rest`, model transforms); `None` without balls or when that is
/// degenerate.
pub fn rest_forward(rest: &[Xform], feet: [(usize, Option<usize>); 2]) -> Option<Vec3> {
    let mut sum = Vec3::ZERO;
    for (foot, ball) in feet {
        sum += rest[ball?].translation - rest[foot].translation;
    }
    Vec3::new(sum.x, 0.0, sum.z).try_normalize()
}

/// The ground's horizontal velocity under an in-place clip, m/s, from the two feet's contact
/// point `tracks` (one position per frame, frames `1 / frame_rate` apart) and their legs'
/// lengths (see the module docs). Zero for fewer than two frames or a rate that is not finite
/// and positive.
pub fn ground_velocity(tracks: [&[Vec3]; 2], leg_lengths: [f32; 2], frame_rate: f32) -> Vec3 {
    let n = tracks[0].len().min(tracks[1].len());
    if n < 2 || !(frame_rate.is_finite() && frame_rate > 0.0) {
        return Vec3::ZERO;
    }
    let floor = tracks.iter().flat_map(|t| t[..n].iter()).map(|p| p.y).fold(f32::INFINITY, f32::min);
    let mut samples = Vec::new();
    for (track, leg_length) in tracks.iter().zip(leg_lengths) {
        for f in 0..n {
            if track[f].y - floor < 0.06 * leg_length {
                let (a, b) = (f.saturating_sub(1), (f + 1).min(n - 1));
                let v = (track[b] - track[a]) * frame_rate / (b - a).max(1) as f32;
                samples.push(Vec3::new(v.x, 0.0, v.z));
            }
        }
    }
    // Speeds in leg lengths a second: 0.1 and 0.05 m/s on 0.84 m legs.
    let leg = (leg_lengths[0] + leg_lengths[1]) * 0.5;
    let near = |a: Vec3, b: Vec3| a.distance(b) <= (0.12 * leg).max(0.1 * a.length());
    let best = samples.iter().max_by_key(|&&a| samples.iter().filter(|&&b| near(a, b)).count());
    let Some(&best) = best else { return Vec3::ZERO };
    let cluster: Vec<Vec3> = samples.iter().copied().filter(|&b| near(best, b)).collect();
    let mean = cluster.iter().sum::<Vec3>() / cluster.len().max(1) as f32;
    if mean.length() < 0.06 * leg || !mean.is_finite() { Vec3::ZERO } else { mean }
}

/// A clip's own mean horizontal velocity, m/s: its pelvis from `first` to `last` (positions,
/// +Y up) over `duration` s (at least 1 µs). See [`carries_root_motion`].
pub fn mean_travel(first: Vec3, last: Vec3, duration: f32) -> Vec3 {
    let mut v = (last - first) / duration.max(1e-6);
    v.y = 0.0;
    if v.is_finite() { v } else { Vec3::ZERO }
}

/// Whether a clip whose pelvis travels at `travel` ([`mean_travel`]) carries its own root
/// motion: faster than [`IN_PLACE_SPEED`] lengths a second of its two legs (`leg_lengths`, as
/// [`ground_velocity`] takes them), on average.
///
/// ```
/// use glam::Vec3;
/// use ik_core::clip_feet::carries_root_motion;
/// // 4.4 cm/s is a walk on legs of 2 cm (a file in centimetres), a drift on legs of 0.9 m.
/// assert!(carries_root_motion(Vec3::new(0.0, 0.0, 0.044), [0.02, 0.02]));
/// assert!(!carries_root_motion(Vec3::new(0.0, 0.0, 0.044), [0.9, 0.9]));
/// ```
pub fn carries_root_motion(travel: Vec3, leg_lengths: [f32; 2]) -> bool {
    travel.length() > IN_PLACE_SPEED * ((leg_lengths[0] + leg_lengths[1]) * 0.5).max(1e-6)
}

/// The way an in-place clip travels: the way the feet point at rest (`facing`), else against
/// the `ground`'s motion under the planted feet, else +Z.
pub fn travel_forward(facing: Option<Vec3>, ground: Vec3) -> Vec3 {
    facing.or_else(|| (-ground).try_normalize()).unwrap_or(Vec3::Z)
}

/// Whether the first and last of more than two frames (`frames × bones` locals) hold the same
/// pose: rotations within 0.5°, translations and scales within 1 mm.
pub fn same_pose(locals: &[Xform], bones: usize) -> bool {
    let frames = locals.len() / bones.max(1);
    let last = frames.saturating_sub(1) * bones;
    frames > 2
        && (0..bones).all(|b| {
            let (a, z) = (locals[b], locals[last + b]);
            a.rotation.dot(z.rotation).abs() >= (0.25f32.to_radians()).cos()
                && a.translation.distance(z.translation) <= 1e-3
                && a.scale.distance(z.scale) <= 1e-3
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    #[test]
    fn a_ball_is_the_contact_point_and_an_ankle_only_foot_gets_a_sole_point() {
        // thigh 0.9 m up, knee 0.5, ankle 0.1, ball 0.15 ahead on the floor.
        let rest: Vec<Xform> = [Vec3::new(0.0, 0.9, 0.0), Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.0, 0.1, 0.0)]
            .into_iter()
            .chain([Vec3::new(0.0, 0.0, 0.15)])
            .map(|p| Xform::from_translation_rotation(p, Quat::IDENTITY))
            .collect();
        let forward = rest_forward(&rest, [(2, Some(3)), (2, Some(3))]).unwrap();
        assert!(forward.distance(Vec3::Z) < 1e-6);
        assert_eq!(rest_forward(&rest, [(2, Some(3)), (2, None)]), None);
        let with_ball = ContactPoint::from_rest(&rest, [0, 1, 2], Some(3), forward);
        assert!((with_ball.leg_length - 0.8).abs() < 1e-6);
        assert_eq!(with_ball.at(&rest, 4, 0), Vec3::new(0.0, 0.0, 0.15));
        let toeless = ContactPoint::from_rest(&rest, [0, 1, 2], None, forward);
        let sole = toeless.at(&rest, 4, 0);
        assert!(sole.y.abs() < 1e-4 && sole.z > 0.0, "{sole}");
    }

    #[test]
    fn standing_still_and_bad_rates_give_no_ground_velocity() {
        let still = vec![Vec3::ZERO; 30];
        assert_eq!(ground_velocity([&still, &still], [0.85, 0.85], 60.0), Vec3::ZERO);
        assert_eq!(ground_velocity([&still, &still], [0.85, 0.85], f32::NAN), Vec3::ZERO);
        assert_eq!(ground_velocity([&still[..1], &still[..1]], [0.85, 0.85], 60.0), Vec3::ZERO);
    }

    #[test]
    fn a_loop_ends_in_its_first_pose() {
        let pose = |z: f32| Xform::from_translation_rotation(Vec3::new(0.0, 0.0, z), Quat::IDENTITY);
        assert!(same_pose(&[pose(0.0), pose(0.1), pose(0.0005)], 1));
        assert!(!same_pose(&[pose(0.0), pose(0.1), pose(0.01)], 1));
        assert!(!same_pose(&[pose(0.0), pose(0.0)], 1), "two frames are no loop");
    }
}
