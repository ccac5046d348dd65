//! Headless apps for each benchmark scenario, and the measurement of one run.
//!
//! **Method.** Every scenario is the same world: N characters ([`crate::rig`]) animated every
//! frame by the same procedural walk, at a fixed 60 Hz time step. Only the system under test
//! differs, and it is timed alone: two exclusive systems (which run with nothing else in
//! flight) read the clock right before and right after it, so the window holds exactly the
//! systems under test, on all worker threads, and nothing else. Everything outside the window
//! (animation, transform propagation, physics) is shared by the scenarios and not counted.
//! - [`Scenario::Floor`]: reads and writes each bone the full character's IK touches, once
//!   (a parallel linear pass over those bones: the memory-bound minimum).
//! - [`Scenario::FloorGather`]: the same read and write, done per character by entity look-up
//!   (parallel reads into a per-character buffer, then one serial write pass), which is how
//!   bevy_ik's systems reach bones; informational.
//! - [`Scenario::Full`]: the whole `IkSystems` set on the full character (feet + lock, look-at,
//!   hand chain), ground from the physics-free plane probe or from rapier ray casts.
//! - [`Scenario::FullWarped`]: the full character with [`PoseWarping`] as well (stride and
//!   orientation warping before the feet), plane probe.
//! - [`Scenario::FullRootMotion`]: the full character with [`RootMotion`] as well: an
//!   `AnimationPlayer` per character plays a clip whose pelvis travels 1.4 m/s (over the
//!   procedural walk's pelvis translation; the animation is outside the window), the travel is
//!   reported (the characters stay on their cells) and taken out of the pose, plane probe.
//! - [`Scenario::FullWalking`]: the full character travelling, with [`FootstepPrediction`] or
//!   without it (the pair gives the prediction's cost: each swinging foot's landing predicted
//!   and its footprint probed ahead), rapier ground, so the prediction's probes are real ray
//!   casts; the lock's contacts are the walk's labels
//!   ([`rig::label_contacts`]) and the roots travel at 1.4 m/s ([`rig::walk_roots`]): each
//!   swinging foot's footprint is probed every frame; on the even slab it always fits, so no
//!   shift is searched.
//! - [`Scenario::FullWalkingStairs`]: the same with footstep prediction and a [`StairFinder`]:
//!   what finding stairs costs where there are none (rays every 6 cm over 3.4 m, every 15 cm of
//!   travel).
//! - [`Scenario::DefaultStack`]: the walking character with prediction, less its hand chain
//!   (`HumanoidIk`'s default stack), with no level of detail or at a fixed [`IkLevel`];
//!   [`Scenario::Crowd`]: the same with the level chosen by distance to a viewer, with and
//!   without a 4 ms frame budget ([`crate::lod`]).
//! - [`Scenario::OurLegs`] / [`Scenario::PeerLegs`]: both legs of every character solved as
//!   two-bone chains to the same moving targets, with the same knee poles, by bevy_ik's
//!   `IkChain` (the `IkSystems` set) or by bevy_mod_inverse_kinematics 0.12 (its solver system,
//!   20 iterations as in its example). The peer reads `GlobalTransform`s, so its frame first
//!   propagates transforms (untimed; bevy_ik computes what it needs from local transforms and
//!   pays for that inside its window).
//! - [`Scenario::Spiders`]: N spiders ([`crate::spider`]: eight legs of three bones) walking
//!   in circles under [`ProceduralGait`] (the gait, the body, eight FABRIK legs), ground from
//!   the plane probe or rapier ray casts; no bipeds in this world.
//!
//! **Outputs** ([`Measurement`]): per-frame durations of the window and of the whole
//! `App::update`, and the end-effector error of the last frame, measured the same way for
//! every solver: world distance between the effector's propagated `GlobalTransform` and its
//! target after the frame.

use std::time::{Duration, Instant};

