//! Pose warping: the mannequin's Walk (authored at 1.4 m/s, straight ahead) drives a character
//! that keeps facing the camera side while it circles, so it walks forward, sideways and at
//! slow and fast speeds in turn. [`PoseWarping`] turns the legs toward the movement (the chest
//! keeps facing ahead) and scales the stride to the speed; the clip plays at the state's
//! `play_rate` for the part of the speed the stride does not cover. Foot locking is off: what
//! keeps the feet still is the warping. Keys: W turns the warping on and off (off, the legs
//! point straight ahead and the clip plays as authored, so the feet slide over the grid), G
//! shows bevy_ik's gizmos. The camera follows the character.
//! Run: `cargo run --release --example pose_warping`.

use bevy::light::CascadeShadowConfigBuilder;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use bevy_ik::prelude::*;

#[derive(Component)]
struct Walker {
    player: Option<(Entity, AnimationNodeIndex)>,
}

/// The character's warping and what it did last frame (once rigged).
type Warping<'a> = (&'a PoseWarping, &'a PoseWarpingState);

#[derive(Resource)]
struct Walk(Handle<AnimationClip>);

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, EguiPlugin::default(), IkPlugin::default()))
        .insert_resource(ClearColor(Color::srgb(0.62, 0.74, 0.86)))
        .insert_resource(GlobalAmbientLight { color: Color::srgb(0.85, 0.9, 1.0), brightness: 450.0, ..default() })
        .insert_resource(IkGround::Plane(GroundPlane::default()))
        .add_systems(Startup, setup)
        .add_systems(Update, (start_walking, (circle, follow).chain(), keys, grid))
        .add_systems(EguiPrimaryContextPass, hud)
        .add_observer(add_warping)
        .run();
}

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut gizmos: ResMut<GizmoConfigStore>,
) {
    gizmos.config_mut::<IkGizmos>().0.enabled = false;
    commands.insert_resource(Walk(assets.load(GltfAssetLabel::Animation(1).from_asset("mannequin.glb"))));
    commands.spawn((
        WorldAssetRoot(assets.load(GltfAssetLabel::Scene(0).from_asset("mannequin.glb"))),
        HumanoidIk { foot_lock: false, ..default() },
        Walker { player: None },
        Transform::default(),
    ));
    // The ground (the circle drifts, so it is large; `grid` draws metre lines on it).
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(80.0, 80.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.55, 0.62, 0.5))),
    ));
    commands.spawn((Camera3d::default(), Transform::from_translation(CAMERA).looking_at(Vec3::Y * 0.8, Vec3::Y)));
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(2.0, 6.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
        CascadeShadowConfigBuilder { num_cascades: 1, maximum_distance: 20.0, ..default() }.build(),
    ));
}

/// The camera's offset from the character.
const CAMERA: Vec3 = Vec3::new(0.0, 3.0, 6.0);

/// The camera keeps its offset from the character.
fn follow(
    walkers: Query<&Transform, With<Walker>>,
    mut cameras: Query<&mut Transform, (With<Camera3d>, Without<Walker>)>,
) {
    let (Ok(walker), Ok(mut camera)) = (walkers.single(), cameras.single_mut()) else { return };
    camera.translation = walker.translation + CAMERA;
}

/// Metre lines on the ground, so sliding feet show.
fn grid(mut gizmos: Gizmos) {
    let flat = Isometry3d::new(Vec3::new(6.0, 0.005, 0.0), Quat::from_rotation_x(std::f32::consts::FRAC_PI_2));
    gizmos.grid(flat, UVec2::splat(60), Vec2::ONE, Color::srgba(0.25, 0.3, 0.2, 0.6));
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

/// Circles at 0.8–2.2 m/s, facing +Z all along; the clip plays at the warping's play rate
/// (at 1 with the warping off).
fn circle(
    time: Res<Time>,
    mut walkers: Query<(&Walker, &mut Transform, Option<Warping>)>,
    mut players: Query<&mut AnimationPlayer>,
) {
    let t = time.elapsed_secs();
    for (walker, mut transform, warping) in &mut walkers {
        let speed = 1.5 + 0.7 * (0.3 * t).sin();
        let heading = 0.25 * t;
        transform.translation += Vec3::new(heading.sin(), 0.0, heading.cos()) * speed * time.delta_secs();
        let Some((player, node)) = walker.player else { continue };
        // Warping off, the clip plays as authored.
        let rate = match warping {
            Some((w, s)) if w.settings.stride_weight > 0.5 => s.play_rate.clamp(0.2, 3.0),
            _ => 1.0,
        };
        if let Ok(mut player) = players.get_mut(player)
            && let Some(active) = player.animation_mut(node)
        {
            active.set_speed(rate);
        }
    }
}

/// W turns the warping on and off. G: gizmos.
fn keys(keys: Res<ButtonInput<KeyCode>>, mut warps: Query<&mut PoseWarping>, mut gizmos: ResMut<GizmoConfigStore>) {
    if keys.just_pressed(KeyCode::KeyW) {
        for mut warping in &mut warps {
            let on = if warping.settings.stride_weight > 0.5 { 0.0 } else { 1.0 };
            warping.settings.stride_weight = on;
            warping.settings.orientation_weight = on;
        }
    }
    if keys.just_pressed(KeyCode::KeyG) {
        let (config, _) = gizmos.config_mut::<IkGizmos>();
        config.enabled = !config.enabled;
    }
}

/// The line of text: what this shows, the keys and their state, and what the warping does.
fn hud(
    mut contexts: EguiContexts,
    warps: Query<(&PoseWarping, &PoseWarpingState)>,
    gizmos: Res<GizmoConfigStore>,
) -> Result {
    let on = |b: bool| if b { "on" } else { "off" };
    // Before the mannequin is rigged there is no warping yet.
    let warp = warps.single().ok();
    egui::Window::new("pose_warping").anchor(egui::Align2::LEFT_TOP, [10.0, 10.0]).resizable(false).show(
        contexts.ctx_mut()?,
        |ui| {
            ui.label("Pose warping: a walk authored at 1.4 m/s straight ahead, played while circling at 0.8-2.2 m/s.");
            ui.label(format!(
                "W: warping {}   G: gizmos {}",
                on(warp.is_some_and(|(w, _)| w.settings.stride_weight > 0.5)),
                on(gizmos.config::<IkGizmos>().0.enabled)
            ));
            if let Some((_, state)) = warp {
                ui.label(format!(
                    "speed {:.1} m/s: stride x{:.2}, legs turned {:.0}°, clip played at x{:.2}",
                    state.velocity.length(),
                    state.scale,
                    state.angle.to_degrees(),
                    state.play_rate
                ));
            }
        },
    );
    Ok(())
}
