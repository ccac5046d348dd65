//! Rewrites a loaded glTF file as a `.glb` with some animation channels replaced.
//!
//! Method: the document's `gltf-json` root is copied whole and its buffers packed into the one
//! binary chunk a `.glb` has (for a `.glb` input that is its own chunk, kept byte for byte; the
//! buffers of a `.gltf` are appended one after the other, 4-byte aligned, and their buffer views
//! moved with them). New key data is appended to the chunk as new buffer views and float
//! accessors. Each replaced channel's sampler is pointed at the new keys (`LINEAR`); a sampler
//! shared with another channel is left to that channel and a new sampler is added instead; a
//! property the clip did not animate gets a new sampler and channel. Key times reuse an input
//! accessor of the clip that holds the same times, else get a new accessor with `min`/`max`.
//! The root is serialized with `serde_json`.
//!
//! [`add_animations`] writes new animations the same way (one `LINEAR` sampler per channel),
//! after taking out the file's animations of the same names.
//!
//! Inputs: a [`Document`] and per-animation [`AnimationPatch`]es (or [`NewAnimation`]s).
//! Outputs: the new `.glb` bytes.
//!
//! Invariants: every node, mesh, skin, material, image, accessor, buffer view, extension and
//! extras of the input is kept (old key accessors stay, unused); only the patched channels'
//! samplers (and the extras keys asked for) change; only core glTF features are used (float
//! accessors, `LINEAR`).

use glam::Vec4;
use gltf::json;
use json::validation::USize64;
use serde_json::value::RawValue;

use crate::ToolError;
use crate::gltf_read::{Document, Property};
use crate::gltf_write::{FLOAT, Index, accessor, buffer, channel, encode_glb, linear_sampler, view};

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
#[derive(Clone, Debug)]
pub struct AnimationPatch {
    /// Animation index.
    pub animation: usize,
    /// Channels to write.
    pub channels: Vec<NewChannel>,
    /// A key to set in the animation's `extras` (created if absent; left alone if `extras` is
    /// not an object).
    pub extras: Option<(String, Box<RawValue>)>,
}

/// A whole animation to add.
#[derive(Clone, Debug)]
pub struct NewAnimation {
    /// Its name; an animation of the file with the same name is replaced.
    pub name: String,
    /// Its channels.
    pub channels: Vec<NewChannel>,
    /// Its `extras` (a JSON object), if any.
    pub extras: Option<Box<RawValue>>,
}

struct Writer {
    root: json::Root,
    bin: Vec<u8>,
}

impl Writer {
    /// The document with every buffer packed into one binary chunk (buffer 0, no URI).
    fn packed(doc: &Document) -> Result<Writer, ToolError> {
        let mut root = doc.root.clone();
        let mut bin = Vec::new();
        let mut starts = Vec::with_capacity(doc.buffers.len());
        for data in &doc.buffers {
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            starts.push(bin.len());
            bin.extend_from_slice(data);
        }
        for v in &mut root.buffer_views {
            let start = starts.get(v.buffer.value()).ok_or_else(|| doc.bad("a buffer view names no buffer"))?;
            if *start != 0 {
                let offset = v.byte_offset.map_or(0, |o| o.0 as usize);
                v.byte_offset = Some(USize64::from(start + offset));
            }
            v.buffer = Index::new(0);
        }
        let name = root.buffers.first().and_then(|b| b.name.clone());
        root.buffers = vec![json::Buffer { name, ..buffer(bin.len(), None) }];
        Ok(Writer { root, bin })
    }

    /// The keys of `new` as a sampler (times shared with an earlier channel of the same keys).
    fn sampler(
        &mut self,
        new: &NewChannel,
        inputs: &mut Vec<(Vec<f32>, usize)>,
    ) -> Result<json::animation::Sampler, ToolError> {
        if new.times.len() != new.values.len() || new.times.is_empty() {
            return Err(ToolError::Format("a patched channel needs one value per key".into()));
        }
        let same =
            |t: &Vec<f32>| t.len() == new.times.len() && t.iter().zip(&new.times).all(|(a, b)| (a - b).abs() <= 1e-6);
        let input = match inputs.iter().find(|(t, _)| same(t)) {
            Some(&(_, index)) => index,
            None => {
                let index = self.push_floats(&new.times, new.times.len(), json::accessor::Type::Scalar, true);
                inputs.push((new.times.clone(), index));
                index
            }
        };
        let (flat, kind): (Vec<f32>, _) = match new.property {
            Property::Rotation => (new.values.iter().flat_map(|v| v.to_array()).collect(), json::accessor::Type::Vec4),
            _ => (new.values.iter().flat_map(|v| v.truncate().to_array()).collect(), json::accessor::Type::Vec3),
        };
        let output = self.push_floats(&flat, new.values.len(), kind, false);
        Ok(linear_sampler(Index::new(input as u32), Index::new(output as u32)))
    }

