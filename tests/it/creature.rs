//! `CreatureIk` on the Khronos Fox (assets/characters/Fox.glb) playing its own Walk on a raised,
//! tilted plane: its four legs are found whatever their names (the front pair are `*Arm*`
//! bones), and each paw stands on the plane while the clip plants it.

use bevy::gltf::GltfPlugin;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::prelude::*;

use crate::common::{gltf_app_with, headless_app, load_gltf, play_on_repeat, update_until};

/// The plane: 6 cm up at the origin, rising 10 % toward +X.
fn plane() -> GroundPlane {
    GroundPlane { height: 0.06, normal: Vec3::new(-0.1, 1.0, 0.0) }
}

#[test]
fn the_fox_is_rigged_by_its_shape_and_stands_its_four_paws_on_a_tilted_plane() {
    let mut app = gltf_app_with(headless_app(), GltfPlugin::default());
    let (scene, walk) =
        load_gltf(&mut app, "characters/Fox.glb", |g| (g.scenes[0].clone(), g.named_animations["Walk"].clone()));
    app.insert_resource(IkGround::Plane(plane()));
    // The Fox is modelled about 100 units tall: its scene scaled to metres under the root.
    let fox = app.world_mut().spawn((Transform::default(), CreatureIk::default())).id();
    app.world_mut().spawn((WorldAssetRoot(scene), Transform::from_scale(Vec3::splat(0.01)), ChildOf(fox)));
    update_until(&mut app, "the fox's rig", |app| {
        app.world().get::<RiggedCreature>(fox).is_some() || app.world().get::<CreatureRigFailed>(fox).is_some()
    });
    let rigged = app.world().get::<RiggedCreature>(fox).expect("the fox is rigged");
    let name = |e: Entity| app.world().get::<Name>(e).map_or(String::new(), |n| n.as_str().to_string());
    let legs: Vec<String> = rigged.rig.legs.iter().map(|l| name(l.foot)).collect();
    eprintln!("fox legs (feet, front to back): {legs:?}");
    assert_eq!(legs.len(), 4);
    assert!(legs[..2].iter().all(|n| n.contains("Hand")), "the front pair are the arms: {legs:?}");
    play_on_repeat(&mut app, walk);
    let speed = walk_speed(&mut app, fox);
    eprintln!("fox walk: {speed:.2} m/s (planted paws' speed under the root)");
    assert!(speed > 0.1 && speed < 3.0, "{speed}");
    let (mut worst_float, mut worst_sink, mut planted, mut swinging) = (0.0f32, 0.0f32, [0u32; 4], [0u32; 4]);
    let (mut worst_joint, mut held, mut worst_slide) = (0.0f32, [None::<Vec3>; 4], 0.0f32);
    for frame in 0..240 {
        // Walk the root at the clip's speed so planted paws stand still in the world.
        app.world_mut().get_mut::<Transform>(fox).unwrap().translation.z += speed * crate::common::DT;
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
        speeds.extend(t.windows(2).filter(|w| w[0].y < lowest + 0.01).map(|w| (w[0].z - w[1].z) / crate::common::DT));
    }
    speeds.sort_by(f32::total_cmp);
    speeds[speeds.len() / 2]
}
