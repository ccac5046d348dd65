//! Limb chains: [`IkChain`] on a tip bone bends the bones above it so the tip reaches a target.
//!
//! Two-bone chains (arms, legs) use the exact law-of-cosines solver with an optional [`Pole`];
//! longer chains use FABRIK or CCD, honouring [`JointLimit`] components on their bones and
//! warm-starting from the previous frame's answer.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use ik_core::fabrik::{ChainJob, ChainScratch, WarmStart};
use ik_core::limits::JointLimit as CoreLimit;
use ik_core::{TwoBoneJob, Xform};

use crate::bones::{BoneSet, Hierarchy, StopCache, apply_correction, chain_entities, restore_after_fault};
use crate::fade::{IkFade, effective_weight};
use crate::fault::{FaultLatch, FaultNotices, IkComponent, IkFault};
use crate::limb::Limb;
use crate::target::IkTarget;
use crate::write_back::GatheredBones;

/// Which solver an [`IkChain`] uses.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IkSolver {
    /// Exact two-bone solve (the tip's parent and grandparent turn). Arms and legs.
    #[default]
    TwoBone,
    /// Forward and backward reaching IK for chains of any length: few iterations, no curl.
    Fabrik,
    /// Cyclic coordinate descent: simple, per-joint limits applied joint by joint.
    Ccd,
}

/// Put on the **tip** bone of a limb (a hand, a foot, a tail's end): the bones above it turn so
/// the tip reaches [`IkChain::target`]. Only local rotations are changed, as a correction on
/// top of this frame's animation.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, tail_tip: Entity, food: Entity) {
/// commands.entity(tail_tip).insert(IkChain {
///     solver: IkSolver::Fabrik,
///     bones: 6,
///     ..IkChain::new(IkTarget::Entity(food))
/// });
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
#[require(IkChainState)]
#[component(on_remove = chain_removed)]
pub struct IkChain {
    /// Where the tip should go.
    #[entities]
    pub target: IkTarget,
    /// Which solver bends the chain.
    pub solver: IkSolver,
    /// How many bones above the tip take part (ignored by [`IkSolver::TwoBone`], which always
    /// uses 2, and when [`IkChain::root`] is set).
    pub bones: usize,
    /// Explicit first joint of the chain (an ancestor of the tip); overrides `bones`.
    #[entities]
    pub root: Option<Entity>,
    /// Blend from the animated pose (0) to the full solve (1).
    pub weight: f32,
    /// Two-bone soft extension: the fraction of full reach over which the limb eases into full
    /// extension (0 = off, exact reach; 0.02–0.05 avoids knee/elbow pops).
    pub soften: f32,
    /// Iterative solvers stop when the tip is this close to the target (metres).
    pub tolerance: f32,
    /// Iterative solvers stop after this many iterations per frame.
    pub max_iterations: u32,
    /// Iterative solvers start from last frame's answer (usually ≤ 2 iterations per frame).
    pub warm_start: bool,
}

impl Default for IkChain {
    fn default() -> Self {
        IkChain::new(IkTarget::default())
    }
}

impl IkChain {
    /// A chain with default settings reaching for `target` (two-bone).
    pub fn new(target: IkTarget) -> Self {
        IkChain {
            target,
            solver: IkSolver::TwoBone,
            bones: 2,
            root: None,
            weight: 1.0,
            soften: 0.0,
            tolerance: 0.001,
            max_iterations: 10,
            warm_start: true,
        }
    }

    /// A two-bone chain (arm or leg) reaching for `target`.
    pub fn two_bone(target: IkTarget) -> Self {
        IkChain::new(target)
    }
}

/// An [`IkChain`] taken off takes its state with it (unless a chain is put back on the same
/// entity in the same batch of commands).
fn chain_removed(mut world: DeferredWorld, context: HookContext) {
    let tip = context.entity;
    world.commands().queue(move |world: &mut World| {
        if world.get::<IkChain>(tip).is_none()
            && let Ok(mut entity) = world.get_entity_mut(tip)
        {
            entity.remove::<IkChainState>();
        }
    });
}

/// Put next to an [`IkChain`]: the middle joint (elbow, knee) bends toward this point.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default)]
pub struct Pole {
    /// The point (or entity) the middle joint bends toward.
    #[entities]
    pub target: IkTarget,
}

