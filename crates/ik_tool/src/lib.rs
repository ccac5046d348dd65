//! # ik_tool
//!
//! The bevy_ik command-line tool as a library: the `mannequin` generator (a deterministic,
//! skinned humanoid glTF binary with in-place locomotion clips and contact labels), a small
//! general `.glb` writer, and the command-line parsing that `main.rs` runs.
//!
//! Modules:
//! - [`json`]: ordered JSON values and a deterministic writer.
//! - [`gltf_write`]: a general glTF 2.0 binary builder and the GLB container codec.
//! - [`mannequin`]: skeleton, body mesh, automatic skinning, clips, asset assembly.
//! - [`cli`]: argument parsing and the commands.

pub mod cli;
pub mod gltf_write;
pub mod json;
pub mod mannequin;

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
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Io(e) => write!(f, "i/o error: {e}"),
            ToolError::Ik(e) => write!(f, "ik error: {e}"),
            ToolError::Format(m) => write!(f, "format error: {m}"),
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
