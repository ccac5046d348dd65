//! The benchmark spider: eight legs of three bones (hip, knee, ankle, foot) under a body bone,
//! walked by bevy_ik's [`ProceduralGait`] with no animation.
//!
//! **Inputs.** A grid index (where the spider starts, its heading) and the ground.
//! **Outputs.** Spawned entities ([`Spider`]); every frame [`walk_spiders`] slides and turns
//! each spider's entity along a circle (1 m/s, turning at 0.5 rad/s), so the gait steps every
//! leg in turn and probes the ground for each landing.
//! **Invariants.** Rest rotations are identity, the spider faces +Z with its left at +X and
//! its feet stand on the ground plane under it at rest. Deterministic: the same index gives the
//! same spider and path.

use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::rig::{grid_position, ground_height};

/// Legs per side.
const PER_SIDE: usize = 4;
/// Body bone height over the feet at rest, m.
const BODY_HEIGHT: f32 = 0.25;
/// One leg's joints in body space (hip, knee, ankle, foot), on the left (+X) at z = 0.
const LEG: [Vec3; 4] =
    [Vec3::new(0.12, 0.0, 0.0), Vec3::new(0.30, 0.15, 0.0), Vec3::new(0.43, -0.08, 0.0), Vec3::new(0.47, -0.25, 0.0)];
/// Walking speed, m/s, and turning rate, rad/s.
const SPEED: f32 = 1.0;
const TURN: f32 = 0.5;

/// A spider's entities: its root (moved by [`walk_spiders`]) and each leg's foot.
#[derive(Component, Clone, Debug)]
pub struct Spider {
    /// The body bone.
    pub body: Entity,
    /// The feet, in the order of its [`ProceduralGait::legs`].
    pub feet: Vec<Entity>,
}

/// Spawns spider `index` of `count` on the grid, standing on the ground plane, facing a
/// heading spread by its index.
pub fn spawn_spider(world: &mut World, index: usize, count: usize) -> Entity {
    let at = grid_position(index, count);
    let heading = Quat::from_rotation_y((index as f32 * 0.618_034).fract() * std::f32::consts::TAU);
    let root = world.spawn(Transform::from_translation(at).with_rotation(heading)).id();
    let body = world.spawn((Transform::from_xyz(0.0, BODY_HEIGHT, 0.0), ChildOf(root))).id();
    let mut legs = Vec::new();
    for side in [1.0f32, -1.0] {
        for k in 0..PER_SIDE {
            let z = 0.3 - 0.2 * k as f32;
            let (mut parent, mut last) = (body, Vec3::ZERO);
            let mut joints = [Entity::PLACEHOLDER; 4];
            for (joint, point) in joints.iter_mut().zip(LEG) {
                let point = point * Vec3::new(side, 1.0, 1.0) + Vec3::Z * z;
                *joint = world.spawn((Transform::from_translation(point - last), ChildOf(parent))).id();
                (parent, last) = (*joint, point);
            }
            legs.push(GaitLeg { hip: joints[0], foot: joints[3] });
        }
    }
    let feet = legs.iter().map(|l| l.foot).collect();
    world.entity_mut(root).insert((ProceduralGait::new(body, legs), Spider { body, feet }));
    root
}

/// Moves every spider's entity along its circle, at the ground plane's height.
pub fn walk_spiders(time: Res<Time>, mut spiders: Query<&mut Transform, With<Spider>>) {
    let dt = time.delta_secs();
    spiders.par_iter_mut().for_each(|mut transform| {
        transform.rotate_y(TURN * dt);
        let at = transform.translation + transform.rotation * Vec3::Z * SPEED * dt;
        transform.translation = Vec3::new(at.x, ground_height(at.x, at.z), at.z);
    });
}
