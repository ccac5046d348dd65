//! [`rig_humanoid`]: the one entry point — a user map, else the name conventions checked
//! against the hierarchy, else the shape-only search — and its [`RigReport`].

use glam::Vec3;

use super::error::{MapMiss, RigError, candidates, closest};
use super::frame::{self, RigFrame};
use super::names::{self, Issue};
use super::tree::Tree;
use super::{ArmBones, HumanoidRig, LegBones, RigProfile, Role, Side, match_profile, topology};

/// One bone of the skeleton to rig.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkeletonBone<'a, T> {
    /// Whatever identifies the bone to the caller (a glTF node index, a Bevy `Entity`).
    pub handle: T,
    /// The bone's name (may be empty; names help but the shape search needs none).
    pub name: &'a str,
    /// The parent, as an index into the same slice (`None` for a root).
    pub parent: Option<usize>,
    /// The rest position in model space (any common frame: Y- or Z-up, any facing, any scale).
    pub rest: Vec3,
}

/// A rig found by [`rig_humanoid`], with how it was found and the character's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct RigReport<T> {
    /// The rig, in the caller's handles. `rig.profile` equals `found_by`.
    pub rig: HumanoidRig<T>,
    /// The same rig as indices into the bone slice.
    pub indices: HumanoidRig<usize>,
    /// How it was found: the map's profile name, `"unreal"`/`"mixamo"` (exact names), `"names"`
    /// (the tokenising matcher) or `"topology"` (shape alone).
    pub found_by: String,
    /// Up, forward, left, height and leg length in the given model space.
    pub frame: RigFrame,
    /// `(role, bone name)` for every role found, pelvis first.
    pub bone_names: Vec<(Role, String)>,
}

impl<T> RigReport<T> {
    /// The mapping as `role = bone` lines, one per role — the syntax of a rig map file, so the
    /// text can be saved, edited and passed back as `--rig-map FILE`.
    ///
    /// ```
    /// # use ik_core::rig::*;
    /// # use ik_core::glam::Vec3;
    /// # fn show(report: &RigReport<usize>) {
    /// println!("rigged by {}:\n{}", report.found_by, report.mapping());
    /// # }
    /// ```
    pub fn mapping(&self) -> String {
        self.bone_names.iter().map(|(r, b)| format!("{} = {b}\n", r.key())).collect()
    }
}

