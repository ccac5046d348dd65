//! Which planted feet carry the pelvis ([`PelvisSupport`]) and the heel lift that takes part of
//! a short leg's reach before the pelvis drops for it ([`heel_lift_angle`], [`heel_lift_rotation`]).

use glam::{Quat, Vec3};

use super::{FootPlacement, FootPlacementState, FootReport, MAX_LENGTH, pelvis_drop_to_reach};
use crate::Xform;

/// Which planted feet the pelvis height follows in [`super::FootPlacement`].
///
/// Each planted foot asks for a vertical correction (its ground above or below where the
/// animation put it). The pelvis never rises; it drops by the correction of the foot this
/// chooses, and further only as far as a planted leg needs to reach its ground at all (after
/// any [`heel lift`](super::FootPlacementSettings::heel_lift)). Each foot's say is weighted by
/// its planted weight, so the choice changes smoothly as feet plant and lift.
///
/// ```
/// use ik_core::foot_placement::PelvisSupport;
///
/// // On a stair going up, the front foot stands on the higher tread: following it keeps the
/// // body up and lets the leg behind reach down (with its heel lifted) instead of crouching.
/// assert_eq!(PelvisSupport::default(), PelvisSupport::LowestFoot);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub enum PelvisSupport {
    /// As low as the lowest planted foot asks: every planted leg keeps its animated bend. The
    /// safest; on stairs the pelvis sinks toward the lower tread.
    #[default]
    LowestFoot,
    /// The planted foot furthest forward, when it stands higher than the others (uphill);
    /// downhill the front foot is the lowest and this equals `LowestFoot`. Front is the
    /// direction of travel ([`super::FootPlacement::travel`]), so walking backwards the foot
    /// behind the body leads; standing, the mean of the rig's knee bend directions
    /// ([`super::FootRig::knee_forward`]).
    FrontFoot,
    /// The planted foot on the highest ground (uphill or downhill): the least drop, the legs
    /// below stretch toward their ground.
    HighestFoot,
}

/// Width, as a share of a leg's length, over which a foot turns from "behind" to "in front" of
/// another for [`PelvisSupport::FrontFoot`] (half of it each side of level).
const FRONT_BAND_PER_LEG: f32 = 0.1;

/// The horizontal unit direction [`PelvisSupport::FrontFoot`] calls front: `travel` where it
/// has a horizontal part, else the mean of `knee_forwards`, else +Z.
pub(super) fn front(travel: Vec3, knee_forwards: impl Iterator<Item = Vec3>) -> Vec3 {
    let horizontal = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    horizontal(travel).try_normalize().unwrap_or_else(|| horizontal(knee_forwards.sum::<Vec3>()).normalize_or(Vec3::Z))
}

/// One foot's say in the pelvis height.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct SupportVote {
    /// The vertical correction the foot asks for (model y).
    pub offset: f32,
    /// Its planted weight in `[0, 1]`.
    pub planted: f32,
    /// How far forward it stands (model units along the rig's forward).
    pub ahead: f32,
    /// Its leg's length (hip–knee plus knee–ankle).
    pub leg_length: f32,
}

/// The pelvis drop (≤ 0) the feet's corrections ask for under `support`; `lowest` is the
/// lowest correction (or 0 when every foot asks to rise).
pub(super) fn preferred_drop<I>(support: PelvisSupport, lowest: f32, votes: I) -> f32
where
    I: Iterator<Item = SupportVote> + Clone,
{
    let lowest = lowest.min(0.0);
    let say = |vote: &SupportVote, weight: f32| lowest + (vote.offset - lowest) * weight.clamp(0.0, 1.0);
    let preferred = match support {
        PelvisSupport::LowestFoot => lowest,
        PelvisSupport::HighestFoot => votes.map(|v| say(&v, v.planted)).fold(lowest, f32::max),
        PelvisSupport::FrontFoot => {
            // The two furthest forward, so each foot's lead over all the others is known.
            let (mut first, mut second) = ((usize::MAX, f32::NEG_INFINITY), f32::NEG_INFINITY);
            for (i, v) in votes.clone().enumerate() {
                if v.ahead > first.1 {
                    second = first.1;
                    first = (i, v.ahead);
                } else if v.ahead > second {
                    second = v.ahead;
                }
            }
            votes
                .enumerate()
                .map(|(i, v)| {
                    let lead = v.ahead - if i == first.0 { second } else { first.1 };
                    let band = (FRONT_BAND_PER_LEG * v.leg_length).max(f32::EPSILON);
                    say(&v, v.planted * (0.5 + lead / band).clamp(0.0, 1.0))
                })
                .fold(lowest, f32::max)
        }
    };
    preferred.min(0.0)
}

