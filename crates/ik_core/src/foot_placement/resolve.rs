//! Step 4 of placing a foot: its leg re-solved to the ankle target with two-bone IK (on a slope,
//! a target nearer the hip than the leg folds met at its height), the foot tilted to the ground
//! (pitched by any heel lift, the toes turned back), its float reported.

use glam::{Quat, Vec3};

use super::{FootPlacement, FootReport, FootRig, FootState, KneePole, external};
use crate::leg::{refresh_model, soft_zone_start, unstraighten};
use crate::sole::sole_float;
use crate::{TwoBoneJob, Xform};

impl FootPlacement<'_> {
    /// Re-solves one leg (the pelvis already placed, `pelvis_offset` applied) and orients its
    /// foot; fills the report's `reached`, `ankle_translated` and `float_after`.
    pub(super) fn resolve_leg(
        &self,
        foot: &FootRig,
        st: &FootState,
        report: &mut FootReport,
        locals: &mut [Xform],
        model: &mut [Xform],
        pelvis_offset: f32,
    ) {
        let s = &self.settings;
        let soften = s.soften.clamp(0.0, 1.0);
        let leg = foot.leg;
        let normal = st.normal.value.normalize_or(Vec3::Y);
        let needs_leg = pelvis_offset != 0.0 || st.offset.value != 0.0 || st.lift != Quat::IDENTITY;
        let needs_tilt = normal != Vec3::Y;
        report.ankle_translated = false;
        // An external foot rides at the shin's end while the leg is solved (the pelvis
        // drop has moved the knee already).
        let attach = |model: &mut [Xform]| {
            if let Some(at) = st.ankle_in_knee {
                external::attach(model, &leg, at);
            }
        };
        if needs_leg {
            attach(model);
        }
        let [hip, knee, ankle] = [leg.hip, leg.knee, leg.ankle].map(|b| model[b].translation);
        let (thigh, shin) = (hip.distance(knee), knee.distance(ankle));
        let reach = thigh + shin;
        let soft_start = soft_zone_start(model, &leg, soften);
        let knee_toward = match s.knee_pole {
            KneePole::Forward(dir) => dir.try_normalize(),
            KneePole::RestBend => foot.knee_forward.try_normalize(),
            KneePole::CurrentPlane => None,
        };
        let pole = knee_toward.map(|d| hip + d * reach);
        if needs_leg {
            // A straight leg has no bend plane: pre-bend it toward the pole (or the rest
            // bend, for a leg keeping its current plane).
            let forward = knee_toward.unwrap_or(foot.knee_forward);
            let down = ankle - hip;
            unstraighten(
                self.parents,
                locals,
                model,
                [leg.hip, leg.knee, leg.ankle],
                forward.cross(down).try_normalize(),
            );
            attach(model);
            // Over the ground's slope (the normal placement reported), not the foot's tilt,
            // which a foot in the air does not take. Unstraightening turns the leg about its
            // hip: the hip and the bone lengths stay.
            let target = within_fold(hip, report.ankle_target, (thigh - shin).abs(), report.ground_normal);
            if let Some(mut job) = TwoBoneJob::from_model(model, [leg.hip, leg.knee, leg.ankle], target, pole) {
                // Soften only past the animated extension (or past the configured soft
                // zone, whichever is longer), so an animated leg is never pulled short.
                job.soften = if reach > 0.0 { ((reach - soft_start) / reach).clamp(0.0, 1.0) } else { 0.0 };
                if let Ok(solution) = job.run() {
                    let (head, tail) = locals.split_at_mut(leg.knee);
                    solution.apply(&mut head[leg.hip], &mut tail[0]);
                    refresh_model(self.parents, locals, model, leg.hip);
                    attach(model);
                    report.reached = solution.reached;
                }
            }
        } else {
            report.reached = true;
        }
        if needs_leg || needs_tilt {
            // The foot keeps its animated model orientation, turned by the ground's tilt
            // and pitched by the heel lift.
            let wanted = (st.lift * Quat::from_rotation_arc(Vec3::Y, normal) * st.animated_rotation).normalize();
            if st.ankle_in_knee.is_some() && needs_leg {
                // Moved with the shin: translation and rotation through the foot's parent.
                report.ankle_translated = external::place(self.parents, locals, model, leg.ankle, wanted);
            } else {
                let parent_rotation = self.parents[leg.ankle].map_or(Quat::IDENTITY, |p| model[p].rotation);
                let local = (parent_rotation.inverse() * wanted).normalize();
                if local.is_finite() {
                    locals[leg.ankle].rotation = local;
                    refresh_model(self.parents, locals, model, leg.ankle);
                }
            }
        }
        // A lifted heel pitches the foot about its toe joint: the toes keep their
        // orientation (and so stay where they were).
        if let Some(toe) = leg.toe.filter(|&t| st.lift != Quat::IDENTITY && self.parents[t] == Some(leg.ankle)) {
            let foot = model[leg.ankle].rotation;
            let local = (foot.inverse() * st.lift.inverse() * foot * locals[toe].rotation).normalize();
            if local.is_finite() {
                locals[toe].rotation = local;
                refresh_model(self.parents, locals, model, toe);
            }
        }
        report.float_after = sole_float(&foot.sole_points(model), &st.probes);
    }
}

/// Where a leg folded as far as it can (its ankle `fold` from its hip: the difference of its
/// thigh and shin) meets `target` over a slope (`normal` leaning): a target nearer the hip than
/// that is pushed out level, at its own height, downhill, not straight away from the hip, which
/// would put a foot lifted near its hip (a short leg's trailing foot on a ramp) below its
/// ground. Over level ground the target is left to the solver: a level push has no side to
/// choose there that stays put while the foot passes under the hip.
fn within_fold(hip: Vec3, target: Vec3, fold: f32, normal: Vec3) -> Vec3 {
    let downhill = Vec3::new(normal.x, 0.0, normal.z);
    // False for a non-finite distance, which leaves the target alone; `|rise| < fold` follows.
    let nearer = hip.distance(target) < fold;
    if !nearer || downhill.length() <= 0.05 {
        return target;
    }
    let rise = target.y - hip.y;
    let out = (fold * fold - rise * rise).sqrt();
    Vec3::new(hip.x, target.y, hip.z) + downhill.normalize() * out
}
