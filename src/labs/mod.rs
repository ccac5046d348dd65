//! Lab scenes, as in the IK lesson's lab: a two-bone arm with draggable target and pole, CCD and
//! FABRIK side by side on the same chain, look-at spread vs head only, and a follow-the-leader
//! caterpillar chasing a target.
//!
//! Method: every lab is built once at start-up at its own spot beside the course; switching
//! views ([`ActiveView`], keys 1–5 or the UI) only moves the camera there (and hands the
//! keyboard back to the character on the course). Inputs: the view, the pointer (handles are
//! dragged with the left button). Outputs: lab entities, camera presets, per-lab readouts.
//! Invariants: lab IK components carry [`LabOnly`](crate::marks::LabOnly), so the course's switches never touch them.

pub mod build;
pub mod caterpillar;
pub mod chains;
pub mod drag;
pub mod look_at;
pub mod two_bone;

use bevy::prelude::*;

use crate::camera::OrbitCamera;
use crate::cli::StartView;
use crate::marks::{MainCamera, MoveIntent, Player};

pub use build::{ActiveView, lab_origin};

/// Camera preset per lab: focus offset from the origin, yaw, pitch (degrees), distance.
fn camera_preset(view: StartView) -> (Vec3, f32, f32, f32) {
    match view {
        StartView::Course => (Vec3::ZERO, 200.0, -18.0, 5.5),
        StartView::TwoBone => (Vec3::new(0.3, 1.3, 0.0), 20.0, -8.0, 4.2),
        StartView::Chains => (Vec3::new(0.0, 1.0, 0.0), 0.0, -12.0, 8.0),
        StartView::LookAt => (Vec3::new(0.5, 1.3, 0.3), 22.0, -10.0, 4.4),
        StartView::Caterpillar => (Vec3::new(0.0, 0.0, 0.0), 0.0, -42.0, 13.0),
    }
}

/// Adds the labs.
pub struct LabsPlugin {
    /// View at start.
    pub start: StartView,
    /// `--orbit` (yaw°, pitch°, distance) for the first view, if given.
    pub orbit: Option<(f32, f32, f32)>,
}

/// The `--orbit` flag, applied once to the first view.
#[derive(Resource, Clone, Copy, Debug)]
struct OrbitOverride(Option<(f32, f32, f32)>);

impl Plugin for LabsPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ActiveView(self.start))
            .insert_resource(OrbitOverride(self.orbit))
            .init_resource::<drag::Dragging>()
            .add_plugins((two_bone::TwoBoneLab, chains::ChainsLab, look_at::LookAtLab, caterpillar::CaterpillarLab))
            .add_systems(Update, (view_keys, aim_camera).chain().before(crate::marks::DemoSystems::Setup))
            .add_systems(
                Update,
                (
                    freeze_player_in_labs
                        .after(crate::marks::DemoSystems::Intent)
                        .before(crate::marks::DemoSystems::Drive),
                    drag::drag_handles.before(crate::camera::orbit_input),
                ),
            );
    }
}

/// Keys 1–5 switch views.
fn view_keys(keys: Res<ButtonInput<KeyCode>>, mut view: ResMut<ActiveView>) {
    for (i, key) in
        [KeyCode::Digit1, KeyCode::Digit2, KeyCode::Digit3, KeyCode::Digit4, KeyCode::Digit5].iter().enumerate()
    {
        if keys.just_pressed(*key) {
            view.0 = ActiveView::ALL[i].0;
        }
    }
}

/// On a view change, moves the camera to the view's preset (following the player on the course).
fn aim_camera(
    view: Res<ActiveView>,
    mut orbit: ResMut<OrbitOverride>,
    players: Query<Entity, With<Player>>,
    mut cameras: Query<&mut OrbitCamera, With<MainCamera>>,
    mut last: Local<Option<StartView>>,
) {
    if *last == Some(view.0) || cameras.is_empty() {
        return;
    }
    *last = Some(view.0);
    let (offset, yaw, pitch, distance) = orbit.0.take().map_or(camera_preset(view.0), |(y, p, d)| {
        let (offset, ..) = camera_preset(view.0);
        (offset, y, p, d)
    });
    for mut cam in &mut cameras {
        if view.0 == StartView::Course {
            cam.follow = players.iter().next();
        } else {
            cam.follow = None;
            cam.goal = lab_origin(view.0) + offset;
            let goal = cam.goal;
            cam.focus.snap(goal);
        }
        cam.yaw = yaw.to_radians();
        cam.pitch = pitch.to_radians();
        cam.distance = distance;
    }
}

/// The character stands still while a lab is shown.
fn freeze_player_in_labs(view: Res<ActiveView>, mut intents: Query<&mut MoveIntent, With<Player>>) {
    if view.0 != StartView::Course {
        for mut intent in &mut intents {
            *intent = MoveIntent::default();
        }
    }
}
