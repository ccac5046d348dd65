//! The one write-back of bevy_ik: how every IK component — chains, feet, look-at, procedural
//! gaits — puts its solved locals into its bones' `Transform`s.
//!
//! Each system solves its components (in parallel), then writes the dirty ones in one serial
//! pass through [`GatheredBones::write_back`]: only the bones whose new local differs from
//! what their `Transform` held are written (untouched bones keep their change ticks), each by
//! [`write_local`], the only place IK writes a bone's local, which never writes a non-finite
//! value.

use bevy::prelude::*;
use ik_core::Xform;

/// The one gather/write-back protocol of every IK component's bones (`BoneSet` for any set,
/// the inline two-bone `Limb`): each frame the locals are gathered fresh (`animated_input`),
/// solved into an output, and only the bones whose output differs from what their `Transform`
/// held are written; what was written is remembered, so a bone nothing re-animated next frame
/// reads as last frame's input, not as IK's own output.
pub(crate) trait GatheredBones {
    /// How many bones may be written.
    fn len(&self) -> usize;
    /// The entity of bone `i`.
    fn entity(&self, i: usize) -> Entity;
    /// The local to write into bone `i`: `Some` when it differs from what its `Transform`
    /// held when read this frame.
    fn pending(&self, i: usize) -> Option<Xform>;
    /// Remembers the output as what IK leaves in the `Transform`s (after each write-back).
    fn mark_written(&mut self);
    /// Puts the animated pose back as the output (after a fault: the pose left as animated).
    fn restore_animated(&mut self);
    /// True when every changed local is finite (nothing non-finite may reach a `Transform`).
    fn changes_are_finite(&self) -> bool;

    /// Writes the pending locals (rotation and translation) and remembers them.
    fn write_back(&mut self, transforms: &mut Query<&mut Transform>) {
        for i in 0..self.len() {
            if let Some(new) = self.pending(i) {
                write_local(transforms, self.entity(i), new);
            }
        }
        self.mark_written();
    }
}

/// Writes `local`'s rotation and translation (not its scale) into `bone`'s `Transform`.
/// Nothing is written when `local` is not finite or the bone has no `Transform`; returns
/// whether it was written.
pub(crate) fn write_local(transforms: &mut Query<&mut Transform>, bone: Entity, local: Xform) -> bool {
    if !(local.rotation.is_finite() && local.translation.is_finite()) {
        return false;
    }
    let Ok(mut transform) = transforms.get_mut(bone) else { return false };
    transform.rotation = local.rotation;
    transform.translation = local.translation;
    true
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::RunSystemOnce;

    use super::*;

    /// Runs [`write_local`] once on `world`.
    fn run(world: &mut World, bone: Entity, local: Xform) -> bool {
        world.run_system_once(move |mut q: Query<&mut Transform>| write_local(&mut q, bone, local)).unwrap()
    }

    #[test]
    fn a_finite_local_is_written_and_a_non_finite_one_is_skipped() {
        let mut world = World::new();
        let scale = Vec3::splat(2.0);
        let bone = world.spawn(Transform::from_xyz(1.0, 2.0, 3.0).with_scale(scale)).id();
        let turned =
            Xform { translation: Vec3::new(0.0, 1.0, 0.0), rotation: Quat::from_rotation_x(0.5), scale: Vec3::ONE };
        assert!(run(&mut world, bone, turned));
        let held = *world.get::<Transform>(bone).unwrap();
        assert_eq!((held.translation, held.rotation, held.scale), (turned.translation, turned.rotation, scale));
        for bad in [
            Xform { rotation: Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), ..turned },
            Xform { translation: Vec3::new(f32::INFINITY, 0.0, 0.0), ..turned },
        ] {
            assert!(!run(&mut world, bone, bad));
            assert_eq!(*world.get::<Transform>(bone).unwrap(), held, "a non-finite local reached the Transform");
        }
        let gone = world.spawn_empty().id();
        assert!(!run(&mut world, gone, turned));
    }
}
