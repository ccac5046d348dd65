//! Foot placement without a physics engine: two legs made of plain entities stand on a 15°
//! slope (`IkGround::Plane`); the feet land on it and tilt with it, and the pelvis drops so the
//! lower foot can reach. Run: `cargo run --example foot_placement` (F toggles the IK).

use bevy::prelude::*;
use bevy_ik::prelude::*;

const SLOPE: f32 = 15.0;

#[derive(Component)]
struct Walker;

fn main() {
    let normal = Quat::from_rotation_x(-SLOPE.to_radians()) * Vec3::Y;
    App::new()
        .add_plugins((DefaultPlugins, IkPlugin::default()))
        .insert_resource(IkGround::Plane(GroundPlane { height: 0.0, normal }))
        .add_systems(Startup, setup)
        .add_systems(Update, (slide_along, toggle))
        .run();
}

fn setup(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>, mut materials: ResMut<Assets<StandardMaterial>>) {
    let leg = materials.add(Color::srgb(0.85, 0.85, 0.88));
    let bone = |len: f32| Capsule3d::new(0.05, len);
    // The character root stands on its own floor (y = 0) facing +Z.
    let root = commands.spawn((Walker, Transform::default(), Visibility::default())).id();
    let pelvis = commands.spawn((Transform::from_xyz(0.0, 0.96, 0.0), Visibility::default(), ChildOf(root))).id();
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(0.3, 0.15, 0.18))),
        MeshMaterial3d(leg.clone()),
        Transform::default(),
        ChildOf(pelvis),
    ));
    let mut legs = Vec::new();
    for side in [1.0, -1.0] {
        let hip = commands
            .spawn((Transform::from_xyz(0.09 * side, -0.045, 0.0), Visibility::default(), ChildOf(pelvis)))
            .id();
        let knee = commands.spawn((Transform::from_xyz(0.0, -0.415, 0.02), Visibility::default(), ChildOf(hip))).id();
        let ankle = commands.spawn((Transform::from_xyz(0.0, -0.42, -0.03), Visibility::default(), ChildOf(knee))).id();
        let ball = commands.spawn((Transform::from_xyz(0.0, -0.08, 0.135), Visibility::default(), ChildOf(ankle))).id();
        for (joint, offset) in [(hip, Vec3::new(0.0, -0.415, 0.02)), (knee, Vec3::new(0.0, -0.42, -0.03))] {
            let along = Transform::from_translation(offset / 2.0)
                .with_rotation(Quat::from_rotation_arc(Vec3::Y, offset.normalize()));
            commands.spawn((
                Mesh3d(meshes.add(bone(offset.length()))),
                MeshMaterial3d(leg.clone()),
                along,
                ChildOf(joint),
            ));
        }
        let foot = Transform::from_xyz(0.0, -0.05, 0.06);
        commands.spawn((
            Mesh3d(meshes.add(Cuboid::new(0.09, 0.06, 0.26))),
            MeshMaterial3d(leg.clone()),
            foot,
            ChildOf(ankle),
        ));
        legs.push(LegBones::new(hip, knee, ankle, Some(ball)));
    }
    // The IK: on the root, pelvis and legs.
    commands.entity(root).insert(FootPlacer::new(pelvis, legs));

    let ground = Transform::from_rotation(Quat::from_rotation_x(-SLOPE.to_radians()));
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(4.0, 6.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.4, 0.5, 0.4))),
        ground,
    ));
    commands
        .spawn((Camera3d::default(), Transform::from_xyz(3.0, 1.4, 1.5).looking_at(Vec3::new(0.0, 0.5, 0.0), Vec3::Y)));
    commands.spawn((
        DirectionalLight { shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(2.0, 4.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}

/// The character glides up and down the slope, its own floor staying level (as an animation would).
fn slide_along(time: Res<Time>, mut walkers: Query<&mut Transform, With<Walker>>) {
    for mut t in &mut walkers {
        let z = 1.2 * (0.4 * time.elapsed_secs()).sin();
        t.translation = Vec3::new(0.0, z * SLOPE.to_radians().tan(), z);
    }
}

/// F turns foot placement on and off.
fn toggle(keys: Res<ButtonInput<KeyCode>>, mut placers: Query<&mut FootPlacer>) {
    if keys.just_pressed(KeyCode::KeyF) {
        for mut p in &mut placers {
            p.weight = if p.weight > 0.5 { 0.0 } else { 1.0 };
        }
    }
}
