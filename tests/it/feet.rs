//! A biped standing across a 15 cm step and on ramps made of real rapier colliders: after physics
//! and IK run in the same app, both feet rest on their surfaces and the pelvis has dropped by the
//! step; a ground filter keeps excluded colliders and other collision groups out of the foot
//! rays; with several rapier contexts the default or the named one is used. The scenes are
//! generic over the physics engine ([`Physics`]) and run on Avian too (`feet_avian.rs`).

use bevy::prelude::*;
use bevy_ik::ground::GroundRays;
use bevy_ik::ik_core::foot_placement::PelvisSupport;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::common::{headless_app, world_translation};

/// Bones of a test biped (ankle 8 cm above its floor, ball on the floor).
pub struct Biped {
    pub root: Entity,
    pub pelvis: Entity,
    /// `[left, right]` ankles.
    pub ankles: [Entity; 2],
    /// `[left, right]` balls.
    pub balls: [Entity; 2],
}

pub const PELVIS_HEIGHT: f32 = 0.96;
pub const ANKLE_HEIGHT: f32 = 0.08;

/// Spawns a standing biped (facing +Z, left = +X) with its root at `at`.
pub fn spawn_biped(world: &mut World, at: Vec3) -> Biped {
    let root = world.spawn((Name::new("biped"), Transform::from_translation(at))).id();
    let pelvis = world.spawn((Name::new("pelvis"), Transform::from_xyz(0.0, PELVIS_HEIGHT, 0.0), ChildOf(root))).id();
    let mut legs = Vec::new();
    for side in [1.0f32, -1.0] {
        let hip = world.spawn((Transform::from_xyz(0.09 * side, -0.045, 0.0), ChildOf(pelvis))).id();
        // Knees forward, so the legs stand a little bent (99 % of their reach).
        let knee = world.spawn((Transform::from_xyz(0.0, -0.415, 0.06), ChildOf(hip))).id();
        let ankle = world.spawn((Transform::from_xyz(0.0, -0.42, -0.06), ChildOf(knee))).id();
        let ball = world.spawn((Transform::from_xyz(0.0, -ANKLE_HEIGHT, 0.13), ChildOf(ankle))).id();
        legs.push((hip, knee, ankle, ball));
    }
    let placer = FootPlacer::new(pelvis, legs.iter().map(|&(h, k, a, b)| LegBones::new(h, k, a, Some(b))).collect());
    world.entity_mut(root).insert(placer);
    Biped { root, pelvis, ankles: [legs[0].2, legs[1].2], balls: [legs[0].3, legs[1].3] }
}

/// A physics engine the ground scenes are built in, so rapier and Avian run the same scenarios
/// (the Avian one is in `feet_avian.rs`).
pub trait Physics {
    /// Its name, for the printed figures.
    const NAME: &'static str;
    /// Adds the engine's plugins and points [`IkGround`] at it.
    fn add_to(app: &mut App);
    /// Spawns a fixed box collider with half extents `half`, placed by `at`.
    fn spawn_box(world: &mut World, half: Vec3, at: Transform) -> Entity;
    /// Spawns a fixed rigid body at `at` whose only collider, a box with half extents `half`, is
    /// a child entity; returns `(body, collider)`.
    fn spawn_body_with_child_box(world: &mut World, half: Vec3, at: Transform) -> (Entity, Entity);
    /// Puts a collider in the collision groups `groups` (bits; it still collides with all).
    fn set_groups(world: &mut World, collider: Entity, groups: u32);
}

/// bevy_rapier3d.
pub struct Rapier;

impl Physics for Rapier {
    const NAME: &'static str = "rapier";

    fn add_to(app: &mut App) {
        app.add_plugins(RapierPhysicsPlugin::<NoUserData>::default());
        app.insert_resource(IkGround::Rapier);
    }

    fn spawn_box(world: &mut World, half: Vec3, at: Transform) -> Entity {
        world.spawn((Collider::cuboid(half.x, half.y, half.z), at)).id()
    }

