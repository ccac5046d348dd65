//! Locomotion clips (`Idle`, `Walk`, `Jog`): feet moved along gait paths, legs solved by IK.
//!
//! Method, per keyframe at phase `φ = i / N` of the cycle:
//! 1. [`ik_core::gait::sample_gait`] gives the pelvis offset and each ball's ground point,
//!    contact flag and pointing direction. The clip shifts the balls forward by a constant
//!    (so the ankles sit under the hips on average) and the pelvis to this rig's height.
//! 2. The upper body is keyed procedurally on `φ`: pelvis yaw and hip drop, spine
//!    counter-rotation and lean, head kept level and forward, arms swinging against the legs
//!    with elbows bending more on the forward swing.
//! 3. Each foot's orientation is the gait's pitch, raised where needed so the ankle stays within
//!    the clip's [`LegStyle::reach_fraction`] of the leg's reach (the heel rolls off the floor
//!    about the planted ball at toe-off, and the jog lands on the forefoot); the ankle target is
//!    the ball target plus the rotated bind-pose ball→ankle offset, and [`ik_core::TwoBoneJob`]
//!    bends hip and knee onto it with the knee toward a pole in front of the leg. The foot bone
//!    then takes its orientation and the toes (ball bone) stay flat on the floor during contact.
//!    The lifts are found for every key first and then eased
//!    ([`LegStyle::lift_ease_per_key`]) so the heel never drops back in one key.
//! 4. The walk lands heel first ([`super::heel_walk`]): its pelvis height is planned per key
//!    from the knee bend the leg that landed last should have (nearly straight at heel strike
//!    and mid-stance, a little loading flexion, bending toward toe-off), the foot rolls about
//!    its heel until flat, its heel then rises as the trailing leg's reach needs (easing in),
//!    and its swing is planned ([`super::legs`]): the knee, the thigh and the foot bent and
//!    straightened evenly, so no joint of the walk turns more than 6° from key to key.
//!
//! Outputs: per keyframe, the pelvis translation and every non-root bone's local rotation, and
//! per-foot contact labels (the ball planted). The root bone never moves: clips are in place, the ground moves
//! under a planted ball backward at exactly the clip's nominal speed.
//!
//! Invariants: `N = round(cycle · 60)` intervals of exactly 1/60 s (the cycle is rounded to
//! `N / 60`), `N + 1` keys, the last key is the first one
//! (phase 1 ≡ 0), so the loop is seamless; the left foot lands at phase 0 and the right at 0.5
//! in every clip; quaternion keys keep one hemisphere from key to key; all values finite.

use std::f32::consts::TAU;

use glam::{Quat, Vec3};
use ik_core::gait::{GaitFoot, GaitParams, LANDING_PHASE, sample_gait};
use ik_core::{IkError, TwoBoneJob, Xform};

use super::heel_walk::{self, HEEL_TO_BALL, HeelStrike, on_heel};
pub use super::legs::LegStyle;
use super::legs::{self, LegPose, MAX_HEEL_LIFT, reach_lift};
use super::skeleton::{ANKLE_L, BALL_L, Rig, forearm_dir_l};

/// Keyframe rate the clips are sampled at, Hz. Each gait cycle is rounded to a whole number of
/// these intervals (Idle 6 s = 360, Walk 1.05 s = 63, Jog 0.73 s → 0.7333 s = 44).
pub const SAMPLE_RATE: f32 = 60.0;
/// The ankle is kept within this fraction of the leg's full reach (the knee never locks
/// straight: at this reach it still bends about 9°).
pub const REACH_FRACTION: f32 = 0.997;
/// How fast a heel-strike walk's heel eases into its rise: the rate per key it may add each
/// key, as a share of its largest rate ([`ease_lifts`]).
const LIFT_EASE_IN: f32 = 0.15;

