//! How a clip's legs move between the gait's foot targets: how near full reach a leg may get,
//! how fast a heel may lift or drop, and, for a walk, a planned knee.
//!
//! Method. A leg that only follows its foot's path straightens fully at both ends of the stance
//! (the ball far ahead at landing, far behind at toe-off) and bends to clear the floor in
//! between, so near the ends its knee turns fastest: 9.5° a key in a 1.4 m/s walk. A
//! [`KneePlan`] spreads the bend evenly instead:
//! - in the stance, the knee is kept bent at least [`KneePlan::landing_bend`] at landing and
//!   [`KneePlan::pre_swing_bend`] before toe-off, by lifting the heel off the planted ball
//!   ([`stance_reach`]), as a walker's heel rises in the pre-swing;
//! - in the swing, the knee's bend, and the foot's lift, are planned from the toe-off key's to
//!   the landing key's ([`plan_swings`]) through [`KneePlan::swing_peak`], the ankle toward
//!   where the gait's path has it.
//!
//! Invariants: planted balls stay exactly on their gait targets (only the heel and the knee
//! change); every planned value is finite.

use std::f32::consts::PI;

/// Degrees to radians, for the constants below.
const DEG: f32 = PI / 180.0;

/// How a clip's legs move; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegStyle {
    /// The ankle stays within this fraction of the leg's full reach.
    pub reach_fraction: f32,
    /// Largest change of a planted foot's lift (heel-up angle) from one key to the next where
    /// the reach alone would change it faster, radians.
    pub lift_ease_per_key: f32,
    /// The planned knee; `None` follows the foot's path.
    pub knees: Option<KneePlan>,
}

impl LegStyle {
    /// The leg follows its foot's path, the ankle within 99.7 % of reach, the heel easing 2° a
    /// key (the idle's and the jog's legs).
    pub const FOLLOW_PATH: LegStyle = LegStyle { reach_fraction: 0.997, lift_ease_per_key: 2.0 * DEG, knees: None };

    /// The walk's legs: within 98.5 % of reach (the knee never straighter than ~20°), the heel
    /// easing 1.5° a key, the knee planned ([`KneePlan::WALK`]).
    pub const WALK: LegStyle =
        LegStyle { reach_fraction: 0.985, lift_ease_per_key: 1.5 * DEG, knees: Some(KneePlan::WALK) };
}

/// A planned knee (bends in radians from straight, shares of the stance or swing in `[0, 1]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KneePlan {
    /// Least bend at landing, falling to none over the first `loading` of the stance.
    pub landing_bend: f32,
    /// Share of the stance, at its start, that `landing_bend` holds over.
    pub loading: f32,
    /// Least bend over the last `pre_swing` of the stance: falls evenly from the first value to
    /// the second at toe-off.
    pub pre_swing_bend: (f32, f32),
    /// Share of the stance, at its end, that `pre_swing_bend` holds over.
    pub pre_swing: f32,
    /// The swing's peak bend and where in the swing it is (0 = toe-off, 1 = landing).
    pub swing_peak: (f32, f32),
    /// How far the toes relax toward the foot's line at mid-swing (0: they stay level with the
    /// ground, as at toe-off and landing; 1: in line with the foot).
    pub toe_relax: f32,
}

impl KneePlan {
    /// A walk's knee: bent 28° at landing, 50° → 32° in the pre-swing, 70° at 45 % of the
    /// swing (a walker's peaks near 60–65° a third to a half into the swing).
    pub const WALK: KneePlan = KneePlan {
        landing_bend: 28.0 * DEG,
        loading: 0.3,
        pre_swing_bend: (50.0 * DEG, 32.0 * DEG),
        pre_swing: 0.45,
        swing_peak: (70.0 * DEG, 0.45),
        toe_relax: 0.4,
    };
}

/// A two-bone leg's hip–ankle distance at a knee bend (radians from straight); `lengths` are
/// the thigh's and the shin's.
pub fn reach_at_bend((thigh, shin): (f32, f32), bend: f32) -> f32 {
    (thigh * thigh + shin * shin + 2.0 * thigh * shin * bend.cos()).max(0.0).sqrt()
}

/// The knee bend (radians from straight) at which a two-bone leg's ankle is `reach` from its hip.
pub fn bend_at_reach((thigh, shin): (f32, f32), reach: f32) -> f32 {
    let cos = ((thigh * thigh + shin * shin - reach * reach) / (2.0 * thigh * shin)).clamp(-1.0, 1.0);
    PI - cos.acos()
}

/// The hip–ankle distance that keeps the knee bent as `plan` asks at `stance_share` of a
/// stance (0 = landing, 1 = toe-off); the leg's full length where it asks nothing.
pub fn stance_reach(plan: &KneePlan, lengths: (f32, f32), stance_share: f32) -> f32 {
    let pre_swing = (stance_share - (1.0 - plan.pre_swing)) / plan.pre_swing;
    let loading = 1.0 - stance_share / plan.loading;
    let bend = if pre_swing >= 0.0 {
        let (from, to) = plan.pre_swing_bend;
        from + (to - from) * pre_swing.min(1.0)
    } else if loading > 0.0 {
        plan.landing_bend * loading
    } else {
        0.0
    };
    reach_at_bend(lengths, bend)
}

/// A swing leg's planned pose: the ankle's distance from the hip (the knee's bend), m, and the
/// foot's lift, radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwingPose {
    /// Hip–ankle distance, m.
    pub reach: f32,
    /// Foot lift (heel-up angle), radians.
    pub lift: f32,
}

