//! The committed corpus of third-party characters (`assets/characters`) through the demo's own
//! scoreboard, as CI's regression net on real files: the files that walk the course with every
//! bar met today (`walks.txt`) must keep doing so, and the files the rigging must refuse
//! (`refusals.txt`) must be refused with the words listed. The scoreboard runs on a copy of
//! those files in a folder of their own, exactly as `bevy_ik_demo --scoreboard DIR` runs for a
//! user. The whole folder (`--scoreboard assets/characters`) is the bar; the humanoids
//! not in `walks.txt` do not meet it yet and are not run here.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The file names a corpus list holds (`FILE` or `FILE: words` a line; `#` starts a comment).
fn listed(corpus: &Path, list: &str) -> Vec<String> {
    let text = std::fs::read_to_string(corpus.join(list)).unwrap_or_else(|e| panic!("{list}: {e}"));
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.split(':').next().unwrap_or(l).trim().to_string())
        .collect()
}

/// A folder with copies of `files` from `corpus`, its refusals list and its textures.
fn folder_of(corpus: &Path, files: &[String]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bevy_ik_corpus_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("Textures")).unwrap();
    for name in files.iter().map(String::as_str).chain(["refusals.txt"]) {
        std::fs::copy(corpus.join(name), dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for texture in std::fs::read_dir(corpus.join("Textures")).into_iter().flatten().flatten() {
        std::fs::copy(texture.path(), dir.join("Textures").join(texture.file_name())).unwrap();
    }
    dir
}

#[test]
fn the_corpus_files_that_walk_keep_every_bar_and_the_refused_stay_refused() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/characters");
    let walks = listed(&corpus, "walks.txt");
    let refused = listed(&corpus, "refusals.txt");
    assert!(walks.len() >= 3 && refused.len() >= 5, "walks {walks:?}, refused {refused:?}");
    let files: Vec<String> = walks.iter().chain(&refused).cloned().collect();
    let dir = folder_of(&corpus, &files);
    let output = Command::new(env!("CARGO_BIN_EXE_bevy_ik_demo"))
        .args(["--scoreboard", dir.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    for file in &files {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("PASS {file} "))),
            "{file} did not pass:\n{stdout}\n{stderr}"
        );
    }
    let summary = format!("scoreboard: {} passed, 0 failed", files.len());
    assert!(stdout.contains(&summary), "expected `{summary}`:\n{stdout}");
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
}
