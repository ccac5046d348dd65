//! The tokenising name matcher: one synonym table per role instead of one string list per
//! naming convention.
//!
//! **Method.** A name is cut to tokens: the namespace (up to the last `:` or `|`) is dropped,
//! the rest split at separators (`_ . - space`), at camel-case humps and at digit runs, and
//! lower-cased (`mixamorig1:LeftUpLeg` → `left up leg`, `upper_arm.L` → `upper arm l`,
//! `spine_01` → `spine 01`). One side token (`l`, `r`, `left`, `right`, anywhere) is removed and
//! gives the side; leading noise tokens (`def`, `bip01`, `mixamorig`, …) are dropped; trailing
//! digit tokens become an index. The joined rest (the stem: `upleg`, `upperarm`, `spine`) is
//! looked up in the synonym tables — exact stems first (tier 2), then a run of whole tokens
//! inside the stem (tier 1). A name with a token such as `ik`, `ctrl`, `twist`, `end` or a
//! finger word never matches, so `LeftFootIK`, `foot_ctrl` and `LeftHandIndex1` cannot steal
//! a role. Among the candidates of a limb, the chain that fits the hierarchy (thigh above calf
//! above foot) with the best tiers wins.

use super::tree::Tree;
use super::{ArmBones, HumanoidRig, LegBones, Role, Side};

/// A role without its side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Pelvis,
    Spine,
    Neck,
    Head,
    Clavicle,
    UpperArm,
    LowerArm,
    Hand,
    Thigh,
    Calf,
    Foot,
    Ball,
}

impl Kind {
    fn role(self, side: Side) -> Role {
        match self {
            Kind::Pelvis => Role::Pelvis,
            Kind::Spine => Role::Spine(0),
            Kind::Neck => Role::Neck,
            Kind::Head => Role::Head,
            Kind::Clavicle => Role::Clavicle(side),
            Kind::UpperArm => Role::UpperArm(side),
            Kind::LowerArm => Role::LowerArm(side),
            Kind::Hand => Role::Hand(side),
            Kind::Thigh => Role::Thigh(side),
            Kind::Calf => Role::Calf(side),
            Kind::Foot => Role::Foot(side),
            Kind::Ball => Role::Ball(side),
        }
    }
}

const UNSIDED: &[(Kind, &[&str])] = &[
    (Kind::Pelvis, &["pelvis", "hips", "hip"]),
    (Kind::Spine, &["spine", "chest", "upperchest", "torso", "abdomen", "ribcage"]),
    (Kind::Neck, &["neck"]),
    (Kind::Head, &["head"]),
];

const SIDED: &[(Kind, &[&str])] = &[
    (Kind::Clavicle, &["clavicle", "shoulder", "collar", "collarbone", "scapula"]),
    (Kind::UpperArm, &["upperarm", "arm", "uparm", "armupper"]),
    (Kind::LowerArm, &["lowerarm", "forearm", "elbow", "loarm", "lowarm", "armlower"]),
    (Kind::Hand, &["hand", "wrist"]),
    (Kind::Thigh, &["thigh", "upleg", "upperleg", "hip", "femur", "legupper"]),
    (Kind::Calf, &["calf", "shin", "leg", "lowerleg", "knee", "loleg", "lowleg", "leglower"]),
    (Kind::Foot, &["foot", "ankle"]),
    (Kind::Ball, &["ball", "toe", "toes", "toebase"]),
];

/// Tokens that mark a helper, control, end or finger bone: such a name plays no role.
const HELPER: &[&str] = &[
    "ik",
    "fk",
    "ctrl",
    "ctl",
    "control",
    "controller",
    "target",
    "tgt",
    "pole",
    "twist",
    "roll",
    "end",
    "tip",
    "nub",
    "top",
    "null",
    "helper",
    "mch",
    "org",
    "corrective",
    "socket",
    "attach",
    "weapon",
    "prop",
    "index",
    "middle",
    "ring",
    "pinky",
    "little",
    "thumb",
    "finger",
    "fingers",
    "metacarpal",
    "jiggle",
    "dyn",
    "lock",
    "pin",
    "ref",
    "bend",
];

/// Leading tokens that carry no meaning (`DEF-`, `Bip01 `, `mixamorig_`, `CC_Base_`).
const NOISE: &[&str] = &["def", "bip", "bn", "jnt", "mixamorig", "cc", "base", "b", "j"];