use bevy::animation::AnimationPlugin;
use bevy::app::TaskPoolThreadAssignmentPolicy;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy::transform::TransformSystems;
use bevy::transform::systems::{mark_dirty_trees, propagate_parent_transforms, sync_simple_transforms};
use bevy_ik::prelude::*;
use bevy_mod_inverse_kinematics::{IKSolverSystemSet, IkConstraint, InverseKinematicsPlugin};
use bevy_rapier3d::plugin::PhysicsSet;
use bevy_rapier3d::prelude::{Collider, NoUserData, RapierPhysicsPlugin};

use crate::floor::{Gather, floor, floor_gather};
use crate::rig::{self, Character};
use crate::spider::{self, Spider};

/// Where foot-placement rays go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ground {
    /// bevy_ik's physics-free plane probe.
    Plane,
    /// Ray casts into rapier (one static collider whose top face is the same plane).
    Rapier,
}

/// What runs inside the timed window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// Read + write of every touched bone, linear and parallel.
    Floor,
    /// Read + write of every touched bone, per character by entity look-up.
    FloorGather,
    /// The full character under `IkSystems`; `parallel` is `IkSettings::parallel`.
    Full { ground: Ground, parallel: bool },
    /// The full character plus [`PoseWarping`] (moving at 2 m/s, 45° to the left of a clip
    /// authored at 1.4 m/s straight ahead), plane probe, all threads.
    FullWarped,
    /// The full character plus [`RootMotion`] (reported, not applied), plane probe, all
    /// threads.
    FullRootMotion,
    /// The full character travelling at 1.4 m/s with labelled contacts, rapier ground, all
    /// threads; `prediction`: with [`FootstepPrediction`].
    FullWalking { prediction: bool },
    /// [`Scenario::FullWalking`] with the prediction and a [`StairFinder`] (on the even slab it
    /// probes every 15 cm of travel and finds nothing: its cost where there are no stairs).
    FullWalkingStairs,
    /// [`Scenario::FullWalking`] with prediction, without the hand chain (`HumanoidIk`'s
    /// default stack); `lod`: at this fixed [`IkLevel`] (`None`: no [`IkLod`]).
    DefaultStack { lod: Option<IkLevel> },
    /// The default stack with [`IkLod::ByDistance`] and a viewer before the grid
    /// ([`crate::lod::crowd`]); `budget`: with a 4 ms [`IkBudget`].
    Crowd { budget: bool },
    /// Only the two legs, as bevy_ik two-bone `IkChain`s.
    OurLegs { parallel: bool },
    /// Only the two legs, as bevy_mod_inverse_kinematics `IkConstraint`s.
    PeerLegs,
    /// Spiders walking under [`ProceduralGait`] instead of bipeds, all threads.
    Spiders { ground: Ground },
}

impl Scenario {
    /// A short label for tables.
    pub fn label(&self) -> String {
        let threads = |parallel: bool| if parallel { "all threads" } else { "1 thread" };
        match self {
            Scenario::Floor => "floor (touch each bone once)".into(),
            Scenario::FloorGather => "floor, per-character gather".into(),
            Scenario::Full { ground: Ground::Plane, parallel } => format!("full, plane probe, {}", threads(*parallel)),
            Scenario::Full { ground: Ground::Rapier, parallel } => format!("full, rapier, {}", threads(*parallel)),
            Scenario::FullWarped => "full + pose warping, plane probe, all threads".into(),
            Scenario::FullRootMotion => "full + root motion, plane probe, all threads".into(),
            Scenario::FullWalking { prediction: false } => "full walking, rapier, all threads".into(),
            Scenario::FullWalking { prediction: true } => {
                "full walking + footstep prediction, rapier, all threads".into()
            }
            Scenario::FullWalkingStairs => "full walking + prediction + stair finder, rapier, all threads".into(),
            Scenario::DefaultStack { lod: None } => "default stack walking, rapier, all threads".into(),
            Scenario::DefaultStack { lod: Some(level) } => format!("default stack walking, LOD {level:?}, rapier"),
            Scenario::Crowd { budget: false } => "crowd, distance LOD, no budget, rapier".into(),
            Scenario::Crowd { budget: true } => "crowd, distance LOD, 4 ms budget, rapier".into(),
            Scenario::OurLegs { parallel } => format!("legs: bevy_ik, {}", threads(*parallel)),
            Scenario::PeerLegs => "legs: bevy_mod_inverse_kinematics".into(),
            Scenario::Spiders { ground: Ground::Plane } => "spiders (procedural gait, 8 legs), plane probe".into(),
            Scenario::Spiders { ground: Ground::Rapier } => "spiders (procedural gait, 8 legs), rapier".into(),
        }
    }

