//! # ik_tool
//!
//! The bevy_ik command-line tool as a library: the `mannequin` generator (a deterministic,
//! skinned humanoid glTF binary with in-place locomotion clips and contact labels), the
//! `contacts` labeller, the `clean` offline foot-slide remover and the `retarget` command for
//! any skinned glTF, a glTF
//! reader/writer over the `gltf` and `gltf-json` crates, and the command-line parsing (clap)
//! that `main.rs` runs.
//!
//! Modules:
//! - [`gltf_write`]: a general glTF 2.0 binary builder over `gltf-json`, and the GLB codec.
//! - [`gltf_check`]: checks a document's indices and enums before the `gltf` crate unwraps them.
//! - [`gltf_read`]: loads a `.glb` or `.gltf` (checked, with one clear message per bad input):
//!   node hierarchy, clips (dense or sparse keys), and the document and buffers kept for
//!   rewriting.
//! - [`sample`]: evaluates a clip at its frame rate (cubic resampling to 60 Hz when coarser).
//! - [`legs`]: finds pelvis and legs through the rig profiles or a user map.
//! - [`motion`]: the clip in a world frame with (scaled) root motion; contact labels.
//! - [`contacts`]: the `contacts` command's summary.
//! - [`sidecar`]: the clip sidecar (`.ik.json`) as serde structs, and [`sidecar::label_file`].
//! - [`plot`]: the contacts plot (toe height, toe speed, labels).
//! - [`clean`]: the offline slide removal of clips and its before/after measures.
//! - [`gltf_patch`]: rewrites a glTF file as a `.glb` with some animation channels replaced.
//! - [`creature`]: the `rig-creature` command: a creature's legs found in a file's skeleton.
//! - [`retarget`]: the `retarget` command: clips of one humanoid onto another, with contacts.
//! - [`travel`]: a clip's root motion: its carrier, speed and turn, the clip baked in place.
//! - [`gait_report`]: the `gait` command: knee, foot and trunk figures of each clip's gait.
//! - [`stance`]: how a retargeted clip's planted feet stand during the source's stances.
//! - [`mannequin`]: skeleton, body mesh, automatic skinning, clips, asset assembly.
//! - [`cli`]: argument parsing and the commands.

pub mod clean;
pub mod cli;
pub mod contacts;
pub mod creature;
pub mod gait_report;
pub mod gltf_check;
pub mod gltf_patch;
pub mod gltf_read;
pub mod gltf_write;
pub mod legs;
pub mod mannequin;
pub mod motion;
pub mod plot;
pub mod retarget;
pub mod sample;
pub mod sidecar;
pub mod stance;
pub mod travel;

use core::fmt;

/// Why a tool command failed.
#[derive(Debug)]
pub enum ToolError {
    /// Reading or writing a file failed.
    Io(std::io::Error),
    /// A solver or skeleton refused its input.
    Ik(ik_core::IkError),
    /// A file is not in the expected format.
    Format(String),
    /// Bad input or usage the user can fix (unreadable or invalid file, missing skin, clip or
    /// legs, bad option): the message names the file and the problem. Exit status 2.
    Input(String),
}

impl ToolError {
    /// The process exit status for this error: 2 for bad input or usage, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            ToolError::Input(_) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Io(e) => write!(f, "i/o error: {e}"),
            ToolError::Ik(e) => write!(f, "ik error: {e}"),
            ToolError::Format(m) => write!(f, "format error: {m}"),
            ToolError::Input(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for ToolError {}

impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        ToolError::Io(e)
    }
}

impl From<ik_core::IkError> for ToolError {
    fn from(e: ik_core::IkError) -> Self {
        ToolError::Ik(e)
    }
}
