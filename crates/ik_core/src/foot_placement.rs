//! Foot placement on uneven ground: planted feet follow the ground under them, the pelvis
//! drops as far as the lowest foot needs, and each planted foot tilts to the ground's slope.
//!
//! **Method.** Each foot is probed at points on its sole (under the ankle and toe joints, the
//! back of the heel, the toe tip; see [`crate::sole`]), each where the foot's last tilt puts
//! it: a ray straight down (model −Y) from `ray_start_height` above each, through a caller-supplied ground query (world space;
//! `model_to_world` converts rays and hits); where that ray starts above something hanging over
//! the foot (a log, a table), a ray up from the point finds its underside and the ground is
//! looked for under it instead ([`OVERHANG_LIFT`]). Between neighbouring points an edge search finds
//! nosings, kerbs and crests ([`crate::sole::find_edges`]). The foot keeps its animated
//! orientation turned to the (tilt-limited, smoothed) slope under its sole ([`sole_slope`]:
//! the chord from heel to toe tip along the foot, the mean normal across it), about its ankle — or,
//! when [`FootPlacement::foot_shifts`] are given (foot locking; even all zero), about its
//! ball ([`FootRig::ball`]: the sole under the toe joint, else the sole's ball point), so a locked foot stays
//! put as the tilt changes. Its
//! vertical correction, limited to `[−max_step_down, max_step_up]` and faded by the foot's
//! *planted weight* (1 while the animated sole is within `planted_height` of the floor, fading
//! to 0 over `planted_fade`, so swinging feet are not pulled down), puts the animation's
//! contact points (its lowest points) on their ground, taking out the animation's own hover;
//! points the animation lifts (a rolling heel) keep their height relative to them. Whatever
//! the weight, no probe point or edge ends below its ground. The pelvis drops (never rises) by
//! the downward correction of the planted foot [`PelvisSupport`] chooses (by default the
//! largest of any foot), and at once as far as the planted legs need to reach; a leg short of
//! its ground may first lift its heel about its toes ([`FootPlacementSettings::heel_lift`]).
//! Each leg is re-solved with two-bone IK (knee toward a forward pole, or kept in
//! its bend plane) and each ankle takes its tilted orientation. Pelvis offset, foot
//! corrections and foot normals are smoothed with critically damped springs held in a
//! caller-owned [`FootPlacementState`]; smoothing never sinks a point or leaves a planted leg
//! short.
//!
//! **Inputs.** The *animated* pose of this frame (`locals` and its FK `model`, model space with
//! the floor at y = 0 and +Y up), the rig ([`FootPlacement`]), a ground query, `dt`, the state.
//!
//! **External feet** (IK-control rigs: the foot bone hangs from the root or a control bone, not
//! from the shin; [`FootRig::is_external`]): the foot's animated position in the knee's frame
//! (the shin's end) is measured first, the leg is solved as usual with the foot riding there,
//! and the foot is then moved: its model translation is the new shin end, its rotation the one
//! chosen above, both written into its local transform through its own parent's model
//! transform. Its toe follows as its child. A foot below its shin costs nothing extra.
//!
//! **Outputs.** `locals`/`model` modified in place (pelvis translation, leg rotations, a
//! lifted heel's toe rotation, and an external foot's translation —
//! [`FootReport::ankle_translated`] says when to write it back), a [`FootReport`] per foot and
//! the pelvis offset.
//!
//! **Invariants.** A fresh (or reset) state uses the targets directly whatever `dt` is, so the
//! first frame is already placed (`dt = 0` there is fine); afterwards `dt ≤ 0` holds the
//! smoothed values still and zero half-lives follow the targets exactly. A foot with no ground
//! hit gets no correction (springs ease it back to its animation) and does not move the pelvis;
//! with no correction and no tilt, a leg is left bit for bit as animated. Bad input returns an
//! [`IkError`] with the pose untouched; nothing non-finite is ever written. No allocation per
//! frame.

use glam::{Quat, Vec3};

use crate::leg::{LegChain, descends_from, refresh_model, soft_zone_start, validate_chain};
use crate::skeleton::{blend_locals, forward_kinematics};
use crate::sole::SOLE_PROBES;
use crate::spring::Spring;
use crate::{IkError, TwoBoneJob, Xform};

