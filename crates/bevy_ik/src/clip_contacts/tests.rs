//! The runtime labeller on a made-up biped whose feet take turns: each planted half a second,
//! sliding back at 1 m/s (an in-place walk at 1 m/s), then swinging forward 5 cm up.

use bevy::animation::{AnimationPlugin, AnimationTargetId, animated_field};
use bevy::math::curve::UnevenSampleAutoCurve;

use super::*;
use std::f32::consts::PI;

use crate::IkPlugin;

/// `(name, parent, local translation)`: Unreal-style names, legs straight down, feet forward.
const BONES: &[(&str, Option<usize>, [f32; 3])] = &[
    ("pelvis", None, [0.0, 0.9, 0.0]),
    ("spine_01", Some(0), [0.0, 0.1, 0.0]),
    ("spine_02", Some(1), [0.0, 0.15, 0.0]),
    ("spine_03", Some(2), [0.0, 0.15, 0.0]),
    ("neck_01", Some(3), [0.0, 0.15, 0.0]),
    ("head", Some(4), [0.0, 0.1, 0.0]),
    ("clavicle_l", Some(3), [0.05, 0.1, 0.0]),
    ("upperarm_l", Some(6), [0.15, 0.0, 0.0]),
    ("lowerarm_l", Some(7), [0.28, 0.0, 0.0]),
    ("hand_l", Some(8), [0.25, 0.0, 0.0]),
    ("clavicle_r", Some(3), [-0.05, 0.1, 0.0]),
    ("upperarm_r", Some(10), [-0.15, 0.0, 0.0]),
    ("lowerarm_r", Some(11), [-0.28, 0.0, 0.0]),
    ("hand_r", Some(12), [-0.25, 0.0, 0.0]),
    ("thigh_l", Some(0), [0.1, 0.0, 0.0]),
    ("calf_l", Some(14), [0.0, -0.4, 0.0]),
    ("foot_l", Some(15), [0.0, -0.4, 0.0]),
    ("ball_l", Some(16), [0.0, -0.1, 0.1]),
    ("thigh_r", Some(0), [-0.1, 0.0, 0.0]),
    ("calf_r", Some(18), [0.0, -0.4, 0.0]),
    ("foot_r", Some(19), [0.0, -0.4, 0.0]),
    ("ball_r", Some(20), [0.0, -0.1, 0.1]),
];

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin, AnimationPlugin, IkPlugin::default()));
    app
}

/// Spawns the biped under a root; the feet carry animation targets named after them.
fn spawn_biped(app: &mut App) -> Entity {
    spawn_biped_scaled(app, 1.0)
}

/// [`spawn_biped`] with every bone `scale` times as long (a file in other units); the pelvis is
/// a target too.
fn spawn_biped_scaled(app: &mut App, scale: f32) -> Entity {
    let root = app.world_mut().spawn(Transform::default()).id();
    let mut spawned: Vec<Entity> = Vec::new();
    for (name, parent, at) in BONES {
        let parent = parent.map_or(root, |p| spawned[p]);
        let local = Transform::from_translation(Vec3::from(*at) * scale);
        let mut bone = app.world_mut().spawn((Name::new(*name), local, ChildOf(parent)));
        if name.starts_with("foot_") || *name == "pelvis" {
            bone.insert(AnimationTargetId::from_name(&Name::new(*name)));
        }
        spawned.push(bone.id());
    }
    root
}

/// The walk: each foot's translation under its knee over a 1 s cycle, the right half a cycle
/// behind the left.
fn walk() -> AnimationClip {
    scaled_walk(1.0)
}

/// [`walk`] on the biped `scale` times as long.
fn scaled_walk(scale: f32) -> AnimationClip {
    let stance = |z: f32| Vec3::new(0.0, -0.4, z) * scale;
    let swing = Vec3::new(0.0, -0.35, 0.0) * scale;
    let left = [(0.0, stance(0.25)), (0.5, stance(-0.25)), (0.75, swing), (1.0, stance(0.25))];
    let right = [(0.0, stance(-0.25)), (0.25, swing), (0.5, stance(0.25)), (1.0, stance(-0.25))];
    let mut clip = AnimationClip::default();
    for (name, keys) in [("foot_l", left), ("foot_r", right)] {
        let curve = UnevenSampleAutoCurve::new(keys).unwrap();
        let target = AnimationTargetId::from_name(&Name::new(name));
        clip.add_curve_to_target(target, AnimatableCurve::new(animated_field!(Transform::translation), curve));
    }
    clip
}

fn label(app: &mut App, root: Entity, clip: AnimationClip) {
    let handle = app.world_mut().resource_mut::<Assets<AnimationClip>>().add(clip);
    app.world_mut().entity_mut(root).insert(LabelClipContacts::new(vec![handle]));
    for _ in 0..4 {
        app.update();
    }
}

#[test]
fn an_in_place_walk_is_labelled_foot_by_foot_at_its_ground_speed() {
    let mut app = app();
    let root = spawn_biped(&mut app);
    label(&mut app, root, walk());
    let labels = app.world().get::<ClipContactLabels>(root).expect("labelled");
    let walk = &labels.clips[0];
    assert!((walk.nominal_speed - 1.0).abs() < 0.02, "ground speed {}", walk.nominal_speed);
    assert!(!walk.root_motion && walk.looping, "{walk:?}");
    assert_eq!((walk.frame_count, walk.duration), (61, 1.0));
    // Left planted over the first half (its lift-off and landing within a frame or two), right
    // over the second.
    let at = |foot: usize, t: f32| walk.contacts[foot][(t * 60.0).round() as usize];
    for t in [0.05, 0.25, 0.45] {
        assert!(at(0, t) && !at(1, t), "left planted, right swinging at {t} s: {walk:?}");
        assert!(!at(0, t + 0.5) && at(1, t + 0.5), "right planted, left swinging at {} s: {walk:?}", t + 0.5);
    }
}