    fn spawn_body_with_child_box(world: &mut World, half: Vec3, at: Transform) -> (Entity, Entity) {
        let body = world.spawn((RigidBody::Fixed, at)).id();
        let collider = world.spawn((Collider::cuboid(half.x, half.y, half.z), Transform::IDENTITY, ChildOf(body))).id();
        (body, collider)
    }

    fn set_groups(world: &mut World, collider: Entity, groups: u32) {
        world.entity_mut(collider).insert(CollisionGroups::new(Group::from_bits_truncate(groups), Group::ALL));
    }
}

/// What a ground scene measured after 90 frames (1.5 s), per foot `[left, right]`.
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    /// Sole height (ankle − its 8 cm), world, m.
    pub sole: [f32; 2],
    /// Ball height, world, m.
    pub ball: [f32; 2],
    /// Where the ball is, world.
    pub ball_at: [Vec3; 2],
    /// Pelvis height change, m.
    pub pelvis_drop: f32,
    /// Per foot: ray hit, float before and after placement, ground normal.
    pub feet: [FootStatus; 2],
    /// Faults counted by the placer.
    pub warnings: u32,
}

impl Figures {
    /// Prints the figures under a label.
    pub fn print(&self, label: &str) {
        for side in 0..2 {
            let f = &self.feet[side];
            println!(
                "{label} foot {side}: sole {:.4} m, ball {:.4} m, float before {:.4} m, after {:.4} m, normal {:.3}, hit {}",
                self.sole[side], self.ball[side], f.float_before, f.float_after, f.ground_normal, f.hit
            );
        }
        println!("{label} pelvis drop {:.4} m, warnings {}", self.pelvis_drop, self.warnings);
    }

    /// The largest difference to `other` over every height, float and normal (m, or cosine gap).
    pub fn largest_difference(&self, other: &Figures) -> f32 {
        let mut worst = (self.pelvis_drop - other.pelvis_drop).abs();
        for side in 0..2 {
            let (a, b) = (&self.feet[side], &other.feet[side]);
            worst = worst
                .max((self.sole[side] - other.sole[side]).abs())
                .max((self.ball[side] - other.ball[side]).abs())
                .max((a.float_before - b.float_before).abs())
                .max((a.float_after - b.float_after).abs())
                .max((a.ground_normal - b.ground_normal).length());
        }
        worst
    }
}

/// Runs `app` for 90 frames (1.5 s) and measures the biped.
pub fn measure(app: &mut App, biped: &Biped) -> Figures {
    for _ in 0..90 {
        app.update();
    }
    let sole = biped.ankles.map(|a| world_translation(app, a).y - ANKLE_HEIGHT);
    let ball_at = biped.balls.map(|b| world_translation(app, b));
    let pelvis_drop = world_translation(app, biped.pelvis).y - PELVIS_HEIGHT;
    let state = app.world().get::<FootPlacerState>(biped.root).expect("the biped has a FootPlacerState");
    let feet = [state.feet[0], state.feet[1]];
    Figures { sole, ball: ball_at.map(|b| b.y), ball_at, pelvis_drop, feet, warnings: state.warnings }
}

/// An app with physics `P`, a 15 cm step made of two colliders — upper level (x > 0) at y = 0,
/// lower level (x < 0) at y = −0.15, the edge along z — and a biped standing across it.
pub fn biped_across_a_step<P: Physics>() -> (App, Biped) {
    let mut app = headless_app();
    P::add_to(&mut app);
    let world = app.world_mut();
    P::spawn_box(world, Vec3::new(1.0, 0.5, 2.0), Transform::from_xyz(1.0, -0.5, 0.0));
    P::spawn_box(world, Vec3::new(1.0, 0.5, 2.0), Transform::from_xyz(-1.0, -0.65, 0.0));
    let biped = spawn_biped(world, Vec3::ZERO);
    (app, biped)
}