    /// Two-bone chains solved per character (legs scenarios), for per-chain figures.
    pub fn chains_per_character(&self) -> usize {
        match self {
            Scenario::OurLegs { .. } | Scenario::PeerLegs => 2,
            Scenario::Spiders { .. } => 8,
            _ => 0,
        }
    }
}

/// One run's figures.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// What ran.
    pub scenario: Scenario,
    /// Characters in the world.
    pub characters: usize,
    /// Duration of the timed window, per measured frame.
    pub window: Vec<Duration>,
    /// Duration of the whole `App::update`, per measured frame.
    pub update: Vec<Duration>,
    /// Largest end-effector error after the last frame, m (legs: ankles; full: hands; 0 for
    /// the floors and for [`Scenario::FullWalking`], whose characters walk away from their
    /// hands' targets).
    pub max_error: f32,
    /// Mean end-effector error after the last frame, m.
    pub mean_error: f32,
    /// Warnings bevy_ik logged (must stay 0).
    pub warnings: u32,
    /// Feet with a predicted landing ([`FootStatus::landing`]) after the last frame: with
    /// [`FootstepPrediction`], how many were being steered (0 elsewhere).
    pub predicted_landings: usize,
    /// The mean speed [`RootMotion`] reported after the last frame, m/s (0 without it): the
    /// clip's 1.4 m/s when it works.
    pub root_speed: f32,
    /// The level-of-detail scenarios' figures ([`crate::lod::figures`]).
    pub lod: Option<crate::lod::LodFigures>,
    /// CPU time other processes used during the measured frames, as a fraction of all cores
    /// (from `/proc`; `None` where unavailable). Anything above a few % makes the run suspect.
    pub foreign_load: Option<f64>,
}

/// Median of a set of durations, in nanoseconds.
pub fn median_ns(samples: &[Duration]) -> f64 {
    let mut ns: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e9).collect();
    ns.sort_by(f64::total_cmp);
    match ns.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => ns[n / 2],
        n => 0.5 * (ns[n / 2 - 1] + ns[n / 2]),
    }
}

/// Clock readings of the timed window.
#[derive(Resource, Default)]
struct Stopwatch {
    started: Option<Instant>,
    samples: Vec<Duration>,
}

fn start_clock(world: &mut World) {
    world.resource_mut::<Stopwatch>().started = Some(Instant::now());
}

fn stop_clock(world: &mut World) {
    let now = Instant::now();
    let mut watch = world.resource_mut::<Stopwatch>();
    if let Some(start) = watch.started.take() {
        watch.samples.push(now - start);
    }
}

/// A leg target: where an ankle should go this frame (a stepping loop below its hip).
#[derive(Component, Clone, Copy, Debug)]
struct LegTarget {
    ankle: Entity,
    hip: Vec3,
    phase: f32,
}

