//! The printed mapping, user maps, and the messages for what cannot be rigged.

use super::*;

#[test]
fn the_mapping_prints_one_role_per_line_in_map_syntax() {
    let b = build(&unreal, PLAIN);
    let report = rig_humanoid(&bones(&b), None).unwrap();
    let text = report.mapping();
    assert!(text.starts_with("pelvis = pelvis\nspine_0 = spine_01\n"), "{text}");
    assert!(text.contains("thigh_l = thigh_l\n") && text.contains("ball_r = ball_r\n"));
    assert_eq!(text.lines().count(), report.bone_names.len());
    // The printed mapping is itself a valid map.
    let pairs: Vec<(String, String)> =
        text.lines().map(|l| l.split_once(" = ").map(|(r, b)| (r.to_string(), b.to_string())).unwrap()).collect();
    let map = RigProfile::from_map("printed", pairs.iter().map(|(r, b)| (r.as_str(), b.as_str()))).unwrap();
    let again = rig_humanoid(&bones(&b), Some(&map)).unwrap();
    assert_eq!(again.indices.legs, report.indices.legs);
    assert_eq!(again.found_by, "printed");
}

#[test]
fn missing_roles_are_named_with_candidates_and_the_map_hint() {
    // The right leg ends at the knee; a stray bone hangs there instead of a foot.
    let mut b = build(&unreal, PLAIN);
    let cut: Vec<usize> =
        ["foot_r", "ball_r", "thigh_twist_01_r"].iter().map(|n| b.names.iter().position(|x| x == n).unwrap()).collect();
    let calf = b.names.iter().position(|x| x == "calf_r").unwrap();
    let foot = cut[0];
    b.names[foot] = "Bone.007".into();
    b.rest[foot] = b.rest[calf] + Vec3::new(0.0, -0.02, 0.05);
    for &i in &cut[1..] {
        b.names[i] = format!("stray_{i}");
        b.parents[i] = None;
        b.rest[i] = Vec3::new(3.0, 0.5, 0.0);
    }
    let err = rig_humanoid(&bones(&b), None).unwrap_err();
    let RigError::MissingRoles { missing, candidates, .. } = &err else { panic!("{err}") };
    assert_eq!(missing, &["foot_r".to_string()]);
    assert_eq!(candidates.first().map(String::as_str), Some("Bone.007"));
    let text = err.to_string();
    assert!(!text.contains('\n'), "one message: {text}");
    for part in ["foot_r", "Bone.007", "`role = bone`", "--rig-map FILE", "RigChoice::Map", "thigh_l", "ball_l"] {
        assert!(text.contains(part), "{part} in: {text}");
    }
}

#[test]
fn a_typo_in_the_map_names_the_closest_bone() {
    let b = build(&mixamo, PLAIN);
    let map = RigProfile::from_map(
        "user map",
        [("pelvis", "Hips"), ("spine_0", "Spine"), ("head", "Head"), ("thigh_l", "LeftUpLg"), ("calf_l", "LeftLeg")],
    )
    .unwrap();
    let err = rig_humanoid(&bones(&b), Some(&map)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("the map says thigh_l = LeftUpLg, but no bone has that name; closest: mixamorig1:LeftUpLeg"),
        "{text}"
    );
    assert!(text.contains("--rig-map FILE"));
    // A map without typos that leaves roles out names them.
    let map = RigProfile::from_map("user map", [("pelvis", "Hips"), ("head", "Head")]).unwrap();
    let err = rig_humanoid(&bones(&b), Some(&map)).unwrap_err();
    let RigError::MissingRoles { missing, .. } = &err else { panic!("{err}") };
    assert!(missing.contains(&"spine_0".to_string()) && missing.contains(&"foot_r".to_string()), "{err}");
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let bone = |name, parent, rest| SkeletonBone { handle: 0u8, name, parent, rest };
    assert!(matches!(rig_humanoid::<u8>(&[], None), Err(RigError::BadSkeleton { .. })));
    let cycle = [bone("a", Some(1), Vec3::ZERO), bone("b", Some(0), Vec3::Y)];
    assert!(rig_humanoid(&cycle, None).unwrap_err().to_string().contains("cycle"));
    let nan = [bone("a", None, Vec3::NAN)];
    assert!(rig_humanoid(&nan, None).unwrap_err().to_string().contains("`a`"));
    let out_of_range = [bone("a", Some(5), Vec3::ZERO)];
    assert!(matches!(rig_humanoid(&out_of_range, None), Err(RigError::BadSkeleton { .. })));
    let one_point = [bone("a", None, Vec3::ZERO), bone("b", Some(0), Vec3::ZERO)];
    assert!(matches!(rig_humanoid(&one_point, None), Err(RigError::MissingRoles { .. })));
    // Random trees and positions: never a panic, and any rig found has a finite frame.
    let mut seed = 12345u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        seed >> 8
    };
    for _ in 0..200 {
        let n = (next() % 40) as usize + 1;
        let names: Vec<String> =
            (0..n).map(|i| ["Hips", "thigh_l", "LeftLeg", "foot.R", "head", "x"][i % 6].to_string()).collect();
        let list: Vec<SkeletonBone<'_, usize>> = (0..n)
            .map(|i| SkeletonBone {
                handle: i,
                name: &names[i],
                parent: (i > 0).then(|| next() as usize % (i + 1)),
                rest: Vec3::new(next() as f32, next() as f32, next() as f32) / 1e5,
            })
            .collect();
        if let Ok(report) = rig_humanoid(&list, None) {
            assert!(report.frame.up.is_finite() && report.frame.height.is_finite());
        }
    }
}
