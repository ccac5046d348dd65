//! The [`place_feet`] system: per character, gather pelvis and legs fresh from this frame's
//! locals, run [`ik_core::foot_placement`], then [`ik_core::foot_lock`] + [`ik_core::leg`]
//! for locked toes, and write the changed locals back.
//!
//! A leg whose foot bone does not hang below its shin (an IK-control rig: the foot under the
//! character root or a control bone) is an *external foot*: ik_core moves the foot with the
//! shin's end and changes its local translation too ([`FootReport::ankle_translated`]); the
//! bone set holds the foot's own parent chain (every ancestor of a key below the root), and
//! the crate's one write-back (`GatheredBones::write_back`) writes translations and rotations of
//! every changed local.

use bevy::ecs::query::QueryItem;
use bevy::prelude::*;
use ik_core::foot_placement::{
    FootPlacement, FootPlacementSettings, FootPlacementState, FootReport, FootRig, SwingFloor, knee_bend_direction,
};
use ik_core::footstep::RootVelocity;
use ik_core::leg::LegChain;
use ik_core::sole::SolePoint;
use ik_core::{IkError, Xform};

use crate::IkSettings;
use crate::body_fit::{BodyFit, BodyFitState, fit_body};
use crate::bones::{BoneSet, Hierarchy, restore_after_fault};
use crate::fade::{IkFade, effective_weight};
use crate::fault::{FaultSender, IkComponent, IkFault};
use crate::feet::{FeetScratch, FootContacts, FootLock, FootPlacer, FootPlacerState, FootStatus};
use crate::feet_lock::{self, LockMemory, lock_toes};
use crate::footstep::{self, FootstepPrediction, FootstepPredictionState};
use crate::ground::{GroundProbe, GroundRays};
use crate::lod::{IkLevel, IkLodState};
use crate::warping::{PoseWarping, PoseWarpingState, WarpGround, warp_pose};
use crate::write_back::GatheredBones;
use ik_core::warping::MAX_LEGS;

/// The same, borrowed for one character's solve.
type WarpingRef<'a> = Option<(&'a PoseWarping, &'a mut PoseWarpingState)>;

/// What [`place_feet`] reads of each character: its feet's components, its fade and level of
/// detail, its state, and the stages before placement (pose warping, body fitting).
type Placer = (
    Entity,
    (
        &'static FootPlacer,
        Option<&'static FootLock>,
        Option<&'static FootContacts>,
        Option<(&'static FootstepPrediction, &'static mut FootstepPredictionState)>,
    ),
    (Option<&'static IkFade>, Option<&'static IkLodState>),
    &'static mut FootPlacerState,
    (
        Option<(&'static PoseWarping, &'static mut PoseWarpingState)>,
        Option<(&'static BodyFit, &'static mut BodyFitState)>,
    ),
);

/// Places the feet of every [`FootPlacer`] (in parallel when [`IkSettings::parallel`]).
pub fn place_feet(
    settings: Res<IkSettings>,
    time: Res<Time>,
    ground: GroundRays,
    mut placers: Query<Placer>,
    mut transforms: ParamSet<(Hierarchy, Query<&mut Transform>)>,
    mut faults: FaultSender,
) {
    if !settings.enabled {
        return;
    }
    let dt = time.delta_secs();
    let probe = ground.probe();
    {
        let hierarchy = transforms.p0();
        let notices = faults.notices();
        let solve = |(
            root,
            (placer, lock, contacts, mut prediction),
            (fade, lod),
            mut state,
            (mut warping, mut fit),
        ): QueryItem<Placer>| {
            let state = &mut *state;
            state.inner.dirty = false;
            // Level of detail: nothing at `Off` once faded; last frame's corrections replayed on
            // a frame the budget skips.
            match lod {
                Some(lod) if lod.placement_weight() <= 0.0 => return,
                Some(lod) if !lod.update_now => {
                    let replayed = state.inner.bones.as_mut().map(|b| b.replay(&hierarchy));
                    state.inner.dirty = matches!(replayed, Some(Ok(())));
                    return;
                }
                _ => {}
            }
            let borrowed = warping.as_mut().map(|(w, s)| (*w, &mut **s));
            let prediction = prediction.as_mut().map(|(p, s)| (*p, &mut **s));
            let body_fit = fit.as_mut().map(|(f, s)| (*f, &mut **s));
            let components = Components { placer, lock, contacts, prediction, fade, lod, warping: borrowed, body_fit };
            let dt = lod.map_or(dt, |lod| lod.time_step(dt));
            let outcome = solve_character(root, components, state, &hierarchy, &probe, dt);
            if outcome.is_err() {
                state.inner.dirty = restore_after_fault(state.inner.bones.as_mut(), &outcome);
            }
            if state.inner.faults.report(root, IkComponent::FootPlacer, outcome.err(), notices) {
                state.warnings += 1;
            }
            if let Some((_, warp)) = warping.as_mut() {
                let fault = warp.outcome.take();
                if warp.faults.report(root, IkComponent::PoseWarping, fault, notices) {
                    warp.warnings += 1;
                }
            }
        };
        if settings.parallel {
            placers.par_iter_mut().batching_strategy(crate::batching()).for_each(solve);
        } else {
            placers.iter_mut().for_each(solve);
        }
    }
    faults.send();
    let mut writer = transforms.p1();
    for (_, _, _, mut state, _) in &mut placers {
        let state = state.bypass_change_detection();
        if let (true, Some(bones)) = (state.inner.dirty, &mut state.inner.bones) {
            bones.write_back(&mut writer);
        }
    }
}

