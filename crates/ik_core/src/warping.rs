//! Pose warping: stride and orientation warping, so a clip authored at one speed, straight
//! ahead, walks at any speed and in any direction without its planted feet sliding.
//!
//! **Method.** Each frame, on the animated model-space pose:
//! 1. *Goals.* The orientation angle `θ` is the signed angle about +Y from the clip's travel
//!    direction `f` to the character's horizontal velocity `v`, clamped to
//!    ±[`WarpSettings::max_angle`] (0 below [`WarpSettings::min_speed`], where the direction
//!    is noise). The stride direction is `u = R(θ)·f` and the stride scale
//!    `s = (v·u) ÷ clip_speed`, clamped to [`WarpSettings::min_scale`,
//!    `WarpSettings::max_scale`] (1 for a clip that does not travel). Both are smoothed by
//!    critically damped springs ([`WarpSettings::half_life`]) and multiplied by their weights.
//! 2. *Orientation.* The pelvis turns by `θ` about the character root's vertical axis (the
//!    model origin: a fixed pivot, where the pelvis bobs and sways), which turns the legs and
//!    their foot paths (and the feet's yaw) toward the movement; the spine joints turn back by
//!    their shares of `θ`, so the last one (the chest) keeps the clip's facing.
//! 3. *Stride.* Each foot's ball target moves along `u` so that its offset from the root axis
//!    along `u` is scaled by `s`: `t' = t + u·(s − 1)·(t·u)`. A planted ball that
//!    moved backward at the clip's speed now moves at `s` times it (the character's speed along
//!    `u`), so it stays still in the world; the swing is scaled alike, so each foot lands where
//!    its next contact must be.
//! 4. *Reach.* The pelvis drops by what the most stretched leg needs for its heel to be within
//!    the soft zone of its reach (at most [`WarpSettings::max_pelvis_drop`]), then every leg is
//!    re-solved (two-bone, the knee toward `u`) so its heel moves with the ball's shift, the
//!    foot keeping its model orientation; softened only past the leg's animated extension, so
//!    a leg is never hyper-extended and a target out of reach is reported as not reached.
//!
//! **Inputs** ([`PoseWarp`]): the pose as caller-owned `locals` and their forward kinematics
//! `model`, the pelvis bone, the legs ([`LegChain`]; each must descend from the pelvis), the
//! spine joints with their shares of the counter-turn, [`WarpMotion`] (the character's
//! velocity and the clip's speed and direction, model space), `dt`, and the caller-owned
//! [`WarpState`].
//!
//! **Outputs.** `locals`/`model` modified in place (pelvis translation and rotation, spine and
//! leg rotations) and a [`WarpReport`].
//!
//! **Invariants.** A stride scale of 1 and an angle of 0 (weights 0, or a character moving as
//! the clip does) leave the pose exactly as it was. Bone lengths are kept (only rotations and
//! the pelvis translation change). Bad input (index out of range, a leg outside the pelvis,
//! non-finite values) returns an [`IkError`] with the pose and the state untouched. Finite
//! input so extreme that the arithmetic overflows also returns an error, with the state
//! untouched but the pose possibly half warped: put your input pose back (the plugin does).
//! Nothing allocates.
//!
//! ```
//! use glam::{Quat, Vec3};
//! use ik_core::leg::LegChain;
//! use ik_core::warping::{PoseWarp, WarpMotion, WarpSettings, WarpState};
//! use ik_core::{Skeleton, Xform};
//!
//! // Pelvis, spine, and one leg: hip, knee, ankle, toe (ball).
//! let t = Xform::from_translation;
//! let skeleton = Skeleton::new(
//!     vec![None, Some(0), Some(0), Some(2), Some(3), Some(4)],
//!     ["pelvis", "spine", "hip", "knee", "ankle", "toe"].map(String::from).to_vec(),
//!     vec![t(Vec3::Y * 0.95), t(Vec3::Y * 0.2), t(Vec3::new(0.1, -0.05, 0.0)),
//!          t(Vec3::new(0.0, -0.44, 0.05)), t(Vec3::new(0.0, -0.38, -0.05)), t(Vec3::new(0.0, -0.06, 0.14))],
//! ).unwrap();
//! let mut locals = skeleton.rest().to_vec();
//! let mut model = skeleton.rest_model();
//! let legs = [LegChain { hip: 2, knee: 3, ankle: 4, toe: Some(5), toe_end: None }];
//! let warp = PoseWarp {
//!     parents: skeleton.parents(),
//!     pelvis: 0,
//!     legs: &legs,
//!     spine: &[(1, 1.0)],
//!     settings: WarpSettings::default(),
//! };
//! // Moving 45° to the left of the clip's +Z at the clip's own speed: the legs turn 45°, the
//! // spine turns back, the stride keeps its length.
//! let motion = WarpMotion::new(Vec3::new(1.0, 0.0, 1.0).normalize() * 1.4, 1.4);
//! let mut state = WarpState::default();
//! let report = warp.run(&mut locals, &mut model, &motion, 1.0 / 60.0, &mut state).unwrap();
//! assert!((report.angle.to_degrees() - 45.0).abs() < 1e-3);
//! assert!((report.scale - 1.0).abs() < 1e-5);
//! let spine_forward = model[1].rotation * Vec3::Z;
//! assert!(spine_forward.angle_between(Vec3::Z) < 1e-4, "the chest keeps facing +Z");
//! ```

