//! A procedural biped gait: where the pelvis and the two balls of the feet are at any phase of
//! a walk, jog or idle cycle, for authoring clips and for tests.
//!
//! **Method.** The gait is *in place*: the character does not travel, the ground slides under
//! it. Each foot spends `stance_fraction` of the cycle planted, its ball moving backward (−Z)
//! at exactly `speed` over a stance stride of `speed · stance_fraction · cycle_duration`
//! centred under the pelvis (z = 0); for the rest of the cycle it swings forward along a cubic
//! Hermite curve whose end velocities equal the stance velocity, lifted by a `16 t²(1 − t)²`
//! bump of height `step_height`, and pitched toe-down after toe-off and toe-up before landing.
//! The left foot lands at phase 0 and the right at phase 0.5, for every gait, so clips built
//! from different gaits are phase-aligned for blending. The pelvis bobs twice a cycle (highest
//! at mid-stance when walking, lowest at mid-stance when running) and sways once a cycle toward
//! the stance foot.
//!
//! **Inputs.** [`GaitParams`] and a normalized phase (wrapped into `[0, 1)`).
//!
//! **Outputs.** [`GaitSample`]: the pelvis offset and, per foot, the ball's ground point, a
//! contact flag and the foot's pointing direction, all in character space (faces +Z, left is
//! +X, +Y up, floor at y = 0).
//!
//! **Invariants.** The cycle is seamless: positions and velocities at phase 1 equal those at
//! phase 0. A planted ball is at y = 0 and moves at exactly `speed`. Non-finite parameters are
//! read as 0 and every parameter is clamped to `±1e4`, so the output is always finite.
//! A gait with `stance_fraction ≥ 1` has no swing: the feet stay planted at z = 0 and `speed`
//! is ignored (it could not loop otherwise).

use core::f32::consts::{PI, TAU};

use glam::Vec3;

/// Largest magnitude any gait parameter is read with (keeps every output finite).
const PARAM_LIMIT: f32 = 1e4;

/// Parameters of a procedural biped gait (in place: the character does not travel; a planted
/// foot moves backward at `speed`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaitParams {
    /// Nominal ground speed, m/s (0 = idle: both feet planted, the pelvis breathes).
    pub speed: f32,
    /// Seconds for a full cycle (one left and one right step).
    pub cycle_duration: f32,
    /// Fraction of the cycle each foot is planted (walk ≈ 0.6 with double support, jog ≈ 0.4
    /// with flight phases), in `[0, 1]`.
    pub stance_fraction: f32,
    /// Peak lift of a swinging foot's ball, m.
    pub step_height: f32,
    /// Lateral distance between the two feet's centre lines, m.
    pub foot_spacing: f32,
    /// Mean pelvis height above the floor, m.
    pub pelvis_height: f32,
    /// Vertical bob amplitude of the pelvis, m.
    pub pelvis_bob: f32,
    /// Lateral sway amplitude of the pelvis, m.
    pub pelvis_sway: f32,
}

impl GaitParams {
    /// A walk at 1.4 m/s, about 114 steps a minute, tuned for a ~1.8 m human (leg ~0.9 m, pelvis
    /// ~0.98 m above the floor with straight legs).
    pub fn walk() -> Self {
        GaitParams {
            speed: 1.4,
            cycle_duration: 1.05,
            stance_fraction: 0.6,
            step_height: 0.09,
            foot_spacing: 0.2,
            pelvis_height: 0.93,
            pelvis_bob: 0.02,
            pelvis_sway: 0.025,
        }
    }

    /// A jog at 3.2 m/s, about 164 steps a minute, with flight phases.
    pub fn jog() -> Self {
        GaitParams {
            speed: 3.2,
            cycle_duration: 0.73,
            stance_fraction: 0.38,
            step_height: 0.16,
            foot_spacing: 0.16,
            pelvis_height: 0.91,
            pelvis_bob: 0.03,
            pelvis_sway: 0.012,
        }
    }

    /// Standing: both feet planted, the pelvis rises and falls gently (two breaths a cycle).
    pub fn idle() -> Self {
        GaitParams {
            speed: 0.0,
            cycle_duration: 6.0,
            stance_fraction: 1.0,
            step_height: 0.0,
            foot_spacing: 0.22,
            pelvis_height: 0.95,
            pelvis_bob: 0.004,
            pelvis_sway: 0.004,
        }
    }

    /// Distance a planted ball travels (relative to the pelvis) during one stance, m.
    pub fn stance_stride(&self) -> f32 {
        let p = self.sanitized();
        if p.stance_fraction >= 1.0 { 0.0 } else { p.speed * p.stance_fraction * p.cycle_duration }
    }

    /// Every field finite and within `±PARAM_LIMIT`, durations and fractions non-negative.
    fn sanitized(&self) -> GaitParams {
        let f = |v: f32| if v.is_finite() { v.clamp(-PARAM_LIMIT, PARAM_LIMIT) } else { 0.0 };
        GaitParams {
            speed: f(self.speed),
            cycle_duration: f(self.cycle_duration).max(0.0),
            stance_fraction: f(self.stance_fraction).clamp(0.0, 1.0),
            step_height: f(self.step_height),
            foot_spacing: f(self.foot_spacing),
            pelvis_height: f(self.pelvis_height),
            pelvis_bob: f(self.pelvis_bob),
            pelvis_sway: f(self.pelvis_sway),
        }
    }
}