/// Rigs a humanoid skeleton.
///
/// With a user `map` (see [`RigProfile::from_map`]) only the map is used. Otherwise the name
/// conventions are tried (exact Unreal and Mixamo names, then the tokenising matcher for
/// Blender/Rigify, asset-pack and VRM names with any side marker or namespace), each checked
/// against the hierarchy; when names fail, the shape-only search runs on the rest positions.
/// When names find every bone of a leg but its foot is not below its shin (an IK-control
/// rig), that is an error even if the shape search could guess: foot IK needs the foot there.
///
/// ```
/// use ik_core::glam::Vec3;
/// use ik_core::rig::{SkeletonBone, rig_humanoid};
///
/// let bones = [SkeletonBone { handle: 0u32, name: "Hips", parent: None, rest: Vec3::new(0.0, 0.95, 0.0) }];
/// let err = rig_humanoid(&bones, None).unwrap_err();
/// assert!(err.to_string().contains("--rig-map FILE"));
/// ```
pub fn rig_humanoid<T: Copy>(
    bones: &[SkeletonBone<'_, T>],
    map: Option<&RigProfile>,
) -> Result<RigReport<T>, RigError> {
    let tree = Tree::new(
        bones.iter().map(|b| b.parent).collect(),
        bones.iter().map(|b| b.rest).collect(),
        bones.iter().map(|b| b.name.to_string()).collect(),
    )
    .map_err(|reason| RigError::BadSkeleton { reason })?;
    let (rig, found_by, frame) = match map {
        Some(profile) => {
            let rig = from_map(&tree, profile)?;
            let frame = frame::measure(&tree, &rig, true);
            (rig, profile.name.clone(), frame)
        }
        None => auto(&tree)?,
    };
    let h = |i: usize| bones[i].handle;
    let handles = HumanoidRig {
        profile: found_by.clone(),
        pelvis: h(rig.pelvis),
        spine: rig.spine.iter().map(|&i| h(i)).collect(),
        neck: rig.neck.map(h),
        head: h(rig.head),
        arms: rig.arms.map(|a| ArmBones {
            clavicle: a.clavicle.map(h),
            upper: h(a.upper),
            lower: h(a.lower),
            hand: h(a.hand),
        }),
        legs: rig.legs.map(|l| LegBones { thigh: h(l.thigh), calf: h(l.calf), foot: h(l.foot), ball: l.ball.map(h) }),
    };
    let bone_names = roles_of(&rig).into_iter().map(|(r, i)| (r, tree.names[i].clone())).collect();
    let indices = HumanoidRig { profile: found_by.clone(), ..rig };
    Ok(RigReport { rig: handles, indices, found_by, frame, bone_names })
}

/// Every role of a rig with its bone, pelvis first.
fn roles_of(rig: &HumanoidRig<usize>) -> Vec<(Role, usize)> {
    let mut out = vec![(Role::Pelvis, rig.pelvis)];
    out.extend(rig.spine.iter().enumerate().map(|(n, &b)| (Role::Spine(n.min(255) as u8), b)));
    out.extend(rig.neck.map(|b| (Role::Neck, b)));
    out.push((Role::Head, rig.head));
    for (side, arm) in [Side::Left, Side::Right].into_iter().zip(&rig.arms) {
        out.extend(arm.clavicle.map(|b| (Role::Clavicle(side), b)));
        out.extend([
            (Role::UpperArm(side), arm.upper),
            (Role::LowerArm(side), arm.lower),
            (Role::Hand(side), arm.hand),
        ]);
    }
    for (side, leg) in [Side::Left, Side::Right].into_iter().zip(&rig.legs) {
        out.extend([(Role::Thigh(side), leg.thigh), (Role::Calf(side), leg.calf), (Role::Foot(side), leg.foot)]);
        out.extend(leg.ball.map(|b| (Role::Ball(side), b)));
    }
    out
}

/// The error for a bone that is not below the bone it must hang from.
fn issue_error(tree: &Tree, issue: &Issue) -> RigError {
    let Issue::NotBelow { role, bone, parent_role, parent } = *issue;
    let name = |b: usize| tree.names[b].clone();
    match (role, parent_role) {
        (Role::Foot(side), Role::Calf(_)) => RigError::FootNotUnderShin {
            side,
            foot: name(bone),
            parent: tree.parent[bone].map(name),
            shin: name(parent),
        },
        _ => RigError::WrongHierarchy {
            role: role.key(),
            bone: name(bone),
            parent_role: parent_role.key(),
            parent_bone: name(parent),
        },
    }
}

/// Checks that each bone of a rig hangs below the one before it.
fn validate(tree: &Tree, rig: &HumanoidRig<usize>) -> Result<(), Issue> {
    let below = |role: Role, bone: usize, parent_role: Role, parent: usize| {
        if tree.is_ancestor(parent, bone) { Ok(()) } else { Err(Issue::NotBelow { role, bone, parent_role, parent }) }
    };
    let mut prev = (Role::Pelvis, rig.pelvis);
    for (n, &s) in rig.spine.iter().enumerate() {
        let role = Role::Spine(n.min(255) as u8);
        below(role, s, prev.0, prev.1)?;
        prev = (role, s);
    }
    if let Some(neck) = rig.neck {
        below(Role::Neck, neck, prev.0, prev.1)?;
        prev = (Role::Neck, neck);
    }
    below(Role::Head, rig.head, prev.0, prev.1)?;
    for (side, leg) in [Side::Left, Side::Right].into_iter().zip(&rig.legs) {
        below(Role::Thigh(side), leg.thigh, Role::Pelvis, rig.pelvis)?;
        below(Role::Calf(side), leg.calf, Role::Thigh(side), leg.thigh)?;
        below(Role::Foot(side), leg.foot, Role::Calf(side), leg.calf)?;
        if let Some(ball) = leg.ball {
            below(Role::Ball(side), ball, Role::Foot(side), leg.foot)?;
        }
    }
    for (side, arm) in [Side::Left, Side::Right].into_iter().zip(&rig.arms) {
        let top = match arm.clavicle {
            Some(c) => {
                below(Role::UpperArm(side), arm.upper, Role::Clavicle(side), c)?;
                (Role::Clavicle(side), c)
            }
            None => (Role::UpperArm(side), arm.upper),
        };
        below(top.0, top.1, Role::Pelvis, rig.pelvis)?;
        below(Role::LowerArm(side), arm.lower, Role::UpperArm(side), arm.upper)?;
        below(Role::Hand(side), arm.hand, Role::LowerArm(side), arm.lower)?;
    }
    Ok(())
}

/// The rig a user map names, checked against the bones and the hierarchy.
fn from_map(tree: &Tree, profile: &RigProfile) -> Result<HumanoidRig<usize>, RigError> {
    let key = |s: &str| super::strip_namespace(s).to_lowercase();
    let mut misses = Vec::new();
    let mut found: Vec<(Role, usize)> = Vec::new();
    for (role, wanted) in &profile.roles {
        let hit = wanted.iter().find_map(|w| tree.names.iter().position(|n| key(n) == key(w)));
        match (hit, wanted.first()) {
            (Some(b), _) => found.push((*role, b)),
            (None, Some(w)) => misses.push(MapMiss { role: role.key(), bone: w.clone(), closest: closest(tree, w) }),
            (None, None) => {}
        }
    }
    if !misses.is_empty() {
        return Err(RigError::MapBoneMissing { misses });
    }
    let get = |role: Role| found.iter().find(|(r, _)| *r == role).map(|(_, b)| *b);
    let mut required = vec![Role::Pelvis, Role::Spine(0), Role::Head];
    for s in [Side::Left, Side::Right] {
        required.extend([
            Role::UpperArm(s),
            Role::LowerArm(s),
            Role::Hand(s),
            Role::Thigh(s),
            Role::Calf(s),
            Role::Foot(s),
        ]);
    }
    let missing: Vec<Role> = required.into_iter().filter(|r| get(*r).is_none()).collect();
    if !missing.is_empty() {
        let mut claimed = vec![false; tree.len()];
        for (_, b) in &found {
            claimed[*b] = true;
        }
        return Err(RigError::MissingRoles {
            tried: "the map".into(),
            missing: missing.iter().map(|r| r.key()).collect(),
            candidates: candidates(tree, &missing, &found, &claimed),
            shape: None,
        });
    }
    let need = |role: Role| get(role).unwrap_or(0);
    let arm = |s| ArmBones {
        clavicle: get(Role::Clavicle(s)),
        upper: need(Role::UpperArm(s)),
        lower: need(Role::LowerArm(s)),
        hand: need(Role::Hand(s)),
    };
    let leg = |s| LegBones {
        thigh: need(Role::Thigh(s)),
        calf: need(Role::Calf(s)),
        foot: need(Role::Foot(s)),
        ball: get(Role::Ball(s)),
    };
    let rig = HumanoidRig {
        profile: profile.name.clone(),
        pelvis: need(Role::Pelvis),
        spine: (0..8u8).map_while(|n| get(Role::Spine(n))).collect(),
        neck: get(Role::Neck),
        head: need(Role::Head),
        arms: [arm(Side::Left), arm(Side::Right)],
        legs: [leg(Side::Left), leg(Side::Right)],
    };
    validate(tree, &rig).map_err(|issue| issue_error(tree, &issue))?;
    Ok(rig)
}

/// Names, then shape.
fn auto(tree: &Tree) -> Result<(HumanoidRig<usize>, String, RigFrame), RigError> {
    let failure = match names::match_names(tree) {
        Ok(rig) => match validate(tree, &rig) {
            Ok(()) => {
                let label = exact_profile(tree, &rig).unwrap_or_else(|| "names".into());
                let frame = frame::measure(tree, &rig, true);
                return Ok((rig, label, frame));
            }
            Err(issue) => {
                names::NameFailure { missing: Vec::new(), issue: Some(issue), claimed: Vec::new(), found: Vec::new() }
            }
        },
        Err(f) => f,
    };
    if let Some(issue @ Issue::NotBelow { role: Role::Foot(_), parent_role: Role::Calf(_), .. }) = &failure.issue {
        return Err(issue_error(tree, issue));
    }
    match topology::find(tree) {
        Ok((rig, frame)) => Ok((rig, "topology".into(), frame)),
        Err(shape) => {
            if failure.missing.is_empty()
                && let Some(issue) = &failure.issue
            {
                return Err(issue_error(tree, issue));
            }
            let claimed = if failure.claimed.len() == tree.len() { failure.claimed } else { vec![false; tree.len()] };
            Err(RigError::MissingRoles {
                tried: "the bone names".into(),
                missing: failure.missing.iter().map(|r| r.key()).collect(),
                candidates: candidates(tree, &failure.missing, &failure.found, &claimed),
                shape: Some(shape),
            })
        }
    }
}

/// The built-in exact-name profile that gives the same limbs, if any.
fn exact_profile(tree: &Tree, rig: &HumanoidRig<usize>) -> Option<String> {
    let pairs: Vec<(usize, &str)> = tree.names.iter().map(String::as_str).enumerate().collect();
    RigProfile::builtin().into_iter().find_map(|p| {
        let m = match_profile(&pairs, &p).ok()?;
        (m.pelvis == rig.pelvis && m.head == rig.head && m.legs == rig.legs && m.arms == rig.arms).then_some(p.name)
    })
}