use glam::{Quat, Vec3};

use crate::foot_placement::pelvis_drop_to_reach;
use crate::leg::{LegChain, descends_from, refresh_model, soft_zone_start, unstraighten};
use crate::spring::Spring;
use crate::{IkError, TwoBoneJob, Xform, turn_local_by_model_rotation};

/// Tuning of [`PoseWarp`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct WarpSettings {
    /// How much of the stride scale is applied, in [0, 1] (0: stride warping off). Default 1.
    pub stride_weight: f32,
    /// How much of the orientation angle is applied, in [0, 1] (0: orientation warping off).
    /// Default 1.
    pub orientation_weight: f32,
    /// Smallest stride scale. Default 0.3.
    pub min_scale: f32,
    /// Largest stride scale; past it the clip must play faster ([`WarpReport::play_rate`]).
    /// Default 1.25 (a longer stride needs a deep crouch to reach).
    pub max_scale: f32,
    /// Largest orientation angle either way, radians; past it, a clip for that direction is
    /// the game's job. Default 90°.
    pub max_angle: f32,
    /// Below this horizontal speed, m/s, the movement direction is not trusted and the
    /// orientation eases back to 0. Default 0.1.
    pub min_speed: f32,
    /// Half-life of the springs that smooth the scale and the angle, s (≤ 0: no smoothing).
    /// Default 0.08.
    pub half_life: f32,
    /// Most the pelvis may drop so the stretched legs reach, m. Default 0.25.
    pub max_pelvis_drop: f32,
    /// Width of the soft zone that starts at each leg's animated extension, as a fraction of
    /// its length: the animation is reached exactly, only a longer stride's extra stretch is
    /// softened, and no leg is stretched past its length. Default 0.02.
    pub soften: f32,
}

impl Default for WarpSettings {
    fn default() -> Self {
        WarpSettings {
            stride_weight: 1.0,
            orientation_weight: 1.0,
            min_scale: 0.3,
            max_scale: 1.25,
            max_angle: 90f32.to_radians(),
            min_speed: 0.1,
            half_life: 0.08,
            max_pelvis_drop: 0.25,
            soften: 0.02,
        }
    }
}

/// How the character moves against how its animation does, in model (character) space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarpMotion {
    /// The character's velocity, m/s (only the horizontal part is used).
    pub velocity: Vec3,
    /// The ground speed the playing animation is authored at, m/s (of a blend: the blend's).
    pub clip_speed: f32,
    /// The direction the animation travels in (horizontal; +Z for a clip walking forward).
    pub clip_forward: Vec3,
}

impl WarpMotion {
    /// A character moving at `velocity` on a clip walking forward (+Z) at `clip_speed`.
    pub fn new(velocity: Vec3, clip_speed: f32) -> Self {
        WarpMotion { velocity, clip_speed, clip_forward: Vec3::Z }
    }
}

/// What [`PoseWarp::run`] keeps between frames: the smoothed scale and angle. Owned by the
/// caller, one per character.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarpState {
    scale: Spring<f32>,
    angle: Spring<f32>,
    fresh: bool,
}

