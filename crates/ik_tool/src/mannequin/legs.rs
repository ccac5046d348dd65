//! How a clip's legs move between the gait's foot targets: how near full reach a leg may get,
//! how fast a heel may lift or drop, and, for a walk, a planned knee.
//!
//! Method. A leg that only follows its foot's path straightens fully at both ends of the stance
//! (the ball far ahead at landing, far behind at toe-off) and bends to clear the floor in
//! between, so near the ends its knee turns fastest: 9.5° a key in a 1.4 m/s walk. A
//! walk plans its legs instead: in the stance its knee follows the bend its heel strike plans
//! ([`super::heel_walk`]), and in the swing a [`KneePlan`] spreads the bend evenly: the knee's
//! bend, the thigh's pitch and the foot's lift are planned from the toe-off key's to the
//! landing key's ([`plan_swings`]), the knee through [`KneePlan::swing_peak`], each easing into
//! the planted keys' own turning at both ends.
//!
//! Invariants: planted balls stay exactly on their gait targets (only the heel and the knee
//! change); every planned value is finite.

use std::f32::consts::PI;

use super::heel_walk::HeelStrike;

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
    /// How the foot lands: heel first, rolling onto its sole; `None` lands flat on its ball.
    pub heel_strike: Option<HeelStrike>,
}

impl LegStyle {
    /// The leg follows its foot's path, the ankle within 99.7 % of reach, the heel easing 2° a
    /// key (the idle's and the jog's legs).
    pub const FOLLOW_PATH: LegStyle =
        LegStyle { reach_fraction: 0.997, lift_ease_per_key: 2.0 * DEG, knees: None, heel_strike: None };

    /// The walk's legs: a person's ([`HeelStrike::WALK`], [`KneePlan::WALK`]): the knee nearly
    /// straight at heel strike and in the terminal stance (the ankle within 99.9 % of reach, a
    /// bend of about 5°), the heel rising at most 5° a key.
    pub const WALK: LegStyle = LegStyle {
        reach_fraction: 0.999,
        lift_ease_per_key: 5.0 * DEG,
        knees: Some(KneePlan::WALK),
        heel_strike: Some(HeelStrike::WALK),
    };
}

/// A planned swing (bends in radians from straight, shares of the swing in `[0, 1]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KneePlan {
    /// The swing's peak bend and where in the swing it is (0 = toe-off, 1 = landing).
    pub swing_peak: (f32, f32),
    /// How far the swing's thigh turns evenly from its toe-off pitch to its landing pitch (1)
    /// rather than pointing the leg where the gait's foot path has the ankle (0).
    pub thigh_smoothing: f32,
    /// Share of the swing by which the foot's lift has come from the toe-off's to the
    /// landing's (the foot levels early, so its toes clear the floor as the leg reaches ahead).
    pub lift_settled_at: f32,
    /// Keys over which a swing's start and end settle into the planted keys' turning rates
    /// (see [`plan_swings`]).
    pub settle_keys: f32,
    /// How far the toes relax toward the foot's line at mid-swing (0: they stay level with the
    /// ground, as at toe-off and landing; 1: in line with the foot).
    pub toe_relax: f32,
}

