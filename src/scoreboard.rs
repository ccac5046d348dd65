//! `--scoreboard DIR`: the demo's headless course for every character file in a folder, one
//! process each, and one table of what happened to each.
//!
//! Method: runs this executable with `--headless --skip-ik-off --character FILE` per `.glb`,
//! `.gltf` or `.vrm` file (sorted by name), two at a time, and reads its output: how it was
//! rigged, the clips chosen and why, every `bar:` line's verdict, the exit status, and for a
//! refusal its message. `DIR/refusals.txt` lists the files that must be refused (one
//! `FILE: words the message must hold` a line; `#` starts a comment). Output: a row per
//! character with its bars beneath it (each with its figure and verdict, as the run printed
//! it), and a `scoreboard: N passed, N failed; N bars met, N short` line. Exit status 0 when every character walks with every
//! bar met, or is refused as listed; 1 otherwise.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Character processes run at once.
const AT_ONCE: usize = 2;

/// What one character's run showed.
#[derive(Debug, Default)]
struct Score {
    file: String,
    rigged_by: String,
    clips: String,
    /// Each `bar:` line (without the prefix), in the order printed, and whether it was met.
    bars: Vec<(bool, String)>,
    status: Option<i32>,
    error: Option<String>,
}

impl Score {
    /// Reads one run's output (stdout and stderr together) and exit status.
    fn read(file: String, output: &str, status: Option<i32>) -> Score {
        let mut score = Score { file, status, ..Score::default() };
        for line in output.lines().map(strip_log_prefix) {
            if let Some(bar) = line.strip_prefix("bar: ") {
                score.bars.push((!bar.contains("NOT "), bar.to_string()));
            } else if let Some((_, rest)) = line.split_once("bevy_ik: rigged ") {
                // `rigged `Name` (names), soles measured from the mesh:`
                let how = rest
                    .split_once(" (")
                    .and_then(|(_, r)| r.split_once(')'))
                    .map(|(how, soles)| format!("{how}{}", soles.trim_end_matches(':')));
                score.rigged_by = how.unwrap_or_else(|| "?".into());
            } else if let Some((_, clips)) = line.split_once("; clips: ") {
                score.clips = clips.to_string();
            } else if let Some(message) = line.strip_prefix("error: ") {
                score.error.get_or_insert_with(|| message.to_string());
            }
        }
        score
    }

    /// How many bars were met.
    fn met(&self) -> usize {
        self.bars.iter().filter(|(met, _)| *met).count()
    }

    /// The bars not met (or not measured).
    fn short(&self) -> impl Iterator<Item = &str> {
        self.bars.iter().filter(|(met, _)| !met).map(|(_, text)| text.as_str())
    }

    /// Whether the character walked the course with every bar met.
    fn walked(&self) -> bool {
        self.status == Some(0) && self.met() > 0 && self.short().next().is_none()
    }
}

/// A log line without Bevy's timestamp and level (`2026-… INFO bevy_ik_demo::x: text`).
fn strip_log_prefix(line: &str) -> &str {
    for level in [" INFO ", " WARN ", " ERROR "] {
        if let Some((_, rest)) = line.split_once(level) {
            return rest.split_once(": ").map_or(rest, |(_, text)| text);
        }
    }
    line
}

/// The character files of `dir`, sorted.
fn character_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("--scoreboard {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| ["glb", "gltf", "vrm"].contains(&x.to_string_lossy().as_ref())))
        .collect();
    files.sort();
    Ok(files)
}

/// `DIR/refusals.txt`: `(file name, words the refusal must hold)`.
fn expected_refusals(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("refusals.txt")).unwrap_or_default();
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter_map(|l| l.split_once(':'))
        .map(|(f, words)| (f.trim().to_string(), words.trim().to_string()))
        .collect()
}

/// Runs the course for one file (a process that cannot start is an error row).
fn run_one(exe: &Path, file: &Path) -> Score {
    let name = file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let output = Command::new(exe)
        .args(["--headless", "--skip-ik-off", "--character"])
        .arg(file)
        .env("NO_COLOR", "1")
        // The rig and clip lines are logged at info: a RUST_LOG that hides them leaves the
        // row's "rigged by" and "clips" empty.
        .env_remove("RUST_LOG")
        .output();
    match output {
        Ok(out) => {
            let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            Score::read(name, &text, out.status.code())
        }
        Err(e) => {
            Score { file: name, error: Some(format!("could not start {}: {e}", exe.display())), ..Score::default() }
        }
    }
}

