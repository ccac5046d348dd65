//! [`RootMotion`] on the mannequin, headless through Bevy's glTF loader and [`HumanoidIk`]: its
//! in-place Walk remade with travel (the hips' translation curve plus 1.4 m/s along the
//! character's forward, keyed at 60 Hz), played on repeat.
//!
//! Bars (issue 39, item 2): the travel's speed matches the clip's true ground speed (the hips'
//! net horizontal displacement over the clip ÷ its duration) within 2 %; no snap at the loop —
//! the hips' position, as the feet see it (between `IkSystems::RootMotion` and
//! `IkSystems::Feet`), moves ≤ 2 cm between frames at every frame, wraps included (the travel
//! alone is 2.3 cm a frame), and stays near its rest; with `ToTransform` the character advances
//! the clip's speed × play speed × time over three loops, along its facing; through an
//! `AnimationGraph` blend the travel is the weighted mean of the clips'.

use bevy::animation::animation_curves::{AnimatableCurve, AnimatableKeyframeCurve, AnimatableProperty};
use bevy::animation::{AnimationTargetId, VariableCurve, animated_field};
use bevy::gltf::GltfPlugin;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::bones::{Hierarchy, world_of};
use bevy_ik::prelude::*;

use crate::common::{DT, gltf_app_with, headless_app, load_gltf, update_until_rigged};

/// The travel added to the Walk, m/s along the character's forward.
const TRAVEL_SPEED: f32 = 1.4;

/// The hips' world position each frame, as the feet see it.
#[derive(Resource, Default)]
struct HipsTrack {
    hips: Option<Entity>,
    at: Vec<Vec3>,
}

fn record_hips(mut track: ResMut<HipsTrack>, hierarchy: Hierarchy) {
    if let Some(at) = track.hips.and_then(|hips| world_of(hips, &hierarchy)) {
        track.at.push(at.translation);
    }
}

/// The faults bevy_ik reported.
#[derive(Resource, Default)]
struct Faults(Vec<String>);

/// A rigged mannequin with [`RootMotion`], its Walk remade with travel, and the Idle.
struct Scene {
    app: App,
    root: Entity,
    player: Entity,
    walk: Handle<AnimationClip>,
    /// The Walk as the file has it (in place).
    in_place: Handle<AnimationClip>,
    idle: Handle<AnimationClip>,
    /// The remade Walk's true ground speed, m/s (character frame).
    speed: f32,
    /// The character's forward (its root's frame).
    forward: Vec3,
    /// The Walk's length, s.
    duration: f32,
}

fn scene(motion: RootMotion, root_transform: Transform) -> Scene {
    let mut app = gltf_app_with(headless_app(), GltfPlugin::default());
    let (scene, walk, idle) = load_gltf(&mut app, "mannequin.glb", |g| {
        (g.scenes[0].clone(), g.named_animations["Walk"].clone(), g.named_animations["Idle"].clone())
    });
    let humanoid = HumanoidIk { foot_lock: false, ..default() };
    let root = app.world_mut().spawn((WorldAssetRoot(scene), humanoid, motion, root_transform)).id();
    update_until_rigged(&mut app, root);
    let rigged = app.world().get::<RiggedHumanoid>(root).expect("the mannequin rigs").clone();
    let hips = rigged.rig.pelvis;
    let id = *app.world().get::<AnimationTargetId>(hips).expect("the hips are animated");
    // The hips' parent, in the root's frame (the root's own transform left out).
    let parent = app.world().get::<ChildOf>(hips).unwrap().parent();
    let root_world = app.world().get::<GlobalTransform>(root).unwrap().affine();
    let parent_model = root_world.inverse() * app.world().get::<GlobalTransform>(parent).unwrap().affine();
    let per_second = parent_model.inverse().transform_vector3(rigged.frame.forward * TRAVEL_SPEED);
    let clips = app.world().resource::<Assets<AnimationClip>>();
    let remade = with_travel(clips.get(&walk).unwrap(), id, per_second);
    let duration = remade.duration();
    let sample = |t: f32| remade.sample_clamped(animated_field!(Transform::translation), id, t).unwrap();
    let net = parent_model.transform_vector3(sample(duration) - sample(0.0)).reject_from(rigged.frame.up);
    let speed = net.length() / duration;
    let in_place = walk;
    let walk = app.world_mut().resource_mut::<Assets<AnimationClip>>().add(remade);
    app.insert_resource(HipsTrack { hips: Some(hips), at: Vec::new() });
    app.add_systems(PostUpdate, record_hips.after(IkSystems::RootMotion).before(IkSystems::Feet));
    app.init_resource::<Faults>();
    app.add_observer(|faulted: On<IkFaulted>, mut faults: ResMut<Faults>| faults.0.push(faulted.fault.to_string()));
    let player = app.world_mut().query_filtered::<Entity, With<AnimationPlayer>>().single(app.world()).unwrap();
    Scene { app, root, player, walk, in_place, idle, speed, forward: rigged.frame.forward, duration }
}

