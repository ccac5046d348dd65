//! `rig_humanoid` on one synthetic 1.8 m humanoid, named in every supported convention, with
//! arbitrary names, shuffled, scaled, turned Z-up or to face −Z, and without toes. Each case
//! asserts the exact role → bone mapping (left is the character's left), the up and forward
//! directions within 1° and the height within 1 %.

use ik_core::glam::{Quat, Vec3};
use ik_core::rig::{
    ArmBones, ForwardSource, HumanoidRig, LegBones, RigError, RigProfile, RigReport, SkeletonBone, rig_humanoid,
};

/// A canonical bone: key, parent key, rest position.
type Bone = (&'static str, Option<&'static str>, Vec3);

/// Bone keys, parent keys and rest positions (metres, +Y up, facing +Z, left = +X). Arms in
/// T-pose; `a_pose` swings them 45° down about the shoulder.
fn skeleton(a_pose: bool, toes: bool) -> Vec<Bone> {
    let v = Vec3::new;
    let mut out = vec![
        ("root", None, v(0.0, 0.0, 0.0)),
        ("pelvis", Some("root"), v(0.0, 0.95, 0.0)),
        ("spine0", Some("pelvis"), v(0.0, 1.05, 0.0)),
        ("spine1", Some("spine0"), v(0.0, 1.17, 0.0)),
        ("spine2", Some("spine1"), v(0.0, 1.30, 0.0)),
        ("neck", Some("spine2"), v(0.0, 1.50, 0.0)),
        ("head", Some("neck"), v(0.0, 1.60, 0.0)),
        ("head_end", Some("head"), v(0.0, 1.80, 0.0)),
    ];
    for (s, x) in [("l", 1.0f32), ("r", -1.0)] {
        let side = |k: &str| -> &'static str { Box::leak(format!("{k}_{s}").into_boxed_str()) };
        let shoulder = v(0.17 * x, 1.45, 0.0);
        let turn = Quat::from_rotation_z(if a_pose { -x * std::f32::consts::FRAC_PI_4 } else { 0.0 });
        let arm = |d: Vec3| shoulder + turn * v(d.x * x, d.y, d.z);
        out.extend([
            (side("clav"), Some("spine2"), v(0.04 * x, 1.44, 0.02)),
            (side("upper"), Some(side("clav")), arm(v(0.0, 0.0, 0.0))),
            (side("upper_twist"), Some(side("upper")), arm(v(0.14, 0.0, -0.005))),
            (side("lower"), Some(side("upper")), arm(v(0.28, 0.0, -0.01))),
            (side("hand"), Some(side("lower")), arm(v(0.54, 0.0, 0.0))),
            (side("index1"), Some(side("hand")), arm(v(0.625, 0.0, 0.025))),
            (side("index2"), Some(side("index1")), arm(v(0.66, 0.0, 0.025))),
            (side("middle1"), Some(side("hand")), arm(v(0.63, 0.0, 0.0))),
            (side("middle2"), Some(side("middle1")), arm(v(0.67, 0.0, 0.0))),
            (side("thumb1"), Some(side("hand")), arm(v(0.56, -0.01, 0.03))),
            (side("thigh"), Some("pelvis"), v(0.1 * x, 0.93, 0.0)),
            (side("thigh_twist"), Some(side("thigh")), v(0.1 * x, 0.72, 0.007)),
            (side("calf"), Some(side("thigh")), v(0.1 * x, 0.50, 0.015)),
            (side("foot"), Some(side("calf")), v(0.1 * x, 0.08, -0.01)),
        ]);
        if toes {
            out.push((side("ball"), Some(side("foot")), v(0.1 * x, 0.02, 0.13)));
            out.push((side("toe_end"), Some(side("ball")), v(0.1 * x, 0.02, 0.20)));
        }
    }
    out
}

/// A key's stem and whether it is a left bone. Namers return `None` to drop a bone (a
/// convention without that helper).
fn sided(key: &str) -> (&str, bool) {
    key.strip_suffix("_l").map(|k| (k, true)).unwrap_or_else(|| (key.strip_suffix("_r").unwrap_or(key), false))
}

