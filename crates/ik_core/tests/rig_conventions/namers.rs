//! Namers: a canonical bone key → the bone's name in one convention (`None` drops the bone,
//! a convention without that helper).

use super::skeletons::mannequin_keys;

/// A key's stem and whether it is a left bone. Namers return `None` to drop a bone (a
/// convention without that helper).
pub fn sided(key: &str) -> (&str, bool) {
    key.strip_suffix("_l").map(|k| (k, true)).unwrap_or_else(|| (key.strip_suffix("_r").unwrap_or(key), false))
}

pub fn unreal(key: &str) -> Option<String> {
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

pub fn mixamo(key: &str) -> Option<String> {
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
pub fn rigify_with(key: &str, marker: fn(&str, bool) -> String) -> Option<String> {
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

pub fn asset_pack(key: &str) -> Option<String> {
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

pub fn vrm(key: &str) -> Option<String> {
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

/// Arbitrary names (`bone_017`), shuffled: only the shape can say which bone is which.
pub fn arbitrary(key: &str) -> Option<String> {
    let h = key.bytes().fold(7u32, |h, c| h.wrapping_mul(31).wrapping_add(u32::from(c)));
    Some(if key.ends_with("_l") { format!("leg_joint_L_{}", h % 97) } else { format!("bone_{:03}", h % 1000) })
}

/// The generator's scrambled names: `bone_NNN` from the bone's index in its skeleton order
/// (23 for the control bone).
pub fn generator_arbitrary(key: &str) -> Option<String> {
    mannequin_keys().iter().position(|k| *k == key).map(|i| format!("bone_{:03}", (i * 7 + 5) % 24))
}

/// The generator's chain-numbered names (`body_joint_0`, `arm_joint_L_1`, `leg_joint_L_3`, `leg_control`).
pub fn generator_generic(key: &str) -> Option<String> {
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
