//! [`RetargetMap::run`]: one source pose into target locals (rotations, pelvis, limbs by IK).

use glam::{Quat, Vec3};

use super::{LimbMap, RetargetMap};
use crate::skeleton::forward_kinematics;
use crate::{IkError, TwoBoneJob, Xform};

/// Buffers [`RetargetMap::run`] works in, owned by the caller and reused between frames (they
/// grow on the first call, then nothing is allocated).
#[derive(Clone, Debug, Default)]
pub struct RetargetScratch {
    source_model: Vec<Xform>,
    locals: Vec<Xform>,
    model: Vec<Xform>,
    desired: Vec<Option<Quat>>,
}

/// What [`RetargetMap::run`] did to one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetargetedFrame {
    /// `[left, right]`: the foot's contact point reached its goal within 1e-3 × the leg's
    /// reach (always true with [`super::RetargetSettings::feet`] off).
    pub feet_reached: [bool; 2],
    /// `[left, right]`: hip–ankle distance over thigh + shin after the solve (≤ 1).
    pub leg_extension: [f32; 2],
    /// `[left, right]`: the wrist reached its goal (always true with hands off).
    pub hands_reached: [bool; 2],
    /// How far the pelvis was lowered (along the target's up, target units, ≥ 0) so the legs
    /// reach their goals, or as [`RetargetMap::run_lowered`] asked.
    pub pelvis_drop: f32,
}

/// How far to move a hip down along `up` so that its offset `d` from the ankle's goal is no
/// longer than `limit`: 0 when it already is; the closest approach when no drop reaches.
fn drop_to_reach(d: Vec3, up: Vec3, limit: f32) -> f32 {
    let length = d.length();
    if length.is_nan() || length <= limit {
        return 0.0;
    }
    let along = d.dot(up);
    let disc = along * along - (length * length - limit * limit);
    let drop = if disc >= 0.0 { along - disc.sqrt() } else { along };
    if drop.is_finite() { drop.max(0.0) } else { 0.0 }
}

/// The band, in the source foot's rest height (its ankle over its contact point), over which
/// [`RetargetMap::foot_goal`] goes from a foot on its floor to one lifted (its contact point
/// above its rest height): wide, so at toe-off the knee passes from the planted foot's bend to
/// the source's over several frames (over 0.1–0.3 it jumped up to 25° in one).
const CONTACT_LIFTED: [f32; 2] = [0.1, 1.0];
/// The band, in the same unit, over which it goes from a flat foot to one turned about its
/// contact point (its ankle risen over it): wide, so the turn grows with the heel's rise
/// rather than in a frame or two.
const HEEL_RAISED: [f32; 2] = [0.1, 0.9];

/// 0 up to `band[0]`, 1 from `band[1]`, smoothstep between (0 for NaN).
fn smooth(x: f32, [from, to]: [f32; 2]) -> f32 {
    let t = ((x - from) / (to - from)).clamp(0.0, 1.0);
    if t.is_nan() { 0.0 } else { t * t * (3.0 - 2.0 * t) }
}

/// Relative reach within which a goal counts as reached.
const REACHED: f32 = 1e-3;

impl RetargetMap {
    /// The target position of the source point `source` (a bone and a point in its frame)
    /// for the target point `target`: the target's rest position plus the source's move from
    /// its rest, turned and scaled.
    fn carried(&self, source_model: &[Xform], [source, target]: [(usize, Vec3); 2], scale: f32) -> Vec3 {
        let at = |model: &[Xform], (bone, point): (usize, Vec3)| model[bone].transform_point(point);
        let moved = at(source_model, source) - at(&self.source_rest_model, source);
        at(&self.carried_from, target) + self.turn * (moved * scale)
    }

    /// The target posed by the source's rest, rotations only ([`Self::pose_rotations`]), then
    /// raised or lowered along its up until its feet's contact points stand as high as at its
    /// own rest (the mean of the two). Paths carried from it rather than from the target's own
    /// rest keep the source's legs: a rest on bent knees, or with its feet a little behind its
    /// hips, would otherwise have its walk's feet goals out of the reach of the legs the
    /// rotations give, and the pelvis lowered through the whole clip for them. `None` if the
    /// rest cannot be posed.
    pub(crate) fn aligned_rest(&self) -> Option<Vec<Xform>> {
        let mut model = vec![Xform::IDENTITY; self.target_bones()];
        let (mut locals, mut desired) = (Vec::new(), Vec::new());
        let pelvis_at = self.target_rest_model[self.pelvis[1]].translation;
        self.pose_rotations(&self.source_rest_model, pelvis_at, &mut desired, &mut locals, &mut model).ok()?;
        let lifts =
            self.legs.map(|leg| (leg.target_at(&self.target_rest_model) - leg.target_at(&model)).dot(self.target_up));
        let lift = 0.5 * (lifts[0] + lifts[1]);
        if !lift.is_finite() {
            return None;
        }
        for x in &mut model {
            x.translation += self.target_up * lift;
        }
        Some(model)
    }

