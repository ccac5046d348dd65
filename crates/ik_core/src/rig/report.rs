//! [`rig_humanoid`]: the one entry point — a user map, else the name conventions checked
//! against the hierarchy, else the shape-only search — and its [`RigReport`].

use glam::Vec3;

use super::error::{MapMiss, RigError, candidates, closest};
use super::frame::{self, RigFrame};
use super::names::{self, Issue};
use super::tree::Tree;
use super::{ArmBones, HumanoidRig, LegBones, RigProfile, Role, Side, match_profile, topology};
use super::{hock, legs};

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
    /// The arms the rig leaves out (`rig.arms[side]` is `None`), each with why. The legs, the
    /// pelvis and the look-at work without them; a caller warns once per entry.
    pub dropped: Vec<DroppedArm>,
}

/// An arm [`rig_humanoid`] left out of a rig it could otherwise use: the hand hangs outside
/// the arm (a mesh node under the scene root), a bone is missing, or a map names none.
/// `Display` is one warning naming the bones and the remedy.
///
/// ```
/// use ik_core::rig::{DroppedArm, Side};
/// let d = DroppedArm { side: Side::Left, reason: "hand_l = HandL is not below lowerarm_l = LowerArmL".into() };
/// assert!(d.to_string().starts_with("left arm left out: hand_l = HandL"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedArm {
    /// Which arm.
    pub side: Side,
    /// Why, naming the bones.
    pub reason: String,
}

impl core::fmt::Display for DroppedArm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let side = if self.side == Side::Left { "left" } else { "right" };
        write!(
            f,
            "{side} arm left out: {}; the legs and the look-at are rigged, reaching with this arm stays off \
             (to use it, name its bones in a rig map: --rig-map FILE or RigChoice::Map)",
            self.reason
        )
    }
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
/// A foot that is not below its shin (an IK-control rig: the foot hangs from the root or from a
/// control bone, and the animation keys the shin so that its end meets the foot) is accepted
/// when its rest position is at the shin's end: within 10 % of the leg length of the shin's end
/// bone, or, without one, within 25 % of twice the thigh of the point one thigh length past the
/// knee along the thigh. Callers tell such an *external foot* from the hierarchy (foot placement moves it with the shin).
/// An arm that cannot be used (its hand not below its forearm, a bone missing) is left out and
/// listed in [`RigReport::dropped`]; the pelvis, spine, head and both legs are required. When names find
/// every bone of a leg but its foot is neither below its shin nor at its end, that is an error
/// ([`RigError::FootNotUnderShin`], naming the bones) even if the shape search could guess.
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
    let Found { rig, found_by, frame, dropped } = match map {
        Some(profile) => {
            let (rig, dropped) = from_map(&tree, profile)?;
            let frame = frame::measure(&tree, &rig, true);
            Found { rig, found_by: profile.name.clone(), frame, dropped }
        }
        None => {
            let mut found = auto(&tree)?;
            if hock::lower_hocks(&tree, &mut found.rig, found.frame.up) {
                found.frame = frame::measure(&tree, &found.rig, true);
            }
            found
        }
    };
    if let Some(shoulders) = topology::four_legged(&tree, &rig) {
        return Err(RigError::FourLegged { carriers: [rig.pelvis, shoulders].map(|i| tree.names[i].clone()) });
    }
    let h = |i: usize| bones[i].handle;
    let handles = HumanoidRig {
        profile: found_by.clone(),
        pelvis: h(rig.pelvis),
        spine: rig.spine.iter().map(|&i| h(i)).collect(),
        neck: rig.neck.map(h),
        head: h(rig.head),
        arms: rig.arms.map(|arm| {
            arm.map(|a| ArmBones { clavicle: a.clavicle.map(h), upper: h(a.upper), lower: h(a.lower), hand: h(a.hand) })
        }),
        legs: rig.legs.map(|l| LegBones { thigh: h(l.thigh), calf: h(l.calf), foot: h(l.foot), ball: l.ball.map(h) }),
    };
    let bone_names = roles_of(&rig).into_iter().map(|(r, i)| (r, tree.names[i].clone())).collect();
    let indices = HumanoidRig { profile: found_by.clone(), ..rig };
    Ok(RigReport { rig: handles, indices, found_by, frame, bone_names, dropped })
}

/// A rig as found, before it is put in the caller's handles.
struct Found {
    rig: HumanoidRig<usize>,
    found_by: String,
    frame: RigFrame,
    dropped: Vec<DroppedArm>,
}

