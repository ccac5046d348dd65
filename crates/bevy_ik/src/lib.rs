//! # bevy_ik
//!
//! Inverse kinematics and procedural locomotion for Bevy: put a component on a limb and the
//! animated pose is corrected in the same frame.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_ik::prelude::*;
//!
//! fn setup(mut commands: Commands, hand: Entity, ball: Entity, elbow_hint: Entity) {
//!     // Two-bone IK on the tip bone (the hand): upper arm and forearm bend so the hand
//!     // reaches the ball, the elbow bending toward `elbow_hint`.
//!     commands.entity(hand).insert((
//!         IkChain::two_bone(IkTarget::Entity(ball)),
//!         Pole::new(IkTarget::Entity(elbow_hint)),
//!     ));
//! }
//! # let _ = setup;
//! ```
//!
//! ## Order of work in a frame
//! All systems run in [`PostUpdate`] inside the public [`IkSystems`] sets, after Bevy's
//! `AnimationSystems` (so this frame's animated pose is what gets corrected) and before
//! `TransformSystems::Propagate` (so the correction is visible this frame). With the `rapier`
//! feature they also run after rapier's writeback, so ground traces see this frame's physics
//! (Avian, feature `avian`, steps in `FixedPostUpdate`, which is always done by then).
//!
//! Each system gathers the bones it needs **fresh from this frame's local `Transform`s**,
//! calls [`ik_core`] (all maths lives there), and writes back **local rotations only** (plus the
//! pelvis translation for foot placement, and the foot's translation for a foot that hangs from
//! the root or a control bone instead of the shin). `GlobalTransform` is never written.
//!
//! ## Bad input
//! A despawned target, a missing bone, a zero-length bone or a NaN target leaves the pose as
//! animated, logs one warning (not one per frame) and triggers one [`fault::IkFaulted`] entity
//! event on the component's entity until the problem goes away ([`fault::IkRecovered`]).

#![warn(missing_docs)]

mod bind_pose;
pub mod body_fit;
pub mod bones;
pub mod budget;
pub mod chain;
mod chain_system;
#[cfg(feature = "animation")]
pub mod clip_contacts;
pub mod creature;
pub mod fade;
pub mod fault;
pub mod feet;
mod feet_lock;
mod feet_system;
pub mod footstep;
mod gait_surfaces;
#[cfg(feature = "gizmos")]
pub mod gizmos;
pub mod ground;
pub mod humanoid;
mod limb;
pub mod lod;
pub mod look_at;
#[cfg(feature = "scene")]
mod mesh_sole;
pub mod procedural_gait;
#[cfg(feature = "animation")]
pub mod retarget;
pub mod rig;
#[cfg(feature = "animation")]
pub mod root_motion;
pub mod stairs;
pub mod target;
pub mod warping;
mod write_back;

use bevy::app::AnimationSystems;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

pub use ik_core;

/// Everything a user needs in one import.
pub mod prelude {
    pub use crate::body_fit::{BodyFit, BodyFitState};
    pub use crate::budget::{IkBudget, IkBudgetReport};
    pub use crate::chain::{IkChain, IkChainState, IkSolver, JointLimit, Pole};
    #[cfg(feature = "animation")]
    pub use crate::clip_contacts::{
        ClipContactLabels, ClipContacts, ClipContactsFailed, ClipContactsLabelled, LabelClipContacts,
    };
    pub use crate::creature::{CreatureIk, CreatureRigFailed, CreatureRigged, RiggedCreature};
    pub use crate::fade::IkFade;
    pub use crate::fault::{IkComponent, IkFault, IkFaulted, IkRecovered};
    pub use crate::feet::{
        ContactSource, FootContacts, FootLock, FootPlacer, FootPlacerState, FootStatus, LegBones, LegRest,
    };
    pub use crate::footstep::FootstepPrediction;
    #[cfg(feature = "gizmos")]
    pub use crate::gizmos::IkGizmos;
    pub use crate::ground::{GroundPlane, IkGround, IkGroundFilter};
    pub use crate::humanoid::{
        HumanoidBones, HumanoidIk, HumanoidRigFailed, HumanoidRigged, RigChoice, RigFailed, RiggedHumanoid,
    };
    pub use crate::lod::{IkLevel, IkLod, IkLodSettings, IkLodState, IkLodViewer};
    pub use crate::look_at::{LookAtJoint, LookAtSpread, LookAtState};
    pub use crate::procedural_gait::{GaitLeg, ProceduralGait, ProceduralGaitState};
    #[cfg(feature = "animation")]
    pub use crate::retarget::{ClipsRetargeted, RestPose, RetargetClips, RetargetClipsFailed, RetargetedClips};
    pub use crate::rig::{MissingBones, find_chain};
    #[cfg(feature = "animation")]
    pub use crate::root_motion::{RootMotion, RootMotionApply, RootMotionRig, RootMotionState};
    pub use crate::stairs::{StairFinder, StairsAhead};
    pub use crate::target::IkTarget;
    pub use crate::warping::{PoseWarping, PoseWarpingState, WarpSpineJoint, WarpVelocity};
    pub use crate::{IkLodPlugin, IkPlugin, IkSettings, IkSystems};
    pub use ik_core::body_fit::BodyFitSettings;
}

