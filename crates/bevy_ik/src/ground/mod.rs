//! Where foot-placement rays go.
//!
//! [`IkGround`] (a resource) picks the backend:
//! - [`IkGround::Rapier`]: ray casts into bevy_rapier3d's scene (feature `rapier`, the default);
//! - `IkGround::Avian`: ray casts through Avian's `SpatialQuery` (feature `avian`, avian3d 0.7);
//! - [`IkGround::Plane`]: a physics-free [`GroundPlane`].
//!
//! [`IkGroundFilter`], on a character root next to its `FootPlacer`, says what that character's
//! rays may hit: collision groups (rapier `CollisionGroups`, Avian `LayerMask`) and entities to
//! pass through (the character's own colliders on child bones, a held object). The character
//! root's own body and colliders, and sensors, are never hit.
//!
//! With several rapier contexts, a character casts into the context named by
//! [`IkGroundFilter::rapier_context`], else the context its root's rigid body is in, else the one
//! marked `DefaultRapierContext`. When none can be picked, one warning says what to do and the
//! rays hit nothing (the feet stay as animated) until it is fixed.
//!
//! Systems that trace the ground take [`GroundRays`] as a parameter and cast through its
//! per-frame [`GroundProbe`].

#[cfg(feature = "avian")]
mod avian;
mod plane;
#[cfg(feature = "rapier")]
mod rapier;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use ik_core::foot_placement::GroundHit;

pub use plane::GroundPlane;

/// The ground foot placement traces against. A resource; live-editable.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ik::prelude::*;
///
/// let mut app = App::new();
/// // No physics engine: a flat floor at 5 cm.
/// app.insert_resource(IkGround::Plane(GroundPlane { height: 0.05, ..default() }));
/// ```
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Debug, PartialEq)]
pub enum IkGround {
    /// Ray casts into rapier's scene (the default with the `rapier` feature). See the
    /// [module docs](self) for which context with several, and [`IkGroundFilter`].
    #[cfg(feature = "rapier")]
    Rapier,
    /// Ray casts through Avian's spatial query (feature `avian`; the default when `rapier` is
    /// off). Needs Avian's `PhysicsPlugins` (its `SpatialQueryPlugin`).
    #[cfg(feature = "avian")]
    Avian,
    /// A flat, infinite plane: no physics engine needed (tests, simple games).
    Plane(GroundPlane),
}

impl Default for IkGround {
    fn default() -> Self {
        #[cfg(feature = "rapier")]
        return IkGround::Rapier;
        #[cfg(all(feature = "avian", not(feature = "rapier")))]
        return IkGround::Avian;
        #[cfg(not(any(feature = "rapier", feature = "avian")))]
        return IkGround::Plane(GroundPlane::default());
    }
}

/// What one character's foot rays may hit; on the character root (the entity holding the
/// `FootPlacer`). Without it, rays hit every non-sensor collider except the root's own.
///
/// - rapier: the rays are cast with `QueryFilter::groups = CollisionGroups::new(memberships,
///   hit_groups)`, so a collider is hit when its memberships share a bit with `hit_groups` and
///   its filters share a bit with `memberships`;
/// - Avian: the rays are cast with `SpatialQueryFilter { mask: hit_groups, .. }`, so a collider
///   is hit when its `CollisionLayers` memberships share a bit with `hit_groups` (`memberships`
///   is not used: Avian's spatial queries have no such test).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ik::prelude::*;
///
/// fn setup(mut commands: Commands, character: Entity, shin_colliders: [Entity; 2], held_crate: Entity) {
///     commands.entity(character).insert(
///         IkGroundFilter::default()
///             // only colliders in group 1 or 3 are ground
///             .with_hit_groups(0b101)
///             // the character's own bone colliders and what it carries are not
///             .excluding(shin_colliders.into_iter().chain([held_crate])),
///     );
/// }
/// # let _ = setup;
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq)]
pub struct IkGroundFilter {
    /// Collision groups (bits) the rays hit. All by default.
    pub hit_groups: u32,
    /// Collision groups (bits) the rays belong to (rapier only). All by default.
    pub memberships: u32,
    /// Entities the rays pass through: colliders, or rigid bodies (then all their colliders).
    #[entities]
    pub exclude: Vec<Entity>,
    /// rapier only: the context entity to cast into. `None`: the context the root's rigid body
    /// is in, else the one marked `DefaultRapierContext`.
    #[entities]
    pub rapier_context: Option<Entity>,
}

impl Default for IkGroundFilter {
    fn default() -> Self {
        IkGroundFilter { hit_groups: u32::MAX, memberships: u32::MAX, exclude: Vec::new(), rapier_context: None }
    }
}

impl IkGroundFilter {
    /// This filter, hitting only colliders in `groups`.
    pub fn with_hit_groups(mut self, groups: u32) -> Self {
        self.hit_groups = groups;
        self
    }

