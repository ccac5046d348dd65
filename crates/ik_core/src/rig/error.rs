//! [`RigError`]: why a skeleton could not be rigged, as one message that says what to do.

use core::fmt;

use super::tree::Tree;
use super::{Role, Side, names};

/// How to name the bones by hand; every error that a map can fix ends with it.
pub const MAP_HINT: &str = "To name the bones yourself, write a map file with one `role = bone` line per role \
(roles: pelvis, spine_0, spine_1, ..., neck, head, clavicle_l, upperarm_l, lowerarm_l, hand_l, thigh_l, calf_l, \
foot_l, ball_l, and the same with _r; clavicles, balls, neck and spine_1 up are optional) and pass it as \
`--rig-map FILE` to the demo or ik_tool, or as `RigChoice::Map` in code.";

/// One map line whose bone does not exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapMiss {
    /// The role key of the line (`thigh_l`).
    pub role: String,
    /// The bone name the line gives.
    pub bone: String,
    /// The existing bone name closest to it (edit distance, ignoring case and namespaces).
    pub closest: Option<String>,
}

/// Why [`rig_humanoid`](super::rig_humanoid) found no rig. `Display` is one message naming the
/// bones involved and what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RigError {
    /// The bone list itself is unusable: empty, a parent index out of range, a parent cycle, or
    /// a non-finite rest position.
    BadSkeleton {
        /// What is wrong, naming the bone.
        reason: String,
    },
    /// The user map names bones that do not exist.
    MapBoneMissing {
        /// Each line whose bone was not found.
        misses: Vec<MapMiss>,
    },
    /// Required roles were not found.
    MissingRoles {
        /// Where the roles were looked for (`"the map"` or `"the bone names"`).
        tried: String,
        /// The role keys not found (`foot_r`).
        missing: Vec<String>,
        /// Unclaimed bones that could play them (nearest the roles found around them first).
        candidates: Vec<String>,
        /// Why the shape-only search failed, when it ran.
        shape: Option<String>,
    },
    /// A foot is not below its shin and does not rest at the shin's end either, so it cannot be
    /// an IK-control rig's external foot (one hanging from the root or a control bone, which is
    /// accepted): most likely an unrelated bone plays the foot.
    FootNotUnderShin {
        /// The side of the leg.
        side: Side,
        /// The foot bone's name.
        foot: String,
        /// Its actual parent's name (`None`: the foot is a root).
        parent: Option<String>,
        /// The shin bone's name.
        shin: String,
        /// How far its rest position is from the shin's end, in words.
        reason: String,
    },
    /// The skeleton is a four-legged creature's: besides the hips the rig found, another bone
    /// carries a pair of legs like them (its shoulders).
    FourLegged {
        /// The bones carrying the leg pairs, by name.
        carriers: [String; 2],
    },
    /// More than two legs reach the ground: a creature (a spider's eight), not a humanoid.
    ManyLegs {
        /// The end bones of the legs, at the ground, by name.
        feet: Vec<String>,
    },
    /// The skeleton's two legs have fewer than three bones each below the bone they share: no
    /// thigh, shin and foot to bend (a toy whose legs are single bones).
    ShortLegs {
        /// The legs' end bones, by name.
        legs: [String; 2],
        /// How many bones the shorter leg has.
        bones: usize,
    },
    /// The chains reaching the ground are no legs paired left/right
    /// ([`rig_creature`](super::rig_creature)): fewer than two, more on one side than on the
    /// other, or one on the mirror plane.
    UnpairedLegs {
        /// The end bones at the ground of the legs on the left, front to back.
        left: Vec<String>,
        /// The same on the right.
        right: Vec<String>,
        /// Those on the mirror plane (or every one, when fewer than two were found).
        unsided: Vec<String>,
    },
    /// Legs of a single segment ([`rig_creature`](super::rig_creature)): one long bone from
    /// hip to foot, nothing to bend at a knee.
    StiffLegs {
        /// The end bones at the ground of those legs.
        legs: Vec<String>,
    },
    /// Another bone is not below the bone it must hang from (`calf_l` not below `thigh_l`).
    WrongHierarchy {
        /// The role key of the bone.
        role: String,
        /// Its name.
        bone: String,
        /// The role key it must hang from.
        parent_role: String,
        /// That bone's name.
        parent_bone: String,
    },
}