/// The bones a placer needs, pelvis first, then hip, knee, ankle (and toe) per leg, then the
/// spine joints of its [`PoseWarping`], if any.
fn placer_keys<'a>(placer: &'a FootPlacer, warping: Option<&'a PoseWarping>) -> impl Iterator<Item = Entity> + 'a {
    core::iter::once(placer.pelvis)
        .chain(placer.legs.iter().flat_map(|leg| [leg.hip, leg.knee, leg.ankle].into_iter().chain(leg.toe)))
        .chain(warping.into_iter().flat_map(|w| w.spine.iter().map(|j| j.bone)))
}

/// Keys before the spine joints' in [`placer_keys`].
fn leg_keys(placer: &FootPlacer) -> usize {
    1 + placer.legs.iter().map(|leg| 3 + usize::from(leg.toe.is_some())).sum::<usize>()
}

/// (Re)builds the bone set and per-leg memory when the placer's bones changed.
fn ensure_built(
    root: Entity,
    placer: &FootPlacer,
    warping: Option<&PoseWarping>,
    s: &mut FeetScratch,
    hierarchy: &Hierarchy,
) -> Result<(), IkFault> {
    if s.bones.is_some() && s.built_for.iter().copied().eq(placer_keys(placer, warping)) {
        return Ok(());
    }
    s.bones = None;
    let keys: Vec<Entity> = placer_keys(placer, warping).collect();
    let bones = BoneSet::build(&keys, Some(root), hierarchy).map_err(IkFault::MissingBone)?;
    let legs = placer.legs.len();
    s.rigs.clear();
    s.chains = leg_chains(placer, &bones);
    s.animated_toes = vec![None; legs];
    s.placement = FootPlacementState::new(legs);
    s.reports = vec![FootReport::default(); legs];
    s.locks = vec![None; legs];
    s.surfaces = vec![None; legs];
    s.bones = Some(bones);
    s.built_for = keys;
    Ok(())
}

/// The leg chains as indices into the bone set.
fn leg_chains(placer: &FootPlacer, bones: &BoneSet) -> Vec<LegChain> {
    let mut next = 1;
    placer
        .legs
        .iter()
        .map(|leg| {
            let k = |i: usize| bones.keys[next + i];
            let chain = LegChain { hip: k(0), knee: k(1), ankle: k(2), toe: leg.toe.map(|_| k(3)), toe_end: None };
            next += 3 + usize::from(leg.toe.is_some());
            chain
        })
        .collect()
}

/// One character's components.
struct Components<'a> {
    placer: &'a FootPlacer,
    lock: Option<&'a FootLock>,
    contacts: Option<&'a FootContacts>,
    prediction: Prediction<'a>,
    fade: Option<&'a IkFade>,
    lod: Option<&'a IkLodState>,
    warping: WarpingRef<'a>,
    body_fit: Option<(&'a BodyFit, &'a mut BodyFitState)>,
}

/// A [`FootstepPrediction`] with its state, borrowed for one character's solve.
type Prediction<'a> = Option<(&'a FootstepPrediction, &'a mut FootstepPredictionState)>;

