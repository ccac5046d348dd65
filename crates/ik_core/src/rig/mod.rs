//! Humanoid rigs: which bone plays which role (pelvis, spine, legs, arms, head), found from
//! the bone names of any common convention, from the skeleton's shape alone, or from a user map.
//!
//! **Entry point.** [`rig_humanoid`] takes every bone (handle, name, parent index, rest position
//! in model space) and an optional user map, and returns a [`RigReport`]: the [`HumanoidRig`],
//! how it was found, the character's [`RigFrame`] (up, forward, left, height, leg length) and a
//! printable `role = bone` mapping — or one [`RigError`] message that names the missing roles,
//! the bones that could play them, and how to write a map.
//!
//! **Name conventions** (case-insensitive, any namespace prefix such as `mixamorig:`,
//! `mixamorig1:` or `Armature|`): Unreal (`pelvis`, `spine_01`, `thigh_l`, `calf_l`, …), Mixamo
//! (`Hips`, `LeftUpLeg`, `LeftLeg`, `LeftToeBase`, …), Blender/Rigify (`thigh.L`, `shin.L`,
//! `upper_arm.L`, `spine.001`, with side markers `.L`, `_L`, `.l`, `-L`, `L_`, `Left…`/`…Left`),
//! asset-pack (`UpperLeg.L`, `LowerArm.L`, `UpperChest`, …) and VRM (`leftUpperLeg`,
//! `upperChest`, …). See the tokenising matcher's notes in `names.rs` for the method: side
//! marker and namespace removed, then one synonym table per role; exact stems before partial
//! ones; helper, control, twist, end and finger bones never match; chains must fit the
//! hierarchy.
//!
//! **Shape fallback** (see `topology.rs`): with no usable names, the pelvis is the bone from
//! which two equal chains hang to the lowest bones while a third rises; the head tops the
//! rising chain; the arms are its two opposite sideways branches. Every threshold is relative to
//! the skeleton's size; up, forward and sides come from the rest pose.
//!
//! **Creatures** (see `creature.rs`): [`rig_creature`] takes the same bones and finds the legs
//! of any creature by shape alone — chains descending from the body to the lowest bones,
//! paired left/right and ordered front to back — with the body, its frame, the spine, head and
//! tail. A biped is a creature of one pair.
//!
//! **Lower-level API** (kept for existing callers): a [`RigProfile`] lists, per [`Role`], exact
//! bone names; [`match_profile`] and [`detect`] match profiles against `(handle, name)` pairs.

use core::fmt;

pub use bones::{ArmBones, HumanoidRig, LegBones};

mod bones;
mod creature;
mod creature_frame;
mod creature_legs;
#[cfg(test)]
mod creature_tests;
mod error;
mod frame;
mod hock;
mod legs;
mod map;
mod names;
mod report;
mod topology;
mod tree;

pub use creature::{CreatureForward, CreatureFrame, CreatureLeg, CreatureReport, CreatureRig, rig_creature};
pub use error::{MAP_HINT, MapMiss, RigError};
pub use frame::{ForwardSource, RigFrame};
pub use map::{MapSyntaxError, parse_map};
pub use report::{DroppedArm, RigReport, SkeletonBone, rig_humanoid};

/// Body side of a paired role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The character's left (+X for a character facing +Z).
    Left,
    /// The character's right.
    Right,
}

/// A role a bone can play in a humanoid rig.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The hips bone that carries the upper body and the legs.
    Pelvis,
    /// The n-th spine bone above the pelvis (0 = lowest).
    Spine(u8),
    /// The neck.
    Neck,
    /// The head.
    Head,
    /// Shoulder blade / clavicle (optional).
    Clavicle(Side),
    /// Upper arm.
    UpperArm(Side),
    /// Forearm.
    LowerArm(Side),
    /// Hand.
    Hand(Side),
    /// Thigh.
    Thigh(Side),
    /// Shin.
    Calf(Side),
    /// Foot (ankle joint).
    Foot(Side),
    /// Ball of the foot / toe base (optional; needed for toe locking and contacts).
    Ball(Side),
}