impl Pole {
    /// A pole at a target.
    pub fn new(target: IkTarget) -> Self {
        Pole { target }
    }
}

/// A joint limit on a bone, honoured by FABRIK and CCD chains passing through it: ik_core's
/// [`CoreLimit`] (a hinge or a cone with twist, measured from `reference`, the local rotation
/// the bone has at rest), edited live like any reflected component.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, knee: Entity, rest: Quat) {
/// // A knee: turns only about its local X, between 0° and 150° from its rest rotation.
/// commands.entity(knee).insert(JointLimit::hinge(rest, Vec3::X, 0.0, 150f32.to_radians()));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Deref, DerefMut)]
#[reflect(Component)]
pub struct JointLimit(pub CoreLimit);

impl JointLimit {
    /// A hinge about `axis` (bone frame) allowing turns in `[min, max]` radians from `reference`.
    pub fn hinge(reference: Quat, axis: Vec3, min: f32, max: f32) -> Self {
        JointLimit(CoreLimit::hinge(reference, axis, min, max))
    }

    /// A cone of half-angle `max_swing` about the bone `axis`, twist in `[min_twist, max_twist]`.
    pub fn cone(reference: Quat, axis: Vec3, max_swing: f32, min_twist: f32, max_twist: f32) -> Self {
        JointLimit(CoreLimit::cone(reference, axis, max_swing, min_twist, max_twist))
    }
}

/// A FABRIK or CCD chain's joints: a bone set, the chain's joints in it, and the buffers the
/// solve reuses every frame.
#[derive(Clone, Debug)]
struct IterativeChain {
    bones: BoneSet,
    /// Indices in `bones` of the chain's joints, root first.
    joints: Vec<usize>,
    buffers: IterativeBuffers,
}

/// A chain's joints as built for its solver.
#[derive(Clone, Debug, Default)]
#[allow(clippy::large_enum_variant)] // the two-bone limb is inline on purpose: the common case
enum ChainJoints {
    /// Not built yet (or dropped after the hierarchy changed).
    #[default]
    Unbuilt,
    /// A two-bone chain: three joints, inline.
    Limb(Limb),
    /// A FABRIK or CCD chain, boxed so that two-bone chains' components stay small (the solve
    /// streams every chain's component each frame).
    Iterative(Box<IterativeChain>),
}

/// Buffers an iterative chain reuses every frame.
#[derive(Clone, Debug, Default)]
struct IterativeBuffers {
    joints: Vec<Xform>,
    locals: Vec<Quat>,
    limits: Vec<Option<CoreLimit>>,
    corrections: Vec<Quat>,
    scratch: ChainScratch,
    warm: WarmStart,
}

/// What an [`IkChain`] keeps between frames and reports after each solve.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(Component, Default)]
pub struct IkChainState {
    /// Whether the tip reached the target last frame.
    pub reached: bool,
    /// Distance from the tip to the target after the last solve (metres).
    pub error: f32,
    /// Iterations the last solve took (iterative solvers; 1 for two-bone).
    pub iterations: u32,
    /// Warnings logged so far (one per distinct fault, not one per frame).
    pub warnings: u32,
    #[reflect(ignore)]
    joints: ChainJoints,
    #[reflect(ignore)]
    built_for: Option<(Option<Entity>, usize, IkSolver)>,
    #[reflect(ignore)]
    faults: FaultLatch,
    #[reflect(ignore)]
    pub(crate) dirty: bool,
}

/// What chains read besides their own components.
pub(crate) struct ChainWorld<'a, 'w, 's> {
    pub(crate) hierarchy: &'a Hierarchy<'w, 's>,
    pub(crate) limits: &'a Query<'w, 's, &'static JointLimit>,
    pub(crate) notices: &'a FaultNotices,
}

