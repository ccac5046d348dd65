//! IK-control rigs: feet hanging from the root or a control bone instead of the shins.

use super::*;

#[test]
fn a_foot_under_a_control_bone_or_the_root_rigs_by_name_and_by_map() {
    let b = control_rig();
    let report = rig_humanoid(&bones(&b), None).unwrap_or_else(|e| panic!("{e}"));
    let want = HumanoidRig { profile: report.found_by.clone(), ..expected(&b, true) };
    assert_eq!(report.rig, want, "mapping:\n{}", report.mapping());
    assert_eq!(report.found_by, "mixamo");
    assert!((report.frame.leg_length - 0.851).abs() < 0.01, "leg {}", report.frame.leg_length);
    // The height reaches the feet under the control bone (not just the knees).
    assert!((report.frame.height - 1.78).abs() < 0.0178, "height {}", report.frame.height);
    // Callers tell the external feet from the hierarchy.
    for leg in report.indices.legs {
        assert_ne!(b.parents[leg.foot], Some(leg.calf));
    }
    let mapped = rig_humanoid(&bones(&b), Some(&mixamo_map())).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mapped.rig.legs, want.legs);
    assert_eq!(mapped.found_by, "user map");
    // Rigify-style names too, shuffled, scaled and Z-up.
    let case = Case { shuffle: true, scale: 0.01, turn: Quat::from_rotation_x(std::f32::consts::FRAC_PI_2), ..PLAIN };
    let mut b = build(&|k| rigify_with(k, |stem, left| format!("{stem}.{}", if left { "L" } else { "R" })), case);
    let root = b.parents.iter().position(Option::is_none).unwrap();
    for foot in b.names.iter().enumerate().filter(|(_, n)| n.starts_with("foot.")).map(|(i, _)| i).collect::<Vec<_>>() {
        b.parents[foot] = Some(root);
    }
    let report = rig_humanoid(&bones(&b), None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.rig, HumanoidRig { profile: report.found_by.clone(), ..expected(&b, true) });
}

#[test]
fn a_foot_far_from_the_shin_end_is_refused_naming_the_bones() {
    let mut b = control_rig();
    let foot = b.names.iter().position(|n| n.ends_with("LeftFoot")).unwrap();
    // The "foot" rests 40 cm above the shin's end, beside the knee: an unrelated bone.
    b.rest[foot] += Vec3::new(0.0, 0.4, 0.0);
    let err = rig_humanoid(&bones(&b), None).unwrap_err();
    let text = err.to_string();
    println!("{text}");
    for part in ["mixamorig1:LeftFoot", "FootControl", "mixamorig1:LeftLeg", "shin's end", "--rig-map FILE"] {
        assert!(text.contains(part), "{part} in: {text}");
    }
    assert!(!text.contains('\n'), "one message: {text}");
    assert!(matches!(err, RigError::FootNotUnderShin { .. }), "{err}");
    let err = rig_humanoid(&bones(&b), Some(&mixamo_map())).unwrap_err();
    assert!(matches!(&err, RigError::FootNotUnderShin { parent: Some(p), .. } if p == "FootControl"), "{err}");
}

#[test]
fn the_shape_alone_finds_feet_under_the_root_or_a_control_bone() {
    let z_up = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let facing_back = Quat::from_rotation_y(std::f32::consts::PI);
    let cases = [
        Case { shuffle: true, ..PLAIN },
        Case { shuffle: true, a_pose: true, ..PLAIN },
        Case { scale: 0.01, ..PLAIN },
        Case { scale: 100.0, a_pose: true, shuffle: true, ..PLAIN },
        Case { turn: z_up, shuffle: true, ..PLAIN },
        Case { turn: facing_back, ..PLAIN },
        Case { turn: z_up * facing_back, scale: 0.01, a_pose: true, shuffle: true, ..PLAIN },
    ];
    let mut worst = Off::default();
    let mut runs = 0;
    for case in cases {
        for (feet, root) in [
            (Feet::Root, true),
            (Feet::Control, true),
            (Feet::Control, false),
            (Feet::ControlAtFoot, true),
            (Feet::ControlAtFoot, false),
        ] {
            for unnamed in [false, true] {
                let b = control_variant(feet, root, unnamed, case);
                let (report, off) = check_built(&b, case, 1.78, 0.851);
                assert_eq!(report.found_by, "topology", "{feet:?} root {root}");
                assert_eq!(report.frame.forward_from, ForwardSource::Toes);
                for leg in report.indices.legs {
                    assert_ne!(b.parents[leg.foot], Some(leg.calf), "external feet stay external");
                }
                worst = worst.max(off);
                runs += 1;
            }
        }
    }
    println!("{runs} IK-control rigs by shape; worst: {worst:?}");
}

#[test]
fn external_feet_work_beside_shin_end_bones_and_ordinary_feet() {
    // Blender-style end bones: each shin keeps a leaf tail bone at the ankle, the foot hangs
    // from the root.
    let mut canon = rehang(skeleton(false, true), Feet::Root, true);
    canon.push(("calf_end_l", Some("calf_l"), Vec3::new(0.1, 0.08, -0.01)));
    canon.push(("calf_end_r", Some("calf_r"), Vec3::new(-0.1, 0.08, -0.01)));
    let case = Case { shuffle: true, ..PLAIN };
    let (report, off) = check_built(&build_from(canon, &arbitrary, case), case, 1.78, 0.851);
    assert_eq!(report.found_by, "topology");
    println!("shin end bones: {off:?}");
    // Only the right foot external: the left leg is an ordinary chain.
    let mut canon = skeleton(true, true);
    for bone in canon.iter_mut().filter(|b| b.0 == "foot_r") {
        bone.1 = Some("root");
    }
    let case = Case { scale: 0.01, turn: Quat::from_rotation_x(std::f32::consts::FRAC_PI_2), ..PLAIN };
    let (report, off) = check_built(&build_from(canon, &arbitrary, case), case, 1.78, 0.851);
    assert_eq!(report.found_by, "topology");
    println!("one external foot: {off:?}");
    // Ordinary feet with a leaf IK target at each ankle under the root stay the shins' feet.
    for toes in [true, false] {
        let mut canon = skeleton(false, toes);
        canon.push(("ik_target_l", Some("root"), Vec3::new(0.1, 0.08, -0.01)));
        canon.push(("ik_target_r", Some("root"), Vec3::new(-0.1, 0.08, -0.01)));
        let case = Case { toes, shuffle: true, ..PLAIN };
        let height = if toes { 1.78 } else { 1.72 };
        let (report, _) = check_built(&build_from(canon, &arbitrary, case), case, height, 0.851);
        assert_eq!(report.found_by, "topology");
    }
}