/// Moves every leg target along its loop (and keeps its `GlobalTransform` in step, since the
/// targets are hierarchy roots and the peer reads `GlobalTransform`).
fn move_targets(time: Res<Time>, mut targets: Query<(&LegTarget, &mut Transform, &mut GlobalTransform)>) {
    let t = time.elapsed_secs_wrapped();
    targets.par_iter_mut().for_each(|(target, mut transform, mut global)| {
        let theta = t * std::f32::consts::TAU / 1.05 + target.phase;
        let lift = 0.05 * theta.sin().max(0.0);
        transform.translation = target.hip + Vec3::new(0.0, -0.74 + lift, 0.15 * theta.cos());
        *global = GlobalTransform::from_translation(transform.translation);
    });
}

/// Thread pools: one compute thread per core (Bevy's default leaves a 2-core machine a single
/// compute thread), so `par_iter` can use every core.
fn task_pools() -> TaskPoolPlugin {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut options = TaskPoolOptions::default();
    options.compute = TaskPoolThreadAssignmentPolicy { min_threads: cores, max_threads: cores, ..options.compute };
    TaskPoolPlugin { task_pool_options: options }
}

/// Builds the app of a scenario with `count` characters.
pub fn build(scenario: Scenario, count: usize) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins.set(task_pools()), TransformPlugin));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)));
    app.init_resource::<Stopwatch>();
    app.add_systems(Update, rig::animate);
    let walking = matches!(
        scenario,
        Scenario::FullWalking { .. }
            | Scenario::FullWalkingStairs
            | Scenario::DefaultStack { .. }
            | Scenario::Crowd { .. }
    );
    if walking {
        // Only here: the other rows time the same systems as before the walking rows existed.
        app.add_systems(Update, (rig::label_contacts, rig::walk_roots));
    }
    if walking
        || matches!(
            scenario,
            Scenario::Full { ground: Ground::Rapier, .. } | Scenario::Spiders { ground: Ground::Rapier }
        )
    {
        app.add_plugins(RapierPhysicsPlugin::<NoUserData>::default());
    }
    let bipeds = if let Scenario::Spiders { .. } = scenario { 0 } else { count };
    let characters: Vec<Character> = (0..bipeds).map(|i| rig::spawn_character(app.world_mut(), i, count)).collect();
    let ik_window = |app: &mut App| {
        app.add_systems(
            PostUpdate,
            (
                start_clock.after(PhysicsSet::Writeback).before(IkSystems::Prepare),
                stop_clock.after(IkSystems::Chains).before(TransformSystems::Propagate),
            ),
        );
    };
    match scenario {
        Scenario::Floor | Scenario::FloorGather => {
            if scenario == Scenario::FloorGather {
                for c in &characters {
                    app.world_mut().entity_mut(c.root).insert(Gather::new(c.touched()));
                }
                app.add_systems(
                    PostUpdate,
                    (start_clock, floor_gather, stop_clock).chain().before(TransformSystems::Propagate),
                );
            } else {
                app.add_systems(
                    PostUpdate,
                    (start_clock, floor, stop_clock).chain().before(TransformSystems::Propagate),
                );
            }
        }
        Scenario::Full { .. }
        | Scenario::FullWarped
        | Scenario::FullRootMotion
        | Scenario::FullWalking { .. }
        | Scenario::FullWalkingStairs
        | Scenario::DefaultStack { .. }
        | Scenario::Crowd { .. } => {
            let (ground, parallel) = match scenario {
                Scenario::Full { ground, parallel } => (ground, parallel),
                _ if walking => (Ground::Rapier, true),
                _ => (Ground::Plane, true),
            };
            app.add_plugins(IkPlugin { settings: IkSettings { enabled: true, parallel } });
            insert_ground(&mut app, ground);
            let clip = (scenario == Scenario::FullRootMotion).then(|| root_motion_graph(&mut app));
            for c in &characters {
                rig::add_full_ik(app.world_mut(), c);
                if let Some((graph, node)) = &clip {
                    rig::add_root_motion(app.world_mut(), c, graph, *node);
                }
                if scenario == Scenario::FullWarped {
                    rig::add_pose_warping(app.world_mut(), c);
                }
                if let Scenario::FullWalking { prediction } = scenario {
                    rig::add_walking(app.world_mut(), c, prediction);
                }
                if scenario == Scenario::FullWalkingStairs {
                    rig::add_walking(app.world_mut(), c, true);
                    app.world_mut().entity_mut(c.root).insert(StairFinder::default());
                }
                let lod = match scenario {
                    Scenario::DefaultStack { lod } => Some(lod.map(IkLod::Fixed)),
                    Scenario::Crowd { .. } => Some(Some(IkLod::ByDistance)),
                    _ => None,
                };
                if let Some(lod) = lod {
                    rig::add_walking(app.world_mut(), c, true);
                    crate::lod::default_stack(app.world_mut(), c, lod);
                }
            }
            if matches!(scenario, Scenario::DefaultStack { lod: Some(_) } | Scenario::Crowd { .. }) {
                app.add_plugins(IkLodPlugin);
            }
            if let Scenario::Crowd { budget } = scenario {
                crate::lod::crowd(app.world_mut(), count, budget);
            }
            ik_window(&mut app);
        }
        Scenario::OurLegs { parallel } => {
            app.add_plugins(IkPlugin { settings: IkSettings { enabled: true, parallel } });
            app.insert_resource(IkGround::Plane(rig::ground_plane()));
            for c in &characters {
                for (ankle, target, pole) in leg_targets(app.world_mut(), c) {
                    app.world_mut()
                        .entity_mut(ankle)
                        .insert((IkChain::two_bone(IkTarget::Entity(target)), Pole::new(IkTarget::Entity(pole))));
                }
            }
            app.add_systems(Update, move_targets);
            ik_window(&mut app);
        }
        Scenario::Spiders { ground } => {
            app.add_plugins(IkPlugin::default());
            insert_ground(&mut app, ground);
            for i in 0..count {
                spider::spawn_spider(app.world_mut(), i, count);
            }
            app.add_systems(Update, spider::walk_spiders);
            ik_window(&mut app);
        }
        Scenario::PeerLegs => {
            app.add_plugins(InverseKinematicsPlugin);
            for c in &characters {
                for (ankle, target, pole) in leg_targets(app.world_mut(), c) {
                    app.world_mut().entity_mut(ankle).insert(IkConstraint {
                        chain_length: 2,
                        iterations: 20,
                        target,
                        pole_target: Some(pole),
                        pole_angle: 0.0,
                        enabled: true,
                    });
                }
            }
            app.add_systems(Update, move_targets);
            app.add_systems(
                Update,
                ((mark_dirty_trees, propagate_parent_transforms, sync_simple_transforms).chain(), start_clock)
                    .chain()
                    .after(rig::animate)
                    .after(move_targets)
                    .before(IKSolverSystemSet),
            );
            app.add_systems(Update, stop_clock.after(IKSolverSystemSet));
        }
    }
    app
}

