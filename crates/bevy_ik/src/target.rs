//! Targets: a world position or an entity to follow.

use bevy::ecs::entity::MapEntities;
use bevy::prelude::*;

use crate::bones::{Hierarchy, world_of};
use crate::fault::IkFault;

/// Where something should go: a fixed world position, or an entity whose world position is
/// read fresh each frame (from this frame's local transforms, so a target moved in `Update`
/// is honoured the same frame).
#[derive(Reflect, MapEntities, Clone, Copy, Debug, PartialEq)]
pub enum IkTarget {
    /// A point in world space.
    Position(Vec3),
    /// An entity's world position.
    Entity(#[entities] Entity),
}

impl Default for IkTarget {
    fn default() -> Self {
        IkTarget::Position(Vec3::ZERO)
    }
}

impl IkTarget {
    /// The target's world position now.
    pub fn resolve(&self, hierarchy: &Hierarchy) -> Result<Vec3, IkFault> {
        let position = match *self {
            IkTarget::Position(p) => p,
            IkTarget::Entity(e) => world_of(e, hierarchy).ok_or(IkFault::TargetDespawned(e))?.translation,
        };
        if position.is_finite() { Ok(position) } else { Err(IkFault::NonFiniteTarget) }
    }
}
