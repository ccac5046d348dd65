//! Root motion: a kinematic character controller driven by [`RootMotion`]. The mannequin's
//! Walk is in place, so at startup its hips curve gets 1.4 m/s of travel along the character's
//! forward (what a clip exported with root motion carries). The Walk blends with the Idle in an
//! `AnimationGraph`; the controller moves the character by [`RootMotionState`]'s delta each
//! frame — in `PostUpdate` between `IkSystems::RootMotion` and `IkSystems::Feet`, so the feet
//! see this frame's move — turns it with the keys and keeps it inside a 12 m arena (the wall
//! stops it, the clip keeps playing). The feet are placed and locked on the in-place pose.
//! Keys: W / S walk faster / slower (the Walk's weight against the Idle), A / D turn, G shows
//! bevy_ik's gizmos. Run: `cargo run --release --example root_motion`.

use bevy::animation::animation_curves::{AnimatableCurve, AnimatableKeyframeCurve, AnimatableProperty};
use bevy::animation::{AnimationTargetId, VariableCurve, animated_field};
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use bevy_ik::prelude::*;

/// The arena's radius, m.
const ARENA: f32 = 12.0;
/// The travel added to the Walk, m/s.
const WALK_SPEED: f32 = 1.4;

/// The character, and its graph's nodes once the clips are made: (player, idle, walk).
#[derive(Component, Default)]
struct Walker {
    nodes: Option<(Entity, AnimationNodeIndex, AnimationNodeIndex)>,
    /// The Walk's share of the blend, 0–1.
    pace: f32,
}

#[derive(Resource)]
struct Clips {
    idle: Handle<AnimationClip>,
    walk: Handle<AnimationClip>,
}

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, EguiPlugin::default(), IkPlugin::default()))
        .insert_resource(ClearColor(Color::srgb(0.62, 0.74, 0.86)))
        .insert_resource(GlobalAmbientLight { color: Color::srgb(0.85, 0.9, 1.0), brightness: 450.0, ..default() })
        .insert_resource(IkGround::Plane(GroundPlane::default()))
        .add_systems(Startup, setup)
        .add_systems(Update, (keys, blend, follow))
        .add_systems(PostUpdate, control.after(IkSystems::RootMotion).before(IkSystems::Feet))
        .add_systems(EguiPrimaryContextPass, hud)
        .add_observer(start_walking)
        .run();
}

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.insert_resource(Clips {
        idle: assets.load(GltfAssetLabel::Animation(0).from_asset("mannequin.glb")),
        walk: assets.load(GltfAssetLabel::Animation(1).from_asset("mannequin.glb")),
    });
    commands.spawn((
        WorldAssetRoot(assets.load(GltfAssetLabel::Scene(0).from_asset("mannequin.glb"))),
        HumanoidIk::default(),
        RootMotion::default(),
        Walker { nodes: None, pace: 1.0 },
        Transform::default(),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Circle::new(ARENA + 0.5).mesh())),
        MeshMaterial3d(materials.add(Color::srgb(0.55, 0.62, 0.5))),
        Transform::from_rotation(Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2)),
    ));
    commands.spawn((Camera3d::default(), Transform::from_translation(CAMERA).looking_at(Vec3::Y * 0.8, Vec3::Y)));
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(2.0, 6.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}

/// Once rigged: the Walk remade with travel, and the Idle / Walk blend played on repeat.
#[allow(clippy::too_many_arguments)]
fn start_walking(
    rigged: On<HumanoidRigged>,
    humans: Query<(&RiggedHumanoid, &GlobalTransform)>,
    bones: Query<(&AnimationTargetId, &ChildOf)>,
    globals: Query<&GlobalTransform>,
    mut players: Query<(Entity, &mut AnimationPlayer)>,
    clips: Res<Clips>,
    mut assets: (ResMut<Assets<AnimationClip>>, ResMut<Assets<AnimationGraph>>),
    mut commands: Commands,
    mut walkers: Query<&mut Walker>,
) {
    let (Ok((human, root)), Ok((player, mut animation))) = (humans.get(rigged.entity), players.single_mut()) else {
        return;
    };
    let Ok((&hips, parent)) = bones.get(human.rig.pelvis) else { return };
    let Ok(parent) = globals.get(parent.parent()) else { return };
    // The travel, in the space of the hips' translation curve (their parent's).
    let to_parent = (root.affine().inverse() * parent.affine()).inverse();
    let per_second = to_parent.transform_vector3(human.frame.forward * WALK_SPEED);
    let Some(walk) = assets.0.get(&clips.walk).map(|walk| with_travel(walk, hips, per_second)) else { return };
    let walk = assets.0.add(walk);
    let mut graph = AnimationGraph::new();
    let idle = graph.add_clip(clips.idle.clone(), 0.0, graph.root);
    let walk = graph.add_clip(walk, 1.0, graph.root);
    commands.entity(player).insert(AnimationGraphHandle(assets.1.add(graph)));
    animation.play(idle).repeat();
    animation.play(walk).repeat();
    if let Ok(mut walker) = walkers.get_mut(rigged.entity) {
        walker.nodes = Some((player, idle, walk));
    }
}

