//! Pose warping: the mannequin's Walk (authored at 1.4 m/s, straight ahead) drives a character
//! that keeps facing the camera side while it circles, so it walks forward, sideways and at
//! slow and fast speeds in turn. [`PoseWarping`] turns the legs toward the movement (the chest
//! keeps facing ahead) and scales the stride to the speed; the clip plays at the state's
//! `play_rate` for the part of the speed the stride does not cover. Foot locking is off: what
//! keeps the feet still is the warping. Run: `cargo run --example pose_warping` (W toggles the
//! warping: off, the feet slide).

use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::prelude::*;

#[derive(Component)]
struct Walker {
    player: Option<(Entity, AnimationNodeIndex)>,
}

#[derive(Resource)]
struct Walk(Handle<AnimationClip>);

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, IkPlugin::default()))
        .insert_resource(IkGround::Plane(GroundPlane::default()))
        .add_systems(Startup, setup)
        .add_systems(Update, (start_walking, circle, toggle))
        .add_observer(add_warping)
        .run();
}

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.insert_resource(Walk(assets.load(GltfAssetLabel::Animation(1).from_asset("mannequin.glb"))));
    commands.spawn((
        WorldAssetRoot(assets.load(GltfAssetLabel::Scene(0).from_asset("mannequin.glb"))),
        HumanoidIk { foot_lock: false, ..default() },
        Walker { player: None },
        Transform::default(),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(12.0, 12.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.45, 0.5, 0.45))),
    ));
    commands.spawn((Camera3d::default(), Transform::from_xyz(0.0, 3.5, 7.0).looking_at(Vec3::Y * 0.6, Vec3::Y)));
    commands.spawn((
        DirectionalLight { shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(2.0, 6.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}

/// Once rigged: pose warping with the clip's speed, the spine turning back.
fn add_warping(rigged: On<HumanoidRigged>, humans: Query<&RiggedHumanoid>, mut commands: Commands) {
    let Ok(human) = humans.get(rigged.entity) else { return };
    let share = 1.0 / human.rig.spine.len() as f32;
    commands.entity(rigged.entity).insert(PoseWarping {
        clip_speed: 1.4,
        clip_forward: human.frame.forward,
        spine: human.rig.spine.iter().map(|&bone| WarpSpineJoint { bone, share }).collect(),
        ..default()
    });
}

/// Plays the Walk on repeat once the scene's animation player exists.
fn start_walking(
    mut commands: Commands,
    walk: Res<Walk>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    mut players: Query<(Entity, &mut AnimationPlayer), Without<AnimationGraphHandle>>,
    mut walkers: Query<&mut Walker>,
) {
    for (entity, mut player) in &mut players {
        let (graph, node) = AnimationGraph::from_clip(walk.0.clone());
        commands.entity(entity).insert(AnimationGraphHandle(graphs.add(graph)));
        player.play(node).repeat();
        for mut walker in &mut walkers {
            walker.player = Some((entity, node));
        }
    }
}

/// Circles at 0.8–2.2 m/s, facing +Z all along; the clip plays at the warping's play rate.
fn circle(
    time: Res<Time>,
    mut walkers: Query<(&Walker, &mut Transform, Option<&PoseWarpingState>)>,
    mut players: Query<&mut AnimationPlayer>,
) {
    let t = time.elapsed_secs();
    for (walker, mut transform, state) in &mut walkers {
        let speed = 1.5 + 0.7 * (0.3 * t).sin();
        let heading = 0.25 * t;
        transform.translation += Vec3::new(heading.sin(), 0.0, heading.cos()) * speed * time.delta_secs();
        let Some((player, node)) = walker.player else { continue };
        let rate = state.map_or(1.0, |s| s.play_rate.clamp(0.2, 3.0));
        if let Ok(mut player) = players.get_mut(player)
            && let Some(active) = player.animation_mut(node)
        {
            active.set_speed(rate);
        }
    }
}

/// W turns the warping on and off.
fn toggle(keys: Res<ButtonInput<KeyCode>>, mut warps: Query<&mut PoseWarping>) {
    if keys.just_pressed(KeyCode::KeyW) {
        for mut warping in &mut warps {
            let on = if warping.settings.stride_weight > 0.5 { 0.0 } else { 1.0 };
            warping.settings.stride_weight = on;
            warping.settings.orientation_weight = on;
        }
    }
}
