//! Two-bone IK: an arm (shoulder → elbow → hand) reaches for a moving ball, its elbow bending
//! toward a pole. Run: `cargo run --example two_bone_arm`.

use bevy::prelude::*;
use bevy_ik::prelude::*;

#[derive(Component)]
struct Ball;

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, IkPlugin::default()))
        .add_systems(Startup, setup)
        .add_systems(Update, move_ball)
        .run();
}

fn setup(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>, mut materials: ResMut<Assets<StandardMaterial>>) {
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
    let ball = commands
        .spawn((
            Ball,
            Mesh3d(meshes.add(Sphere::new(0.06))),
            MeshMaterial3d(materials.add(Color::srgb(0.3, 0.9, 0.4))),
            Transform::default(),
        ))
        .id();
    let pole = commands.spawn(Transform::from_xyz(0.5, 2.5, -1.0)).id();
    // The IK: on the tip bone, reaching for the ball, elbow toward the pole.
    commands.entity(hand).insert((IkChain::two_bone(IkTarget::Entity(ball)), Pole::new(IkTarget::Entity(pole))));

    commands
        .spawn((Camera3d::default(), Transform::from_xyz(0.6, 1.6, 3.5).looking_at(Vec3::new(0.5, 1.3, 0.0), Vec3::Y)));
    commands.spawn((DirectionalLight::default(), Transform::from_xyz(2.0, 4.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y)));
}

/// The ball circles in front of the shoulder, sometimes out of reach (the arm then points at it).
fn move_ball(time: Res<Time>, mut balls: Query<&mut Transform, With<Ball>>) {
    let t = time.elapsed_secs();
    for mut ball in &mut balls {
        ball.translation = Vec3::new(0.6 + 0.7 * t.cos(), 1.2 + 0.6 * (1.3 * t).sin(), 0.5 + 0.4 * (0.7 * t).sin());
    }
}
