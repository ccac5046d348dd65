//! Checks a glTF document's JSON before anything iterates it.
//!
//! Method: the `gltf` crate's accessors (`Channel::target().node()`, `Target::property()`,
//! `Sampler::input()`, ...) `unwrap` an index or an enum that its own validation does not cover
//! (an animation channel's `target` is never validated), so a file whose channel names a node that
//! does not exist, or an unknown `target.path`, would panic inside the crate. [`check`] looks at
//! every such index and enum first: the required extensions ik_tool cannot read (Draco, meshopt),
//! every skin's joint list, every animation's channels and samplers, then the crate's own validation of the whole
//! document (with required extensions that only concern materials and textures let through: the
//! tool never reads them and copies them as they are).
//!
//! Inputs: the document's JSON ([`gltf::json::Root`]) and the raw JSON text (to quote a value
//! the crate could not keep, such as an unknown `target.path`). Outputs: `Ok`, or one message
//! naming the animation, channel or sampler, the value, and the remedy.
//!
//! Invariants: never panics; after `Ok`, every `unwrap` of the crate's animation, sampler,
//! accessor, node and skin accessors has a value to unwrap.

use gltf::json::{self, validation::Checked, validation::Validate};

/// Required extensions that change how geometry or key data is stored, with what to do.
const UNREADABLE: &[(&str, &str)] = &[
    ("KHR_draco_mesh_compression", "re-export the file without Draco compression"),
    ("EXT_meshopt_compression", "re-export the file without meshopt compression"),
];

/// How many of the crate's validation problems a message lists.
const LISTED: usize = 3;

/// Checks the document; `raw` is its JSON text (the `.gltf` file or the `.glb` JSON chunk).
pub fn check(root: &json::Root, raw: &[u8]) -> Result<(), String> {
    for ext in &root.extensions_required {
        if let Some((_, remedy)) = UNREADABLE.iter().find(|(name, _)| name == ext) {
            return Err(format!("the file requires the glTF extension {ext}, which ik_tool does not read: {remedy}"));
        }
    }
    for (i, skin) in root.skins.iter().enumerate() {
        if skin.joints.is_empty() {
            let name = skin.name.as_deref().map_or(String::new(), |n| format!(" (\"{n}\")"));
            return Err(format!("skin {i}{name} has no joints: re-export the file with its skeleton"));
        }
    }
    for (a, animation) in root.animations.iter().enumerate() {
        let name = animation.name.clone().unwrap_or_else(|| format!("animation {a}"));
        check_animation(root, animation, raw, a).map_err(|e| format!("animation \"{name}\": {e}"))?;
    }
    validate(root)
}

fn check_animation(root: &json::Root, animation: &json::Animation, raw: &[u8], a: usize) -> Result<(), String> {
    let remedy = "re-export the file, or remove the channel";
    for (c, channel) in animation.channels.iter().enumerate() {
        let node = channel.target.node.value();
        if node >= root.nodes.len() {
            return Err(format!(
                "channel {c} targets node {node}, which does not exist (the file has {} nodes): {remedy}",
                root.nodes.len()
            ));
        }
        if let Checked::Invalid = channel.target.path {
            let value = raw_value(raw, &["animations", &a.to_string(), "channels", &c.to_string(), "target", "path"]);
            return Err(format!(
                "channel {c} animates {value} of node {node}, not one of translation, rotation, scale or weights: \
                 {remedy}"
            ));
        }
        let sampler = channel.sampler.value();
        if sampler >= animation.samplers.len() {
            return Err(format!(
                "channel {c} uses sampler {sampler}, which does not exist (the animation has {}): {remedy}",
                animation.samplers.len()
            ));
        }
    }
    for (s, sampler) in animation.samplers.iter().enumerate() {
        for (role, index) in [("input", sampler.input.value()), ("output", sampler.output.value())] {
            if index >= root.accessors.len() {
                return Err(format!(
                    "sampler {s}'s {role} is accessor {index}, which does not exist (the file has {}): \
                     re-export the file",
                    root.accessors.len()
                ));
            }
        }
        if let Checked::Invalid = sampler.interpolation {
            let value = raw_value(raw, &["animations", &a.to_string(), "samplers", &s.to_string(), "interpolation"]);
            return Err(format!(
                "sampler {s} interpolates {value}, not one of LINEAR, STEP or CUBICSPLINE: re-export the file"
            ));
        }
    }
    Ok(())
}

/// The crate's own validation of the whole document; required extensions it does not know are
/// let through (those ik_tool cannot read were refused before).
fn validate(root: &json::Root) -> Result<(), String> {
    let mut problems = Vec::new();
    root.validate(root, json::Path::new, &mut |path, error| {
        let path = path().to_string();
        let extension = matches!(error, json::validation::Error::Unsupported) && path.starts_with("extensionsRequired");
        if !extension {
            problems.push(format!("{path}: {error}"));
        }
    });
    if problems.is_empty() {
        return Ok(());
    }
    let more = problems.len().saturating_sub(LISTED);
    let listed = problems.iter().take(LISTED).cloned().collect::<Vec<_>>().join("; ");
    let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
    Err(format!("invalid glTF: {listed}{tail}: re-export the file, or check it with the Khronos glTF validator"))
}

/// The JSON value at `path` in the raw text, quoted for a message (`an unreadable value` when
/// the text or the path cannot be read).
fn raw_value(raw: &[u8], path: &[&str]) -> String {
    let json: Option<serde_json::Value> = serde_json::from_slice(raw).ok();
    let mut value = json.as_ref();
    for key in path {
        value = value.and_then(|v| match key.parse::<usize>() {
            Ok(i) if v.is_array() => v.get(i),
            _ => v.get(*key),
        });
    }
    match value {
        Some(v) => v.to_string(),
        None => "an unreadable value".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_values_are_quoted_by_path() {
        let raw = br#"{"animations":[{"channels":[{"target":{"path":"position"}}]}]}"#;
        let path = ["animations", "0", "channels", "0", "target", "path"];
        assert_eq!(raw_value(raw, &path), "\"position\"");
        assert_eq!(raw_value(raw, &["animations", "3"]), "an unreadable value");
        assert_eq!(raw_value(b"{ broken", &path), "an unreadable value");
    }
}
