//! `CreatureIk` on the Khronos Fox (assets/characters/Fox.glb) playing its own Walk on a raised,
//! tilted plane and over rapier steps, stairs and a ramp: its four legs are found whatever their
//! names (the front pair are `*Arm*` bones), each paw stands on the ground while the clip plants
//! it, and its body is pitched along the ramp by its `BodyFit`; a horse it was not tuned on
//! (assets/characters/m2m_horse.glb, four-segment legs) stands on the tilted plane with its body
//! rolled to it.

use bevy::gltf::GltfPlugin;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::prelude::*;

use crate::common::{DT, gltf_app_with, headless_app, load_gltf, play_on_repeat, update_until};
use crate::feet::{Physics, Rapier};

/// The plane: 6 cm up at the origin, rising 10 % toward +X.
fn plane() -> GroundPlane {
    GroundPlane { height: 0.06, normal: Vec3::new(-0.1, 1.0, 0.0) }
}

/// The Fox rigged by [`CreatureIk`] in `app`, playing its Walk; returns it and the Walk's
/// speed.
fn walking_fox(app: &mut App) -> (Entity, f32) {
    // The Fox is modelled about 100 units tall: its scene scaled to metres under the root.
    walking(app, "characters/Fox.glb", 0.01)
}

/// The creature in `file` rigged by [`CreatureIk`] in `app`, its scene scaled by `scale` under
/// the root, playing its Walk; returns it and the Walk's speed.
fn walking(app: &mut App, file: &str, scale: f32) -> (Entity, f32) {
    let (scene, walk) = load_gltf(app, file, |g| (g.scenes[0].clone(), g.named_animations["Walk"].clone()));
    let creature = app.world_mut().spawn((Transform::default(), CreatureIk::default())).id();
    app.world_mut().spawn((WorldAssetRoot(scene), Transform::from_scale(Vec3::splat(scale)), ChildOf(creature)));
    update_until(app, "the creature's rig", |app| {
        app.world().get::<RiggedCreature>(creature).is_some()
            || app.world().get::<CreatureRigFailed>(creature).is_some()
    });
    play_on_repeat(app, walk);
    let speed = walk_speed(app, creature);
    eprintln!("{file} walk: {speed:.2} m/s (planted paws' speed under the root)");
    assert!(speed > 0.1 && speed < 3.0, "{speed}");
    (creature, speed)
}

/// A creature walking on [`plane`] for four seconds, its root carried at the walk's `speed` so
/// planted feet stand still in the world: its planted feet's worst float,
/// penetration and locked slide (m), its body's roll (BodyFit, radians) after the first second,
/// and each foot's planted frames.
fn on_the_tilted_plane(app: &mut App, creature: Entity, speed: f32) -> ([f32; 3], (f32, f32), Vec<u32>) {
    let (mut worst, mut held, mut roll) = ([0.0f32; 3], vec![None::<Vec3>; 8], (f32::MAX, f32::MIN));
    let mut planted = vec![0; 8];
    for frame in 0..240 {
        app.world_mut().get_mut::<Transform>(creature).unwrap().translation.z += speed * DT;
        app.update();
        if frame < 60 {
            continue;
        }
        let state = app.world().get::<FootPlacerState>(creature).expect("a foot placer");
        for (i, foot) in state.feet.iter().enumerate() {
            held[i] = foot.locked.then(|| held[i].unwrap_or(foot.toe_world));
            if let Some(at) = held[i] {
                worst[2] = worst[2].max((foot.toe_world - at).with_y(0.0).length());
            }
            if foot.contact {
                planted[i] += 1;
                (worst[0], worst[1]) = (worst[0].max(foot.float_after), worst[1].max(-foot.float_after));
            }
        }
        let tilt = app.world().get::<BodyFitState>(creature).expect("CreatureIk adds a BodyFit").tilt;
        let z = tilt.to_euler(EulerRot::ZXY).0;
        roll = (roll.0.min(z), roll.1.max(z));
    }
    planted.truncate(app.world().get::<FootPlacerState>(creature).map_or(0, |s| s.feet.len()));
    (worst, roll, planted)
}

