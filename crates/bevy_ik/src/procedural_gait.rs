//! [`ProceduralGait`]: a creature with any number of legs (a spider, a hexapod, a quadruped)
//! walks wherever its entity is moved, with no animation: ik_core's
//! [`CreatureGait`] decides where each foot is planted, when it steps and where it lands, and
//! the height and tilt of the body over the feet; this module gives it the Bevy ground and
//! bends each leg's bones to its foot.
//!
//! **Which entity moves what.** A controller moves the creature's entity (the one holding
//! [`ProceduralGait`]): its horizontal position and its heading (turn about +Y, +Z forward).
//! Its height does not matter. The gait moves [`ProceduralGait::body`], a bone below it that
//! carries the legs: its local translation and rotation are written so that it rides at the
//! suggested height over the planted feet, tilted with the ground under them. Each leg, a chain
//! of bones from its hip (below the body bone) to its foot, gets new local rotations only.
//!
//! **Each frame** (in [`crate::IkSystems::Feet`]): the entity's velocity and yaw rate are
//! measured from its transform frame to frame ([`RootVelocity`]); the gait is advanced with the
//! ground read by [`GroundProbe`] rays (rapier, Avian or the plane) — a planted foot rides
//! the collider it landed on when that moves (a platform) instead of sliding over it; the body
//! bone is given the suggested pose; each leg is solved to its foot's target: two-bone legs
//! (hip, knee, foot) by the exact solver with a pole that keeps the knee bent the way it is at
//! rest, longer legs by [`ProceduralGait::solver`] (FABRIK or CCD, honouring
//! [`crate::chain::JointLimit`]s on their bones), from the rest pose every frame: not warm-started, since a chain of three or more
//! bones started from last frame's answer drifts over a walk (the knees sink under the line
//! from hip to foot), and the rest pose keeps them bent as built.
//!
//! **Rest pose.** The first frame the component is seen (and whenever its legs or body bone
//! change), the bones' transforms are the rest pose: each leg's hip, its reach (the sum of its
//! segments' lengths) and its home point (the foot's rest position, put down on the ground
//! found under it within the leg's reach) are measured in the body's frame. Build or spawn the
//! creature standing: its rest feet's mean depth under the body bone is its ride height. (Legs
//! changed later are measured from the pose they are in then.)
//!
//! **Cost**: per creature and frame, ik_core's gait (one ground ray under each hip and one under
//! the body, up to nine per landing candidate while a foot is planned, one under a foot as it
//! lands) and one chain solve per leg; `ik_bench`'s spider rows give the figures.
//!
//! A fault (a bone missing, a hip not under the body bone) logs one warning and leaves the pose
//! alone until it is fixed; a leg whose solve fails is reported as an
//! [`IkComponent::Chain`] fault on its foot bone.

use bevy::ecs::entity::MapEntities;
use bevy::prelude::*;
use ik_core::Xform;
use ik_core::creature_gait::{
    CreatureBody, CreatureBodyPose, CreatureFoot, CreatureGait, CreatureGaitSettings, CreatureLeg,
};
use ik_core::footstep::{FootprintGround, RootVelocity};

use crate::IkSettings;
use crate::bones::{Hierarchy, StopCache, chain_entities, world_of};
use crate::chain::{ChainWorld, IkChain, IkChainState, IkSolver, JointLimit, Pole};
use crate::fault::{FaultLatch, FaultNotices, FaultSender, IkComponent, IkFault};
use crate::gait_surfaces::GaitSurfaces;
use crate::ground::{GroundProbe, GroundRays};
use crate::target::IkTarget;
use crate::write_back::write_local;

/// One leg of a [`ProceduralGait`]: a chain of bones from `hip` down to `foot`.
#[derive(Reflect, MapEntities, Clone, Copy, Debug, PartialEq)]
pub struct GaitLeg {
    /// The leg's first joint, a descendant of [`ProceduralGait::body`].
    #[entities]
    pub hip: Entity,
    /// Its last joint, the point that touches the ground; a descendant of `hip`, two or more
    /// bones below it.
    #[entities]
    pub foot: Entity,
}

