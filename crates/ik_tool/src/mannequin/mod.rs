//! `ik_tool mannequin`: a deterministic skinned humanoid with in-place locomotion clips.
//!
//! Method: [`skeleton`] defines a 23-bone, ~1.8 m rig (+Y up, facing +Z, left = +X, metres);
//! [`mesh`] lofts a closed, smooth mannequin body around it; [`skin`] binds it automatically
//! (nearest bone, side of the joint by projection, linear falloff inside a binding radius,
//! ≤ 4 influences); [`clips`] samples `Idle`, `Walk` and `Jog` by moving the feet along
//! [`ik_core::gait`] paths and solving the legs with [`ik_core::TwoBoneJob`]; [`asset`] writes
//! the glTF binary and the contact-label sidecar. [`convention`] and [`convert`] re-author the
//! same character the ways user characters come (names, units, axes, facing, rest pose,
//! hierarchy, node order, clips), with [`jump`] for a clip that is not a walk; [`root_motion`]
//! gives the walking clips of either root motion, as many user files come.
//!
//! Outputs: [`Mannequin`] — the `.glb` bytes, the sidecar JSON text and the clips.
//!
//! Invariants: the same bytes on every run (ordered JSON, no timestamps, no hashing); valid
//! glTF 2.0 using only skins, `LINEAR` translation/rotation animation and metallic-roughness
//! materials; every clip loops seamlessly, is in place, and has its left foot land at phase 0
//! and its right at 0.5.
//!
//! Sidecar (`<name>.ik.json` next to `<name>.glb`), also stored as each animation's `extras`:
//! an object from clip name (`"Idle"`, `"Walk"`, `"Jog"`) to
//! `{ nominal_speed, duration, frame_rate, frame_count, landing_phase, contacts: { foot_l: [bool;
//! frame_count], foot_r: [...] } }` — see [`asset::clip_metadata`].

pub mod asset;
pub mod clips;
pub mod convention;
pub mod convert;
pub mod heel_walk;
pub mod jump;
pub mod legs;
pub mod loft;
pub mod mesh;
pub mod root_motion;
pub mod skeleton;
pub mod skin;

use std::path::{Path, PathBuf};

use ik_core::IkError;

use crate::ToolError;

pub use convention::{Convention, conventions};
pub use convert::{ConventionAsset, generate_convention, write_convention};

/// The generated asset.
#[derive(Clone, Debug)]
pub struct Mannequin {
    /// The glTF binary.
    pub glb: Vec<u8>,
    /// The sidecar JSON text (clip metadata and contact labels).
    pub sidecar: String,
    /// The sampled clips, in file order.
    pub clips: Vec<clips::Clip>,
    /// Number of mesh vertices.
    pub vertex_count: usize,
}

/// Generates the mannequin in memory.
pub fn generate() -> Result<Mannequin, IkError> {
    let rig = skeleton::rig()?;
    let body = mesh::body(&rig);
    let weights = skin::bind(&rig, &body, &skin::BindParams::default());
    let clips = clips::clip_specs().iter().map(|spec| clips::build_clip(&rig, spec)).collect::<Result<Vec<_>, _>>()?;
    Ok(Mannequin {
        glb: asset::glb(&rig, &body, &weights, &clips),
        sidecar: asset::sidecar(&clips),
        clips,
        vertex_count: body.positions.len(),
    })
}

/// The sidecar path for a `.glb` path: `dir/name.glb` → `dir/name.ik.json`.
pub fn sidecar_path(glb: &Path) -> PathBuf {
    glb.with_extension("ik.json")
}

/// Generates the mannequin and writes the `.glb` to `out` and the sidecar next to it
/// (creating the directory if needed). Returns the two paths.
pub fn write(out: &Path) -> Result<(PathBuf, PathBuf), ToolError> {
    let mannequin = generate()?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let sidecar = sidecar_path(out);
    std::fs::write(out, &mannequin.glb)?;
    std::fs::write(&sidecar, &mannequin.sidecar)?;
    Ok((out.to_path_buf(), sidecar))
}
