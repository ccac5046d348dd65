//! Procedural walking with no animation: a spider (eight legs of three bones) and a hexapod
//! (six legs of three bones), built from plain entities, follow a ball over steps, a block and
//! a ramp (rapier colliders). Each creature's entity is only slid and turned toward the ball;
//! [`ProceduralGait`] plants the feet, steps them in turn (alternating groups: tripods for six
//! legs), lands them off the edges, and rides the body over them, tilted with the ground.
//! Keys: arrows move the ball (it wanders on its own until one is pressed), G shows bevy_ik's
//! gizmos (foot targets: yellow planted, grey in swing).
//! Run: `cargo run --release --example spider`.

use bevy::prelude::*;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

/// What a creature's entity does: walk toward the ball at `speed` (m/s), turning at `turn`
/// (rad/s), stopping a metre short of it.
#[derive(Component)]
struct Walker {
    speed: f32,
    turn: f32,
}

/// The ball the creatures follow; `manual` once an arrow key was pressed.
#[derive(Component, Default)]
struct Ball {
    manual: bool,
}

/// A creature's shape: legs per side, their spread along the body, the body bone's height and
/// one leg's joints (hip, knee, ankle, foot) in body space, on the left (+X).
struct Shape {
    per_side: usize,
    length: f32,
    height: f32,
    leg: [Vec3; 4],
    color: Color,
}

const SPIDER: Shape = Shape {
    per_side: 4,
    length: 0.6,
    height: 0.25,
    leg: [
        Vec3::new(0.12, 0.0, 0.0),
        Vec3::new(0.3, 0.15, 0.0),
        Vec3::new(0.43, -0.08, 0.0),
        Vec3::new(0.47, -0.25, 0.0),
    ],
    color: Color::srgb(0.25, 0.2, 0.2),
};

