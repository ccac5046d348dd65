//! Orbit camera: mouse drag turns it around its focus, the wheel zooms, and the focus follows
//! the character (or sits on a lab).
//!
//! Method: the camera sits at `focus + R(yaw, pitch)·(0, 0, distance)` looking at the focus; the
//! focus chases its goal with a critically damped spring so following is smooth at any frame
//! rate. Inputs: mouse motion/buttons/wheel (ignored while egui or a lab drag uses the pointer),
//! the followed entity's `GlobalTransform`. Output: the camera `Transform`. Invariants: pitch in
//! [-85°, -3°] (never under the floor), distance in [1.5, 40] m.

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use ik_core::spring::Spring;

/// The orbiting camera's state.
#[derive(Component, Clone, Debug)]
pub struct OrbitCamera {
    /// Angle about +Y (0: camera on the +Z side of the focus), radians.
    pub yaw: f32,
    /// Angle above the horizon (negative looks down), radians.
    pub pitch: f32,
    /// Distance from the focus, m.
    pub distance: f32,
    /// Entity to follow (its origin plus `height`), or none to stay on `goal`.
    pub follow: Option<Entity>,
    /// Height above the followed entity's origin.
    pub height: f32,
    /// Where the focus goes when nothing is followed.
    pub goal: Vec3,
    /// Smoothed focus.
    pub focus: Spring<Vec3>,
}

impl OrbitCamera {
    /// A camera looking at `goal` from `yaw`, `pitch`, `distance`.
    pub fn new(goal: Vec3, yaw: f32, pitch: f32, distance: f32) -> Self {
        OrbitCamera { yaw, pitch, distance, follow: None, height: 1.1, goal, focus: Spring::new(goal) }
    }

    /// Camera transform for the current state.
    pub fn transform(&self) -> Transform {
        let rotation = Quat::from_euler(EulerRot::YXZ, self.yaw, self.pitch, 0.0);
        let focus = self.focus.value;
        Transform::from_translation(focus + rotation * Vec3::Z * self.distance).looking_at(focus, Vec3::Y)
    }
}

/// Whether something else owns the pointer this frame.
#[derive(Resource, Default, Clone, Copy, Debug)]
pub struct PointerCaptured {
    /// egui wants the pointer (it is over a window, or dragging a widget).
    pub egui: bool,
    /// A lab handle is being dragged.
    pub drag: bool,
}

/// Mouse drag orbits (left or right button), the wheel zooms.
/// Where the OS gives no raw mouse motion (some remote desktops, VNC, Xvfb) the drag is read
/// from the cursor's movement over the window instead.
pub fn orbit_input(
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    captured: Res<PointerCaptured>,
    windows: Query<&Window, With<bevy::window::PrimaryWindow>>,
    mut last_cursor: Local<Option<Vec2>>,
    mut cameras: Query<&mut OrbitCamera>,
) {
    let cursor = windows.iter().next().and_then(Window::cursor_position);
    let cursor_delta = match (cursor, *last_cursor) {
        (Some(now), Some(before)) => now - before,
        _ => Vec2::ZERO,
    };
    *last_cursor = cursor;
    if captured.egui || captured.drag {
        return;
    }
    let motion = if motion.delta != Vec2::ZERO { motion.delta } else { cursor_delta };
    let dragging = buttons.pressed(MouseButton::Left) || buttons.pressed(MouseButton::Right);
    let zoom = match scroll.unit {
        MouseScrollUnit::Line => scroll.delta.y,
        MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
    };
    for mut cam in &mut cameras {
        if dragging {
            cam.yaw -= motion.x * 0.005;
            cam.pitch = (cam.pitch - motion.y * 0.004).clamp(-85f32.to_radians(), -3f32.to_radians());
        }
        if zoom != 0.0 {
            cam.distance = (cam.distance * (1.0 - 0.1 * zoom)).clamp(1.5, 40.0);
        }
    }
}

/// Moves the focus toward the followed entity and places the camera.
pub fn place_cameras(
    time: Res<Time>,
    targets: Query<&GlobalTransform>,
    mut cameras: Query<(&mut OrbitCamera, &mut Transform)>,
) {
    let dt = time.delta_secs();
    for (mut cam, mut transform) in &mut cameras {
        let goal = match cam.follow.and_then(|e| targets.get(e).ok()) {
            Some(t) => t.translation() + Vec3::Y * cam.height,
            None => cam.goal,
        };
        cam.focus.update(goal, 0.12, dt);
        *transform = cam.transform();
    }
}