/// A bone name cut to tokens (see the module docs).
pub(crate) fn tokens(name: &str) -> Vec<String> {
    let chars: Vec<char> = super::strip_namespace(name).chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(&prev) = i.checked_sub(1).and_then(|j| chars.get(j))
            && !cur.is_empty()
        {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let hump = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next_lower)
                || (prev.is_alphabetic() && c.is_numeric())
                || (prev.is_numeric() && c.is_alphabetic());
            if hump {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A name's side, its remaining tokens (noise and trailing digits removed) and its index.
pub(crate) struct Parsed {
    pub side: Option<Side>,
    pub words: Vec<String>,
    pub index: u32,
}

pub(crate) fn parse(name: &str) -> Parsed {
    let mut words = tokens(name);
    // A side word glued to a lower-case word (`Leftthigh`, `thighleft`) is cut off first.
    if !words.iter().any(|w| side_of(w).is_some()) {
        for side in ["left", "right"] {
            if let Some(rest) = words.first().and_then(|w| w.strip_prefix(side)).map(str::to_string) {
                words[0] = rest;
                words.insert(0, side.into());
                break;
            }
            if let Some(rest) = words.last().and_then(|w| w.strip_suffix(side)).map(str::to_string) {
                let last = words.len() - 1;
                words[last] = rest;
                words.push(side.into());
                break;
            }
        }
        words.retain(|w| !w.is_empty());
    }
    let sides: Vec<usize> = (0..words.len()).filter(|&i| side_of(&words[i]).is_some()).collect();
    let side = match sides.as_slice() {
        [i] => side_of(&words.remove(*i)),
        _ => None,
    };
    let mut lead = 0;
    while lead + 1 < words.len()
        && (NOISE.contains(&words[lead].as_str())
            || (lead > 0 && words[lead].chars().all(|c| c.is_ascii_digit()) && words[lead - 1] == "bip"))
    {
        lead += 1;
    }
    words.drain(..lead);
    let mut index = 0;
    while words.len() > 1 && words.last().is_some_and(|w| w.chars().all(|c| c.is_ascii_digit())) {
        index = words.pop().and_then(|w| w.parse().ok()).unwrap_or(u32::MAX);
    }
    Parsed { side, words, index }
}

fn side_of(token: &str) -> Option<Side> {
    match token {
        "l" | "left" => Some(Side::Left),
        "r" | "right" => Some(Side::Right),
        _ => None,
    }
}

/// Whether a name marks a helper, control, end or finger bone.
pub(crate) fn is_helper(name: &str) -> bool {
    tokens(name).iter().any(|t| HELPER.contains(&t.as_str()))
}

/// The role kind a name plays, its side, its tier (2 exact stem, 1 whole-token run) and index.
pub(crate) fn classify(name: &str) -> Option<(Kind, Option<Side>, u8, u32)> {
    let p = parse(name);
    if p.words.iter().any(|t| HELPER.contains(&t.as_str())) {
        return None;
    }
    let table = if p.side.is_some() { SIDED } else { UNSIDED };
    let stem: String = p.words.concat();
    for (kind, synonyms) in table {
        if synonyms.contains(&stem.as_str()) {
            return Some((*kind, p.side, 2, p.index));
        }
    }
    let mut best: Option<(Kind, usize)> = None;
    for start in 0..p.words.len() {
        let mut run = String::new();
        for w in &p.words[start..] {
            run.push_str(w);
            for (kind, synonyms) in table {
                if synonyms.contains(&run.as_str()) && best.is_none_or(|(_, len)| run.len() > len) {
                    best = Some((*kind, run.len()));
                }
            }
        }
    }
    best.map(|(kind, _)| (kind, p.side, 1, p.index))
}

/// A role kind and side: the key of one candidate list.
type Key = (Kind, Option<Side>);

#[derive(Clone, Copy)]
struct Cand {
    bone: usize,
    tier: u8,
    index: u32,
}

/// Why the names did not give a rig that fits the hierarchy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Issue {
    /// `bone` (playing `role`) is not below `parent` (playing `parent_role`).
    NotBelow { role: Role, bone: usize, parent_role: Role, parent: usize },
}

/// The outcome of a failed name match.
pub(crate) struct NameFailure {
    /// Required roles with no candidate at all.
    pub missing: Vec<Role>,
    /// A limb whose candidates exist but do not chain.
    pub issue: Option<Issue>,
    /// Every bone some role claimed (they are no "candidates" for the missing roles).
    pub claimed: Vec<bool>,
    /// The roles found so far, for the error's candidate search.
    pub found: Vec<(Role, usize)>,
}

/// Matches names to roles; the result fits the hierarchy by construction. Beside the rig, per
/// arm (`[left, right]`), why it was left out (`None`: it was not).
pub(crate) fn match_names(tree: &Tree) -> Result<(HumanoidRig<usize>, [Option<String>; 2]), NameFailure> {
    let mut lists: Vec<(Key, Vec<Cand>)> = Vec::new();
    let mut claimed = vec![false; tree.len()];
    for (bone, name) in tree.names.iter().enumerate() {
        if let Some((kind, side, tier, index)) = classify(name) {
            claimed[bone] = true;
            let key = (kind, side);
            match lists.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(Cand { bone, tier, index }),
                None => lists.push((key, vec![Cand { bone, tier, index }])),
            }
        }
    }
    for (_, v) in &mut lists {
        v.sort_by_key(|c| (std::cmp::Reverse(c.tier), c.index, tree.depth[c.bone]));
        v.truncate(16);
    }
    let get = |kind: Kind, side: Option<Side>| -> &[Cand] {
        lists.iter().find(|(k, _)| *k == (kind, side)).map_or(&[], |(_, v)| v.as_slice())
    };
    let mut missing = Vec::new();
    let mut issue = None;
    let mut found = Vec::new();

    let chains = |kinds: [Kind; 3], side: Side, missing: &mut Vec<Role>, issue: &mut Option<Issue>| {
        let sets = kinds.map(|k| get(k, Some(side)));
        for (k, s) in kinds.iter().zip(&sets) {
            if s.is_empty() {
                missing.push(k.role(side));
            }
        }
        let mut best: Option<((u32, i64), [usize; 3])> = None;
        for a in sets[0] {
            for b in sets[1].iter().filter(|b| tree.is_ancestor(a.bone, b.bone)) {
                for c in sets[2].iter().filter(|c| tree.is_ancestor(b.bone, c.bone)) {
                    let key = (
                        u32::from(a.tier + b.tier + c.tier),
                        -(i64::from(a.index) + i64::from(b.index) + i64::from(c.index)),
                    );
                    if best.is_none_or(|(k, _)| key > k) {
                        best = Some((key, [a.bone, b.bone, c.bone]));
                    }
                }
            }
        }
        if best.is_none() && sets.iter().all(|s| !s.is_empty()) && issue.is_none() {
            let pair = sets[0].iter().find_map(|a| sets[1].iter().find(|b| tree.is_ancestor(a.bone, b.bone)));
            *issue = Some(match pair {
                Some(b) => Issue::NotBelow {
                    role: kinds[2].role(side),
                    bone: sets[2][0].bone,
                    parent_role: kinds[1].role(side),
                    parent: b.bone,
                },
                None => Issue::NotBelow {
                    role: kinds[1].role(side),
                    bone: sets[1][0].bone,
                    parent_role: kinds[0].role(side),
                    parent: sets[0][0].bone,
                },
            });
        }
        best.map(|(_, b)| b)
    };
    let legs =
        [Side::Left, Side::Right].map(|s| chains([Kind::Thigh, Kind::Calf, Kind::Foot], s, &mut missing, &mut issue));
    // An arm that does not chain is left out (with its reason), not a failure: legs are what
    // foot IK needs.
    let arms = [Side::Left, Side::Right].map(|s| {
        let (mut arm_missing, mut arm_issue) = (Vec::new(), None);
        let kinds = [Kind::UpperArm, Kind::LowerArm, Kind::Hand];
        chains(kinds, s, &mut arm_missing, &mut arm_issue).ok_or_else(|| match arm_issue {
            Some(issue) => issue.describe(tree),
            None => {
                let roles: Vec<String> = arm_missing.iter().map(|r| r.key()).collect();
                format!("no bone is named like {}", roles.join(", "))
            }
        })
    });
    for (i, side) in [Side::Left, Side::Right].into_iter().enumerate() {
        if let Some([t, c, f]) = legs[i] {
            found.extend([(Role::Thigh(side), t), (Role::Calf(side), c), (Role::Foot(side), f)]);
        }
        if let Ok([u, l, h]) = arms[i] {
            found.extend([(Role::UpperArm(side), u), (Role::LowerArm(side), l), (Role::Hand(side), h)]);
        }
    }

    let thighs = legs.map(|l| l.map(|[t, _, _]| t));
    let pelvis = match thighs {
        [Some(a), Some(b)] => get(Kind::Pelvis, None)
            .iter()
            .find(|p| tree.is_ancestor(p.bone, a) && tree.is_ancestor(p.bone, b))
            .map(|p| p.bone)
            .or_else(|| tree.lca(a, b).filter(|&p| p != a && p != b)),
        _ => get(Kind::Pelvis, None).first().map(|p| p.bone),
    };
    let Some(pelvis) = pelvis else {
        missing.insert(0, Role::Pelvis);
        return Err(NameFailure { missing, issue, claimed, found });
    };
    found.push((Role::Pelvis, pelvis));
    let heads = get(Kind::Head, None);
    let Some(head) = heads.iter().find(|h| tree.is_ancestor(pelvis, h.bone)).map(|h| h.bone) else {
        missing.insert(0, Role::Head);
        if let (None, Some(h)) = (&issue, heads.first()) {
            issue = Some(Issue::NotBelow { role: Role::Head, bone: h.bone, parent_role: Role::Pelvis, parent: pelvis });
        }
        return Err(NameFailure { missing, issue, claimed, found });
    };
    found.push((Role::Head, head));
    let neck = get(Kind::Neck, None)
        .iter()
        .find(|n| tree.is_ancestor(pelvis, n.bone) && tree.is_ancestor(n.bone, head))
        .map(|n| n.bone);
    let spine = tree.between(pelvis, neck.unwrap_or(head));
    if spine.is_empty() {
        missing.push(Role::Spine(0));
    }
    let ball = |side: Side, foot: usize| {
        get(Kind::Ball, Some(side)).iter().find(|b| tree.is_ancestor(foot, b.bone)).map(|b| b.bone)
    };
    let clavicle = |side: Side, upper: usize| {
        get(Kind::Clavicle, Some(side))
            .iter()
            .find(|c| tree.is_ancestor(c.bone, upper) && tree.is_ancestor(pelvis, c.bone))
            .map(|c| c.bone)
    };
    match legs {
        [Some([t0, c0, f0]), Some([t1, c1, f1])] if missing.is_empty() && issue.is_none() => {
            let leg = |s, [thigh, calf, foot]: [usize; 3]| LegBones { thigh, calf, foot, ball: ball(s, foot) };
            let arm = |s, bones: &Result<[usize; 3], String>| {
                bones.as_ref().ok().map(|&[upper, lower, hand]| ArmBones {
                    clavicle: clavicle(s, upper),
                    upper,
                    lower,
                    hand,
                })
            };
            let rig = HumanoidRig {
                profile: "names".into(),
                pelvis,
                spine,
                neck,
                head,
                arms: [arm(Side::Left, &arms[0]), arm(Side::Right, &arms[1])],
                legs: [leg(Side::Left, [t0, c0, f0]), leg(Side::Right, [t1, c1, f1])],
            };
            Ok((rig, arms.map(Result::err)))
        }
        _ => Err(NameFailure { missing, issue, claimed, found }),
    }
}