const HEXAPOD: Shape = Shape {
    per_side: 3,
    length: 0.7,
    height: 0.3,
    leg: [Vec3::new(0.16, 0.0, 0.0), Vec3::new(0.34, 0.12, 0.0), Vec3::new(0.48, -0.1, 0.0), Vec3::new(0.5, -0.3, 0.0)],
    color: Color::srgb(0.25, 0.45, 0.7),
};

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, RapierPhysicsPlugin::<NoUserData>::default(), IkPlugin::default()))
        .insert_resource(ClearColor(Color::srgb(0.62, 0.74, 0.86)))
        .insert_resource(GlobalAmbientLight { color: Color::srgb(0.85, 0.9, 1.0), brightness: 450.0, ..default() })
        .add_systems(Startup, (setup, spawn_course))
        .add_systems(Update, ((move_ball, walk_to_ball).chain(), toggle_gizmos))
        .run();
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut gizmos: ResMut<GizmoConfigStore>,
) {
    gizmos.config_mut::<IkGizmos>().0.enabled = false;
    spawn_creature(&mut commands, &mut meshes, &mut materials, &SPIDER, Vec3::new(-1.0, 0.0, 0.0));
    spawn_creature(&mut commands, &mut meshes, &mut materials, &HEXAPOD, Vec3::new(1.0, 0.0, 0.0));
    commands.spawn((
        Ball::default(),
        Mesh3d(meshes.add(Sphere::new(0.1))),
        MeshMaterial3d(materials.add(Color::srgb(0.9, 0.3, 0.2))),
        Transform::from_xyz(0.0, 0.1, 4.0),
    ));
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(0.0, 7.0, -7.0).looking_at(Vec3::new(0.0, 0.0, 1.5), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(3.0, 8.0, -2.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}

/// A creature standing at `at`: its entity (moved by [`walk_to_ball`]), a body bone with a
/// sphere, and legs of three capsules, then the [`ProceduralGait`] that walks it.
fn spawn_creature(
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
    shape: &Shape,
    at: Vec3,
) {
    let material = materials.add(shape.color);
    let root =
        commands.spawn((Walker { speed: 1.0, turn: 1.5 }, Transform::from_translation(at), Visibility::default())).id();
    let body = commands.spawn((Transform::from_xyz(0.0, shape.height, 0.0), Visibility::default(), ChildOf(root))).id();
    let radius = shape.leg[0].x;
    commands.spawn((
        Mesh3d(meshes.add(Sphere::new(1.0))),
        MeshMaterial3d(material.clone()),
        Transform::from_scale(Vec3::new(radius, 0.6 * radius, 0.5 * shape.length + radius)),
        ChildOf(body),
    ));
    let mut legs = Vec::new();
    for side in [1.0, -1.0] {
        for k in 0..shape.per_side {
            let z = shape.length * (0.5 - k as f32 / (shape.per_side - 1) as f32);
            let (mut parent, mut last) = (body, Vec3::new(0.0, 0.0, z));
            let mut joints = Vec::new();
            for point in shape.leg {
                let point = point * Vec3::new(side, 1.0, 1.0) + Vec3::new(0.0, 0.0, z);
                let joint = commands
                    .spawn((Transform::from_translation(point - last), Visibility::default(), ChildOf(parent)))
                    .id();
                // Each bone's capsule hangs from the joint before it, pointing at this one.
                if parent != body {
                    let bone = point - last;
                    commands.spawn((
                        Mesh3d(meshes.add(Capsule3d::new(0.025, bone.length()))),
                        MeshMaterial3d(material.clone()),
                        Transform::from_translation(bone / 2.0)
                            .with_rotation(Quat::from_rotation_arc(Vec3::Y, bone.normalize())),
                        ChildOf(parent),
                    ));
                }
                joints.push(joint);
                (parent, last) = (joint, point);
            }
            legs.push(GaitLeg { hip: joints[0], foot: joints[3] });
        }
    }
    commands.entity(root).insert(ProceduralGait::new(body, legs));
}

/// The ground: a floor, three steps up to a block, a ramp down from it, and a lone box.
fn spawn_course(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let stone = materials.add(Color::srgb(0.6, 0.6, 0.58));
    let mut block = |half: Vec3, at: Transform| {
        commands.spawn((
            Collider::cuboid(half.x, half.y, half.z),
            Mesh3d(meshes.add(Cuboid::from_size(2.0 * half))),
            MeshMaterial3d(stone.clone()),
            at,
        ));
    };
    block(Vec3::new(10.0, 0.5, 10.0), Transform::from_xyz(0.0, -0.5, 0.0));
    for k in 1..=3 {
        let top = 0.07 * k as f32;
        block(Vec3::new(1.5, top / 2.0, 0.25), Transform::from_xyz(0.0, top / 2.0, 1.5 + 0.5 * k as f32));
    }
    block(Vec3::new(1.5, 0.105, 1.0), Transform::from_xyz(0.0, 0.105, 4.25));
    let slope = 0.21f32.atan2(1.2);
    let length = 0.21 / slope.sin();
    let tilt = Quat::from_rotation_x(slope);
    let top_middle = Vec3::new(0.0, 0.105, 5.25 + 0.6);
    block(
        Vec3::new(1.5, 0.05, length / 2.0),
        Transform::from_translation(top_middle - tilt * Vec3::Y * 0.05).with_rotation(tilt),
    );
    block(Vec3::new(0.4, 0.1, 0.4), Transform::from_xyz(-2.5, 0.1, 3.0));
}

/// The ball wanders on a figure of eight over the course; the arrow keys take it over.
fn move_ball(time: Res<Time>, keys: Res<ButtonInput<KeyCode>>, mut ball: Single<(&mut Ball, &mut Transform)>) {
    let (ball, transform) = &mut *ball;
    let arrows = [
        (KeyCode::ArrowUp, Vec3::Z),
        (KeyCode::ArrowDown, Vec3::NEG_Z),
        (KeyCode::ArrowLeft, Vec3::X),
        (KeyCode::ArrowRight, Vec3::NEG_X),
    ];
    let push: Vec3 = arrows.iter().filter(|(key, _)| keys.pressed(*key)).map(|(_, dir)| *dir).sum();
    ball.manual |= push != Vec3::ZERO;
    if ball.manual {
        transform.translation += push * 2.0 * time.delta_secs();
    } else {
        let t = 0.15 * time.elapsed_secs();
        transform.translation = Vec3::new(3.0 * (2.0 * t).sin(), 0.1, 3.0 + 3.5 * t.sin());
    }
}

/// Each creature's entity turns toward the ball and walks to a metre from it.
fn walk_to_ball(
    time: Res<Time>,
    ball: Single<&Transform, With<Ball>>,
    mut walkers: Query<(&Walker, &mut Transform), Without<Ball>>,
) {
    let dt = time.delta_secs();
    for (walker, mut transform) in &mut walkers {
        let to_ball = (ball.translation - transform.translation).with_y(0.0);
        let facing = transform.rotation * Vec3::Z;
        let off = facing.x.atan2(facing.z) - to_ball.x.atan2(to_ball.z);
        let off = (off + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
        transform.rotate_y((-off).clamp(-walker.turn * dt, walker.turn * dt));
        if to_ball.length() > 1.0 && off.abs() < 1.0 {
            let forward = transform.rotation * Vec3::Z;
            transform.translation += forward * walker.speed * dt;
        }
    }
}

/// G: bevy_ik's gizmos on and off.
fn toggle_gizmos(keys: Res<ButtonInput<KeyCode>>, mut gizmos: ResMut<GizmoConfigStore>) {
    if keys.just_pressed(KeyCode::KeyG) {
        let (config, _) = gizmos.config_mut::<IkGizmos>();
        config.enabled = !config.enabled;
    }
}
