//! Warn once: a fault is logged when it first appears (or changes), not every frame.

use bevy::log::warn;
use bevy::prelude::Entity;

/// What went wrong with one IK component this frame.
#[derive(Clone, Debug, PartialEq)]
pub enum IkFault {
    /// A bone entity is missing or not under the expected root.
    MissingBone(String),
    /// The target entity no longer exists.
    TargetDespawned(Entity),
    /// The target (or pole) position is NaN or infinite.
    NonFiniteTarget,
    /// The solver refused the pose.
    Solver(ik_core::IkError),
    /// The solver produced a value that is not finite; nothing was written.
    NonFiniteResult,
}

/// Remembers the last reported fault so each one is logged once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultLatch {
    last: Option<IkFault>,
}

impl FaultLatch {
    /// Records this frame's outcome; logs a warning only when a new fault appears, and
    /// returns whether it did.
    pub fn report(&mut self, owner: Entity, what: &str, fault: Option<IkFault>) -> bool {
        let mut logged = false;
        if fault != self.last {
            if let Some(fault) = &fault {
                warn!("bevy_ik: {what} on {owner}: {}; leaving the pose as animated", describe(fault));
                logged = true;
            }
            self.last = fault;
        }
        logged
    }

    /// The fault reported last (None when the last frame solved).
    pub fn current(&self) -> Option<&IkFault> {
        self.last.as_ref()
    }
}

fn describe(fault: &IkFault) -> String {
    match fault {
        IkFault::MissingBone(detail) => format!("bone missing or outside the hierarchy ({detail})"),
        IkFault::TargetDespawned(e) => format!("target entity {e} no longer exists"),
        IkFault::NonFiniteTarget => "target or pole is NaN or infinite".to_string(),
        IkFault::Solver(err) => format!("solver refused the pose: {err}"),
        IkFault::NonFiniteResult => "solver result was not finite".to_string(),
    }
}