/// Put on a creature's entity (moved by a controller) to make it walk on its legs: see the
/// [module docs](self) for what it moves. The gait's tuning is ik_core's
/// [`CreatureGaitSettings`]; what it measured and decided is in [`ProceduralGaitState`].
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ik::prelude::*;
///
/// /// A creature whose body bone carries legs of hip → knee → foot (or longer).
/// fn make_it_walk(mut commands: Commands, creature: Entity, body: Entity, legs: &[(Entity, Entity)]) {
///     let legs = legs.iter().map(|&(hip, foot)| GaitLeg { hip, foot }).collect();
///     let mut gait = ProceduralGait::new(body, legs);
///     gait.settings.lift = 0.1; // lift the feet 10 cm over the ground
///     commands.entity(creature).insert(gait);
/// }
/// # let _ = make_it_walk;
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component)]
#[require(ProceduralGaitState)]
pub struct ProceduralGait {
    /// Stride, swing, landing search and body springs (world units, seconds, radians).
    pub settings: CreatureGaitSettings,
    /// The bone that carries the legs, below this entity: given the suggested height and tilt.
    #[entities]
    pub body: Entity,
    /// The legs, in any order.
    #[entities]
    pub legs: Vec<GaitLeg>,
    /// Solver of legs of three or more bones (two-bone legs always use the exact solver);
    /// [`IkSolver::TwoBone`] reads as FABRIK. Default FABRIK.
    pub solver: IkSolver,
    /// Ground rays start this far above the ground the creature expects where they probe (its
    /// feet's level) and reach two legs' length below it, world units: more than the highest
    /// step the creature may climb in one stride, and less than the underside of anything it
    /// walks under (what hangs higher is not ground). Default 1.0.
    pub ray_height: f32,
}

impl ProceduralGait {
    /// A gait with default settings for a creature whose `body` bone carries `legs`.
    pub fn new(body: Entity, legs: Vec<GaitLeg>) -> Self {
        ProceduralGait {
            settings: CreatureGaitSettings::default(),
            body,
            legs,
            solver: IkSolver::Fabrik,
            ray_height: 1.0,
        }
    }
}

/// What a [`ProceduralGait`] measured and decided last frame (required by it).
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(Component, Default)]
pub struct ProceduralGaitState {
    /// Legs in the air.
    pub in_air: u32,
    /// Feet planted on the ground.
    pub planted: u32,
    /// The creature's velocity as measured from its transform, world units per second.
    pub velocity: Vec3,
    /// Its turning rate about +Y as measured, rad/s.
    pub yaw_rate: f32,
    /// Warnings logged so far (one per distinct fault, not one per frame).
    pub warnings: u32,
    #[reflect(ignore)]
    built: Option<Box<Built>>,
    #[reflect(ignore)]
    faults: FaultLatch,
}

impl ProceduralGaitState {
    /// ik_core's gait (its legs in the body's frame, its groups and phase); `None` before the
    /// rest pose was measured.
    pub fn gait(&self) -> Option<&CreatureGait> {
        self.built.as_ref().map(|b| &b.gait)
    }

    /// Each leg's foot as the gait left it (world target, planted, swing), in the order of
    /// [`ProceduralGait::legs`]; empty before the rest pose was measured.
    pub fn feet(&self) -> &[CreatureFoot] {
        self.built.as_ref().map_or(&[], |b| b.gait.feet())
    }

    /// The body pose the gait suggested last (world: the body's frame, not the body bone's own
    /// rotation, which keeps its rest offset from it).
    pub fn body_pose(&self) -> Option<CreatureBodyPose> {
        self.built.as_ref().and_then(|b| b.pose)
    }

    /// The fault of the last frame (`None` when the gait ran).
    pub fn fault(&self) -> Option<&IkFault> {
        self.faults.current()
    }
}

/// The measured creature and its per-frame state.
#[derive(Clone, Debug)]
struct Built {
    /// What it was measured for: the body bone and the legs.
    built_for: (Entity, Vec<GaitLeg>),
    gait: CreatureGait,
    legs: Vec<BuiltLeg>,
    /// The body bone's rest transform relative to the creature's entity.
    body_in_root: Xform,
    /// The body bone's rest rotation relative to the body's frame (the entity's heading).
    body_offset: Quat,
    velocity: RootVelocity,
    /// Last suggested pose, and its tilt (off the heading).
    pose: Option<CreatureBodyPose>,
    tilt: Quat,
    /// The body bone's new local, to be written.
    pending_body: Option<Xform>,
    /// Where the entity was last frame, for teleports.
    last_root: Option<Vec3>,
    /// Longest reach of a leg.
    max_reach: f32,
    /// What each foot stands on, for feet on moving ground.
    surfaces: GaitSurfaces,
}

/// One leg's bones and chain.
#[derive(Clone, Debug)]
struct BuiltLeg {
    foot: Entity,
    hip: Entity,
    /// Bones above the foot.
    bones: usize,
    /// Two-bone legs: where the knee bends toward, in the body's frame.
    pole: Option<Vec3>,
    chain: IkChainState,
}