fn unreal(key: &str) -> Option<String> {
    let (k, left) = sided(key);
    let s = if left { "l" } else { "r" };
    Some(match k {
        "root" | "pelvis" | "head" => k.to_string(),
        "spine0" => "spine_01".into(),
        "spine1" => "spine_02".into(),
        "spine2" => "spine_03".into(),
        "neck" => "neck_01".into(),
        "head_end" => return None,
        "clav" => format!("clavicle_{s}"),
        "upper" => format!("upperarm_{s}"),
        "upper_twist" => format!("upperarm_twist_01_{s}"),
        "lower" => format!("lowerarm_{s}"),
        "index1" => format!("index_01_{s}"),
        "index2" => format!("index_02_{s}"),
        "middle1" => format!("middle_01_{s}"),
        "middle2" => format!("middle_02_{s}"),
        "thumb1" => format!("thumb_01_{s}"),
        "thigh_twist" => format!("thigh_twist_01_{s}"),
        "toe_end" => return None,
        other => format!("{other}_{s}"),
    })
}

fn mixamo(key: &str) -> Option<String> {
    let (k, left) = sided(key);
    let s = if left { "Left" } else { "Right" };
    let name = match k {
        "root" => "Armature".into(),
        "pelvis" => "Hips".into(),
        "spine0" => "Spine".into(),
        "spine1" => "Spine1".into(),
        "spine2" => "Spine2".into(),
        "neck" => "Neck".into(),
        "head" => "Head".into(),
        "head_end" => "HeadTop_End".into(),
        "clav" => format!("{s}Shoulder"),
        "upper" => format!("{s}Arm"),
        "upper_twist" => return None,
        "lower" => format!("{s}ForeArm"),
        "hand" => format!("{s}Hand"),
        "index1" => format!("{s}HandIndex1"),
        "index2" => format!("{s}HandIndex2"),
        "middle1" => format!("{s}HandMiddle1"),
        "middle2" => format!("{s}HandMiddle2"),
        "thumb1" => format!("{s}HandThumb1"),
        "thigh" => format!("{s}UpLeg"),
        "thigh_twist" => return None,
        "calf" => format!("{s}Leg"),
        "foot" => format!("{s}Foot"),
        "ball" => format!("{s}ToeBase"),
        "toe_end" => format!("{s}Toe_End"),
        _ => return None,
    };
    Some(format!("mixamorig1:{name}"))
}

/// Blender/Rigify-style stems; `marker` places the side.
fn rigify_with(key: &str, marker: fn(&str, bool) -> String) -> Option<String> {
    let (k, left) = sided(key);
    let stem = match k {
        "root" => return Some("Armature|root".into()),
        "pelvis" => return Some("hips".into()),
        "spine0" => return Some("spine".into()),
        "spine1" => return Some("spine.001".into()),
        "spine2" => return Some("chest".into()),
        "neck" | "head" => return Some(k.into()),
        "head_end" => return Some("head_end".into()),
        "clav" => "shoulder",
        "upper" => "upper_arm",
        "upper_twist" => "upper_arm_twist",
        "lower" => "forearm",
        "index1" => "f_index.01",
        "index2" => "f_index.02",
        "middle1" => "f_middle.01",
        "middle2" => "f_middle.02",
        "thumb1" => "thumb.01",
        "thigh_twist" => "thigh_twist",
        "calf" => "shin",
        "ball" => "toe",
        "toe_end" => "toe_end",
        other => other,
    };
    Some(marker(stem, left))
}

fn asset_pack(key: &str) -> Option<String> {
    let (k, left) = sided(key);
    let s = if left { "L" } else { "R" };
    let name = match k {
        "root" => return Some("Root".into()),
        "pelvis" => return Some("Hips".into()),
        "spine0" => return Some("Spine".into()),
        "spine1" => return Some("Chest".into()),
        "spine2" => return Some("UpperChest".into()),
        "neck" => return Some("Neck".into()),
        "head" => return Some("Head".into()),
        "head_end" => return Some("Head_end".into()),
        "clav" => "Shoulder",
        "upper" => "UpperArm",
        "upper_twist" => return None,
        "lower" => "LowerArm",
        "hand" => "Hand",
        "index1" => "Index_Proximal",
        "index2" => "Index_Intermediate",
        "middle1" => "Middle_Proximal",
        "middle2" => "Middle_Intermediate",
        "thumb1" => "Thumb_Proximal",
        "thigh" => "UpperLeg",
        "thigh_twist" => return None,
        "calf" => "LowerLeg",
        "foot" => "Foot",
        "ball" => "Toes",
        "toe_end" => "Toes_end",
        _ => return None,
    };
    Some(format!("{name}.{s}"))
}

