//! Foot placement without a physics engine: two legs made of plain entities stand on a 25°
//! slope (`IkGround::Plane`) and turn slowly on the spot, so each foot in turn is uphill,
//! downhill, toes-up and heel-up. With the IK on, the feet land on the slope and tilt with it,
//! and the pelvis drops so the lower foot can reach (the upper knee bends). Keys: F turns the
//! IK on and off (faded by [`IkFade`]; off, the feet stay flat at the character's own floor,
//! the uphill one sunk into the slope, the downhill one floating above it), G shows bevy_ik's
//! gizmos (foot rays, hits, the placed legs). Run: `cargo run --release --example foot_placement`.

use bevy::light::CascadeShadowConfigBuilder;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use bevy_ik::prelude::*;

/// The slope, degrees: it rises toward +Z.
const SLOPE: f32 = 25.0;
/// Half the distance between the hips, m (a wide stance shows the height difference well).
const HIP_X: f32 = 0.12;

#[derive(Component)]
struct Walker;

fn main() {
    let normal = Quat::from_rotation_x(-SLOPE.to_radians()) * Vec3::Y;
    App::new()
        .add_plugins((DefaultPlugins, EguiPlugin::default(), IkPlugin::default()))
        .insert_resource(ClearColor(Color::srgb(0.62, 0.74, 0.86)))
        .insert_resource(GlobalAmbientLight { color: Color::srgb(0.85, 0.9, 1.0), brightness: 450.0, ..default() })
        .insert_resource(IkGround::Plane(GroundPlane { height: 0.0, normal }))
        .add_systems(Startup, setup)
        .add_systems(Update, (turn, keys))
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
    let leg = materials.add(Color::srgb(0.85, 0.85, 0.88));
    let shoe = materials.add(Color::srgb(0.15, 0.2, 0.45));
    let bone = |len: f32| Capsule3d::new(0.05, len);
    // The character root stands on its own floor (y = 0) facing +Z.
    let root = commands.spawn((Walker, Transform::default(), Visibility::default())).id();
    let pelvis = commands.spawn((Transform::from_xyz(0.0, 0.96, 0.0), Visibility::default(), ChildOf(root))).id();
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(2.0 * HIP_X + 0.12, 0.15, 0.18))),
        MeshMaterial3d(leg.clone()),
        Transform::default(),
        ChildOf(pelvis),
    ));
    let mut legs = Vec::new();
    for side in [1.0, -1.0] {
        let hip = commands
            .spawn((Transform::from_xyz(HIP_X * side, -0.045, 0.0), Visibility::default(), ChildOf(pelvis)))
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
        // The sole is at the root's floor in this rest pose.
        commands.spawn((
            Mesh3d(meshes.add(Cuboid::new(0.09, 0.06, 0.26))),
            MeshMaterial3d(shoe.clone()),
            Transform::from_xyz(0.0, -0.05, 0.06),
            ChildOf(ankle),
        ));
        legs.push(LegBones::new(hip, knee, ankle, Some(ball)));
    }
    // The IK: on the root, pelvis and legs, faded in and out.
    commands
        .entity(root)
        .insert((FootPlacer::new(pelvis, legs), IkFade { fade_in: 0.3, fade_out: 0.3, ..IkFade::new(true) }));

    // The slope the ground plane describes (through the origin).
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(10.0, 10.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.6, 0.66, 0.45))),
        Transform::from_rotation(Quat::from_rotation_x(-SLOPE.to_radians())),
    ));
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(2.1, 1.0, 0.8).looking_at(Vec3::new(0.0, 0.42, 0.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(2.0, 5.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
        CascadeShadowConfigBuilder { num_cascades: 1, maximum_distance: 8.0, ..default() }.build(),
    ));
}

/// The character turns on the spot, its own floor staying level (as an animation's would).
fn turn(time: Res<Time>, mut walkers: Query<&mut Transform, With<Walker>>) {
    for mut t in &mut walkers {
        t.rotation = Quat::from_rotation_y(0.35 * time.elapsed_secs());
    }
}

/// F: foot IK on/off. G: gizmos.
fn keys(keys: Res<ButtonInput<KeyCode>>, mut fades: Query<&mut IkFade>, mut gizmos: ResMut<GizmoConfigStore>) {
    if keys.just_pressed(KeyCode::KeyF) {
        fades.iter_mut().for_each(|mut fade| fade.active = !fade.active);
    }
    if keys.just_pressed(KeyCode::KeyG) {
        let (config, _) = gizmos.config_mut::<IkGizmos>();
        config.enabled = !config.enabled;
    }
}

/// The line of text: what this shows, the keys and their state, and how far off the soles are.
fn hud(
    mut contexts: EguiContexts,
    placers: Query<(&IkFade, &FootPlacerState)>,
    gizmos: Res<GizmoConfigStore>,
) -> Result {
    let Ok((fade, state)) = placers.single() else { return Ok(()) };
    let on = |b: bool| if b { "on" } else { "off" };
    let cm = |f: fn(&FootStatus) -> f32| state.feet.iter().map(|s| format!("{:+.1}", 100.0 * f(s))).collect::<Vec<_>>();
    let (without, with) = (cm(|s| s.float_before), cm(|s| s.float_after));
    egui::Window::new("foot_placement").anchor(egui::Align2::LEFT_TOP, [10.0, 10.0]).resizable(false).show(
        contexts.ctx_mut()?,
        |ui| {
            ui.label(format!(
                "Foot placement on a {SLOPE}° slope: planted feet land on it and tilt with it, the pelvis drops."
            ));
            ui.label(format!(
                "F: foot IK {}   G: gizmos {}",
                on(fade.active),
                on(gizmos.config::<IkGizmos>().0.enabled)
            ));
            ui.label(format!(
                "soles over the slope, left / right: without IK {} cm, with IK {} cm; pelvis drop {:.1} cm",
                without.join(" / "),
                with.join(" / "),
                -100.0 * state.pelvis_offset
            ));
        },
    );
    Ok(())
}