impl Role {
    /// Whether a rig must have this role to be usable (clavicles, balls and upper spine bones
    /// are optional; at least one spine bone is required).
    pub fn is_required(self) -> bool {
        !matches!(self, Role::Clavicle(_) | Role::Ball(_) | Role::Neck) && !matches!(self, Role::Spine(n) if n > 0)
    }
}

impl Role {
    /// The role's key in a user map: `pelvis`, `spine_0`, `neck`, `head`, `thigh_l`, `calf_r`…
    /// ([`parse_role`] reads it back).
    ///
    /// ```
    /// use ik_core::rig::{Role, Side, parse_role};
    /// assert_eq!(Role::Calf(Side::Right).key(), "calf_r");
    /// assert_eq!(parse_role(&Role::Spine(2).key()), Some(Role::Spine(2)));
    /// ```
    pub fn key(self) -> String {
        let s = |s: Side| if s == Side::Left { "l" } else { "r" };
        match self {
            Role::Pelvis => "pelvis".into(),
            Role::Spine(n) => format!("spine_{n}"),
            Role::Neck => "neck".into(),
            Role::Head => "head".into(),
            Role::Clavicle(x) => format!("clavicle_{}", s(x)),
            Role::UpperArm(x) => format!("upperarm_{}", s(x)),
            Role::LowerArm(x) => format!("lowerarm_{}", s(x)),
            Role::Hand(x) => format!("hand_{}", s(x)),
            Role::Thigh(x) => format!("thigh_{}", s(x)),
            Role::Calf(x) => format!("calf_{}", s(x)),
            Role::Foot(x) => format!("foot_{}", s(x)),
            Role::Ball(x) => format!("ball_{}", s(x)),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |s: &Side| if *s == Side::Left { "left" } else { "right" };
        match self {
            Role::Pelvis => write!(f, "pelvis"),
            Role::Spine(n) => write!(f, "spine {n}"),
            Role::Neck => write!(f, "neck"),
            Role::Head => write!(f, "head"),
            Role::Clavicle(s) => write!(f, "{} clavicle", side(s)),
            Role::UpperArm(s) => write!(f, "{} upper arm", side(s)),
            Role::LowerArm(s) => write!(f, "{} forearm", side(s)),
            Role::Hand(s) => write!(f, "{} hand", side(s)),
            Role::Thigh(s) => write!(f, "{} thigh", side(s)),
            Role::Calf(s) => write!(f, "{} calf", side(s)),
            Role::Foot(s) => write!(f, "{} foot", side(s)),
            Role::Ball(s) => write!(f, "{} ball", side(s)),
        }
    }
}

/// A naming scheme: candidate bone names per role.
#[derive(Clone, Debug, PartialEq)]
pub struct RigProfile {
    /// The scheme's name, for messages.
    pub name: String,
    /// Candidate names per role (any one may match).
    pub roles: Vec<(Role, Vec<String>)>,
}

impl RigProfile {
    /// A profile from `(role, candidate names)` pairs.
    pub fn new(name: &str, roles: &[(Role, &[&str])]) -> Self {
        RigProfile {
            name: name.to_string(),
            roles: roles.iter().map(|(r, names)| (*r, names.iter().map(|n| n.to_string()).collect())).collect(),
        }
    }

    /// Unreal-style names, as on this project's mannequin: `pelvis`, `spine_01`…, `thigh_l`….
    pub fn unreal() -> Self {
        let mut roles: Vec<(Role, Vec<String>)> = vec![
            (Role::Pelvis, vec!["pelvis".into()]),
            (Role::Neck, vec!["neck_01".into(), "neck".into()]),
            (Role::Head, vec!["head".into()]),
        ];
        for n in 0..5u8 {
            roles.push((Role::Spine(n), vec![format!("spine_{:02}", n + 1)]));
        }
        for (side, s) in [(Side::Left, "l"), (Side::Right, "r")] {
            for (role, stem) in [
                (Role::Clavicle(side), "clavicle"),
                (Role::UpperArm(side), "upperarm"),
                (Role::LowerArm(side), "lowerarm"),
                (Role::Hand(side), "hand"),
                (Role::Thigh(side), "thigh"),
                (Role::Calf(side), "calf"),
                (Role::Foot(side), "foot"),
                (Role::Ball(side), "ball"),
            ] {
                roles.push((role, vec![format!("{stem}_{s}")]));
            }
        }
        RigProfile { name: "unreal".into(), roles }
    }

