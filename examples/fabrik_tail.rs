//! FABRIK on a long chain: an eight-bone tail follows a target, warm-starting from last frame's
//! pose (a frame or two of iterations when the target moves a little between frames). Keys:
//! Space turns the IK on and off (faded by [`IkFade`]; off, the tail stands straight up), S
//! switches the solver between FABRIK and CCD (CCD curls the tip end more), G shows bevy_ik's
//! gizmos. The text shows the solver's iterations and distance to the target.
//! Run: `cargo run --release --example fabrik_tail`.

use bevy::light::CascadeShadowConfigBuilder;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use bevy_ik::prelude::*;

#[derive(Component)]
struct Target;

const BONES: usize = 8;

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, EguiPlugin::default(), IkPlugin::default()))
        .insert_resource(ClearColor(Color::srgb(0.62, 0.74, 0.86)))
        .insert_resource(GlobalAmbientLight { color: Color::srgb(0.85, 0.9, 1.0), brightness: 450.0, ..default() })
        .add_systems(Startup, setup)
        .add_systems(Update, (move_target, keys))
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
    // The IK: FABRIK over the eight bones above the tip, faded in and out.
    commands.entity(joint).insert((
        IkChain { solver: IkSolver::Fabrik, bones: BONES, ..IkChain::new(IkTarget::Entity(target)) },
        IkFade { fade_in: 0.3, fade_out: 0.3, ..IkFade::new(true) },
    ));

    // The ground, and a base the tail stands on.
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(8.0, 8.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.55, 0.62, 0.5))),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Cylinder::new(0.15, 0.04))),
        MeshMaterial3d(materials.add(Color::srgb(0.45, 0.45, 0.5))),
        Transform::from_xyz(0.0, 0.02, 0.0),
    ));
    commands.spawn((Camera3d::default(), Transform::from_xyz(0.0, 1.4, 4.5).looking_at(Vec3::Y, Vec3::Y)));
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(2.0, 5.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
        CascadeShadowConfigBuilder { num_cascades: 1, maximum_distance: 10.0, ..default() }.build(),
    ));
}

fn move_target(time: Res<Time>, mut targets: Query<&mut Transform, With<Target>>) {
    let t = time.elapsed_secs();
    for mut target in &mut targets {
        target.translation = Vec3::new(1.2 * (0.8 * t).sin(), 1.0 + 0.6 * (1.1 * t).sin(), 0.8 * (0.5 * t).cos());
    }
}

/// Space: IK on/off. S: FABRIK/CCD. G: gizmos.
fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut chains: Query<(&mut IkChain, &mut IkFade)>,
    mut gizmos: ResMut<GizmoConfigStore>,
) {
    for (mut chain, mut fade) in &mut chains {
        if keys.just_pressed(KeyCode::Space) {
            fade.active = !fade.active;
        }
        if keys.just_pressed(KeyCode::KeyS) {
            chain.solver = if chain.solver == IkSolver::Fabrik { IkSolver::Ccd } else { IkSolver::Fabrik };
        }
    }
    if keys.just_pressed(KeyCode::KeyG) {
        let (config, _) = gizmos.config_mut::<IkGizmos>();
        config.enabled = !config.enabled;
    }
}

/// The line of text: what this shows, the keys and their state, and how hard the solver works.
fn hud(
    mut contexts: EguiContexts,
    chains: Query<(&IkChain, &IkFade, &IkChainState)>,
    gizmos: Res<GizmoConfigStore>,
) -> Result {
    let on = |b: bool| if b { "on" } else { "off" };
    let Ok((chain, fade, state)) = chains.single() else { return Ok(()) };
    egui::Window::new("fabrik_tail").anchor(egui::Align2::LEFT_TOP, [10.0, 10.0]).resizable(false).show(
        contexts.ctx_mut()?,
        |ui| {
            ui.label("An eight-bone tail follows the green ball, warm-starting from last frame's pose.");
            ui.label(format!(
                "Space: IK {}   S: solver {:?}   G: gizmos {}",
                on(fade.active),
                chain.solver,
                on(gizmos.config::<IkGizmos>().0.enabled),
            ));
            ui.label(format!(
                "last frame: {} iteration(s), tip {:.1} mm from the target",
                state.iterations,
                state.error * 1000.0
            ));
        },
    );
    Ok(())
}
