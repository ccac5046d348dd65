//! The floating orb: something to look at and reach for.
//!
//! Method: the orb wanders on a slow Lissajous path around a point in front of the character's
//! right shoulder (character space), drifting in and out of arm's reach, and is smoothed by a
//! critically damped spring; when "orb stays" is chosen it hovers at a fixed spot of the course
//! instead. Inputs: the character body's transform, time. Output: the orb's `Transform`.
//! Invariants: the orb stays 0.9–1.4 m above the character's feet while following.

use bevy::prelude::*;
use ik_core::spring::Spring;

use crate::marks::Player;

/// The orb and how it moves.
#[derive(Component, Clone, Debug)]
pub struct Orb {
    /// Follow the character (true) or hover at `home`.
    pub follow: bool,
    /// Where it hovers when not following.
    pub home: Vec3,
    /// Smoothed position.
    pub position: Spring<Vec3>,
    /// Time along its path, s.
    pub clock: f32,
}

/// Entities IK can aim at: the orb, what the character attends to and (with a window) the
/// camera.
#[derive(Resource, Clone, Copy, Debug)]
pub struct LookTargets {
    /// The floating orb.
    pub orb: Entity,
    /// The [`Focus`]: a gem ahead, else the orb ([`crate::game::choose_focus`]); the head looks
    /// at it (when aiming at the orb) and the hand reaches for it.
    pub focus: Entity,
    /// The camera, if there is one.
    pub camera: Option<Entity>,
}

/// Marks the focus entity of [`LookTargets`].
#[derive(Component)]
pub struct Focus;

/// Spawns the orb (a glowing sphere when meshes are available).
pub fn spawn_orb(
    mut commands: Commands,
    visuals: Res<crate::marks::Visuals>,
    mut meshes: Option<ResMut<Assets<Mesh>>>,
    mut materials: Option<ResMut<Assets<StandardMaterial>>>,
) {
    let home = Vec3::new(1.6, 1.3, 0.5);
    let mut orb = commands.spawn((
        Name::new("Orb"),
        Orb { follow: true, home, position: Spring::new(home), clock: 0.0 },
        Transform::from_translation(home),
        Visibility::default(),
    ));
    if visuals.0
        && let (Some(meshes), Some(materials)) = (meshes.as_deref_mut(), materials.as_deref_mut())
    {
        let material = materials.add(StandardMaterial {
            base_color: Color::srgb(1.0, 0.75, 0.2),
            emissive: LinearRgba::rgb(4.0, 2.4, 0.5),
            ..default()
        });
        orb.insert((Mesh3d(meshes.add(Sphere::new(0.07).mesh().uv(24, 16))), MeshMaterial3d(material)));
        orb.with_child((
            PointLight { intensity: 6000.0, range: 3.0, color: Color::srgb(1.0, 0.8, 0.4), ..default() },
            Transform::IDENTITY,
        ));
    }
    let orb = orb.id();
    let focus = commands.spawn((Name::new("Focus"), Focus, Transform::from_translation(home))).id();
    commands.insert_resource(LookTargets { orb, focus, camera: None });
}

/// Moves the orb along its path.
pub fn move_orb(
    time: Res<Time>,
    bodies: Query<&Transform, (With<Player>, Without<Orb>)>,
    mut orbs: Query<(&mut Orb, &mut Transform)>,
) {
    let dt = time.delta_secs();
    let body = bodies.iter().next().copied();
    for (mut orb, mut transform) in &mut orbs {
        orb.clock += dt;
        let t = orb.clock;
        let goal = match body {
            Some(body) if orb.follow => {
                // Front-right of the character (its right is -X), wandering in and out of reach.
                let local = Vec3::new(
                    -0.38 + 0.2 * (0.5 * t).sin(),
                    1.05 + 0.15 * (0.9 * t).sin(),
                    0.6 + 0.45 * (0.37 * t).sin(),
                );
                body.translation + body.rotation * local
            }
            _ => orb.home + Vec3::new(0.2 * (0.6 * t).sin(), 0.1 * (1.1 * t).sin(), 0.2 * (0.45 * t).cos()),
        };
        transform.translation = orb.position.update(goal, 0.25, dt);
    }
}
