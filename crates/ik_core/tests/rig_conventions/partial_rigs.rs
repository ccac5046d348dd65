//! Rigs with an arm the rigging cannot use: the legs are rigged, the arm is left out with a
//! reason naming its bones (RobotExpressive's hands are mesh nodes under the scene root).

use super::*;

/// The Mixamo rig with both hands hung from the root, away from the forearms.
fn hands_under_the_root() -> Built {
    let mut b = build(&mixamo, PLAIN);
    let root = b.parents.iter().position(Option::is_none).unwrap();
    for hand in ["LeftHand", "RightHand"] {
        let i = b.names.iter().position(|n| n.ends_with(hand)).unwrap();
        b.parents[i] = Some(root);
    }
    b
}

#[test]
fn hands_outside_the_arms_leave_the_arms_out_and_keep_the_legs() {
    let b = hands_under_the_root();
    let report = rig_humanoid(&bones(&b), None).unwrap_or_else(|e| panic!("{e}"));
    let want = expected(&b, true);
    assert_eq!(report.rig.legs, want.legs, "mapping:\n{}", report.mapping());
    assert_eq!((report.rig.pelvis, report.rig.head), (want.pelvis, want.head));
    assert_eq!(report.rig.arms, [None, None]);
    assert_eq!(report.dropped.len(), 2, "{:?}", report.dropped);
    let left = report.dropped[0].to_string();
    println!("{left}");
    for part in
        ["left arm left out", "hand_l = mixamorig1:LeftHand", "lowerarm_l = mixamorig1:LeftForeArm", "--rig-map"]
    {
        assert!(left.contains(part), "{part} in: {left}");
    }
    assert!(!report.mapping().contains("hand_l"), "no dropped role in the mapping:\n{}", report.mapping());
    // The frame is measured as before: the legs and spine give it.
    assert!((report.frame.leg_length - 0.851).abs() < 0.01, "leg {}", report.frame.leg_length);
    assert!(angle_deg(report.frame.forward, Vec3::Z) < 1.0, "forward {:?}", report.frame.forward);
}

#[test]
fn one_usable_arm_is_kept() {
    let mut b = build(&mixamo, PLAIN);
    let root = b.parents.iter().position(Option::is_none).unwrap();
    let hand = b.names.iter().position(|n| n.ends_with("RightHand")).unwrap();
    b.parents[hand] = Some(root);
    let report = rig_humanoid(&bones(&b), None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.rig.arms[0], expected(&b, true).arms[0]);
    assert_eq!(report.rig.arms[1], None);
    assert_eq!(report.dropped.len(), 1);
    assert_eq!(report.dropped[0].side, ik_core::rig::Side::Right);
}

/// The legs the canonical keys describe (for skeletons without the arm keys).
fn legs(b: &Built) -> [ik_core::rig::LegBones<usize>; 2] {
    let k = |key: String| b.keys.iter().position(|x| *x == key).unwrap();
    ["l", "r"].map(|s| ik_core::rig::LegBones {
        thigh: k(format!("thigh_{s}")),
        calf: k(format!("calf_{s}")),
        foot: k(format!("foot_{s}")),
        ball: Some(k(format!("ball_{s}"))),
    })
}

