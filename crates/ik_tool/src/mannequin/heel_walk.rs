//! A walk that lands heel first, as people walk: the foot meets the floor with its toes up, rolls
//! about its heel until its sole is flat, stays flat through mid-stance, and lifts its heel only
//! when the leg behind the body can no longer reach the floor flat.
//!
//! Method. The stance leg's knee follows a planned bend — nearly straight at heel strike, a
//! little loading flexion, nearly straight again from mid-stance — and the pelvis height of each
//! key is what that bend leaves: the leg that landed last vaults the pelvis over its foot
//! ([`hip_height`]); over its terminal stance its heel rises to the lift that meets the next
//! landing's height, so the two legs hand the body over without a jump. The heel's rise past
//! that and the trailing knee follow from the pelvis.
//!
//! Invariants: every value is finite.

use std::f32::consts::PI;

use glam::{Quat, Vec2, Vec3};

use super::legs::reach_at_bend;
use super::skeleton::BALL_L;

/// Degrees to radians, for the constants below.
const DEG: f32 = PI / 180.0;

/// Distance from the ball to the back of the heel, m (the heel's lever when the toes lift).
pub const HEEL_TO_BALL: f32 = 0.205;

/// How a walking foot lands heel first and how its knee bends through the stance (bends in
/// radians from straight, shares of the stance in `[0, 1]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeelStrike {
    /// The toes' rise at heel strike, radians.
    pub toe_up: f32,
    /// Share of the stance by which the sole is flat.
    pub flat_at: f32,
    /// The knee's bend at heel strike.
    pub strike_bend: f32,
    /// The knee's loading bend and the share of the stance it peaks at.
    pub loading: (f32, f32),
    /// The knee's bend from mid-stance on and the share of the stance it is reached by.
    pub mid_stance: (f32, f32),
    /// Share of the stance at which the heel starts to rise.
    pub heel_off: f32,
    /// The knee's bend at toe-off; it bends toward it from mid-stance on, slowly at first.
    pub toe_off_bend: f32,
}

impl HeelStrike {
    /// A walker's: toes up 12°, flat by 15 % of the stance; the knee bent 6° at heel strike,
    /// 14° at 20 % of the stance, 5° from 50 % (people: toes up about 10–15°, foot flat by
    /// 10–15 % of the stance, knee 0–5° at heel strike, 15–20° loading, near straight in the
    /// terminal stance).
    pub const WALK: HeelStrike = HeelStrike {
        toe_up: 12.0 * DEG,
        flat_at: 0.15,
        strike_bend: 6.0 * DEG,
        loading: (18.0 * DEG, 0.2),
        mid_stance: (5.0 * DEG, 0.5),
        heel_off: 0.55,
        toe_off_bend: 22.0 * DEG,
    };

    /// The foot's lift (negative: toes up) at `stance_share` of a stance while it rolls onto
    /// its sole; `None` once the sole is flat. The roll starts slowly and ends at its fastest:
    /// the ball meets the floor with some speed, as a forefoot does, not gliding down onto it.
    pub fn rocker_lift(&self, stance_share: f32) -> Option<f32> {
        let x = stance_share.max(0.0) / self.flat_at.max(1e-3);
        (x < 1.0).then(|| -self.toe_up * (1.0 - x * x))
    }

    /// The stance knee's planned bend at `stance_share` of the stance.
    pub fn stance_bend(&self, stance_share: f32) -> f32 {
        let ((loading, loading_at), (mid, mid_at)) = (self.loading, self.mid_stance);
        if stance_share < loading_at {
            self.strike_bend + (loading - self.strike_bend) * smoothstep(stance_share / loading_at)
        } else if stance_share < mid_at {
            loading + (mid - loading) * smoothstep((stance_share - loading_at) / (mid_at - loading_at))
        } else {
            mid + (self.toe_off_bend - mid) * ((stance_share - mid_at) / (1.0 - mid_at)).min(1.0).powi(3)
        }
    }
}

/// `3x² − 2x³` on `[0, 1]`.
fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// Where the point `rest` of the foot (in the left foot's bind pose, e.g. the ankle) is when the
/// foot whose flat ball would be at `ball_target`, heading `heading`, pivots on the back of its
/// heel by `lift` (negative: toes up).
pub fn on_heel(ball_target: Vec3, heading: Quat, lift: f32, rest: Vec3) -> Vec3 {
    let heel = Vec3::new(BALL_L.x, 0.0, BALL_L.z - HEEL_TO_BALL);
    let heel_target = ball_target + heading * (heel - BALL_L);
    heel_target + heading * (Quat::from_rotation_x(lift) * (rest - heel))
}

/// The height (y) a hip at `hip`'s horizontal place must be at for a two-bone leg of `lengths`
/// (thigh, shin) bent `bend` to reach `ankle`; the ankle's own height where the leg cannot
/// reach across that far.
pub fn hip_height(lengths: (f32, f32), bend: f32, hip: Vec3, ankle: Vec3) -> f32 {
    let reach = reach_at_bend(lengths, bend);
    let across = Vec2::new(ankle.x - hip.x, ankle.z - hip.z).length();
    ankle.y + (reach * reach - across * across).max(0.0).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_foot_rolls_from_toes_up_to_flat_about_its_heel() {
        let strike = HeelStrike::WALK;
        assert!((strike.rocker_lift(0.0).unwrap() + strike.toe_up).abs() < 1e-6);
        assert_eq!(strike.rocker_lift(strike.flat_at), None);
        let heel_rest = Vec3::new(BALL_L.x, 0.0, BALL_L.z - HEEL_TO_BALL);
        let heel = on_heel(Vec3::ZERO, Quat::IDENTITY, -strike.toe_up, heel_rest);
        assert!(heel.distance(Vec3::new(0.0, 0.0, -HEEL_TO_BALL)) < 1e-6, "the heel stays put: {heel}");
        let ball = on_heel(Vec3::ZERO, Quat::IDENTITY, -strike.toe_up, BALL_L);
        assert!(ball.y > 0.04, "the toes up: ball at {ball}");
    }
}