/// The heading (turn about +Y alone) of `rotation`.
fn yaw_of(rotation: Quat) -> Quat {
    let facing = rotation * Vec3::Z;
    if facing.x.abs() + facing.z.abs() > 1e-6 {
        Quat::from_rotation_y(facing.x.atan2(facing.z))
    } else {
        Quat::IDENTITY
    }
}

/// The Bevy ground as the gait reads it: height of the first surface a ray down through the
/// point finds, from `above` over it to `below` under it.
struct GaitGround<'a, 'p, 'w, 's> {
    probe: &'a GroundProbe<'p, 'w, 's>,
    creature: Entity,
    /// How far over and under the probed point the ray starts and reaches.
    above: f32,
    below: f32,
}

impl FootprintGround for GaitGround<'_, '_, '_, '_> {
    fn height(&mut self, p: Vec3) -> Option<f32> {
        let (from, length) = (p + Vec3::Y * self.above, self.above + self.below);
        self.probe.cast(from, Vec3::NEG_Y, length, self.creature).map(|hit| hit.point.y)
    }
}

/// What a creature's solve reads besides its own components.
struct GaitWorld<'a, 'p, 'w, 's> {
    chains: ChainWorld<'a, 'w, 's>,
    probe: &'a GroundProbe<'p, 'w, 's>,
}

impl Built {
    /// Measures the creature from its rest pose (see the module docs).
    fn measure(root: Entity, gait: &ProceduralGait, world: &GaitWorld) -> Result<Built, IkFault> {
        let hierarchy = world.chains.hierarchy;
        let missing = |what: String| IkFault::MissingBone(what);
        chain_entities(gait.body, Some(root), 0, hierarchy)?;
        if gait.body == root {
            return Err(missing(format!("the body bone must be below the creature {root}, not the creature itself")));
        }
        let root_world = world_of(root, hierarchy).ok_or_else(|| missing(format!("creature {root}")))?;
        let body_world = world_of(gait.body, hierarchy).ok_or_else(|| missing(format!("body {}", gait.body)))?;
        if !(root_world.is_finite() && body_world.is_finite()) {
            return Err(IkFault::NonFiniteTarget);
        }
        let frame = Xform::from_translation_rotation(body_world.translation, yaw_of(root_world.rotation));
        let above = gait.ray_height.abs().max(1e-3);
        let mut ground = GaitGround { probe: world.probe, creature: root, above, below: above };
        let (mut legs, mut measured) = (Vec::new(), Vec::new());
        for leg in &gait.legs {
            let (built, creature_leg) = measure_leg(leg, gait.body, frame, &mut ground, hierarchy)?;
            legs.push(built);
            measured.push(creature_leg);
        }
        Ok(Built {
            built_for: (gait.body, gait.legs.clone()),
            gait: CreatureGait::new(&measured),
            max_reach: measured.iter().map(|l| l.reach).fold(0.0, f32::max),
            surfaces: GaitSurfaces::default(),
            legs,
            body_in_root: root_world.inverse().mul_xform(&body_world),
            body_offset: (frame.rotation.inverse() * body_world.rotation).normalize(),
            velocity: RootVelocity::default(),
            pose: None,
            tilt: Quat::IDENTITY,
            pending_body: None,
            last_root: None,
        })
    }
}

/// One leg's bones, reach, hip and home point (in `frame`, the body's frame at rest).
fn measure_leg(
    leg: &GaitLeg,
    body: Entity,
    frame: Xform,
    ground: &mut GaitGround,
    hierarchy: &Hierarchy,
) -> Result<(BuiltLeg, CreatureLeg), IkFault> {
    chain_entities(leg.hip, Some(body), 0, hierarchy)?;
    let joints = chain_entities(leg.foot, Some(leg.hip), 0, hierarchy)?;
    if joints.len() < 3 {
        return Err(IkFault::MissingBone(format!("leg {} → {} has fewer than two bones", leg.hip, leg.foot)));
    }
    let points: Vec<Vec3> = joints
        .iter()
        .map(|&j| world_of(j, hierarchy).map(|w| w.translation))
        .collect::<Option<_>>()
        .ok_or_else(|| IkFault::MissingBone(format!("a bone of leg {} → {}", leg.hip, leg.foot)))?;
    let reach: f32 = points.windows(2).map(|w| w[0].distance(w[1])).sum();
    let (hip, foot) = (points[0], points[points.len() - 1]);
    if !(reach > 1e-4 && reach.is_finite()) {
        return Err(IkFault::MissingBone(format!("leg {} → {} has no length", leg.hip, leg.foot)));
    }
    // The foot put down on the ground under it, when that is within the leg's reach.
    let home = ground.height(foot.with_y(hip.y.max(foot.y))).map(|y| foot.with_y(y));
    let home = home.filter(|h| h.distance(hip) <= reach && h.is_finite()).unwrap_or(foot);
    let pole = (joints.len() == 3).then(|| {
        let (knee, along) = (points[1], (foot - hip).normalize_or(Vec3::NEG_Y));
        let out = (knee - hip) - along * (knee - hip).dot(along);
        frame.inverse_transform_point(knee + out.normalize_or(Vec3::Y) * reach)
    });
    let creature_leg =
        CreatureLeg { hip: frame.inverse_transform_point(hip), home: frame.inverse_transform_point(home), reach };
    let built =
        BuiltLeg { foot: leg.foot, hip: leg.hip, bones: joints.len() - 1, pole, chain: IkChainState::default() };
    Ok((built, creature_leg))
}