/// Points [`IkGround`] at the plane probe, or at rapier with a slab whose top face is the
/// same plane.
fn insert_ground(app: &mut App, ground: Ground) {
    match ground {
        Ground::Plane => {
            app.insert_resource(IkGround::Plane(rig::ground_plane()));
        }
        Ground::Rapier => {
            app.insert_resource(IkGround::Rapier);
            let plane = rig::ground_plane();
            let tilt = Quat::from_rotation_arc(Vec3::Y, plane.normal.normalize());
            let half = Vec3::new(400.0, 0.5, 400.0);
            let centre = Vec3::Y * plane.height - tilt * Vec3::Y * half.y;
            app.world_mut().spawn((
                Collider::cuboid(half.x, half.y, half.z),
                Transform::from_translation(centre).with_rotation(tilt),
            ));
        }
    }
}

/// The animation plugins and the graph of [`rig::root_motion_clip`] every character plays.
fn root_motion_graph(app: &mut App) -> (Handle<AnimationGraph>, AnimationNodeIndex) {
    app.add_plugins((AssetPlugin::default(), AnimationPlugin));
    let clip = app.world_mut().resource_mut::<Assets<AnimationClip>>().add(rig::root_motion_clip());
    let (graph, node) = AnimationGraph::from_clip(clip);
    (app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph), node)
}

