//! Look-at spread: a spine → neck → head chain turns toward a moving ball, the turn shared down
//! the spine with a limit per joint (the lesson's 15/20/25/40 %). Run: `cargo run --example look_at`.

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
    let grey = materials.add(Color::srgb(0.8, 0.8, 0.82));
    let dark = materials.add(Color::srgb(0.1, 0.1, 0.12));
    // The character root faces +Z; spine, chest, neck and head are stacked joints.
    let root = commands.spawn((Transform::default(), Visibility::default())).id();
    let mut parent = root;
    let mut joints = Vec::new();
    for (i, height) in [1.0, 0.2, 0.25, 0.15].into_iter().enumerate() {
        let joint =
            commands.spawn((Transform::from_xyz(0.0, height, 0.0), Visibility::default(), ChildOf(parent))).id();
        let size = if i == 3 { Vec3::new(0.2, 0.24, 0.22) } else { Vec3::new(0.34 - 0.06 * i as f32, 0.18, 0.2) };
        commands.spawn((
            Mesh3d(meshes.add(Cuboid::from_size(size))),
            MeshMaterial3d(grey.clone()),
            Transform::from_xyz(0.0, 0.1, 0.0),
            ChildOf(joint),
        ));
        joints.push(joint);
        parent = joint;
    }
    // A nose, so the head's facing shows.
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(0.04, 0.04, 0.08))),
        MeshMaterial3d(dark),
        Transform::from_xyz(0.0, 0.12, 0.13),
        ChildOf(parent),
    ));
    let ball = commands
        .spawn((
            Ball,
            Mesh3d(meshes.add(Sphere::new(0.07))),
            MeshMaterial3d(materials.add(Color::srgb(1.0, 0.75, 0.2))),
            Transform::default(),
        ))
        .id();
    // The IK: on the root, the spread over the four joints.
    commands.entity(root).insert(LookAtSpread::spine_chest_neck_head(
        [joints[0], joints[1], joints[2], joints[3]],
        IkTarget::Entity(ball),
    ));

    commands
        .spawn((Camera3d::default(), Transform::from_xyz(1.5, 2.2, 3.5).looking_at(Vec3::new(0.0, 1.4, 0.0), Vec3::Y)));
    commands.spawn((DirectionalLight::default(), Transform::from_xyz(2.0, 4.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y)));
}

/// The ball swings from one side to behind the character and back.
fn move_ball(time: Res<Time>, mut balls: Query<&mut Transform, With<Ball>>) {
    let angle = 2.0 * (0.5 * time.elapsed_secs()).sin();
    for mut ball in &mut balls {
        ball.translation = Vec3::new(1.5 * angle.sin(), 1.7, 1.5 * angle.cos());
    }
}