impl fmt::Display for RigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RigError::BadSkeleton { reason } => return write!(f, "cannot rig this skeleton: {reason}"),
            RigError::FourLegged { carriers: [a, b] } => {
                return write!(
                    f,
                    "not a humanoid: four legs: {a} and {b} each carry a pair of equal legs, as long as each \
                     other and ending at the same level (a four-legged creature). Humanoid IK needs two legs; \
                     rig it as a creature instead (bevy_ik's `CreatureIk`, `ik_tool rig-creature`)."
                );
            }
            RigError::ManyLegs { feet } => {
                return write!(
                    f,
                    "not a humanoid: {} legs reach the ground (ending at {}): a creature. Humanoid IK needs two \
                     legs; rig it as a creature instead (bevy_ik's `CreatureIk`, `ik_tool rig-creature`).",
                    feet.len(),
                    feet.join(", ")
                );
            }
            RigError::ShortLegs { legs: [a, b], bones } => {
                let word = if *bones == 1 { "bone" } else { "bones" };
                return write!(
                    f,
                    "the legs ending at {a} and {b} have {bones} {word} each: foot IK bends a thigh, a shin and a \
                     foot (three bones per leg). Re-export the character with a leg skeleton of three bones or \
                     more; nothing can be bent on this one."
                );
            }
            RigError::UnpairedLegs { left, right, unsided } => return unpaired(f, left, right, unsided),
            RigError::StiffLegs { legs } => {
                return write!(
                    f,
                    "cannot rig this creature: the legs ending at {} have a single segment (one long bone from \
                     the hip to the foot): creature IK bends a leg at a knee, which takes two segments or more. \
                     Re-export the character with jointed legs.",
                    legs.join(", ")
                );
            }
            RigError::MapBoneMissing { misses } => {
                let lines: Vec<String> = misses
                    .iter()
                    .map(|m| {
                        let closest = m.closest.as_deref().map_or(String::new(), |c| format!("; closest: {c}"));
                        format!("the map says {} = {}, but no bone has that name{closest}", m.role, m.bone)
                    })
                    .collect();
                write!(f, "{}.", lines.join("; "))?;
            }
            RigError::MissingRoles { tried, missing, candidates, shape } => {
                write!(f, "cannot rig this humanoid: no bone for {} (looked in {tried})", missing.join(", "))?;
                if candidates.is_empty() {
                    write!(f, " (no unclaimed bones could play them)")?;
                } else {
                    write!(f, "; unclaimed bones that could: {}", candidates.join(", "))?;
                }
                if let Some(shape) = shape {
                    write!(f, "; the shape-only search failed too: {shape}")?;
                }
                write!(f, ".")?;
            }
            RigError::FootNotUnderShin { side, foot, parent, shin, reason } => {
                let s = if *side == Side::Left { "l" } else { "r" };
                let parent =
                    parent.as_deref().map_or("no parent (it is a root)".to_string(), |p| format!("parent {p}"));
                write!(
                    f,
                    "foot_{s} = {foot} has {parent}, not the shin calf_{s} = {shin}, and does not rest at the \
                     shin's end ({reason}), so it is not the external foot of an IK-control rig either: most \
                     likely another bone is the foot. Map the foot bone that rests at the end of {shin}."
                )?;
            }
            RigError::WrongHierarchy { role, bone, parent_role, parent_bone } => {
                write!(f, "{role} = {bone} is not below {parent_role} = {parent_bone} in the bone hierarchy.")?;
            }
        }
        write!(f, " {MAP_HINT}")
    }
}

impl std::error::Error for RigError {}