pub(crate) mod external;
mod lifts;
mod measure;
mod probe;
mod report;
mod resolve;
mod rig;
mod settings;
mod slope;
mod support;
pub use probe::{OVERHANG_LIFT, OVERHANG_THICKNESS, ground_under};
pub use report::FootReport;
pub use rig::{FootRest, FootRig, knee_bend_direction};
pub use settings::{FootPlacementSettings, KneePole, SoleProbes};
pub use slope::sole_slope;
use support::SupportVote;
pub use support::{PelvisSupport, heel_lift_angle, heel_lift_rotation};

/// Largest length setting honoured (longer ones are clamped), m.
const MAX_LENGTH: f32 = 1e4;

/// Height band above a foot's lowest animated point within which a probe point counts as in
/// contact (fully at 0, not at all at the band's top), m.
const CONTACT_BAND: f32 = 0.02;

/// The ground a swinging foot is carried over ([`FootPlacement::swing_floors`]).
///
/// ```
/// use ik_core::foot_placement::SwingFloor;
///
/// // A swing carried over a tread 20 cm up (model y), fully; the default carries nothing.
/// let _over_the_tread = SwingFloor { height: 0.2, weight: 1.0 };
/// assert_eq!(SwingFloor::default().weight, 0.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SwingFloor {
    /// Its height, model y.
    pub height: f32,
    /// How much it carries the foot, clamped to `[0, 1]`: 0 (default) leaves the foot as the
    /// clip and the ground place it, 1 raises it to keep its animated height above this floor.
    pub weight: f32,
}

/// What a ground query found: a point and the surface normal, both in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundHit {
    /// Where the ray met the ground.
    pub point: Vec3,
    /// The ground's normal there (any length; normalized here).
    pub normal: Vec3,
}

/// Smoothing state of one foot.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
struct FootState {
    offset: Spring<f32>,
    normal: Spring<Vec3>,
    /// Heel-lift angle, radians.
    heel: Spring<f32>,
    /// This frame's heel-lift rotation (scratch).
    lift: Quat,
    /// This frame's ankle target before any heel lift, and the toe joint placed with it;
    /// `None` without ground (scratch).
    target: Option<Vec3>,
    toe: Option<Vec3>,
    /// How much the toes carry the foot this frame, `[0, 1]` (scratch).
    toes_down: f32,
    /// This frame's say in the pelvis height (scratch).
    vote: SupportVote,
    /// Animated ankle model rotation of the current frame (scratch).
    animated_rotation: Quat,
    /// This frame's ground under each probe point, model space (scratch).
    probes: [Option<(Vec3, Vec3)>; SOLE_PROBES],
    /// For an external foot (not below its knee), its animated position in the knee's frame:
    /// the shin's end (scratch).
    ankle_in_knee: Option<Vec3>,
}

/// Caller-owned memory of [`FootPlacement`] between frames: one per character.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FootPlacementState {
    pelvis: Spring<f32>,
    feet: Vec<FootState>,
    fresh: bool,
    /// The input locals of a run with a weight below 1 (scratch, reused).
    input: Vec<Xform>,
}

impl FootPlacementState {
    /// A fresh state for `feet` feet: the next run uses its targets directly.
    pub fn new(feet: usize) -> Self {
        let foot = FootState { normal: Spring::new(Vec3::Y), ..Default::default() };
        FootPlacementState { pelvis: Spring::new(0.0), feet: vec![foot; feet], fresh: true, input: Vec::new() }
    }

    /// Makes the state fresh again (after a teleport, a cut, a new character).
    pub fn reset(&mut self) {
        self.fresh = true;
    }

    /// The smoothed pelvis offset (model y) of the last run.
    pub fn pelvis_offset(&self) -> f32 {
        self.pelvis.value
    }
}

