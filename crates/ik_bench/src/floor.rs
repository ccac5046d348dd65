//! The floor: what any IK on these characters must at least do, with no maths at all.
//!
//! **Method.** [`floor`] reads each bone the full character's IK touches ([`Touched`]) and
//! writes it back once (its rotation re-normalized, so the store is real), as one parallel
//! linear pass over those bones: the memory-bound minimum. [`floor_gather`] does the same read
//! and write per character through entity look-ups, parallel reads into a per-character buffer
//! then one serial write pass, which is the access pattern bevy_ik's systems use (shared read
//! queries in `par_iter_mut`, writes after).
//!
//! **Invariants.** Both leave every pose as it was (up to rounding of the re-normalization).

use bevy::prelude::*;

use crate::rig::Touched;

/// Reads and writes every touched bone's local transform once (parallel, linear).
pub fn floor(mut bones: Query<&mut Transform, With<Touched>>) {
    bones.par_iter_mut().for_each(|mut transform| {
        let read = *transform;
        *transform = Transform { rotation: read.rotation.normalize(), ..read };
    });
}

/// One character's touched bones and a buffer for their locals (on the character root).
#[derive(Component, Clone, Debug)]
pub struct Gather {
    bones: [Entity; 18],
    buffer: [Transform; 18],
}

impl Gather {
    /// A gather over these bones.
    pub fn new(bones: [Entity; 18]) -> Self {
        Gather { bones, buffer: [Transform::IDENTITY; 18] }
    }
}

/// Per character: reads its bones by entity (parallel), then writes them back (serial).
pub fn floor_gather(
    mut characters: Query<&mut Gather>,
    mut transforms: ParamSet<(Query<&Transform>, Query<&mut Transform>)>,
) {
    {
        let read = transforms.p0();
        characters.par_iter_mut().for_each(|mut gather| {
            let gather = &mut *gather;
            for (bone, out) in gather.bones.iter().zip(gather.buffer.iter_mut()) {
                if let Ok(transform) = read.get(*bone) {
                    *out = *transform;
                }
            }
        });
    }
    let mut write = transforms.p1();
    for gather in &characters {
        for (bone, read) in gather.bones.iter().zip(&gather.buffer) {
            if let Ok(mut transform) = write.get_mut(*bone) {
                *transform = Transform { rotation: read.rotation.normalize(), ..*read };
            }
        }
    }
}
