//! Two-bone IK: an arm (shoulder → elbow → hand) reaches for a moving ball, its elbow bending
//! toward a pole (the purple marker). Keys: Space turns the IK on and off (faded by
//! [`IkFade`]; off, the arm stays as posed, straight out), P moves the pole above or below the
//! arm (the elbow flips up or down), G shows bevy_ik's gizmos.
//! Run: `cargo run --release --example two_bone_arm`.

use bevy::light::CascadeShadowConfigBuilder;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use bevy_ik::prelude::*;

#[derive(Component)]
struct Ball;

#[derive(Component)]
struct PoleMarker;

/// Where the pole goes with P: above and behind the arm, or below it.
const POLES: [Vec3; 2] = [Vec3::new(0.5, 2.5, -1.0), Vec3::new(0.5, 0.3, -1.0)];

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, EguiPlugin::default(), IkPlugin::default()))
        .insert_resource(ClearColor(Color::srgb(0.62, 0.74, 0.86)))
        .insert_resource(GlobalAmbientLight { color: Color::srgb(0.85, 0.9, 1.0), brightness: 450.0, ..default() })
        .add_systems(Startup, setup)
        .add_systems(Update, (move_ball, keys))
        .add_systems(EguiPrimaryContextPass, hud)
        .run();
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut gizmos: ResMut<GizmoConfigStore>,
) {
    gizmos.config_mut::<IkGizmos>().0.enabled = false;
    let bone = meshes.add(Capsule3d::new(0.04, 0.5));
    let orange = materials.add(Color::srgb(0.95, 0.55, 0.2));
    // Bones are plain entities: each joint's Transform is its offset from the previous joint.
    let shoulder = commands.spawn((Transform::from_xyz(0.0, 1.5, 0.0), Visibility::default())).id();
    let elbow = commands.spawn((Transform::from_xyz(0.6, 0.0, 0.0), Visibility::default(), ChildOf(shoulder))).id();
    let hand = commands.spawn((Transform::from_xyz(0.55, 0.0, 0.0), Visibility::default(), ChildOf(elbow))).id();
    for (joint, len) in [(shoulder, 0.6), (elbow, 0.55)] {
        let along_x =
            Transform::from_xyz(len / 2.0, 0.0, 0.0).with_rotation(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        commands.spawn((Mesh3d(bone.clone()), MeshMaterial3d(orange.clone()), along_x, ChildOf(joint)));
    }
    // A post the shoulder sits on.
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(0.2, 1.5, 0.2))),
        MeshMaterial3d(materials.add(Color::srgb(0.45, 0.45, 0.5))),
        Transform::from_xyz(-0.1, 0.75, 0.0),
    ));
    let ball = commands
        .spawn((
            Ball,
            Mesh3d(meshes.add(Sphere::new(0.06))),
            MeshMaterial3d(materials.add(Color::srgb(0.3, 0.9, 0.4))),
            Transform::default(),
        ))
        .id();
    let pole = commands
        .spawn((
            PoleMarker,
            Mesh3d(meshes.add(Sphere::new(0.05))),
            MeshMaterial3d(materials.add(Color::srgb(0.6, 0.3, 0.85))),
            Transform::from_translation(POLES[0]),
        ))
        .id();
    // The IK: on the tip bone, reaching for the ball, elbow toward the pole, faded in and out.
    commands.entity(hand).insert((
        IkChain::two_bone(IkTarget::Entity(ball)),
        Pole::new(IkTarget::Entity(pole)),
        IkFade { fade_in: 0.3, fade_out: 0.3, ..IkFade::new(true) },
    ));

    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(8.0, 8.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.55, 0.62, 0.5))),
    ));
    commands
        .spawn((Camera3d::default(), Transform::from_xyz(0.6, 1.8, 3.5).looking_at(Vec3::new(0.5, 1.2, 0.0), Vec3::Y)));
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(2.0, 5.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
        CascadeShadowConfigBuilder { num_cascades: 1, maximum_distance: 10.0, ..default() }.build(),
    ));
}

/// The ball circles in front of the shoulder, sometimes out of reach (the arm then points at it).
fn move_ball(time: Res<Time>, mut balls: Query<&mut Transform, With<Ball>>) {
    let t = time.elapsed_secs();
    for mut ball in &mut balls {
        ball.translation = Vec3::new(0.6 + 0.7 * t.cos(), 1.2 + 0.6 * (1.3 * t).sin(), 0.5 + 0.4 * (0.7 * t).sin());
    }
}

/// Space: IK on/off. P: pole above/below. G: gizmos.
fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut fades: Query<&mut IkFade>,
    mut poles: Query<&mut Transform, With<PoleMarker>>,
    mut gizmos: ResMut<GizmoConfigStore>,
) {
    if keys.just_pressed(KeyCode::Space) {
        fades.iter_mut().for_each(|mut fade| fade.active = !fade.active);
    }
    if keys.just_pressed(KeyCode::KeyP) {
        for mut pole in &mut poles {
            pole.translation = if pole.translation == POLES[0] { POLES[1] } else { POLES[0] };
        }
    }
    if keys.just_pressed(KeyCode::KeyG) {
        let (config, _) = gizmos.config_mut::<IkGizmos>();
        config.enabled = !config.enabled;
    }
}

/// The line of text: what this shows, the keys and their state.
fn hud(
    mut contexts: EguiContexts,
    fades: Query<&IkFade>,
    poles: Query<&Transform, With<PoleMarker>>,
    gizmos: Res<GizmoConfigStore>,
) -> Result {
    let on = |b: bool| if b { "on" } else { "off" };
    let ik = fades.iter().any(|f| f.active);
    let above = poles.iter().all(|p| p.translation == POLES[0]);
    egui::Window::new("two_bone_arm").anchor(egui::Align2::LEFT_TOP, [10.0, 10.0]).resizable(false).show(
        contexts.ctx_mut()?,
        |ui| {
            ui.label("Two-bone IK: the arm reaches for the green ball, its elbow bending toward the purple pole.");
            ui.label(format!(
                "Space: IK {}   P: pole {}   G: gizmos {}",
                on(ik),
                if above { "above" } else { "below" },
                on(gizmos.config::<IkGizmos>().0.enabled),
            ));
        },
    );
    Ok(())
}