/// A foot-placement job: the rig and its settings. See the module docs.
#[derive(Clone, Copy, Debug)]
pub struct FootPlacement<'a> {
    /// Parent of each bone (parents before children).
    pub parents: &'a [Option<usize>],
    /// The bone whose translation carries the pelvis offset.
    pub pelvis: usize,
    /// The feet; each leg's hip must descend from the pelvis.
    pub feet: &'a [FootRig],
    /// Model (character) space to world space, for the ground query.
    pub model_to_world: Xform,
    /// Per foot, a horizontal shift (model x and z; y is ignored) of where the foot lands,
    /// e.g. from foot locking ([`crate::foot_lock`]): the foot is probed and placed there, at
    /// the height the ground there asks for. Given (even all zero), feet with a toe tilt about
    /// the toe joint instead of the ankle. Empty: no shifts.
    pub foot_shifts: &'a [Vec3],
    /// Per foot, the height (model y) of the animated floor under it, e.g. from slope warping
    /// (a stride tilted onto a ramp, [`crate::warping::WarpReport::floor_heights`]): the
    /// foot's animated heights (its planted weight, its contact points' heights) are measured
    /// from it instead of from y = 0, so a planted foot the warp raised still counts as
    /// planted. Empty: the floor is y = 0 under every foot.
    pub floor_heights: &'a [f32],
    /// Per foot, the ground a swinging foot is carried over ([`SwingFloor`]): by its weight, the
    /// foot is raised to keep its animated height above that ground (never lowered by it), and
    /// where it raises it counts that much less planted for the pelvis. From a footstep
    /// prediction ([`crate::footstep::rising_floor`], [`crate::footstep::descending_floor`]), a
    /// foot that barely lifts in its clip goes over a riser along its swing, not in a jump.
    pub swing_floors: &'a [SwingFloor],
    /// The character's direction of travel (model space; only its horizontal part counts), the
    /// "front" of [`PelvisSupport::FrontFoot`]. Zero: the rig's knee bend directions.
    pub travel: Vec3,
    /// Tuning.
    pub settings: FootPlacementSettings,
    /// How much of the placement the output carries, clamped to [0, 1]: the placed locals
    /// are blended back toward the input pose ([`crate::skeleton::blend_locals`]); 0 returns
    /// the input exactly (the reports still describe the full placement). Default 1.
    pub weight: f32,
}

/// The pelvis offset (≤ 0, model y) that brings `target` within the leg's soft-zone start, so
/// the re-solved leg lands exactly: solves `|hip + p·Y − target| ≤ start` for the largest `p`.
pub(crate) fn pelvis_drop_to_reach(model: &[Xform], leg: &LegChain, target: Vec3, soften: f32) -> f32 {
    let start = soft_zone_start(model, leg, soften);
    let to_hip = model[leg.hip].translation - target;
    let horizontal = Vec3::new(to_hip.x, 0.0, to_hip.z).length_squared();
    if horizontal >= start * start {
        return f32::NEG_INFINITY;
    }
    ((start * start - horizontal).sqrt() - to_hip.y).min(0.0)
}

/// Whether `leg` reaches `ankle` (model space) from where `model` has its hip, without
/// stretching and without the pelvis dropping: what a foot lock asks before it lets a held toe
/// go. `false` for a leg whose bones are not in `model`.
///
/// ```
/// use glam::Vec3;
/// use ik_core::Xform;
/// use ik_core::foot_placement::leg_reaches;
/// use ik_core::leg::LegChain;
///
/// // Hip 0.8 m over the ankle, thigh and shin 0.42 m each: about 0.26 m of reach to the side.
/// let at = |x, y, z| Xform::from_translation(Vec3::new(x, y, z));
/// let model = [at(0.0, 0.88, 0.0), at(0.0, 0.48, 0.13), at(0.0, 0.08, 0.0)];
/// let leg = LegChain { hip: 0, knee: 1, ankle: 2, toe: None, toe_end: None };
/// assert!(leg_reaches(&model, &leg, Vec3::new(0.0, 0.08, -0.2)));
/// assert!(!leg_reaches(&model, &leg, Vec3::new(0.0, 0.08, -0.3)));
/// ```
pub fn leg_reaches(model: &[Xform], leg: &LegChain, ankle: Vec3) -> bool {
    let in_model = [leg.hip, leg.knee, leg.ankle].iter().all(|&i| i < model.len());
    in_model && pelvis_drop_to_reach(model, leg, ankle, 0.0) == 0.0
}