impl IkChainState {
    /// World positions of the chain's joints after the last solve, root first.
    pub fn joint_positions(&self) -> impl Iterator<Item = Vec3> + '_ {
        let (limb, iterative) = self.parts();
        let limb = limb.into_iter().flat_map(|l| l.model().map(|m| l.stop_world.transform_point(m.translation)));
        let set = iterative
            .into_iter()
            .flat_map(|c| c.joints.iter().map(|&j| c.bones.stop_world.transform_point(c.bones.model[j].translation)));
        limb.chain(set)
    }

    /// The chain's joints as one of its two kinds (both `None` before they are built).
    fn parts(&self) -> (Option<&Limb>, Option<&IterativeChain>) {
        match &self.joints {
            ChainJoints::Unbuilt => (None, None),
            ChainJoints::Limb(limb) => (Some(limb), None),
            ChainJoints::Iterative(chain) => (None, Some(chain)),
        }
    }

    /// Writes the changed locals and remembers them as IK's output (after a solve left the
    /// chain `dirty`).
    pub(crate) fn write_back(&mut self, transforms: &mut Query<&mut Transform>) {
        match &mut self.joints {
            ChainJoints::Unbuilt => {}
            ChainJoints::Limb(limb) => limb.write_back(transforms),
            ChainJoints::Iterative(chain) => chain.bones.write_back(transforms),
        }
    }

    /// After a fault, puts the animated pose back (unless the bones themselves are gone);
    /// returns whether there is something to write.
    fn restore_after_fault(&mut self, outcome: &Result<(), IkFault>) -> bool {
        match &mut self.joints {
            ChainJoints::Unbuilt => false,
            ChainJoints::Limb(_) if matches!(outcome, Err(IkFault::MissingBone(_))) => false,
            ChainJoints::Limb(limb) => {
                limb.restore_animated();
                true
            }
            ChainJoints::Iterative(chain) => restore_after_fault(Some(&mut chain.bones), outcome),
        }
    }

    /// The fault of the last frame (None when the chain solved).
    pub fn fault(&self) -> Option<&IkFault> {
        self.faults.current()
    }

    fn ensure_bones(&mut self, tip: Entity, chain: &IkChain, hierarchy: &Hierarchy) -> Result<(), IkFault> {
        let count = if chain.solver == IkSolver::TwoBone { 2 } else { chain.bones.max(1) };
        let key = (chain.root, count, chain.solver);
        if !matches!(self.joints, ChainJoints::Unbuilt) && self.built_for == Some(key) {
            return Ok(());
        }
        self.joints = ChainJoints::Unbuilt;
        let joints =
            chain_entities(tip, if chain.solver == IkSolver::TwoBone { None } else { chain.root }, count, hierarchy)?;
        self.joints = if chain.solver == IkSolver::TwoBone {
            ChainJoints::Limb(Limb::build(&joints, hierarchy)?)
        } else {
            // Only the chain's own joints are gathered: the solve runs in the space of the
            // chain root's parent, whose world transform is composed fresh each frame.
            let parent = hierarchy.get(joints[0]).ok().and_then(|(_, p)| p.map(ChildOf::parent));
            let bones = BoneSet::build(&joints, parent, hierarchy).map_err(IkFault::MissingBone)?;
            let joints = bones.keys.clone();
            ChainJoints::Iterative(Box::new(IterativeChain { bones, joints, buffers: IterativeBuffers::default() }))
        };
        self.built_for = Some(key);
        Ok(())
    }

    /// Solves the chain from this frame's pose (`stops` shares a stop entity's world transform
    /// with the next chain under the same one within this run).
    pub(crate) fn solve(
        &mut self,
        tip: Entity,
        (chain, pole, fade): (&IkChain, Option<&Pole>, Option<&IkFade>),
        world: &ChainWorld,
        stops: &mut StopCache,
    ) {
        self.dirty = false;
        let outcome = self.try_solve(tip, chain, pole, fade, world, stops);
        if outcome.is_err() {
            self.reached = false;
            self.dirty = self.restore_after_fault(&outcome);
        }
        if self.faults.report(tip, IkComponent::Chain, outcome.err(), world.notices) {
            self.warnings += 1;
        }
        if self.dirty
            && let ChainJoints::Limb(limb) = &mut self.joints
        {
            limb.settle();
        }
    }

    fn try_solve(
        &mut self,
        tip: Entity,
        chain: &IkChain,
        pole: Option<&Pole>,
        fade: Option<&IkFade>,
        world: &ChainWorld,
        stops: &mut StopCache,
    ) -> Result<(), IkFault> {
        let hierarchy = world.hierarchy;
        let weight = effective_weight(chain.weight, fade);
        let target = chain.target.resolve(hierarchy)?;
        let pole = pole.map(|p| p.target.resolve(hierarchy)).transpose()?;
        self.ensure_bones(tip, chain, hierarchy)?;
        if chain.solver == IkSolver::TwoBone {
            return self.try_solve_limb(tip, chain, weight, (target, pole), hierarchy, stops);
        }
        if let ChainJoints::Iterative(c) = &mut self.joints
            && c.bones.refresh(hierarchy).is_err()
        {
            // The hierarchy changed under us: rebuild once, then give up for this frame.
            self.joints = ChainJoints::Unbuilt;
            self.ensure_bones(tip, chain, hierarchy)?;
            if let ChainJoints::Iterative(c) = &mut self.joints {
                c.bones.refresh(hierarchy).map_err(IkFault::MissingBone)?;
            }
        }
        let ChainJoints::Iterative(iterative) = &mut self.joints else {
            return Err(IkFault::MissingBone("chain not built".into()));
        };
        let IterativeChain { bones, joints, buffers } = &mut **iterative;
        let target = bones.world_to_model(target);
        let n = joints.len();
        buffers.joints.clear();
        buffers.joints.extend(joints.iter().map(|&j| bones.model[j]));
        buffers.locals.clear();
        buffers.locals.extend(joints.iter().map(|&j| bones.locals[j].rotation));
        buffers.limits.clear();
        buffers.limits.extend(joints.iter().map(|&j| world.limits.get(bones.entities[j]).ok().map(|l| l.0)));
        buffers.corrections.resize(n, Quat::IDENTITY);
        let job = ChainJob {
            tolerance: chain.tolerance,
            max_iterations: chain.max_iterations,
            weight,
            ..ChainJob::new(&buffers.joints, target)
        }
        .with_limits(&buffers.locals, &buffers.limits);
        let warm = if chain.warm_start { Some(&mut buffers.warm) } else { None };
        let solved = match chain.solver {
            IkSolver::Ccd => ik_core::ccd::solve(&job, &mut buffers.scratch, warm, &mut buffers.corrections),
            _ => ik_core::fabrik::solve(&job, &mut buffers.scratch, warm, &mut buffers.corrections),
        }
        .map_err(IkFault::Solver)?;
        for (&j, &c) in joints.iter().zip(&buffers.corrections) {
            apply_correction(&mut bones.locals[j], c);
        }
        self.reached = solved.reached;
        // The solve ran in the root's parent's space: back to world units.
        self.error = solved.error * bones.stop_world.scale.abs().max_element();
        self.iterations = solved.iterations;
        if !bones.changes_are_finite() {
            return Err(IkFault::NonFiniteResult);
        }
        bones.update_model();
        self.dirty = true;
        Ok(())
    }

    /// The two-bone solve on the inline [`Limb`].
    fn try_solve_limb(
        &mut self,
        tip: Entity,
        chain: &IkChain,
        weight: f32,
        (target_world, pole_world): (Vec3, Option<Vec3>),
        hierarchy: &Hierarchy,
        stops: &mut StopCache,
    ) -> Result<(), IkFault> {
        if let ChainJoints::Limb(limb) = &mut self.joints
            && limb.refresh(hierarchy, stops).is_err()
        {
            // The hierarchy changed under us: rebuild once, then give up for this frame.
            self.joints = ChainJoints::Unbuilt;
            self.ensure_bones(tip, chain, hierarchy)?;
            if let ChainJoints::Limb(limb) = &mut self.joints {
                limb.refresh(hierarchy, stops).map_err(IkFault::MissingBone)?;
            }
        }
        let ChainJoints::Limb(limb) = &mut self.joints else {
            return Err(IkFault::MissingBone("chain not built".into()));
        };
        // Target and pole in the root's parent's space.
        let to_model = |p: Vec3| limb.stop_world.inverse_transform_point(p);
        let model = limb.model();
        let job = TwoBoneJob {
            soften: chain.soften,
            weight,
            ..TwoBoneJob::from_model(&model, [0, 1, 2], to_model(target_world), pole_world.map(to_model))
                .ok_or_else(|| IkFault::MissingBone("two-bone joints".into()))?
        };
        let solution = job.run().map_err(IkFault::Solver)?;
        let [root, mid] = &mut limb.locals;
        apply_correction(root, solution.root_correction);
        apply_correction(mid, solution.mid_correction);
        if !limb.changes_are_finite() {
            return Err(IkFault::NonFiniteResult);
        }
        self.reached = solution.reached;
        self.error = (limb.stop_world.transform_point(solution.tip) - target_world).length();
        self.iterations = 1;
        self.dirty = true;
        Ok(())
    }
}