fn vrm(key: &str) -> Option<String> {
    let (k, left) = sided(key);
    let s = if left { "left" } else { "right" };
    let name = match k {
        "root" => return Some("Root".into()),
        "pelvis" => return Some("hips".into()),
        "spine0" => return Some("spine".into()),
        "spine1" => return Some("chest".into()),
        "spine2" => return Some("upperChest".into()),
        "neck" | "head" => return Some(k.into()),
        "head_end" => return None,
        "clav" => "Shoulder",
        "upper" => "UpperArm",
        "lower" => "LowerArm",
        "hand" => "Hand",
        "index1" => "IndexProximal",
        "index2" => "IndexIntermediate",
        "middle1" => "MiddleProximal",
        "middle2" => "MiddleIntermediate",
        "thumb1" => "ThumbProximal",
        "thigh" => "UpperLeg",
        "calf" => "LowerLeg",
        "foot" => "Foot",
        "ball" => "Toes",
        _ => return None,
    };
    Some(format!("{s}{name}"))
}

/// How a test case turns the canonical skeleton.
#[derive(Clone, Copy)]
struct Case {
    a_pose: bool,
    toes: bool,
    shuffle: bool,
    scale: f32,
    turn: Quat,
}

const PLAIN: Case = Case { a_pose: false, toes: true, shuffle: false, scale: 1.0, turn: Quat::IDENTITY };

/// The bones as `rig_humanoid` input; handles are the canonical keys' indices.
struct Built {
    keys: Vec<&'static str>,
    names: Vec<String>,
    parents: Vec<Option<usize>>,
    rest: Vec<Vec3>,
    handles: Vec<usize>,
}

fn build(namer: &dyn Fn(&str) -> Option<String>, case: Case) -> Built {
    build_from(skeleton(case.a_pose, case.toes), namer, case)
}

/// [`build`] for any canonical bone list.
fn build_from(canon: Vec<Bone>, namer: &dyn Fn(&str) -> Option<String>, case: Case) -> Built {
    let canon: Vec<_> = canon.into_iter().filter(|(k, _, _)| namer(k).is_some()).collect();
    let keys: Vec<&'static str> = canon.iter().map(|c| c.0).collect();
    let n = canon.len();
    // slot[i]: where canonical bone i goes in the input slice.
    let mut order: Vec<usize> = (0..n).collect();
    if case.shuffle {
        let mut seed = 0x2545_f491u32;
        for i in (1..n).rev() {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            order.swap(i, (seed >> 8) as usize % (i + 1));
        }
    }
    let mut slot = vec![0; n];
    for (pos, &i) in order.iter().enumerate() {
        slot[i] = pos;
    }
    let index_of = |k: &str| keys.iter().position(|x| *x == k);
    let mut built = Built { keys: keys.clone(), names: vec![], parents: vec![], rest: vec![], handles: vec![] };
    for &i in &order {
        let (k, parent, p) = canon[i];
        built.names.push(namer(k).unwrap_or_default());
        built.parents.push(parent.and_then(index_of).map(|pi| slot[pi]));
        built.rest.push(case.turn * (p * case.scale));
        built.handles.push(i);
    }
    built
}

fn bones(b: &Built) -> Vec<SkeletonBone<'_, usize>> {
    (0..b.names.len())
        .map(|i| SkeletonBone { handle: b.handles[i], name: &b.names[i], parent: b.parents[i], rest: b.rest[i] })
        .collect()
}

