//! What each foot of a [`crate::procedural_gait::ProceduralGait`] stands on, so a planted foot
//! rides a moving collider (a platform, a lift, a ship's deck) instead of sliding over it.
//!
//! When a foot lands, the collider under it is looked up once (one ray through the
//! [`GroundProbe`]) and kept with its world transform while the foot stays planted. Each frame,
//! before the gait advances, a kept collider that moved carries its foot by the same rigid
//! step ([`CreatureGait::carry`]). A foot in the air rides nothing; the plane ground names no
//! collider, so nothing is carried there.

use bevy::prelude::*;
use ik_core::Xform;
use ik_core::creature_gait::CreatureGait;

use crate::bones::{Hierarchy, world_of};
use crate::ground::GroundProbe;

/// One foot's ground: looked up for this contact, and the collider with its world transform
/// when last seen.
#[derive(Clone, Copy, Debug, Default)]
struct FootGround {
    looked: bool,
    surface: Option<(Entity, Xform)>,
}

/// The ground each foot of one creature stands on (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct GaitSurfaces(Vec<FootGround>);

impl GaitSurfaces {
    /// Before the gait advances: each planted foot moved by its collider's motion since last
    /// frame.
    pub(crate) fn carry(&mut self, gait: &mut CreatureGait, hierarchy: &Hierarchy) {
        for (index, foot) in self.0.iter_mut().enumerate() {
            let Some((entity, last)) = foot.surface.as_mut() else { continue };
            let Some(now) = world_of(*entity, hierarchy) else {
                foot.surface = None;
                continue;
            };
            if now != *last {
                gait.carry(index, now.mul_xform(&last.inverse()));
                *last = now;
            }
        }
    }

    /// After the gait advanced: the collider under each foot that has just landed (a ray down
    /// from `above` over its target, twice as long), none under a foot in the air.
    pub(crate) fn find(
        &mut self,
        gait: &CreatureGait,
        (probe, creature, above): (&GroundProbe, Entity, f32),
        hierarchy: &Hierarchy,
    ) {
        self.0.resize(gait.feet().len(), FootGround::default());
        for (ground, foot) in self.0.iter_mut().zip(gait.feet()) {
            if !foot.planted {
                *ground = FootGround::default();
            } else if !ground.looked {
                let hit = probe.cast_surface(foot.target + Vec3::Y * above, Vec3::NEG_Y, 2.0 * above, creature);
                let entity = hit.and_then(|(_, entity)| entity);
                let surface = entity.and_then(|e| world_of(e, hierarchy).map(|at| (e, at)));
                *ground = FootGround { looked: true, surface };
            }
        }
    }
}