/// Procedural upper-body amplitudes of a clip (radians unless noted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    /// Pelvis yaw amplitude (the hip of the forward leg leads).
    pub pelvis_yaw: f32,
    /// Pelvis roll amplitude (the swing side's hip drops).
    pub pelvis_roll: f32,
    /// Forward lean of the spine.
    pub lean: f32,
    /// Chest yaw against the pelvis, as a multiple of the pelvis yaw.
    pub counter_rotation: f32,
    /// Arms brought in from the bind A-pose toward the body.
    pub arm_adduct: f32,
    /// Arm swing amplitude about the shoulder.
    pub arm_swing: f32,
    /// Elbow bend at the back of the swing.
    pub elbow_bend: f32,
    /// Extra elbow bend at the front of the swing.
    pub elbow_swing: f32,
    /// Breathing: chest pitch amplitude, twice a cycle.
    pub breath: f32,
    /// Idle glance: head yaw amplitude, once a cycle.
    pub glance: f32,
}

/// Everything that defines one clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipSpec {
    /// Clip (glTF animation) name.
    pub name: &'static str,
    /// Foot and pelvis paths; `gait.speed` is the clip's nominal ground speed.
    pub gait: GaitParams,
    /// Constant forward shift of the balls' paths relative to the pelvis, m.
    pub ball_forward: f32,
    /// Upper body.
    pub style: Style,
    /// Legs.
    pub legs: LegStyle,
}

// How much lower than the gait's `pelvis_height` this rig carries its pelvis, per clip, m.
// The gait is tuned for a pelvis at 0.98 m with straight legs; this rig's is at 0.96 m. The
// values were chosen so that a planted ball stays reachable with the knee bent ≥ 9° (idle:
// knees 9–18°; jog:
// planted knee 9–51°, forefoot landing ~9°, heel lift ≤ 53°). The walk plans its own
// (`strike_pelvis`).
const IDLE_DROP: f32 = -0.004;
const JOG_DROP: f32 = 0.01;

/// The three clips, in file order: `Idle` (0 m/s), `Walk` (1.4 m/s), `Jog` (3.2 m/s).
pub fn clip_specs() -> [ClipSpec; 3] {
    let adjust = |g: GaitParams, drop: f32| GaitParams { pelvis_height: g.pelvis_height - drop, ..g };
    let calm = Style {
        pelvis_yaw: 0.0,
        pelvis_roll: 0.0,
        lean: 0.0,
        counter_rotation: 0.0,
        arm_adduct: 0.38,
        arm_swing: 0.02,
        elbow_bend: 0.15,
        elbow_swing: 0.03,
        breath: 0.012,
        glance: 0.08,
    };
    [
        ClipSpec {
            name: "Idle",
            gait: adjust(GaitParams::idle(), IDLE_DROP),
            ball_forward: 0.10,
            style: calm,
            legs: LegStyle::FOLLOW_PATH,
        },
        ClipSpec {
            name: "Walk",
            // The ball's path lifts 7 cm (the gait's 9 less): the planned knee (legs::KneePlan::WALK,
            // tuned with it) already lifts the foot clear, and a lower path turns the swing's
            // thigh less.
            // The pelvis height is planned for the heel strike (`strike_pelvis`); the balls sit
            // 8 cm further forward, so the leading heel lands 31 cm ahead of the hip.
            gait: GaitParams { step_height: 0.07, ..GaitParams::walk() },
            ball_forward: 0.08,
            style: Style {
                pelvis_yaw: 0.10,
                pelvis_roll: 0.05,
                lean: 0.04,
                counter_rotation: 1.2,
                arm_adduct: 0.36,
                arm_swing: 0.30,
                elbow_bend: 0.25,
                elbow_swing: 0.35,
                breath: 0.0,
                glance: 0.0,
            },
            legs: LegStyle::WALK,
        },
        ClipSpec {
            name: "Jog",
            gait: adjust(GaitParams::jog(), JOG_DROP),
            ball_forward: -0.01,
            style: Style {
                pelvis_yaw: 0.16,
                pelvis_roll: 0.04,
                lean: 0.14,
                counter_rotation: 1.3,
                arm_adduct: 0.30,
                arm_swing: 0.55,
                elbow_bend: 1.30,
                elbow_swing: 0.35,
                breath: 0.0,
                glance: 0.0,
            },
            legs: LegStyle::FOLLOW_PATH,
        },
    ]
}