impl Default for WarpState {
    fn default() -> Self {
        WarpState { scale: Spring::new(1.0), angle: Spring::new(0.0), fresh: true }
    }
}

impl WarpState {
    /// Forgets the smoothing: the next run starts on its goals.
    pub fn reset(&mut self) {
        *self = WarpState::default();
    }
}

/// What one [`PoseWarp::run`] did.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct WarpReport {
    /// Stride scale applied (after smoothing and weight).
    pub scale: f32,
    /// Orientation angle applied, radians (positive: toward +X from +Z, about +Y).
    pub angle: f32,
    /// Pelvis drop applied so the legs reach, m (≤ 0).
    pub pelvis_drop: f32,
    /// Every leg reached its ball target (see [`crate::leg::LegSolution::reached`]).
    pub reached: bool,
    /// How fast to play the clip for the rest of the speed match: the speed ratio over the
    /// stride scale (`scale × play_rate` = the character's speed ÷ the clip's). Past the
    /// scale's range the stride alone cannot match the speed; a game that plays the clip at
    /// this rate (Unreal's play-rate clamp plus stride warping) keeps the feet still.
    pub play_rate: f32,
}

/// The pose warping job. See the module documentation.
#[derive(Clone, Copy, Debug)]
pub struct PoseWarp<'a> {
    /// Parent of each bone (parents before children).
    pub parents: &'a [Option<usize>],
    /// The bone turned by the orientation angle and lowered for reach.
    pub pelvis: usize,
    /// The legs; each hip and ankle must descend from the pelvis.
    pub legs: &'a [LegChain],
    /// Spine joints, pelvis side first, each with its share (≥ 0) of the counter-turn; the
    /// shares are normalized, so the last joint ends facing as the clip does. Joints that do
    /// not descend from the pelvis are not turned back (the pelvis does not carry them).
    pub spine: &'a [(usize, f32)],
    /// Tuning.
    pub settings: WarpSettings,
}