/// One character's feet, in stages over one gathered pose: gather, measure the root, warp, fit
/// the body, predict footsteps, lock, place, report. Each stage hands the next its per-leg shifts and
/// floors through the placer's scratch.
fn solve_character(
    root: Entity,
    Components { placer, lock, contacts, prediction, fade, lod, warping, body_fit }: Components,
    state: &mut FootPlacerState,
    hierarchy: &Hierarchy,
    probe: &GroundProbe,
    dt: f32,
) -> Result<(), IkFault> {
    let manual = contacts.and_then(FootContacts::manual);
    if let Some(flags) = manual.filter(|f| f.len() != placer.legs.len()) {
        return Err(IkFault::Input(format!(
            "FootContacts has {} contact flags for {} legs: write one per leg, in FootPlacer::legs order",
            flags.len(),
            placer.legs.len()
        )));
    }
    ensure_built(root, placer, warping.as_ref().map(|(w, _)| *w), &mut state.inner, hierarchy)?;
    let ground_normal = warping.as_ref().map_or(Vec3::Y, |(w, _)| ground_under_feet(&state.feet, w.settings.max_slope));
    gather(placer, &mut state.inner, hierarchy)?;
    let s = &mut state.inner;
    let Some(bones) = s.bones.as_mut() else { return Err(IkFault::MissingBone("feet".into())) };
    s.motion.update(bones.stop_world, dt);
    // The animated floor under each foot: raised where slope warping tilted the stride.
    let mut floors = warping.and_then(|(w, ws)| warp(w, ws, placer, bones, &s.chains, (ground_normal, s.motion), dt));
    let weight = effective_weight(placer.weight, fade) * lod.map_or(1.0, IkLodState::placement_weight);
    // The body fitted to the ground carries the animated floor under each foot with it.
    if let Some(fit) = body_fit {
        fit_body(fit, weight, bones, (&s.rigs, &state.feet), floors.get_or_insert([0.0; MAX_LEGS]), dt)?;
    }
    let floor_heights: &[f32] = floors.as_ref().map_or(&[], |f| &f[..s.chains.len()]);
    for (toe, rig) in s.animated_toes.iter_mut().zip(s.rigs.iter()) {
        *toe = rig.ball(&bones.model);
    }
    state.feet.resize(s.chains.len(), FootStatus::default());
    let legs = s.chains.len();
    let reset = |v: &mut Vec<Vec3>| {
        v.clear();
        v.resize(legs, Vec3::ZERO);
    };
    reset(&mut s.shifts);
    reset(&mut s.steer);
    s.swing_floors.clear();
    s.swing_floors.resize(legs, SwingFloor::default());
    // A level of detail fades the prediction and the lock out (and stops them once faded).
    let (level, lock_weight, prediction_weight) =
        lod.map_or((IkLevel::Full, 1.0, 1.0), |l| (l.level, l.lock_weight(), l.prediction_weight()));
    let prediction = prediction.filter(|_| prediction_weight > 0.0);
    let lock = lock.filter(|_| lock_weight > 0.0);
    let predicting = prediction.is_some();
    if let Some((prediction, memory)) = prediction {
        let prediction = (prediction, memory, prediction_weight);
        predict(prediction, (placer, lock.is_some(), manual), s, floor_heights, &mut state.feet, (probe, root), dt);
    }
    match lock {
        Some(lock) => {
            let to_world = s.bones.as_ref().map_or(Xform::IDENTITY, |b| b.stop_world);
            let _ = feet_lock::warn_tilted_root(root, to_world, &mut s.tilt_warned);
            lock_feet((lock, contacts), s, (&mut state.feet, floor_heights), hierarchy, dt)?;
            for (shift, steer) in s.shifts.iter_mut().zip(&s.steer).filter(|_| lock_weight < 1.0) {
                *shift = *steer + (*shift - *steer) * lock_weight;
            }
        }
        // A lock taken off forgets its holds: put back later, it starts from the feet as they
        // are then, not from where they were planted when it was removed.
        None => {
            s.locks.iter_mut().for_each(|l| *l = None);
            s.surfaces.iter_mut().for_each(|s| *s = None);
        }
    }
    let settings = level.placement_settings(placer.settings);
    let pelvis_offset = place(s, (floor_heights, predicting), (probe, root), (settings, weight), dt)?;
    report_feet(placer, s, &mut state.feet, (lock.is_some(), manual));
    if lock.is_some() {
        let bones = s.bones.as_ref().expect("gathered");
        let up = (bones.stop_world.rotation * Vec3::Y).normalize_or(Vec3::Y);
        let scale = bones.stop_world.scale.y.abs();
        let ray = (up, placer.settings.ray_start_height * scale, placer.settings.ray_length * scale);
        feet_lock::find_surfaces(&mut s.surfaces, &state.feet, (probe, root), ray, hierarchy);
    }
    if !s.bones.as_ref().is_some_and(BoneSet::changes_are_finite) {
        return Err(IkFault::NonFiniteResult);
    }
    state.pelvis_offset = pelvis_offset;
    s.dirty = true;
    Ok(())
}