/// The system sets bevy_ik runs in, in [`PostUpdate`], chained in this order. Order your own
/// systems against them (e.g. move a target `.before(IkSystems::Prepare)`).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IkSystems {
    /// Advances weight fades.
    Prepare,
    /// Root motion (feature `animation`): the clips' travel reported (and applied to the
    /// entity when asked) and taken out of the pose, so the feet see it in place. Move a
    /// character by its `RootMotionState` here: `.after(IkSystems::RootMotion)
    /// .before(IkSystems::Feet)`.
    RootMotion,
    /// Pose warping, body fitting, footstep prediction, foot locking and foot placement (moves
    /// the pelvis, so it runs first), and procedural gaits.
    Feet,
    /// Look-at spread down the spine.
    LookAt,
    /// Limb chains: two-bone, FABRIK, CCD (hands hang from the spine, so after the look-at).
    Chains,
}

/// Global switches, live-editable (it is a reflected resource).
#[derive(Resource, Reflect, Clone, Debug)]
#[reflect(Resource)]
pub struct IkSettings {
    /// Master switch: when false no IK system changes any transform (root motion, which is
    /// locomotion rather than a correction, still runs).
    pub enabled: bool,
    /// Solve characters on all cores (`par_iter_mut`); turn off to measure single-threaded.
    pub parallel: bool,
}

/// How the IK systems split their components over threads: 8 batches per thread, so a thread
/// that wakes late finds work left instead of the other thread's whole half. On a 2-core VM the
/// full character at N = 100 went from 270 to 235 µs per frame (no change at N = 10 000).
pub(crate) fn batching() -> bevy::ecs::batching::BatchingStrategy {
    bevy::ecs::batching::BatchingStrategy::new().batches_per_thread(8)
}

impl Default for IkSettings {
    fn default() -> Self {
        IkSettings { enabled: true, parallel: true }
    }
}

/// The level of detail and the frame budget: levels chosen in [`IkSystems::Prepare`], the IK
/// window timed from there to the end of [`IkSystems::Chains`].
fn add_lod(app: &mut App) {
    app.init_resource::<lod::IkLodSettings>()
        .init_resource::<budget::IkBudget>()
        .init_resource::<budget::IkBudgetReport>()
        .register_type::<lod::IkLevel>()
        .register_type::<lod::IkLod>()
        .register_type::<lod::IkLodViewer>()
        .register_type::<lod::IkLodSettings>()
        .register_type::<lod::IkLodState>()
        .register_type::<budget::IkBudget>()
        .register_type::<budget::IkBudgetReport>();
    // Inside bevy_ik's own sets: no ordering against anyone else's systems.
    let any_lod = any_with_component::<lod::IkLod>;
    app.add_systems(
        PostUpdate,
        (budget::start_ik_clock, lod::choose_levels, budget::assign_rates)
            .chain()
            .in_set(IkSystems::Prepare)
            .run_if(any_lod),
    )
    .add_systems(
        PostUpdate,
        budget::stop_ik_clock.in_set(IkSystems::Chains).after(chain_system::solve_chains).run_if(any_lod),
    );
}