/// Spawns a target and a knee pole (hierarchy roots) for each leg; returns
/// `(ankle, target, pole)` per leg.
fn leg_targets(world: &mut World, c: &Character) -> [(Entity, Entity, Entity); 2] {
    let phase = world.get::<rig::Anim>(c.pelvis).map_or(0.0, |a| a.phase);
    let mut out = [(Entity::PLACEHOLDER, Entity::PLACEHOLDER, Entity::PLACEHOLDER); 2];
    for (k, leg) in c.legs.iter().enumerate() {
        let hip = rig::rest_world(world, leg[0]);
        let phase = phase + k as f32 * std::f32::consts::PI;
        let target = world.spawn((Transform::from_translation(hip), LegTarget { ankle: leg[2], hip, phase })).id();
        let pole = world.spawn(Transform::from_translation(hip + Vec3::new(0.0, -0.4, 1.0))).id();
        out[k] = (leg[2], target, pole);
    }
    out
}

/// Runs `warmup` frames, then at least `frames` measured frames and at least `min_time` of
/// them (so short frames still give enough samples and a readable load figure), and measures
/// the errors after the last.
pub fn measure(scenario: Scenario, count: usize, warmup: usize, frames: usize, min_time: Duration) -> Measurement {
    let mut app = build(scenario, count);
    for _ in 0..warmup {
        app.update();
    }
    app.world_mut().resource_mut::<Stopwatch>().samples.clear();
    let load_before = CpuClock::read();
    let mut update = Vec::with_capacity(frames);
    let began = Instant::now();
    while update.len() < frames || began.elapsed() < min_time {
        let start = Instant::now();
        app.update();
        update.push(start.elapsed());
    }
    // The kernel counts CPU time in 10 ms ticks: under a second the figure means little.
    let long_enough = began.elapsed() >= Duration::from_secs(1);
    let foreign_load =
        load_before.filter(|_| long_enough).and_then(|before| Some(CpuClock::read()?.foreign_since(&before)));
    let window = std::mem::take(&mut app.world_mut().resource_mut::<Stopwatch>().samples);
    let (max_error, mean_error) = errors(&mut app, scenario);
    let warnings = count_warnings(&mut app);
    let world = app.world_mut();
    let predicted_landings =
        world.query::<&FootPlacerState>().iter(world).flat_map(|s| &s.feet).filter(|f| f.landing.is_some()).count();
    let speeds: Vec<f32> = world.query::<&RootMotionState>().iter(world).map(|s| s.velocity.length()).collect();
    let root_speed = if speeds.is_empty() { 0.0 } else { speeds.iter().sum::<f32>() / speeds.len() as f32 };
    let lod =
        matches!(scenario, Scenario::DefaultStack { .. } | Scenario::Crowd { .. }).then(|| crate::lod::figures(world));
    Measurement {
        scenario,
        characters: count,
        window,
        update,
        max_error,
        mean_error,
        warnings,
        predicted_landings,
        root_speed,
        lod,
        foreign_load,
    }
}

/// Busy CPU time of the whole machine and of this process, in clock ticks (Linux `/proc`).
struct CpuClock {
    machine_busy: u64,
    machine_total: u64,
    own: u64,
}