#[test]
fn a_horse_stands_its_hooves_on_a_tilted_plane_its_body_rolled_to_it() {
    let mut app = gltf_app_with(headless_app(), GltfPlugin::default());
    app.insert_resource(IkGround::Plane(plane()));
    let (horse, speed) = walking(&mut app, "characters/m2m_horse.glb", 1.0);
    let rigged = app.world().get::<RiggedCreature>(horse).expect("the horse is rigged");
    assert_eq!(rigged.rig.legs.len(), 4);
    let ([float, sink, slide], (least, most), planted) = on_the_tilted_plane(&mut app, horse, speed);
    let slope = plane().normal.x.abs().atan2(plane().normal.y);
    eprintln!(
        "horse walking on a plane sloping {:.1}°: planted float {:.2} cm, penetration {:.2} cm, locked slide \
         {:.2} cm; body rolled {:.1}–{:.1}°; planted frames per hoof {planted:?} of 180",
        slope.to_degrees(),
        float * 100.0,
        sink * 100.0,
        slide * 100.0,
        least.to_degrees(),
        most.to_degrees()
    );
    assert!((least - slope).abs() < 1f32.to_radians() && (most - slope).abs() < 1f32.to_radians());
    // The contact heuristic (speed and height) marks a hoof planted for a short part of its
    // stance (18–66 of 180 frames): enough frames to measure each.
    assert!(planted.len() == 4 && planted.iter().all(|&n| n >= 10), "each hoof planted: {planted:?}");
    assert!(float <= 0.01 && sink <= 0.01 && slide <= 0.01);
}

#[test]
fn the_fox_is_rigged_by_its_shape_and_stands_its_four_paws_on_a_tilted_plane() {
    let mut app = gltf_app_with(headless_app(), GltfPlugin::default());
    app.insert_resource(IkGround::Plane(plane()));
    let (fox, speed) = walking_fox(&mut app);
    let rigged = app.world().get::<RiggedCreature>(fox).expect("the fox is rigged");
    let name = |e: Entity| app.world().get::<Name>(e).map_or(String::new(), |n| n.as_str().to_string());
    let legs: Vec<String> = rigged.rig.legs.iter().map(|l| name(l.foot)).collect();
    eprintln!("fox legs (feet, front to back): {legs:?}");
    assert_eq!(legs.len(), 4);
    assert!(legs[..2].iter().all(|n| n.contains("Hand")), "the front pair are the arms: {legs:?}");
    let (mut worst_float, mut worst_sink, mut planted, mut swinging) = (0.0f32, 0.0f32, [0u32; 4], [0u32; 4]);
    let (mut worst_joint, mut held, mut worst_slide) = (0.0f32, [None::<Vec3>; 4], 0.0f32);
    for frame in 0..240 {
        // Walk the root at the clip's speed so planted paws stand still in the world.
        app.world_mut().get_mut::<Transform>(fox).unwrap().translation.z += speed * DT;
        app.update();
        let state = app.world().get::<FootPlacerState>(fox).expect("a foot placer");
        assert_eq!(state.feet.len(), 4);
        if frame < 30 {
            continue;
        }
        let placer = app.world().get::<FootPlacer>(fox).unwrap();
        for (i, ((foot, joints), leg)) in state.feet.iter().zip(state.leg_joints()).zip(&placer.legs).enumerate() {
            for joint in joints.into_iter().flatten() {
                assert!(joint.is_finite());
            }
            // A locked paw's ball stays where it was locked.
            held[i] = foot.locked.then(|| held[i].unwrap_or(foot.toe_world));
            if let Some(at) = held[i] {
                worst_slide = worst_slide.max((foot.toe_world - at).with_y(0.0).length());
            }
            if !foot.contact {
                swinging[i] += 1;
                continue;
            }
            planted[i] += 1;
            worst_float = worst_float.max(foot.float_after);
            worst_sink = worst_sink.max(-foot.float_after);
            // Independently of the placer's report: the paw bone over the plane at its rest height.
            let paw = joints[2].unwrap();
            let above = (paw - Vec3::Y * plane().height).dot(plane().normal.normalize()) / plane().normal.normalize().y;
            let rest = leg.rest.map_or(0.0, |r| r.ankle_height);
            worst_joint = worst_joint.max((above - rest).abs());
        }
    }
    eprintln!(
        "fox walking in place on a tilted plane: planted frames {planted:?}, swinging {swinging:?}; planted sole float \
         {:.2} cm, penetration {:.2} cm; paw bone off its rest height {:.2} cm; locked paws slid {:.2} cm",
        worst_float * 100.0,
        worst_sink * 100.0,
        worst_joint * 100.0,
        worst_slide * 100.0
    );
    assert!(planted.iter().all(|&n| n > 20) && swinging.iter().all(|&n| n > 20), "{planted:?} {swinging:?}");
    assert!(worst_float <= 0.01 && worst_sink <= 0.01 && worst_slide <= 0.01);
    // Placed on the plane, not on the floor the clip was made on (6 cm and more below it).
    assert!(worst_joint <= 0.03);
}

