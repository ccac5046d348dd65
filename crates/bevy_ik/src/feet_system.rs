//! The [`place_feet`] system: per character, gather pelvis and legs fresh from this frame's
//! locals, run [`ik_core::foot_placement`], then [`ik_core::foot_lock`] + [`ik_core::leg`]
//! for locked toes, and write the changed locals back.
//!
//! A leg whose foot bone does not hang below its shin (an IK-control rig: the foot under the
//! character root or a control bone) is an *external foot*: ik_core moves the foot with the
//! shin's end and changes its local translation too ([`FootReport::ankle_translated`]); the
//! bone set holds the foot's own parent chain (every ancestor of a key below the root), and
//! `BoneSet::write_back` writes translations and rotations of every changed local.

use bevy::prelude::*;
use ik_core::IkError;
use ik_core::foot_placement::{
    FootPlacement, FootPlacementState, FootReport, FootRig, SwingFloor, knee_bend_direction,
};
use ik_core::leg::LegChain;
use ik_core::sole::SolePoint;

use crate::IkSettings;
use crate::bones::{BoneSet, GatheredBones, Hierarchy, restore_after_fault};
use crate::fade::{IkFade, effective_weight};
use crate::fault::{FaultSender, IkComponent, IkFault};
use crate::feet::{ContactSource, FeetScratch, FootLock, FootPlacer, FootPlacerState, FootStatus};
use crate::feet_lock::{self, LockMemory, lock_toes};
use crate::footstep::{self, FootstepPrediction};
use crate::ground::{GroundProbe, GroundRays};
use crate::warping::{PoseWarping, PoseWarpingState, WarpGround, warp_pose};
use ik_core::warping::MAX_LEGS;

/// A [`PoseWarping`] with its state, when the placer's root has one.
type Warping<'a> = Option<(&'a PoseWarping, Mut<'a, PoseWarpingState>)>;
/// The same, borrowed for one character's solve.
type WarpingRef<'a> = Option<(&'a PoseWarping, &'a mut PoseWarpingState)>;