/// The 15 cm step scene, measured.
pub fn step_figures<P: Physics>() -> Figures {
    let (mut app, biped) = biped_across_a_step::<P>();
    let figures = measure(&mut app, &biped);
    figures.print(&format!("{} step", P::NAME));
    figures
}

/// The bars of the step scene: both feet (sole and ball) within 1 cm of their level, the pelvis
/// 15 cm lower (±1 cm), both rays hit, no fault.
pub fn assert_step_bars(f: &Figures) {
    for (side, ground) in [0.0, -0.15].into_iter().enumerate() {
        assert!((f.sole[side] - ground).abs() < 0.01, "foot {side}: sole at {}, ground at {ground}", f.sole[side]);
        assert!((f.ball[side] - ground).abs() < 0.01, "foot {side}: ball at {}, ground at {ground}", f.ball[side]);
        assert!(
            f.feet[side].float_after.abs() < 0.01,
            "foot {side}: floats {} m after placement",
            f.feet[side].float_after
        );
    }
    assert!((f.pelvis_drop + 0.15).abs() < 0.01, "pelvis moved {} m, expected about -0.15", f.pelvis_drop);
    assert!(f.feet.iter().all(|f| f.hit), "both rays hit the colliders");
    assert_eq!(f.warnings, 0);
}

/// A ramp of `degrees` rising toward +Z whose surface passes through the origin, under a biped
/// standing at the origin, measured.
pub fn ramp_figures<P: Physics>(degrees: f32) -> Figures {
    let mut app = headless_app();
    P::add_to(&mut app);
    let tilt = Quat::from_rotation_x(-degrees.to_radians());
    let normal = tilt * Vec3::Y;
    let world = app.world_mut();
    P::spawn_box(world, Vec3::new(1.0, 0.5, 3.0), Transform::from_translation(-0.5 * normal).with_rotation(tilt));
    let biped = spawn_biped(world, Vec3::ZERO);
    let figures = measure(&mut app, &biped);
    figures.print(&format!("{} {degrees}° ramp", P::NAME));
    figures
}

/// The bars of a ramp scene: both balls within 1 cm of the ramp's surface, sole float and
/// penetration under 1 cm, and the ground normal the ramp's within 1°.
pub fn assert_ramp_bars(f: &Figures, degrees: f32) {
    let slope = degrees.to_radians().tan();
    let normal = Quat::from_rotation_x(-degrees.to_radians()) * Vec3::Y;
    for side in 0..2 {
        let surface = f.ball_at[side].z * slope;
        let foot = &f.feet[side];
        assert!(foot.hit, "foot {side}: the ray hits the ramp");
        assert!((f.ball[side] - surface).abs() < 0.01, "foot {side}: ball at {}, ramp at {surface}", f.ball[side]);
        assert!(foot.float_after.abs() < 0.01, "foot {side}: floats {} m after placement", foot.float_after);
        let angle = foot.ground_normal.angle_between(normal).to_degrees();
        assert!(angle < 1.0, "foot {side}: ground normal {} is {angle}° off the ramp's", foot.ground_normal);
    }
    assert_eq!(f.warnings, 0);
}

/// How a collider between the feet and the floor is kept out of the foot rays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ignore {
    /// Not at all: the feet stand on it.
    Nothing,
    /// The collider is in `IkGroundFilter::exclude`.
    ExcludedCollider,
    /// Its rigid body (the collider is a child entity) is in `IkGroundFilter::exclude`.
    ExcludedBody,
    /// It is in collision group 2, the filter hits group 1 only.
    OutsideGroups,
}