impl Issue {
    /// The issue in words, naming both bones: `hand_l = HandL is not below lowerarm_l = LowerArmL`.
    pub(crate) fn describe(&self, tree: &Tree) -> String {
        let Issue::NotBelow { role, bone, parent_role, parent } = *self;
        format!("{} = {} is not below {} = {}", role.key(), tree.names[bone], parent_role.key(), tree.names[parent])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_at_separators_humps_and_digits() {
        assert_eq!(tokens("mixamorig1:LeftUpLeg"), ["left", "up", "leg"]);
        assert_eq!(tokens("upper_arm.L"), ["upper", "arm", "l"]);
        assert_eq!(tokens("Armature|spine_01"), ["spine", "01"]);
        assert_eq!(tokens("LFoot"), ["l", "foot"]);
        assert_eq!(tokens("Spine1"), ["spine", "1"]);
    }

    #[test]
    fn every_convention_classifies() {
        let cases: [(&str, Kind, Option<Side>); 12] = [
            ("thigh_l", Kind::Thigh, Some(Side::Left)),
            ("mixamorig:RightUpLeg", Kind::Thigh, Some(Side::Right)),
            ("LeftLeg", Kind::Calf, Some(Side::Left)),
            ("shin.R", Kind::Calf, Some(Side::Right)),
            ("L_Thigh", Kind::Thigh, Some(Side::Left)),
            ("leftUpperLeg", Kind::Thigh, Some(Side::Left)),
            ("LowerArm-L", Kind::LowerArm, Some(Side::Left)),
            ("HandRight", Kind::Hand, Some(Side::Right)),
            ("DEF-upper_arm.L", Kind::UpperArm, Some(Side::Left)),
            ("Bip01 L Foot", Kind::Foot, Some(Side::Left)),
            ("upperChest", Kind::Spine, None),
            ("spine.002", Kind::Spine, None),
        ];
        for (name, kind, side) in cases {
            let got = classify(name).map(|(k, s, _, _)| (k, s));
            assert_eq!(got, Some((kind, side)), "{name}");
        }
    }

    #[test]
    fn helpers_fingers_and_ends_play_no_role() {
        for name in ["LeftFootIK", "foot_ctrl_l", "LeftHandIndex1", "HeadTop_End", "upperarm_twist_01_l", "ik_foot_l"] {
            assert_eq!(classify(name), None, "{name}");
        }
    }
}