/// The rig the canonical keys describe, in handles (canonical indices).
fn expected(b: &Built, toes: bool) -> HumanoidRig<usize> {
    let k = |key: &str| b.keys.iter().position(|x| *x == key).unwrap();
    let arm = |s: &str| ArmBones {
        clavicle: Some(k(&format!("clav_{s}"))),
        upper: k(&format!("upper_{s}")),
        lower: k(&format!("lower_{s}")),
        hand: k(&format!("hand_{s}")),
    };
    let leg = |s: &str| LegBones {
        thigh: k(&format!("thigh_{s}")),
        calf: k(&format!("calf_{s}")),
        foot: k(&format!("foot_{s}")),
        ball: toes.then(|| k(&format!("ball_{s}"))),
    };
    HumanoidRig {
        profile: String::new(),
        pelvis: k("pelvis"),
        spine: vec![k("spine0"), k("spine1"), k("spine2")],
        neck: Some(k("neck")),
        head: k("head"),
        arms: [arm("l"), arm("r")],
        legs: [leg("l"), leg("r")],
    }
}

fn angle_deg(a: Vec3, b: Vec3) -> f32 {
    a.angle_between(b).to_degrees()
}

/// Rigs the case and checks mapping, frame and height; returns `found_by`.
fn check(namer: &dyn Fn(&str) -> Option<String>, case: Case) -> String {
    let b = build(namer, case);
    let canon = skeleton(case.a_pose, case.toes);
    let kept: Vec<_> = canon.iter().filter(|c| namer(c.0).is_some()).collect();
    let top = kept.iter().filter(|c| c.0.starts_with("head")).map(|c| c.2.y).fold(f32::MIN, f32::max);
    let bottom = kept.iter().filter(|c| c.2.y > 0.0 && c.2.y < 0.5).map(|c| c.2.y).fold(f32::MAX, f32::min);
    check_built(&b, case, top - bottom, 0.851).0.found_by
}

/// How far a rig's frame is off: up, forward and left in degrees, height as a fraction.
#[derive(Clone, Copy, Debug, Default)]
struct Off {
    up: f32,
    forward: f32,
    left: f32,
    height: f32,
}

impl Off {
    fn max(self, o: Off) -> Off {
        Off {
            up: self.up.max(o.up),
            forward: self.forward.max(o.forward),
            left: self.left.max(o.left),
            height: self.height.max(o.height),
        }
    }
}

/// Rigs built bones and checks the mapping (the canonical keys' roles), up, forward and left
/// within 1°, the height (unscaled `height`, metres) within 1 % and the leg length (`leg`)
/// within 1 cm; returns the report and how far its frame was off.
fn check_built(b: &Built, case: Case, height: f32, leg: f32) -> (RigReport<usize>, Off) {
    let report = rig_humanoid(&bones(b), None).unwrap_or_else(|e| panic!("{e}"));
    let want = HumanoidRig { profile: report.found_by.clone(), ..expected(b, case.toes) };
    assert_eq!(report.rig, want, "mapping:\n{}", report.mapping());
    assert_eq!(report.rig.profile, report.found_by);
    let f = report.frame;
    let height = height * case.scale;
    let off = Off {
        up: angle_deg(f.up, case.turn * Vec3::Y),
        forward: angle_deg(f.forward, case.turn * Vec3::Z),
        left: angle_deg(f.left, case.turn * Vec3::X),
        height: (f.height - height).abs() / height,
    };
    assert!(off.up < 1.0, "up {:?}", f.up);
    assert!(off.forward < 1.0, "forward {:?} from {:?}", f.forward, f.forward_from);
    assert!(off.left < 1.0, "left {:?}", f.left);
    assert!(off.height < 0.01, "height {} vs {height}", f.height);
    assert!((f.leg_length - leg * case.scale).abs() < 0.01 * case.scale, "leg {}", f.leg_length);
    (report, off)
}

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

/// Arbitrary names (`bone_017`), shuffled: only the shape can say which bone is which.
fn arbitrary(key: &str) -> Option<String> {
    let h = key.bytes().fold(7u32, |h, c| h.wrapping_mul(31).wrapping_add(u32::from(c)));
    Some(if key.ends_with("_l") { format!("leg_joint_L_{}", h % 97) } else { format!("bone_{:03}", h % 1000) })
}

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

