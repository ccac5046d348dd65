//! Components that hold entities remap them (scenes, clones), components taken off take
//! their state with them, and the systems that work on them run in one order.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::common::headless_app;

/// Maps `from[i]` to `to[i]` through the component's own entity mapping.
fn remapped<C: Component + Clone>(component: &C, from: &[Entity], to: &[Entity]) -> C {
    let mut map: EntityHashMap<Entity> = from.iter().copied().zip(to.iter().copied()).collect();
    let mut out = component.clone();
    C::map_entities(&mut out, &mut map);
    out
}

#[test]
fn components_holding_entities_remap_them() {
    let mut world = World::new();
    let old: Vec<Entity> = (0..8).map(|_| world.spawn_empty().id()).collect();
    let new: Vec<Entity> = (0..8).map(|_| world.spawn_empty().id()).collect();

    let chain = IkChain { root: Some(old[1]), ..IkChain::two_bone(IkTarget::Entity(old[0])) };
    let chain = remapped(&chain, &old, &new);
    assert_eq!((chain.target, chain.root), (IkTarget::Entity(new[0]), Some(new[1])));
    assert_eq!(remapped(&Pole::new(IkTarget::Entity(old[2])), &old, &new).target, IkTarget::Entity(new[2]));

    let placer = FootPlacer::new(old[0], vec![LegBones::new(old[1], old[2], old[3], Some(old[4]))]);
    let placer = remapped(&placer, &old, &new);
    let leg = placer.legs[0];
    assert_eq!([placer.pelvis, leg.hip, leg.knee, leg.ankle], [new[0], new[1], new[2], new[3]]);
    assert_eq!(leg.toe, Some(new[4]));

    let spread = LookAtSpread::spine_chest_neck_head([old[0], old[1], old[2], old[3]], IkTarget::Entity(old[5]));
    let spread = remapped(&spread, &old, &new);
    assert!(spread.joints.iter().map(|j| j.bone).eq(new[..4].iter().copied()));
    assert_eq!(spread.target, IkTarget::Entity(new[5]));

    let humanoid = HumanoidIk { look_target: Some(IkTarget::Entity(old[6])), ..default() };
    assert_eq!(remapped(&humanoid, &old, &new).look_target, Some(IkTarget::Entity(new[6])));
}

/// A shoulder → elbow → hand arm with a two-bone chain on the hand, reaching a point.
fn arm_app() -> (App, [Entity; 3]) {
    let mut app = headless_app();
    let world = app.world_mut();
    let shoulder = world.spawn(Transform::from_xyz(0.0, 1.4, 0.0)).id();
    let elbow = world.spawn((Transform::from_xyz(0.3, 0.0, 0.0), ChildOf(shoulder))).id();
    let hand = world.spawn((Transform::from_xyz(0.25, 0.0, 0.0), ChildOf(elbow))).id();
    world.entity_mut(hand).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.3, 1.2, 0.2))));
    (app, [shoulder, elbow, hand])
}

#[test]
fn a_chain_taken_off_takes_its_state_and_leaves_the_pose_alone_then_comes_back() {
    let (mut app, [shoulder, elbow, hand]) = arm_app();
    for _ in 0..5 {
        app.update();
    }
    assert!(app.world().get::<IkChainState>(hand).unwrap().reached, "the chain solves while it is on");
    app.world_mut().entity_mut(hand).remove::<IkChain>();
    app.update();
    assert!(app.world().get::<IkChainState>(hand).is_none(), "the state went with the chain");
    // With the chain off, the animation (here: a pose set each frame) is left as it is.
    let posed = Quat::from_rotation_z(0.3);
    for _ in 0..5 {
        for bone in [shoulder, elbow] {
            app.world_mut().get_mut::<Transform>(bone).unwrap().rotation = posed;
        }
        app.update();
        for bone in [shoulder, elbow] {
            assert_eq!(app.world().get::<Transform>(bone).unwrap().rotation, posed, "a removed chain wrote a bone");
        }
    }
    app.world_mut().entity_mut(hand).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.3, 1.2, 0.2))));
    for _ in 0..5 {
        app.update();
    }
    let state = app.world().get::<IkChainState>(hand).expect("a chain put back gets a fresh state");
    assert!(state.reached && state.warnings == 0, "the chain put back solves: error {}", state.error);
}

#[test]
fn a_chain_replaced_in_one_batch_keeps_solving() {
    let (mut app, [_, _, hand]) = arm_app();
    app.update();
    let mut commands = app.world_mut().commands();
    commands.entity(hand).remove::<IkChain>().insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.2, 1.3, 0.2))));
    app.world_mut().flush();
    for _ in 0..5 {
        app.update();
    }
    let state = app.world().get::<IkChainState>(hand).expect("the state stays with the new chain");
    assert!(state.reached, "the replaced chain solves: error {}", state.error);
}

#[test]
fn feet_and_look_at_taken_off_take_their_state() {
    let mut app = headless_app();
    app.insert_resource(IkGround::Plane(GroundPlane::default()));
    let biped = crate::feet::spawn_biped(app.world_mut(), Vec3::ZERO);
    let target = IkTarget::Position(Vec3::new(0.0, 1.6, 2.0));
    let spine = [biped.pelvis; 1].map(|p| app.world_mut().spawn((Transform::from_xyz(0.0, 0.3, 0.0), ChildOf(p))).id());
    let head = app.world_mut().spawn((Transform::from_xyz(0.0, 0.4, 0.0), ChildOf(spine[0]))).id();
    let joints = vec![LookAtJoint::from_degrees(spine[0], 1.0, 30.0), LookAtJoint::from_degrees(head, 1.0, 50.0)];
    app.world_mut().entity_mut(biped.root).insert(LookAtSpread { joints, target, ..default() });
    for _ in 0..3 {
        app.update();
    }
    assert!(app.world().get::<FootPlacerState>(biped.root).is_some_and(|s| s.feet.len() == 2));
    assert!(app.world().get::<LookAtState>(biped.root).is_some());
    app.world_mut().entity_mut(biped.root).remove::<(FootPlacer, LookAtSpread)>();
    app.update();
    assert!(app.world().get::<FootPlacerState>(biped.root).is_none());
    assert!(app.world().get::<LookAtState>(biped.root).is_none());
}

#[test]
fn the_plugins_systems_have_one_order_whatever_the_executor_picks() {
    // Bevy refuses to build a schedule with ambiguity detection at `Error` when two systems
    // that touch the same data have no order: the feet systems (`place_feet`,
    // `walk_creatures`, `report_missing_placer`) write the same `Transform`s and fault
    // messages and had none, so a run's outcome could depend on the order picked.
    use bevy::ecs::schedule::{LogLevel, ScheduleBuildSettings};
    let mut app = headless_app();
    app.add_plugins(IkLodPlugin);
    app.edit_schedule(PostUpdate, |schedule| {
        schedule.set_build_settings(ScheduleBuildSettings { ambiguity_detection: LogLevel::Error, ..default() });
    });
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| app.update()));
    assert!(built.is_ok(), "PostUpdate has systems with no order between them (see the log above)");
}