/// A sampled clip.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// Clip name.
    pub name: String,
    /// Ground speed the clip is made for (m/s); a planted ball moves backward at this speed.
    pub nominal_speed: f32,
    /// Cycle length, s (the time of the last key).
    pub duration: f32,
    /// Key times, s: `N + 1` values from 0 to `duration`.
    pub times: Vec<f32>,
    /// Pelvis local translation per key.
    pub pelvis_translation: Vec<Vec3>,
    /// Local rotation per bone (skeleton order) per key; the root's stays identity.
    pub rotations: Vec<Vec<Quat>>,
    /// Per-key contact labels, `[foot_l, foot_r]`: the ball planted (a heel strike's foot is
    /// labelled once it has rolled flat, when its ball meets the floor).
    pub contacts: [Vec<bool>; 2],
    /// Largest distance between a planted ball and its gait target over the clip, m.
    pub max_planted_error: f32,
}

impl Clip {
    /// Number of intervals `N` (keys − 1).
    pub fn intervals(&self) -> usize {
        self.times.len().saturating_sub(1)
    }

    /// Key rate, Hz: always [`SAMPLE_RATE`] (keys are `i / 60` s apart).
    pub fn frame_rate(&self) -> f32 {
        SAMPLE_RATE
    }
}

/// Bone indices the clip maker needs.
struct Bones {
    pelvis: usize,
    spine: [usize; 3],
    neck: usize,
    head: usize,
    upperarm: [usize; 2],
    lowerarm: [usize; 2],
    leg: [[usize; 4]; 2],
}

impl Bones {
    fn find(rig: &Rig) -> Bones {
        let b = |n: &str| rig.bone(n);
        let leg = |s: &str| {
            [b(&format!("thigh_{s}")), b(&format!("calf_{s}")), b(&format!("foot_{s}")), b(&format!("ball_{s}"))]
        };
        Bones {
            pelvis: b("pelvis"),
            spine: [b("spine_01"), b("spine_02"), b("spine_03")],
            neck: b("neck_01"),
            head: b("head"),
            upperarm: [b("upperarm_l"), b("upperarm_r")],
            lowerarm: [b("lowerarm_l"), b("lowerarm_r")],
            leg: [leg("l"), leg("r")],
        }
    }
}

