//! Unit tests of [`super`]: the slope under the feet, placement on a plane, locks, warping.
use std::time::Duration;

use bevy::time::TimeUpdateStrategy;

use super::*;
use crate::IkPlugin;
use crate::feet::{ContactSource, FootContacts, LegBones};
use crate::ground::{GroundPlane, IkGround};

const THIGH: f32 = 0.44;
const SHIN: f32 = 0.40;

#[test]
fn the_slope_under_the_feet_leaves_out_risers_and_weighs_the_planted_foot_most() {
    let ramp = Quat::from_rotation_x(-0.35) * Vec3::Y;
    let foot = |normal: Vec3, planted: f32| FootStatus { hit: true, ground_normal: normal, planted, ..default() };
    let max = 40f32.to_radians();
    // A planted foot on the ramp, a swinging one over a riser (a wall, not a slope).
    let got = ground_under_feet(&[foot(ramp, 1.0), foot(Vec3::NEG_Z, 0.0)], max);
    assert!(got.angle_between(ramp) < 1e-5, "{got}");
    // One on the ramp, one on flat ground: the planted foot's ground counts most.
    let got = ground_under_feet(&[foot(ramp, 1.0), foot(Vec3::Y, 0.0)], max);
    assert!(got.angle_between(ramp) < got.angle_between(Vec3::Y), "{got}");
    // Nothing hit: flat.
    assert_eq!(ground_under_feet(&[FootStatus::default(); 2], max), Vec3::Y);
}
const ANKLE_HEIGHT: f32 = 0.08;
/// The plane the feet must land on, 15 cm above the animation's floor.
const PLANE: f32 = 0.15;

/// A hand-built IK-control rig: root → pelvis → hip → knee per leg, but each foot (with its
/// toe) hangs from the root, not from the shin. The pelvis is crouched 4 cm and the knees
/// bent forward so each shin's end (`(0, −SHIN, 0)` in the knee's frame) meets its foot.
struct ControlRig {
    root: Entity,
    pelvis: Entity,
    legs: [LegBones; 2],
}

fn spawn_control_rig(world: &mut World, at: Vec3) -> ControlRig {
    let root = world.spawn(Transform::from_translation(at).with_rotation(Quat::from_rotation_y(0.3))).id();
    let pelvis = world.spawn((Transform::from_xyz(0.0, 0.94, 0.0), ChildOf(root))).id();
    let legs = [0.1f32, -0.1].map(|x| {
        let (hip_at, ankle_at) = (Vec3::new(x, 0.88, 0.0), Vec3::new(x, ANKLE_HEIGHT, 0.0));
        let d = hip_at.distance(ankle_at);
        let along = (THIGH * THIGH - SHIN * SHIN + d * d) / (2.0 * d);
        let knee_at = hip_at + Vec3::new(0.0, -along, (THIGH * THIGH - along * along).sqrt());
        let hip_rotation = Quat::from_rotation_arc(Vec3::NEG_Y, (knee_at - hip_at).normalize());
        let knee_rotation = Quat::from_rotation_arc(Vec3::NEG_Y, (ankle_at - knee_at).normalize());
        let hip = world.spawn((Transform::from_xyz(x, -0.06, 0.0).with_rotation(hip_rotation), ChildOf(pelvis))).id();
        let knee_local = Transform::from_xyz(0.0, -THIGH, 0.0).with_rotation(hip_rotation.inverse() * knee_rotation);
        let knee = world.spawn((knee_local, ChildOf(hip))).id();
        let ankle = world.spawn((Transform::from_translation(ankle_at), ChildOf(root))).id();
        let toe = world.spawn((Transform::from_xyz(0.0, -0.06, 0.14), ChildOf(ankle))).id();
        LegBones::new(hip, knee, ankle, Some(toe))
    });
    ControlRig { root, pelvis, legs }
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        IkPlugin { settings: IkSettings { enabled: true, parallel: false } },
    ));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(1.0 / 60.0)));
    app.insert_resource(IkGround::Plane(GroundPlane { height: PLANE, ..default() }));
    app
}