/// A floor at −15 cm and, above it under both feet, a 10 cm thick slab with its top at 0 (a
/// carried crate, a bone's own collider), kept out of the rays as `ignore` says; returns the
/// measured figures.
pub fn slab_figures<P: Physics>(ignore: Ignore) -> Figures {
    let mut app = headless_app();
    P::add_to(&mut app);
    let world = app.world_mut();
    P::spawn_box(world, Vec3::new(2.0, 0.5, 2.0), Transform::from_xyz(0.0, -0.65, 0.0));
    let (body, slab) = match ignore {
        Ignore::ExcludedBody => {
            P::spawn_body_with_child_box(world, Vec3::new(0.5, 0.05, 0.5), Transform::from_xyz(0.0, -0.05, 0.0))
        }
        _ => {
            let slab = P::spawn_box(world, Vec3::new(0.5, 0.05, 0.5), Transform::from_xyz(0.0, -0.05, 0.0));
            (slab, slab)
        }
    };
    let biped = spawn_biped(world, Vec3::ZERO);
    let filter = match ignore {
        Ignore::Nothing => None,
        Ignore::ExcludedCollider => Some(IkGroundFilter::default().excluding([slab])),
        Ignore::ExcludedBody => Some(IkGroundFilter::default().excluding([body])),
        Ignore::OutsideGroups => {
            P::set_groups(world, slab, 0b10);
            Some(IkGroundFilter::default().with_hit_groups(0b01))
        }
    };
    if let Some(filter) = filter {
        world.entity_mut(biped.root).insert(filter);
    }
    let figures = measure(&mut app, &biped);
    figures.print(&format!("{} slab, {ignore:?} ignored", P::NAME));
    figures
}

/// Both feet stand at `height` (sole and ball within 1 cm) with their rays hitting.
pub fn assert_feet_at(f: &Figures, height: f32, what: &str) {
    for side in 0..2 {
        assert!(f.feet[side].hit, "{what}: foot {side}'s ray hits");
        assert!(
            (f.sole[side] - height).abs() < 0.01,
            "{what}: foot {side} sole at {}, expected {height}",
            f.sole[side]
        );
        assert!(
            (f.ball[side] - height).abs() < 0.01,
            "{what}: foot {side} ball at {}, expected {height}",
            f.ball[side]
        );
    }
}

/// The slab scenes: the feet stand on the slab unless the filter keeps it out, then on the
/// floor 15 cm lower.
pub fn assert_slab_filtering<P: Physics>() {
    assert_feet_at(&slab_figures::<P>(Ignore::Nothing), 0.0, "no filter");
    for ignore in [Ignore::ExcludedCollider, Ignore::ExcludedBody, Ignore::OutsideGroups] {
        assert_feet_at(&slab_figures::<P>(ignore), -0.15, &format!("{ignore:?}"));
    }
}

#[test]
fn both_feet_land_on_a_15_cm_step_and_the_pelvis_drops_15_cm() {
    assert_step_bars(&step_figures::<Rapier>());
}

#[test]
fn feet_land_on_10_and_20_degree_rapier_ramps_and_tilt_with_them() {
    for degrees in [10.0, 20.0] {
        assert_ramp_bars(&ramp_figures::<Rapier>(degrees), degrees);
    }
}

#[test]
fn rapier_rays_skip_excluded_colliders_and_bodies_and_other_groups() {
    assert_slab_filtering::<Rapier>();
}

