//! Follow the leader: a body of segments winding along the path its head took, as in a
//! caterpillar, a snake, a tail or a train.
//!
//! **Method.** [`follow_the_leader`] pulls every point, from the second to the last, onto the
//! line toward the point in front of it, exactly `gap` behind it (one backward pass of a distance
//! constraint; running it from the tail back as well, with the tail pinned, would be FABRIK).
//! [`chase`] moves a head toward a target: its heading turns toward the target by at most a turn
//! rate (in the horizontal plane, via [`crate::spring::turn_towards`]) and it moves along that
//! heading, slowing down inside an arrival radius. [`bob`] is a bump wave running down the body.
//!
//! **Inputs.** Point positions (any space), the gap; head, heading, target, speed and turn limits.
//!
//! **Outputs.** Points moved in place; a new head position and heading; a bob height.
//!
//! **Invariants.** After [`follow_the_leader`] every consecutive pair is exactly `gap` apart
//! (to float precision) and the first point is untouched; a point lying on the one in front keeps
//! the direction of the previous pair (or `fallback` for the second point). Non-finite input or
//! a gap ≤ 0 returns an error and leaves the points untouched. [`chase`] never moves further than
//! `max_speed · dt` per call, never turns further than `max_turn_rate · dt`, and keeps the
//! heading horizontal and unit length.

use glam::Vec3;

use crate::IkError;
use crate::spring::turn_towards;

/// Pulls each point to exactly `gap` behind the one in front of it, head (index 0) first.
///
/// `fallback` is the direction (from a point toward the one behind it) used when the second
/// point lies exactly on the head; later coincident points reuse the previous pair's direction.
///
/// ```
/// use glam::Vec3;
/// use ik_core::follow::follow_the_leader;
/// let mut body = [Vec3::ZERO, Vec3::new(-0.1, 0.0, 0.0), Vec3::new(-3.0, 0.0, 0.0)];
/// follow_the_leader(&mut body, 0.42, -Vec3::X).unwrap();
/// assert!((body[1].distance(body[0]) - 0.42).abs() < 1e-6);
/// assert!((body[2].distance(body[1]) - 0.42).abs() < 1e-6);
/// ```
pub fn follow_the_leader(points: &mut [Vec3], gap: f32, fallback: Vec3) -> Result<(), IkError> {
    if !gap.is_finite() || !fallback.is_finite() || points.iter().any(|p| !p.is_finite()) {
        return Err(IkError::NonFiniteInput);
    }
    if gap <= 0.0 {
        return Err(IkError::ZeroLengthBone { bone: 0 });
    }
    let mut previous = fallback.try_normalize().unwrap_or(-Vec3::X);
    for i in 1..points.len() {
        let ahead = points[i - 1];
        let dir = (points[i] - ahead).try_normalize().filter(|d| d.is_finite()).unwrap_or(previous);
        points[i] = ahead + dir * gap;
        previous = dir;
    }
    Ok(())
}

/// A head chasing a target: returns the new head position and heading.
///
/// The heading turns toward the target (projected on the horizontal plane) by at most
/// `max_turn_rate · dt` radians; the head then moves along the heading at `max_speed`, scaled
/// down linearly inside `arrive_radius` of the target (so it settles instead of circling).
/// A degenerate heading is replaced by the direction to the target (or +X).
pub fn chase(
    head: Vec3,
    heading: Vec3,
    target: Vec3,
    max_speed: f32,
    max_turn_rate: f32,
    arrive_radius: f32,
    dt: f32,
) -> Result<(Vec3, Vec3), IkError> {
    let finite = head.is_finite() && heading.is_finite() && target.is_finite();
    if !finite || !max_speed.is_finite() || !max_turn_rate.is_finite() || !arrive_radius.is_finite() || !dt.is_finite()
    {
        return Err(IkError::NonFiniteInput);
    }
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    let to_target = flat(target - head);
    let distance = to_target.length();
    let mut dir = flat(heading).try_normalize().or_else(|| to_target.try_normalize()).unwrap_or(Vec3::X);
    let dt = dt.max(0.0);
    if distance > 1e-6 {
        let turn = turn_towards(dir, to_target, max_turn_rate.max(0.0) * dt);
        dir = flat(turn * dir).try_normalize().unwrap_or(dir);
    }
    let slow = if arrive_radius > 0.0 { (distance / arrive_radius).min(1.0) } else { 1.0 };
    let step = (max_speed.max(0.0) * slow * dt).min(distance);
    Ok((head + dir * step, dir))
}

/// A bump wave running down a body: segment `index` is lifted by
/// `amplitude · max(0, sin(frequency · time − phase_step · index))`.
pub fn bob(time: f32, index: usize, frequency: f32, phase_step: f32, amplitude: f32) -> f32 {
    let h = amplitude * (frequency * time - phase_step * index as f32).sin().max(0.0);
    if h.is_finite() { h } else { 0.0 }
}