/// `--scoreboard DIR`: see the module docs.
pub fn run(dir: &Path) -> ExitCode {
    let files = match character_files(dir) {
        Ok(files) if !files.is_empty() => files,
        Ok(_) => {
            eprintln!("error: --scoreboard {}: no .glb, .gltf or .vrm file there", dir.display());
            return ExitCode::from(2);
        }
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: --scoreboard: cannot find this executable to run it per character: {e}");
            return ExitCode::from(2);
        }
    };
    let refusals = expected_refusals(dir);
    let mut scores = Vec::new();
    for batch in files.chunks(AT_ONCE) {
        let done: Vec<Score> = std::thread::scope(|s| {
            let runs: Vec<_> = batch.iter().map(|f| s.spawn(|| run_one(&exe, f))).collect();
            runs.into_iter().filter_map(|r| r.join().ok()).collect()
        });
        for score in done {
            println!("{}", line_of(&score, &refusals));
            score.bars.iter().for_each(|(_, bar)| println!("    {bar}"));
            scores.push(score);
        }
    }
    let failed = scores.iter().filter(|s| !passes(s, &refusals)).count();
    let (met, all) = scores.iter().fold((0, 0), |(m, a), s| (m + s.met(), a + s.bars.len()));
    println!("scoreboard: {} passed, {failed} failed; {met} bars met, {} short", scores.len() - failed, all - met);
    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

/// Whether a character did what the corpus expects of it.
fn passes(score: &Score, refusals: &[(String, String)]) -> bool {
    match refusals.iter().find(|(f, _)| *f == score.file) {
        Some((_, words)) => score.error.as_ref().is_some_and(|e| e.contains(words.as_str())),
        None => score.walked(),
    }
}

/// One scoreboard row: file, verdict, rig, clips, bars, the first short bar or the refusal.
fn line_of(score: &Score, refusals: &[(String, String)]) -> String {
    let verdict = if passes(score, refusals) { "PASS" } else { "FAIL" };
    let what = if score.walked() {
        format!("walks, {} bars met", score.met())
    } else if let Some(error) = &score.error {
        format!("refused: {error}")
    } else {
        format!(
            "{} bars met, {} short (exit {}): {}",
            score.met(),
            score.short().count(),
            score.status.map_or("none".into(), |c| c.to_string()),
            score.short().next().unwrap_or("no bar measured")
        )
    };
    format!(
        "{verdict} {} | rigged by {} | clips: {} | {what}",
        score.file,
        if score.rigged_by.is_empty() { "-" } else { &score.rigged_by },
        if score.clips.is_empty() { "-" } else { &score.clips }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_read_from_its_output() {
        let out = "2026-12-04T10:00:00Z  INFO bevy_ik::humanoid: bevy_ik: rigged `Robot` (names), soles measured from the mesh:\n\
                   INFO bevy_ik_demo::character: character: 1.75 m tall, legs 0.80 m, turned 0°; clips: walk: `Walking` (by its name)\n\
                   bar: a 0.4 cm (<= 1 cm: met)\nbar: b 2.0 cm (<= 1 cm: NOT met)\n";
        let s = Score::read("Robot.glb".into(), out, Some(3));
        assert_eq!(
            (s.rigged_by.as_str(), s.met(), s.short().collect::<Vec<_>>()),
            ("names, soles measured from the mesh", 1, vec!["b 2.0 cm (<= 1 cm: NOT met)"])
        );
        assert_eq!(s.bars[0], (true, "a 0.4 cm (<= 1 cm: met)".to_string()), "every bar kept, in order");
        assert_eq!(s.clips, "walk: `Walking` (by its name)");
        assert!(!s.walked());
        assert!(line_of(&s, &[]).starts_with("FAIL Robot.glb | rigged by names, soles"), "{}", line_of(&s, &[]));
        let refused = Score::read("Fox.glb".into(), "error: cannot rig the character: no bone for thigh_l\n", Some(2));
        let expect = [("Fox.glb".to_string(), "thigh_l".to_string())];
        assert!(passes(&refused, &expect) && !passes(&refused, &[]));
        let walked = Score::read("M.glb".into(), "bar: a (<= 1 cm: met)\n", Some(0));
        assert!(walked.walked() && passes(&walked, &[]));
    }
}