impl CpuClock {
    fn read() -> Option<CpuClock> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let cpu: Vec<u64> = stat.lines().next()?.split_whitespace().skip(1).filter_map(|v| v.parse().ok()).collect();
        // user nice system idle iowait irq softirq steal ...
        let idle = cpu.get(3)? + cpu.get(4).copied().unwrap_or(0);
        let total: u64 = cpu.iter().take(8).sum();
        let own_stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        // Fields after the command name (which is in parentheses): utime and stime are 14 and 15.
        let after = &own_stat[own_stat.rfind(')')? + 2..];
        let fields: Vec<&str> = after.split_whitespace().collect();
        let own = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(CpuClock { machine_busy: total - idle, machine_total: total, own })
    }

    /// Fraction of all cores' time that other processes kept busy since `before`.
    fn foreign_since(&self, before: &CpuClock) -> f64 {
        let total = self.machine_total.saturating_sub(before.machine_total).max(1) as f64;
        let busy = self.machine_busy.saturating_sub(before.machine_busy) as f64;
        let own = self.own.saturating_sub(before.own) as f64;
        ((busy - own) / total).max(0.0)
    }
}

/// End-effector errors after the frame: world distance from each effector's propagated
/// `GlobalTransform` to its target.
fn errors(app: &mut App, scenario: Scenario) -> (f32, f32) {
    let world = app.world_mut();
    let mut distances = Vec::new();
    match scenario {
        Scenario::OurLegs { .. } | Scenario::PeerLegs => {
            let mut targets = world.query::<(&LegTarget, &GlobalTransform)>();
            let pairs: Vec<(Entity, Vec3)> = targets.iter(world).map(|(t, g)| (t.ankle, g.translation())).collect();
            for (ankle, target) in pairs {
                let at = world.get::<GlobalTransform>(ankle).map_or(Vec3::splat(f32::NAN), |g| g.translation());
                distances.push(at.distance(target));
            }
        }
        Scenario::Full { .. } | Scenario::FullWarped | Scenario::FullRootMotion => {
            let mut chains = world.query::<(&IkChain, &GlobalTransform)>();
            for (chain, global) in chains.iter(world) {
                if let IkTarget::Position(target) = chain.target {
                    distances.push(global.translation().distance(target));
                }
            }
        }
        // Each foot against where the gait asked for it.
        Scenario::Spiders { .. } => {
            let mut spiders = world.query::<(&Spider, &ProceduralGaitState)>();
            let pairs: Vec<(Entity, Vec3)> = spiders
                .iter(world)
                .flat_map(|(s, state)| s.feet.iter().copied().zip(state.feet().iter().map(|f| f.target)))
                .collect();
            for (foot, target) in pairs {
                let at = world.get::<GlobalTransform>(foot).map_or(Vec3::splat(f32::NAN), |g| g.translation());
                distances.push(at.distance(target));
            }
        }
        // The walking characters leave their hands' (world) targets behind.
        Scenario::Floor
        | Scenario::FloorGather
        | Scenario::FullWalking { .. }
        | Scenario::FullWalkingStairs
        | Scenario::DefaultStack { .. }
        | Scenario::Crowd { .. } => {}
    }
    if distances.is_empty() {
        return (0.0, 0.0);
    }
    let max = distances.iter().copied().fold(0.0f32, |a, d| if d.is_nan() { f32::NAN } else { a.max(d) });
    (max, distances.iter().sum::<f32>() / distances.len() as f32)
}

/// Warnings bevy_ik's components reported.
fn count_warnings(app: &mut App) -> u32 {
    let world = app.world_mut();
    let chains: u32 = world.query::<&IkChainState>().iter(world).map(|s| s.warnings).sum();
    let feet: u32 = world.query::<&FootPlacerState>().iter(world).map(|s| s.warnings).sum();
    let looks: u32 = world.query::<&LookAtState>().iter(world).map(|s| s.warnings).sum();
    let travel: u32 = world.query::<&RootMotionState>().iter(world).map(|s| s.warnings).sum();
    let gaits: u32 = world.query::<&ProceduralGaitState>().iter(world).map(|s| s.warnings).sum();
    chains + feet + looks + travel + gaits
}
