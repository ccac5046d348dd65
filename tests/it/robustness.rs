//! Bad input: a despawned target, a missing bone, a zero-length bone and a NaN target. No panic,
//! one warning (not one per frame), one typed `IkFaulted` event on the chain's entity per
//! onset, the pose left as it was.

use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::common::headless_app;

fn arm(world: &mut World, lower: Vec3) -> [Entity; 3] {
    let shoulder = world.spawn(Transform::from_xyz(0.0, 1.4, 0.0)).id();
    let elbow = world.spawn((Transform::from_xyz(0.3, 0.0, 0.0), ChildOf(shoulder))).id();
    let hand = world.spawn((Transform::from_translation(lower), ChildOf(elbow))).id();
    [shoulder, elbow, hand]
}

/// The fault events observed on a chain's tip.
#[derive(Resource, Default)]
struct Seen {
    faulted: Vec<IkFaulted>,
    recovered: Vec<IkRecovered>,
}

/// Watches the tip's fault events with entity observers.
fn observe_faults(app: &mut App, tip: Entity) {
    app.init_resource::<Seen>();
    app.world_mut()
        .entity_mut(tip)
        .observe(|e: On<IkFaulted>, mut seen: ResMut<Seen>| seen.faulted.push(e.event().clone()))
        .observe(|e: On<IkRecovered>, mut seen: ResMut<Seen>| seen.recovered.push(*e.event()));
}

/// Runs 20 frames and checks: nothing moved, the chain logged exactly one warning and its
/// entity saw exactly one `IkFaulted`, for the expected fault.
fn assert_untouched_with_one_warning(mut app: App, bones: [Entity; 3], expected: fn(&IkFault) -> bool) {
    observe_faults(&mut app, bones[2]);
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
    let seen = app.world().resource::<Seen>();
    println!("events: {:?}", seen.faulted);
    assert_eq!(seen.faulted.len(), 1, "one event per onset: {:?}", seen.faulted);
    let event = &seen.faulted[0];
    assert_eq!((event.entity, event.component), (bones[2], IkComponent::Chain));
    assert!(expected(&event.fault), "unexpected fault {:?}", event.fault);
    assert!(seen.recovered.is_empty());
}

#[test]
fn a_despawned_target_leaves_the_pose() {
    let mut app = headless_app();
    let bones = arm(app.world_mut(), Vec3::new(0.25, 0.0, 0.0));
    let ball = app.world_mut().spawn(Transform::from_xyz(0.3, 1.2, 0.2)).id();
    app.world_mut().entity_mut(bones[2]).insert(IkChain::two_bone(IkTarget::Entity(ball)));
    app.world_mut().despawn(ball);
    assert_untouched_with_one_warning(app, bones, |f| matches!(f, IkFault::TargetDespawned(_)));
}

#[test]
fn a_nan_target_leaves_the_pose() {
    let mut app = headless_app();
    let bones = arm(app.world_mut(), Vec3::new(0.25, 0.0, 0.0));
    app.world_mut().entity_mut(bones[2]).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(f32::NAN, 1.0, 0.0))));
    assert_untouched_with_one_warning(app, bones, |f| *f == IkFault::NonFiniteTarget);
}

#[test]
fn a_zero_length_bone_leaves_the_pose() {
    let mut app = headless_app();
    let bones = arm(app.world_mut(), Vec3::ZERO);
    app.world_mut().entity_mut(bones[2]).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.3, 1.2, 0.2))));
    assert_untouched_with_one_warning(app, bones, |f| {
        matches!(f, IkFault::Solver(bevy_ik::ik_core::IkError::ZeroLengthBone { .. }))
    });
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
    assert_untouched_with_one_warning(app, [shoulder, elbow, hand], |f| matches!(f, IkFault::MissingBone(_)));
}

#[test]
fn a_fault_that_goes_away_is_told_once_and_its_recovery_once() {
    let mut app = headless_app();
    let bones = arm(app.world_mut(), Vec3::new(0.25, 0.0, 0.0));
    let ball = app.world_mut().spawn(Transform::from_xyz(0.3, 1.2, 0.2)).id();
    app.world_mut().entity_mut(bones[2]).insert(IkChain::two_bone(IkTarget::Entity(ball)));
    observe_faults(&mut app, bones[2]);
    for frame in 0..40 {
        match frame {
            5 => {
                app.world_mut().despawn(ball);
            }
            20 => {
                app.world_mut().get_mut::<IkChain>(bones[2]).unwrap().target =
                    IkTarget::Position(Vec3::new(0.3, 1.2, 0.2))
            }
            _ => {}
        }
        app.update();
    }
    let seen = app.world().resource::<Seen>();
    println!("faulted {:?}, recovered {:?}", seen.faulted, seen.recovered);
    assert_eq!(seen.faulted.len(), 1);
    assert_eq!(seen.faulted[0].fault, IkFault::TargetDespawned(ball));
    assert_eq!(seen.recovered, vec![IkRecovered { entity: bones[2], component: IkComponent::Chain }]);
    assert!(app.world().get::<IkChainState>(bones[2]).unwrap().fault().is_none());
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
    observe_faults(&mut app, biped.root);
    for _ in 0..20 {
        app.update();
    }
    assert_eq!(*app.world().get::<Transform>(biped.ankles[0]).unwrap(), ankle_before);
    assert_eq!(app.world().get::<FootPlacerState>(biped.root).unwrap().warnings, 1);
    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.faulted.len(), 1, "{:?}", seen.faulted);
    assert_eq!(seen.faulted[0].component, IkComponent::FootPlacer);
    assert!(matches!(seen.faulted[0].fault, IkFault::MissingBone(_)), "{:?}", seen.faulted[0].fault);
}
