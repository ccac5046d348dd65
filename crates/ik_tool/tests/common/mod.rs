//! Helpers shared by ik_tool's integration tests: temporary folders and running the binary.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::Command;

/// The committed mannequin's path.
pub fn mannequin() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/mannequin.glb")
}

/// The committed corpus of third-party characters.
pub fn characters() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/characters")
}

/// The corpus's `refusals.txt`: (file, words its refusal must hold), as the demo's scoreboard reads it.
pub fn refusals() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(characters().join("refusals.txt")).unwrap();
    let lines = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'));
    lines.filter_map(|l| l.split_once(':')).map(|(f, w)| (f.trim().to_string(), w.trim().to_string())).collect()
}

/// The corpus's humanoids: every `.glb` it does not list as refused, sorted by name.
pub fn corpus_humanoids() -> Vec<PathBuf> {
    let refused: Vec<String> = refusals().into_iter().map(|(f, _)| f).collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(characters())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb"))
        .filter(|p| !refused.iter().any(|r| p.file_name().is_some_and(|n| n == r.as_str())))
        .collect();
    files.sort();
    files
}

/// The committed mannequin's bytes.
pub fn mannequin_bytes() -> Vec<u8> {
    std::fs::read(mannequin()).unwrap()
}

/// A fresh temporary folder, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new empty folder whose name starts with `ik_tool_{name}`.
    pub fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("ik_tool_{name}_{}_{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// A file path inside the folder.
    pub fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }

    /// The names of the files in the folder, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the ik_tool binary: exit code, stdout, stderr.
pub fn ik_tool(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ik_tool")).args(args).output().expect("ik_tool runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// A path as `&str` (the tests' paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