    /// Mixamo names (`mixamorig:Hips`, `mixamorig:LeftUpLeg`…; any namespace prefix).
    pub fn mixamo() -> Self {
        let mut roles: Vec<(Role, Vec<String>)> = vec![
            (Role::Pelvis, vec!["Hips".into()]),
            (Role::Spine(0), vec!["Spine".into()]),
            (Role::Spine(1), vec!["Spine1".into()]),
            (Role::Spine(2), vec!["Spine2".into()]),
            (Role::Neck, vec!["Neck".into()]),
            (Role::Head, vec!["Head".into()]),
        ];
        for (side, s) in [(Side::Left, "Left"), (Side::Right, "Right")] {
            for (role, stem) in [
                (Role::Clavicle(side), "Shoulder"),
                (Role::UpperArm(side), "Arm"),
                (Role::LowerArm(side), "ForeArm"),
                (Role::Hand(side), "Hand"),
                (Role::Thigh(side), "UpLeg"),
                (Role::Calf(side), "Leg"),
                (Role::Foot(side), "Foot"),
                (Role::Ball(side), "ToeBase"),
            ] {
                roles.push((role, vec![format!("{s}{stem}")]));
            }
        }
        RigProfile { name: "mixamo".into(), roles }
    }

    /// A profile from a user map of role names to bone names, e.g. `("thigh_l", "L_Thigh")`.
    /// Role names are those of [`parse_role`]. Unknown role names are returned as errors.
    pub fn from_map<'a>(name: &str, map: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, Vec<String>> {
        let mut roles = Vec::new();
        let mut unknown = Vec::new();
        for (role, bone) in map {
            match parse_role(role) {
                Some(r) => roles.push((r, vec![bone.to_string()])),
                None => unknown.push(role.to_string()),
            }
        }
        if unknown.is_empty() { Ok(RigProfile { name: name.into(), roles }) } else { Err(unknown) }
    }

    /// The built-in profiles, in the order [`detect`] tries them.
    pub fn builtin() -> Vec<RigProfile> {
        vec![RigProfile::unreal(), RigProfile::mixamo()]
    }
}

/// Parses a role name as used in user maps: `pelvis`, `spine_0`…`spine_7`, `neck`, `head`, and
/// `clavicle_l`, `upperarm_l`, `lowerarm_l`, `hand_l`, `thigh_l`, `calf_l`, `foot_l`, `ball_l`
/// (and `_r`).
pub fn parse_role(name: &str) -> Option<Role> {
    let name = name.trim().to_ascii_lowercase();
    match name.as_str() {
        "pelvis" | "hips" => return Some(Role::Pelvis),
        "neck" => return Some(Role::Neck),
        "head" => return Some(Role::Head),
        _ => {}
    }
    if let Some(n) = name.strip_prefix("spine_").and_then(|n| n.parse::<u8>().ok()) {
        return (n < 8).then_some(Role::Spine(n));
    }
    let (stem, side) = name.rsplit_once('_')?;
    let side = match side {
        "l" | "left" => Side::Left,
        "r" | "right" => Side::Right,
        _ => return None,
    };
    Some(match stem {
        "clavicle" | "shoulder" => Role::Clavicle(side),
        "upperarm" => Role::UpperArm(side),
        "lowerarm" | "forearm" => Role::LowerArm(side),
        "hand" => Role::Hand(side),
        "thigh" | "upleg" => Role::Thigh(side),
        "calf" | "shin" => Role::Calf(side),
        "foot" => Role::Foot(side),
        "ball" | "toe" => Role::Ball(side),
        _ => return None,
    })
}

