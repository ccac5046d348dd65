//! Rewrites a loaded `.glb` with some animation channels replaced.
//!
//! Method: the document's JSON is copied whole and the binary chunk is kept byte for byte;
//! new key data is appended to the binary chunk as new 4-byte-aligned buffer views and float
//! accessors. Each replaced channel's sampler is pointed at the new keys (`LINEAR`); a sampler
//! shared with another channel is left to that channel and a new sampler is added instead; a
//! property the clip did not animate gets a new sampler and channel. Key times reuse an input
//! accessor of the clip that holds the same times, else get a new accessor with `min`/`max`.
//!
//! Inputs: a [`Document`] and per-animation [`AnimationPatch`]es. Outputs: the new `.glb` bytes.
//!
//! Invariants: every node, mesh, skin, material, image, accessor, buffer view and every other
//! JSON field of the input is kept (old key accessors stay, unused); only the patched channels'
//! samplers (and the extras keys asked for) change; only core glTF features are used (float
//! accessors, `LINEAR`).

use glam::Vec4;

use crate::ToolError;
use crate::gltf_read::{Document, Property};
use crate::gltf_write::{FLOAT, encode_glb};
use crate::json::Json;

/// New keys for one node property.
#[derive(Clone, Debug, PartialEq)]
pub struct NewChannel {
    /// Target node.
    pub node: usize,
    /// Target property.
    pub property: Property,
    /// Key times, s (increasing).
    pub times: Vec<f32>,
    /// One value per key (`w` unused for translation and scale).
    pub values: Vec<Vec4>,
}

/// Changes to one animation.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationPatch {
    /// Animation index.
    pub animation: usize,
    /// Channels to write.
    pub channels: Vec<NewChannel>,
    /// A key to set in the animation's `extras` (created if absent; left alone if `extras` is
    /// not an object).
    pub extras: Option<(String, Json)>,
}

struct Writer {
    json: Json,
    bin: Vec<u8>,
}

impl Writer {
    /// The top-level array `key`, created when missing.
    fn array(&mut self, key: &str) -> Result<&mut Vec<Json>, ToolError> {
        if self.json.get(key).and_then(Json::as_array).is_none() {
            self.json.set(key, Json::Arr(Vec::new()));
        }
        self.json
            .get_mut(key)
            .and_then(Json::as_array_mut)
            .ok_or_else(|| ToolError::Format("the glTF JSON is not an object".into()))
    }

    fn push_floats(&mut self, values: &[f32], count: usize, kind: &str, bounds: bool) -> Result<usize, ToolError> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        let view = Json::obj().with("buffer", 0).with("byteOffset", offset).with("byteLength", values.len() * 4);
        let views = self.array("bufferViews")?;
        views.push(view);
        let view_index = views.len() - 1;
        let mut accessor = Json::obj()
            .with("bufferView", view_index)
            .with("componentType", FLOAT)
            .with("count", count)
            .with("type", kind);
        if bounds {
            let min = values.iter().copied().fold(f32::INFINITY, f32::min);
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            accessor.set("min", vec![min]);
            accessor.set("max", vec![max]);
        }
        let accessors = self.array("accessors")?;
        accessors.push(accessor);
        Ok(accessors.len() - 1)
    }
}

/// Applies the patches and returns the new `.glb` bytes (see the module docs).
pub fn patch(doc: &Document, patches: &[AnimationPatch]) -> Result<Vec<u8>, ToolError> {
    let mut w = Writer { json: doc.json.clone(), bin: doc.bin.clone() };
    for p in patches {
        let clip = doc.clips.iter().find(|c| c.index == p.animation).ok_or_else(|| doc.bad("no such animation"))?;
        let mut inputs: Vec<(Vec<f32>, usize)> = clip.channels.iter().map(|c| (c.times.clone(), c.input)).collect();
        for new in &p.channels {
            if new.times.len() != new.values.len() || new.times.is_empty() {
                return Err(ToolError::Format("a patched channel needs one value per key".into()));
            }
            let same = |t: &Vec<f32>| {
                t.len() == new.times.len() && t.iter().zip(&new.times).all(|(a, b)| (a - b).abs() <= 1e-6)
            };
            let input = match inputs.iter().find(|(t, _)| same(t)) {
                Some(&(_, index)) => index,
                None => {
                    let index = w.push_floats(&new.times, new.times.len(), "SCALAR", true)?;
                    inputs.push((new.times.clone(), index));
                    index
                }
            };
            let (flat, kind): (Vec<f32>, &str) = match new.property {
                Property::Rotation => (new.values.iter().flat_map(|v| v.to_array()).collect(), "VEC4"),
                _ => (new.values.iter().flat_map(|v| v.truncate().to_array()).collect(), "VEC3"),
            };
            let output = w.push_floats(&flat, new.values.len(), kind, false)?;
            let sampler = Json::obj().with("input", input).with("interpolation", "LINEAR").with("output", output);
            let existing = clip.channels.iter().find(|c| c.node == new.node && c.property == new.property);
            let animation = w
                .array("animations")?
                .get_mut(p.animation)
                .ok_or_else(|| ToolError::Format("animation index out of range".into()))?;
            let shared = existing.is_some_and(|e| {
                let channels = animation.get("channels").and_then(Json::as_array).unwrap_or(&[]);
                channels.iter().filter(|c| c.get("sampler").and_then(Json::as_usize) == Some(e.sampler)).count() > 1
            });
            let samplers = animation.get_mut("samplers").and_then(Json::as_array_mut);
            let samplers = samplers.ok_or_else(|| ToolError::Format("animation without samplers".into()))?;
            match existing {
                Some(e) if !shared => {
                    if let Some(slot) = samplers.get_mut(e.sampler) {
                        *slot = sampler;
                    }
                }
                _ => {
                    samplers.push(sampler);
                    let sampler_index = samplers.len() - 1;
                    let channels = animation.get_mut("channels").and_then(Json::as_array_mut);
                    let channels = channels.ok_or_else(|| ToolError::Format("animation without channels".into()))?;
                    match existing {
                        Some(e) => {
                            if let Some(c) = channels.get_mut(e.index) {
                                c.set("sampler", sampler_index);
                            }
                        }
                        None => {
                            let target = Json::obj().with("node", new.node).with("path", new.property.name());
                            channels.push(Json::obj().with("sampler", sampler_index).with("target", target));
                        }
                    }
                }
            }
        }
        if let Some((key, value)) = &p.extras
            && let Some(animation) = w.array("animations")?.get_mut(p.animation)
        {
            match animation.get_mut("extras") {
                Some(extras @ Json::Obj(_)) => extras.set(key, value.clone()),
                Some(_) => {}
                None => animation.set("extras", Json::obj().with(key, value.clone())),
            }
        }
    }
    let length = w.bin.len();
    let buffers = w.array("buffers")?;
    match buffers.first_mut() {
        Some(buffer) => buffer.set("byteLength", length),
        None => buffers.push(Json::obj().with("byteLength", length)),
    }
    Ok(encode_glb(&w.json.to_json_string(), &w.bin))
}
