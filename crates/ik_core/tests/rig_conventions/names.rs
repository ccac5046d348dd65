//! Each supported naming convention rigs, whatever the pose, order, scale or frame.

use super::*;

#[test]
fn unreal_names_rig_in_t_and_a_pose() {
    assert_eq!(check(&unreal, PLAIN), "unreal");
    assert_eq!(check(&unreal, Case { a_pose: true, ..PLAIN }), "unreal");
}

#[test]
fn mixamo_names_rig_with_any_namespace() {
    assert_eq!(check(&mixamo, PLAIN), "mixamo");
    let plain = |k: &str| mixamo(k).map(|n| n.replace("mixamorig1:", "mixamorig:"));
    assert_eq!(check(&plain, Case { a_pose: true, ..PLAIN }), "mixamo");
}

#[test]
fn rigify_names_rig_with_every_side_marker() {
    let markers: [fn(&str, bool) -> String; 8] = [
        |s, l| format!("{s}.{}", if l { "L" } else { "R" }),
        |s, l| format!("{s}_{}", if l { "L" } else { "R" }),
        |s, l| format!("{s}.{}", if l { "l" } else { "r" }),
        |s, l| format!("{s}-{}", if l { "L" } else { "R" }),
        |s, l| format!("{}_{s}", if l { "L" } else { "R" }),
        |s, l| format!("{}{s}", if l { "Left" } else { "Right" }),
        |s, l| format!("{s}{}", if l { "Left" } else { "Right" }),
        |s, l| format!("DEF-{s}.{}", if l { "L" } else { "R" }),
    ];
    for marker in markers {
        let namer = move |k: &str| rigify_with(k, marker);
        assert_eq!(check(&namer, Case { a_pose: true, ..PLAIN }), "names", "{:?}", namer("thigh_l"));
    }
}

#[test]
fn asset_pack_and_vrm_names_rig() {
    assert_eq!(check(&asset_pack, PLAIN), "names");
    assert_eq!(check(&vrm, Case { a_pose: true, ..PLAIN }), "names");
}

#[test]
fn names_survive_shuffles_scales_z_up_and_turns() {
    let z_up = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let facing_back = Quat::from_rotation_y(std::f32::consts::PI);
    for case in [
        Case { shuffle: true, ..PLAIN },
        Case { scale: 0.01, ..PLAIN },
        Case { scale: 100.0, ..PLAIN },
        Case { turn: z_up, ..PLAIN },
        Case { turn: facing_back, a_pose: true, ..PLAIN },
    ] {
        assert_eq!(check(&mixamo, case), "mixamo");
        assert_eq!(check(&vrm, case), "names");
    }
}

#[test]
fn control_and_finger_bones_do_not_steal_roles() {
    // Mixamo plus IK targets under the root named like the feet.
    let mut b = build(&mixamo, Case { shuffle: true, ..PLAIN });
    let root = b.names.iter().position(|n| n.ends_with("Armature")).unwrap();
    for (i, name) in ["LeftFootIK", "foot_ctrl_l", "mixamorig1:RightFootIK", "RightHand_IK"].into_iter().enumerate() {
        b.names.push(name.into());
        b.parents.push(Some(root));
        b.rest.push(Vec3::new(0.1, 0.08, 0.0));
        b.handles.push(1000 + i);
    }
    let report = rig_humanoid(&bones(&b), None).unwrap();
    let want = HumanoidRig { profile: report.found_by.clone(), ..expected(&b, true) };
    assert_eq!(report.rig, want);
}