    /// Steps 1 and 2 of [`RetargetMap::run`]: each driven bone turned from its rest as the
    /// source's (`source_model`: the source's model pose) turned from its rest, into
    /// `desired` (model rotations) and `locals`; the pelvis at `pelvis_at`; every other bone at
    /// rest; `model` refreshed, feet hanging outside their shins placed.
    fn pose_rotations(
        &self,
        source_model: &[Xform],
        pelvis_at: Vec3,
        desired: &mut Vec<Option<Quat>>,
        locals: &mut Vec<Xform>,
        model: &mut Vec<Xform>,
    ) -> Result<(), IkError> {
        let nt = self.target_bones();
        desired.clear();
        desired.resize(nt, None);
        let inverse_turn = self.turn.inverse();
        for b in &self.bones {
            let from_rest = source_model[b.source].rotation * self.source_rest_model[b.source].rotation.inverse();
            let turned = self.turn * from_rest * inverse_turn;
            desired[b.target] = Some((turned * b.align * self.target_rest_model[b.target].rotation).normalize());
        }
        locals.clear();
        locals.extend_from_slice(&self.target_rest);
        model.resize(nt, Xform::IDENTITY);
        for i in 0..nt {
            let parent = self.target_parents[i].map_or(Xform::IDENTITY, |p| model[p]);
            if let Some(rotation) = desired[i] {
                locals[i].rotation = (parent.rotation.inverse() * rotation).normalize();
            }
            if i == self.pelvis[1] {
                locals[i].translation = parent.inverse_transform_point(pelvis_at);
            }
            model[i] = parent.mul_xform(&locals[i]);
        }
        self.place_external_feet(locals, model)
    }

    /// Where a leg's contact point goes, and a turn of the foot (world, applied over its
    /// retargeted rotation), by what the source's foot does (see [`CONTACT_LIFTED`], [`HEEL_RAISED`]):
    /// - flat on its floor: the contact point goes where the source's went ([`Self::carried`]);
    /// - its heel up over the planted contact point: that too, and the foot turns about it so
    ///   the ankle lies toward where the source's ankle went — a foot shorter or longer than the
    ///   source's pitches more or less instead of the pelvis dropping or the knee bending;
    /// - lifted (toes up at heel strike, the swing): the ankle goes where the source's went,
    ///   down with the pelvis by `lower` as far as the foot stays above its floor, and the
    ///   contact point follows from the target's own foot.
    fn foot_goal(&self, source_model: &[Xform], model: &[Xform], leg: &LimbMap, lower: f32) -> (Vec3, Quat) {
        let at = |model: &[Xform], (bone, point): (usize, Vec3)| model[bone].transform_point(point);
        let (rest, ankle) = (&self.source_rest_model, (leg.source[2], Vec3::ZERO));
        let up = self.turn.inverse() * self.target_up;
        let ankle_over_point = |model: &[Xform]| (at(model, ankle) - at(model, leg.source_point)).dot(up);
        let foot_height = ankle_over_point(rest).abs().max(f32::MIN_POSITIVE);
        let lifted = (at(source_model, leg.source_point) - at(rest, leg.source_point)).dot(up) / foot_height;
        let heel_up = (ankle_over_point(source_model) - ankle_over_point(rest)) / foot_height;
        let point_goal = self.carried(source_model, [leg.source_point, leg.target_point], self.scale);
        let ankle_goal = self.carried(source_model, [ankle, (leg.target[2], Vec3::ZERO)], self.scale);
        let offset = leg.target_at(model) - model[leg.target[2]].translation;
        let (lift, pivot) = (smooth(lifted, CONTACT_LIFTED), smooth(heel_up, HEEL_RAISED));
        let pivoted = match (offset.try_normalize(), (point_goal - ankle_goal).try_normalize()) {
            (Some(from), Some(to)) => Quat::from_rotation_arc(from, to),
            _ => Quat::IDENTITY,
        };
        let turn = Quat::IDENTITY.slerp(pivoted, pivot).normalize();
        // A lifted foot goes down with a lowered pelvis (`lower`; the knee as the source's), as
        // far as its contact point stays above its floor.
        let by_ankle = ankle_goal + turn * offset;
        let floor = at(&self.carried_from, leg.target_point).dot(self.target_up);
        let by_ankle = by_ankle - self.target_up * lower.min((by_ankle.dot(self.target_up) - floor).max(0.0));
        (point_goal.lerp(by_ankle, lift), turn)
    }

