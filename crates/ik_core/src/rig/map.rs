//! The rig-map syntax, read the same way by every tool (the demo's `--rig-map`, `ik_tool --map`).
//!
//! Method: the text is split into entries at new lines and commas; `#` starts a comment that
//! runs to the end of its line; each remaining entry is `role = bone` (or `role: bone`, the
//! first `=` winning so `thigh_l = mixamorig:LeftUpLeg` keeps its namespace), with the bone name
//! optionally in double quotes. Inputs: the text. Outputs: `(role, bone)` pairs in text order,
//! trimmed — role names are checked later, by [`RigProfile::from_map`](super::RigProfile::from_map)
//! or the rigging, against [`parse_role`](super::parse_role).
//!
//! Invariants: never panics; an entry without a separator, with an empty side, or a map with no
//! entry at all is a [`MapSyntaxError`] naming the line. [`RigReport::mapping`](super::RigReport::mapping)
//! writes this syntax.

use core::fmt;

/// Why a rig map's text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapSyntaxError {
    /// An entry is not `role = bone`.
    Entry {
        /// 1-based line of the entry.
        line: usize,
        /// The entry as written.
        text: String,
    },
    /// The map names no bone.
    Empty,
}

impl fmt::Display for MapSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapSyntaxError::Entry { line, text } => write!(f, "line {line}: expected `role = bone`, got `{text}`"),
            MapSyntaxError::Empty => f.write_str("the rig map is empty"),
        }
    }
}

impl std::error::Error for MapSyntaxError {}

/// Reads a rig map (see the module docs), e.g. `"pelvis = Hips\nthigh_l = LeftUpLeg"` or
/// `"pelvis=Hips,thigh_l=LeftUpLeg"`.
///
/// ```
/// use ik_core::rig::parse_map;
///
/// let map = parse_map("# my rig\npelvis = Hips, thigh_l: \"mixamorig:LeftUpLeg\"").unwrap();
/// assert_eq!(map, [("pelvis".to_string(), "Hips".to_string()), ("thigh_l".into(), "mixamorig:LeftUpLeg".into())]);
/// assert!(parse_map("pelvis Hips").is_err());
/// ```
pub fn parse_map(text: &str) -> Result<Vec<(String, String)>, MapSyntaxError> {
    let mut map = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for entry in line.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let bad = || MapSyntaxError::Entry { line: n + 1, text: entry.to_string() };
            let (role, bone) = entry.split_once('=').or_else(|| entry.split_once(':')).ok_or_else(bad)?;
            let (role, bone) = (role.trim(), bone.trim().trim_matches('"').trim());
            if role.is_empty() || bone.is_empty() {
                return Err(bad());
            }
            map.push((role.to_string(), bone.to_string()));
        }
    }
    if map.is_empty() { Err(MapSyntaxError::Empty) } else { Ok(map) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_commas_comments_and_quotes_read_alike() {
        let lines = parse_map("pelvis = Hips   # the root\n\nthigh_l: \"L Thigh\"\n").unwrap();
        let inline = parse_map("pelvis=Hips,thigh_l=\"L Thigh\"").unwrap();
        assert_eq!(lines, inline);
        assert_eq!(lines[1], ("thigh_l".to_string(), "L Thigh".to_string()));
        assert_eq!(parse_map("foot_l = rig:LeftFoot").unwrap()[0].1, "rig:LeftFoot");
    }

    #[test]
    fn bad_entries_name_their_line() {
        assert_eq!(
            parse_map("pelvis = Hips\nthigh_l LeftUpLeg"),
            Err(MapSyntaxError::Entry { line: 2, text: "thigh_l LeftUpLeg".into() })
        );
        assert!(parse_map("pelvis =").is_err());
        assert_eq!(parse_map("# nothing\n"), Err(MapSyntaxError::Empty));
    }
}