    /// This filter, with the rays belonging to `groups` (rapier only).
    pub fn with_memberships(mut self, groups: u32) -> Self {
        self.memberships = groups;
        self
    }

    /// This filter, passing through `entities` too.
    pub fn excluding(mut self, entities: impl IntoIterator<Item = Entity>) -> Self {
        self.exclude.extend(entities);
        self
    }

    /// This filter, casting into the rapier context `context`.
    pub fn in_rapier_context(mut self, context: Entity) -> Self {
        self.rapier_context = Some(context);
        self
    }
}

#[cfg(feature = "rapier")]
type RapierRays<'w, 's> = rapier::RapierRays<'w, 's>;
#[cfg(not(feature = "rapier"))]
type RapierRays<'w, 's> = core::marker::PhantomData<(&'w (), &'s ())>;
#[cfg(feature = "avian")]
type AvianRays<'w, 's> = avian::AvianRays<'w, 's>;
#[cfg(not(feature = "avian"))]
type AvianRays<'w, 's> = core::marker::PhantomData<(&'w (), &'s ())>;

/// Everything ground ray casts read, as one system parameter: the [`IkGround`] backend, the
/// characters' [`IkGroundFilter`]s and the physics engine's scene. Call [`GroundRays::probe`]
/// once per run of the system and cast through the probe (it may be shared across threads).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_ik::ground::GroundRays;
///
/// fn ground_under(rays: GroundRays, characters: Query<(Entity, &GlobalTransform), With<Name>>) {
///     let probe = rays.probe();
///     for (character, at) in &characters {
///         if let Some(hit) = probe.cast(at.translation() + Vec3::Y, Vec3::NEG_Y, 3.0, character) {
///             info!("ground at {}", hit.point.y);
///         }
///     }
/// }
/// # bevy::ecs::system::assert_is_system(ground_under);
/// ```
#[derive(SystemParam)]
pub struct GroundRays<'w, 's> {
    ground: Res<'w, IkGround>,
    filters: Query<'w, 's, &'static IkGroundFilter>,
    rapier: RapierRays<'w, 's>,
    avian: AvianRays<'w, 's>,
}

impl<'w, 's> GroundRays<'w, 's> {
    /// This frame's probe. Looks up what the backend needs once (e.g. which rapier context is
    /// the default) and warns once when the backend cannot be used.
    pub fn probe(&self) -> GroundProbe<'_, 'w, 's> {
        let backend = match &*self.ground {
            #[cfg(feature = "rapier")]
            IkGround::Rapier => Backend::Rapier(self.rapier.probe()),
            #[cfg(feature = "avian")]
            IkGround::Avian => Backend::Avian(self.avian.probe()),
            IkGround::Plane(plane) => Backend::Plane(*plane),
        };
        #[cfg(not(feature = "rapier"))]
        let _ = &self.rapier;
        #[cfg(not(feature = "avian"))]
        let _ = &self.avian;
        GroundProbe { filters: &self.filters, backend }
    }
}