/// With a second rapier context the feet still land (the one marked `DefaultRapierContext` is
/// used); with two marked default the rays hit nothing and the feet stay as animated (and one
/// warning says what to do); naming the context in the filter lands them again.
#[test]
fn with_several_rapier_contexts_the_default_or_the_named_one_is_used() {
    let (mut app, biped) = biped_across_a_step::<Rapier>();
    app.update(); // rapier spawns its default context at startup
    let first = app.world_mut().query_filtered::<Entity, With<DefaultRapierContext>>().single(app.world()).unwrap();
    let second = app.world_mut().spawn(RapierContextSimulation::default()).id();
    assert_step_bars(&measure(&mut app, &biped));

    app.world_mut().entity_mut(second).insert(DefaultRapierContext);
    let ambiguous = measure(&mut app, &biped);
    ambiguous.print("two default contexts");
    assert!(ambiguous.feet.iter().all(|f| !f.hit), "no context is guessed");
    assert!((ambiguous.sole[1] - 0.0).abs() < 1e-3, "the lower foot stays as animated ({} m)", ambiguous.sole[1]);
    assert!(ambiguous.pelvis_drop.abs() < 1e-3, "the pelvis stays as animated ({} m)", ambiguous.pelvis_drop);

    app.world_mut().entity_mut(biped.root).insert(IkGroundFilter::default().in_rapier_context(first));
    assert_step_bars(&measure(&mut app, &biped));

    // The named context is the empty one: nothing under the feet there.
    app.world_mut().entity_mut(biped.root).insert(IkGroundFilter::default().in_rapier_context(second));
    let empty = measure(&mut app, &biped);
    assert!(empty.feet.iter().all(|f| !f.hit), "the second context has no colliders");
    assert_eq!(empty.warnings, 0);
}

#[test]
fn without_foot_placement_the_lower_foot_floats_15_cm() {
    let (mut app, biped) = biped_across_a_step::<Rapier>();
    app.world_mut().entity_mut(biped.root).get_mut::<FootPlacer>().unwrap().weight = 0.0;
    for _ in 0..30 {
        app.update();
    }
    let float = world_translation(&mut app, biped.ankles[1]).y - ANKLE_HEIGHT + 0.15;
    assert!((float - 0.15).abs() < 1e-4, "right foot floats {float} m");
}

/// Moves the biped root forward at 5 cm/s while its legs stay as "animated" (standing): without
/// locking the planted balls slide with the root; with `FootLock` they stay put (as far as the
/// legs reach: a standing leg cannot follow a root that walks away).
fn ball_slide(lock: bool) -> f32 {
    let mut app = headless_app();
    app.insert_resource(IkGround::Plane(GroundPlane::default()));
    let biped = spawn_biped(app.world_mut(), Vec3::ZERO);
    if lock {
        let contacts = FootContacts(ContactSource::Manual(vec![true, true]));
        app.world_mut().entity_mut(biped.root).insert((FootLock::default(), contacts));
    }
    app.update();
    let start = world_translation(&mut app, biped.balls[0]);
    let mut worst = 0.0f32;
    for _ in 0..60 {
        app.world_mut().get_mut::<Transform>(biped.root).unwrap().translation.z += 0.05 * crate::common::DT;
        app.update();
        worst = worst.max((world_translation(&mut app, biped.balls[0]) - start).length());
    }
    worst
}

#[test]
fn foot_lock_keeps_planted_balls_still_while_the_root_slides() {
    let unlocked = ball_slide(false);
    let locked = ball_slide(true);
    println!(
        "ball slide over 1 s of 5 cm/s root motion: {:.1} mm unlocked, {:.3} mm locked",
        unlocked * 1e3,
        locked * 1e3
    );
    assert!(unlocked > 0.045, "without locking the ball follows the root ({unlocked} m)");
    assert!(locked <= 0.001, "a locked ball stays within 1 mm ({} mm)", locked * 1e3);
}

/// What [`probe_a_rail`]'s system saw: rays at a sole's six sample points, and a sole box.
#[derive(Resource, Default, Debug)]
struct RailProbe {
    /// Ground heights the rays found.
    rays: Vec<Option<f32>>,
    /// How far the sole box fell from 10 cm over the floor (before it touched something).
    sole: Option<f32>,
    /// The same box beside the rail.
    beside: Option<f32>,
}

