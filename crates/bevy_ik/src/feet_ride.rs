//! Planted feet that ride what they stand on: each locked toe remembers the collider under it
//! and that collider's world transform; when the transform has moved by the next frame (a
//! moving or turning platform), the lock's held point is moved by the same rigid motion
//! ([`FootLockState::carry`]) before the lock is updated.
//!
//! The collider's transform is composed fresh from the local `Transform`s ([`world_of`]), so a
//! platform moved this frame (before the physics step and the IK) counts this frame, not after
//! transform propagation. Cost: one ray per locked foot per frame.

use bevy::prelude::*;
use ik_core::Xform;
use ik_core::foot_lock::FootLockState;

use crate::bones::{Hierarchy, world_of};
use crate::feet::FootStatus;
use crate::ground::GroundProbe;

/// What a locked toe stands on: the collider entity and its world transform when last seen.
pub(crate) type Surface = Option<(Entity, Xform)>;

/// Moves each held lock with its surface's motion since last frame (`feet` holds last frame's
/// ground under each foot, for the height the motion acts at).
pub(crate) fn carry_locks(
    locks: &mut [Option<FootLockState>],
    surfaces: &mut [Surface],
    feet: &[FootStatus],
    hierarchy: &Hierarchy,
) {
    for (i, (lock, surface)) in locks.iter_mut().zip(surfaces.iter_mut()).enumerate() {
        let (Some(lock), Some((entity, last))) = (lock.as_mut(), surface.as_mut()) else { continue };
        let Some(now) = world_of(*entity, hierarchy) else {
            *surface = None;
            continue;
        };
        if now != *last {
            let height = feet.get(i).map_or(now.translation.y, |f| f.ground_point.y);
            lock.carry(now.mul_xform(&last.inverse()), height);
            *last = now;
        }
    }
}

/// After placement: the surface under each locked toe (a ray down from `ray_start` above it,
/// `ray_length` long, world units), kept with its world transform; an unlocked foot rides
/// nothing.
pub(crate) fn find_surfaces(
    surfaces: &mut [Surface],
    feet: &[FootStatus],
    (probe, root): (&GroundProbe, Entity),
    (up, ray_start, ray_length): (Vec3, f32, f32),
    hierarchy: &Hierarchy,
) {
    for (surface, foot) in surfaces.iter_mut().zip(feet) {
        if !foot.locked {
            *surface = None;
            continue;
        }
        let hit = probe.cast_surface(foot.toe_world + up * ray_start, -up, ray_length, root);
        let Some(entity) = hit.and_then(|(_, e)| e) else {
            *surface = None;
            continue;
        };
        if surface.is_none_or(|(e, _)| e != entity) {
            *surface = world_of(entity, hierarchy).map(|at| (entity, at));
        }
    }
}
