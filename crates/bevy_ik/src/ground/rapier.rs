//! The rapier backend: ray casts into one of bevy_rapier3d's contexts.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_rapier3d::parry::shape::Cuboid;
use bevy_rapier3d::plugin::context::systemparams::RapierContext;
use bevy_rapier3d::plugin::context::{
    DefaultRapierContext, RapierContextColliders, RapierContextEntityLink, RapierContextJoints,
    RapierContextSimulation, RapierRigidBodySet,
};
use bevy_rapier3d::prelude::{CollisionGroups, Group, QueryFilter, QueryFilterFlags, ShapeCastOptions};
use ik_core::foot_placement::GroundHit;

use super::{IkGroundFilter, WarnOnce};

/// The components of a rapier context entity a ray cast reads.
type ContextData = (
    Entity,
    &'static RapierContextSimulation,
    &'static RapierContextColliders,
    &'static RapierContextJoints,
    &'static RapierRigidBodySet,
    Has<DefaultRapierContext>,
);

/// What the rapier backend reads: every rapier context and the rigid bodies' context links.
#[derive(SystemParam)]
pub struct RapierRays<'w, 's> {
    contexts: Query<'w, 's, ContextData>,
    links: Query<'w, 's, &'static RapierContextEntityLink>,
    warned: Local<'s, RapierWarnings>,
}

/// One warning per problem (cleared when it goes away).
#[derive(Default)]
pub struct RapierWarnings {
    default: WarnOnce,
    named: WarnOnce,
}

/// Why no default context could be picked.
#[derive(Clone, Copy, Debug)]
enum NoDefault {
    /// There is no rapier context at all.
    NoContext,
    /// `defaults` contexts are marked `DefaultRapierContext`, of `all`.
    Ambiguous { defaults: usize, all: usize },
}

/// One frame's rapier probe: the default context picked once.
pub struct RapierProbe<'a, 'w, 's> {
    rays: &'a RapierRays<'w, 's>,
    default: Result<Entity, NoDefault>,
}

impl<'w, 's> RapierRays<'w, 's> {
    /// Picks the default context: the one marked `DefaultRapierContext`, or the only one.
    pub(super) fn probe(&self) -> RapierProbe<'_, 'w, 's> {
        let (mut all, mut defaults, mut only, mut marked) = (0, 0, None, None);
        for (entity, .., is_default) in &self.contexts {
            all += 1;
            only = Some(entity);
            if is_default {
                defaults += 1;
                marked = Some(entity);
            }
        }
        let default = match (defaults, marked, all, only) {
            (1, Some(context), ..) => Ok(context),
            (0, _, 1, Some(context)) => Ok(context),
            (_, _, 0, _) => Err(NoDefault::NoContext),
            _ => Err(NoDefault::Ambiguous { defaults, all }),
        };
        if default.is_ok() {
            self.warned.default.clear();
        }
        RapierProbe { rays: self, default }
    }
}

