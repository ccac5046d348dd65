//! Pose warping: stride, orientation and slope warping, so a clip authored at one speed,
//! straight ahead, on flat ground, walks at any speed, in any direction and up or down a ramp
//! without its planted feet sliding.
//!
//! **Method.** Each frame, on the animated model-space pose:
//! 1. *Goals.* The orientation angle `θ` is the signed angle about +Y from the clip's travel
//!    direction `f` to the character's horizontal velocity `v`, clamped to
//!    ±[`WarpSettings::max_angle`] (0 below [`WarpSettings::min_speed`], where the direction
//!    is noise). The stride direction is `u = R(θ)·f` and the stride scale
//!    `s = (v·u) ÷ clip_speed`, clamped to [`WarpSettings::min_scale`,
//!    `WarpSettings::max_scale`] (1 for a clip that does not travel). Both are smoothed by
//!    critically damped springs ([`WarpSettings::half_life`]) and multiplied by their weights.
//!    The slope `α` is the ground's pitch along `u` from [`WarpMotion::ground_normal`]
//!    (positive uphill, within ±[`WarpSettings::max_slope`], 0 standing still), smoothed and
//!    weighted the same way ([`WarpSettings::slope_weight`]).
//! 2. *Orientation.* The pelvis turns by `θ` about the character root's vertical axis (the
//!    model origin: a fixed pivot, where the pelvis bobs and sways), which turns the legs and
//!    their foot paths (and the feet's yaw) toward the movement; the spine joints turn back by
//!    their shares of `θ`, so the last one (the chest) keeps the clip's facing. Then the spine
//!    leans by `λ = lean_per_slope · α` (within ±[`WarpSettings::max_lean`]), shared alike,
//!    about the horizontal axis across `u`: forward uphill, back downhill.
//! 3. *Stride.* Each foot's ball target moves along `u` so that its offset from the root axis
//!    along `u` is scaled by `s`: `t' = t + u·(s − 1)·(t·u)`. A planted ball that
//!    moved backward at the clip's speed now moves at `s` times it (the character's speed along
//!    `u`), so it stays still in the world; the swing is scaled alike, so each foot lands where
//!    its next contact must be. On a slope the targets also rise by `tan α · (t'·u)`: the
//!    stride plane tilts onto a planar ramp through the root, so planted balls stay on its
//!    surface and a swing foot clears it uphill (foot placement then fits each foot to the
//!    ground it finds).
//! 4. *Reach.* The pelvis drops by what the most stretched leg needs for its heel to be within
//!    the soft zone of its reach (at most [`WarpSettings::max_pelvis_drop`]), then every leg is
//!    re-solved (two-bone, the knee toward `u`) so its heel moves with the ball's shift, the
//!    foot keeping its model orientation; softened only past the leg's animated extension, so
//!    a leg is never hyper-extended and a target out of reach is reported as not reached.
//!
//! **Inputs** ([`PoseWarp`]): the pose as caller-owned `locals` and their forward kinematics
//! `model`, the pelvis bone, the legs ([`LegChain`]; each hip must descend from the pelvis; a
//! foot hanging from the root or a control bone is moved as foot placement moves its external
//! feet), the spine joints with their shares of the counter-turn, [`WarpMotion`] (the character's
//! velocity, the clip's speed and direction, the ground's normal, model space), `dt`, and the
//! caller-owned [`WarpState`].
//!
//! **Outputs.** `locals`/`model` modified in place (pelvis translation and rotation, spine and
//! leg rotations, an external foot's translation) and a [`WarpReport`].
//!
//! **Invariants.** A stride scale of 1, an angle of 0 and a slope of 0 (weights 0, or a
//! character moving as the clip does on flat ground) leave the pose exactly as it was. Bone
//! lengths are kept (only rotations, the pelvis translation and an external foot's translation
//! change). Bad input (index out of range, a hip outside the pelvis, non-finite values) returns
//! an [`IkError`] with the pose and the state untouched. Finite input so extreme that the
//! arithmetic overflows also returns an error, with the state untouched but the pose possibly
//! half warped: put your input pose back (the plugin does). Nothing allocates.
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

