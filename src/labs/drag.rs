//! Dragging lab handles (targets, poles) with the mouse.
//!
//! Method: on a left press that egui does not want, the ray through the cursor picks the nearest
//! [`Draggable`] sphere it passes through; while the button is held the handle follows the
//! cursor in the plane through it facing the camera. Inputs: cursor, camera, handles. Output:
//! the handle's `Transform` (handles are top-level entities, so local = world) and
//! [`Dragging`], which keeps the camera from orbiting meanwhile. Invariants: a handle never
//! leaves its [`Draggable::bounds`] box.

use bevy::prelude::*;

use crate::camera::PointerCaptured;
use crate::marks::MainCamera;

/// A sphere the mouse can drag.
#[derive(Component, Clone, Copy, Debug)]
pub struct Draggable {
    /// Pick radius, m.
    pub radius: f32,
    /// Where it may go (min, max corners, world).
    pub bounds: (Vec3, Vec3),
}

/// The handle being dragged, the drag plane's normal and the grab offset.
#[derive(Resource, Default, Clone, Copy, Debug)]
pub struct Dragging(pub Option<(Entity, Vec3, Vec3)>);

/// Distance along `ray` to where it passes within `radius` of `center`.
fn ray_sphere(ray: Ray3d, center: Vec3, radius: f32) -> Option<f32> {
    let to = center - ray.origin;
    let along = to.dot(*ray.direction);
    let closest = to - *ray.direction * along;
    (along > 0.0 && closest.length_squared() <= radius * radius).then_some(along)
}

/// Picks, drags and releases handles.
#[allow(clippy::too_many_arguments)]
pub fn drag_handles(
    buttons: Res<ButtonInput<MouseButton>>,
    windows: Query<&Window>,
    cameras: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
    mut handles: Query<(Entity, &Draggable, &mut Transform)>,
    mut dragging: ResMut<Dragging>,
    mut captured: ResMut<PointerCaptured>,
) {
    let ray = (|| {
        let cursor = windows.iter().next()?.cursor_position()?;
        let (camera, transform) = cameras.iter().next()?;
        camera.viewport_to_world(transform, cursor).ok()
    })();
    if !buttons.pressed(MouseButton::Left) {
        dragging.0 = None;
    }
    if buttons.just_pressed(MouseButton::Left)
        && !captured.egui
        && let Some(ray) = ray
    {
        let hit = handles
            .iter()
            .filter_map(|(e, d, t)| ray_sphere(ray, t.translation, d.radius).map(|dist| (e, dist, t.translation)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some((entity, _, at)), Some((_, cam))) = (hit, cameras.iter().next()) {
            let normal = cam.forward().as_vec3();
            let grab = ray.origin + *ray.direction * ray.direction.dot(at - ray.origin);
            dragging.0 = Some((entity, normal, at - grab));
        }
    }
    captured.drag = dragging.0.is_some();
    let (Some((entity, normal, offset)), Some(ray)) = (dragging.0, ray) else { return };
    let Ok((_, drag, mut transform)) = handles.get_mut(entity) else {
        dragging.0 = None;
        return;
    };
    let denom = ray.direction.dot(normal);
    if denom.abs() < 1e-4 {
        return;
    }
    let t = (transform.translation - offset - ray.origin).dot(normal) / denom;
    if t > 0.0 {
        let point = ray.origin + *ray.direction * t + offset;
        transform.translation = point.clamp(drag.bounds.0, drag.bounds.1);
    }
}