/// `walk` with `per_second × t` added to the hips' translation (keyed at 60 Hz).
fn with_travel(walk: &AnimationClip, hips: AnimationTargetId, per_second: Vec3) -> AnimationClip {
    let duration = walk.duration();
    let frames = (duration * 60.0).round() as usize;
    let keys: Vec<(f32, Vec3)> = (0..=frames)
        .map(|i| {
            let t = duration * i as f32 / frames as f32;
            (t, walk.sample_clamped(animated_field!(Transform::translation), hips, t).unwrap() + per_second * t)
        })
        .collect();
    let mut clip = walk.clone();
    let translation = animated_field!(Transform::translation);
    let curves = clip.curves_mut().get_mut(&hips).expect("the Walk animates the hips");
    curves.retain(|c| c.0.evaluator_id() != translation.evaluator_id());
    let curve = AnimatableKeyframeCurve::new(keys).unwrap();
    curves.push(VariableCurve::new(AnimatableCurve::new(animated_field!(Transform::translation), curve)));
    clip
}

/// Plays `clips` (clip, node weight) under the graph's root on repeat at `speed`.
fn play(scene: &mut Scene, clips: &[(Handle<AnimationClip>, f32)], speed: f32) {
    let mut graph = AnimationGraph::new();
    let nodes: Vec<_> = clips.iter().map(|(clip, weight)| graph.add_clip(clip.clone(), *weight, graph.root)).collect();
    let graph = scene.app.world_mut().resource_mut::<Assets<AnimationGraph>>().add(graph);
    scene.app.world_mut().entity_mut(scene.player).insert(AnimationGraphHandle(graph));
    let mut player = scene.app.world_mut().get_mut::<AnimationPlayer>(scene.player).unwrap();
    for node in nodes {
        player.play(node).repeat().set_speed(speed);
    }
}

/// Runs `frames` frames; returns the horizontal velocity reported each frame.
fn run(scene: &mut Scene, frames: usize) -> Vec<Vec3> {
    (0..frames)
        .map(|_| {
            scene.app.update();
            let faults = &scene.app.world().resource::<Faults>().0;
            assert!(faults.is_empty(), "bevy_ik reported {faults:?}");
            let state = scene.app.world().get::<RootMotionState>(scene.root).unwrap();
            Vec3::new(state.velocity.x, 0.0, state.velocity.z)
        })
        .collect()
}

/// The largest relative error of the reported speeds against `expected`.
fn speed_error(velocities: &[Vec3], expected: f32) -> f32 {
    velocities.iter().map(|v| (v.length() - expected).abs() / expected).fold(0.0, f32::max)
}

#[test]
fn root_motion_reports_the_walks_ground_speed_and_the_hips_stay_in_place_through_the_loop() {
    let mut scene = scene(RootMotion::default(), Transform::default());
    let walk = scene.walk.clone();
    play(&mut scene, &[(walk, 1.0)], 1.0);
    let loops = 3.0;
    let frames = (loops * scene.duration / DT).ceil() as usize + 2;
    let velocities = run(&mut scene, frames);
    let error = speed_error(&velocities[1..], scene.speed);
    let track = &scene.app.world().resource::<HipsTrack>().at;
    // The first frame holds the rest pose: the player's graph is made ready during it.
    let track = &track[1..];
    let jump = track.windows(2).map(|w| w[0].distance(w[1])).fold(0.0, f32::max);
    let forward = |p: Vec3| p.dot(scene.forward);
    let drift = track.iter().map(|p| (forward(*p) - forward(track[0])).abs()).fold(0.0, f32::max);
    println!(
        "root motion, Walk + {TRAVEL_SPEED} m/s: true ground speed {:.4} m/s, reported within {:.3} %; hips: largest \
         jump between frames {:.2} cm over {} frames (travel alone {:.2} cm a frame), fore-aft range {:.2} cm",
        scene.speed,
        error * 100.0,
        jump * 100.0,
        track.len(),
        scene.speed * DT * 100.0,
        drift * 100.0,
    );
    assert!((scene.speed - TRAVEL_SPEED).abs() < 0.1, "the remade walk travels {} m/s", scene.speed);
    assert!(error <= 0.02, "the reported speed is {:.2} % off the clip's", error * 100.0);
    assert!(jump <= 0.02, "the hips jumped {:.2} cm between two frames", jump * 100.0);
    assert!(drift <= 0.1, "the hips wandered {:.1} cm fore and aft: not in place", drift * 100.0);
    let root = scene.app.world().get::<Transform>(scene.root).unwrap().translation;
    assert_eq!(root, Vec3::ZERO, "Report mode must not move the character");
}