use crate::foot_placement::{external, pelvis_drop_to_reach};
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
    /// Default 1.1: a walk that lands on a nearly straight knee, as people do, reaches a
    /// stride 10 % longer with the pelvis 2.7 cm lower, and one 25 % longer only 7.6 cm lower,
    /// its knees turning more than 10° a frame.
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
    /// Half-life, s, of the pelvis's return after a drop (≤ 0: none, it follows the reach
    /// frame by frame). A long stride needs the drop in every double support and none between;
    /// followed exactly the pelvis would bob several centimetres in a few frames, and the
    /// knees with it. It drops at once where a leg needs it. Default 0.1.
    pub drop_recovery: f32,
    /// How much the stride plane tilts with the ground's slope along the movement, in [0, 1]
    /// (0: slope warping off). Default 1.
    pub slope_weight: f32,
    /// Lean of the spine per unit of slope (radians per radian): forward going uphill, back
    /// going downhill. Default 0.3 (6° on a 20° ramp).
    pub lean_per_slope: f32,
    /// Largest lean either way, radians. Default 12°.
    pub max_lean: f32,
    /// Steeper ground than this, radians, counts as this steep (a wall under a foot is not a
    /// slope to walk). Default 40°.
    pub max_slope: f32,
    /// Width of the soft zone that starts at each leg's animated extension, as a fraction of
    /// its length: the animation is reached exactly, only a longer stride's extra stretch is
    /// softened, and no leg is stretched past its length. Default 0.08 (a swing knee eases
    /// into a long stride instead of snapping straight).
    pub soften: f32,
}

