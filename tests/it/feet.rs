//! A biped standing across a 15 cm step made of real rapier colliders: after physics and IK run
//! in the same app, both feet rest on their surfaces and the pelvis has dropped by the step.

use bevy::prelude::*;
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

/// An app with rapier physics, a 15 cm step made of two colliders — upper level (x > 0) at
/// y = 0, lower level (x < 0) at y = −0.15, the edge along z — and a biped standing across it.
fn biped_across_a_rapier_step() -> (App, Biped) {
    let mut app = headless_app();
    app.add_plugins(RapierPhysicsPlugin::<NoUserData>::default());
    let world = app.world_mut();
    world.spawn((Collider::cuboid(1.0, 0.5, 2.0), Transform::from_xyz(1.0, -0.5, 0.0)));
    world.spawn((Collider::cuboid(1.0, 0.5, 2.0), Transform::from_xyz(-1.0, -0.65, 0.0)));
    let biped = spawn_biped(world, Vec3::ZERO);
    (app, biped)
}

#[test]
fn both_feet_land_on_a_15_cm_step_and_the_pelvis_drops_15_cm() {
    let (mut app, biped) = biped_across_a_rapier_step();

    for _ in 0..90 {
        app.update();
    }
    let surfaces = [0.0, -0.15];
    for (side, (ankle, ground)) in biped.ankles.iter().zip(surfaces).enumerate() {
        let sole = world_translation(&mut app, *ankle).y - ANKLE_HEIGHT;
        let ball = world_translation(&mut app, biped.balls[side]).y;
        println!("foot {side}: sole {:.4} m, ball {:.4} m, ground {ground} m", sole, ball);
        assert!((sole - ground).abs() < 0.01, "foot {side}: sole at {sole}, ground at {ground}");
        assert!((ball - ground).abs() < 0.01, "foot {side}: ball at {ball}, ground at {ground}");
    }
    let pelvis_drop = world_translation(&mut app, biped.pelvis).y - PELVIS_HEIGHT;
    println!("pelvis drop {pelvis_drop:.4} m");
    assert!((pelvis_drop + 0.15).abs() < 0.01, "pelvis moved {pelvis_drop} m, expected about -0.15");
    let state = app.world().get::<FootPlacerState>(biped.root).unwrap();
    assert!(state.feet.iter().all(|f| f.hit), "both rays hit the colliders");
    assert_eq!(state.warnings, 0);
}

#[test]
fn without_foot_placement_the_lower_foot_floats_15_cm() {
    let (mut app, biped) = biped_across_a_rapier_step();
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
        let contacts = ContactSource::Manual(vec![true, true]);
        app.world_mut().entity_mut(biped.root).insert(FootLock { contacts, ..Default::default() });
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