/// Every role of a rig with its bone, pelvis first.
fn roles_of(rig: &HumanoidRig<usize>) -> Vec<(Role, usize)> {
    let mut out = vec![(Role::Pelvis, rig.pelvis)];
    out.extend(rig.spine.iter().enumerate().map(|(n, &b)| (Role::Spine(n.min(255) as u8), b)));
    out.extend(rig.neck.map(|b| (Role::Neck, b)));
    out.push((Role::Head, rig.head));
    for (side, arm) in [Side::Left, Side::Right].into_iter().zip(&rig.arms) {
        let Some(arm) = arm else { continue };
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

/// How far (as a fraction of the leg's length) an external foot's rest position may be from
/// the shin's end when the shin has an end bone (a leaf child past three quarters of the
/// thigh's length from the knee, as exporters add for bone tails).
const END_BONE_TOLERANCE: f32 = 0.1;
/// Without an end bone the shin's end is estimated as the thigh continued by its own length
/// past the knee; how far (fraction of that estimated leg length, thigh + thigh) the foot may be
/// from it: covers shins from 0.5 to 1.5 thighs and rest poses with the knee bent up to ~25°.
const ESTIMATE_TOLERANCE: f32 = 0.25;

/// Whether a foot that is not below its shin is an *external foot* of an IK-control rig: its
/// rest position at the shin's end. The end is the shin's end bone if it has one (a leaf child
/// of the shin at least 0.75 thigh lengths from the knee), within 10 % of the leg length;
/// otherwise the point one thigh length past the knee along the thigh, within 25 % of twice
/// the thigh. `Err` says, in words, how far it is.
pub(crate) fn external_foot_fit(tree: &Tree, thigh: usize, calf: usize, foot: usize) -> Result<(), String> {
    let (hip, knee, at) = (tree.pos[thigh], tree.pos[calf], tree.pos[foot]);
    let t = hip.distance(knee);
    if t.is_nan() || t <= 0.0 || tree.is_ancestor(foot, calf) || foot == calf || foot == thigh {
        return Err("the thigh has no length or the foot is above the shin".into());
    }
    let end_bone = tree.children[calf]
        .iter()
        .copied()
        .filter(|&c| c != foot && tree.children[c].is_empty() && tree.seg(calf, c) >= 0.75 * t)
        .max_by(|&a, &b| tree.seg(calf, a).total_cmp(&tree.seg(calf, b)));
    let (end, tolerance, what) = match end_bone {
        Some(e) => {
            let end = tree.pos[e];
            (end, END_BONE_TOLERANCE * (t + knee.distance(end)), format!("the shin's end bone {}", tree.names[e]))
        }
        None => {
            let end = knee + (knee - hip);
            (end, ESTIMATE_TOLERANCE * 2.0 * t, "the shin's end (the thigh continued by its length)".to_string())
        }
    };
    let gap = at.distance(end);
    if gap <= tolerance {
        Ok(())
    } else {
        Err(format!("its rest position is {gap:.3} from {what}, more than the {tolerance:.3} allowed"))
    }
}

/// The thigh above a shin: its nearest ancestor named like a thigh, else its parent.
fn thigh_above(tree: &Tree, calf: usize) -> Option<usize> {
    let mut cur = tree.parent[calf];
    while let Some(b) = cur {
        if names::classify(&tree.names[b]).is_some_and(|(kind, ..)| kind == names::Kind::Thigh) {
            return Some(b);
        }
        cur = tree.parent[b];
    }
    tree.parent[calf]
}

/// The name matcher found a leg whose foot is not below its shin: match the names again as if
/// each such foot hung from its shin, then check the rig against the real hierarchy, which
/// accepts a foot at the shin's end ([`external_foot_fit`]). `Err`: the foot issue to report.
fn with_external_feet(tree: &Tree, first: &Issue) -> Result<Found, Issue> {
    let mut parents = tree.parent.clone();
    let mut issue = first.clone();
    for _ in 0..2 {
        let Issue::NotBelow { role: Role::Foot(_), bone: foot, parent_role: Role::Calf(_), parent: calf } = issue
        else {
            return Err(issue);
        };
        parents[foot] = Some(calf);
        let Ok(attached) = Tree::new(parents.clone(), tree.pos.clone(), tree.names.clone()) else {
            return Err(issue);
        };
        match names::match_names(&attached) {
            Ok((rig, arm_reasons)) => return named(tree, rig, arm_reasons),
            Err(failure) => match failure.issue {
                Some(next) if failure.missing.is_empty() => issue = next,
                _ => return Err(issue),
            },
        }
    }
    Err(issue)
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
            reason: match thigh_above(tree, parent) {
                Some(thigh) => external_foot_fit(tree, thigh, parent, bone).err().unwrap_or_default(),
                None => "the shin has no thigh above it".into(),
            },
        },
        _ => RigError::WrongHierarchy {
            role: role.key(),
            bone: name(bone),
            parent_role: parent_role.key(),
            parent_bone: name(parent),
        },
    }
}

/// A rig found by names, checked against the real hierarchy: arms that do not chain are left
/// out with their reasons (`arm_reasons`: why names left an arm out already).
fn named(tree: &Tree, mut rig: HumanoidRig<usize>, arm_reasons: [Option<String>; 2]) -> Result<Found, Issue> {
    let mut dropped = validate(tree, &mut rig)?;
    for (side, reason) in [Side::Left, Side::Right].into_iter().zip(arm_reasons) {
        dropped.extend(reason.map(|reason| DroppedArm { side, reason }));
    }
    let found_by = exact_profile(tree, &rig).unwrap_or_else(|| "names".into());
    let frame = frame::measure(tree, &rig, true);
    Ok(Found { rig, found_by, frame, dropped })
}