fn global(app: &App, e: Entity) -> GlobalTransform {
    *app.world().get::<GlobalTransform>(e).unwrap()
}

/// Per leg: the ankle's height above the plane (world) and the shin end's distance from it.
fn feet(app: &App, rig: &ControlRig) -> [(f32, f32); 2] {
    rig.legs.map(|leg| {
        let ankle = global(app, leg.ankle).translation();
        let shin_end = global(app, leg.knee).transform_point(Vec3::NEG_Y * SHIN);
        (ankle.y - ANKLE_HEIGHT - PLANE, shin_end.distance(ankle))
    })
}

#[test]
fn feet_under_the_root_land_on_the_plane_with_the_shins_on_them() {
    let mut app = app();
    let rig = spawn_control_rig(app.world_mut(), Vec3::new(1.0, 0.0, 2.0));
    let placer = FootPlacer::new(rig.pelvis, rig.legs.to_vec());
    app.world_mut().entity_mut(rig.root).insert(placer);
    app.update();
    // Before IK the shins' ends are on the feet, 15 cm under the plane.
    for frame in 0..30 {
        app.update();
        let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
        assert_eq!(state.warnings, 0, "frame {frame}: {:?}", state.inner.faults.current());
        for (k, (height, shin_gap)) in feet(&app, &rig).into_iter().enumerate() {
            if frame == 29 {
                println!(
                    "foot {k}: ankle {:.2} mm off the plane, shin end {:.3} mm off the foot",
                    height * 1e3,
                    shin_gap * 1e3
                );
            }
            assert!(height.abs() < 0.01, "frame {frame} foot {k}: {height} m off the plane");
            assert!(shin_gap < 1e-3, "frame {frame} foot {k}: the shin's end is {shin_gap} m off the foot");
            assert!(state.feet[k].float_after.abs() < 0.01, "frame {frame} foot {k}: {:?}", state.feet[k]);
        }
        // The foot's local translation was written (it hangs from the root).
        let foot = app.world().get::<Transform>(rig.legs[0].ankle).unwrap();
        assert!((foot.translation.y - ANKLE_HEIGHT - PLANE).abs() < 0.01, "{foot:?}");
    }
}

#[test]
fn a_locked_toe_on_an_external_foot_stays_put_while_the_root_walks_on() {
    let mut app = app();
    let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
    let lock = (FootLock::default(), FootContacts(ContactSource::Manual(vec![true, true])));
    app.world_mut().entity_mut(rig.root).insert((FootPlacer::new(rig.pelvis, rig.legs.to_vec()), lock));
    app.update();
    let toe = |app: &App, k: usize| global(app, rig.legs[k].toe.unwrap()).translation();
    let held = [toe(&app, 0), toe(&app, 1)];
    let mut worst = 0.0f32;
    for frame in 1..=20 {
        // The character root slides 5 mm forward a frame; the animation (the static pose)
        // comes along with it, the locked toes must not.
        app.world_mut().get_mut::<Transform>(rig.root).unwrap().translation.z = 0.005 * frame as f32;
        app.update();
        let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
        assert_eq!(state.warnings, 0, "frame {frame}: {:?}", state.inner.faults.current());
        for (k, (height, shin_gap)) in feet(&app, &rig).into_iter().enumerate() {
            assert!(state.feet[k].locked, "frame {frame} foot {k}");
            let slip = Vec2::new(toe(&app, k).x - held[k].x, toe(&app, k).z - held[k].z).length();
            worst = worst.max(slip);
            assert!(slip < 0.005, "frame {frame} foot {k}: the locked toe slid {slip} m");
            assert!(height.abs() < 0.01 && shin_gap < 1e-3, "frame {frame} foot {k}: {height} {shin_gap}");
        }
    }
    println!("locked toes on external feet: worst slide {:.2} mm over 10 cm of root travel", worst * 1e3);
}