impl Default for WarpSettings {
    fn default() -> Self {
        WarpSettings {
            stride_weight: 1.0,
            orientation_weight: 1.0,
            min_scale: 0.3,
            max_scale: 1.1,
            max_angle: 90f32.to_radians(),
            min_speed: 0.1,
            half_life: 0.08,
            max_pelvis_drop: 0.25,
            drop_recovery: 0.1,
            slope_weight: 1.0,
            lean_per_slope: 0.3,
            max_lean: 12f32.to_radians(),
            max_slope: 40f32.to_radians(),
            soften: 0.08,
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
    /// The ground's normal under the character (+Y on flat ground): its slope along the
    /// movement tilts the stride plane and leans the spine.
    pub ground_normal: Vec3,
}

impl WarpMotion {
    /// A character moving at `velocity` on flat ground, on a clip walking forward (+Z) at
    /// `clip_speed`.
    pub fn new(velocity: Vec3, clip_speed: f32) -> Self {
        WarpMotion { velocity, clip_speed, clip_forward: Vec3::Z, ground_normal: Vec3::Y }
    }
}

/// What [`PoseWarp::run`] keeps between frames: the smoothed scale and angle, the pelvis
/// drop. Owned by the caller, one per character.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarpState {
    scale: Spring<f32>,
    angle: Spring<f32>,
    slope: Spring<f32>,
    drop: f32,
    fresh: bool,
}

impl Default for WarpState {
    fn default() -> Self {
        WarpState { scale: Spring::new(1.0), angle: Spring::new(0.0), slope: Spring::new(0.0), drop: 0.0, fresh: true }
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
    /// Slope of the ground along the movement the stride plane follows, radians (after
    /// smoothing and weight; positive uphill).
    pub slope: f32,
    /// Spine lean applied, radians (positive forward, uphill).
    pub lean: f32,
    /// Per leg (in [`PoseWarp::legs`] order), how far the slope raised the foot (model y):
    /// the animated floor under it. Give them to
    /// [`crate::foot_placement::FootPlacement::floor_heights`], so foot placement still sees
    /// a raised planted foot as planted. Zero past the legs given and on flat ground.
    pub floor_heights: [f32; MAX_LEGS],
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
    /// The legs; each hip must descend from the pelvis (the foot may hang from the root or a
    /// control bone: it is turned, and moved to the shin's end, by translation).
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
        let slope_goal = self.slope_goal(motion, angle_goal);
        let mut next = *state;
        if next.fresh || s.half_life <= 0.0 {
            next.scale.snap(scale_goal);
            next.angle.snap(angle_goal);
            next.slope.snap(slope_goal);
            next.fresh = false;
        } else {
            next.scale.update(scale_goal, s.half_life, dt);
            next.angle.update(angle_goal, s.half_life, dt);
            next.slope.update(slope_goal, s.half_life, dt);
        }
        let scale = 1.0 + s.stride_weight.clamp(0.0, 1.0) * (next.scale.value - 1.0);
        let angle = s.orientation_weight.clamp(0.0, 1.0) * next.angle.value;
        let slope = s.slope_weight.clamp(0.0, 1.0) * next.slope.value;
        let lean = if self.spine.is_empty() {
            0.0
        } else {
            let max_lean = s.max_lean.max(0.0);
            (s.lean_per_slope * slope).clamp(-max_lean, max_lean)
        };
        let play_rate = if scale > 1e-3 && ratio.is_finite() { ratio / scale } else { 1.0 };
        let mut report = WarpReport {
            scale,
            angle,
            pelvis_drop: 0.0,
            slope,
            lean,
            floor_heights: [0.0; MAX_LEGS],
            reached: true,
            play_rate,
        };
        if !(scale.is_finite() && angle.is_finite() && slope.is_finite() && lean.is_finite()) {
            return Err(IkError::NonFiniteInput);
        }
        // The last drop, returning toward 0 by its half-life: the least this frame's drop is.
        let recovered = if s.drop_recovery > 0.0 && !state.fresh {
            state.drop * 0.5f32.powf(dt.max(0.0) / s.drop_recovery)
        } else {
            0.0
        };
        next.drop = 0.0;
        if scale != 1.0 || angle != 0.0 || slope != 0.0 {
            self.orient(locals, model, angle);
            let forward = horizontal(motion.clip_forward).normalize_or(Vec3::Z);
            let stride = Quat::from_rotation_y(angle) * forward;
            self.lean(locals, model, stride, lean);
            let warp = StrideWarp { direction: stride, scale, rise: slope.tan(), recovered };
            report.pelvis_drop = self.stride(locals, model, &warp, &mut report);
            next.drop = report.pelvis_drop;
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

    /// The ground's slope along the stride direction (the clip's travel turned by `angle`),
    /// radians, positive uphill, within ±[`WarpSettings::max_slope`]; 0 standing still.
    fn slope_goal(&self, motion: &WarpMotion, angle: f32) -> f32 {
        let s = &self.settings;
        let normal = motion.ground_normal.normalize_or(Vec3::Y);
        if horizontal(motion.velocity).length() <= s.min_speed.max(1e-4) || normal.y <= 0.0 {
            return 0.0;
        }
        let along = Quat::from_rotation_y(angle) * horizontal(motion.clip_forward).normalize_or(Vec3::Z);
        let max_slope = s.max_slope.clamp(0.0, 89f32.to_radians());
        (-normal.dot(along)).atan2(normal.y).clamp(-max_slope, max_slope)
    }

    /// Leans the spine joints by their shares of `lean` toward `direction` (back for a
    /// negative lean), about the horizontal axis across it.
    fn lean(&self, locals: &mut [Xform], model: &mut [Xform], direction: Vec3, lean: f32) {
        let total: f32 = self.spine.iter().map(|(_, share)| share.max(0.0)).sum();
        if lean == 0.0 || total <= 0.0 {
            return;
        }
        let axis = Vec3::Y.cross(direction).normalize_or(Vec3::X);
        for &(bone, share) in self.spine {
            self.turn_bone(locals, model, bone, Quat::from_axis_angle(axis, lean * share.max(0.0) / total));
        }
    }

    /// Turns `bone` by `turn` in model space (about its own joint) and refreshes the model
    /// transforms below it.
    fn turn_bone(&self, locals: &mut [Xform], model: &mut [Xform], bone: usize, turn: Quat) {
        let parent = self.parents[bone].map_or(Quat::IDENTITY, |p| model[p].rotation);
        locals[bone].rotation = turn_local_by_model_rotation(locals[bone].rotation, parent, turn);
        if self.parents[bone].is_none() {
            model[bone] = locals[bone];
        }
        refresh_model(self.parents, locals, model, bone);
    }

    /// Turns the pelvis by `angle` about the vertical and the spine back by its shares.
    fn orient(&self, locals: &mut [Xform], model: &mut [Xform], angle: f32) {
        if angle == 0.0 {
            return;
        }
        // About the root's vertical axis (the model origin), not the pelvis's own: the pelvis
        // bobs and sways, and a moving pivot would carry the planted feet with it.
        let turn = Quat::from_rotation_y(angle);
        let pelvis_at = turn * model[self.pelvis].translation;
        locals[self.pelvis].translation = match self.parents[self.pelvis] {
            Some(p) => model[p].inverse_transform_point(pelvis_at),
            None => pelvis_at,
        };
        self.turn_bone(locals, model, self.pelvis, turn);
        let carried = |bone: usize| descends_from(self.parents, bone, self.pelvis);
        // A foot hanging from the root or a control bone turns with the legs all the same.
        for leg in self.legs.iter().filter(|leg| !carried(leg.ankle)) {
            model[leg.ankle].translation = turn * model[leg.ankle].translation;
            external::place(self.parents, locals, model, leg.ankle, turn * model[leg.ankle].rotation);
        }
        let total: f32 = self.spine.iter().filter(|(b, _)| carried(*b)).map(|(_, share)| share.max(0.0)).sum();
        if total <= 0.0 {
            return;
        }
        for &(bone, share) in self.spine.iter().filter(|(b, _)| carried(*b)) {
            self.turn_bone(locals, model, bone, Quat::from_rotation_y(-angle * share.max(0.0) / total));
        }
    }

    /// Scales the feet's offsets along the stride, tilts them onto the slope (the rises go to
    /// `report.floor_heights`), lowers the pelvis for reach (at least by the last drop on its
    /// way back) and solves the legs (`report.reached`); returns the pelvis drop.
    fn stride(&self, locals: &mut [Xform], model: &mut [Xform], warp: &StrideWarp, report: &mut WarpReport) -> f32 {
        let (direction, scale, recovered) = (warp.direction, warp.scale, warp.recovered);
        let soften = self.settings.soften;
        // Where each heel goes: the foot moves rigidly with its ball, before the pelvis moves.
        let mut heel_targets = [Vec3::ZERO; MAX_LEGS];
        // An external foot's place on its shin (knee frame), before the pelvis moves the shin.
        let mut in_knee = [None; MAX_LEGS];
        let mut drop: f32 = 0.0;
        for (((target, floor), leg), in_knee) in
            heel_targets.iter_mut().zip(&mut report.floor_heights).zip(self.legs).zip(&mut in_knee)
        {
            *in_knee = external::is_external(self.parents, leg)
                .then(|| model[leg.knee].inverse_transform_point(model[leg.ankle].translation));
            let along = ball_of(model, leg).dot(direction);
            *floor = warp.rise * scale * along;
            let shift = direction * ((scale - 1.0) * along) + Vec3::Y * *floor;
            *target = model[leg.ankle].translation + shift;
            drop = drop.min(pelvis_drop_to_reach(model, leg, *target, soften));
        }
        let drop = drop.min(recovered).max(-self.settings.max_pelvis_drop.max(0.0));
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
        for ((leg, &heel_target), &in_knee) in self.legs.iter().zip(&heel_targets).zip(&in_knee) {
            report.reached &= self.solve_leg(locals, model, (leg, in_knee), heel_target, direction);
        }
        drop
    }

    /// Puts a leg's heel on `heel_target` with the knee bending toward `forward`, the foot
    /// keeping its model orientation (so the ball lands where the heel's shift takes it);
    /// softened only past the leg's animated extension. Returns whether it reached. An
    /// external foot (`in_knee`: its place in the knee's frame) rides at the shin's end and is
    /// then moved there (see [`crate::foot_placement`]'s external feet).
    fn solve_leg(
        &self,
        locals: &mut [Xform],
        model: &mut [Xform],
        (leg, in_knee): (&LegChain, Option<Vec3>),
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
        if let Some(at) = in_knee {
            external::attach(model, leg, at);
        }
        let Some(mut job) = TwoBoneJob::from_model(model, chain, heel_target, Some(hip + forward * reach)) else {
            return false;
        };
        job.soften = if reach > 0.0 { ((reach - soft_start) / reach).clamp(0.0, 1.0) } else { 0.0 };
        let Ok(solution) = job.run() else { return false };
        let (head, tail) = locals.split_at_mut(leg.knee);
        solution.apply(&mut head[leg.hip], &mut tail[0]);
        refresh_model(self.parents, locals, model, leg.hip);
        if let Some(at) = in_knee {
            external::attach(model, leg, at);
            // A foot that could not be written stays where it was: not reached.
            return external::place(self.parents, locals, model, leg.ankle, foot) && solution.reached;
        }
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
            if !descends_from(self.parents, leg.hip, self.pelvis) {
                return Err(IkError::BrokenHierarchy { bone: leg.hip });
            }
            if external::is_external(self.parents, leg) {
                external::validate(self.parents, locals, model, leg)?;
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
            s.drop_recovery,
            s.slope_weight,
            s.lean_per_slope,
            s.max_lean,
            s.max_slope,
            s.soften,
        ]
        .iter()
        .all(|v| v.is_finite());
        let motion_finite = motion.velocity.is_finite()
            && motion.clip_speed.is_finite()
            && motion.clip_forward.is_finite()
            && motion.ground_normal.is_finite();
        let shares_finite = self.spine.iter().all(|(_, share)| share.is_finite());
        let pose_finite = locals.iter().chain(model.iter()).all(Xform::is_finite);
        if !(settings_finite && motion_finite && shares_finite && dt.is_finite() && pose_finite) {
            return Err(IkError::NonFiniteInput);
        }
        Ok(())
    }
}

/// What the stride stage does: scale along `direction`, `rise` (the slope's tangent) up per
/// unit along it, at least `recovered` of pelvis drop.
struct StrideWarp {
    direction: Vec3,
    scale: f32,
    rise: f32,
    recovered: f32,
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