/// Checks that each bone of a rig hangs below the one before it. An arm that does not is
/// left out (`None`) and returned with its reason; any other bone out of place is the error.
fn validate(tree: &Tree, rig: &mut HumanoidRig<usize>) -> Result<Vec<DroppedArm>, Issue> {
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
        if !tree.is_ancestor(leg.calf, leg.foot) && external_foot_fit(tree, leg.thigh, leg.calf, leg.foot).is_err() {
            return Err(Issue::NotBelow {
                role: Role::Foot(side),
                bone: leg.foot,
                parent_role: Role::Calf(side),
                parent: leg.calf,
            });
        }
        if let Some(ball) = leg.ball {
            below(Role::Ball(side), ball, Role::Foot(side), leg.foot)?;
        }
    }
    let mut dropped = Vec::new();
    for (side, slot) in [Side::Left, Side::Right].into_iter().zip(&mut rig.arms) {
        let Some(arm) = *slot else { continue };
        let chained = (|| {
            let top = match arm.clavicle {
                Some(c) => {
                    below(Role::UpperArm(side), arm.upper, Role::Clavicle(side), c)?;
                    (Role::Clavicle(side), c)
                }
                None => (Role::UpperArm(side), arm.upper),
            };
            below(top.0, top.1, Role::Pelvis, rig.pelvis)?;
            below(Role::LowerArm(side), arm.lower, Role::UpperArm(side), arm.upper)?;
            below(Role::Hand(side), arm.hand, Role::LowerArm(side), arm.lower)
        })();
        if let Err(issue) = chained {
            *slot = None;
            dropped.push(DroppedArm { side, reason: issue.describe(tree) });
        }
    }
    Ok(dropped)
}

/// The rig a user map names, checked against the bones and the hierarchy.
fn from_map(tree: &Tree, profile: &RigProfile) -> Result<(HumanoidRig<usize>, Vec<DroppedArm>), RigError> {
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
        required.extend([Role::Thigh(s), Role::Calf(s), Role::Foot(s)]);
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
    let mut dropped = Vec::new();
    let mut arm = |side| {
        let bones = [Role::UpperArm(side), Role::LowerArm(side), Role::Hand(side)];
        match bones.map(get) {
            [Some(upper), Some(lower), Some(hand)] => {
                Some(ArmBones { clavicle: get(Role::Clavicle(side)), upper, lower, hand })
            }
            found => {
                let unnamed: Vec<String> =
                    bones.iter().zip(found).filter(|(_, b)| b.is_none()).map(|(r, _)| r.key()).collect();
                dropped.push(DroppedArm { side, reason: format!("the map names no {}", unnamed.join(", ")) });
                None
            }
        }
    };
    let arms = [arm(Side::Left), arm(Side::Right)];
    let leg = |s| LegBones {
        thigh: need(Role::Thigh(s)),
        calf: need(Role::Calf(s)),
        foot: need(Role::Foot(s)),
        ball: get(Role::Ball(s)),
    };
    let mut rig = HumanoidRig {
        profile: profile.name.clone(),
        pelvis: need(Role::Pelvis),
        spine: (0..8u8).map_while(|n| get(Role::Spine(n))).collect(),
        neck: get(Role::Neck),
        head: need(Role::Head),
        arms,
        legs: [leg(Side::Left), leg(Side::Right)],
    };
    dropped.extend(validate(tree, &mut rig).map_err(|issue| issue_error(tree, &issue))?);
    Ok((rig, dropped))
}

/// Names, then shape.
fn auto(tree: &Tree) -> Result<Found, RigError> {
    let failure = match names::match_names(tree) {
        Ok((rig, arm_reasons)) => match named(tree, rig, arm_reasons) {
            Ok(found) => return Ok(found),
            Err(issue) => {
                names::NameFailure { missing: Vec::new(), issue: Some(issue), claimed: Vec::new(), found: Vec::new() }
            }
        },
        Err(f) => f,
    };
    if let Some(issue @ Issue::NotBelow { role: Role::Foot(_), parent_role: Role::Calf(_), .. }) = &failure.issue {
        return with_external_feet(tree, issue).map_err(|issue| issue_error(tree, &issue));
    }
    match topology::find(tree) {
        Ok((rig, frame)) => {
            let dropped = [Side::Left, Side::Right]
                .into_iter()
                .zip(&rig.arms)
                .filter(|(_, arm)| arm.is_none())
                .map(|(side, _)| DroppedArm { side, reason: "the shape search found no arm on this side".into() })
                .collect();
            Ok(Found { rig, found_by: "topology".into(), frame, dropped })
        }
        Err(shape) => {
            if let Some(cause) = legs::unusable_legs(tree) {
                return Err(cause);
            }
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