/// On a floor (top at y = 0) with a rail 2 cm wide and 5 cm high across z = 0.03..0.05, between
/// the sample points of a 28 cm sole from z = -0.2 to 0.08: the rays miss it, a sole-sized box
/// swept down does not.
pub fn probe_a_rail<P: Physics>() {
    let mut app = headless_app();
    P::add_to(&mut app);
    let world = app.world_mut();
    P::spawn_box(world, Vec3::new(2.0, 0.5, 2.0), Transform::from_xyz(0.0, -0.5, 0.0));
    P::spawn_box(world, Vec3::new(0.5, 0.025, 0.01), Transform::from_xyz(0.0, 0.025, 0.04));
    let character = world.spawn(Transform::default()).id();
    app.init_resource::<RailProbe>();
    app.add_systems(Update, move |rays: GroundRays, mut seen: ResMut<RailProbe>| {
        let probe = rays.probe();
        let at = |z: f32| probe.cast(Vec3::new(0.0, 0.5, z), Vec3::NEG_Y, 1.0, character).map(|h| h.point.y);
        seen.rays = (0..6).map(|i| at(-0.2 + 0.28 * i as f32 / 5.0)).collect();
        let half = Vec3::new(0.03, 0.005, 0.14);
        let from = |z: f32| Vec3::new(0.0, 0.105, z);
        seen.sole = probe.cast_box(from(-0.06), Quat::IDENTITY, half, Vec3::NEG_Y, 0.2, character);
        seen.beside = probe.cast_box(from(0.3), Quat::IDENTITY, half, Vec3::NEG_Y, 0.2, character);
    });
    for _ in 0..3 {
        app.update();
    }
    let seen = app.world().resource::<RailProbe>();
    assert!(seen.rays.iter().all(|h| h.is_some_and(|h| h.abs() < 1e-3)), "{} rays on the floor: {seen:?}", P::NAME);
    let sole = seen.sole.expect("the box touches the rail");
    assert!((sole - 0.05).abs() < 2e-3, "{}: onto the rail's top, 5 cm down: {seen:?}", P::NAME);
    let beside = seen.beside.expect("the box touches the floor");
    assert!((beside - 0.1).abs() < 2e-3, "{}: onto the floor, 10 cm down: {seen:?}", P::NAME);
}

#[test]
fn a_sole_box_finds_a_rail_the_rays_pass_between() {
    probe_a_rail::<Rapier>();
}

#[test]
fn following_the_higher_foot_the_lower_one_stands_on_its_toes_and_the_pelvis_drops_less() {
    let (mut app, biped) = biped_across_a_step::<Rapier>();
    let mut placer = app.world_mut().get_mut::<FootPlacer>(biped.root).unwrap();
    placer.settings.pelvis_support = PelvisSupport::HighestFoot;
    placer.settings.heel_lift = 1.0;
    let f = measure(&mut app, &biped);
    f.print("rapier step, highest foot + heel lift");
    let ball_up = app.world().get::<GlobalTransform>(biped.balls[1]).unwrap().rotation() * Vec3::Y;
    println!(
        "lower foot: heel lift {:.1}°, its ball's up axis {:.2}° off vertical",
        f.feet[1].heel_lift.to_degrees(),
        ball_up.angle_between(Vec3::Y).to_degrees()
    );
    // The pelvis drops less than the 15 cm the lowest foot would ask, by the heel's lift.
    assert!(f.pelvis_drop > -0.12 && f.pelvis_drop < -0.02, "pelvis moved {} m", f.pelvis_drop);
    // Both balls on their ground, the lower foot's heel up and its toes as flat as they were
    // (the toe bone's rotation was written back with the foot's).
    for (side, ground) in [0.0, -0.15].into_iter().enumerate() {
        assert!((f.ball[side] - ground).abs() < 0.01, "foot {side}: ball at {}, ground at {ground}", f.ball[side]);
    }
    assert!(f.feet[1].heel_lift > 0.2 && f.feet[0].heel_lift == 0.0, "{:?}", f.feet);
    assert!(f.sole[1] > -0.15 + 0.03, "the lower heel is not lifted: sole at {}", f.sole[1]);
    assert!(ball_up.angle_between(Vec3::Y) < 3f32.to_radians(), "the lower foot's toes turned: {ball_up}");
    assert_eq!(f.warnings, 0);
}