/// Places the feet of every [`FootPlacer`] (in parallel when [`IkSettings::parallel`]).
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub fn place_feet(
    settings: Res<IkSettings>,
    time: Res<Time>,
    ground: GroundRays,
    mut placers: Query<(
        Entity,
        (&FootPlacer, Option<&FootLock>, Option<&FootstepPrediction>),
        Option<&IkFade>,
        &mut FootPlacerState,
        Option<(&PoseWarping, &mut PoseWarpingState)>,
    )>,
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
        let solve = |(root, (placer, lock, prediction), fade, mut state, mut warping): (
            Entity,
            (&FootPlacer, Option<&FootLock>, Option<&FootstepPrediction>),
            Option<&IkFade>,
            Mut<FootPlacerState>,
            Warping,
        )| {
            let state = &mut *state;
            state.inner.dirty = false;
            let borrowed = warping.as_mut().map(|(w, s)| (*w, &mut **s));
            let components = Components { placer, lock, prediction, fade, warping: borrowed };
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
    prediction: Option<&'a FootstepPrediction>,
    fade: Option<&'a IkFade>,
    warping: WarpingRef<'a>,
}

fn solve_character(
    root: Entity,
    Components { placer, lock, prediction, fade, warping }: Components,
    state: &mut FootPlacerState,
    hierarchy: &Hierarchy,
    probe: &GroundProbe,
    dt: f32,
) -> Result<(), IkFault> {
    ensure_built(root, placer, warping.as_ref().map(|(w, _)| *w), &mut state.inner, hierarchy)?;
    let ground_normal = warping.as_ref().map_or(Vec3::Y, |(w, _)| ground_under_feet(&state.feet, w.settings.max_slope));
    let FeetScratch {
        bones: bone_set,
        rigs,
        chains,
        animated_toes,
        placement,
        reports,
        locks,
        shifts,
        surfaces,
        motion,
        steps,
        steer,
        swing_floors,
        dirty,
        ..
    } = &mut state.inner;
    let Some(bones) = bone_set.as_mut() else { return Err(IkFault::MissingBone("feet".into())) };
    if let Err(e) = bones.refresh(hierarchy) {
        *bone_set = None;
        return Err(IkFault::MissingBone(e));
    }
    if rigs.len() != chains.len() {
        *rigs = placer
            .legs
            .iter()
            .zip(chains.iter())
            .map(|(leg, chain)| match leg.rest {
                Some(rest) => Some(FootRig {
                    leg: *chain,
                    ankle_height: rest.ankle_height,
                    toe_height: rest.toe_height,
                    foot_up: rest.foot_up,
                    heel: rest.heel.map(|local| SolePoint { bone: chain.ankle, local, rest_height: 0.0 }),
                    tip: rest.toe_tip.map(|local| SolePoint {
                        bone: chain.toe.unwrap_or(chain.ankle),
                        local,
                        rest_height: 0.0,
                    }),
                    knee_forward: knee_bend_direction(&bones.model, chain),
                }),
                None => FootRig::from_flat_pose(&bones.model, *chain).map(|r| r.with_estimated_sole(&bones.model)),
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| IkFault::MissingBone("leg bones".into()))?;
    }
    // The animated floor under each foot: raised where slope warping tilted the stride.
    let mut floors = [0.0; MAX_LEGS];
    let mut warped = false;
    if let Some((warping, warp_state)) = warping {
        // A warp that fails is reported on its own (after this solve); the feet are still
        // placed, on the pose as animated.
        let ground = WarpGround { normal: ground_normal, spine_keys: leg_keys(placer) };
        match warp_pose(warping, warp_state, bones, chains, ground, dt) {
            Ok(heights) => (floors, warped, warp_state.outcome) = (heights, true, None),
            Err(fault) => {
                warp_state.outcome = Some(fault);
                bones.locals.copy_from_slice(&bones.read);
                bones.update_model();
            }
        }
    }
    let floor_heights: &[f32] = if warped { &floors[..chains.len()] } else { &[] };
    let to_world = bones.stop_world;
    motion.update(to_world, dt);
    for (toe, rig) in animated_toes.iter_mut().zip(rigs.iter()) {
        *toe = rig.ball(&bones.model);
    }
    state.feet.resize(chains.len(), FootStatus::default());
    shifts.clear();
    shifts.resize(chains.len(), Vec3::ZERO);
    steer.clear();
    steer.resize(chains.len(), Vec3::ZERO);
    swing_floors.clear();
    swing_floors.resize(chains.len(), SwingFloor::default());
    if let Some(prediction) = prediction {
        let scale = to_world.scale.y.abs();
        let ray = (placer.settings.ray_start_height * scale, placer.settings.ray_length * scale);
        // Labels written for this frame are known now; the heuristic's only once the lock runs.
        let planted_now = match lock.map(|l| &l.contacts) {
            Some(ContactSource::Manual(flags)) => Some(&flags[..]),
            _ => None,
        };
        let legs = footstep::Legs { toes: animated_toes, rigs, model: &bones.model, planted_now, floor_heights };
        let out = (&mut steer[..], &mut swing_floors[..]);
        footstep::steer_swings(
            prediction,
            (&mut *steps, &*motion),
            legs,
            (to_world, dt),
            &mut state.feet,
            (probe, root, ray),
            out,
        );
        if lock.is_none() {
            shifts.copy_from_slice(steer);
        }
    }
    if lock.is_none() {
        // A lock taken off forgets its holds: put back later, it starts from the feet as they
        // are then, not from where they were planted when it was removed.
        locks.iter_mut().for_each(|l| *l = None);
        surfaces.iter_mut().for_each(|s| *s = None);
    }
    if let Some(lock) = lock {
        // A held toe rides the surface it stands on, if that moved since last frame.
        feet_lock::carry_locks(locks, surfaces, &state.feet, hierarchy);
        let memory = LockMemory { locks, rigs, steer };
        lock_toes(lock, animated_toes, to_world, memory, &mut state.feet, shifts, dt)?;
    }

    let job = FootPlacement {
        parents: &bones.parents,
        pelvis: bones.keys[0],
        feet: rigs,
        model_to_world: to_world,
        foot_shifts: shifts,
        floor_heights,
        swing_floors: if prediction.is_some() { swing_floors } else { &[] },
        travel: motion.travel_in_model(to_world),
        settings: placer.settings,
        weight: effective_weight(placer.weight, fade),
    };
    let pelvis_offset = job
        .run(&mut bones.locals, &mut bones.model, |o, d, m| probe.cast(o, d, m, root), dt, placement, reports)
        .map_err(|e| match e {
            // Name the bone and the role it plays.
            IkError::BrokenHierarchy { bone } => match (job.bone_role(bone), bones.entities.get(bone)) {
                (Some(role), Some(entity)) => IkFault::MissingBone(format!(
                    "the {role} bone {entity} does not hang where the leg needs it (knee below hip, toe below \
                     ankle; a foot outside its shin must not be above its hip or knee)"
                )),
                _ => IkFault::Solver(e),
            },
            e => IkFault::Solver(e),
        })?;

    for (i, (chain, report)) in chains.iter().zip(reports.iter()).enumerate() {
        let status = &mut state.feet[i];
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
        if lock.is_none() {
            status.locked = false;
            // The clip's own judgement: a foot a swing floor carries (a planted weight the
            // prediction took away) must not read as swinging to the prediction next frame.
            status.contact = report.clip_planted > 0.5;
        }
        let ball = rigs[i].ball(&bones.model).unwrap_or(bones.model[chain.ankle].translation);
        status.toe_world = to_world.transform_point(ball);
    }
    if lock.is_some() {
        let up = (to_world.rotation * Vec3::Y).normalize_or(Vec3::Y);
        let scale = to_world.scale.y.abs();
        let ray = (up, placer.settings.ray_start_height * scale, placer.settings.ray_length * scale);
        feet_lock::find_surfaces(surfaces, &state.feet, (probe, root), ray, hierarchy);
    }
    if !bones.changes_are_finite() {
        return Err(IkFault::NonFiniteResult);
    }
    state.pelvis_offset = pelvis_offset;
    *dirty = true;
    Ok(())
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
mod tests {
    use std::time::Duration;

    use bevy::time::TimeUpdateStrategy;

    use super::*;
    use crate::IkPlugin;
    use crate::feet::{ContactSource, LegBones};
    use crate::ground::{GroundPlane, IkGround};

    const THIGH: f32 = 0.44;
    const SHIN: f32 = 0.40;

    #[test]
    fn the_slope_under_the_feet_leaves_out_risers_and_weighs_the_planted_foot_most() {
        let ramp = Quat::from_rotation_x(-0.35) * Vec3::Y;
        let foot = |normal: Vec3, planted: f32| FootStatus { hit: true, ground_normal: normal, planted, ..default() };
        let max = 40f32.to_radians();
        // A planted foot on the ramp, a swinging one over a riser (a wall, not a slope).
        let got = ground_under_feet(&[foot(ramp, 1.0), foot(Vec3::NEG_Z, 0.0)], max);
        assert!(got.angle_between(ramp) < 1e-5, "{got}");
        // One on the ramp, one on flat ground: the planted foot's ground counts most.
        let got = ground_under_feet(&[foot(ramp, 1.0), foot(Vec3::Y, 0.0)], max);
        assert!(got.angle_between(ramp) < got.angle_between(Vec3::Y), "{got}");
        // Nothing hit: flat.
        assert_eq!(ground_under_feet(&[FootStatus::default(); 2], max), Vec3::Y);
    }
    const ANKLE_HEIGHT: f32 = 0.08;
    /// The plane the feet must land on, 15 cm above the animation's floor.
    const PLANE: f32 = 0.15;

    /// A hand-built IK-control rig: root → pelvis → hip → knee per leg, but each foot (with its
    /// toe) hangs from the root, not from the shin. The pelvis is crouched 4 cm and the knees
    /// bent forward so each shin's end (`(0, −SHIN, 0)` in the knee's frame) meets its foot.
    struct ControlRig {
        root: Entity,
        pelvis: Entity,
        legs: [LegBones; 2],
    }

    fn spawn_control_rig(world: &mut World, at: Vec3) -> ControlRig {
        let root = world.spawn(Transform::from_translation(at).with_rotation(Quat::from_rotation_y(0.3))).id();
        let pelvis = world.spawn((Transform::from_xyz(0.0, 0.94, 0.0), ChildOf(root))).id();
        let legs = [0.1f32, -0.1].map(|x| {
            let (hip_at, ankle_at) = (Vec3::new(x, 0.88, 0.0), Vec3::new(x, ANKLE_HEIGHT, 0.0));
            let d = hip_at.distance(ankle_at);
            let along = (THIGH * THIGH - SHIN * SHIN + d * d) / (2.0 * d);
            let knee_at = hip_at + Vec3::new(0.0, -along, (THIGH * THIGH - along * along).sqrt());
            let hip_rotation = Quat::from_rotation_arc(Vec3::NEG_Y, (knee_at - hip_at).normalize());
            let knee_rotation = Quat::from_rotation_arc(Vec3::NEG_Y, (ankle_at - knee_at).normalize());
            let hip =
                world.spawn((Transform::from_xyz(x, -0.06, 0.0).with_rotation(hip_rotation), ChildOf(pelvis))).id();
            let knee_local =
                Transform::from_xyz(0.0, -THIGH, 0.0).with_rotation(hip_rotation.inverse() * knee_rotation);
            let knee = world.spawn((knee_local, ChildOf(hip))).id();
            let ankle = world.spawn((Transform::from_translation(ankle_at), ChildOf(root))).id();
            let toe = world.spawn((Transform::from_xyz(0.0, -0.06, 0.14), ChildOf(ankle))).id();
            LegBones::new(hip, knee, ankle, Some(toe))
        });
        ControlRig { root, pelvis, legs }
    }

    fn app() -> App {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            TransformPlugin,
            IkPlugin { settings: IkSettings { enabled: true, parallel: false } },
        ));
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(1.0 / 60.0)));
        app.insert_resource(IkGround::Plane(GroundPlane { height: PLANE, ..default() }));
        app
    }

    fn global(app: &App, e: Entity) -> GlobalTransform {
        *app.world().get::<GlobalTransform>(e).unwrap()
    }

    /// Per leg: the ankle's height above the plane (world) and the shin end's distance from it.
    fn feet(app: &App, rig: &ControlRig) -> [(f32, f32); 2] {
        rig.legs.map(|leg| {
            let ankle = global(app, leg.ankle).translation();
            let shin_end = global(app, leg.knee).transform_point(Vec3::NEG_Y * SHIN);
            (ankle.y - ANKLE_HEIGHT - PLANE, shin_end.distance(ankle))
        })
    }

    #[test]
    fn feet_under_the_root_land_on_the_plane_with_the_shins_on_them() {
        let mut app = app();
        let rig = spawn_control_rig(app.world_mut(), Vec3::new(1.0, 0.0, 2.0));
        let placer = FootPlacer::new(rig.pelvis, rig.legs.to_vec());
        app.world_mut().entity_mut(rig.root).insert(placer);
        app.update();
        // Before IK the shins' ends are on the feet, 15 cm under the plane.
        for frame in 0..30 {
            app.update();
            let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
            assert_eq!(state.warnings, 0, "frame {frame}: {:?}", state.inner.faults.current());
            for (k, (height, shin_gap)) in feet(&app, &rig).into_iter().enumerate() {
                if frame == 29 {
                    println!(
                        "foot {k}: ankle {:.2} mm off the plane, shin end {:.3} mm off the foot",
                        height * 1e3,
                        shin_gap * 1e3
                    );
                }
                assert!(height.abs() < 0.01, "frame {frame} foot {k}: {height} m off the plane");
                assert!(shin_gap < 1e-3, "frame {frame} foot {k}: the shin's end is {shin_gap} m off the foot");
                assert!(state.feet[k].float_after.abs() < 0.01, "frame {frame} foot {k}: {:?}", state.feet[k]);
            }
            // The foot's local translation was written (it hangs from the root).
            let foot = app.world().get::<Transform>(rig.legs[0].ankle).unwrap();
            assert!((foot.translation.y - ANKLE_HEIGHT - PLANE).abs() < 0.01, "{foot:?}");
        }
    }

    #[test]
    fn a_locked_toe_on_an_external_foot_stays_put_while_the_root_walks_on() {
        let mut app = app();
        let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
        let lock = FootLock { contacts: ContactSource::Manual(vec![true, true]), ..default() };
        app.world_mut().entity_mut(rig.root).insert((FootPlacer::new(rig.pelvis, rig.legs.to_vec()), lock));
        app.update();
        let toe = |app: &App, k: usize| global(app, rig.legs[k].toe.unwrap()).translation();
        let held = [toe(&app, 0), toe(&app, 1)];
        let mut worst = 0.0f32;
        for frame in 1..=20 {
            // The character root slides 5 mm forward a frame; the animation (the static pose)
            // comes along with it, the locked toes must not.
            app.world_mut().get_mut::<Transform>(rig.root).unwrap().translation.z = 0.005 * frame as f32;
            app.update();
            let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
            assert_eq!(state.warnings, 0, "frame {frame}: {:?}", state.inner.faults.current());
            for (k, (height, shin_gap)) in feet(&app, &rig).into_iter().enumerate() {
                assert!(state.feet[k].locked, "frame {frame} foot {k}");
                let slip = Vec2::new(toe(&app, k).x - held[k].x, toe(&app, k).z - held[k].z).length();
                worst = worst.max(slip);
                assert!(slip < 0.005, "frame {frame} foot {k}: the locked toe slid {slip} m");
                assert!(height.abs() < 0.01 && shin_gap < 1e-3, "frame {frame} foot {k}: {height} {shin_gap}");
            }
        }
        println!("locked toes on external feet: worst slide {:.2} mm over 10 cm of root travel", worst * 1e3);
    }

    #[test]
    fn a_locked_toe_stays_locked_while_the_root_climbs_further_than_the_unlock_distance() {
        // Climbing stairs, the root rises 40 cm under a planted toe: more than the unlock
        // distance (30 cm), but all of it vertical. The lock holds horizontally only, so it must
        // not let go (it used to, and re-locked a few centimetres off: a slide).
        let mut app = app();
        let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
        let lock = FootLock { contacts: ContactSource::Manual(vec![true, true]), ..default() };
        app.world_mut().entity_mut(rig.root).insert((FootPlacer::new(rig.pelvis, rig.legs.to_vec()), lock));
        app.update();
        let toe = |app: &App, k: usize| global(app, rig.legs[k].toe.unwrap()).translation();
        let held = [toe(&app, 0), toe(&app, 1)];
        for frame in 1..=20 {
            let mut root = app.world_mut().get_mut::<Transform>(rig.root).unwrap();
            root.translation.y = 0.02 * frame as f32;
            root.translation.z = 0.002 * frame as f32;
            app.update();
            let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
            for (k, held) in held.iter().enumerate() {
                assert!(state.feet[k].locked, "frame {frame} foot {k}: the lock let go");
                let slip = Vec2::new(toe(&app, k).x - held.x, toe(&app, k).z - held.z).length();
                assert!(slip < 0.005, "frame {frame} foot {k}: the locked toe slid {slip} m");
            }
        }
    }

    #[test]
    fn pose_warping_on_feet_under_the_root_warns_once_and_the_feet_are_still_placed() {
        let mut app = app();
        let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
        let warping = crate::warping::PoseWarping {
            clip_speed: 1.4,
            velocity: crate::warping::WarpVelocity::World(Vec3::X),
            ..default()
        };
        app.world_mut().entity_mut(rig.root).insert((FootPlacer::new(rig.pelvis, rig.legs.to_vec()), warping));
        for frame in 0..5 {
            app.update();
            let warp = app.world().get::<crate::warping::PoseWarpingState>(rig.root).unwrap();
            assert_eq!(warp.warnings, 1, "frame {frame}: one warning, not one per frame");
            let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
            assert_eq!(state.warnings, 0, "frame {frame}: the placement itself is fine");
            for (k, (height, _)) in feet(&app, &rig).into_iter().enumerate() {
                assert!(height.abs() < 0.01, "frame {frame} foot {k}: {height} m off the plane");
            }
        }
    }

    #[test]
    fn a_foot_lock_put_back_holds_the_feet_where_they_are_then() {
        // Lock, take the lock off, move the character 40 cm, put the lock back: the toes must
        // be held where they are now, not pulled back toward where the first lock planted them.
        let mut app = app();
        let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
        let lock = FootLock { contacts: ContactSource::Manual(vec![true, true]), ..default() };
        app.world_mut().entity_mut(rig.root).insert((FootPlacer::new(rig.pelvis, rig.legs.to_vec()), lock.clone()));
        for _ in 0..5 {
            app.update();
        }
        app.world_mut().entity_mut(rig.root).remove::<FootLock>();
        app.update();
        app.world_mut().get_mut::<Transform>(rig.root).unwrap().translation.z = 0.4;
        app.update();
        app.world_mut().entity_mut(rig.root).insert(lock);
        let toe = |app: &App, k: usize| global(app, rig.legs[k].toe.unwrap()).translation();
        let free = [toe(&app, 0), toe(&app, 1)];
        let mut worst = 0.0f32;
        for _ in 0..10 {
            app.update();
            for (k, start) in free.iter().enumerate() {
                worst = worst.max(Vec2::new(toe(&app, k).x - start.x, toe(&app, k).z - start.z).length());
            }
        }
        println!("a lock put back after a 40 cm move: toes moved {:.2} mm", worst * 1e3);
        assert!(worst < 0.005, "the toes were pulled {worst} m toward the old holds");
    }
}