/// Samples one clip.
pub fn build_clip(rig: &Rig, spec: &ClipSpec) -> Result<Clip, IkError> {
    let cycle = spec.gait.cycle_duration;
    if !(cycle.is_finite() && cycle > 0.0) {
        return Err(IkError::NonFiniteInput);
    }
    // A whole number of 60 Hz intervals per cycle: the gait's cycle is rounded to it (the
    // speed is kept, so the stride scales by the same tiny ratio).
    let n = ((cycle * SAMPLE_RATE).round() as usize).max(2);
    let duration = n as f32 / SAMPLE_RATE;
    let spec = &ClipSpec { gait: GaitParams { cycle_duration: duration, ..spec.gait }, ..*spec };
    let bones = Bones::find(rig);
    let count = rig.skeleton.len();
    let mut clip = Clip {
        name: spec.name.to_string(),
        nominal_speed: spec.gait.speed,
        duration,
        times: (0..=n).map(|i| i as f32 / SAMPLE_RATE).collect(),
        pelvis_translation: Vec::with_capacity(n + 1),
        rotations: vec![Vec::with_capacity(n + 1); count],
        contacts: [Vec::with_capacity(n + 1), Vec::with_capacity(n + 1)],
        max_planted_error: 0.0,
    };
    let mut locals = vec![Xform::IDENTITY; count];
    let mut model = vec![Xform::IDENTITY; count];
    // First the pelvis a heel strike leaves; then the lift each key needs on its own, eased so
    // the heel never snaps. With a planned knee only the stances are eased, each on its own (a
    // swing key is free: the toe-off's lift is not carried on into the landing).
    let pelvis: Vec<Option<f32>> = match spec.legs.heel_strike {
        Some(strike) => strike_pelvis(rig, &bones, spec, strike)?.into_iter().map(Some).collect(),
        None => vec![None; n],
    };
    let free = LegPlan { lift_floor: f32::NEG_INFINITY, swing: None };
    let mut plans: Vec<KeyPlan> =
        pelvis.iter().map(|&pelvis_height| KeyPlan { legs: [free; 2], pelvis_height }).collect();
    let planned = spec.legs.knees;
    let needed = (0..n)
        .map(|i| {
            let key = pose_at(rig, &bones, spec, i as f32 / n as f32, plans[i], &mut locals, &mut model)?;
            let free_swing = |side: usize| planned.is_some() && !key.contacts[side];
            Ok([0, 1].map(|side| if free_swing(side) { f32::NEG_INFINITY } else { key.legs[side].lift }))
        })
        .collect::<Result<Vec<_>, IkError>>()?;
    let floors = ease_lifts(&needed, spec.legs.lift_ease_per_key, spec.legs.heel_strike.is_some());
    for (plan, floors) in plans.iter_mut().zip(floors) {
        plan.legs = floors.map(|lift_floor| LegPlan { lift_floor, swing: None });
    }
    if let Some(knees) = planned {
        // Second pass: each ankle's distance from its hip and each foot's lift as planted; the
        // swings are then planned from toe-off to landing.
        let keys = (0..n)
            .map(|i| pose_at(rig, &bones, spec, i as f32 / n as f32, plans[i], &mut locals, &mut model))
            .collect::<Result<Vec<_>, _>>()?;
        for (side, leg) in bones.leg.into_iter().enumerate() {
            let planted: Vec<(bool, LegPose)> = keys.iter().map(|k| (k.contacts[side], k.legs[side])).collect();
            for (plan, swing) in plans.iter_mut().zip(legs::plan_swings(&knees, &planted, leg_lengths(rig, leg))) {
                plan.legs[side].swing = swing;
            }
        }
    }
    for i in 0..=n {
        let phase = (i % n) as f32 / n as f32;
        let key = pose_at(rig, &bones, spec, phase, plans[i % n], &mut locals, &mut model)?;
        let (contacts, error) = (key.ball_down, key.planted_error);
        clip.max_planted_error = clip.max_planted_error.max(error);
        clip.pelvis_translation.push(locals[bones.pelvis].translation);
        for (b, keys) in clip.rotations.iter_mut().enumerate() {
            let mut q = locals[b].rotation.normalize();
            if keys.last().is_some_and(|prev: &Quat| prev.dot(q) < 0.0) {
                q = -q;
            }
            keys.push(q);
        }
        for (foot, labels) in clip.contacts.iter_mut().enumerate() {
            labels.push(contacts[foot]);
        }
    }
    Ok(clip)
}

/// One posed key: which feet are in their stance and which have their ball on the floor, the
/// planted balls' largest error, each leg's pose.
struct KeyPose {
    contacts: [bool; 2],
    ball_down: [bool; 2],
    planted_error: f32,
    legs: [LegPose; 2],
}

/// How one key is posed: its legs, and the pelvis height where the clip plans it.
#[derive(Clone, Copy, Debug)]
struct KeyPlan {
    legs: [LegPlan; 2],
    /// The pelvis's height; `None`: the gait's.
    pelvis_height: Option<f32>,
}