#[test]
fn a_skeleton_without_arms_rigs_by_names_by_shape_and_by_map() {
    let armless = |k: &str| {
        let arm = ["clav_", "upper_", "lower_", "hand_", "index", "middle", "thumb"].iter().any(|p| k.starts_with(p));
        if arm { None } else { mixamo(k) }
    };
    let b = build(&armless, PLAIN);
    let report = rig_humanoid(&bones(&b), None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.rig.arms, [None, None]);
    assert!(report.dropped[0].reason.contains("no bone is named like"), "{}", report.dropped[0]);
    assert_eq!(report.rig.legs, legs(&b));
    // With no names at all, the shape search finds the same legs.
    let unnamed = build(&|k| armless(k).map(|_| String::new()), PLAIN);
    let report = rig_humanoid(&bones(&unnamed), None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.found_by, "topology");
    assert_eq!(report.rig.legs, legs(&unnamed));
    assert_eq!(report.rig.arms, [None, None]);
    // A map that names no arm.
    let map = RigProfile::from_map(
        "user map",
        [
            ("pelvis", "Hips"),
            ("spine_0", "Spine"),
            ("head", "Head"),
            ("thigh_l", "LeftUpLeg"),
            ("calf_l", "LeftLeg"),
            ("foot_l", "LeftFoot"),
            ("thigh_r", "RightUpLeg"),
            ("calf_r", "RightLeg"),
            ("foot_r", "RightFoot"),
        ],
    )
    .unwrap();
    let report = rig_humanoid(&bones(&b), Some(&map)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.rig.arms, [None, None]);
    assert!(
        report.dropped[1].reason.contains("the map names no upperarm_r, lowerarm_r, hand_r"),
        "{}",
        report.dropped[1]
    );
}

#[test]
fn a_leg_that_does_not_chain_is_still_an_error() {
    let mut b = build(&mixamo, PLAIN);
    let root = b.parents.iter().position(Option::is_none).unwrap();
    let calf = b.names.iter().position(|n| n.ends_with("LeftLeg")).unwrap();
    b.parents[calf] = Some(root);
    assert!(rig_humanoid(&bones(&b), None).is_err());
}

#[test]
fn a_four_legged_creature_is_refused_naming_its_hips_and_shoulders() {
    let v = Vec3::new;
    // A fox-like quadruped, 0.5 high and 0.9 long, facing +Z: hind legs from the hips, front
    // legs (named as arms) from the chest, a neck and head rising ahead, a tail behind.
    let bones: Vec<(&str, Option<usize>, Vec3)> = vec![
        ("root", None, v(0.0, 0.0, 0.0)),
        ("hips", Some(0), v(0.0, 0.5, -0.4)),
        ("spine", Some(1), v(0.0, 0.52, 0.0)),
        ("chest", Some(2), v(0.0, 0.52, 0.35)),
        ("neck", Some(3), v(0.0, 0.62, 0.45)),
        ("head", Some(4), v(0.0, 0.72, 0.55)),
        ("tail", Some(1), v(0.0, 0.5, -0.6)),
        ("LeftLeg01", Some(1), v(0.1, 0.45, -0.4)),
        ("LeftLeg02", Some(7), v(0.1, 0.25, -0.35)),
        ("LeftFoot", Some(8), v(0.1, 0.02, -0.42)),
        ("RightLeg01", Some(1), v(-0.1, 0.45, -0.4)),
        ("RightLeg02", Some(10), v(-0.1, 0.25, -0.35)),
        ("RightFoot", Some(11), v(-0.1, 0.02, -0.42)),
        ("LeftUpperArm", Some(3), v(0.1, 0.47, 0.35)),
        ("LeftForeArm", Some(13), v(0.1, 0.25, 0.37)),
        ("LeftHand", Some(14), v(0.1, 0.02, 0.38)),
        ("RightUpperArm", Some(3), v(-0.1, 0.47, 0.35)),
        ("RightForeArm", Some(16), v(-0.1, 0.25, 0.37)),
        ("RightHand", Some(17), v(-0.1, 0.02, 0.38)),
    ];
    let input: Vec<SkeletonBone<usize>> = bones
        .iter()
        .enumerate()
        .map(|(i, (name, parent, rest))| SkeletonBone { handle: i, name, parent: *parent, rest: *rest })
        .collect();
    let err = rig_humanoid(&input, None).unwrap_err();
    let text = err.to_string();
    println!("{text}");
    assert!(
        matches!(&err, RigError::FourLegged { carriers } if carriers.contains(&"hips".to_string()) && carriers.contains(&"chest".to_string())),
        "{text}"
    );
    assert!(text.contains("four legs"), "{text}");
}
