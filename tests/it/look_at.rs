//! LookAtSpread on a 4-joint spine with the lesson's shares and limits: the head reaches 120°.

use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::common::headless_app;

fn spawn_spine(world: &mut World) -> (Entity, [Entity; 4]) {
    let root = world.spawn(Transform::default()).id();
    let spine = world.spawn((Transform::from_xyz(0.0, 1.0, 0.0), ChildOf(root))).id();
    let chest = world.spawn((Transform::from_xyz(0.0, 0.2, 0.0), ChildOf(spine))).id();
    let neck = world.spawn((Transform::from_xyz(0.0, 0.3, 0.0), ChildOf(chest))).id();
    let head = world.spawn((Transform::from_xyz(0.0, 0.1, 0.0), ChildOf(neck))).id();
    (root, [spine, chest, neck, head])
}

/// Heading of the head's forward (+Z) about the vertical, degrees, counter-clockwise from +Z
/// toward +X.
fn head_heading(app: &App, head: Entity) -> f32 {
    let forward = app.world().get::<GlobalTransform>(head).unwrap().rotation() * Vec3::Z;
    forward.x.atan2(forward.z).to_degrees()
}

fn look_toward(degrees: f32) -> f32 {
    look_toward_with(degrees, |_| {}).0
}

/// The head's heading and how much of the spread the target's direction allowed, after
/// looking toward a target `degrees` round from +Z with the spread edited by `edit`.
fn look_toward_with(degrees: f32, edit: impl FnOnce(&mut LookAtSpread)) -> (f32, f32) {
    let mut app = headless_app();
    let (root, joints) = spawn_spine(app.world_mut());
    let angle = degrees.to_radians();
    let target = Vec3::new(10.0 * angle.sin(), 1.6, 10.0 * angle.cos());
    let mut look =
        LookAtSpread { half_life: 0.0, ..LookAtSpread::spine_chest_neck_head(joints, IkTarget::Position(target)) };
    edit(&mut look);
    app.world_mut().entity_mut(root).insert(look);
    app.update();
    app.update();
    (head_heading(&app, joints[3]), app.world().get::<LookAtState>(root).unwrap().in_view)
}

#[test]
fn a_field_of_view_lets_go_of_targets_behind_and_a_total_limit_caps_the_turn() {
    let natural = |look: &mut LookAtSpread| {
        look.field_of_view = 100f32.to_radians();
        look.fade_angle = 30f32.to_radians();
        let mut spread: Vec<_> = look.joints.iter().map(|j| j.spread).collect();
        bevy_ik::ik_core::look_at::scale_limits(&mut spread, 70f32.to_radians());
        for (joint, spread) in look.joints.iter_mut().zip(spread) {
            joint.spread = spread;
        }
    };
    let mut rows = Vec::new();
    for degrees in [40.0, 90.0, 115.0, 140.0, 180.0] {
        let (heading, in_view) = look_toward_with(degrees, natural);
        rows.push(format!("{degrees}°: head {heading:.1}°, in view {in_view:.2}"));
        match degrees {
            d if d <= 100.0 => assert!(in_view == 1.0 && heading <= 70.05, "{rows:?}"),
            d if d >= 130.0 => assert!(in_view == 0.0 && heading.abs() < 1e-3, "let go: {rows:?}"),
            _ => assert!(in_view > 0.0 && in_view < 1.0 && heading > 0.0 && heading < 70.0, "fading: {rows:?}"),
        }
    }
    println!("field of view 100° + 30° fade, 70° in all: {}", rows.join("; "));
    assert!((look_toward_with(90.0, natural).0 - 70.0).abs() < 0.1, "the 70° cap holds: {rows:?}");
    // Without a field of view (the default) a target behind is followed to the limit.
    assert!((look_toward(180.0).abs() - 120.0).abs() < 0.1);
}

#[test]
fn the_spread_reaches_120_degrees_and_stops_there() {
    let reached = look_toward(100.0);
    assert!((reached - 100.0).abs() < 0.5, "a 100° target: head turned {reached}°");
    for beyond in [130.0, 150.0, 170.0] {
        let turned = look_toward(beyond);
        assert!((turned - 120.0).abs() < 0.1, "a {beyond}° target: head turned {turned}°, expected 120°");
    }
}

#[test]
fn joints_stay_within_their_limits() {
    let mut app = headless_app();
    let (root, joints) = spawn_spine(app.world_mut());
    app.world_mut().entity_mut(root).insert(LookAtSpread {
        half_life: 0.0,
        ..LookAtSpread::spine_chest_neck_head(joints, IkTarget::Position(Vec3::new(-5.0, 1.6, -5.0)))
    });
    app.update();
    for (joint, limit) in joints.iter().zip([15.0f32, 20.0, 35.0, 50.0]) {
        let turned = app.world().get::<Transform>(*joint).unwrap().rotation.angle_between(Quat::IDENTITY).to_degrees();
        assert!(turned <= limit + 0.05, "joint turned {turned}° past its {limit}° limit");
    }
}