impl Built {
    /// The body as the gait reads it: over the entity at its rest offset, at last frame's
    /// suggested height and tilt, with the entity's heading and measured velocity.
    fn body_input(&self, root_world: Xform) -> CreatureBody {
        let rest = root_world.transform_point(self.body_in_root.translation);
        let position = self.pose.map_or(rest, |p| rest.with_y(p.position.y));
        let rotation = (self.tilt * yaw_of(root_world.rotation)).normalize();
        CreatureBody { position, rotation, velocity: self.velocity.velocity, yaw_rate: self.velocity.yaw_rate }
    }

    /// Advances the gait by `dt` and solves the legs (nothing written yet: the body bone's new
    /// local is `pending_body`, the legs' in their chains).
    fn step(&mut self, root: Entity, gait: &ProceduralGait, world: &GaitWorld, dt: f32) -> Result<(), IkFault> {
        let hierarchy = world.chains.hierarchy;
        let root_world = world_of(root, hierarchy).ok_or_else(|| IkFault::MissingBone(format!("creature {root}")))?;
        if !root_world.is_finite() {
            // Where the creature should be is unknown: nothing moves until it is known again.
            return Err(IkFault::NonFiniteTarget);
        }
        let body = self.built_for.0;
        let body_old = world_of(body, hierarchy).ok_or_else(|| IkFault::MissingBone(format!("body {body}")))?;
        let (local_old, _) = hierarchy.get(body).map_err(|_| IkFault::MissingBone(format!("body {body}")))?;
        // A jump of more than two reaches in a frame is a teleport: start standing again.
        if self.last_root.is_some_and(|last| last.distance(root_world.translation) > 2.0 * self.max_reach) {
            (self.velocity, self.pose, self.tilt) = (RootVelocity::default(), None, Quat::IDENTITY);
            self.gait.reset();
            self.surfaces = GaitSurfaces::default();
        }
        self.last_root = Some(root_world.translation);
        self.velocity.update(root_world, dt);
        let input = self.body_input(root_world);
        // Rays reach two legs' length down: a step down deeper than the rays start high is found.
        let above = gait.ray_height.abs().max(1e-3);
        let mut ground =
            GaitGround { probe: world.probe, creature: root, above, below: above.max(2.0 * self.max_reach) };
        self.surfaces.carry(&mut self.gait, hierarchy);
        let pose = self.gait.update(&gait.settings, input, &mut ground, dt);
        self.surfaces.find(&self.gait, (world.probe, root, ground.above), hierarchy);
        if !(pose.position.is_finite() && pose.rotation.is_finite()) {
            return Err(IkFault::NonFiniteResult);
        }
        (self.pose, self.tilt) = (Some(pose), (pose.rotation * yaw_of(input.rotation).inverse()).normalize());
        let body_new = Xform { translation: pose.position, rotation: pose.rotation * self.body_offset, ..body_old };
        // The legs are solved on the hierarchy as it is (the body bone where it was): targets
        // are carried by the body's move into that frame.
        let carry = body_old.mul_xform(&body_new.inverse());
        let frame = Xform::from_translation_rotation(pose.position, pose.rotation);
        let mut stops = StopCache::default();
        for (leg, foot) in self.legs.iter_mut().zip(self.gait.feet()) {
            let target = IkTarget::Position(carry.transform_point(foot.target));
            let pole = leg.pole.map(|p| Pole::new(IkTarget::Position(carry.transform_point(frame.transform_point(p)))));
            let solver = match (leg.bones, gait.solver) {
                (2, _) => IkSolver::TwoBone,
                (_, IkSolver::TwoBone) => IkSolver::Fabrik,
                (_, solver) => solver,
            };
            // From the rest pose every frame (see the module docs).
            let chain =
                IkChain { solver, bones: leg.bones, root: Some(leg.hip), warm_start: false, ..IkChain::new(target) };
            leg.chain.solve(leg.foot, (&chain, pole.as_ref(), None), &world.chains, &mut stops);
        }
        let local_new = bones_local(body_old, body_new, local_old);
        self.pending_body = local_new.is_finite().then_some(local_new);
        Ok(())
    }

