//! Faults: what went wrong with an IK component, told once per onset — one warning in the log,
//! one [`IkFaulted`] entity event (observe it with `On<IkFaulted>`, or read it as a message),
//! and one [`IkRecovered`] when the component solves again. While a fault lasts the pose stays
//! as animated.
//!
//! ```no_run
//! # use bevy::prelude::*;
//! # use bevy_ik::prelude::*;
//! fn setup(mut commands: Commands, hand: Entity, ball: Entity) {
//!     commands
//!         .entity(hand)
//!         .insert(IkChain::two_bone(IkTarget::Entity(ball)))
//!         .observe(|faulted: On<IkFaulted>| {
//!             if let IkFault::TargetDespawned(_) = faulted.fault {
//!                 info!("the ball is gone; the arm is back to its animation");
//!             }
//!         });
//! }
//! # let _ = setup;
//! ```

use std::fmt;

use bevy::ecs::system::SystemParam;
use bevy::log::warn;
use bevy::prelude::*;
use bevy::utils::Parallel;

/// What went wrong with one IK component.
#[derive(Clone, Debug, PartialEq)]
pub enum IkFault {
    /// A bone entity is missing or not under the expected root (the detail names it).
    MissingBone(String),
    /// A component this one works with is not on the entity (the detail says which).
    MissingComponent(String),
    /// The target (or pole) entity no longer exists.
    TargetDespawned(Entity),
    /// The target (or pole) position is NaN or infinite.
    NonFiniteTarget,
    /// The solver refused the pose (zero-length bone, chain too short, …).
    Solver(ik_core::IkError),
    /// The solver produced a value that is not finite; nothing was written.
    NonFiniteResult,
    /// An animation clip could not be read (the detail names the clip and the cause).
    Clip(String),
    /// An input written by the game does not fit the rig (the detail says which and how).
    Input(String),
}

impl fmt::Display for IkFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IkFault::MissingBone(detail) => write!(f, "bone missing or outside the hierarchy ({detail})"),
            IkFault::MissingComponent(detail) => write!(f, "a component it needs is missing ({detail})"),
            IkFault::TargetDespawned(e) => write!(f, "target entity {e} no longer exists"),
            IkFault::NonFiniteTarget => f.write_str("target or pole is NaN or infinite"),
            IkFault::Solver(err) => write!(f, "solver refused the pose: {err}"),
            IkFault::NonFiniteResult => f.write_str("solver result was not finite"),
            IkFault::Clip(detail) => write!(f, "animation clip unreadable ({detail})"),
            IkFault::Input(detail) => write!(f, "input that does not fit the rig ({detail})"),
        }
    }
}

impl std::error::Error for IkFault {}

/// Which IK component a fault is about.
#[derive(Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IkComponent {
    /// An [`crate::chain::IkChain`] (the event's entity is the chain's tip).
    Chain,
    /// A [`crate::feet::FootPlacer`] (and its [`crate::feet::FootLock`]) on a character root.
    FootPlacer,
    /// A [`crate::look_at::LookAtSpread`] on a character root.
    LookAt,
    /// A [`crate::warping::PoseWarping`] on a character root (its feet are still placed, on
    /// the unwarped pose).
    PoseWarping,
    /// A [`crate::root_motion::RootMotion`] on a character root (feature `animation`).
    RootMotion,
    /// A [`crate::procedural_gait::ProceduralGait`] on a creature (its legs' own solves report
    /// as [`IkComponent::Chain`] on their foot bones).
    ProceduralGait,
}

impl IkComponent {
    fn name(self) -> &'static str {
        match self {
            IkComponent::Chain => "IkChain",
            IkComponent::FootPlacer => "FootPlacer",
            IkComponent::LookAt => "LookAtSpread",
            IkComponent::PoseWarping => "PoseWarping",
            IkComponent::RootMotion => "RootMotion",
            IkComponent::ProceduralGait => "ProceduralGait",
        }
    }

    /// What is done instead while the fault lasts.
    fn fallback(self) -> &'static str {
        match self {
            IkComponent::PoseWarping => "placing the feet on the pose as animated, unwarped",
            IkComponent::RootMotion => "reporting no travel for what it cannot read and leaving that pose as animated",
            _ => "leaving the pose as animated",
        }
    }
}