/// A bone name without any namespace prefix (up to the last `:` or `|`).
pub fn strip_namespace(name: &str) -> &str {
    name.rsplit([':', '|']).next().unwrap_or(name)
}

/// No profile matched every required role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RigMatchError {
    /// The profile that came closest.
    pub profile: String,
    /// Required roles it could not find.
    pub missing: Vec<String>,
}

impl fmt::Display for RigMatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no rig profile fits; the closest ({}) is missing: {}", self.profile, self.missing.join(", "))
    }
}

impl std::error::Error for RigMatchError {}

/// Finds the handle of the first bone matching any candidate of `role` in `profile` (names
/// compared ignoring ASCII case and namespace prefixes).
pub fn find_role<T: Copy>(bones: &[(T, &str)], profile: &RigProfile, role: Role) -> Option<T> {
    let candidates = &profile.roles.iter().find(|(r, _)| *r == role)?.1;
    candidates.iter().find_map(|c| {
        bones.iter().find(|(_, name)| strip_namespace(name).eq_ignore_ascii_case(strip_namespace(c))).map(|(h, _)| *h)
    })
}

/// Matches one profile; `Err` lists the required roles it misses.
pub fn match_profile<T: Copy>(bones: &[(T, &str)], profile: &RigProfile) -> Result<HumanoidRig<T>, RigMatchError> {
    let mut missing = Vec::new();
    let mut need = |role: Role| {
        let found = find_role(bones, profile, role);
        if found.is_none() {
            missing.push(role.to_string());
        }
        found
    };
    let pelvis = need(Role::Pelvis);
    let head = need(Role::Head);
    let limbs = [Side::Left, Side::Right].map(|s| {
        (
            need(Role::UpperArm(s)),
            need(Role::LowerArm(s)),
            need(Role::Hand(s)),
            need(Role::Thigh(s)),
            need(Role::Calf(s)),
            need(Role::Foot(s)),
        )
    });
    let spine: Vec<T> = (0..8u8).map_while(|n| find_role(bones, profile, Role::Spine(n))).collect();
    if spine.is_empty() {
        missing.push(Role::Spine(0).to_string());
    }
    if !missing.is_empty() {
        return Err(RigMatchError { profile: profile.name.clone(), missing });
    }
    // Every required role was found above, so the `?`s below never fail.
    let side_bones = |i: usize, s: Side| {
        let (upper, lower, hand, thigh, calf, foot) = limbs[i];
        let arm = ArmBones {
            clavicle: find_role(bones, profile, Role::Clavicle(s)),
            upper: upper?,
            lower: lower?,
            hand: hand?,
        };
        let leg = LegBones { thigh: thigh?, calf: calf?, foot: foot?, ball: find_role(bones, profile, Role::Ball(s)) };
        Some((arm, leg))
    };
    let left = side_bones(0, Side::Left);
    let right = side_bones(1, Side::Right);
    match (pelvis, head, left, right) {
        (Some(pelvis), Some(head), Some((arm_l, leg_l)), Some((arm_r, leg_r))) => Ok(HumanoidRig {
            profile: profile.name.clone(),
            pelvis,
            spine,
            neck: find_role(bones, profile, Role::Neck),
            head,
            arms: [Some(arm_l), Some(arm_r)],
            legs: [leg_l, leg_r],
        }),
        _ => Err(RigMatchError { profile: profile.name.clone(), missing: vec!["(internal) roles".into()] }),
    }
}