    /// Writes the body bone's new local and the legs' changed locals.
    fn write(&mut self, transforms: &mut Query<&mut Transform>) {
        if let Some(local) = self.pending_body.take() {
            write_local(transforms, self.built_for.0, local);
        }
        for leg in &mut self.legs {
            if leg.chain.dirty {
                leg.chain.write_back(transforms);
            }
        }
    }
}

/// The local a bone whose local is `local_old` and world `world_old` needs for world `world_new`
/// (its parent staying where it is).
fn bones_local(world_old: Xform, world_new: Xform, local_old: &Transform) -> Xform {
    let parent = world_old.mul_xform(&crate::bones::xform_of(local_old).inverse());
    let local = parent.inverse().mul_xform(&world_new);
    Xform { rotation: local.rotation.normalize(), ..local }
}

impl ProceduralGaitState {
    /// Measures the rest pose when first seen or when the body or legs changed.
    fn ensure_built(&mut self, root: Entity, gait: &ProceduralGait, world: &GaitWorld) -> Result<(), IkFault> {
        let current = self.built.as_ref().is_some_and(|b| b.built_for.0 == gait.body && b.built_for.1 == gait.legs);
        if !current {
            self.built = None;
            self.built = Some(Box::new(Built::measure(root, gait, world)?));
        }
        Ok(())
    }

    /// One creature's frame: measure if needed, step, report.
    fn run(&mut self, root: Entity, gait: &ProceduralGait, world: &GaitWorld, dt: f32) {
        let outcome = self.ensure_built(root, gait, world).and_then(|()| match self.built.as_mut() {
            Some(built) => built.step(root, gait, world, dt),
            None => Ok(()),
        });
        if outcome.is_err()
            && let Some(built) = self.built.as_mut()
        {
            built.pending_body = None;
            built.legs.iter_mut().for_each(|l| l.chain.dirty = false);
        }
        if let Some(built) = &self.built {
            self.in_air = built.gait.feet().iter().filter(|f| !f.planted).count() as u32;
            self.planted = built.gait.feet().len() as u32 - self.in_air;
            (self.velocity, self.yaw_rate) = (built.velocity.velocity, built.velocity.yaw_rate);
        }
        if self.faults.report(root, IkComponent::ProceduralGait, outcome.err(), world.chains.notices) {
            self.warnings += 1;
        }
    }
}

/// Fewer creatures than this are solved on the system's own thread.
const PARALLEL_MIN_CREATURES: usize = 32;

/// Walks every [`ProceduralGait`] (in parallel when [`IkSettings::parallel`] and there are
/// many): see the module docs.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn walk_creatures(
    settings: Res<IkSettings>,
    time: Res<Time>,
    ground: GroundRays,
    mut creatures: Query<(Entity, &ProceduralGait, &mut ProceduralGaitState)>,
    limits: Query<&'static JointLimit>,
    mut transforms: ParamSet<(Hierarchy, Query<&mut Transform>)>,
    mut faults: FaultSender,
) {
    let dt = time.delta_secs();
    if !settings.enabled || dt.is_nan() || dt <= 0.0 {
        return;
    }
    let probe = ground.probe();
    {
        let hierarchy = transforms.p0();
        let notices: &FaultNotices = faults.notices();
        let chains = ChainWorld { hierarchy: &hierarchy, limits: &limits, notices };
        let world = GaitWorld { chains, probe: &probe };
        let solve = |(root, gait, mut state): (Entity, &ProceduralGait, Mut<ProceduralGaitState>)| {
            state.run(root, gait, &world, dt);
        };
        if settings.parallel && creatures.iter().count() >= PARALLEL_MIN_CREATURES {
            creatures.par_iter_mut().batching_strategy(crate::batching()).for_each(solve);
        } else {
            creatures.iter_mut().for_each(solve);
        }
    }
    faults.send();
    let mut writer = transforms.p1();
    for (_, _, mut state) in &mut creatures {
        if let Some(built) = state.bypass_change_detection().built.as_mut() {
            built.write(&mut writer);
        }
    }
}