    /// Places every foot hanging outside its shin at the shin's end, then refreshes `model`.
    fn place_external_feet(&self, locals: &mut [Xform], model: &mut [Xform]) -> Result<(), IkError> {
        if self.external_feet.is_empty() {
            return Ok(());
        }
        for foot in &self.external_feet {
            let at = model[foot.calf].mul_xform(&foot.offset).translation;
            let parent = self.target_parents[foot.foot].map_or(Xform::IDENTITY, |p| model[p]);
            locals[foot.foot].translation = parent.inverse_transform_point(at);
        }
        forward_kinematics(&self.target_parents, locals, &Xform::IDENTITY, model)
    }

    /// Solves one limb so its point reaches `goal`, keeping the tip's world rotation
    /// `tip_rotation`; returns whether it reached and the root–tip extension over the reach.
    #[allow(clippy::too_many_arguments)]
    fn solve_limb(
        &self,
        limb: &LimbMap,
        goal: Vec3,
        tip_rotation: Option<Quat>,
        bend_hint: Vec3,
        soften: f32,
        locals: &mut [Xform],
        model: &mut [Xform],
    ) -> Result<(bool, f32), IkError> {
        let [r, m, t] = limb.target;
        let (pr, pm, pt) = (model[r].translation, model[m].translation, model[t].translation);
        let reach = pr.distance(pm) + pm.distance(pt);
        let offset = limb.target_at(model) - pt;
        let offset = tip_rotation.map_or(offset, |r| r * model[t].rotation.inverse() * offset);
        let tip_goal = goal - offset;
        let line = pt - pr;
        let off = (pm - pr) - line * ((pm - pr).dot(line) / line.length_squared().max(f32::MIN_POSITIVE));
        let side = if off.length() > 1e-4 * reach { off.normalize() } else { bend_hint };
        let start = line.length().max((1.0 - soften.clamp(0.0, 1.0)) * reach).min(0.9999 * reach);
        let job = TwoBoneJob {
            root: pr,
            mid: pm,
            tip: pt,
            root_rotation: model[r].rotation,
            mid_rotation: model[m].rotation,
            target: tip_goal,
            pole: Some(pm + side * reach),
            soften: (1.0 - start / reach).clamp(0.0, 1.0),
            weight: 1.0,
        };
        let solution = job.run()?;
        let (mut root_local, mut mid_local) = (locals[r], locals[m]);
        solution.apply(&mut root_local, &mut mid_local);
        locals[r] = root_local;
        locals[m] = mid_local;
        forward_kinematics(&self.target_parents, locals, &Xform::IDENTITY, model)?;
        if let Some(rotation) = tip_rotation {
            let parent = self.target_parents[t].map_or(Quat::IDENTITY, |p| model[p].rotation);
            locals[t].rotation = (parent.inverse() * rotation).normalize();
            forward_kinematics(&self.target_parents, locals, &Xform::IDENTITY, model)?;
        }
        self.place_external_feet(locals, model)?;
        let reached = limb.target_at(model).distance(goal) <= REACHED * reach;
        Ok((reached, model[r].translation.distance(model[t].translation) / reach))
    }

    /// Retargets one source pose: `source` holds the source's locals (one per source bone),
    /// `target` receives the target's (one per target bone). See the module docs.
    ///
    /// Errors (with `target` untouched): buffer lengths that do not match the rigs, a
    /// non-finite source pose, or a limb the IK cannot solve.
    pub fn run(
        &self,
        source: &[Xform],
        target: &mut [Xform],
        scratch: &mut RetargetScratch,
    ) -> Result<RetargetedFrame, IkError> {
        self.run_lowered(source, target, scratch, 0.0)
    }