/// The angle (radians, in `[0, max]`) by which pitching a foot about its toe joint `toe` raises
/// its `ankle` by `rise` along `up` (the ground's normal), or as near as the foot's geometry
/// allows (the ankle straight above the toe). 0 for a zero `rise` or a degenerate foot.
///
/// ```
/// # use glam::Vec3;
/// # use ik_core::foot_placement::heel_lift_angle;
/// // A flat foot: ankle 0.08 up and 0.12 behind its toe joint, which sits 0.02 up.
/// let (ankle, toe) = (Vec3::new(0.0, 0.08, -0.12), Vec3::new(0.0, 0.02, 0.0));
/// let angle = heel_lift_angle(ankle, toe, Vec3::Y, 0.03, 1.0);
/// assert!(angle > 0.0 && angle < 0.5);
/// // Capped by `max`.
/// assert_eq!(heel_lift_angle(ankle, toe, Vec3::Y, 0.03, 0.1), 0.1);
/// ```
pub fn heel_lift_angle(ankle: Vec3, toe: Vec3, up: Vec3, rise: f32, max: f32) -> f32 {
    let up = up.normalize_or(Vec3::Y);
    let back = ankle - toe;
    let radius = back.length();
    if !(rise > 0.0 && radius > f32::EPSILON && back.is_finite()) {
        return 0.0;
    }
    let height = back.dot(up);
    let along = back.reject_from_normalized(up).length();
    let from = height.atan2(along);
    let to = ((height + rise) / radius).clamp(-1.0, 1.0).asin();
    (to - from).clamp(0.0, max.max(0.0))
}

/// The rotation (model space, about an axis through the toe joint across the foot) that lifts
/// the heel by `angle`: applied to the foot's model rotation and to `ankle − toe`, it raises
/// the ankle toward `up`. Identity for a zero angle or a foot with no length across `up`.
///
/// ```
/// # use glam::Vec3;
/// # use ik_core::foot_placement::heel_lift_rotation;
/// let (ankle, toe) = (Vec3::new(0.0, 0.08, -0.12), Vec3::new(0.0, 0.02, 0.0));
/// let lift = heel_lift_rotation(ankle, toe, Vec3::Y, 0.3);
/// let lifted = toe + lift * (ankle - toe);
/// assert!(lifted.y > ankle.y);
/// assert!((lifted.distance(toe) - ankle.distance(toe)).abs() < 1e-6);
/// ```
pub fn heel_lift_rotation(ankle: Vec3, toe: Vec3, up: Vec3, angle: f32) -> Quat {
    let up = up.normalize_or(Vec3::Y);
    let forward = (toe - ankle).reject_from_normalized(up);
    match up.cross(forward).try_normalize() {
        Some(axis) if angle != 0.0 && angle.is_finite() => Quat::from_axis_angle(axis, angle),
        _ => Quat::IDENTITY,
    }
}

