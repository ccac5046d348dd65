//! Finding bones by name under a character: [`find_chain`], and humanoid
//! [`RigProfile`](ik_core::rig::RigProfile)s that map roles (pelvis, spine, legs, arms…) to the
//! bone names of common rigs.

use bevy::prelude::*;
use core::fmt;

/// Bones that could not be found under a character root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingBones {
    /// The character root searched.
    pub root: Entity,
    /// Every name (or role) that was not found.
    pub missing: Vec<String>,
}

impl fmt::Display for MissingBones {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "under {} these bones were not found: {}", self.root, self.missing.join(", "))
    }
}

impl std::error::Error for MissingBones {}

/// Finds bones by exact `Name` among the descendants of `root` (and `root` itself), in the
/// order given — e.g. `find_chain(root, &["thigh_l", "calf_l", "foot_l"], …)`. The error lists
/// every missing name at once.
pub fn find_chain(
    root: Entity,
    names: &[&str],
    named: &Query<&Name>,
    children: &Query<&Children>,
) -> Result<Vec<Entity>, MissingBones> {
    let mut found: Vec<Option<Entity>> = vec![None; names.len()];
    let mut stack = vec![root];
    let mut visited = 0usize;
    while let Some(entity) = stack.pop() {
        visited += 1;
        if visited > 100_000 {
            break;
        }
        if let Ok(name) = named.get(entity) {
            for (slot, wanted) in found.iter_mut().zip(names) {
                if slot.is_none() && name.as_str() == *wanted {
                    *slot = Some(entity);
                }
            }
        }
        if let Ok(kids) = children.get(entity) {
            stack.extend(kids.iter());
        }
    }
    let missing: Vec<String> =
        found.iter().zip(names).filter(|(f, _)| f.is_none()).map(|(_, n)| (*n).to_string()).collect();
    if missing.is_empty() { Ok(found.into_iter().flatten().collect()) } else { Err(MissingBones { root, missing }) }
}