/// Per key, the pelvis height at which the leg that landed last has the knee bend `strike`
/// plans ([`super::heel_walk`]): through its heel strike and mid-stance with its sole as the
/// gait has it, then with its heel rising from `strike.heel_off` to the lift that puts the
/// pelvis where the next landing needs it. (A gait whose trailing flat foot is already too low
/// for that would jump there; the mannequin's joint-step test would show it.)
fn strike_pelvis(rig: &Rig, bones: &Bones, spec: &ClipSpec, strike: HeelStrike) -> Result<Vec<f32>, IkError> {
    let n = ((spec.gait.cycle_duration * SAMPLE_RATE).round() as usize).max(2);
    let stance = spec.gait.stance_fraction;
    let mut legs = StrikeLegs { rig, bones, spec, strike, locals: rig.skeleton.rest().to_vec(), model: Vec::new() };
    legs.model = legs.locals.clone();
    let next_landing = legs.pelvis_height(LANDING_PHASE[1], 1, None)?;
    let handover = (LANDING_PHASE[1] - LANDING_PHASE[0]) / stance;
    let (mut low, mut high) = (0.0f32, MAX_HEEL_LIFT);
    if legs.pelvis_height(LANDING_PHASE[1], 0, Some(0.0))? >= next_landing {
        high = 0.0;
    }
    for _ in 0..24 {
        let mid = 0.5 * (low + high);
        if legs.pelvis_height(LANDING_PHASE[1], 0, Some(mid))? < next_landing { low = mid } else { high = mid }
    }
    let handover_lift = high;
    let bound = (0..n)
        .map(|i| {
            let phase = i as f32 / n as f32;
            let side = usize::from(phase >= LANDING_PHASE[1]);
            let share = stance_share(spec, phase, side);
            let rising = (share - strike.heel_off) / (handover - strike.heel_off);
            let lift = (rising > 0.0).then(|| handover_lift * rising.min(1.0).powi(2));
            legs.pelvis_height(phase, side, lift)
        })
        .collect::<Result<Vec<f32>, IkError>>()?;
    Ok(bound)
}

/// How far into its stance foot `side` is at `phase` (0 at landing, 1 at toe-off, past 1 in
/// the swing).
fn stance_share(spec: &ClipSpec, phase: f32, side: usize) -> f32 {
    (phase - LANDING_PHASE[side]).rem_euclid(1.0) / spec.gait.stance_fraction
}

/// The rig posed for [`strike_pelvis`], with the buffers it poses into.
struct StrikeLegs<'a> {
    rig: &'a Rig,
    bones: &'a Bones,
    spec: &'a ClipSpec,
    strike: HeelStrike,
    locals: Vec<Xform>,
    model: Vec<Xform>,
}

impl StrikeLegs<'_> {
    /// The pelvis height at `phase` at which leg `side` has the knee bend its stance plans,
    /// its heel lifted `lift` (`None`: as the heel strike rolls it, else flat).
    fn pelvis_height(&mut self, phase: f32, side: usize, lift: Option<f32>) -> Result<f32, IkError> {
        let free = LegPlan { lift_floor: f32::NEG_INFINITY, swing: None };
        let plan = KeyPlan { legs: [free; 2], pelvis_height: None };
        pose_at(self.rig, self.bones, self.spec, phase, plan, &mut self.locals, &mut self.model)?;
        let leg = self.bones.leg[side];
        let share = stance_share(self.spec, phase, side);
        let foot = sample_gait(&self.spec.gait, phase).feet[side].position;
        let ball_target = foot + Vec3::Z * self.spec.ball_forward + Vec3::Y * BALL_L.y;
        let ankle = match (lift, self.strike.rocker_lift(share)) {
            (None, Some(rocker)) => on_heel(ball_target, Quat::IDENTITY, rocker, ANKLE_L),
            (lift, _) => ball_target + Quat::from_rotation_x(lift.unwrap_or(0.0)) * (ANKLE_L - BALL_L),
        };
        let hip = self.model[leg[0]].translation;
        let height = heel_walk::hip_height(leg_lengths(self.rig, leg), self.strike.stance_bend(share), hip, ankle);
        Ok(height - (hip.y - self.locals[self.bones.pelvis].translation.y))
    }
}