/// Adds the level of detail and the frame budget ([`lod`], [`budget`]): their resources and the
/// systems that choose levels and rates, in [`IkSystems::Prepare`] and [`IkSystems::Chains`].
/// Add it next to [`IkPlugin`] in an app that uses [`lod::IkLod`]; an app without it has the
/// same schedule as before these existed.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// App::new().add_plugins((MinimalPlugins, IkPlugin::default(), IkLodPlugin)).run();
/// ```
#[derive(Default)]
pub struct IkLodPlugin;

impl Plugin for IkLodPlugin {
    fn build(&self, app: &mut App) {
        add_lod(app);
    }
}

/// Adds bevy_ik's components, resources and systems.
#[derive(Default)]
pub struct IkPlugin {
    /// Initial global settings.
    pub settings: IkSettings,
}

impl Plugin for IkPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.settings.clone());
        register_types(app);
        ground::build(app);

        app.configure_sets(
            PostUpdate,
            (IkSystems::Prepare, IkSystems::RootMotion, IkSystems::Feet, IkSystems::LookAt, IkSystems::Chains)
                .chain()
                .after(AnimationSystems)
                .before(TransformSystems::Propagate),
        );
        #[cfg(feature = "rapier")]
        app.configure_sets(PostUpdate, IkSystems::Prepare.after(bevy_rapier3d::plugin::PhysicsSet::Writeback));

        app.add_message::<fault::IkFaulted>().add_message::<fault::IkRecovered>().register_type::<fault::IkComponent>();
        app.add_systems(Last, fault::trigger_fault_events.run_if(fault::fault_messages_written));
        add_rigging(app);
        #[cfg(feature = "animation")]
        add_clip_tools(app);
        add_ik_systems(app);
        #[cfg(feature = "animation")]
        add_root_motion(app);

        #[cfg(feature = "gizmos")]
        app.add_plugins(gizmos::IkGizmosPlugin);
    }
}

/// Registers the reflected types of bevy_ik's components (root motion's: `add_root_motion`).
fn register_types(app: &mut App) {
    app.register_type::<IkSettings>()
        .register_type::<target::IkTarget>()
        .register_type::<chain::IkChain>()
        .register_type::<chain::IkSolver>()
        .register_type::<chain::Pole>()
        .register_type::<chain::JointLimit>()
        .register_type::<fade::IkFade>()
        .register_type::<look_at::LookAtSpread>()
        .register_type::<look_at::LookAtJoint>()
        .register_type::<look_at::LookAtState>()
        .register_type::<feet::FootPlacer>()
        .register_type::<feet::LegBones>()
        .register_type::<feet::LegRest>()
        .register_type::<feet::FootLock>()
        .register_type::<feet::FootContacts>()
        .register_type::<footstep::FootstepPrediction>()
        .register_type::<feet::ContactSource>()
        .register_type::<feet::FootPlacerState>()
        .register_type::<feet::FootStatus>()
        .register_type::<chain::IkChainState>()
        .register_type::<creature::CreatureIk>()
        .register_type::<creature::CreatureRigFailed>()
        .register_type::<humanoid::HumanoidIk>()
        .register_type::<humanoid::RigChoice>()
        .register_type::<humanoid::RigFailed>()
        .register_type::<warping::PoseWarping>()
        .register_type::<body_fit::BodyFit>()
        .register_type::<body_fit::BodyFitState>()
        .register_type::<warping::PoseWarpingState>()
        .register_type::<warping::WarpVelocity>()
        .register_type::<warping::WarpSpineJoint>()
        .register_type::<stairs::StairFinder>()
        .register_type::<stairs::StairsAhead>()
        .register_type::<procedural_gait::ProceduralGait>()
        .register_type::<procedural_gait::GaitLeg>()
        .register_type::<procedural_gait::ProceduralGaitState>();
}

