//! Bad input: a despawned target, a missing bone, a zero-length bone and a NaN target. No panic,
//! one warning (not one per frame), the pose left as it was.

use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::common::headless_app;

fn arm(world: &mut World, lower: Vec3) -> [Entity; 3] {
    let shoulder = world.spawn(Transform::from_xyz(0.0, 1.4, 0.0)).id();
    let elbow = world.spawn((Transform::from_xyz(0.3, 0.0, 0.0), ChildOf(shoulder))).id();
    let hand = world.spawn((Transform::from_translation(lower), ChildOf(elbow))).id();
    [shoulder, elbow, hand]
}

/// Runs 20 frames and checks: nothing moved, and the chain logged exactly one warning.
fn assert_untouched_with_one_warning(mut app: App, bones: [Entity; 3]) {
    let before: Vec<Transform> = bones.iter().map(|b| *app.world().get::<Transform>(*b).unwrap()).collect();
    for _ in 0..20 {
        app.update();
    }
    for (bone, was) in bones.iter().zip(&before) {
        assert_eq!(app.world().get::<Transform>(*bone).unwrap(), was, "a bone moved");
        assert!(app.world().get::<GlobalTransform>(*bone).unwrap().translation().is_finite());
    }
    let state = app.world().get::<IkChainState>(bones[2]).unwrap();
    assert_eq!(state.warnings, 1, "one warning, not one per frame");
}

#[test]
fn a_despawned_target_leaves_the_pose() {
    let mut app = headless_app();
    let bones = arm(app.world_mut(), Vec3::new(0.25, 0.0, 0.0));
    let ball = app.world_mut().spawn(Transform::from_xyz(0.3, 1.2, 0.2)).id();
    app.world_mut().entity_mut(bones[2]).insert(IkChain::two_bone(IkTarget::Entity(ball)));
    app.world_mut().despawn(ball);
    assert_untouched_with_one_warning(app, bones);
}

#[test]
fn a_nan_target_leaves_the_pose() {
    let mut app = headless_app();
    let bones = arm(app.world_mut(), Vec3::new(0.25, 0.0, 0.0));
    app.world_mut().entity_mut(bones[2]).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(f32::NAN, 1.0, 0.0))));
    assert_untouched_with_one_warning(app, bones);
}

#[test]
fn a_zero_length_bone_leaves_the_pose() {
    let mut app = headless_app();
    let bones = arm(app.world_mut(), Vec3::ZERO);
    app.world_mut().entity_mut(bones[2]).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.3, 1.2, 0.2))));
    assert_untouched_with_one_warning(app, bones);
}

#[test]
fn a_missing_bone_leaves_the_pose() {
    let mut app = headless_app();
    // The tip has only one ancestor: a two-bone chain needs two.
    let shoulder = app.world_mut().spawn(Transform::from_xyz(0.0, 1.4, 0.0)).id();
    let elbow = app.world_mut().spawn((Transform::from_xyz(0.3, 0.0, 0.0), ChildOf(shoulder))).id();
    let hand = app.world_mut().spawn((Transform::from_xyz(0.25, 0.0, 0.0), ChildOf(elbow))).id();
    app.world_mut().entity_mut(elbow).remove::<ChildOf>();
    app.world_mut().entity_mut(hand).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.3, 1.2, 0.2))));
    assert_untouched_with_one_warning(app, [shoulder, elbow, hand]);
}

#[test]
fn a_despawned_pelvis_leaves_the_feet_alone() {
    let mut app = headless_app();
    app.insert_resource(IkGround::Plane(GroundPlane::default()));
    let biped = crate::feet::spawn_biped(app.world_mut(), Vec3::ZERO);
    let ankle_before = *app.world().get::<Transform>(biped.ankles[0]).unwrap();
    let ghost = app.world_mut().spawn(Transform::default()).id();
    app.world_mut().despawn(ghost);
    app.world_mut().entity_mut(biped.root).get_mut::<FootPlacer>().unwrap().pelvis = ghost;
    for _ in 0..20 {
        app.update();
    }
    assert_eq!(*app.world().get::<Transform>(biped.ankles[0]).unwrap(), ankle_before);
    assert_eq!(app.world().get::<FootPlacerState>(biped.root).unwrap().warnings, 1);
}