/// `walk` with `per_second × t` added to the hips' translation (keyed at 60 Hz).
fn with_travel(walk: &AnimationClip, hips: AnimationTargetId, per_second: Vec3) -> AnimationClip {
    let duration = walk.duration();
    let frames = (duration * 60.0).round().max(1.0) as usize;
    let translation = animated_field!(Transform::translation);
    let keys = (0..=frames).filter_map(|i| {
        let t = duration * i as f32 / frames as f32;
        Some((t, walk.sample_clamped(animated_field!(Transform::translation), hips, t)? + per_second * t))
    });
    let mut clip = walk.clone();
    if let (Some(curves), Ok(curve)) = (clip.curves_mut().get_mut(&hips), AnimatableKeyframeCurve::new(keys)) {
        curves.retain(|c| c.0.evaluator_id() != translation.evaluator_id());
        curves.push(VariableCurve::new(AnimatableCurve::new(animated_field!(Transform::translation), curve)));
    }
    clip
}

/// The controller: the clip's travel, turned by the keys, stopped at the arena's wall.
fn control(keys: Res<ButtonInput<KeyCode>>, time: Res<Time>, mut walkers: Query<(&RootMotionState, &mut Transform)>) {
    let turn = keys.pressed(KeyCode::KeyA) as i32 as f32 - keys.pressed(KeyCode::KeyD) as i32 as f32;
    for (motion, mut transform) in &mut walkers {
        motion.apply_to(&mut transform);
        transform.rotate_y(turn * 1.5 * time.delta_secs());
        let flat = Vec2::new(transform.translation.x, transform.translation.z);
        if flat.length() > ARENA {
            let held = flat.normalize() * ARENA;
            (transform.translation.x, transform.translation.z) = (held.x, held.y);
        }
    }
}

/// W / S: the Walk's share of the blend. G: gizmos.
fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    mut walkers: Query<&mut Walker>,
    mut gizmos: ResMut<GizmoConfigStore>,
) {
    let change = keys.pressed(KeyCode::KeyW) as i32 as f32 - keys.pressed(KeyCode::KeyS) as i32 as f32;
    for mut walker in &mut walkers {
        walker.pace = (walker.pace + change * time.delta_secs()).clamp(0.0, 1.0);
    }
    if keys.just_pressed(KeyCode::KeyG) {
        let (config, _) = gizmos.config_mut::<IkGizmos>();
        config.enabled = !config.enabled;
    }
}

/// The graph's weights follow the pace.
fn blend(walkers: Query<&Walker>, players: Query<&AnimationGraphHandle>, mut graphs: ResMut<Assets<AnimationGraph>>) {
    for walker in &walkers {
        let Some((player, idle, walk)) = walker.nodes else { continue };
        let Some(mut graph) = players.get(player).ok().and_then(|h| graphs.get_mut(&h.0)) else { continue };
        for (node, weight) in [(idle, 1.0 - walker.pace), (walk, walker.pace)] {
            if let Some(node) = graph.get_mut(node) {
                node.weight = weight;
            }
        }
    }
}

/// The camera's offset from the character.
const CAMERA: Vec3 = Vec3::new(0.0, 3.0, 6.0);

fn follow(
    walkers: Query<&Transform, With<Walker>>,
    mut cameras: Query<&mut Transform, (With<Camera3d>, Without<Walker>)>,
) {
    let (Ok(walker), Ok(mut camera)) = (walkers.single(), cameras.single_mut()) else { return };
    camera.translation = walker.translation + CAMERA;
}

fn hud(mut contexts: EguiContexts, walkers: Query<(&Walker, &RootMotionState)>) -> Result {
    let Ok((walker, motion)) = walkers.single() else { return Ok(()) };
    egui::Window::new("root_motion").anchor(egui::Align2::LEFT_TOP, [10.0, 10.0]).resizable(false).show(
        contexts.ctx_mut()?,
        |ui| {
            ui.label("Root motion: the Walk's travel moves the character; the controller turns it and holds it in the arena.");
            ui.label("W / S: faster / slower   A / D: turn   G: gizmos");
            ui.label(format!(
                "Walk {:.0} % / Idle {:.0} %: the clips travel {:.2} m/s",
                walker.pace * 100.0,
                (1.0 - walker.pace) * 100.0,
                motion.velocity.length()
            ));
        },
    );
    Ok(())
}