/// How one leg is posed at one key.
#[derive(Clone, Copy, Debug)]
struct LegPlan {
    /// The foot's lift (heel-up angle) is at least this, radians.
    lift_floor: f32,
    /// In the swing, the planned knee bend and foot lift; `None` follows the gait's foot path.
    swing: Option<LegPose>,
}

/// Per foot, the lowest lift at each key that changes at most `step` per key (cyclic: the
/// clip loops) and never falls below `needed` ([`ik_core::envelope::slew_limited_above`]); a
/// heel-strike walk's also eases into each rise ([`ik_core::envelope::curvature_limited_above`]).
fn ease_lifts(needed: &[[f32; 2]], step: f32, heel_strike: bool) -> Vec<[f32; 2]> {
    let per_foot = [0, 1].map(|foot| {
        let lifts: Vec<f32> = needed.iter().map(|key| key[foot]).collect();
        let eased = ik_core::envelope::slew_limited_above(&lifts, step, true);
        match heel_strike {
            true => ik_core::envelope::curvature_limited_above(&eased, LIFT_EASE_IN * step, true),
            false => eased,
        }
    });
    (0..needed.len()).map(|i| [per_foot[0][i], per_foot[1][i]]).collect()
}

/// Poses the rig at one phase as `plan` says.
fn pose_at(
    rig: &Rig,
    bones: &Bones,
    spec: &ClipSpec,
    phase: f32,
    plan: KeyPlan,
    locals: &mut [Xform],
    model: &mut [Xform],
) -> Result<KeyPose, IkError> {
    locals.copy_from_slice(rig.skeleton.rest());
    let gait = sample_gait(&spec.gait, phase);
    let s = &spec.style;
    let cycle = TAU * phase;
    let mid_stance = 0.5 * spec.gait.stance_fraction.min(1.0);

    // Pelvis: the gait's offset, yaw with the forward leg, roll with the stance side.
    let yaw = -s.pelvis_yaw * cycle.cos();
    let roll = s.pelvis_roll * (TAU * (phase - mid_stance)).cos();
    let pelvis_height = plan.pelvis_height.unwrap_or(gait.pelvis.y);
    locals[bones.pelvis].translation = Vec3::new(gait.pelvis.x, pelvis_height, gait.pelvis.z);
    locals[bones.pelvis].rotation = Quat::from_rotation_y(yaw) * Quat::from_rotation_z(roll);

    // Spine: lean forward, turn the chest against the pelvis, level the shoulders, breathe.
    let chest_yaw = -s.counter_rotation * yaw;
    let breath = s.breath * (2.0 * cycle).sin();
    for &b in &bones.spine {
        locals[b].rotation = Quat::from_rotation_x(s.lean / 3.0 + breath / 3.0)
            * Quat::from_rotation_y((chest_yaw - yaw) / 3.0)
            * Quat::from_rotation_z(-roll / 3.0);
    }
    // Neck and head: undo the chest's yaw and lean so the gaze stays level and forward.
    let glance = s.glance * cycle.sin();
    let head_turn = Quat::from_rotation_y((glance - chest_yaw) * 0.5) * Quat::from_rotation_x(-(s.lean + breath) * 0.5);
    locals[bones.neck].rotation = head_turn;
    locals[bones.head].rotation = head_turn;

    // Arms: each swings against its own leg (left arm back when the left foot lands).
    for side in 0..2 {
        let sign = if side == 0 { 1.0 } else { -1.0 };
        let back = sign * cycle.cos();
        let mirror = |v: Vec3| Vec3::new(v.x * sign, v.y, v.z);
        let adduct = Quat::from_axis_angle(Vec3::Z, -sign * s.arm_adduct);
        locals[bones.upperarm[side]].rotation = Quat::from_rotation_x(s.arm_swing * back) * adduct;
        let hinge = mirror(forearm_dir_l()).cross(Vec3::Z).normalize_or(Vec3::X);
        let bend = s.elbow_bend + s.elbow_swing * 0.5 * (1.0 - back);
        locals[bones.lowerarm[side]].rotation = Quat::from_axis_angle(hinge, bend);
    }

    ik_core::skeleton::forward_kinematics(rig.skeleton.parents(), locals, &Xform::IDENTITY, model)?;

    // Legs.
    let mut worst = 0.0f32;
    let mut legs = [LegPose { reach: 0.0, lift: 0.0, pitch: 0.0 }; 2];
    for (side, bones) in bones.leg.into_iter().enumerate() {
        let leg = (side, bones);
        let placed = place_leg(rig, spec, phase, leg, gait.feet[side], plan.legs[side], locals, model)?;
        worst = worst.max(placed.planted_error);
        legs[side] = placed.pose;
    }
    let contacts = gait.feet.map(|f| f.contact);
    let rolling = |side: usize| {
        let share = stance_share(spec, phase, side);
        spec.legs.heel_strike.is_some_and(|strike| strike.rocker_lift(share).is_some())
    };
    let ball_down = [0, 1].map(|side| contacts[side] && !rolling(side));
    Ok(KeyPose { contacts, ball_down, planted_error: worst, legs })
}