/// The speed of the Walk in place: how fast a paw moves back under the root while it is within
/// 1 cm of its lowest (IK off for two seconds).
fn walk_speed(app: &mut App, fox: Entity) -> f32 {
    app.world_mut().resource_mut::<IkSettings>().enabled = false;
    let paws: Vec<Entity> = app.world().get::<RiggedCreature>(fox).unwrap().rig.legs.iter().map(|l| l.foot).collect();
    let mut track: Vec<Vec<Vec3>> = vec![Vec::new(); paws.len()];
    for _ in 0..120 {
        app.update();
        for (t, paw) in track.iter_mut().zip(&paws) {
            t.push(app.world().get::<GlobalTransform>(*paw).unwrap().translation());
        }
    }
    app.world_mut().resource_mut::<IkSettings>().enabled = true;
    let mut speeds = Vec::new();
    for t in &track {
        let lowest = t.iter().map(|p| p.y).fold(f32::MAX, f32::min);
        speeds.extend(t.windows(2).filter(|w| w[0].y < lowest + 0.01).map(|w| (w[0].z - w[1].z) / DT));
    }
    speeds.sort_by(f32::total_cmp);
    speeds[speeds.len() / 2]
}

/// The course along +Z: floor, an 8 cm step, three 12 cm stairs of 35 cm treads, a landing,
/// a 10° ramp down to the floor. Its height at `z`.
fn course_height(z: f32) -> f32 {
    match z {
        z if z < 1.0 => 0.0,
        z if z < 2.2 => 0.08,
        z if z < 3.25 => 0.08 + 0.12 * (((z - 2.2) / 0.35).floor() + 1.0),
        z if z < RAMP_TOP => 0.44,
        z => (0.44 - (z - RAMP_TOP) * 10f32.to_radians().tan()).max(0.0),
    }
}

/// Where the ramp down starts (z).
const RAMP_TOP: f32 = 4.5;

/// Spawns [`course_height`] as rapier boxes.
fn spawn_course(world: &mut World) {
    let mut block = |from: f32, to: f32, top: f32| {
        let half = Vec3::new(1.5, 0.5 * (top + 1.0), 0.5 * (to - from));
        Rapier::spawn_box(world, half, Transform::from_xyz(0.0, 0.5 * (top - 1.0), 0.5 * (from + to)));
    };
    block(-4.0, 1.0, 0.0);
    block(1.0, 2.2, 0.08);
    for k in 0..3 {
        block(2.2 + 0.35 * k as f32, 2.2 + 0.35 * (k + 1) as f32, 0.08 + 0.12 * (k + 1) as f32);
    }
    let foot = RAMP_TOP + 0.44 / 10f32.to_radians().tan();
    block(3.25, RAMP_TOP, 0.44);
    block(foot, 14.0, 0.0);
    // The ramp: a slab turned 10° about X, its top face through (RAMP_TOP, 0.44) and (foot, 0).
    let (angle, length) = (10f32.to_radians(), (foot - RAMP_TOP) / 10f32.to_radians().cos());
    let centre = Vec3::new(0.0, 0.22, 0.5 * (foot + RAMP_TOP)) - Vec3::new(0.0, angle.cos(), angle.sin()) * 0.25;
    Rapier::spawn_box(
        world,
        Vec3::new(1.5, 0.25, 0.5 * length + 0.05),
        Transform::from_translation(centre).with_rotation(Quat::from_rotation_x(angle)),
    );
}