    fn finish(mut self) -> Result<Vec<u8>, ToolError> {
        self.root.buffers[0].byte_length = USize64::from(self.bin.len());
        let text = serde_json::to_string(&self.root).map_err(|e| ToolError::Format(format!("glTF JSON: {e}")))?;
        Ok(encode_glb(&text, &self.bin))
    }

    fn push_floats(&mut self, values: &[f32], count: usize, kind: json::accessor::Type, bounds: bool) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let view_index = self.root.push(view(0, self.bin.len(), values.len() * 4, None)).value();
        self.bin.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        let bounds = bounds.then(|| {
            let min = values.iter().copied().fold(f32::INFINITY, f32::min);
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (vec![min], vec![max])
        });
        self.root.push(accessor(view_index, FLOAT, count, kind, bounds)).value()
    }
}

/// Sets `key` in `extras` (an object, created when absent); other extras are left alone.
fn set_extra(extras: &mut json::Extras, key: &str, value: &RawValue) {
    type Object = std::collections::BTreeMap<String, Box<RawValue>>;
    let mut object = match extras.as_ref().map(|raw| serde_json::from_str::<Object>(raw.get())) {
        None => Object::new(),
        Some(Ok(object)) => object,
        Some(Err(_)) => return,
    };
    object.insert(key.to_string(), value.to_owned());
    *extras = crate::gltf_write::extras(&object);
}

/// Applies the patches and returns the new `.glb` bytes (see the module docs).
pub fn patch(doc: &Document, patches: &[AnimationPatch]) -> Result<Vec<u8>, ToolError> {
    let mut w = Writer::packed(doc)?;
    for p in patches {
        let clip = doc.clips.iter().find(|c| c.index == p.animation).ok_or_else(|| doc.bad("no such animation"))?;
        let mut inputs: Vec<(Vec<f32>, usize)> = clip.channels.iter().map(|c| (c.times.clone(), c.input)).collect();
        for new in &p.channels {
            let sampler = w.sampler(new, &mut inputs)?;
            let existing = clip.channels.iter().find(|c| c.node == new.node && c.property == new.property);
            let animation = w
                .root
                .animations
                .get_mut(p.animation)
                .ok_or_else(|| ToolError::Format("animation index out of range".into()))?;
            let shared = existing
                .is_some_and(|e| animation.channels.iter().filter(|c| c.sampler.value() == e.sampler).count() > 1);
            match existing {
                Some(e) if !shared && e.sampler < animation.samplers.len() => animation.samplers[e.sampler] = sampler,
                _ => {
                    let sampler_index = animation.samplers.len();
                    animation.samplers.push(sampler);
                    match existing.and_then(|e| animation.channels.get_mut(e.index)) {
                        Some(c) => c.sampler = Index::new(sampler_index as u32),
                        None => animation.channels.push(channel(sampler_index, new.node, new.property.json())),
                    }
                }
            }
        }
        if let Some((key, value)) = &p.extras
            && let Some(animation) = w.root.animations.get_mut(p.animation)
        {
            set_extra(&mut animation.extras, key, value);
        }
    }
    w.finish()
}

/// The file as a `.glb` with `animations` added (see the module docs): animations of the file
/// with the same names are taken out first, everything else is kept.
pub fn add_animations(doc: &Document, animations: &[NewAnimation]) -> Result<Vec<u8>, ToolError> {
    let mut w = Writer::packed(doc)?;
    w.root.animations.retain(|a| !animations.iter().any(|n| a.name.as_deref() == Some(n.name.as_str())));
    for new in animations {
        let mut inputs = Vec::new();
        let (mut samplers, mut channels) = (Vec::new(), Vec::new());
        for c in &new.channels {
            if c.node >= w.root.nodes.len() {
                return Err(ToolError::Format(format!(
                    "animation \"{}\": channel on node {} of {}",
                    new.name,
                    c.node,
                    w.root.nodes.len()
                )));
            }
            samplers.push(w.sampler(c, &mut inputs)?);
            channels.push(channel(samplers.len() - 1, c.node, c.property.json()));
        }
        w.root.animations.push(json::Animation {
            extensions: None,
            extras: new.extras.clone(),
            channels,
            name: Some(new.name.clone()),
            samplers,
        });
    }
    w.finish()
}