#[test]
fn a_locked_toe_stays_locked_while_the_root_climbs_further_than_the_unlock_distance() {
    // Climbing stairs, the root rises 40 cm under a planted toe: more than the unlock
    // distance (30 cm), but all of it vertical. The lock holds horizontally only, so it must
    // not let go (it used to, and re-locked a few centimetres off: a slide).
    let mut app = app();
    let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
    let lock = (FootLock::default(), FootContacts(ContactSource::Manual(vec![true, true])));
    app.world_mut().entity_mut(rig.root).insert((FootPlacer::new(rig.pelvis, rig.legs.to_vec()), lock));
    app.update();
    let toe = |app: &App, k: usize| global(app, rig.legs[k].toe.unwrap()).translation();
    let held = [toe(&app, 0), toe(&app, 1)];
    for frame in 1..=20 {
        let mut root = app.world_mut().get_mut::<Transform>(rig.root).unwrap();
        root.translation.y = 0.02 * frame as f32;
        root.translation.z = 0.002 * frame as f32;
        app.update();
        let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
        for (k, held) in held.iter().enumerate() {
            assert!(state.feet[k].locked, "frame {frame} foot {k}: the lock let go");
            let slip = Vec2::new(toe(&app, k).x - held.x, toe(&app, k).z - held.z).length();
            assert!(slip < 0.005, "frame {frame} foot {k}: the locked toe slid {slip} m");
        }
    }
}

#[test]
fn pose_warping_moves_feet_under_the_root_and_the_feet_are_still_placed() {
    let mut app = app();
    let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
    // Walking sideways at 1 m/s with a 1.4 m/s clip: a stride and an orientation to warp.
    let warping = crate::warping::PoseWarping {
        clip_speed: 1.4,
        velocity: crate::warping::WarpVelocity::World(Vec3::X),
        ..default()
    };
    let toes = |app: &App| rig.legs.map(|leg| global(app, leg.toe.unwrap()).translation());
    app.world_mut().entity_mut(rig.root).insert(FootPlacer::new(rig.pelvis, rig.legs.to_vec()));
    app.update();
    let before = toes(&app);
    app.world_mut().entity_mut(rig.root).insert(warping);
    for frame in 0..5 {
        app.update();
        let warp = app.world().get::<crate::warping::PoseWarpingState>(rig.root).unwrap();
        assert_eq!(warp.warnings, 0, "frame {frame}: feet under the root are warped, not refused");
        assert!(warp.angle.abs() > 0.5 && warp.scale < 0.9, "frame {frame}: {warp:?}");
        let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
        assert_eq!(state.warnings, 0, "frame {frame}: the placement itself is fine");
        for (k, (height, _)) in feet(&app, &rig).into_iter().enumerate() {
            assert!(height.abs() < 0.01, "frame {frame} foot {k}: {height} m off the plane");
        }
    }
    // The feet (hanging from the root, written by translation) turned toward the movement.
    let moved = toes(&app).iter().zip(&before).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(moved > 0.01, "the warped feet stayed where they were ({moved} m)");
}

#[test]
fn a_foot_lock_put_back_holds_the_feet_where_they_are_then() {
    // Lock, take the lock off, move the character 40 cm, put the lock back: the toes must
    // be held where they are now, not pulled back toward where the first lock planted them.
    let mut app = app();
    let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
    let lock = (FootLock::default(), FootContacts(ContactSource::Manual(vec![true, true])));
    app.world_mut().entity_mut(rig.root).insert((FootPlacer::new(rig.pelvis, rig.legs.to_vec()), lock.clone()));
    for _ in 0..5 {
        app.update();
    }
    app.world_mut().entity_mut(rig.root).remove::<FootLock>();
    app.update();
    app.world_mut().get_mut::<Transform>(rig.root).unwrap().translation.z = 0.4;
    app.update();
    app.world_mut().entity_mut(rig.root).insert(lock);
    let toe = |app: &App, k: usize| global(app, rig.legs[k].toe.unwrap()).translation();
    let free = [toe(&app, 0), toe(&app, 1)];
    let mut worst = 0.0f32;
    for _ in 0..10 {
        app.update();
        for (k, start) in free.iter().enumerate() {
            worst = worst.max(Vec2::new(toe(&app, k).x - start.x, toe(&app, k).z - start.z).length());
        }
    }
    println!("a lock put back after a 40 cm move: toes moved {:.2} mm", worst * 1e3);
    assert!(worst < 0.005, "the toes were pulled {worst} m toward the old holds");
}