/// A component started failing (or failed differently): triggered on its entity once per
/// onset, in `Last` of the frame it happened, and written as a message.
#[derive(EntityEvent, Message, Clone, Debug, PartialEq)]
pub struct IkFaulted {
    /// The entity holding the component.
    pub entity: Entity,
    /// Which component.
    pub component: IkComponent,
    /// What went wrong.
    pub fault: IkFault,
}

/// A component that had faulted solved again.
#[derive(EntityEvent, Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct IkRecovered {
    /// The entity holding the component.
    pub entity: Entity,
    /// Which component.
    pub component: IkComponent,
}

/// One change of a component's fault, gathered on any thread during a solve.
#[derive(Clone, Debug)]
pub(crate) enum FaultNotice {
    Faulted(IkFaulted),
    Recovered(IkRecovered),
}

/// Fault changes gathered by one system's (parallel) solve, sent as messages after it.
pub(crate) type FaultNotices = Parallel<Vec<FaultNotice>>;

/// A solving system's fault changes: gathered on any thread during its solve
/// (`FaultSender::notices`), then sent as [`IkFaulted`] / [`IkRecovered`] messages.
#[derive(SystemParam)]
pub struct FaultSender<'w, 's> {
    notices: Local<'s, FaultNotices>,
    faulted: MessageWriter<'w, IkFaulted>,
    recovered: MessageWriter<'w, IkRecovered>,
}

impl FaultSender<'_, '_> {
    /// Where the solve gathers its changes (shared by the threads of a parallel solve).
    pub(crate) fn notices(&self) -> &FaultNotices {
        &self.notices
    }

    /// Sends every gathered change (nothing to do, and no allocation, when there are none).
    pub(crate) fn send(&mut self) {
        for notice in self.notices.iter_mut().flat_map(|list| list.drain(..)) {
            match notice {
                FaultNotice::Faulted(e) => {
                    self.faulted.write(e);
                }
                FaultNotice::Recovered(e) => {
                    self.recovered.write(e);
                }
            }
        }
    }
}

/// Triggers the frame's fault messages as entity events, so observers see them (runs in `Last`
/// only when there are some).
pub(crate) fn trigger_fault_events(
    mut faulted: MessageReader<IkFaulted>,
    mut recovered: MessageReader<IkRecovered>,
    mut commands: Commands,
) {
    for event in faulted.read() {
        commands.trigger(event.clone());
    }
    for event in recovered.read() {
        commands.trigger(*event);
    }
}

/// Whether this frame wrote fault messages.
pub(crate) fn fault_messages_written(faulted: Res<Messages<IkFaulted>>, recovered: Res<Messages<IkRecovered>>) -> bool {
    !faulted.is_empty() || !recovered.is_empty()
}

/// Remembers the last reported fault so each one is told once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultLatch {
    last: Option<IkFault>,
}

impl FaultLatch {
    /// Records this frame's outcome; on a new fault logs one warning and queues an
    /// [`IkFaulted`], on recovery queues an [`IkRecovered`]. Returns whether a fault appeared.
    pub(crate) fn report(
        &mut self,
        owner: Entity,
        component: IkComponent,
        fault: Option<IkFault>,
        notices: &FaultNotices,
    ) -> bool {
        if fault == self.last {
            return false;
        }
        let appeared = fault.is_some();
        let notice = match &fault {
            Some(fault) => {
                warn!("bevy_ik: {} on {owner}: {fault}; {}", component.name(), component.fallback());
                FaultNotice::Faulted(IkFaulted { entity: owner, component, fault: fault.clone() })
            }
            None => FaultNotice::Recovered(IkRecovered { entity: owner, component }),
        };
        notices.borrow_local_mut().push(notice);
        self.last = fault;
        appeared
    }

    /// The fault reported last (None when the last frame solved).
    pub fn current(&self) -> Option<&IkFault> {
        self.last.as_ref()
    }
}