impl FootPlacement<'_> {
    /// Step 2 of placing: the pelvis drop the feet ask for under the [`PelvisSupport`], the
    /// heel lifts that take part of what a planted leg still lacks from there, and the drop
    /// the planted legs need to reach after them. Returns `(goal, needed)`: where the pelvis
    /// spring heads, and the highest it may stay at. Sets each foot's heel lift and its
    /// lifted target.
    pub(super) fn support(
        &self,
        model: &[Xform],
        lowest: f32,
        dt: f32,
        fresh: bool,
        state: &mut FootPlacementState,
        reports: &mut [FootReport],
    ) -> (f32, f32) {
        let s = &self.settings;
        let soften = s.soften.clamp(0.0, 1.0);
        let max_down = s.max_step_down.clamp(0.0, MAX_LENGTH);
        let (heel_share, max_heel) = (s.heel_lift.clamp(0.0, 1.0), s.max_heel_lift.clamp(0.0, 60f32.to_radians()));
        let preferred = preferred_drop(s.pelvis_support, lowest, state.feet.iter().map(|st| st.vote));
        // The drop the planted legs need to reach their targets at all: IK modifies the pose,
        // it does not stretch a leg past its animated extension. The pelvis spring may ease
        // toward its goal, but never stays above this.
        let (mut goal, mut needed) = (preferred, 0.0f32);
        for ((foot, st), report) in self.feet.iter().zip(state.feet.iter_mut()).zip(reports.iter_mut()) {
            st.lift = Quat::IDENTITY;
            // A foot without ground has no target: it neither lifts its heel nor moves the pelvis.
            let target = st.target.unwrap_or(report.ankle_target);
            let toe = st.target.and(st.toe);
            // Following the lowest foot, the pelvis already drops as far as each foot's
            // correction (weighted by its planted weight), so a leg's own reach counts only as
            // far as the foot is planted. Following another foot, nothing else brings the
            // pelvis down to a foot half planted (landing, rolling off): its leg gets all the
            // drop it needs. A foot the clip has in the air needs none: its target is never
            // lowered (a swing floor only raises it), and a raised one out of the leg's reach
            // (a run's stride, a body already up a step) is the leg's to stretch for, not the
            // pelvis's to fall for.
            let weight = match s.pelvis_support {
                PelvisSupport::LowestFoot => report.planted,
                _ if report.clip_planted > 0.0 => 1.0,
                _ => 0.0,
            };
            let reach = |at: Vec3| pelvis_drop_to_reach(model, &foot.leg, at, soften).max(-max_down) * weight;
            let mut drop = if st.target.is_some() { reach(target) } else { 0.0 };
            let normal = st.normal.value.normalize_or(Vec3::Y);
            let lift_goal = match toe {
                Some(toe) if heel_share > 0.0 => {
                    let rise = heel_share * st.toes_down * (preferred - drop).max(0.0);
                    heel_lift_angle(target, toe, normal, rise, max_heel)
                }
                _ => 0.0,
            };
            if fresh {
                st.heel.snap(lift_goal);
            } else {
                st.heel.update(lift_goal, s.pelvis_half_life, dt);
            }
            // A heel never stays lifted about toes that have left the ground.
            st.heel.value = st.heel.value.clamp(0.0, max_heel * st.toes_down);
            report.heel_lift = 0.0;
            if let Some(toe) = toe.filter(|_| st.heel.value > 0.0) {
                st.lift = heel_lift_rotation(target, toe, normal, st.heel.value);
                let lifted = toe + st.lift * (target - toe);
                drop = reach(lifted);
                report.ankle_target += lifted - target;
                report.heel_lift = st.heel.value;
            }
            goal = goal.min(drop);
            needed = needed.min(drop);
        }
        (goal, needed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vote(offset: f32, planted: f32, ahead: f32) -> SupportVote {
        SupportVote { offset, planted, ahead, leg_length: 0.9 }
    }

    #[test]
    fn lowest_foot_takes_the_lowest_correction() {
        let votes = [vote(0.0, 1.0, 0.3), vote(-0.2, 1.0, -0.3)];
        assert_eq!(preferred_drop(PelvisSupport::LowestFoot, -0.2, votes.into_iter()), -0.2);
    }

    #[test]
    fn front_foot_uphill_follows_the_front_and_downhill_the_lowest() {
        // Going up: the front foot is on the higher tread (no correction), the rear one 20 cm
        // below where the animation put it.
        let up = [vote(0.0, 1.0, 0.3), vote(-0.2, 1.0, -0.3)];
        assert_eq!(preferred_drop(PelvisSupport::FrontFoot, -0.2, up.into_iter()), 0.0);
        // Going down: the front foot is the low one.
        let down = [vote(-0.2, 1.0, 0.3), vote(0.0, 1.0, -0.3)];
        assert_eq!(preferred_drop(PelvisSupport::FrontFoot, -0.2, down.into_iter()), -0.2);
        // The highest foot is followed either way.
        assert_eq!(preferred_drop(PelvisSupport::HighestFoot, -0.2, down.into_iter()), 0.0);
    }

    #[test]
    fn a_swinging_foot_has_no_say() {
        // The front foot is in the air: the planted one behind carries the pelvis.
        let votes = [vote(0.0, 0.0, 0.3), vote(-0.2, 1.0, -0.3)];
        for support in [PelvisSupport::FrontFoot, PelvisSupport::HighestFoot] {
            assert_eq!(preferred_drop(support, -0.2, votes.into_iter()), -0.2, "{support:?}");
        }
        // Half planted: half way.
        let half = [vote(0.0, 0.5, 0.3), vote(-0.2, 1.0, -0.3)];
        assert!((preferred_drop(PelvisSupport::FrontFoot, -0.2, half.into_iter()) + 0.1).abs() < 1e-6);
    }

    #[test]
    fn feet_side_by_side_share_the_front() {
        // Level feet are each half "in front": the higher one pulls the pelvis half way.
        let votes = [vote(0.0, 1.0, 0.0), vote(-0.2, 1.0, 0.0)];
        assert!((preferred_drop(PelvisSupport::FrontFoot, -0.2, votes.into_iter()) + 0.1).abs() < 1e-6);
    }

    #[test]
    fn the_heel_lift_raises_the_ankle_by_the_rise_asked() {
        let (ankle, toe) = (Vec3::new(0.1, 0.08, -0.12), Vec3::new(0.1, 0.02, 0.0));
        for rise in [0.01, 0.03, 0.06] {
            let angle = heel_lift_angle(ankle, toe, Vec3::Y, rise, 1.5);
            let lifted = toe + heel_lift_rotation(ankle, toe, Vec3::Y, angle) * (ankle - toe);
            assert!((lifted.y - ankle.y - rise).abs() < 1e-5, "rise {rise}: {}", lifted.y - ankle.y);
            // The ankle moves toward the toe, not sideways.
            assert!((lifted.x - 0.1).abs() < 1e-6);
            assert!(lifted.z > ankle.z);
        }
        // More than the foot can give: the ankle ends straight above the toe.
        let angle = heel_lift_angle(ankle, toe, Vec3::Y, 1.0, 3.0);
        let lifted = toe + heel_lift_rotation(ankle, toe, Vec3::Y, angle) * (ankle - toe);
        assert!((lifted - toe).normalize().abs_diff_eq(Vec3::Y, 1e-5));
    }

    #[test]
    fn no_rise_or_no_foot_lifts_nothing() {
        let (ankle, toe) = (Vec3::new(0.0, 0.08, -0.12), Vec3::new(0.0, 0.02, 0.0));
        assert_eq!(heel_lift_angle(ankle, toe, Vec3::Y, 0.0, 1.0), 0.0);
        assert_eq!(heel_lift_angle(ankle, toe, Vec3::Y, -0.1, 1.0), 0.0);
        assert_eq!(heel_lift_angle(toe, toe, Vec3::Y, 0.1, 1.0), 0.0);
        assert_eq!(heel_lift_angle(ankle, toe, Vec3::Y, f32::NAN, 1.0), 0.0);
        assert_eq!(heel_lift_rotation(toe + Vec3::Y, toe, Vec3::Y, 0.3), Quat::IDENTITY);
    }

    #[test]
    fn the_front_is_the_horizontal_direction_of_travel_else_the_knees() {
        let knees = [Vec3::new(0.2, -0.1, 1.0), Vec3::new(-0.2, 0.3, 1.0)];
        assert_eq!(front(Vec3::new(0.0, 5.0, -2.0), knees.into_iter()), Vec3::NEG_Z);
        assert_eq!(front(Vec3::ZERO, knees.into_iter()), Vec3::Z);
        // Straight up is no direction of travel; knees that cancel leave +Z.
        assert_eq!(front(Vec3::Y, knees.into_iter()), Vec3::Z);
        assert_eq!(front(Vec3::ZERO, [Vec3::X, Vec3::NEG_X].into_iter()), Vec3::Z);
    }
}