/// Per key of one leg (`planted`: whether the foot is planted, and its pose there; cyclic), the
/// pose each swing key is given; `None` for planted keys (and everywhere when no key is).
///
/// Between the toe-off key's knee bend and the landing key's the knee bends to the plan's peak
/// and straightens again, each half eased half linearly (its steepest key 1.25 × the half's
/// mean), and the foot's lift goes from the toe-off's to the landing's the same way over the
/// whole swing, so no key turns a joint much more than its neighbours do.
pub fn plan_swings(plan: &KneePlan, planted: &[(bool, SwingPose)], lengths: (f32, f32)) -> Vec<Option<SwingPose>> {
    let n = planted.len();
    let (peak, peak_at) = plan.swing_peak;
    (0..n)
        .map(|i| {
            if planted[i].0 {
                return None;
            }
            let back = (1..n).find(|k| planted[(i + n - k) % n].0)?;
            let ahead = (1..n).find(|k| planted[(i + k) % n].0)?;
            let (toe_off, landing) = (planted[(i + n - back) % n].1, planted[(i + ahead) % n].1);
            let u = back as f32 / (back + ahead) as f32;
            let knee = if u < peak_at {
                let from = bend_at_reach(lengths, toe_off.reach);
                from + (peak - from) * half_eased(u / peak_at)
            } else {
                peak + (bend_at_reach(lengths, landing.reach) - peak) * half_eased((u - peak_at) / (1.0 - peak_at))
            };
            let lift = toe_off.lift + (landing.lift - toe_off.lift) * half_eased(u);
            Some(SwingPose { reach: reach_at_bend(lengths, knee), lift })
        })
        .collect()
}

/// How level with the ground the toes are at `swing_share` of a planned swing (1: level,
/// 0: in line with the foot).
pub fn swing_toe_flat(plan: &KneePlan, swing_share: f32) -> f32 {
    1.0 - plan.toe_relax * (PI * swing_share.clamp(0.0, 1.0)).sin().powi(2)
}

/// Half linear, half smoothstep, on `[0, 1]`: slope 0.5 at the ends, 1.25 in the middle.
fn half_eased(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    0.5 * x + 0.5 * x * x * (3.0 - 2.0 * x)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEG: (f32, f32) = (0.42, 0.42);

    #[test]
    fn bend_and_reach_invert_each_other() {
        for degrees in [0.0f32, 10.0, 45.0, 90.0, 150.0] {
            let bend = degrees * DEG;
            assert!((bend_at_reach(LEG, reach_at_bend(LEG, bend)) - bend).abs() < 1e-3, "{degrees}°");
        }
        assert!((reach_at_bend(LEG, 0.0) - 0.84).abs() < 1e-6);
    }

    #[test]
    fn a_planned_swing_bends_the_knee_evenly_from_toe_off_to_landing() {
        // 10 planted keys, 20 swing keys; the knee bent 30° at toe-off and 20° at landing.
        let plan = KneePlan::WALK;
        let pose = |bend: f32, lift: f32| SwingPose { reach: reach_at_bend(LEG, bend * DEG), lift };
        let mut planted = vec![(true, pose(25.0, 0.0)); 30];
        planted[0].1 = pose(20.0, 0.1);
        planted[9].1 = pose(30.0, 1.0);
        for key in &mut planted[10..] {
            key.0 = false;
        }
        let swings = plan_swings(&plan, &planted, LEG);
        assert!(swings[..10].iter().all(Option::is_none));
        let bends: Vec<f32> = [30.0]
            .into_iter()
            .chain(swings[10..].iter().map(|s| bend_at_reach(LEG, s.unwrap().reach) / DEG))
            .chain([20.0])
            .collect();
        let peak = bends.iter().cloned().fold(0.0, f32::max);
        assert!((peak - 70.0).abs() < 1.5, "peak {peak}°");
        // Up 40° over 9 keys and down 50° over 11: no key turns more than 1.3 × its half's mean.
        let worst = bends.windows(2).map(|w| (w[1] - w[0]).abs()).fold(0.0, f32::max);
        assert!(worst <= 1.3 * 50.0 / 11.0, "largest step {worst}°");
        let lifts: Vec<f32> = swings[10..].iter().map(|s| s.unwrap().lift).collect();
        assert!(lifts.windows(2).all(|w| w[1] <= w[0]) && lifts[0] < 1.0 && *lifts.last().unwrap() > 0.1);
    }

    #[test]
    fn the_stance_keeps_the_knee_bent_at_both_ends_only() {
        let plan = KneePlan::WALK;
        let full = reach_at_bend(LEG, 0.0);
        assert!((stance_reach(&plan, LEG, 0.0) - reach_at_bend(LEG, plan.landing_bend)).abs() < 1e-6);
        assert_eq!(stance_reach(&plan, LEG, 0.4), full);
        assert!((stance_reach(&plan, LEG, 1.0) - reach_at_bend(LEG, plan.pre_swing_bend.1)).abs() < 1e-6);
        assert!(stance_reach(&plan, LEG, 0.8) < stance_reach(&plan, LEG, 1.0));
        assert!(
            plan_swings(&plan, &[(false, SwingPose { reach: 0.8, lift: 0.0 }); 4], LEG).iter().all(Option::is_none)
        );
    }
}
