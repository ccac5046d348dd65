//! Characters facing −Z (Bevy's forward) get knees that bend forward and feet on the ground:
//! a hand-built biped whose bones face −Z with the default [`FootPlacer`] (knees bend the way
//! they bend at rest), and the mannequin loaded with the glTF loader converting to Bevy's
//! coordinates, rigged by [`HumanoidIk`].

use bevy::gltf::GltfPlugin;
use bevy::gltf::convert_coordinates::GltfConvertCoordinates;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::ik_core::foot_placement::KneePole;
use bevy_ik::prelude::*;

use crate::common::{gltf_app_with, headless_app, load_gltf, update_until_rigged, world_translation};

/// The raised floor the feet must reach (the animation's floor is y = 0): every leg must
/// bend further, which shows which way its knee goes.
const FLOOR: f32 = 0.12;
const ANKLE_HEIGHT: f32 = 0.08;

/// One leg's joints.
struct Leg {
    hip: Entity,
    knee: Entity,
    ankle: Entity,
}

/// How far the knee sits ahead of the hip–ankle line along `forward` (world, m).
fn knee_ahead(app: &mut App, leg: &Leg, forward: Vec3) -> f32 {
    let [hip, knee, ankle] = [leg.hip, leg.knee, leg.ankle].map(|e| world_translation(app, e));
    (knee - hip).reject_from(ankle - hip).dot(forward)
}

/// A standing biped whose bones face `facing` (+1: +Z, −1: −Z), legs a little bent at rest.
fn spawn_biped(world: &mut World, facing: f32) -> (Entity, [Leg; 2]) {
    let root = world.spawn((Name::new("biped"), Transform::IDENTITY)).id();
    let pelvis = world.spawn((Transform::from_xyz(0.0, 0.96, 0.0), ChildOf(root))).id();
    let mut legs = Vec::new();
    let mut bones = Vec::new();
    for side in [1.0f32, -1.0] {
        let hip = world.spawn((Transform::from_xyz(0.09 * side, -0.045, 0.0), ChildOf(pelvis))).id();
        let knee = world.spawn((Transform::from_xyz(0.0, -0.415, 0.06 * facing), ChildOf(hip))).id();
        let ankle = world.spawn((Transform::from_xyz(0.0, -0.42, -0.06 * facing), ChildOf(knee))).id();
        let ball = world.spawn((Transform::from_xyz(0.0, -ANKLE_HEIGHT, 0.13 * facing), ChildOf(ankle))).id();
        bones.push(LegBones::new(hip, knee, ankle, Some(ball)));
        legs.push(Leg { hip, knee, ankle });
    }
    world.entity_mut(root).insert(FootPlacer::new(pelvis, bones));
    let [l, r]: [Leg; 2] = legs.try_into().unwrap_or_else(|_| unreachable!());
    (root, [l, r])
}

/// Runs a biped facing `facing` on the raised floor with the given knee pole (the default
/// when `None`); returns each knee's distance ahead of its hip–ankle line (along the
/// character's forward) and each sole's height.
fn stand_raised(facing: f32, pole: Option<KneePole>) -> ([f32; 2], [f32; 2]) {
    let mut app = headless_app();
    app.insert_resource(IkGround::Plane(GroundPlane { height: FLOOR, ..default() }));
    let (root, legs) = spawn_biped(app.world_mut(), facing);
    if let Some(pole) = pole {
        app.world_mut().get_mut::<FootPlacer>(root).unwrap().settings.knee_pole = pole;
    }
    for _ in 0..30 {
        app.update();
    }
    let forward = Vec3::Z * facing;
    let ahead = [0, 1].map(|i| knee_ahead(&mut app, &legs[i], forward));
    let soles = [0, 1].map(|i| world_translation(&mut app, legs[i].ankle).y - ANKLE_HEIGHT);
    (ahead, soles)
}

#[test]
fn a_biped_facing_minus_z_bends_its_knees_forward_with_the_default_placer() {
    for facing in [1.0, -1.0] {
        let (ahead, soles) = stand_raised(facing, None);
        println!(
            "facing {facing:+}: knees ahead {:.4} / {:.4} m, soles {:.4} / {:.4} m",
            ahead[0], ahead[1], soles[0], soles[1]
        );
        for (knee, sole) in ahead.iter().zip(soles) {
            assert!(*knee > 0.03, "facing {facing:+}: a knee sits {knee} m ahead of its leg line");
            assert!((sole - FLOOR).abs() < 0.01, "facing {facing:+}: a sole at {sole} m, floor at {FLOOR}");
        }
    }
    // The check can fail: a pole fixed to +Z on the −Z biped turns its knees backwards.
    let (ahead, _) = stand_raised(-1.0, Some(KneePole::Forward(Vec3::Z)));
    println!("facing -Z with the pole at +Z: knees ahead {:.4} / {:.4} m", ahead[0], ahead[1]);
    assert!(ahead.iter().all(|k| *k < -0.03), "a +Z pole bends a −Z character's knees backwards: {ahead:?}");
}

#[test]
fn the_mannequin_converted_to_bevy_coordinates_faces_minus_z_and_bends_its_knees_forward() {
    let convert = GltfConvertCoordinates { rotate_scene_entity: true, rotate_meshes: true };
    let mut app = gltf_app_with(headless_app(), GltfPlugin { convert_coordinates: convert, ..default() });
    app.insert_resource(IkGround::Plane(GroundPlane { height: FLOOR, ..default() }));
    let scene = load_gltf(&mut app, "mannequin.glb", |g| g.scenes[0].clone());
    let root = app.world_mut().spawn((WorldAssetRoot(scene), HumanoidIk::default())).id();
    update_until_rigged(&mut app, root);
    let rigged = app.world().get::<RiggedHumanoid>(root).expect("the converted mannequin rigs").clone();
    println!("measured forward {:?}", rigged.frame.forward);
    assert!(rigged.frame.forward.dot(Vec3::NEG_Z) > 0.99, "forward {:?}, expected −Z", rigged.frame.forward);
    for _ in 0..30 {
        app.update();
    }
    let forward = app.world().get::<GlobalTransform>(root).unwrap().rotation() * rigged.frame.forward;
    for (side, leg) in rigged.rig.legs.iter().enumerate() {
        let leg = Leg { hip: leg.thigh, knee: leg.calf, ankle: leg.foot };
        let ahead = knee_ahead(&mut app, &leg, forward);
        let ankle = world_translation(&mut app, leg.ankle).y;
        println!("leg {side}: knee {ahead:.4} m ahead of its leg line, ankle at {ankle:.4} m");
        assert!(ahead > 0.02, "leg {side}: the knee sits {ahead} m ahead of its leg line");
        assert!(ankle > FLOOR, "leg {side}: the ankle at {ankle} m is below the raised floor");
    }
    let state = app.world().get::<FootPlacerState>(root).expect("feet placed");
    for (side, foot) in state.feet.iter().enumerate() {
        println!("foot {side}: float after {:.4} m", foot.float_after);
        assert!(foot.hit && foot.float_after.abs() < 0.01, "foot {side}: {foot:?}");
    }
}