/// Tries each profile in order; returns the first that has every required role, or the error
/// of the profile missing the fewest.
pub fn detect<T: Copy>(bones: &[(T, &str)], profiles: &[RigProfile]) -> Result<HumanoidRig<T>, RigMatchError> {
    let mut best: Option<RigMatchError> = None;
    for profile in profiles {
        match match_profile(bones, profile) {
            Ok(rig) => return Ok(rig),
            Err(e) => {
                if best.as_ref().is_none_or(|b| e.missing.len() < b.missing.len()) {
                    best = Some(e);
                }
            }
        }
    }
    Err(best.unwrap_or(RigMatchError { profile: "none".into(), missing: vec!["(no profiles given)".into()] }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNREAL: [&str; 23] = [
        "root",
        "pelvis",
        "spine_01",
        "spine_02",
        "spine_03",
        "neck_01",
        "head",
        "clavicle_l",
        "upperarm_l",
        "lowerarm_l",
        "hand_l",
        "clavicle_r",
        "upperarm_r",
        "lowerarm_r",
        "hand_r",
        "thigh_l",
        "calf_l",
        "foot_l",
        "ball_l",
        "thigh_r",
        "calf_r",
        "foot_r",
        "ball_r",
    ];

    fn indexed<'a>(names: &[&'a str]) -> Vec<(usize, &'a str)> {
        names.iter().copied().enumerate().collect()
    }

    #[test]
    fn the_mannequin_names_match_the_unreal_profile() {
        let rig = detect(&indexed(&UNREAL), &RigProfile::builtin()).unwrap();
        assert_eq!(rig.profile, "unreal");
        assert_eq!((rig.pelvis, rig.spine.clone(), rig.neck, rig.head), (1, vec![2, 3, 4], Some(5), 6));
        assert_eq!(rig.legs[0], LegBones { thigh: 15, calf: 16, foot: 17, ball: Some(18) });
        assert_eq!(rig.arms[1], Some(ArmBones { clavicle: Some(11), upper: 12, lower: 13, hand: 14 }));
    }

    #[test]
    fn mixamo_names_match_with_any_namespace() {
        let names: Vec<String> = [
            "Hips",
            "Spine",
            "Spine1",
            "Spine2",
            "Neck",
            "Head",
            "LeftShoulder",
            "LeftArm",
            "LeftForeArm",
            "LeftHand",
            "RightShoulder",
            "RightArm",
            "RightForeArm",
            "RightHand",
            "LeftUpLeg",
            "LeftLeg",
            "LeftFoot",
            "LeftToeBase",
            "RightUpLeg",
            "RightLeg",
            "RightFoot",
            "RightToeBase",
        ]
        .iter()
        .map(|n| format!("mixamorig1:{n}"))
        .collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let rig = detect(&indexed(&refs), &RigProfile::builtin()).unwrap();
        assert_eq!(rig.profile, "mixamo");
        assert_eq!(rig.legs[1].thigh, 18);
        assert_eq!(rig.spine.len(), 3);
    }

    #[test]
    fn missing_roles_are_named_in_one_error() {
        let names: Vec<&str> = UNREAL.iter().copied().filter(|n| !matches!(*n, "calf_l" | "head")).collect();
        let err = detect(&indexed(&names), &RigProfile::builtin()).unwrap_err();
        assert_eq!(err.profile, "unreal");
        assert_eq!(err.missing, vec!["head".to_string(), "left calf".to_string()]);
        assert!(err.to_string().contains("left calf"));
    }

    #[test]
    fn a_user_map_names_its_own_bones() {
        let map = [
            ("pelvis", "Bip01_Pelvis"),
            ("spine_0", "Bip01_Spine"),
            ("head", "Bip01_Head"),
            ("upperarm_l", "L_UpperArm"),
            ("lowerarm_l", "L_Forearm"),
            ("hand_l", "L_Hand"),
            ("upperarm_r", "R_UpperArm"),
            ("lowerarm_r", "R_Forearm"),
            ("hand_r", "R_Hand"),
            ("thigh_l", "L_Thigh"),
            ("calf_l", "L_Calf"),
            ("foot_l", "L_Foot"),
            ("thigh_r", "R_Thigh"),
            ("calf_r", "R_Calf"),
            ("foot_r", "R_Foot"),
        ];
        let profile = RigProfile::from_map("user", map).unwrap();
        let bones: Vec<&str> = map.iter().map(|(_, b)| *b).collect();
        let rig = match_profile(&indexed(&bones), &profile).unwrap();
        assert_eq!(rig.legs[0].ball, None);
        assert_eq!(RigProfile::from_map("bad", [("tail", "Tail")]).unwrap_err(), vec!["tail".to_string()]);
    }
}
