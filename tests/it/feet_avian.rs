//! The ground scenes of `feet.rs` on Avian (avian3d 0.7, bevy_ik's `avian` feature): the same
//! code, the same bars, and the figures within 1 mm of rapier's.

use avian3d::prelude::*;
use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::feet::{
    Physics, Rapier, assert_ramp_bars, assert_slab_filtering, assert_step_bars, probe_a_rail, ramp_figures,
    step_figures,
};

/// avian3d.
pub struct Avian;

impl Physics for Avian {
    const NAME: &'static str = "avian";

    fn add_to(app: &mut App) {
        app.add_plugins(PhysicsPlugins::default());
        // Avian sets up its diagnostics resources in `Plugin::finish`, which `App::run` calls
        // and a test driving `App::update` by hand must call itself.
        app.finish();
        app.cleanup();
        app.insert_resource(IkGround::Avian);
    }

    fn spawn_box(world: &mut World, half: Vec3, at: Transform) -> Entity {
        world.spawn((RigidBody::Static, Collider::cuboid(2.0 * half.x, 2.0 * half.y, 2.0 * half.z), at)).id()
    }

    fn spawn_body_with_child_box(world: &mut World, half: Vec3, at: Transform) -> (Entity, Entity) {
        let body = world.spawn((RigidBody::Static, at)).id();
        let shape = Collider::cuboid(2.0 * half.x, 2.0 * half.y, 2.0 * half.z);
        let collider = world.spawn((shape, Transform::IDENTITY, ChildOf(body))).id();
        (body, collider)
    }

    fn set_groups(world: &mut World, collider: Entity, groups: u32) {
        world.entity_mut(collider).insert(CollisionLayers::new(LayerMask(groups), LayerMask::ALL));
    }
}

/// Rapier and Avian answered the same scene within 1 mm (heights, floats) and 0.001 (normals).
fn assert_same_as_rapier(avian: &crate::feet::Figures, rapier: &crate::feet::Figures, scene: &str) {
    let gap = avian.largest_difference(rapier);
    println!("{scene}: avian vs rapier, largest difference {gap:.2e}");
    assert!(gap < 1e-3, "{scene}: avian and rapier differ by {gap}");
}

#[test]
fn avian_both_feet_land_on_a_15_cm_step_like_rapier() {
    let avian = step_figures::<Avian>();
    assert_step_bars(&avian);
    assert_same_as_rapier(&avian, &step_figures::<Rapier>(), "15 cm step");
}

#[test]
fn avian_feet_land_on_10_and_20_degree_ramps_like_rapier() {
    for degrees in [10.0, 20.0] {
        let avian = ramp_figures::<Avian>(degrees);
        assert_ramp_bars(&avian, degrees);
        assert_same_as_rapier(&avian, &ramp_figures::<Rapier>(degrees), &format!("{degrees}° ramp"));
    }
}

#[test]
fn avian_rays_skip_excluded_colliders_and_bodies_and_other_layers() {
    assert_slab_filtering::<Avian>();
}

/// Avian ground without Avian's plugins: no panic, rays hit nothing, the pose stays finite.
#[test]
fn avian_ground_without_avian_leaves_the_feet_as_animated() {
    let mut app = crate::common::headless_app();
    app.insert_resource(IkGround::Avian);
    let biped = crate::feet::spawn_biped(app.world_mut(), Vec3::ZERO);
    let figures = crate::feet::measure(&mut app, &biped);
    assert!(figures.feet.iter().all(|f| !f.hit));
    assert!(figures.sole.iter().all(|s| s.abs() < 1e-4), "feet as animated: {:?}", figures.sole);
    assert!(figures.pelvis_drop.abs() < 1e-4);
}

#[test]
fn avian_a_sole_box_finds_a_rail_the_rays_pass_between() {
    probe_a_rail::<Avian>();
}
