//! The window's scene: the orbit camera, sun and sky, and the screenshot flag.
//!
//! Method: a plugin adding the camera (following the character), a shadow-casting sun with
//! cascades sized to the course, ambient light and, with `--screenshot`, the capture system
//! (the app adds the egui panels and the labs beside it). Inputs: the flags. Invariants:
//! exactly one camera, which egui uses as its primary context.

use bevy::light::CascadeShadowConfigBuilder;
use bevy::prelude::*;

use crate::camera::{OrbitCamera, PointerCaptured, orbit_input, place_cameras};
use crate::cli::Args;
use crate::marks::{MainCamera, Player};
use crate::orb::LookTargets;
use crate::screenshot::{ScreenshotPlan, screenshot_and_exit};

/// The windowed part of the demo.
pub struct DemoView {
    /// The flags (start view, inspector, gizmos, screenshot).
    pub args: Args,
}

impl Plugin for DemoView {
    fn build(&self, app: &mut App) {
        let orbit = self.args.orbit;
        app.insert_resource(ClearColor(crate::surfaces::horizon_color()))
            .insert_resource(GlobalAmbientLight { color: Color::srgb(0.85, 0.9, 1.0), brightness: 450.0, ..default() })
            .init_resource::<PointerCaptured>()
            .add_systems(Startup, move |commands: Commands| spawn_camera_and_sun(commands, orbit))
            .add_systems(Startup, spawn_sky)
            .add_systems(PostStartup, follow_player)
            .add_systems(Update, (orbit_input, place_cameras).chain().after(crate::marks::DemoSystems::Drive));
        if let Some(path) = &self.args.screenshot {
            app.insert_resource(ScreenshotPlan::new(path.clone(), self.args.frames))
                .add_systems(Last, screenshot_and_exit);
        }
    }
}

fn spawn_camera_and_sun(mut commands: Commands, orbit: Option<(f32, f32, f32)>) {
    let (yaw, pitch, distance) = orbit.map_or((200f32, -18f32, 5.5f32), |o| o);
    let cam = OrbitCamera::new(Vec3::new(0.0, 1.0, -2.0), yaw.to_radians(), pitch.to_radians(), distance);
    let transform = cam.transform();
    commands.spawn((
        Name::new("Camera"),
        MainCamera,
        Camera3d::default(),
        cam,
        transform,
        // Distant ground fades into the horizon's haze.
        DistanceFog {
            color: crate::surfaces::horizon_color(),
            falloff: FogFalloff::Linear { start: 35.0, end: 140.0 },
            ..default()
        },
        // Creases (stair risers, feet on the ground) darken; it needs MSAA off.
        bevy::pbr::ScreenSpaceAmbientOcclusion::default(),
        Msaa::Off,
    ));
    commands.spawn((
        Name::new("Sun"),
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(8.0, 14.0, 6.0).looking_at(Vec3::ZERO, Vec3::Y),
        CascadeShadowConfigBuilder {
            num_cascades: 3,
            first_cascade_far_bound: 8.0,
            maximum_distance: 60.0,
            ..default()
        }
        .build(),
    ));
}

/// The sky: an unlit dome with a horizon-to-zenith gradient, beyond the fog and the shadows.
fn spawn_sky(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let material = materials.add(StandardMaterial {
        base_color: Color::WHITE,
        unlit: true,
        fog_enabled: false,
        cull_mode: None,
        ..default()
    });
    commands.spawn((
        Name::new("Sky"),
        Mesh3d(meshes.add(crate::surfaces::sky_dome(400.0))),
        MeshMaterial3d(material),
        Transform::default(),
        bevy::light::NotShadowCaster,
        bevy::light::NotShadowReceiver,
    ));
}

/// Points the camera at the player and tells IK where the camera is.
fn follow_player(
    players: Query<Entity, With<Player>>,
    mut cameras: Query<(Entity, &mut OrbitCamera), With<MainCamera>>,
    targets: Option<ResMut<LookTargets>>,
) {
    let Ok((camera, mut orbit)) = cameras.single_mut() else { return };
    orbit.follow = players.iter().next();
    if let Some(mut targets) = targets {
        targets.camera = Some(camera);
    }
}