/// The smoothstep-faded weight of a foot whose sole is `height` above the floor.
fn planted_weight(height: f32, planted: f32, fade: f32) -> f32 {
    if fade <= 0.0 {
        return if height <= planted { 1.0 } else { 0.0 };
    }
    let x = ((height - planted) / fade).clamp(0.0, 1.0);
    1.0 - x * x * (3.0 - 2.0 * x)
}

impl FootPlacement<'_> {
    /// The role `bone` plays in this job, for messages: `"pelvis"`, `"foot 0 hip"`, `"foot 1
    /// ankle"` (`knee`, `toe`, `toe end`, `heel point bone`, `tip point bone` likewise; `foot` is
    /// the index into [`FootPlacement::feet`]). `None` for a bone with no role. Turns an
    /// [`IkError::BrokenHierarchy`]'s index into words.
    pub fn bone_role(&self, bone: usize) -> Option<String> {
        if bone == self.pelvis {
            return Some("pelvis".into());
        }
        self.feet.iter().enumerate().find_map(|(i, foot)| {
            let leg = &foot.leg;
            let role = [
                (Some(leg.hip), "hip"),
                (Some(leg.knee), "knee"),
                (Some(leg.ankle), "ankle"),
                (leg.toe, "toe"),
                (leg.toe_end, "toe end"),
                (foot.heel.map(|p| p.bone), "heel point bone"),
                (foot.tip.map(|p| p.bone), "tip point bone"),
            ]
            .into_iter()
            .find_map(|(b, name)| (b == Some(bone)).then_some(name))?;
            Some(format!("foot {i} {role}"))
        })
    }

    /// Checks the rig against the buffers and the settings for finiteness.
    pub fn validate(&self, locals: &[Xform], model: &[Xform], state: &FootPlacementState) -> Result<(), IkError> {
        let n = self.parents.len();
        if locals.len() != n || model.len() != n {
            return Err(IkError::LengthMismatch {
                expected: n,
                got: if locals.len() != n { locals.len() } else { model.len() },
            });
        }
        if self.pelvis >= n {
            return Err(IkError::BrokenHierarchy { bone: self.pelvis });
        }
        if state.feet.len() != self.feet.len() {
            return Err(IkError::LengthMismatch { expected: self.feet.len(), got: state.feet.len() });
        }
        if !self.foot_shifts.is_empty() && self.foot_shifts.len() != self.feet.len() {
            return Err(IkError::LengthMismatch { expected: self.feet.len(), got: self.foot_shifts.len() });
        }
        if !self.floor_heights.is_empty() && self.floor_heights.len() != self.feet.len() {
            return Err(IkError::LengthMismatch { expected: self.feet.len(), got: self.floor_heights.len() });
        }
        if !self.swing_floors.is_empty() && self.swing_floors.len() != self.feet.len() {
            return Err(IkError::LengthMismatch { expected: self.feet.len(), got: self.swing_floors.len() });
        }
        if !(self.settings.is_finite()
            && self.weight.is_finite()
            && self.model_to_world.is_finite()
            && self.travel.is_finite()
            && model[self.pelvis].is_finite()
            && self.foot_shifts.iter().all(|s| s.is_finite())
            && self.floor_heights.iter().all(|h| h.is_finite())
            && self.swing_floors.iter().all(|f| f.height.is_finite() && f.weight.is_finite()))
        {
            return Err(IkError::NonFiniteInput);
        }
        for foot in self.feet {
            match validate_chain(self.parents, locals, model, &foot.leg) {
                Err(IkError::BrokenHierarchy { bone })
                    if bone == foot.leg.ankle && external::is_external(self.parents, &foot.leg) =>
                {
                    external::validate(self.parents, locals, model, &foot.leg)?;
                }
                other => other?,
            }
            if !descends_from(self.parents, foot.leg.hip, self.pelvis) {
                return Err(IkError::BrokenHierarchy { bone: foot.leg.hip });
            }
            if !(foot.ankle_height.is_finite() && foot.toe_height.is_finite() && foot.foot_up.is_finite()) {
                return Err(IkError::NonFiniteInput);
            }
            let leg = foot.leg;
            TwoBoneJob::from_model(model, [leg.hip, leg.knee, leg.ankle], Vec3::ZERO, None)
                .ok_or(IkError::BrokenHierarchy { bone: leg.hip })?
                .validate()?;
            if leg.toe.is_some_and(|t| !model[t].is_finite()) {
                return Err(IkError::NonFiniteInput);
            }
        }
        Ok(())
    }

    /// Places the feet of this frame's animated pose. `reports` must have one entry per foot.
    /// Returns the pelvis offset applied (model y, ≤ 0).
    pub fn run<G>(
        &self,
        locals: &mut [Xform],
        model: &mut [Xform],
        ground: G,
        dt: f32,
        state: &mut FootPlacementState,
        reports: &mut [FootReport],
    ) -> Result<f32, IkError>
    where
        G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
    {
        self.validate(locals, model, state)?;
        if reports.len() != self.feet.len() {
            return Err(IkError::LengthMismatch { expected: self.feet.len(), got: reports.len() });
        }
        let weight = self.weight.clamp(0.0, 1.0);
        if weight < 1.0 {
            state.input.clear();
            state.input.extend_from_slice(locals);
        }
        let pelvis_offset = self.place(locals, model, ground, dt, state, reports);
        if weight < 1.0 {
            blend_locals(&state.input, locals, weight);
            forward_kinematics(self.parents, locals, &Xform::IDENTITY, model)?;
        }
        Ok(pelvis_offset)
    }

    /// The placement at full weight (inputs validated): each foot's ground and correction,
    /// the pelvis lowered for the lowest, each leg re-solved to its target.
    fn place<G>(
        &self,
        locals: &mut [Xform],
        model: &mut [Xform],
        mut ground: G,
        dt: f32,
        state: &mut FootPlacementState,
        reports: &mut [FootReport],
    ) -> f32
    where
        G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
    {
        let frame = self.frame(state.fresh, dt);
        state.fresh = false;
        // 1. Ground under each foot and the correction it asks for; the lowest any foot asks for.
        let mut lowest_offset: f32 = 0.0;
        for (i, ((foot, st), report)) in self.feet.iter().zip(state.feet.iter_mut()).zip(reports.iter_mut()).enumerate()
        {
            let vote = self.measure_foot((i, foot), (st, report), model, &mut ground, &frame);
            lowest_offset = lowest_offset.min(vote);
        }
        // 2. and 3. How low the pelvis must go, and lower it.
        let pelvis_offset = self.lower_pelvis(locals, model, lowest_offset, &frame, state, reports);

        // 4. Re-solve each leg to its ankle target, then tilt the foot.
        for ((foot, st), report) in self.feet.iter().zip(state.feet.iter()).zip(reports.iter_mut()) {
            self.resolve_leg(foot, st, report, locals, model, pelvis_offset);
        }
        pelvis_offset
    }

    /// Steps 2 and 3: the pelvis offset the feet's votes ask for (smoothed, never past what the
    /// lowest foot needs), applied to the pelvis bone. Returns it (model y, ≤ 0).
    fn lower_pelvis(
        &self,
        locals: &mut [Xform],
        model: &mut [Xform],
        lowest_offset: f32,
        frame: &measure::Frame,
        state: &mut FootPlacementState,
        reports: &mut [FootReport],
    ) -> f32 {
        let (pelvis_goal, pelvis_reach) = self.support(model, lowest_offset, frame.dt, frame.fresh, state, reports);
        let pelvis_goal = pelvis_goal.max(-frame.max_down);
        if frame.fresh {
            state.pelvis.snap(pelvis_goal);
        } else {
            state.pelvis.update(pelvis_goal, self.settings.pelvis_half_life, frame.dt);
            let needed = pelvis_reach.max(-frame.max_down);
            if state.pelvis.value > needed {
                state.pelvis.value = needed;
                state.pelvis.velocity = 0.0;
            }
        }
        let pelvis_offset = state.pelvis.value.min(0.0);

        let pelvis_model = model[self.pelvis].translation + Vec3::Y * pelvis_offset;
        let pelvis_local = match self.parents[self.pelvis] {
            Some(p) => model[p].inverse_transform_point(pelvis_model),
            None => pelvis_model,
        };
        if pelvis_local.is_finite() {
            locals[self.pelvis].translation = pelvis_local;
            if self.parents[self.pelvis].is_none() {
                model[self.pelvis] = locals[self.pelvis];
            }
            refresh_model(self.parents, locals, model, self.pelvis);
        }
        pelvis_offset
    }
}
