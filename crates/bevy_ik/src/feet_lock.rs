//! Foot locking for the placer: [`lock_toes`] turns each toe's lock into a horizontal shift of
//! its foot, and planted feet ride what they stand on: each locked toe remembers the collider under it
//! and that collider's world transform; when the transform has moved by the next frame (a
//! moving or turning platform), the lock's held point is moved by the same rigid motion
//! ([`FootLockState::carry`]) before the lock is updated.
//!
//! The collider's transform is composed fresh from the local `Transform`s ([`world_of`]), so a
//! platform moved this frame (before the physics step and the IK) counts this frame, not after
//! transform propagation. Cost: one ray per locked foot per frame.

use bevy::prelude::*;
use ik_core::Xform;
use ik_core::foot_lock::{ContactHeuristic, FootLockState};
use ik_core::foot_placement::{FootRig, leg_reaches};

use crate::bones::{Hierarchy, world_of};
use crate::fault::IkFault;
use crate::feet::{ContactSource, FootContacts, FootLock, FootStatus};
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

/// What foot locking reads and keeps per leg.
pub(crate) struct LockMemory<'a> {
    pub locks: &'a mut Vec<Option<FootLockState>>,
    pub rigs: &'a [FootRig],
    /// Per leg, footstep prediction's landing shift (model space): the toe the lock follows.
    pub steer: &'a [Vec3],
    /// The animated pose (model space), for whether a leg reaches its held toe.
    pub model: &'a [Xform],
    /// Per leg, the animated floor under the foot (model space; empty: 0), which the contact
    /// heuristic measures a toe's height from.
    pub floors: &'a [f32],
}

/// Foot locking: for each leg (its ball: the sole under the toe joint, or the sole's ball point), decide contact and update its lock state from the
/// animated toe; the horizontal distance from the animated toe to the lock's target becomes
/// that foot's shift (model space), so placement probes and puts the foot where the lock holds
/// it, at the height the ground there asks for.
pub(crate) fn lock_toes(
    (lock, contacts): (&FootLock, Option<&FootContacts>),
    animated_toes: &[Option<Vec3>],
    to_world: Xform,
    memory: LockMemory,
    feet: &mut [FootStatus],
    shifts: &mut [Vec3],
    dt: f32,
) -> Result<(), IkFault> {
    let LockMemory { locks, rigs, steer, model, floors } = memory;
    for (i, animated) in animated_toes.iter().enumerate() {
        let Some(animated) = *animated else { continue };
        let steered = animated + steer.get(i).copied().unwrap_or(Vec3::ZERO);
        let animated_world = to_world.transform_point(steered);
        // Heights are placement's business: the lock works on the ground plane (y = 0), so a
        // root climbing or descending under a held toe never reads as the leg failing to reach.
        let flat = Vec3::new(animated_world.x, 0.0, animated_world.z);
        let memory = locks[i].get_or_insert_with(|| FootLockState::new(flat));
        let height = animated.y - floors.get(i).copied().unwrap_or(0.0);
        let contact = match contacts.map(|c| &c.0) {
            Some(ContactSource::Manual(flags)) => flags.get(i).copied().unwrap_or(false),
            Some(ContactSource::Heuristic(heuristic)) => heuristic.in_contact(height, memory.toe_speed(flat, dt)),
            None => ContactHeuristic::default().in_contact(height, memory.toe_speed(flat, dt)),
        };
        // Whether the leg reaches the held toe, its ankle moved as far as the toe is held from
        // where the clip has it: only a hold out of reach is let go before the contact ends.
        let held_model =
            to_world.inverse_transform_point(Vec3::new(memory.position.x, animated_world.y, memory.position.z));
        let leg = &rigs[i].leg;
        let reaches = model.get(leg.ankle).is_some_and(|ankle| {
            let shift = held_model - animated;
            leg_reaches(model, leg, ankle.translation + Vec3::new(shift.x, 0.0, shift.z))
        });
        let held =
            memory.update_within_reach(flat, contact, 0.0, dt, &lock.settings, reaches).map_err(IkFault::Solver)?;
        let target_world = Vec3::new(held.x, animated_world.y, held.z);
        feet[i].contact = contact;
        feet[i].locked = memory.locked;
        let shift = to_world.inverse_transform_point(target_world) - animated;
        shifts[i] = Vec3::new(shift.x, 0.0, shift.z);
    }
    Ok(())
}

/// Warns once (until the root is upright again) when a character root with a [`FootLock`] is
/// tilted more than 5° from up: the lock holds a planted foot on the root's ground plane, and as
/// placement lifts or lowers the foot along the root's up it slides along the slope. Returns
/// whether it warned.
pub(crate) fn warn_tilted_root(root: Entity, to_world: Xform, warned: &mut bool) -> bool {
    let tilt = (to_world.rotation * Vec3::Y).angle_between(Vec3::Y);
    if tilt > 5f32.to_radians() && !*warned {
        *warned = true;
        warn!(
            "bevy_ik: the character root {root} has a FootLock and is tilted {:.0}° from up: the lock holds a \
             planted foot on the root's ground plane, so the foot slides along the slope as placement lifts or \
             lowers it. Turn the root about up only and tilt the body with BodyFit (CreatureIk adds it).",
            tilt.to_degrees()
        );
        return true;
    }
    if tilt < 2f32.to_radians() {
        *warned = false;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tilted_root_under_a_lock_is_warned_about_once_until_it_is_upright() {
        let root = Entity::from_raw_u32(7).unwrap();
        let tilted = |degrees: f32| Xform { rotation: Quat::from_rotation_x(degrees.to_radians()), ..Xform::IDENTITY };
        let mut warned = false;
        let seen: Vec<bool> =
            [0.0, 20.0, 20.0, 4.0, 20.0, 1.0, 20.0].map(|d| warn_tilted_root(root, tilted(d), &mut warned)).into();
        assert_eq!(seen, [false, true, false, false, false, false, true], "once per tilt, again after upright");
    }
}