/// The message of [`RigError::UnpairedLegs`].
fn unpaired(f: &mut fmt::Formatter<'_>, left: &[String], right: &[String], unsided: &[String]) -> fmt::Result {
    let n = left.len() + right.len() + unsided.len();
    if n == 0 {
        write!(
            f,
            "cannot rig this creature: found no chain reaching the ground (an end bone hanging well below the \
             bones above it, at the lowest level)"
        )?;
    } else {
        let chains = if n == 1 { "chain" } else { "chains" };
        let mut parts = Vec::new();
        for (words, list) in [("left", left), ("right", right), ("on the mid-plane", unsided)] {
            if !list.is_empty() {
                parts.push(format!("{words}: {}", list.join(", ")));
            }
        }
        let sides = if left.is_empty() && right.is_empty() { String::new() } else { " by side".into() };
        write!(f, "cannot rig this creature: found {n} {chains} reaching the ground{sides} ({})", parts.join("; "))?;
    }
    write!(
        f,
        "; a creature needs an even number >= 2 of legs paired left/right, as many on each side. Every foot must \
         end at the lowest level in the rest pose, below the body it hangs from, with its mirror twin on the \
         other side: re-export the skeleton in a standing rest pose with all feet on the ground."
    )
}

/// Levenshtein distance over chars.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The existing name closest to `wanted`, ignoring case and namespaces.
pub(crate) fn closest(tree: &Tree, wanted: &str) -> Option<String> {
    let key = |s: &str| super::strip_namespace(s).to_lowercase();
    let wanted = key(wanted);
    tree.names.iter().min_by_key(|n| distance(&key(n), &wanted)).cloned()
}

/// The role a missing role hangs from (its anchor), to look for candidates below it.
fn anchor(role: Role) -> Vec<Role> {
    match role {
        Role::Thigh(_) | Role::Spine(_) => vec![Role::Pelvis],
        Role::Calf(s) => vec![Role::Thigh(s), Role::Pelvis],
        Role::Foot(s) => vec![Role::Calf(s), Role::Thigh(s), Role::Pelvis],
        Role::Ball(s) => vec![Role::Foot(s)],
        Role::Hand(s) => vec![Role::LowerArm(s), Role::UpperArm(s)],
        Role::LowerArm(s) => vec![Role::UpperArm(s)],
        Role::Neck | Role::Head | Role::UpperArm(_) | Role::Clavicle(_) => vec![Role::Pelvis],
        Role::Pelvis => vec![],
    }
}

/// Unclaimed bones that could play the missing roles: below the nearest role found above each
/// (nearest first), on the right side when the name says a side; helpers, fingers and ends are
/// left out. At most 10 names.
pub(crate) fn candidates(tree: &Tree, missing: &[Role], found: &[(Role, usize)], claimed: &[bool]) -> Vec<String> {
    let mut out: Vec<usize> = Vec::new();
    for &role in missing {
        let side = match role {
            Role::Clavicle(s)
            | Role::UpperArm(s)
            | Role::LowerArm(s)
            | Role::Hand(s)
            | Role::Thigh(s)
            | Role::Calf(s)
            | Role::Foot(s)
            | Role::Ball(s) => Some(s),
            _ => None,
        };
        let root = anchor(role).into_iter().find_map(|a| found.iter().find(|(r, _)| *r == a).map(|(_, b)| *b));
        let mut pool: Vec<usize> = match root {
            Some(r) => tree.subtree(r),
            None => (0..tree.len()).collect(),
        };
        pool.retain(|&b| !claimed[b] && !names::is_helper(&tree.names[b]) && !out.contains(&b));
        pool.retain(|&b| side.is_none() || names::parse(&tree.names[b]).side.is_none_or(|s| Some(s) == side));
        pool.sort_by_key(|&b| tree.depth[b]);
        out.extend(pool.into_iter().take(4));
    }
    out.truncate(10);
    out.into_iter().map(|b| tree.names[b].clone()).collect()
}