/// The Mixamo rig turned into an IK-control rig: the left foot hangs from a `FootControl`
/// bone under the root (at the foot's rest position), the right foot from the root itself.
fn control_rig() -> Built {
    let mut b = build(&mixamo, PLAIN);
    let root = b.names.iter().position(|n| n.ends_with("Armature")).unwrap();
    let left = b.names.iter().position(|n| n.ends_with("LeftFoot")).unwrap();
    let right = b.names.iter().position(|n| n.ends_with("RightFoot")).unwrap();
    b.names.push("FootControl".into());
    b.parents.push(Some(root));
    b.rest.push(b.rest[left]);
    b.handles.push(999);
    b.parents[left] = Some(b.names.len() - 1);
    b.parents[right] = Some(root);
    b
}

fn mixamo_map() -> RigProfile {
    RigProfile::from_map(
        "user map",
        [
            ("pelvis", "Hips"),
            ("spine_0", "Spine"),
            ("head", "Head"),
            ("upperarm_l", "LeftArm"),
            ("lowerarm_l", "LeftForeArm"),
            ("hand_l", "LeftHand"),
            ("upperarm_r", "RightArm"),
            ("lowerarm_r", "RightForeArm"),
            ("hand_r", "RightHand"),
            ("thigh_l", "LeftUpLeg"),
            ("calf_l", "LeftLeg"),
            ("foot_l", "LeftFoot"),
            ("ball_l", "LeftToeBase"),
            ("thigh_r", "RightUpLeg"),
            ("calf_r", "RightLeg"),
            ("foot_r", "RightFoot"),
            ("ball_r", "RightToeBase"),
        ],
    )
    .unwrap()
}

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

/// Where the feet hang in an IK-control variant of a skeleton.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Feet {
    /// Under the shins, as usual.
    Shins,
    /// Under the root bone.
    Root,
    /// Under an extra `foot_control` bone at the origin, child of the root (a root itself
    /// when there is no root bone).
    Control,
    /// The left foot under a `foot_control` bone at the foot's rest position, the right one
    /// under the root (or the same control bone without a root).
    ControlAtFoot,
}

/// `canon` with its feet hung as `feet` says, and without the root bone unless `root`.
fn rehang(canon: Vec<Bone>, feet: Feet, root: bool) -> Vec<Bone> {
    let top = if root { Some("root") } else { None };
    let at = |k: &str| canon.iter().find(|c| c.0 == k).map_or(Vec3::ZERO, |c| c.2);
    let control = match feet {
        Feet::Shins | Feet::Root => None,
        Feet::Control => Some(Vec3::ZERO),
        Feet::ControlAtFoot => Some(at("foot_l")),
    };
    let mut out: Vec<Bone> = canon
        .iter()
        .filter(|c| root || c.0 != "root")
        .map(|&(k, parent, p)| {
            let parent = match (k, feet) {
                ("foot_l" | "foot_r", Feet::Root) => top,
                ("foot_l" | "foot_r", Feet::Control) | ("foot_l", Feet::ControlAtFoot) => Some("foot_control"),
                ("foot_r", Feet::ControlAtFoot) => top.or(Some("foot_control")),
                _ => parent,
            };
            (k, parent, p)
        })
        .collect();
    if let Some(p) = control {
        out.push(("foot_control", top, p));
    }
    out
}

