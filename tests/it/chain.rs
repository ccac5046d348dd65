//! IkChain on an arm animated by a real AnimationPlayer clip: the hand reaches the target in the
//! same frame, and weight 0 leaves the animated pose untouched.

use bevy::animation::{AnimatedBy, AnimationTargetId, animated_field, animation_curves::AnimatableCurve};
use bevy::math::curve::{FunctionCurve, Interval};
use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::common::{global_translation, headless_app};

struct Arm {
    shoulder: Entity,
    elbow: Entity,
    hand: Entity,
}

/// Spawns a character with a shoulder → elbow → hand arm whose shoulder and elbow are animated
/// by a looping clip, played by an `AnimationPlayer` on the character root.
fn spawn_animated_arm(app: &mut App) -> Arm {
    let names = ["shoulder", "elbow"].map(Name::new);
    let ids = names.clone().map(|n| AnimationTargetId::from_name(&n));
    let mut clip = AnimationClip::default();
    clip.add_curve_to_target(
        ids[0],
        AnimatableCurve::new(
            animated_field!(Transform::rotation),
            FunctionCurve::new(Interval::new(0.0, 2.0).unwrap(), |t| {
                Quat::from_rotation_z(-1.2 + 0.4 * (t * 3.0).sin()) * Quat::from_rotation_x(0.3 * t)
            }),
        ),
    );
    clip.add_curve_to_target(
        ids[1],
        AnimatableCurve::new(
            animated_field!(Transform::rotation),
            FunctionCurve::new(Interval::new(0.0, 2.0).unwrap(), |t| Quat::from_rotation_z(0.3 + 0.5 * t)),
        ),
    );
    let clip = app.world_mut().resource_mut::<Assets<AnimationClip>>().add(clip);
    let (graph, node) = AnimationGraph::from_clip(clip);
    let graph = app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    let mut player = AnimationPlayer::default();
    player.play(node).repeat();

    let world = app.world_mut();
    let root = world.spawn((Transform::from_xyz(0.5, 0.0, -1.0), player, AnimationGraphHandle(graph))).id();
    let shoulder = world
        .spawn((names[0].clone(), ids[0], AnimatedBy(root), Transform::from_xyz(0.2, 1.4, 0.0), ChildOf(root)))
        .id();
    let elbow = world
        .spawn((names[1].clone(), ids[1], AnimatedBy(root), Transform::from_xyz(0.3, 0.0, 0.0), ChildOf(shoulder)))
        .id();
    let hand = world.spawn((Name::new("hand"), Transform::from_xyz(0.27, 0.0, 0.0), ChildOf(elbow))).id();
    Arm { shoulder, elbow, hand }
}

#[test]
fn the_hand_reaches_the_target_in_the_same_frame() {
    let mut app = headless_app();
    let arm = spawn_animated_arm(&mut app);
    let target = Vec3::new(0.9, 1.2, -0.75);
    app.world_mut().entity_mut(arm.hand).insert((
        IkChain::two_bone(IkTarget::Position(target)),
        Pole::new(IkTarget::Position(Vec3::new(0.8, 2.0, -2.0))),
    ));
    let mut worst = 0.0f32;
    for frame in 0..90 {
        app.update();
        let error = (global_translation(&mut app, arm.hand) - target).length();
        worst = worst.max(error);
        assert!(error < 1e-3, "frame {frame}: hand {error} m from the target");
    }
    // The animation really moves the arm: the elbow's local rotation changes between frames.
    let elbow_rotation = app.world().get::<Transform>(arm.elbow).unwrap().rotation;
    app.update();
    assert_ne!(elbow_rotation, app.world().get::<Transform>(arm.elbow).unwrap().rotation);
    println!("worst hand error over 90 animated frames: {:.2e} m", worst);
}

#[test]
fn weight_zero_leaves_the_animated_pose() {
    let mut with_ik = headless_app();
    let mut without_ik = headless_app();
    let arm = spawn_animated_arm(&mut with_ik);
    let plain = spawn_animated_arm(&mut without_ik);
    let chain = IkChain { weight: 0.0, ..IkChain::two_bone(IkTarget::Position(Vec3::new(0.9, 1.2, -0.75))) };
    with_ik.world_mut().entity_mut(arm.hand).insert(chain);
    for _ in 0..30 {
        with_ik.update();
        without_ik.update();
        for (a, b) in [(arm.shoulder, plain.shoulder), (arm.elbow, plain.elbow), (arm.hand, plain.hand)] {
            let ga = with_ik.world().get::<GlobalTransform>(a).unwrap();
            let gb = without_ik.world().get::<GlobalTransform>(b).unwrap();
            assert_eq!(ga, gb, "weight 0 changed the animated pose");
        }
    }
}