/// Gathers this frame's locals into the bone set and builds the legs' rigs once.
fn gather(placer: &FootPlacer, s: &mut FeetScratch, hierarchy: &Hierarchy) -> Result<(), IkFault> {
    let Some(bones) = s.bones.as_mut() else { return Err(IkFault::MissingBone("feet".into())) };
    if let Err(e) = bones.refresh(hierarchy) {
        s.bones = None;
        return Err(IkFault::MissingBone(e));
    }
    if s.rigs.len() != s.chains.len() {
        s.rigs = foot_rigs(placer, &s.chains, &bones.model)?;
    }
    Ok(())
}

/// Each leg's rig: from its [`crate::feet::LegRest`] when given, else from the pose (the foot
/// taken as flat) with its sole estimated.
fn foot_rigs(placer: &FootPlacer, chains: &[LegChain], model: &[Xform]) -> Result<Vec<FootRig>, IkFault> {
    let rig = |(leg, chain): (&crate::feet::LegBones, &LegChain)| match leg.rest {
        Some(rest) => Some(FootRig {
            leg: *chain,
            ankle_height: rest.ankle_height,
            toe_height: rest.toe_height,
            foot_up: rest.foot_up,
            toe_up: rest.toe_up,
            heel: rest.heel.map(|local| SolePoint { bone: chain.ankle, local, rest_height: 0.0 }),
            tip: rest.toe_tip.map(|local| SolePoint {
                bone: chain.toe.unwrap_or(chain.ankle),
                local,
                rest_height: 0.0,
            }),
            knee_forward: knee_bend_direction(model, chain),
        }),
        None => FootRig::from_flat_pose(model, *chain).map(|r| r.with_estimated_sole(model)),
    };
    placer
        .legs
        .iter()
        .zip(chains)
        .map(rig)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| IkFault::MissingBone("leg bones".into()))
}

/// The warping stage: the animated floor under each leg, or `None` when it failed (reported on
/// its own after this solve; the feet are still placed, on the pose as animated).
fn warp(
    warping: &PoseWarping,
    warp_state: &mut PoseWarpingState,
    placer: &FootPlacer,
    bones: &mut BoneSet,
    chains: &[LegChain],
    (normal, motion): (Vec3, RootVelocity),
    dt: f32,
) -> Option<[f32; MAX_LEGS]> {
    let ground = WarpGround { normal, spine_keys: leg_keys(placer), measured: motion.measured };
    match warp_pose(warping, warp_state, bones, chains, ground, dt) {
        Ok(heights) => {
            warp_state.outcome = None;
            Some(heights)
        }
        Err(fault) => {
            warp_state.outcome = Some(fault);
            bones.locals.copy_from_slice(&bones.read);
            bones.update_model();
            None
        }
    }
}

/// The prediction stage: [`footstep::predict_steps`], its landing shifts and swing floors
/// handed to the lock (or, without one, the placement) and the placement, scaled by `weight`
/// (a level of detail fading the prediction in or out). `manual`: this frame's contact flags,
/// when written by hand ([`FootContacts`]).
fn predict(
    (prediction, memory, weight): (&FootstepPrediction, &mut FootstepPredictionState, f32),
    (placer, locked, manual): (&FootPlacer, bool, Option<&[bool]>),
    s: &mut FeetScratch,
    floor_heights: &[f32],
    feet: &mut [FootStatus],
    (probe, root): (&GroundProbe, Entity),
    dt: f32,
) {
    let Some(bones) = s.bones.as_ref() else { return };
    let to_world = bones.stop_world;
    let scale = to_world.scale.y.abs();
    let ray = (placer.settings.ray_start_height * scale, placer.settings.ray_length * scale);
    // Labels written for this frame are known now; the heuristic's only once the lock runs.
    let legs = footstep::Legs {
        toes: &s.animated_toes,
        rigs: &s.rigs,
        model: &bones.model,
        planted_now: manual,
        floor_heights,
    };
    let settings = (&prediction.settings, &mut *memory);
    footstep::predict_steps(settings, (to_world, &s.motion), legs, feet, (probe, root, ray), dt);
    for (i, out) in memory.outputs.iter().enumerate() {
        let floor = SwingFloor { weight: out.floor.weight * weight, ..out.floor };
        (s.steer[i], s.swing_floors[i]) = (out.steer * weight, floor);
    }
    if !locked {
        s.shifts.copy_from_slice(&s.steer);
    }
}