impl RapierProbe<'_, '_, '_> {
    /// The context entity `character` casts into, or `None` (after one warning).
    fn context_for(&self, character: Entity, filter: Option<&IkGroundFilter>) -> Option<Entity> {
        if let Some(context) = filter.and_then(|f| f.rapier_context) {
            return Some(context);
        }
        if let Ok(link) = self.rays.links.get(character) {
            return Some(link.0);
        }
        match self.default {
            Ok(context) => Some(context),
            Err(problem) => {
                self.rays.warned.default.warn(|| match problem {
                    NoDefault::NoContext => "bevy_ik: the ground is IkGround::Rapier but there is no rapier context \
                         (is RapierPhysicsPlugin added?); foot rays hit nothing. Add rapier's plugin, or use \
                         IkGround::Plane or IkGround::Avian."
                        .to_string(),
                    NoDefault::Ambiguous { defaults, all } => format!(
                        "bevy_ik: the ground is IkGround::Rapier and {defaults} of the {all} rapier contexts are \
                         marked DefaultRapierContext, so it cannot tell which one to cast foot rays into; they hit \
                         nothing. Mark exactly one context DefaultRapierContext, or name the context per character \
                         with IkGroundFilter::rapier_context (a character whose rigid body is in a context uses it)."
                    ),
                });
                None
            }
        }
    }

    /// Runs `query` in `character`'s context with its query filter.
    fn query<T>(
        &self,
        character: Entity,
        filter: Option<&IkGroundFilter>,
        query: impl FnOnce(&RapierContext, QueryFilter) -> Option<T>,
    ) -> Option<T> {
        let context_entity = self.context_for(character, filter)?;
        let Ok((_, simulation, colliders, joints, rigidbody_set, _)) = self.rays.contexts.get(context_entity) else {
            self.rays.warned.named.warn(|| {
                format!(
                    "bevy_ik: character {character} casts foot rays into rapier context {context_entity} \
                     (IkGroundFilter::rapier_context or its rigid body's RapierContextEntityLink), which is not a \
                     rapier context; they hit nothing. Name an entity holding a RapierContextSimulation."
                )
            });
            return None;
        };
        let context = RapierContext { simulation, colliders, joints, rigidbody_set };
        let exclude = filter.map_or(&[][..], |f| &f.exclude[..]);
        // A listed entity is a collider, or a rigid body whose colliders are all passed through.
        let passes = |collider: Entity| {
            !exclude.contains(&collider)
                && colliders.collider_parent(rigidbody_set, collider).is_none_or(|body| !exclude.contains(&body))
        };
        let query_filter = QueryFilter {
            flags: QueryFilterFlags::EXCLUDE_SENSORS,
            groups: filter.map(IkGroundFilter::rapier_groups),
            exclude_rigid_body: Some(character),
            exclude_collider: Some(character),
            predicate: (!exclude.is_empty()).then_some(&passes as &dyn Fn(Entity) -> bool),
        };
        query(&context, query_filter)
    }

    /// Casts a ray (direction normalized, finite input) into `character`'s context.
    pub(super) fn cast(
        &self,
        origin: Vec3,
        dir: Vec3,
        max: f32,
        character: Entity,
        filter: Option<&IkGroundFilter>,
    ) -> Option<(GroundHit, Entity)> {
        self.query(character, filter, |context, query_filter| {
            let (collider, hit) = context.cast_ray_and_get_normal(origin, dir, max, true, query_filter)?;
            Some((GroundHit { point: hit.point, normal: hit.normal }, collider))
        })
    }

    /// Sweeps a box (direction normalized, finite input) in `character`'s context: the
    /// distance to the first touch (0 when it starts inside something).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cast_box(
        &self,
        origin: Vec3,
        rotation: Quat,
        half: Vec3,
        dir: Vec3,
        max: f32,
        character: Entity,
        filter: Option<&IkGroundFilter>,
    ) -> Option<f32> {
        // The shape itself, not a `Collider` (which would allocate on every cast).
        let shape = Cuboid::new(half);
        let options = ShapeCastOptions {
            max_time_of_impact: max,
            target_distance: 0.0,
            stop_at_penetration: true,
            compute_impact_geometry_on_penetration: false,
        };
        self.query(character, filter, |context, query_filter| {
            let (_, hit) = context.cast_shape(origin, rotation, dir, &shape, options, query_filter)?;
            Some(hit.time_of_impact)
        })
    }
}

impl IkGroundFilter {
    /// The filter as rapier collision groups (`memberships`, `hit_groups`).
    ///
    /// ```
    /// use bevy_ik::prelude::*;
    /// use bevy_rapier3d::prelude::{CollisionGroups, Group};
    ///
    /// let filter = IkGroundFilter::default().with_hit_groups(0b10);
    /// assert_eq!(filter.rapier_groups(), CollisionGroups::new(Group::ALL, Group::GROUP_2));
    /// ```
    pub fn rapier_groups(&self) -> CollisionGroups {
        CollisionGroups::new(Group::from_bits_truncate(self.memberships), Group::from_bits_truncate(self.hit_groups))
    }
}
