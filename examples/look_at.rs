//! Look-at spread: a spine → neck → head chain turns toward a moving ball, the turn shared down
//! the spine with a limit per joint (the lesson's 15/20/25/40 %). Keys: Space turns the look-at
//! on and off (faded by [`IkFade`]; off, the body faces ahead), V narrows the field of view to
//! ±80° (the ball swings to ±115°: past the field of view the character lets it go and turns
//! back to the front). Run: `cargo run --release --example look_at`.

use bevy::light::CascadeShadowConfigBuilder;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use bevy_ik::prelude::*;

#[derive(Component)]
struct Ball;

/// The narrow field of view V switches to, radians.
const NARROW: f32 = 80.0 * std::f32::consts::PI / 180.0;

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
        MeshMaterial3d(dark.clone()),
        Transform::from_xyz(0.0, 0.12, 0.13),
        ChildOf(parent),
    ));
    // Legs (not part of the IK) carrying the spine above the ground.
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(0.3, 1.0, 0.18))),
        MeshMaterial3d(dark),
        Transform::from_xyz(0.0, 0.5, 0.0),
        ChildOf(root),
    ));
    let ball = commands
        .spawn((
            Ball,
            Mesh3d(meshes.add(Sphere::new(0.07))),
            MeshMaterial3d(materials.add(Color::srgb(1.0, 0.75, 0.2))),
            Transform::default(),
        ))
        .id();
    // The IK: on the root, the spread over the four joints, faded in and out.
    commands.entity(root).insert((
        LookAtSpread::spine_chest_neck_head([joints[0], joints[1], joints[2], joints[3]], IkTarget::Entity(ball)),
        IkFade { fade_in: 0.3, fade_out: 0.3, ..IkFade::new(true) },
    ));

    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(8.0, 8.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.55, 0.62, 0.5))),
    ));
    commands
        .spawn((Camera3d::default(), Transform::from_xyz(1.5, 2.2, 3.5).looking_at(Vec3::new(0.0, 1.2, 0.0), Vec3::Y)));
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(2.0, 5.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
        CascadeShadowConfigBuilder { num_cascades: 1, maximum_distance: 10.0, ..default() }.build(),
    ));
}

/// The ball swings from one side to behind the character and back.
fn move_ball(time: Res<Time>, mut balls: Query<&mut Transform, With<Ball>>) {
    let angle = 2.0 * (0.5 * time.elapsed_secs()).sin();
    for mut ball in &mut balls {
        ball.translation = Vec3::new(1.5 * angle.sin(), 1.7, 1.5 * angle.cos());
    }
}

/// Space: look-at on/off. V: field of view all round / ±80°.
fn keys(keys: Res<ButtonInput<KeyCode>>, mut spreads: Query<(&mut LookAtSpread, &mut IkFade)>) {
    for (mut spread, mut fade) in &mut spreads {
        if keys.just_pressed(KeyCode::Space) {
            fade.active = !fade.active;
        }
        if keys.just_pressed(KeyCode::KeyV) {
            spread.field_of_view = if spread.field_of_view < 3.0 { std::f32::consts::PI } else { NARROW };
        }
    }
}

/// The line of text: what this shows, the keys and their state, and how far the head turned.
fn hud(mut contexts: EguiContexts, spreads: Query<(&LookAtSpread, &IkFade, &LookAtState)>) -> Result {
    let Ok((spread, fade, state)) = spreads.single() else { return Ok(()) };
    egui::Window::new("look_at").anchor(egui::Align2::LEFT_TOP, [10.0, 10.0]).resizable(false).show(
        contexts.ctx_mut()?,
        |ui| {
            ui.label("Look-at spread: spine, chest, neck and head share the turn toward the yellow ball.");
            ui.label(format!(
                "Space: look-at {}   V: field of view {}",
                if fade.active { "on" } else { "off" },
                if spread.field_of_view < 3.0 { "±80°" } else { "all round" },
            ));
            ui.label(format!(
                "head turned {:.0}°{}, {:.0} % in view",
                state.turned.to_degrees(),
                if state.clamped { " (at the joints' limits)" } else { "" },
                state.in_view * 100.0
            ));
        },
    );
    Ok(())
}
