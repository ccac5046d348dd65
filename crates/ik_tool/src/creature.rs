//! `ik_tool rig-creature FILE`: a creature's legs, found by [`ik_core::rig::rig_creature`] in
//! a glTF file's skeleton, printed so a user can check a third-party file.
//!
//! Method: the skeleton is the skins' joints and the nodes above them (meshes and helpers hung
//! elsewhere are left out); their rest positions in model space are the nodes' transforms
//! composed from the scene root, parents first ([`Document::order`]). Inputs: a loaded
//! [`Document`]. Outputs: a [`CreatureReport`] whose handles are node indices, or one
//! [`ToolError::Input`] naming the file and what the rig found. Never panics on any input.

use std::path::{Path, PathBuf};

use clap::Args;
use ik_core::Xform;
use ik_core::rig::{CreatureReport, SkeletonBone, rig_creature};

use crate::ToolError;
use crate::gltf_read::{self, Document};

/// Flags of `rig-creature`.
#[derive(Clone, Debug, PartialEq, Args)]
pub struct RigCreatureArgs {
    /// The character (.glb or .gltf; may have no animation).
    #[arg(value_name = "IN.glb")]
    pub input: PathBuf,
}

/// Rigs the skeleton of `doc` as a creature; handles are node indices.
///
/// ```no_run
/// let doc = ik_tool::gltf_read::load_character(std::path::Path::new("assets/characters/Fox.glb"))?;
/// let report = ik_tool::creature::rig_file(&doc)?;
/// println!("{}", report.summary());
/// # Ok::<(), ik_tool::ToolError>(())
/// ```
pub fn rig_file(doc: &Document) -> Result<CreatureReport<usize>, ToolError> {
    let n = doc.nodes.len();
    let mut skeleton = vec![false; n];
    for &joint in &doc.joints {
        let mut node = Some(joint);
        while let Some(k) = node.filter(|&k| k < n && !skeleton[k]) {
            skeleton[k] = true;
            node = doc.nodes[k].parent;
        }
    }
    let nodes: Vec<usize> = doc.order.iter().copied().filter(|&k| k < n && skeleton[k]).collect();
    let mut bone_of = vec![None; n];
    for (b, &k) in nodes.iter().enumerate() {
        bone_of[k] = Some(b);
    }
    let parents: Vec<Option<usize>> =
        nodes.iter().map(|&k| doc.nodes[k].parent.and_then(|p| bone_of.get(p).copied().flatten())).collect();
    let rest: Vec<Xform> = nodes.iter().map(|&k| doc.nodes[k].rest).collect();
    let mut world = vec![Xform::IDENTITY; rest.len()];
    ik_core::skeleton::forward_kinematics(&parents, &rest, &Xform::IDENTITY, &mut world)
        .map_err(|e| doc.bad(format!("the skeleton's rest pose: {e}")))?;
    let bones: Vec<SkeletonBone<'_, usize>> = nodes
        .iter()
        .enumerate()
        .map(|(b, &k)| SkeletonBone {
            handle: k,
            name: doc.nodes[k].name.as_str(),
            parent: parents[b],
            rest: world[b].translation,
        })
        .collect();
    rig_creature(&bones).map_err(|e| doc.bad(e))
}

/// Loads `path` and prints what [`rig_file`] found.
pub fn run(path: &Path) -> Result<String, ToolError> {
    let doc = gltf_read::load_character(path)?;
    let report = rig_file(&doc)?;
    Ok(format!("{}: a creature of {} legs\n{}", doc.label, report.rig.legs.len(), report.summary()))
}