/// A posed leg: the planted ball's distance from its target (0 in the swing) and the leg's pose.
struct PlacedLeg {
    planted_error: f32,
    pose: LegPose,
}

/// Solves one leg (`(side, [thigh, calf, foot, ball])`) onto its gait foot as `plan` says,
/// after the upper body is posed; leaves `model` up to date.
#[allow(clippy::too_many_arguments)]
fn place_leg(
    rig: &Rig,
    spec: &ClipSpec,
    phase: f32,
    (side, [thigh, calf, foot_bone, ball]): (usize, [usize; 4]),
    foot: GaitFoot,
    plan: LegPlan,
    locals: &mut [Xform],
    model: &mut [Xform],
) -> Result<PlacedLeg, IkError> {
    let ball_target = foot.position + Vec3::Z * spec.ball_forward + Vec3::Y * BALL_L.y;
    let flat = Vec3::new(foot.forward.x, 0.0, foot.forward.z);
    let heading = Quat::from_rotation_arc(Vec3::Z, flat.normalize_or(Vec3::Z));
    let gait_lift = (-foot.forward.y).atan2(flat.length());
    // Toe-up never pushes the heel through the floor.
    let heel_floor = (foot.position.y / HEEL_TO_BALL).clamp(0.0, 1.0).asin();
    let hip = model[thigh].translation;
    let lengths = leg_lengths(rig, [thigh, calf, foot_bone, ball]);
    let stance = spec.gait.stance_fraction;
    let local = (phase - LANDING_PHASE[side]).rem_euclid(1.0);
    let mut limit = spec.legs.reach_fraction * (lengths.0 + lengths.1);
    if let Some(strike) = spec.legs.heel_strike.filter(|_| foot.contact && stance < 1.0) {
        limit = limit.min(legs::reach_at_bend(lengths, strike.stance_bend(local / stance)));
    }
    let ankle_at = |lift: f32| ball_target + heading * (Quat::from_rotation_x(lift) * (ANKLE_L - BALL_L));
    let swing = plan.swing.filter(|_| !foot.contact);
    let rocker =
        spec.legs.heel_strike.filter(|_| foot.contact && stance < 1.0).and_then(|h| h.rocker_lift(local / stance));
    let lift = match (swing, rocker) {
        (Some(swing), _) => swing.lift,
        (None, Some(rocker)) => rocker,
        (None, None) => reach_lift(gait_lift, -heel_floor, limit, |l| ankle_at(l).distance(hip)).max(plan.lift_floor),
    };
    let along_path = match rocker {
        Some(lift) => on_heel(ball_target, heading, lift, ANKLE_L) - hip,
        None => ankle_at(lift) - hip,
    };
    let ankle_target = match swing {
        // The planned knee bend and leg pitch, sideways as the gait's path has the ankle.
        Some(swing) => {
            let thigh_smoothing = spec.legs.knees.map_or(0.0, |k| k.thigh_smoothing);
            let side_share = along_path.normalize_or(Vec3::NEG_Y).x.clamp(-1.0, 1.0);
            let sagittal = (1.0 - side_share * side_share).sqrt();
            let path_pitch = along_path.z.atan2(-along_path.y);
            let pitch = path_pitch + (swing.pitch - path_pitch) * thigh_smoothing;
            let direction = Vec3::new(side_share, -pitch.cos() * sagittal, pitch.sin() * sagittal);
            hip + direction * swing.reach.min(limit)
        }
        // Out of reach even so (late swing of the jog): pull the ankle in, keeping the knee bent.
        _ => hip + along_path.clamp_length_max(limit),
    };
    let pole = (hip + ankle_target) * 0.5 + heading * Vec3::Z * 0.5;
    let job = TwoBoneJob::from_model(model, [thigh, calf, foot_bone], ankle_target, Some(pole))
        .ok_or(IkError::BrokenHierarchy { bone: thigh })?;
    let solution = job.run()?;
    let (mut thigh_local, mut calf_local) = (locals[thigh], locals[calf]);
    solution.apply(&mut thigh_local, &mut calf_local);
    locals[thigh] = thigh_local;
    locals[calf] = calf_local;
    ik_core::skeleton::forward_kinematics(rig.skeleton.parents(), locals, &Xform::IDENTITY, model)?;
    // Foot orientation; toes flat on the floor while planted, relaxing during the swing.
    let foot_rotation = heading * Quat::from_rotation_x(lift);
    locals[foot_bone].rotation = (model[calf].rotation.inverse() * foot_rotation).normalize();
    let toe_flat = match (swing, spec.legs.knees) {
        (Some(_), Some(knees)) => legs::swing_toe_flat(&knees, (local - stance) / (1.0 - stance)),
        _ => toe_flat_factor(spec, phase, side, foot.contact),
    };
    // Toes up (the heel strike): the toes stay in line with the foot.
    locals[ball].rotation = Quat::from_rotation_x(-lift.max(0.0) * toe_flat);
    ik_core::skeleton::forward_kinematics(rig.skeleton.parents(), locals, &Xform::IDENTITY, model)?;
    let ball_expected = rocker.map_or(ball_target, |lift| on_heel(ball_target, heading, lift, BALL_L));
    let planted_error = if foot.contact { model[ball].translation.distance(ball_expected) } else { 0.0 };
    let to_ankle = ankle_target - hip;
    let pitch = to_ankle.z.atan2(-to_ankle.y);
    Ok(PlacedLeg { planted_error, pose: LegPose { reach: to_ankle.length(), lift, pitch } })
}

/// The thigh's and the shin's lengths of a leg `[thigh, calf, foot, ball]`.
fn leg_lengths(rig: &Rig, [thigh, calf, foot, _]: [usize; 4]) -> (f32, f32) {
    (rig.joint(calf).distance(rig.joint(thigh)), rig.joint(foot).distance(rig.joint(calf)))
}

/// 1 while planted (toes flat on the floor); in the swing it eases to 0 (toes follow the foot)
/// over the first half and back to 1 over the last quarter, so it is continuous at both ends.
fn toe_flat_factor(spec: &ClipSpec, phase: f32, side: usize, contact: bool) -> f32 {
    let stance = spec.gait.stance_fraction;
    if contact || stance >= 1.0 {
        return 1.0;
    }
    let local = (phase - LANDING_PHASE[side]).rem_euclid(1.0);
    let t = ((local - stance) / (1.0 - stance)).clamp(0.0, 1.0);
    let smooth = |x: f32| {
        let x = x.clamp(0.0, 1.0);
        x * x * (3.0 - 2.0 * x)
    };
    (1.0 - smooth(t / 0.75)).max(smooth((t - 0.75) / 0.25))
}