impl PoseWarp<'_> {
    /// Warps the pose; see the module documentation.
    pub fn run(
        &self,
        locals: &mut [Xform],
        model: &mut [Xform],
        motion: &WarpMotion,
        dt: f32,
        state: &mut WarpState,
    ) -> Result<WarpReport, IkError> {
        self.validate(locals, model, motion, dt)?;
        let s = &self.settings;
        let (scale_goal, angle_goal, ratio) = self.goals(motion);
        let mut next = *state;
        if next.fresh || s.half_life <= 0.0 {
            next.scale.snap(scale_goal);
            next.angle.snap(angle_goal);
            next.fresh = false;
        } else {
            next.scale.update(scale_goal, s.half_life, dt);
            next.angle.update(angle_goal, s.half_life, dt);
        }
        let scale = 1.0 + s.stride_weight.clamp(0.0, 1.0) * (next.scale.value - 1.0);
        let angle = s.orientation_weight.clamp(0.0, 1.0) * next.angle.value;
        let play_rate = if scale > 1e-3 && ratio.is_finite() { ratio / scale } else { 1.0 };
        let mut report = WarpReport { scale, angle, pelvis_drop: 0.0, reached: true, play_rate };
        if !(scale.is_finite() && angle.is_finite()) {
            return Err(IkError::NonFiniteInput);
        }
        if scale != 1.0 || angle != 0.0 {
            self.orient(locals, model, angle);
            let forward = horizontal(motion.clip_forward).normalize_or(Vec3::Z);
            let stride = Quat::from_rotation_y(angle) * forward;
            report.pelvis_drop = self.stride(locals, model, stride, scale, &mut report.reached);
            if !locals.iter().chain(model.iter()).all(Xform::is_finite) {
                // Finite input so large the arithmetic overflowed: the state is kept, the
                // caller puts its input pose back.
                return Err(IkError::NonFiniteInput);
            }
        }
        *state = next;
        Ok(report)
    }

    /// Stride scale and orientation angle the motion asks for (before smoothing and weights),
    /// and the speed ratio (character along the stride ÷ clip; 1 for a clip that does not
    /// travel).
    fn goals(&self, motion: &WarpMotion) -> (f32, f32, f32) {
        let s = &self.settings;
        let velocity = horizontal(motion.velocity);
        let forward = horizontal(motion.clip_forward).normalize_or(Vec3::Z);
        let max_angle = s.max_angle.max(0.0);
        let angle = if velocity.length() > s.min_speed.max(1e-4) {
            let cross = forward.cross(velocity).y;
            cross.atan2(forward.dot(velocity)).clamp(-max_angle, max_angle)
        } else {
            0.0
        };
        let along = velocity.dot(Quat::from_rotation_y(angle) * forward);
        let ratio = if motion.clip_speed > 1e-3 { (along / motion.clip_speed).max(0.0) } else { 1.0 };
        let scale = ratio.clamp(s.min_scale.max(0.0), s.max_scale.max(s.min_scale.max(0.0)));
        (scale, angle, ratio)
    }

    /// Turns the pelvis by `angle` about the vertical and the spine back by its shares.
    fn orient(&self, locals: &mut [Xform], model: &mut [Xform], angle: f32) {
        if angle == 0.0 {
            return;
        }
        let turn_bone = |locals: &mut [Xform], model: &mut [Xform], bone: usize, turn: f32| {
            let parent = self.parents[bone].map_or(Quat::IDENTITY, |p| model[p].rotation);
            locals[bone].rotation =
                turn_local_by_model_rotation(locals[bone].rotation, parent, Quat::from_rotation_y(turn));
            if self.parents[bone].is_none() {
                model[bone] = locals[bone];
            }
            refresh_model(self.parents, locals, model, bone);
        };
        // About the root's vertical axis (the model origin), not the pelvis's own: the pelvis
        // bobs and sways, and a moving pivot would carry the planted feet with it.
        let turn = Quat::from_rotation_y(angle);
        let pelvis_at = turn * model[self.pelvis].translation;
        locals[self.pelvis].translation = match self.parents[self.pelvis] {
            Some(p) => model[p].inverse_transform_point(pelvis_at),
            None => pelvis_at,
        };
        turn_bone(locals, model, self.pelvis, angle);
        let carried = |bone: usize| descends_from(self.parents, bone, self.pelvis);
        let total: f32 = self.spine.iter().filter(|(b, _)| carried(*b)).map(|(_, share)| share.max(0.0)).sum();
        if total <= 0.0 {
            return;
        }
        for &(bone, share) in self.spine.iter().filter(|(b, _)| carried(*b)) {
            turn_bone(locals, model, bone, -angle * share.max(0.0) / total);
        }
    }

    /// Scales the feet's offsets along `direction`, lowers the pelvis for reach and solves the
    /// legs; returns the pelvis drop.
    fn stride(
        &self,
        locals: &mut [Xform],
        model: &mut [Xform],
        direction: Vec3,
        scale: f32,
        reached: &mut bool,
    ) -> f32 {
        let soften = self.settings.soften;
        // Where each heel goes: the foot moves rigidly with its ball, before the pelvis moves.
        let mut heel_targets = [Vec3::ZERO; MAX_LEGS];
        let mut drop: f32 = 0.0;
        for (target, leg) in heel_targets.iter_mut().zip(self.legs) {
            let shift = direction * ((scale - 1.0) * ball_of(model, leg).dot(direction));
            *target = model[leg.ankle].translation + shift;
            drop = drop.min(pelvis_drop_to_reach(model, leg, *target, soften));
        }
        let drop = drop.max(-self.settings.max_pelvis_drop.max(0.0));
        if drop < 0.0 {
            let lowered = model[self.pelvis].translation + Vec3::Y * drop;
            let local = match self.parents[self.pelvis] {
                Some(p) => model[p].inverse_transform_point(lowered),
                None => lowered,
            };
            locals[self.pelvis].translation = local;
            if self.parents[self.pelvis].is_none() {
                model[self.pelvis] = locals[self.pelvis];
            }
            refresh_model(self.parents, locals, model, self.pelvis);
        }
        for (leg, &heel_target) in self.legs.iter().zip(&heel_targets) {
            *reached &= self.solve_leg(locals, model, leg, heel_target, direction);
        }
        drop
    }

    /// Puts a leg's heel on `heel_target` with the knee bending toward `forward`, the foot
    /// keeping its model orientation (so the ball lands where the heel's shift takes it);
    /// softened only past the leg's animated extension. Returns whether it reached.
    fn solve_leg(
        &self,
        locals: &mut [Xform],
        model: &mut [Xform],
        leg: &LegChain,
        heel_target: Vec3,
        forward: Vec3,
    ) -> bool {
        let chain = [leg.hip, leg.knee, leg.ankle];
        let foot = model[leg.ankle].rotation;
        let hip = model[leg.hip].translation;
        let reach = (model[leg.knee].translation - hip).length()
            + (model[leg.ankle].translation - model[leg.knee].translation).length();
        let soft_start = soft_zone_start(model, leg, self.settings.soften);
        // A straight leg has no bend plane: bend it a little toward the knee's side first.
        let down = model[leg.ankle].translation - hip;
        unstraighten(self.parents, locals, model, chain, forward.cross(down).try_normalize());
        let Some(mut job) = TwoBoneJob::from_model(model, chain, heel_target, Some(hip + forward * reach)) else {
            return false;
        };
        job.soften = if reach > 0.0 { ((reach - soft_start) / reach).clamp(0.0, 1.0) } else { 0.0 };
        let Ok(solution) = job.run() else { return false };
        let (head, tail) = locals.split_at_mut(leg.knee);
        solution.apply(&mut head[leg.hip], &mut tail[0]);
        refresh_model(self.parents, locals, model, leg.hip);
        let parent = self.parents[leg.ankle].map_or(Quat::IDENTITY, |p| model[p].rotation);
        let local = (parent.inverse() * foot).normalize();
        if local.is_finite() {
            locals[leg.ankle].rotation = local;
            refresh_model(self.parents, locals, model, leg.ankle);
        }
        solution.reached
    }

    fn validate(&self, locals: &[Xform], model: &[Xform], motion: &WarpMotion, dt: f32) -> Result<(), IkError> {
        let n = self.parents.len();
        for len in [locals.len(), model.len()] {
            if len != n {
                return Err(IkError::LengthMismatch { expected: n, got: len });
            }
        }
        if self.legs.len() > MAX_LEGS {
            return Err(IkError::LengthMismatch { expected: MAX_LEGS, got: self.legs.len() });
        }
        if self.pelvis >= n {
            return Err(IkError::BrokenHierarchy { bone: self.pelvis });
        }
        for leg in self.legs {
            let bones = [Some(leg.hip), Some(leg.knee), Some(leg.ankle), leg.toe, leg.toe_end];
            if let Some(bad) = bones.into_iter().flatten().find(|&b| b >= n) {
                return Err(IkError::BrokenHierarchy { bone: bad });
            }
            if let Some(outside) =
                [leg.hip, leg.ankle].into_iter().find(|&b| !descends_from(self.parents, b, self.pelvis))
            {
                return Err(IkError::BrokenHierarchy { bone: outside });
            }
        }
        if let Some(&(bad, _)) = self.spine.iter().find(|(b, _)| *b >= n) {
            return Err(IkError::BrokenHierarchy { bone: bad });
        }
        let s = &self.settings;
        let settings_finite = [
            s.stride_weight,
            s.orientation_weight,
            s.min_scale,
            s.max_scale,
            s.max_angle,
            s.min_speed,
            s.half_life,
            s.max_pelvis_drop,
            s.soften,
        ]
        .iter()
        .all(|v| v.is_finite());
        let motion_finite =
            motion.velocity.is_finite() && motion.clip_speed.is_finite() && motion.clip_forward.is_finite();
        let shares_finite = self.spine.iter().all(|(_, share)| share.is_finite());
        let pose_finite = locals.iter().chain(model.iter()).all(Xform::is_finite);
        if !(settings_finite && motion_finite && shares_finite && dt.is_finite() && pose_finite) {
            return Err(IkError::NonFiniteInput);
        }
        Ok(())
    }
}

/// Most legs a [`PoseWarp`] takes (targets live on the stack).
pub const MAX_LEGS: usize = 8;

fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// The ball (toe joint) of a leg, or its ankle without a toe.
fn ball_of(model: &[Xform], leg: &LegChain) -> Vec3 {
    model[leg.toe.unwrap_or(leg.ankle)].translation
}

#[cfg(test)]
mod tests;
