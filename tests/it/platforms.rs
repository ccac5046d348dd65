//! Planted feet ride what they stand on: a biped standing on a rapier kinematic platform that
//! slides at 1 m/s or turns at 30°/s (the character carried with it, here as the platform's
//! child) keeps its locked balls where they are on the platform, within 1 mm over 2 s; on the
//! physics-free plane (nothing to ride) the same locks hold the world point instead and the
//! balls slide over the platform.

use bevy::prelude::*;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::common::{DT, headless_app, world_translation};
use crate::feet::spawn_biped;

/// How the platform moves.
#[derive(Clone, Copy, Debug)]
enum Motion {
    /// Along +X at 1 m/s.
    Slide,
    /// About its centre at 30°/s (the biped stands 1 m from the axis).
    Turn,
}

/// The largest drift of either ball over the platform (in the platform's frame) in 2 s, m,
/// and whether both feet ended locked with ground under them.
fn ball_drift(motion: Motion, ground: IkGround) -> (f32, bool) {
    let mut app = headless_app();
    app.add_plugins(RapierPhysicsPlugin::<NoUserData>::default());
    app.insert_resource(ground);
    let platform = app
        .world_mut()
        .spawn((
            RigidBody::KinematicPositionBased,
            Collider::cuboid(2.0, 0.05, 2.0),
            Transform::from_xyz(0.0, -0.05, 0.0),
        ))
        .id();
    let biped = spawn_biped(app.world_mut(), Vec3::ZERO);
    let at = match motion {
        Motion::Slide => Vec3::new(0.0, 0.05, 0.0),
        Motion::Turn => Vec3::new(1.0, 0.05, 0.0),
    };
    let contacts = FootContacts(ContactSource::Manual(vec![true, true]));
    app.world_mut().entity_mut(biped.root).insert((
        Transform::from_translation(at),
        ChildOf(platform),
        FootLock::default(),
        contacts,
    ));
    for _ in 0..10 {
        app.update();
    }
    let on_platform = |app: &mut App, e: Entity| {
        let platform = *app.world().get::<GlobalTransform>(platform).unwrap();
        platform.affine().inverse().transform_point3(world_translation(app, e))
    };
    let start = biped.balls.map(|b| on_platform(&mut app, b));
    let mut worst = 0.0f32;
    for _ in 0..120 {
        let mut t = app.world_mut().get_mut::<Transform>(platform).unwrap();
        match motion {
            Motion::Slide => t.translation.x += 1.0 * DT,
            Motion::Turn => t.rotate_y(30f32.to_radians() * DT),
        }
        app.update();
        for (ball, start) in biped.balls.iter().zip(&start) {
            let drift = on_platform(&mut app, *ball) - *start;
            worst = worst.max(Vec2::new(drift.x, drift.z).length());
        }
    }
    let state = app.world().get::<FootPlacerState>(biped.root).unwrap();
    (worst, state.feet.iter().all(|f| f.locked && f.hit))
}

#[test]
fn locked_feet_ride_a_sliding_and_a_turning_platform() {
    for motion in [Motion::Slide, Motion::Turn] {
        let (riding, held) = ball_drift(motion, IkGround::Rapier);
        let (plane, _) = ball_drift(motion, IkGround::Plane(GroundPlane::default()));
        println!(
            "{motion:?} platform: balls drift {:.3} mm over it riding (rapier), {:.1} mm on the plane (nothing to ride)",
            riding * 1e3,
            plane * 1e3
        );
        assert!(held, "{motion:?}: both feet locked on the platform at the end");
        assert!(riding <= 0.001, "{motion:?}: the locked balls slid {} mm over the platform", riding * 1e3);
        assert!(plane > 0.05, "{motion:?}: without a surface to ride the lock holds the world point ({plane} m)");
    }
}
