//! The stair finder on real rapier colliders: a root walking toward a flight sees it 2 m ahead
//! (rise, tread and where its first riser is, within a centimetre), keeps seeing it while on
//! it, and sees nothing on flat ground or a ramp; walking down a flight gives a negative rise.

use bevy::prelude::*;
use bevy_ik::ik_core::stairs::Flight;
use bevy_ik::prelude::*;

use crate::common::{DT, global_translation, headless_app};
use crate::feet::{Physics, Rapier};

/// Risers of `rise` every `tread` along +Z from `start` (a box per step, `steps` steps, from
/// `base` up; `rise < 0` builds it going down from `base`).
fn spawn_flight(world: &mut World, start: f32, rise: f32, tread: f32, steps: usize, base: f32) {
    for k in 0..steps {
        let top = base + rise * (k + 1) as f32;
        let (low, high) = (top.min(base) - 1.0, top);
        let half = Vec3::new(1.0, 0.5 * (high - low), 0.5 * tread);
        let z = start + (k as f32 + 0.5) * tread;
        Rapier::spawn_box(world, half, Transform::from_xyz(0.0, 0.5 * (high + low), z));
    }
}

/// A root with a [`StairFinder`] moved along +Z at `speed` from `z0` at height `y`, for
/// `frames`; returns `(z, first riser from the root, the flight)` of every frame one was seen.
fn walk(app: &mut App, z0: f32, y: f32, speed: f32, frames: usize) -> Vec<(f32, f32, Flight)> {
    let root = app.world_mut().spawn((Transform::from_xyz(0.0, y, z0), StairFinder::default())).id();
    let mut seen = Vec::new();
    for f in 0..frames {
        let z = z0 + speed * DT * f as f32;
        app.world_mut().entity_mut(root).insert(Transform::from_xyz(0.0, y, z));
        app.update();
        let at = global_translation(app, root);
        let found = app.world().get::<StairsAhead>(root).and_then(|s| s.risers_from(at));
        if let Some((first, _, flight)) = found {
            seen.push((z, first, flight));
        }
    }
    seen
}

#[test]
fn a_flight_ahead_is_seen_with_its_rise_tread_and_first_riser() {
    let mut app = headless_app();
    Rapier::add_to(&mut app);
    Rapier::spawn_box(app.world_mut(), Vec3::new(1.0, 0.5, 3.0), Transform::from_xyz(0.0, -0.5, 0.0));
    spawn_flight(app.world_mut(), 3.0, 0.17, 0.3, 6, 0.0);
    // From z = 0 to z = 2.4 at 1.2 m/s: the first riser is 3.0 m ahead at the start.
    let seen = walk(&mut app, 0.0, 0.0, 1.2, 120);
    let first_seen = seen.first().map(|s| 3.0 - s.0);
    println!("seen on {} of 120 frames, first at {first_seen:?} m before the riser", seen.len());
    assert!(first_seen.is_some_and(|d| (2.0..=2.6).contains(&d)), "seen from {first_seen:?} m: by 2 m before it");
    for (z, first, flight) in &seen {
        assert!((flight.rise - 0.17).abs() < 0.005 && (flight.tread - 0.3).abs() < 0.01, "{z}: {flight:?}");
        // Probed every 15 cm, kept in between: the riser's distance follows the root.
        assert!((first - (3.0 - z)).abs() < 0.01, "at z {z}: first riser {first} m ahead, truly {}", 3.0 - z);
    }
}

#[test]
fn a_flight_down_is_seen_from_on_it_and_flat_ground_or_a_ramp_show_none() {
    let mut app = headless_app();
    Rapier::add_to(&mut app);
    // Down from y = 1.02 in six 17 cm risers starting at z = 1.0, the root on its second tread.
    Rapier::spawn_box(app.world_mut(), Vec3::new(1.0, 0.5, 0.5), Transform::from_xyz(0.0, 0.52, 0.5));
    spawn_flight(app.world_mut(), 1.0, -0.17, 0.3, 6, 1.02);
    let seen = walk(&mut app, 1.45, 0.85, 0.6, 30);
    assert!(!seen.is_empty(), "a flight down, from on it");
    for (z, first, flight) in &seen {
        assert!((flight.rise + 0.17).abs() < 0.005 && first < &0.0, "at {z}: {first} {flight:?}");
    }

    let mut flat = headless_app();
    Rapier::add_to(&mut flat);
    Rapier::spawn_box(flat.world_mut(), Vec3::new(1.0, 0.5, 5.0), Transform::from_xyz(0.0, -0.5, 0.0));
    let tilt = Quat::from_rotation_x(-20f32.to_radians());
    Rapier::spawn_box(
        flat.world_mut(),
        Vec3::new(1.0, 0.5, 3.0),
        Transform::from_xyz(0.0, 0.0, 4.0).with_rotation(tilt),
    );
    assert!(walk(&mut flat, 0.0, 0.0, 1.2, 90).is_empty(), "no flight on flat ground or a 20° ramp");
}