/// Rigging: humanoids and creatures rigged in `PreUpdate`, their rigs watched in `PostUpdate`.
fn add_rigging(app: &mut App) {
    // Rigging in `PreUpdate` (before the frame's animation and IK); a rig whose bones are
    // gone is taken down in `PostUpdate` before the IK systems touch them.
    #[cfg(feature = "scene")]
    app.add_observer(humanoid::rig_when_scene_ready);
    app.add_systems(PreUpdate, creature::rig_creatures.run_if(any_with_component::<creature::CreatureIk>));
    app.add_systems(PreUpdate, humanoid::rig_humanoids.run_if(any_with_component::<humanoid::RigPending>)).add_systems(
        PostUpdate,
        (
            humanoid::watch_rigs.run_if(any_with_component::<humanoid::RiggedHumanoid>),
            creature::watch_creatures.run_if(any_with_component::<creature::RiggedCreature>),
        )
            .before(AnimationSystems),
    );
}

/// Clip retargeting and contact labelling (feature `animation`), in `PreUpdate` and `Update`.
#[cfg(feature = "animation")]
fn add_clip_tools(app: &mut App) {
    app.add_systems(PreUpdate, retarget::capture_rest_poses.run_if(any_with_component::<retarget::RetargetClips>))
        .add_systems(Update, retarget::retarget_clips.run_if(any_with_component::<retarget::RetargetClips>));
    app.add_systems(
        PreUpdate,
        clip_contacts::capture_rest_poses.run_if(any_with_component::<clip_contacts::LabelClipContacts>),
    )
    .add_systems(
        Update,
        clip_contacts::label_clip_contacts.run_if(any_with_component::<clip_contacts::LabelClipContacts>),
    );
}

/// The IK systems, each in its [`IkSystems`] set.
fn add_ik_systems(app: &mut App) {
    // Each system runs only while a component it works on exists: a skipped system costs
    // the executor a condition check instead of a task hand-off to a worker thread (a few
    // µs per system per frame, whatever the number of characters).
    app.add_systems(
        PostUpdate,
        fade::advance_fades.in_set(IkSystems::Prepare).run_if(any_with_component::<fade::IkFade>),
    )
    .add_systems(
        PostUpdate,
        stairs::find_stairs.in_set(IkSystems::Prepare).run_if(any_with_component::<stairs::StairFinder>),
    )
    .add_systems(
        PostUpdate,
        body_fit::warn_without_placer.in_set(IkSystems::Prepare).run_if(any_with_component::<body_fit::BodyFit>),
    )
    // The feet systems write the same `Transform`s and fault messages: one fixed order, so
    // a run is the same whatever order the executor would pick (no schedule ambiguity).
    .add_systems(
        PostUpdate,
        (
            feet_system::place_feet.run_if(any_with_component::<feet::FootPlacer>),
            procedural_gait::walk_creatures.run_if(any_with_component::<procedural_gait::ProceduralGait>),
            warping::report_missing_placer.run_if(any_with_component::<warping::PoseWarping>),
        )
            .chain()
            .in_set(IkSystems::Feet),
    )
    .add_systems(
        PostUpdate,
        look_at::solve_look_at.in_set(IkSystems::LookAt).run_if(any_with_component::<look_at::LookAtSpread>),
    )
    .add_systems(
        PostUpdate,
        chain_system::solve_chains.in_set(IkSystems::Chains).run_if(any_with_component::<chain::IkChain>),
    );
}

/// Root motion (feature `animation`): its types and systems.
#[cfg(feature = "animation")]
fn add_root_motion(app: &mut App) {
    app.register_type::<root_motion::RootMotion>()
        .register_type::<root_motion::RootMotionApply>()
        .register_type::<root_motion::RootMotionRig>()
        .register_type::<root_motion::RootMotionState>()
        .add_systems(
            PostUpdate,
            root_motion::drive_root_motion
                .in_set(IkSystems::RootMotion)
                .run_if(any_with_component::<root_motion::RootMotion>),
        )
        .add_systems(
            PostUpdate,
            root_motion::note_poses
                .in_set(IkSystems::Chains)
                .after(chain_system::solve_chains)
                .run_if(any_with_component::<root_motion::RootMotionState>),
        );
}