impl KneePlan {
    /// A walk's swing: the knee's peak 60° at 42 % of the swing (a walker's peaks near 60–65°
    /// a third to a half into the swing). Tuned with [`HeelStrike::WALK`] so the mannequin's
    /// Walk turns no joint more than 6° a key and keeps its mesh above the floor.
    pub const WALK: KneePlan = KneePlan {
        swing_peak: (60.0 * DEG, 0.42),
        thigh_smoothing: 0.2,
        lift_settled_at: 0.9,
        settle_keys: 1.3,
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

/// A leg's pose, planted or planned: how far the ankle is from the hip (the knee's bend),
/// which way, and the foot's lift.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegPose {
    /// Hip–ankle distance, m.
    pub reach: f32,
    /// Foot lift (heel-up angle), radians.
    pub lift: f32,
    /// The hip→ankle line's pitch in the character's sagittal plane, radians forward of
    /// straight down.
    pub pitch: f32,
}

/// Per key of one leg (`planted`: whether the foot is planted, and its pose there; cyclic), the
/// pose each swing key is given; `None` for planted keys (and everywhere when no key is).
///
/// Each swing is planned from its toe-off key to its landing key in three angles: the knee's
/// bend goes up to the plan's peak and back, the thigh's pitch and the foot's lift go from the
/// toe-off's to the landing's, each half eased half linearly (its steepest key 1.25 × its
/// mean), so no key of the swing turns a joint much more than its neighbours do. At each end a
/// correction `Δ·k·e^(−k/τ)` (`k` keys from the end, `τ` = [`KneePlan::settle_keys`], `Δ` the
/// planted key's turn per key less the plan's own there) makes each angle leave and arrive
/// turning as the planted key beside it does (exactly at the end, ~40 % closer over the first
/// key than the plan alone), so the ball leaves and meets the floor nearly moving with it: a
/// foot arriving at another speed slides for the part of a frame it is labelled planted early.
pub fn plan_swings(plan: &KneePlan, planted: &[(bool, LegPose)], lengths: (f32, f32)) -> Vec<Option<LegPose>> {
    let n = planted.len();
    let (peak, peak_at) = plan.swing_peak;
    // [knee bend, thigh pitch (the hip→ankle line's plus the knee's share of the bend), lift].
    let angles = |pose: LegPose| {
        let bend = bend_at_reach(lengths, pose.reach);
        [bend, pose.pitch + thigh_angle(lengths, bend), pose.lift]
    };
    let key = |i: isize| planted[i.rem_euclid(n as isize) as usize];
    (0..n)
        .map(|i| {
            if planted[i].0 {
                return None;
            }
            let back = (1..n).find(|k| planted[(i + n - k) % n].0)? as isize;
            let ahead = (1..n).find(|k| planted[(i + k) % n].0)? as isize;
            let i = i as isize;
            let (from, to) = (angles(key(i - back).1), angles(key(i + ahead).1));
            let keys = (back + ahead) as f32;
            let u = back as f32 / keys;
            let (rise, fall) = (peak_at * keys, (1.0 - peak_at) * keys);
            let mut now = [
                if u < peak_at {
                    from[0] + (peak - from[0]) * half_eased(u / peak_at)
                } else {
                    peak + (to[0] - peak) * half_eased((u - peak_at) / (1.0 - peak_at))
                },
                from[1] + (to[1] - from[1]) * half_eased(u),
                from[2] + (to[2] - from[2]) * half_eased(u / plan.lift_settled_at),
            ];
            // The plan's own turn per key at toe-off and at landing (half_eased's end slope 0.5).
            let lift_keys = plan.lift_settled_at * keys;
            let leaving_plan =
                [0.5 * (peak - from[0]) / rise, 0.5 * (to[1] - from[1]) / keys, 0.5 * (to[2] - from[2]) / lift_keys];
            let arriving_plan = [0.5 * (to[0] - peak) / fall, leaving_plan[1], 0.0];
            let settle = |k: isize| k as f32 * (-(k as f32) / plan.settle_keys.max(1e-3)).exp();
            for (a, angle) in now.iter_mut().enumerate() {
                if key(i - back - 1).0 {
                    let planted_rate = from[a] - angles(key(i - back - 1).1)[a];
                    *angle += (planted_rate - leaving_plan[a]) * settle(back);
                }
                if key(i + ahead + 1).0 {
                    let planted_rate = angles(key(i + ahead + 1).1)[a] - to[a];
                    *angle -= (planted_rate - arriving_plan[a]) * settle(ahead);
                }
            }
            let [knee, thigh_pitch, lift] = now;
            let pitch = thigh_pitch - thigh_angle(lengths, knee);
            Some(LegPose { reach: reach_at_bend(lengths, knee), lift, pitch })
        })
        .collect()
}

/// Half linear, half smoothstep, on `[0, 1]`: slope 0.5 at the ends, 1.25 in the middle.
fn half_eased(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    0.5 * x + 0.5 * x * x * (3.0 - 2.0 * x)
}

/// The angle at the hip between the thigh and the hip→ankle line of a two-bone leg bent `bend`
/// (radians from straight); about half the bend when the thigh and the shin are alike.
pub fn thigh_angle((thigh, shin): (f32, f32), bend: f32) -> f32 {
    (shin * bend.sin()).atan2(thigh + shin * bend.cos())
}

/// How level with the ground the toes are at `swing_share` of a planned swing (1: level,
/// 0: in line with the foot).
pub fn swing_toe_flat(plan: &KneePlan, swing_share: f32) -> f32 {
    1.0 - plan.toe_relax * (PI * swing_share.clamp(0.0, 1.0)).sin().powi(2)
}

/// Largest heel lift the reach rule may use, radians.
pub const MAX_HEEL_LIFT: f32 = 1.4;

/// The foot lift (heel-up angle, radians) nearest to `preferred` within `[min, MAX_HEEL_LIFT]`
/// that keeps `distance(lift) ≤ limit`: scanned outward from `preferred` in 1° steps (upward
/// first), then refined by bisection against the last step that failed. When no lift is within
/// the limit, the scanned lift with the least distance.
pub fn reach_lift(preferred: f32, min: f32, limit: f32, distance: impl Fn(f32) -> f32) -> f32 {
    let preferred = preferred.clamp(min, MAX_HEEL_LIFT);
    if distance(preferred) <= limit {
        return preferred;
    }
    let step = 1.0f32.to_radians();
    let (mut best, mut best_d) = (preferred, distance(preferred));
    for k in 1..=180 {
        for dir in [1.0f32, -1.0] {
            let lift = preferred + dir * step * k as f32;
            if lift > MAX_HEEL_LIFT || lift < min {
                continue;
            }
            let d = distance(lift);
            if d <= limit {
                let (mut bad, mut good) = (lift - dir * step, lift);
                for _ in 0..24 {
                    let mid = 0.5 * (bad + good);
                    if distance(mid) <= limit { good = mid } else { bad = mid }
                }
                return good;
            }
            if d < best_d {
                (best, best_d) = (lift, d);
            }
        }
    }
    best
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

    /// Keys 0–9 planted, 10–29 swinging (cyclic): the knee straightens 2° a key into toe-off
    /// (bent 30°) and bends 3° a key out of the landing (bent 20°); the lift rises 0.03 a key
    /// into toe-off (1.0) and falls 0.02 a key out of the landing (0.2). Returns the swing
    /// keys' poses and the knee's steps from toe-off to landing, degrees.
    fn plan_one_swing(plan: &KneePlan) -> (Vec<LegPose>, Vec<f32>) {
        let pose = |bend: f32, lift: f32| LegPose { reach: reach_at_bend(LEG, bend * DEG), lift, pitch: 0.0 };
        let mut planted = vec![(true, pose(25.0, 0.5)); 30];
        planted[0].1 = pose(20.0, 0.2);
        planted[1].1 = pose(23.0, 0.18);
        planted[8].1 = pose(32.0, 0.97);
        planted[9].1 = pose(30.0, 1.0);
        for key in &mut planted[10..] {
            key.0 = false;
        }
        let swings = plan_swings(plan, &planted, LEG);
        assert!(swings[..10].iter().all(Option::is_none));
        let swing: Vec<LegPose> = swings[10..].iter().map(|s| s.unwrap()).collect();
        let bends: Vec<f32> =
            [30.0].into_iter().chain(swing.iter().map(|s| bend_at_reach(LEG, s.reach) / DEG)).chain([20.0]).collect();
        (swing, bends.windows(2).map(|w| w[1] - w[0]).collect())
    }

    #[test]
    fn a_planned_swing_bends_the_knee_evenly_to_its_peak_and_back() {
        let plan = KneePlan::WALK;
        let (swing, steps) = plan_one_swing(&plan);
        let mut bend = 30.0f32;
        let mut highest = bend;
        for step in &steps {
            bend += step;
            highest = highest.max(bend);
        }
        let (peak, peak_at) = plan.swing_peak;
        assert!((highest - peak.to_degrees()).abs() < 2.0, "peak {highest}°");
        // Up from 30° and down to 20° over the 20 swing keys: no key turns more than 1.4 × the
        // steeper half's mean.
        let up = (peak.to_degrees() - 30.0) / (peak_at * 20.0);
        let down = (peak.to_degrees() - 20.0) / ((1.0 - peak_at) * 20.0);
        let worst = steps.iter().map(|s| s.abs()).fold(0.0, f32::max);
        assert!(worst <= 1.4 * up.max(down), "largest step {worst}°");
        // The lift leaves 1.0 and arrives at 0.2, within the two.
        assert!((swing[0].lift - 1.0).abs() < 0.06 && (swing[19].lift - 0.2).abs() < 0.06);
        assert!(swing.iter().all(|s| (0.15..=1.06).contains(&s.lift)));
    }

    #[test]
    fn the_swing_meets_the_planted_keys_turning_closer_to_their_rate() {
        // Planted: −2° a key into toe-off, +3° a key out of the landing.
        let (_, settled) = plan_one_swing(&KneePlan::WALK);
        let (_, plain) = plan_one_swing(&KneePlan { settle_keys: 1e-3, ..KneePlan::WALK });
        let mismatch = |steps: &[f32]| ((steps[0] + 2.0).abs(), (steps[steps.len() - 1] - 3.0).abs());
        let ((settled_off, settled_on), (plain_off, plain_on)) = (mismatch(&settled), mismatch(&plain));
        println!(
            "toe-off {plain_off:.2} -> {settled_off:.2}° a key off the planted turn, landing {plain_on:.2} -> {settled_on:.2}"
        );
        assert!(settled_off < 0.7 * plain_off && settled_on < 0.7 * plain_on);
    }

    #[test]
    fn a_leg_that_never_lands_has_no_swing_to_plan() {
        let plan = KneePlan::WALK;
        assert!(
            plan_swings(&plan, &[(false, LegPose { reach: 0.8, lift: 0.0, pitch: 0.0 }); 4], LEG)
                .iter()
                .all(Option::is_none)
        );
    }
}