/// The synthetic humanoid with arbitrary names, as an IK-control rig.
fn control_variant(feet: Feet, root: bool, unnamed_control: bool, case: Case) -> Built {
    let canon = rehang(skeleton(case.a_pose, case.toes), feet, root);
    let namer = |k: &str| if k == "foot_control" && unnamed_control { Some(String::new()) } else { arbitrary(k) };
    build_from(canon, &namer, case)
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

/// The mannequin of the asset generator (`ik_tool mannequin`), reproduced: 23 bones, no end,
/// twist or finger bones, knees 2 cm forward, the balls on the floor; `raise` lifts the upper
/// arms about the model's Z axis from its 30° A-pose (60° = T-pose, 15° = 45° A-pose).
fn mannequin(raise_deg: f32) -> Vec<Bone> {
    let v = Vec3::new;
    let mut out: Vec<Bone> = vec![
        ("root", None, Vec3::ZERO),
        ("pelvis", Some("root"), v(0.0, 0.96, 0.0)),
        ("spine0", Some("pelvis"), v(0.0, 1.05, -0.005)),
        ("spine1", Some("spine0"), v(0.0, 1.17, -0.01)),
        ("spine2", Some("spine1"), v(0.0, 1.30, -0.005)),
        ("neck", Some("spine2"), v(0.0, 1.49, -0.02)),
        ("head", Some("neck"), v(0.0, 1.60, 0.0)),
    ];
    let angle = 30f32.to_radians();
    let upper_dir = v(angle.sin(), -angle.cos(), -0.06).normalize();
    let fore_dir = v(angle.sin(), -angle.cos(), 0.14).normalize();
    for (s, x) in [("l", 1.0f32), ("r", -1.0)] {
        let side = |k: &str| -> &'static str { Box::leak(format!("{k}_{s}").into_boxed_str()) };
        let mirror = |p: Vec3| v(p.x * x, p.y, p.z);
        let shoulder = v(0.175, 1.445, -0.02);
        let raise = Quat::from_rotation_z(raise_deg.to_radians());
        let elbow = shoulder + raise * upper_dir * 0.285;
        let wrist = elbow + raise * fore_dir * 0.265;
        out.extend([
            (side("clav"), Some("spine2"), mirror(v(0.025, 1.44, 0.015))),
            (side("upper"), Some(side("clav")), mirror(shoulder)),
            (side("lower"), Some(side("upper")), mirror(elbow)),
            (side("hand"), Some(side("lower")), mirror(wrist)),
            (side("thigh"), Some("pelvis"), mirror(v(0.09, 0.915, 0.0))),
            (side("calf"), Some(side("thigh")), mirror(v(0.09, 0.50, 0.02))),
            (side("foot"), Some(side("calf")), mirror(v(0.09, 0.08, -0.01))),
            (side("ball"), Some(side("foot")), mirror(v(0.09, 0.0, 0.125))),
        ]);
    }
    out
}

/// The generator's scrambled names: `bone_NNN` from the bone's index in its skeleton order
/// (23 for the control bone).
fn generator_arbitrary(key: &str) -> Option<String> {
    const ORDER: [&str; 24] = [
        "root",
        "pelvis",
        "spine0",
        "spine1",
        "spine2",
        "neck",
        "head",
        "clav_l",
        "upper_l",
        "lower_l",
        "hand_l",
        "clav_r",
        "upper_r",
        "lower_r",
        "hand_r",
        "thigh_l",
        "calf_l",
        "foot_l",
        "ball_l",
        "thigh_r",
        "calf_r",
        "foot_r",
        "ball_r",
        "foot_control",
    ];
    ORDER.iter().position(|k| *k == key).map(|i| format!("bone_{:03}", (i * 7 + 5) % 24))
}

/// The generator's chain-numbered names (`body_joint_0`, `arm_joint_L_1`, `leg_joint_L_3`, `leg_control`).
fn generator_generic(key: &str) -> Option<String> {
    let (k, left) = sided(key);
    let s = if left { "L" } else { "R" };
    Some(match k {
        "root" => "base".into(),
        "pelvis" => "body_joint_0".into(),
        "spine0" => "body_joint_1".into(),
        "spine1" => "body_joint_2".into(),
        "spine2" => "body_joint_3".into(),
        "neck" => "body_joint_4".into(),
        "head" => "body_joint_5".into(),
        "foot_control" => "leg_control".into(),
        "clav" => format!("arm_joint_{s}_0"),
        "upper" => format!("arm_joint_{s}_1"),
        "lower" => format!("arm_joint_{s}_2"),
        "hand" => format!("arm_joint_{s}_3"),
        "thigh" => format!("leg_joint_{s}_1"),
        "calf" => format!("leg_joint_{s}_2"),
        "foot" => format!("leg_joint_{s}_3"),
        "ball" => format!("leg_joint_{s}_4"),
        _ => return None,
    })
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