#[test]
fn root_motion_to_transform_carries_a_turned_character_its_travel_over_three_loops() {
    let facing = Quat::from_rotation_y(1.0);
    let motion = RootMotion { apply: RootMotionApply::ToTransform, ..default() };
    let mut scene = scene(motion, Transform::from_rotation(facing));
    let play_speed = 1.25;
    let walk = scene.walk.clone();
    play(&mut scene, &[(walk, 1.0)], play_speed);
    let frames = (3.0 * scene.duration / play_speed / DT).ceil() as usize;
    let velocities = run(&mut scene, frames);
    let moved = scene.app.world().get::<Transform>(scene.root).unwrap().translation;
    let expected = scene.speed * play_speed * frames as f32 * DT;
    let along = (facing * scene.forward).dot(moved);
    let error = (moved.length() - expected).abs() / expected;
    println!(
        "root motion to the transform: moved {:.3} m over {frames} frames at play speed {play_speed} (expected {:.3} m, \
         {:.3} % off), {:.3} m of it along the facing; speed {:.3} % off",
        moved.length(),
        expected,
        error * 100.0,
        along,
        speed_error(&velocities[1..], scene.speed * play_speed) * 100.0,
    );
    assert!(error <= 0.02, "moved {} m, expected {expected} m", moved.length());
    assert!(along >= 0.999 * moved.length(), "the character strayed off its facing: {moved}");
    let rotation = scene.app.world().get::<Transform>(scene.root).unwrap().rotation;
    assert!(rotation.angle_between(facing) < 1e-3, "a straight walk turned the character");
}

#[test]
fn root_motion_through_a_blend_is_the_weighted_mean_of_the_clips_travel() {
    let mut scene = scene(RootMotion::default(), Transform::default());
    // The travelling Walk at weight 3 with the Idle (in place) at weight 1: 3/4 of the speed.
    let (walk, idle) = (scene.walk.clone(), scene.idle.clone());
    play(&mut scene, &[(walk, 3.0), (idle, 1.0)], 1.0);
    let velocities = run(&mut scene, 90);
    let error = speed_error(&velocities[1..], 0.75 * scene.speed);
    println!("root motion, Walk 3 : Idle 1: speed within {:.3} % of 3/4 of the Walk's", error * 100.0);
    assert!(error <= 0.02, "the blend's speed is {:.2} % off 3/4 of the walk's", error * 100.0);
}

#[test]
fn a_root_bone_s_travel_blended_with_an_idle_that_does_not_animate_it_is_taken_out_whole() {
    // The Walk given travel on the root bone above the hips (Mixamo-style "root" carrier), the
    // Idle without curves on that bone: Bevy blends the root's local over the Walk alone, so the
    // whole travel is in the pose at any blend weight and the whole of it must come out.
    let mut scene = scene(RootMotion::default(), Transform::default());
    let hips = scene.app.world().get::<RiggedHumanoid>(scene.root).unwrap().rig.pelvis;
    let root_bone = scene.app.world().get::<ChildOf>(hips).unwrap().parent();
    let id = *scene.app.world().get::<AnimationTargetId>(root_bone).expect("the root bone is a target");
    let rest = scene.app.world().get::<Transform>(root_bone).unwrap().translation;
    let above = scene.app.world().get::<ChildOf>(root_bone).unwrap().parent();
    let world = |e: Entity| scene.app.world().get::<GlobalTransform>(e).unwrap().affine();
    let above_model = world(scene.root).inverse() * world(above);
    let per_second = above_model.inverse().transform_vector3(scene.forward * TRAVEL_SPEED);
    let clips = scene.app.world().resource::<Assets<AnimationClip>>();
    let mut walk = clips.get(&scene.in_place).unwrap().clone();
    let (duration, frames) = (walk.duration(), (walk.duration() * 60.0).round() as usize);
    let keys = (0..=frames).map(|i| duration * i as f32 / frames as f32).map(|t| (t, rest + per_second * t));
    let curve = AnimatableKeyframeCurve::new(keys).unwrap();
    walk.add_curve_to_target(id, AnimatableCurve::new(animated_field!(Transform::translation), curve));
    let idle = clips.get(&scene.idle).unwrap();
    assert!(idle.curves_for_target(id).is_none(), "the Idle must leave the root bone alone for this test");
    let walk = scene.app.world_mut().resource_mut::<Assets<AnimationClip>>().add(walk);
    let idle = scene.idle.clone();
    play(&mut scene, &[(walk, 3.0), (idle, 1.0)], 1.0);
    let velocities = run(&mut scene, (2.0 * duration / DT).ceil() as usize);
    let track = &scene.app.world().resource::<HipsTrack>().at[1..];
    let forward = |p: Vec3| p.dot(scene.forward);
    let drift = track.iter().map(|p| (forward(*p) - forward(track[0])).abs()).fold(0.0, f32::max);
    let jump = track.windows(2).map(|w| w[0].distance(w[1])).fold(0.0, f32::max);
    println!(
        "root-bone travel, Walk 3 : Idle 1: reported {:.3} m/s, hips fore-aft range {:.2} cm, largest jump {:.2} cm",
        velocities.last().map_or(0.0, |v| v.length()),
        drift * 100.0,
        jump * 100.0
    );
    assert!(drift <= 0.1, "the hips wandered {:.1} cm: a share of the root's travel stayed in the pose", drift * 100.0);
    assert!(jump <= 0.02, "the hips jumped {:.2} cm between two frames", jump * 100.0);
}