    /// [`RetargetMap::run`] with the pelvis lowered by at least `at_least` (target units,
    /// along its up; only with [`super::RetargetSettings::feet`]). A whole clip retargeted
    /// frame by frame lowers the pelvis exactly where each frame needs it, which can bob it
    /// within a few frames; a caller with the whole clip eases the drops over time (each
    /// frame's [`RetargetedFrame::pelvis_drop`]) and runs again with them. A foot off its floor
    /// goes down `at_least` with it (its knee bent as the source's), no lower than its floor.
    pub fn run_lowered(
        &self,
        source: &[Xform],
        target: &mut [Xform],
        scratch: &mut RetargetScratch,
        at_least: f32,
    ) -> Result<RetargetedFrame, IkError> {
        if !at_least.is_finite() {
            return Err(IkError::NonFiniteInput);
        }
        let (ns, nt) = (self.source_bones(), self.target_bones());
        if source.len() != ns {
            return Err(IkError::LengthMismatch { expected: ns, got: source.len() });
        }
        if target.len() != nt {
            return Err(IkError::LengthMismatch { expected: nt, got: target.len() });
        }
        if !source.iter().all(Xform::is_finite) {
            return Err(IkError::NonFiniteInput);
        }
        let RetargetScratch { source_model, locals, model, desired } = scratch;
        source_model.resize(ns, Xform::IDENTITY);
        forward_kinematics(&self.source_parents, source, &Xform::IDENTITY, source_model)?;

        // 1–2. Rotations, and the pelvis following the source's, scaled.
        let pelvis_at = self.carried(source_model, self.pelvis.map(|b| (b, Vec3::ZERO)), self.scale);
        self.pose_rotations(source_model, pelvis_at, desired, locals, model)?;

        // 3. Feet (and hands) where the source's were; the pelvis lowered first if a leg
        // cannot reach its goal.
        let goals = self.legs.map(|leg| self.foot_goal(source_model, model, &leg, at_least.max(0.0)));
        let mut drop = 0.0f32;
        if self.settings.feet {
            drop = at_least.max(0.0);
            for (leg, (goal, foot_turn)) in self.legs.iter().zip(goals) {
                let [h, k, a] = leg.target.map(|b| model[b].translation);
                // As far as the soft zone starts: the retargeted pose's own extension, or
                // (1 − soften) of the reach, whichever is longer.
                let reach = h.distance(k) + k.distance(a);
                let soft = (1.0 - self.settings.soften.clamp(0.0, 1.0)) * reach;
                let limit = h.distance(a).max(soft).min(0.9999 * reach);
                let ankle_goal = goal - foot_turn * (leg.target_at(model) - a);
                drop = drop.max(drop_to_reach(h - ankle_goal, self.target_up, limit));
            }
            if drop > 0.0 {
                let p = self.pelvis[1];
                let parent = self.target_parents[p].map_or(Xform::IDENTITY, |q| model[q]);
                locals[p].translation = parent.inverse_transform_point(pelvis_at - self.target_up * drop);
                forward_kinematics(&self.target_parents, locals, &Xform::IDENTITY, model)?;
                self.place_external_feet(locals, model)?;
            }
        }
        let mut frame = RetargetedFrame {
            feet_reached: [true; 2],
            leg_extension: [0.0; 2],
            hands_reached: [true; 2],
            pelvis_drop: drop,
        };
        let forward = self.target_forward.normalize_or(Vec3::Z);
        for (k, leg) in self.legs.iter().enumerate() {
            if self.settings.feet {
                let (goal, foot_turn) = goals[k];
                let tip = desired[leg.target[2]].map(|r| (foot_turn * r).normalize());
                let (reached, _) = self.solve_limb(leg, goal, tip, forward, self.settings.soften, locals, model)?;
                frame.feet_reached[k] = reached;
            }
            let [h, _, a] = leg.target;
            let [hip, knee, ankle] = leg.target.map(|b| model[b].translation);
            let reach = hip.distance(knee) + knee.distance(ankle);
            frame.leg_extension[k] = model[h].translation.distance(model[a].translation) / reach;
        }
        if self.settings.hands {
            let [source_chest, target_chest] = self.chest;
            let chest = model[target_chest].translation;
            for (k, arm) in self.arms.iter().enumerate() {
                let Some(arm) = arm else { continue };
                let moved = source_model[arm.source_point.0].translation - source_model[source_chest].translation;
                let goal = chest + self.turn * (moved * self.arm_scale);
                let tip = desired[arm.target[2]];
                let (reached, _) = self.solve_limb(arm, goal, tip, -forward, 0.0, locals, model)?;
                frame.hands_reached[k] = reached;
            }
        }
        if !locals.iter().all(Xform::is_finite) {
            return Err(IkError::NonFiniteInput);
        }
        target.copy_from_slice(locals);
        Ok(frame)
    }
}