#[test]
fn the_fox_walks_its_own_walk_over_a_step_stairs_and_a_ramp_with_paws_placed_and_locked() {
    let mut rapier = headless_app();
    Rapier::add_to(&mut rapier);
    let mut app = gltf_app_with(rapier, GltfPlugin::default());
    spawn_course(app.world_mut());
    let (fox, speed) = walking_fox(&mut app);
    let (mut z, mut y) = (-2.5f32, 0.0f32);
    // Per section (floor, step, stairs, landing, ramp): planted float, penetration, slide.
    let sections = ["floor", "step", "stairs", "landing", "ramp down", "floor after"];
    let section = |z: f32| match z {
        z if z < 1.0 => 0,
        z if z < 2.2 => 1,
        z if z < 3.25 => 2,
        z if z < RAMP_TOP => 3,
        z if z < 7.0 => 4,
        _ => 5,
    };
    let mut worst = [[0.0f32; 5]; 6];
    // The body's pitch (nose down > 0) from its BodyFit, least and most, on the floor before
    // the step and on the ramp's middle.
    let (mut floor_pitch, mut ramp_pitch) = ((f32::MAX, f32::MIN), (f32::MAX, f32::MIN));
    let mut held = [None::<Vec3>; 4];
    let (mut planted, mut frame) = (0, 0);
    while z < 8.5 {
        frame += 1;
        // A controller: the body rides the highest ground under its front and hind hips.
        z += speed * DT;
        let ground = course_height(z + 0.25).max(course_height(z - 0.25));
        y += (ground - y) * 0.5;
        app.world_mut().entity_mut(fox).insert(Transform::from_xyz(0.0, y, z));
        app.update();
        let state = app.world().get::<FootPlacerState>(fox).expect("a foot placer");
        if frame < 30 {
            // Moved from where its walk was measured: settling.
            continue;
        }
        let fit = app.world().get::<BodyFitState>(fox).expect("CreatureIk adds a BodyFit");
        let pitch = fit.tilt.to_euler(EulerRot::XYZ).0;
        let range = match z {
            z if z < 0.5 => Some(&mut floor_pitch),
            z if (RAMP_TOP + 0.8..RAMP_TOP + 1.8).contains(&z) => Some(&mut ramp_pitch),
            _ => None,
        };
        if let Some((least, most)) = range {
            (*least, *most) = (least.min(pitch), most.max(pitch));
        }
        let at = &mut worst[section(z)];
        for (i, foot) in state.feet.iter().enumerate() {
            assert!(foot.toe_world.is_finite());
            held[i] = foot.locked.then(|| held[i].unwrap_or(foot.toe_world));
            if let Some(from) = held[i] {
                at[2] = at[2].max((foot.toe_world - from).with_y(0.0).length());
            }
            if foot.contact {
                planted += 1;
                at[3] += 1.0;
                at[0] = at[0].max(foot.float_after);
                at[1] = at[1].max(-foot.float_after);
                // Independently of the placer's report: the ball over the course's own height.
                let over = foot.toe_world.y - course_height(foot.toe_world.z);
                at[4] = at[4].max(over.abs());
            }
        }
    }
    for (name, [float, sink, slide, frames, over]) in sections.iter().zip(worst) {
        eprintln!(
            "fox, {name}: {frames} planted paw-frames; planted float {:.2} cm, penetration {:.2} cm, locked slide \
             {:.2} cm; ball off the course's height {:.2} cm",
            float * 100.0,
            sink * 100.0,
            slide * 100.0,
            over * 100.0
        );
    }
    let degrees = |(least, most): (f32, f32)| (least.to_degrees(), most.to_degrees());
    eprintln!("fox body pitch (deg): floor {:.1?}, 10° ramp down {:.1?}", degrees(floor_pitch), degrees(ramp_pitch));
    assert!(floor_pitch.0 > -1f32.to_radians() && floor_pitch.1 < 1f32.to_radians(), "level on the floor");
    assert!(ramp_pitch.0 > 8f32.to_radians() && ramp_pitch.1 < 12f32.to_radians(), "pitched along the 10° ramp");
    assert!(planted > 400, "{planted} planted paw-frames");
    for (name, [float, sink, slide, frames, _]) in sections.iter().zip(worst) {
        assert!(frames >= 20.0, "{name}: {frames} planted paw-frames");
        assert!(float <= 0.01 && sink <= 0.01 && slide <= 0.01, "{name}: {float} {sink} {slide}");
    }
}