#[test]
fn a_held_toe_the_clip_runs_from_is_let_go_only_when_the_leg_cannot_reach_it() {
    // A body starting from standing lags its stride: the clip's toe runs further than the unlock
    // distance (10 cm here) from the held toe while the leg still reaches it (hip 80 cm over
    // the ankle, thigh and shin 84 cm: up to 25.6 cm of horizontal reach).
    let mut app = app();
    let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
    let mut lock = FootLock::default();
    lock.settings.unlock_distance = 0.1;
    let contacts = FootContacts(ContactSource::Manual(vec![true, true]));
    app.world_mut().entity_mut(rig.root).insert((FootPlacer::new(rig.pelvis, rig.legs.to_vec()), lock, contacts));
    app.update();
    let mut first_unlocked = None;
    for frame in 1..=32 {
        app.world_mut().get_mut::<Transform>(rig.root).unwrap().translation.z = 0.01 * frame as f32;
        app.update();
        let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
        if state.feet.iter().any(|f| !f.locked) {
            first_unlocked.get_or_insert(frame);
        }
    }
    println!("held toes let go {first_unlocked:?} cm from the clip's toes (unlock distance 10 cm, reach 25.6 cm)");
    let frame = first_unlocked.expect("a toe out of the leg's reach was never let go");
    assert!(frame > 24, "let go at {frame} cm, within the leg's reach");
}

#[test]
fn contact_flags_decide_each_foots_contact_without_a_lock() {
    // Both feet stand on the floor in the clip. Without flags a foot is in contact as its clip
    // plants it; flags written by hand decide it, lock or no lock (footstep prediction reads
    // the same contact to learn when a swing starts).
    let mut app = app();
    let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
    app.world_mut().entity_mut(rig.root).insert(FootPlacer::new(rig.pelvis, rig.legs.to_vec()));
    let contacts = |app: &App| {
        let feet = &app.world().get::<FootPlacerState>(rig.root).unwrap().feet;
        [feet[0].contact, feet[1].contact]
    };
    app.update();
    assert_eq!(contacts(&app), [true, true], "the clip plants both feet");
    for flags in [[true, false], [false, true]] {
        app.world_mut().entity_mut(rig.root).insert(FootContacts(ContactSource::Manual(flags.to_vec())));
        app.update();
        assert_eq!(contacts(&app), flags, "the flags were not the contacts");
        assert!(app.world().get::<FootPlacerState>(rig.root).unwrap().feet.iter().all(|f| !f.locked));
    }
}

#[test]
fn contact_flags_for_another_number_of_legs_are_refused_once_with_the_counts() {
    // One flag for two legs: not read as "the other foot swings", refused with one warning
    // naming both counts, and the feet left as animated.
    let mut app = app();
    let rig = spawn_control_rig(app.world_mut(), Vec3::ZERO);
    app.update();
    let animated = global(&app, rig.legs[0].toe.unwrap()).translation();
    let contacts = FootContacts(ContactSource::Manual(vec![true]));
    app.world_mut().entity_mut(rig.root).insert((FootPlacer::new(rig.pelvis, rig.legs.to_vec()), contacts));
    for _ in 0..5 {
        app.update();
    }
    let state = app.world().get::<FootPlacerState>(rig.root).unwrap();
    assert_eq!(state.warnings, 1, "one warning, not one per frame");
    let fault = state.inner.faults.current().map(|f| f.to_string()).unwrap_or_default();
    assert!(fault.contains("1 contact flags for 2 legs"), "{fault}");
    assert!(global(&app, rig.legs[0].toe.unwrap()).translation().distance(animated) < 1e-5, "the feet were moved");
}