/// The locking stage: a held toe rides the surface it stands on (if that moved since last
/// frame), then each lock turns into its foot's shift.
fn lock_feet(
    lock: (&FootLock, Option<&FootContacts>),
    s: &mut FeetScratch,
    (feet, floors): (&mut [FootStatus], &[f32]),
    hierarchy: &Hierarchy,
    dt: f32,
) -> Result<(), IkFault> {
    feet_lock::carry_locks(&mut s.locks, &mut s.surfaces, feet, hierarchy);
    let to_world = s.bones.as_ref().map_or(Xform::IDENTITY, |b| b.stop_world);
    let model = s.bones.as_ref().map_or(&[][..], |b| &b.model[..]);
    let memory = LockMemory { locks: &mut s.locks, rigs: &s.rigs, steer: &s.steer, model, floors };
    lock_toes(lock, &s.animated_toes, to_world, memory, feet, &mut s.shifts, dt)
}

/// The placement stage: [`FootPlacement`] on the gathered pose (the swing floors with a
/// prediction) with the level of detail's settings; returns the pelvis offset.
fn place(
    s: &mut FeetScratch,
    (floor_heights, predicting): (&[f32], bool),
    (probe, root): (&GroundProbe, Entity),
    (settings, weight): (FootPlacementSettings, f32),
    dt: f32,
) -> Result<f32, IkFault> {
    let Some(bones) = s.bones.as_mut() else { return Err(IkFault::MissingBone("feet".into())) };
    let job = FootPlacement {
        parents: &bones.parents,
        pelvis: bones.keys[0],
        feet: &s.rigs,
        model_to_world: bones.stop_world,
        foot_shifts: &s.shifts,
        floor_heights,
        swing_floors: if predicting { &s.swing_floors } else { &[] },
        travel: s.motion.travel_in_model(bones.stop_world),
        settings,
        weight,
    };
    let cast = |o, d, m| probe.cast(o, d, m, root);
    job.run(&mut bones.locals, &mut bones.model, cast, dt, &mut s.placement, &mut s.reports).map_err(|e| match e {
        // Name the bone and the role it plays.
        IkError::BrokenHierarchy { bone } => match (job.bone_role(bone), bones.entities.get(bone)) {
            (Some(role), Some(entity)) => IkFault::MissingBone(format!(
                "the {role} bone {entity} does not hang where the leg needs it (knee below hip, toe below ankle; a \
                 foot outside its shin must not be above its hip or knee)"
            )),
            _ => IkFault::Solver(e),
        },
        e => IkFault::Solver(e),
    })
}

/// The report stage: each foot's status (world) from the placement's reports; a foot's
/// contact is the lock's, else the flags written by hand, else the clip's height.
fn report_feet(
    placer: &FootPlacer,
    s: &FeetScratch,
    feet: &mut [FootStatus],
    (locked, manual): (bool, Option<&[bool]>),
) {
    let Some(bones) = s.bones.as_ref() else { return };
    let to_world = bones.stop_world;
    for (i, (chain, report)) in s.chains.iter().zip(&s.reports).enumerate() {
        let status = &mut feet[i];
        status.hit = report.hit;
        status.ground_point = to_world.transform_point(report.ground_point);
        status.ground_normal = (to_world.rotation * report.ground_normal).normalize_or(Vec3::Y);
        status.planted = report.planted;
        status.offset = report.offset;
        status.float_before = report.float_before;
        status.float_after = report.float_after;
        status.heel_lift = report.heel_lift;
        status.ray_start = to_world.transform_point(
            bones.model[chain.ankle].translation + Vec3::Y * (placer.settings.ray_start_height - report.offset),
        );
        if !locked {
            status.locked = false;
            // The clip's own judgement: a foot a swing floor carries (a planted weight the
            // prediction took away) must not read as swinging to the prediction next frame.
            status.contact = manual.map_or(report.clip_planted > 0.5, |flags| flags[i]);
        }
        let ball = s.rigs[i].ball(&bones.model).unwrap_or(bones.model[chain.ankle].translation);
        status.toe_world = to_world.transform_point(ball);
    }
}

/// The ground's normal under the feet last frame (world), for slope warping: the feet's hits
/// averaged, a planted foot's counting most; a hit steeper than `max_slope` (a riser or a wall
/// under a toe) is not a slope and is left out. `+Y` without any.
fn ground_under_feet(feet: &[FootStatus], max_slope: f32) -> Vec3 {
    let walkable = max_slope.clamp(0.0, 89f32.to_radians()).cos() - 1e-4;
    let sum: Vec3 = feet
        .iter()
        .filter(|f| f.hit && f.ground_normal.is_finite() && f.ground_normal.y >= walkable)
        .map(|f| f.ground_normal * (0.25 + f.planted.clamp(0.0, 1.0)))
        .sum();
    sum.normalize_or(Vec3::Y)
}

#[cfg(test)]
mod tests;
