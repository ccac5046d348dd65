//! Writing a command's output files: the folder made the same way by every command, failures
//! naming the path; the progress bar.

use std::path::{Path, PathBuf};

use crate::ToolError;

/// Creates the folder an output file goes in when it does not exist (every command does the
/// same); a failure names the folder.
pub(crate) fn output_folder(path: &Path) -> Result<(), ToolError> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).map_err(|e| {
            ToolError::Input(format!("{}: cannot create the output folder: {e}; choose another path", dir.display()))
        }),
        None => Ok(()),
    }
}

/// Writes an output file (its folder created first, see [`output_folder`]); a failure names
/// the file.
pub(crate) fn write_output(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), ToolError> {
    output_folder(path)?;
    std::fs::write(path, bytes)
        .map_err(|e| ToolError::Input(format!("{}: cannot write: {e}; choose another path", path.display())))
}

/// True when `a` and `b` name the same file (or would, once `b` is created).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    let full = |p: &Path| -> Option<PathBuf> {
        if let Ok(c) = p.canonicalize() {
            return Some(c);
        }
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some(parent.canonicalize().ok()?.join(p.file_name()?))
    };
    a == b || matches!((full(a), full(b)), (Some(x), Some(y)) if x == y)
}

/// A progress bar over `total` steps labelled `clip`.
pub(crate) fn progress_bar(total: u64, clip: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} ({eta})") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(clip.to_string());
    bar
}
