//! Finding bones by name: `find_chain` and `HumanoidIk` on a Mixamo-named hierarchy, and the one
//! clear error naming what is missing.

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::common::headless_app;

/// Spawns a Mixamo-style humanoid (names with the `mixamorig:` prefix) under a character root,
/// leaving out the bones named in `skip`.
fn spawn_mixamo(world: &mut World, skip: &[&str]) -> Entity {
    let root = world.spawn((Name::new("character"), Transform::default())).id();
    let mut bone = |name: &str, parent: Entity, at: Vec3| {
        if skip.contains(&name) {
            return parent;
        }
        world.spawn((Name::new(format!("mixamorig:{name}")), Transform::from_translation(at), ChildOf(parent))).id()
    };
    let hips = bone("Hips", root, Vec3::new(0.0, 0.95, 0.0));
    let spine = bone("Spine", hips, Vec3::Y * 0.1);
    let spine1 = bone("Spine1", spine, Vec3::Y * 0.12);
    let spine2 = bone("Spine2", spine1, Vec3::Y * 0.12);
    let neck = bone("Neck", spine2, Vec3::Y * 0.15);
    bone("Head", neck, Vec3::Y * 0.1);
    for (side, x) in [("Left", 1.0f32), ("Right", -1.0)] {
        let shoulder = bone(&format!("{side}Shoulder"), spine2, Vec3::new(0.05 * x, 0.12, 0.0));
        let arm = bone(&format!("{side}Arm"), shoulder, Vec3::new(0.12 * x, 0.0, 0.0));
        let fore = bone(&format!("{side}ForeArm"), arm, Vec3::new(0.0, -0.28, -0.02));
        bone(&format!("{side}Hand"), fore, Vec3::new(0.0, -0.26, 0.02));
        let up = bone(&format!("{side}UpLeg"), hips, Vec3::new(0.09 * x, -0.05, 0.0));
        let leg = bone(&format!("{side}Leg"), up, Vec3::new(0.0, -0.42, 0.02));
        let foot = bone(&format!("{side}Foot"), leg, Vec3::new(0.0, -0.40, -0.02));
        bone(&format!("{side}ToeBase"), foot, Vec3::new(0.0, -0.08, 0.13));
    }
    root
}

#[test]
fn find_chain_names_every_missing_bone() {
    let mut app = headless_app();
    let root = spawn_mixamo(app.world_mut(), &[]);
    let found = app
        .world_mut()
        .run_system_once(move |names: Query<&Name>, children: Query<&Children>| {
            let ok = find_chain(
                root,
                &["mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot"],
                &names,
                &children,
            );
            let missing = find_chain(root, &["mixamorig:LeftUpLeg", "thigh_l", "calf_l"], &names, &children);
            (ok.map(|c| c.len()), missing.map_err(|e| e.missing))
        })
        .unwrap();
    assert_eq!(found.0, Ok(3));
    assert_eq!(found.1, Err(vec!["thigh_l".to_string(), "calf_l".to_string()]));
}

/// The whole Mixamo-style humanoid on a ground plane, given `humanoid` and three frames to rig.
fn rigged_mixamo(humanoid: HumanoidIk) -> (App, Entity) {
    let mut app = headless_app();
    app.insert_resource(IkGround::Plane(GroundPlane::default()));
    let root = spawn_mixamo(app.world_mut(), &[]);
    app.world_mut().entity_mut(root).insert(humanoid);
    for _ in 0..3 {
        app.update();
    }
    (app, root)
}

#[test]
fn a_mixamo_rig_is_detected_and_gets_feet_look_at_and_a_reaching_arm() {
    let (app, root) = rigged_mixamo(HumanoidIk {
        look_target: Some(IkTarget::Position(Vec3::new(1.0, 1.6, 3.0))),
        hand_target: Some(IkTarget::Position(Vec3::new(-0.3, 1.2, 0.4))),
        ..Default::default()
    });
    let rigged = app.world().get::<RiggedHumanoid>(root).expect("rigged");
    assert_eq!(rigged.rig.profile, "mixamo");
    let hand = rigged.reaching_hand.expect("a reaching hand");
    assert!(app.world().get::<IkChain>(hand).is_some());
    let placer = app.world().get::<FootPlacer>(root).expect("a foot placer");
    assert_eq!(placer.legs.len(), 2);
    let rest = placer.legs[0].rest.expect("rest measured");
    assert!((rest.ankle_height - 0.08).abs() < 1e-5 && rest.toe_height.abs() < 1e-5);
    assert_eq!(app.world().get::<LookAtSpread>(root).expect("a look-at").joints.len(), 4);
    assert!(app.world().get::<FootLock>(root).is_some());
}

#[test]
fn a_rig_whose_clips_face_away_from_its_rest_pose_looks_and_reaches_the_way_they_face() {
    // The same rig (rest pose facing +Z) told its clips turn it to face -Z: the look-at's field
    // of view and the reaching elbow's pole follow the clips, not the rest pose.
    let [(rest_look, rest_pole), (turned_look, turned_pole)] = [None, Some(Vec3::NEG_Z)].map(|facing| {
        let (app, root) = rigged_mixamo(HumanoidIk {
            look_target: Some(IkTarget::Position(Vec3::new(0.0, 1.6, 3.0))),
            hand_target: Some(IkTarget::Position(Vec3::new(-0.3, 1.2, 0.4))),
            facing,
            ..Default::default()
        });
        let look = app.world().get::<LookAtSpread>(root).expect("a look-at").character_forward;
        let rigged = app.world().get::<RiggedHumanoid>(root).expect("rigged");
        let pole = rigged.pole.expect("a pole");
        (look, app.world().get::<Transform>(pole).expect("pole transform").translation.z)
    });
    assert!(
        rest_look.distance(Vec3::Z) < 1e-4 && turned_look.distance(Vec3::NEG_Z) < 1e-4,
        "{rest_look} {turned_look}"
    );
    assert!(rest_pole < 0.0 && turned_pole > 0.0, "the elbow's pole behind the body: {rest_pole} {turned_pole}");
}

#[test]
fn a_rig_missing_roles_fails_once_naming_them() {
    let mut app = headless_app();
    let root = spawn_mixamo(app.world_mut(), &["LeftLeg", "Head"]);
    app.world_mut().entity_mut(root).insert(HumanoidIk { patience_frames: 5, ..Default::default() });
    for _ in 0..10 {
        app.update();
    }
    let failed = app.world().get::<RigFailed>(root).expect("the rig failed").message.clone();
    assert!(failed.contains("head") && failed.contains("calf_l") && failed.contains("role = bone"), "{failed}");
    assert!(app.world().get::<FootPlacer>(root).is_none());
}
