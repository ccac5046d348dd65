//! FABRIK on a long chain: an eight-bone tail follows a target, warm-starting from last frame's
//! pose (a frame or two of iterations when the target moves a little between frames).
//! Run: `cargo run --example fabrik_tail`.

use bevy::prelude::*;
use bevy_ik::prelude::*;

#[derive(Component)]
struct Target;

const BONES: usize = 8;

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, IkPlugin::default()))
        .add_systems(Startup, setup)
        .add_systems(Update, (move_target, report))
        .run();
}

fn setup(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>, mut materials: ResMut<Assets<StandardMaterial>>) {
    let segment = meshes.add(Capsule3d::new(0.05, 0.2));
    let blue = materials.add(Color::srgb(0.3, 0.55, 0.9));
    // A straight chain of 0.25 m bones standing on the origin.
    let mut joint = commands.spawn((Transform::default(), Visibility::default())).id();
    for _ in 0..BONES {
        commands.spawn((
            Mesh3d(segment.clone()),
            MeshMaterial3d(blue.clone()),
            Transform::from_xyz(0.0, 0.125, 0.0),
            ChildOf(joint),
        ));
        joint = commands.spawn((Transform::from_xyz(0.0, 0.25, 0.0), Visibility::default(), ChildOf(joint))).id();
    }
    let target = commands
        .spawn((
            Target,
            Mesh3d(meshes.add(Sphere::new(0.06))),
            MeshMaterial3d(materials.add(Color::srgb(0.3, 0.9, 0.4))),
            Transform::default(),
        ))
        .id();
    // The IK: FABRIK over the eight bones above the tip.
    commands.entity(joint).insert(IkChain {
        solver: IkSolver::Fabrik,
        bones: BONES,
        ..IkChain::new(IkTarget::Entity(target))
    });

    commands.spawn((Camera3d::default(), Transform::from_xyz(0.0, 1.2, 4.5).looking_at(Vec3::Y, Vec3::Y)));
    commands.spawn((DirectionalLight::default(), Transform::from_xyz(2.0, 4.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y)));
}

fn move_target(time: Res<Time>, mut targets: Query<&mut Transform, With<Target>>) {
    let t = time.elapsed_secs();
    for mut target in &mut targets {
        target.translation = Vec3::new(1.2 * (0.8 * t).sin(), 1.0 + 0.6 * (1.1 * t).sin(), 0.8 * (0.5 * t).cos());
    }
}

/// Prints how hard the solver worked, once a second.
fn report(time: Res<Time>, chains: Query<&IkChainState>, mut next: Local<f32>) {
    if time.elapsed_secs() < *next {
        return;
    }
    *next = time.elapsed_secs() + 1.0;
    for state in &chains {
        info!("FABRIK: {} iteration(s), {:.1} mm from the target", state.iterations, state.error * 1000.0);
    }
}