/// The backend of one frame's probe, with what it looked up.
enum Backend<'a, 'w, 's> {
    #[cfg(feature = "rapier")]
    Rapier(rapier::RapierProbe<'a, 'w, 's>),
    #[cfg(feature = "avian")]
    Avian(avian::AvianProbe<'a, 'w, 's>),
    Plane(GroundPlane),
    /// Keeps the lifetimes used when no physics backend is compiled in; never built.
    #[cfg(not(any(feature = "rapier", feature = "avian")))]
    #[allow(dead_code)]
    Never(core::marker::PhantomData<(&'a (), &'w (), &'s ())>),
}

/// A ready-to-cast view of the ground for one frame (from [`GroundRays::probe`]). `Sync`: cast
/// from parallel iterations.
pub struct GroundProbe<'a, 'w, 's> {
    filters: &'a Query<'w, 's, &'static IkGroundFilter>,
    backend: Backend<'a, 'w, 's>,
}

impl GroundProbe<'_, '_, '_> {
    /// Casts a world-space ray for `character` (its root entity): through the character's
    /// [`IkGroundFilter`], never hitting the root's own body or colliders, or sensors. `None`
    /// when nothing is hit within `max`, or for a zero or non-finite direction.
    pub fn cast(&self, origin: Vec3, dir: Vec3, max: f32, character: Entity) -> Option<GroundHit> {
        self.cast_surface(origin, dir, max, character).map(|(hit, _)| hit)
    }

    /// [`GroundProbe::cast`], also naming the collider entity hit (`None` for
    /// [`IkGround::Plane`]): what a planted foot rides on ([`crate::feet::FootLock`]).
    pub fn cast_surface(
        &self,
        origin: Vec3,
        dir: Vec3,
        max: f32,
        character: Entity,
    ) -> Option<(GroundHit, Option<Entity>)> {
        if !origin.is_finite() || !max.is_finite() || max < 0.0 {
            return None;
        }
        let dir = dir.try_normalize()?;
        let filter = self.filters.get(character).ok();
        let (hit, surface) = match &self.backend {
            #[cfg(feature = "rapier")]
            Backend::Rapier(probe) => probe.cast(origin, dir, max, character, filter).map(|(h, e)| (h, Some(e))),
            #[cfg(feature = "avian")]
            Backend::Avian(probe) => probe.cast(origin, dir, max, character, filter).map(|(h, e)| (h, Some(e))),
            Backend::Plane(plane) => {
                let _ = filter;
                plane.cast(origin, dir, max).map(|h| (h, None))
            }
            #[cfg(not(any(feature = "rapier", feature = "avian")))]
            Backend::Never(_) => None,
        }?;
        // Engines may answer a ray starting inside a collider with a zero normal.
        let normal = hit.normal.try_normalize().unwrap_or(Vec3::Y);
        hit.point.is_finite().then_some((GroundHit { point: hit.point, normal }, surface))
    }
}

impl GroundProbe<'_, '_, '_> {
    /// Sweeps a box (`half_extents` about its centre `origin`, turned by `rotation`) along `dir`
    /// for `character`, filtered like [`GroundProbe::cast`]: how far it travels before it
    /// touches something (0 when it starts inside something), or `None` when nothing is touched
    /// within `max`. A sole-sized box finds what rays between a sole's points pass by: a rail, a
    /// lip, the corner of a nosing.
    ///
    /// ```no_run
    /// # use bevy::prelude::*;
    /// # use bevy_ik::ground::GroundRays;
    /// fn probe(rays: GroundRays, character: Entity) {
    ///     let probe = rays.probe();
    ///     // A 10 x 28 cm sole, 1 cm thick, from 10 cm over the floor.
    ///     let half = Vec3::new(0.05, 0.005, 0.14);
    ///     let from = Vec3::new(0.0, 0.105, 0.0);
    ///     if probe.cast_box(from, Quat::IDENTITY, half, Vec3::NEG_Y, 0.1, character).is_some_and(|d| d < 0.09) {
    ///         info!("something stands more than a centimetre above the floor under that sole");
    ///     }
    /// }
    /// ```
    pub fn cast_box(
        &self,
        origin: Vec3,
        rotation: Quat,
        half_extents: Vec3,
        dir: Vec3,
        max: f32,
        character: Entity,
    ) -> Option<f32> {
        let finite = origin.is_finite() && rotation.is_finite() && half_extents.is_finite();
        if !finite || !max.is_finite() || max < 0.0 || half_extents.min_element() < 0.0 {
            return None;
        }
        let (dir, rotation) = (dir.try_normalize()?, rotation.normalize());
        let filter = self.filters.get(character).ok();
        let distance = match &self.backend {
            #[cfg(feature = "rapier")]
            Backend::Rapier(probe) => probe.cast_box(origin, rotation, half_extents, dir, max, character, filter),
            #[cfg(feature = "avian")]
            Backend::Avian(probe) => probe.cast_box(origin, rotation, half_extents, dir, max, character, filter),
            Backend::Plane(plane) => {
                let _ = filter;
                plane.cast_box(origin, rotation, half_extents, dir, max)
            }
            #[cfg(not(any(feature = "rapier", feature = "avian")))]
            Backend::Never(_) => None,
        }?;
        (distance.is_finite() && distance <= max).then_some(distance.max(0.0))
    }
}

/// Adds the [`IkGround`] resource and registers the ground types.
pub(crate) fn build(app: &mut App) {
    app.init_resource::<IkGround>()
        .register_type::<IkGround>()
        .register_type::<GroundPlane>()
        .register_type::<IkGroundFilter>();
}

/// The warning state of one backend: `true` once it warned, until the problem goes away.
#[cfg(any(feature = "rapier", feature = "avian"))]
#[derive(Default)]
pub(crate) struct WarnOnce(core::sync::atomic::AtomicBool);

#[cfg(any(feature = "rapier", feature = "avian"))]
impl WarnOnce {
    /// Warns with `message` unless it already did since the last [`WarnOnce::clear`]; whether
    /// it warned.
    pub(crate) fn warn(&self, message: impl FnOnce() -> String) -> bool {
        let first = !self.0.swap(true, core::sync::atomic::Ordering::Relaxed);
        if first {
            warn!("{}", message());
        }
        first
    }

    /// The problem went away: warn again on the next one.
    pub(crate) fn clear(&self) {
        self.0.store(false, core::sync::atomic::Ordering::Relaxed);
    }
}

#[cfg(all(test, any(feature = "rapier", feature = "avian")))]
mod tests {
    use super::*;

    #[test]
    fn a_ground_problem_warns_once_until_it_goes_away() {
        let once = WarnOnce::default();
        let warned: Vec<bool> = (0..3).map(|_| once.warn(|| "problem".into())).collect();
        assert_eq!(warned, [true, false, false], "one warning, not one per frame");
        once.clear();
        assert!(once.warn(|| "problem again".into()), "a new onset warns again");
    }
}
