//! Value parsers of the command line's options: each number checked for its range, convention
//! names against the known ones (clap prints the message with the usage).

use ik_core::contact::MAX_VOTE_WINDOW;

use crate::mannequin::convention;

pub(super) fn convention_help() -> String {
    format!(
        "Write the same character in another convention (bone names, units, axes, facing, rest pose, \
         hierarchy, node order, clips; default out assets/conventions/NAME.glb). NAME is one of {}",
        convention::names()
    )
}

pub(super) fn convention_name(name: &str) -> Result<String, String> {
    match convention::find(name) {
        Some(_) => Ok(name.to_string()),
        None => Err(format!("unknown convention `{name}` (known: {})", convention::names())),
    }
}

pub(super) fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.trim().parse().map_err(|_| format!("`{text}` is not a valid number"))
}

pub(super) fn within(text: &str, low: f32, high: f32) -> Result<f32, String> {
    let x: f32 = number(text)?;
    if x.is_finite() && (low..=high).contains(&x) { Ok(x) } else { Err(format!("must be in [{low}, {high}]")) }
}

pub(super) fn speed(text: &str) -> Result<f32, String> {
    within(text, 0.0, 100.0)
}

pub(super) fn factor(text: &str) -> Result<f32, String> {
    within(text, 0.0, 1.0)
}

pub(super) fn seconds(text: &str) -> Result<f32, String> {
    within(text, 0.0, 10.0)
}

pub(super) fn count(text: &str) -> Result<usize, String> {
    number(text)
}

pub(super) fn vote(text: &str) -> Result<usize, String> {
    let n: usize = number(text)?;
    if n <= MAX_VOTE_WINDOW { Ok(n) } else { Err(format!("must be at most {MAX_VOTE_WINDOW}")) }
}
