//! The Avian backend: ray casts through avian3d's `SpatialQuery`.

use avian3d::prelude::{Collider, ColliderOf, LayerMask, Sensor, ShapeCastConfig, SpatialQuery, SpatialQueryFilter};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use ik_core::foot_placement::GroundHit;

use super::{IkGroundFilter, WarnOnce};

/// What the Avian backend reads: the spatial query (absent without Avian's plugins), which body
/// each collider belongs to, and which colliders are sensors.
#[derive(SystemParam)]
pub struct AvianRays<'w, 's> {
    spatial: Option<SpatialQuery<'w, 's>>,
    bodies: Query<'w, 's, &'static ColliderOf>,
    sensors: Query<'w, 's, (), With<Sensor>>,
    warned: Local<'s, WarnOnce>,
}

/// One frame's Avian probe.
pub struct AvianProbe<'a, 'w, 's> {
    rays: &'a AvianRays<'w, 's>,
}

impl<'w, 's> AvianRays<'w, 's> {
    /// This frame's probe; warns once when Avian's spatial query is missing.
    pub(super) fn probe(&self) -> AvianProbe<'_, 'w, 's> {
        if self.spatial.is_some() {
            self.warned.clear();
        } else {
            self.warned.warn(|| {
                "bevy_ik: the ground is IkGround::Avian but Avian's spatial query is not there (are avian3d's \
                 PhysicsPlugins added?); foot rays hit nothing. Add Avian's plugins, or use IkGround::Plane."
                    .to_string()
            });
        }
        AvianProbe { rays: self }
    }
}

impl AvianProbe<'_, '_, '_> {
    /// Casts a ray (direction normalized, finite input) for `character`.
    pub(super) fn cast(
        &self,
        origin: Vec3,
        dir: Vec3,
        max: f32,
        character: Entity,
        filter: Option<&IkGroundFilter>,
    ) -> Option<(GroundHit, Entity)> {
        let spatial = self.rays.spatial.as_ref()?;
        let dir = Dir3::new(dir).ok()?;
        // The mask only: the excluded entities are tested by the predicate, so no set is built
        // per ray.
        let query_filter = SpatialQueryFilter::from_mask(filter.map_or(LayerMask::ALL, |f| LayerMask(f.hit_groups)));
        let passes = |collider: Entity| self.passes(collider, character, filter);
        let hit = spatial.cast_ray_predicate(origin, dir, max, true, &query_filter, &passes)?;
        Some((GroundHit { point: origin + dir * hit.distance, normal: hit.normal }, hit.entity))
    }
}

impl AvianProbe<'_, '_, '_> {
    /// Sweeps a box (direction normalized, finite input) for `character`: the distance to the
    /// first touch (0 when it starts inside something).
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
        let spatial = self.rays.spatial.as_ref()?;
        let dir = Dir3::new(dir).ok()?;
        let shape = Collider::cuboid(2.0 * half.x, 2.0 * half.y, 2.0 * half.z);
        let query_filter = SpatialQueryFilter::from_mask(filter.map_or(LayerMask::ALL, |f| LayerMask(f.hit_groups)));
        let passes = |collider: Entity| self.passes(collider, character, filter);
        let config = ShapeCastConfig::from_max_distance(max);
        let hit = spatial.cast_shape_predicate(&shape, origin, rotation, dir, &config, &query_filter, &passes)?;
        Some(hit.distance)
    }

    /// Whether `collider` may be hit by `character`'s queries: not the character, not excluded
    /// (itself or its body), not a sensor.
    fn passes(&self, collider: Entity, character: Entity, filter: Option<&IkGroundFilter>) -> bool {
        let body = self.rays.bodies.get(collider).map(|of| of.body).ok();
        let excluded = |e: Entity| e == character || filter.is_some_and(|f| f.exclude.contains(&e));
        !excluded(collider) && !body.is_some_and(excluded) && !self.rays.sensors.contains(collider)
    }
}

impl IkGroundFilter {
    /// The filter as an Avian spatial query filter (`hit_groups` as the mask, the excluded
    /// entities; `memberships` has no Avian counterpart).
    ///
    /// ```
    /// use avian3d::prelude::{LayerMask, SpatialQueryFilter};
    /// use bevy::prelude::*;
    /// use bevy_ik::prelude::*;
    ///
    /// let held = Entity::from_raw_u32(7).unwrap();
    /// let filter = IkGroundFilter::default().with_hit_groups(0b10).excluding([held]);
    /// let avian = filter.avian_filter();
    /// assert_eq!(avian.mask, LayerMask(0b10));
    /// assert!(avian.excluded_entities.contains(&held));
    /// ```
    pub fn avian_filter(&self) -> SpatialQueryFilter {
        SpatialQueryFilter::from_mask(LayerMask(self.hit_groups)).with_excluded_entities(self.exclude.iter().copied())
    }
}