impl Default for GaitParams {
    /// [`GaitParams::walk`].
    fn default() -> Self {
        Self::walk()
    }
}

/// One foot of a [`GaitSample`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaitFoot {
    /// Ball-of-foot ground point in character space; y = 0 while planted.
    pub position: Vec3,
    /// True while the foot is planted (stance).
    pub contact: bool,
    /// Unit direction the foot points (+Z when flat), pitched toe-down after toe-off and
    /// toe-up before heel strike during the swing.
    pub forward: Vec3,
}

/// The gait at one phase.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaitSample {
    /// Pelvis position in character space (x = sway, y = height + bob, z = 0).
    pub pelvis: Vec3,
    /// The feet, `[left, right]`.
    pub feet: [GaitFoot; 2],
}

/// Phase at which each foot lands, `[left, right]`.
pub const LANDING_PHASE: [f32; 2] = [0.0, 0.5];

/// Samples the gait at a normalized phase in `[0, 1)` (wraps; a non-finite phase reads as 0).
/// The left foot lands at phase 0 and the right at 0.5, for every gait.
pub fn sample_gait(params: &GaitParams, phase: f32) -> GaitSample {
    let p = params.sanitized();
    let phase = wrap(phase);
    let feet = [foot_at(&p, phase, 0), foot_at(&p, phase, 1)];
    GaitSample { pelvis: pelvis_at(&p, phase), feet }
}

/// Samples the gait at a time in seconds (`phase = time / cycle_duration`); a zero cycle
/// duration samples phase 0.
pub fn sample_gait_at_time(params: &GaitParams, time: f32) -> GaitSample {
    let p = params.sanitized();
    let phase = if p.cycle_duration > 0.0 && time.is_finite() {
        // Wrap in f64 so large times keep their fractional part.
        (time as f64 / p.cycle_duration as f64).rem_euclid(1.0) as f32
    } else {
        0.0
    };
    sample_gait(params, phase)
}

/// `x` wrapped into `[0, 1)`; non-finite reads as 0.
fn wrap(x: f32) -> f32 {
    if !x.is_finite() {
        return 0.0;
    }
    let w = x.rem_euclid(1.0);
    // rem_euclid can round up to exactly 1.0 for tiny negative inputs.
    if w >= 1.0 { 0.0 } else { w }
}

/// Pelvis offset: bob twice a cycle, sway once, both relative to the left foot's mid-stance.
fn pelvis_at(p: &GaitParams, phase: f32) -> Vec3 {
    let mid_stance = 0.5 * p.stance_fraction;
    // Walking (double support, stance > 0.5) vaults over the stance leg: highest at mid-stance.
    // Running (flight, stance < 0.5) compresses on it: lowest at mid-stance. Blended near 0.5.
    let vault = ((p.stance_fraction - 0.5) * 10.0).clamp(-1.0, 1.0);
    let bob = p.pelvis_bob * vault * (2.0 * TAU * (phase - mid_stance)).cos();
    let sway = p.pelvis_sway * (TAU * (phase - mid_stance)).cos();
    Vec3::new(sway, p.pelvis_height + bob, 0.0)
}

/// One foot (0 = left, 1 = right) at a cycle phase.
fn foot_at(p: &GaitParams, phase: f32, foot: usize) -> GaitFoot {
    let side = if foot == 0 { 0.5 } else { -0.5 };
    let x = side * p.foot_spacing;
    let local = wrap(phase - LANDING_PHASE[foot]);
    let stance = p.stance_fraction;
    if stance >= 1.0 {
        return GaitFoot { position: Vec3::new(x, 0.0, 0.0), contact: true, forward: Vec3::Z };
    }
    let stride = p.speed * stance * p.cycle_duration;
    if local < stance {
        // Planted: the ball moves backward at `speed` from +stride/2 to −stride/2.
        let z = 0.5 * stride - p.speed * local * p.cycle_duration;
        return GaitFoot { position: Vec3::new(x, 0.0, z), contact: true, forward: Vec3::Z };
    }
    // Swing: t in [0, 1) across the swing; dz/dt (per unit t) at both ends equals the stance
    // velocity, so position and velocity are continuous at toe-off and at landing.
    let swing_span = 1.0 - stance;
    let t = ((local - stance) / swing_span).clamp(0.0, 1.0);
    let end_velocity = -p.speed * swing_span * p.cycle_duration;
    let z = hermite(-0.5 * stride, end_velocity, 0.5 * stride, end_velocity, t);
    let lift = p.step_height * 16.0 * t * t * (1.0 - t) * (1.0 - t);
    // Toe-down after toe-off, toe-up before landing; zero (flat) at both ends.
    let max_pitch = (0.25 * p.speed.abs()).min(0.5);
    let pitch = -max_pitch * (TAU * t).sin() * (PI * t).sin();
    let forward = Vec3::new(0.0, pitch.sin(), pitch.cos());
    GaitFoot { position: Vec3::new(x, lift, z), contact: false, forward }
}

/// Cubic Hermite curve from `p0` (tangent `m0`) to `p1` (tangent `m1`) at `t` in `[0, 1]`.
fn hermite(p0: f32, m0: f32, p1: f32, m1: f32, t: f32) -> f32 {
    let t2 = t * t;
    let t3 = t2 * t;
    (2.0 * t3 - 3.0 * t2 + 1.0) * p0 + (t3 - 2.0 * t2 + t) * m0 + (-2.0 * t3 + 3.0 * t2) * p1 + (t3 - t2) * m1
}
