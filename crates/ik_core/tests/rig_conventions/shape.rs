//! Names that say nothing: the skeleton's shape alone rigs it.

use super::*;

#[test]
fn the_shape_alone_rigs_arbitrary_names_in_every_pose_scale_and_frame() {
    let z_up = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let facing_back = Quat::from_rotation_y(std::f32::consts::PI);
    for case in [
        Case { shuffle: true, ..PLAIN },
        Case { shuffle: true, a_pose: true, ..PLAIN },
        Case { scale: 0.01, ..PLAIN },
        Case { scale: 100.0, a_pose: true, ..PLAIN },
        Case { turn: z_up, shuffle: true, ..PLAIN },
        Case { turn: facing_back, ..PLAIN },
        Case { turn: z_up * facing_back, scale: 0.01, a_pose: true, ..PLAIN },
    ] {
        assert_eq!(check(&arbitrary, case), "topology");
    }
}

#[test]
fn without_toes_forward_comes_from_the_knees() {
    let case = Case { toes: false, shuffle: true, ..PLAIN };
    assert_eq!(check(&arbitrary, case), "topology");
    assert_eq!(check(&unreal, case), "unreal");
    let b = build(&arbitrary, case);
    assert_eq!(rig_humanoid(&bones(&b), None).unwrap().frame.forward_from, ForwardSource::Knees);
}

#[test]
fn the_generator_presets_rig_by_shape() {
    let z_up = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let minus_z = Quat::from_rotation_y(std::f32::consts::PI);
    let (mannequin_pose, t_pose, a45) = (0.0, 60.0, 15.0);
    // (preset, root bone, data scale (1 / armature scale), data turn, arm raise, feet, shuffled)
    let presets: [(&str, bool, f32, Quat, f32, Feet, bool); 10] = [
        ("unreal", true, 1.0, Quat::IDENTITY, mannequin_pose, Feet::Shins, false),
        ("mixamo", false, 1.0, Quat::IDENTITY, mannequin_pose, Feet::Shins, false),
        ("mixamo_cm", false, 100.0, Quat::IDENTITY, mannequin_pose, Feet::Shins, false),
        ("blender_zup", false, 1.0, z_up, mannequin_pose, Feet::Shins, false),
        ("asset_pack", true, 1.0, Quat::IDENTITY, t_pose, Feet::Shins, false),
        ("asset_pack_feet_under_root", true, 1.0, Quat::IDENTITY, t_pose, Feet::Root, false),
        ("vrm_minus_z", false, 1.0, minus_z, t_pose, Feet::Shins, false),
        ("arbitrary_shuffled_a_pose", true, 1.0, Quat::IDENTITY, a45, Feet::Shins, true),
        ("robot_100", true, 0.01, Quat::IDENTITY, mannequin_pose, Feet::Control, false),
        ("everything", false, 100.0, z_up * minus_z, t_pose, Feet::Control, true),
    ];
    let mut worst = Off::default();
    for (name, root, scale, turn, raise, feet, shuffle) in presets {
        let case = Case { a_pose: false, toes: true, shuffle, scale, turn };
        let b = build_from(rehang(mannequin(raise), feet, root), &generator_arbitrary, case);
        let (report, off) = check_built(&b, case, 1.60, 0.8366);
        assert_eq!(report.found_by, "topology", "{name}");
        assert_eq!(report.frame.forward_from, ForwardSource::Toes, "{name}");
        println!("{name}: {off:?}");
        worst = worst.max(off);
        if name == "robot_100" {
            let b = build_from(rehang(mannequin(raise), feet, root), &generator_generic, case);
            let (report, off) = check_built(&b, case, 1.60, 0.8366);
            println!("{name} with its own names: found by {}, {off:?}", report.found_by);
        }
    }
    println!("worst: {worst:?}");
}