#[test]
fn root_motion_is_told_by_leg_lengths_in_any_units() {
    // The walk with its travel left in (the pelvis forward one stride a second, the planted feet
    // still on the ground), on the biped as it is and 50 times smaller (2 cm/s on 1.6 cm legs).
    for scale in [1.0, 0.02] {
        let mut clip = scaled_walk(scale);
        let pelvis = [(0.0, Vec3::new(0.0, 0.9, 0.0) * scale), (1.0, Vec3::new(0.0, 0.9, 1.0) * scale)];
        let curve =
            AnimatableCurve::new(animated_field!(Transform::translation), UnevenSampleAutoCurve::new(pelvis).unwrap());
        clip.add_curve_to_target(AnimationTargetId::from_name(&Name::new("pelvis")), curve);
        let mut app = app();
        let root = spawn_biped_scaled(&mut app, scale);
        label(&mut app, root, clip);
        let walk = &app.world().get::<ClipContactLabels>(root).expect("labelled").clips[0];
        assert!(walk.root_motion, "scale {scale}: {walk:?}");
        assert!((walk.nominal_speed / scale - 1.0).abs() < 0.02, "scale {scale}: speed {}", walk.nominal_speed);
        let at = |foot: usize, t: f32| walk.contacts[foot][(t * 60.0).round() as usize];
        assert!(at(0, 0.25) && !at(1, 0.25) && !at(0, 0.75) && at(1, 0.75), "scale {scale}: {walk:?}");
    }
}

#[test]
fn a_clip_of_another_character_is_one_message() {
    let mut app = app();
    let root = spawn_biped(&mut app);
    let mut other = AnimationClip::default();
    let curve = UnevenSampleAutoCurve::new([(0.0, Vec3::ZERO), (1.0, Vec3::X)]).unwrap();
    let target = AnimationTargetId::from_name(&Name::new("someone_else"));
    other.add_curve_to_target(target, AnimatableCurve::new(animated_field!(Transform::translation), curve));
    label(&mut app, root, other);
    let failed = app.world().get::<ClipContactsFailed>(root).expect("failed");
    assert!(failed.message.contains("clip 0") && failed.message.contains("animates none"), "{}", failed.message);
    assert!(app.world().get::<ClipContactLabels>(root).is_none());
}

#[test]
fn a_clip_keyed_linearly_on_a_coarse_grid_is_found_and_others_are_sampled_as_played() {
    use bevy::ecs::system::RunSystemOnce;
    let mut app = app();
    let root = spawn_biped(&mut app);
    let off_grid = {
        let keys =
            [(0.0, Vec3::new(0.0, -0.4, 0.0)), (0.37, Vec3::new(0.0, -0.4, 0.1)), (1.0, Vec3::new(0.0, -0.4, 0.0))];
        let mut clip = AnimationClip::default();
        let curve = UnevenSampleAutoCurve::new(keys).unwrap();
        let target = AnimationTargetId::from_name(&Name::new("foot_l"));
        clip.add_curve_to_target(target, AnimatableCurve::new(animated_field!(Transform::translation), curve));
        clip
    };
    let rates = app
        .world_mut()
        .run_system_once(
            move |bones: RetargetBones,
                  children: Query<&Children>,
                  names: Query<(), With<Name>>,
                  transforms: Query<&Transform>| {
                let pose = RestPose::of(root, &children, &names, &transforms).unwrap();
                let skeleton = bones.skeleton(root, &pose, None, &RigChoice::Auto).unwrap();
                [walk(), off_grid.clone()].map(|clip| coarse_key_rate(&skeleton, &clip, (0.0, 1.0)).unwrap())
            },
        )
        .unwrap();
    // The walk is keyed every 0.25 s; keys at 0.37 s sit on none of the usual grids.
    assert_eq!(rates, [Some(4.0), None]);
}

#[test]
fn a_clip_that_turns_the_body_travels_the_way_it_goes_not_the_rest_pose() {
    // The walk as it is (feet forward, +Z, as at rest, travelling +Z), and with the pelvis
    // turned half round for the whole clip (a conversion whose bind pose faces the other way
    // from its clips): its planted feet now slide toward +Z, so it travels toward -Z.
    let half_turn = UnevenSampleAutoCurve::new([(0.0, Quat::from_rotation_y(PI)), (1.0, Quat::from_rotation_y(PI))]);
    let mut turned = walk();
    let curve = AnimatableCurve::new(animated_field!(Transform::rotation), half_turn.unwrap());
    turned.add_curve_to_target(AnimationTargetId::from_name(&Name::new("pelvis")), curve);
    for (clip, travel) in [(walk(), Vec3::Z), (turned, Vec3::NEG_Z)] {
        let mut app = app();
        let root = spawn_biped(&mut app);
        label(&mut app, root, clip);
        let walk = &app.world().get::<ClipContactLabels>(root).expect("labelled").clips[0];
        assert!(walk.heading.distance(travel) < 0.02, "heading {}, expected {travel}", walk.heading);
        assert!((walk.nominal_speed - 1.0).abs() < 0.02, "{walk:?}");
    }
}
