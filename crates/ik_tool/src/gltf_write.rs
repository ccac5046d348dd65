//! A small, general glTF 2.0 binary (`.glb`) builder over the `gltf-json` types.
//!
//! Method: [`GlbBuilder`] owns one binary buffer and a [`json::Root`]. Typed data (`Vec3`
//! positions, `Quat` rotations, `u16` joint indices, `Mat4` inverse binds, ...) goes in through
//! `push_*` calls, each of which appends a 4-byte-aligned buffer view and an accessor and returns
//! the accessor index. Nodes, meshes, materials, skins, animations and scenes are `gltf-json`
//! values added in order; their index is returned so later objects can refer to them.
//! [`GlbBuilder::to_glb`] serializes the root with `serde_json` and wraps it with
//! [`gltf::binary::Glb`].
//!
//! Invariants: output is deterministic (struct field order, no timestamps, no hashing); every
//! buffer view starts on a 4-byte boundary; accessors that the spec requires bounds for
//! (`POSITION`, animation inputs) get exact `min`/`max`; empty top-level arrays are omitted, as
//! the spec requires. [`encode_glb`] / [`decode_glb`] are the GLB container codec of the `gltf`
//! crate.

use std::borrow::Cow;

use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::json;
use json::validation::{Checked, USize64};

use crate::ToolError;

/// Buffer view target for vertex attributes.
pub const ARRAY_BUFFER: json::buffer::Target = json::buffer::Target::ArrayBuffer;
/// Buffer view target for vertex indices.
pub const ELEMENT_ARRAY_BUFFER: json::buffer::Target = json::buffer::Target::ElementArrayBuffer;

/// Index of a `gltf-json` object.
pub type Index<T> = json::Index<T>;

/// A buffer view over `length` bytes at `offset` of buffer `buffer`.
pub fn view(buffer: usize, offset: usize, length: usize, target: Option<json::buffer::Target>) -> json::buffer::View {
    json::buffer::View {
        buffer: Index::new(buffer as u32),
        byte_length: USize64::from(length),
        byte_offset: Some(USize64::from(offset)),
        byte_stride: None,
        extensions: None,
        extras: Default::default(),
        name: None,
        target: target.map(Checked::Valid),
    }
}

/// A dense float (or unsigned integer) accessor over a whole buffer view.
pub fn accessor(
    view: usize,
    component: json::accessor::ComponentType,
    count: usize,
    kind: json::accessor::Type,
    bounds: Option<(Vec<f32>, Vec<f32>)>,
) -> json::Accessor {
    let (min, max) = match bounds {
        Some((min, max)) => (Some(numbers(&min)), Some(numbers(&max))),
        None => (None, None),
    };
    json::Accessor {
        buffer_view: Some(Index::new(view as u32)),
        byte_offset: None,
        count: USize64::from(count),
        component_type: Checked::Valid(json::accessor::GenericComponentType(component)),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(kind),
        min,
        max,
        name: None,
        normalized: false,
        sparse: None,
    }
}

/// A JSON array of `f32`s, each written with its shortest text (`0.1`, not the `f64` widening
/// `0.10000000149011612`); a non-finite value (which JSON cannot hold) becomes `null`.
pub fn numbers(values: &[f32]) -> serde_json::Value {
    let number = |x: f32| format!("{x}").parse::<f64>().ok().and_then(serde_json::Number::from_f64);
    serde_json::Value::Array(values.iter().map(|&x| number(x).map_or(serde_json::Value::Null, Into::into)).collect())
}

/// A `LINEAR` animation sampler.
pub fn linear_sampler(input: Index<json::Accessor>, output: Index<json::Accessor>) -> json::animation::Sampler {
    json::animation::Sampler {
        extensions: None,
        extras: Default::default(),
        input,
        interpolation: Checked::Valid(json::animation::Interpolation::Linear),
        output,
    }
}

/// A channel driving `node`'s `property` with sampler `sampler`.
pub fn channel(sampler: usize, node: usize, property: json::animation::Property) -> json::animation::Channel {
    json::animation::Channel {
        sampler: Index::new(sampler as u32),
        target: json::animation::Target {
            extensions: None,
            extras: Default::default(),
            node: Index::new(node as u32),
            path: Checked::Valid(property),
        },
        extensions: None,
        extras: Default::default(),
    }
}

/// `extras` holding `value` serialized (`None` when it cannot be).
pub fn extras<T: serde::Serialize>(value: &T) -> json::Extras {
    serde_json::value::to_raw_value(value).ok()
}

/// Builds a glTF binary: one buffer, typed accessors, and `gltf-json` objects added in order.
#[derive(Clone, Debug)]
pub struct GlbBuilder {
    root: json::Root,
    bin: Vec<u8>,
}

impl GlbBuilder {
    /// An empty document; `generator` goes into `asset.generator`.
    pub fn new(generator: &str) -> Self {
        let mut root = json::Root::default();
        root.asset.generator = Some(generator.to_string());
        GlbBuilder { root, bin: Vec::new() }
    }

    /// Appends raw bytes as a buffer view (4-byte aligned); returns the view index.
    pub fn push_view(&mut self, bytes: &[u8], target: Option<json::buffer::Target>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let view = view(0, self.bin.len(), bytes.len(), target);
        self.bin.extend_from_slice(bytes);
        self.root.push(view).value()
    }

    /// Adds an accessor over a whole buffer view; returns the accessor index.
    pub fn push_accessor(
        &mut self,
        view: usize,
        component: json::accessor::ComponentType,
        count: usize,
        kind: json::accessor::Type,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> usize {
        self.root.push(accessor(view, component, count, kind, bounds)).value()
    }

    /// `VEC3` float accessor (positions, normals, translations); `bounds` adds `min`/`max`.
    pub fn push_vec3(&mut self, values: &[Vec3], target: Option<json::buffer::Target>, bounds: bool) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().flat_map(|v| v.to_array())), target);
        let b = bounds.then(|| component_bounds(values.iter().map(|v| v.to_array().to_vec()), 3));
        self.push_accessor(view, FLOAT, values.len(), json::accessor::Type::Vec3, b)
    }

    /// `VEC4` float accessor (skin weights, tangents).
    pub fn push_vec4(&mut self, values: &[Vec4], target: Option<json::buffer::Target>) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().flat_map(|v| v.to_array())), target);
        self.push_accessor(view, FLOAT, values.len(), json::accessor::Type::Vec4, None)
    }

    /// `VEC4` float accessor of rotations, stored `x, y, z, w` as glTF wants.
    pub fn push_quat(&mut self, values: &[Quat]) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().flat_map(|q| q.to_array())), None);
        self.push_accessor(view, FLOAT, values.len(), json::accessor::Type::Vec4, None)
    }

    /// `SCALAR` float accessor (animation times, morph weights); `bounds` adds `min`/`max`.
    pub fn push_f32(&mut self, values: &[f32], bounds: bool) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().copied()), None);
        let b = bounds.then(|| component_bounds(values.iter().map(|v| vec![*v]), 1));
        self.push_accessor(view, FLOAT, values.len(), json::accessor::Type::Scalar, b)
    }

    /// `MAT4` float accessor (inverse bind matrices), column-major as glTF wants.
    pub fn push_mat4(&mut self, values: &[Mat4]) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().flat_map(|m| m.to_cols_array())), None);
        self.push_accessor(view, FLOAT, values.len(), json::accessor::Type::Mat4, None)
    }

    /// `VEC4` unsigned-short accessor (skin joint indices).
    pub fn push_u16x4(&mut self, values: &[[u16; 4]], target: Option<json::buffer::Target>) -> usize {
        let bytes: Vec<u8> = values.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.push_view(&bytes, target);
        self.push_accessor(view, json::accessor::ComponentType::U16, values.len(), json::accessor::Type::Vec4, None)
    }

    /// `SCALAR` index accessor: unsigned short when every index fits, else unsigned int.
    pub fn push_indices(&mut self, indices: &[u32]) -> usize {
        use json::accessor::ComponentType;
        let max = indices.iter().copied().max().unwrap_or(0);
        let (bytes, component): (Vec<u8>, _) = if max < u16::MAX as u32 {
            (indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect(), ComponentType::U16)
        } else {
            (indices.iter().flat_map(|&i| i.to_le_bytes()).collect(), ComponentType::U32)
        };
        let view = self.push_view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
        self.push_accessor(view, component, indices.len(), json::accessor::Type::Scalar, None)
    }

    /// Adds a node; returns its index.
    pub fn add_node(&mut self, node: json::Node) -> usize {
        self.root.push(node).value()
    }

    /// Adds a mesh; returns its index.
    pub fn add_mesh(&mut self, mesh: json::Mesh) -> usize {
        self.root.push(mesh).value()
    }

    /// Adds a material; returns its index.
    pub fn add_material(&mut self, material: json::Material) -> usize {
        self.root.push(material).value()
    }

    /// Adds a skin; returns its index.
    pub fn add_skin(&mut self, skin: json::Skin) -> usize {
        self.root.push(skin).value()
    }

    /// Adds an animation; returns its index.
    pub fn add_animation(&mut self, animation: json::Animation) -> usize {
        self.root.push(animation).value()
    }

    /// Adds a scene; the first one added becomes the default `scene`. Returns its index.
    pub fn add_scene(&mut self, scene: json::Scene) -> usize {
        let index = self.root.push(scene);
        self.root.scene.get_or_insert(index);
        index.value()
    }

    /// The document (with its one buffer declared, without the binary data).
    pub fn root(&self) -> json::Root {
        let mut root = self.root.clone();
        if !self.bin.is_empty() {
            root.buffers = vec![buffer(self.bin.len(), None)];
        }
        root
    }

    /// The `.glb` bytes.
    pub fn to_glb(&self) -> Vec<u8> {
        // Serializing gltf-json values to a string cannot fail (no maps with non-string keys).
        let text = serde_json::to_string(&self.root()).unwrap_or_default();
        encode_glb(&text, &self.bin)
    }
}

/// `componentType` of 32-bit floats.
pub const FLOAT: json::accessor::ComponentType = json::accessor::ComponentType::F32;

/// A buffer of `length` bytes, at `uri` or (none) in the GLB's binary chunk.
pub fn buffer(length: usize, uri: Option<String>) -> json::Buffer {
    json::Buffer { byte_length: USize64::from(length), name: None, uri, extensions: None, extras: Default::default() }
}

fn f32_bytes(values: impl Iterator<Item = f32>) -> Vec<u8> {
    values.flat_map(f32::to_le_bytes).collect()
}

fn component_bounds(values: impl Iterator<Item = Vec<f32>>, n: usize) -> (Vec<f32>, Vec<f32>) {
    let mut min = vec![f32::INFINITY; n];
    let mut max = vec![f32::NEG_INFINITY; n];
    for v in values {
        for i in 0..n {
            min[i] = min[i].min(v[i]);
            max[i] = max[i].max(v[i]);
        }
    }
    for i in 0..n {
        if min[i] > max[i] {
            (min[i], max[i]) = (0.0, 0.0);
        }
    }
    (min, max)
}

/// Wraps JSON text and a binary buffer into a GLB container (version 2) with
/// [`gltf::binary::Glb`]: the JSON chunk is padded with spaces and the binary chunk with zeros to
/// 4-byte multiples; an empty `bin` writes no binary chunk.
pub fn encode_glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header { magic: *b"glTF", version: 2, length: 0 },
        json: Cow::Borrowed(json.as_bytes()),
        bin: (!bin.is_empty()).then_some(Cow::Borrowed(bin)),
    };
    // Writing into a Vec only fails past 4 GiB, which the GLB length field cannot express.
    glb.to_vec().unwrap_or_default()
}

/// The two chunks of a GLB container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlbChunks<'a> {
    /// The JSON chunk (may end with padding spaces).
    pub json: &'a [u8],
    /// The binary chunk, when present (may end with padding zeros).
    pub bin: Option<&'a [u8]>,
}

/// Splits a GLB container into its JSON and binary chunks with [`gltf::binary::Glb`], which
/// checks the header and lengths.
pub fn decode_glb(bytes: &[u8]) -> Result<GlbChunks<'_>, ToolError> {
    // The gltf crate subtracts the 12-byte header from the declared length unchecked.
    let declared = bytes.get(8..12).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    if declared.is_some_and(|d| d < 12) {
        return Err(ToolError::Format("broken GLB: the header declares fewer than 12 bytes".into()));
    }
    let glb = gltf::binary::Glb::from_slice(bytes).map_err(|e| ToolError::Format(format!("broken GLB: {e}")))?;
    fn borrowed(c: Cow<'_, [u8]>) -> Result<&[u8], ToolError> {
        match c {
            Cow::Borrowed(b) => Ok(b),
            Cow::Owned(_) => Err(ToolError::Format("GLB chunk not borrowed".into())),
        }
    }
    let json = borrowed(glb.json)?;
    let bin = glb.bin.map(borrowed).transpose()?;
    Ok(GlbChunks { json, bin })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glb_round_trips_and_aligns_views() {
        let mut b = GlbBuilder::new("test");
        let a = b.push_f32(&[0.0, 0.5, 1.0], true);
        let view = b.push_view(&[1, 2, 3], None);
        let c = b.push_vec3(&[Vec3::new(1.0, -2.0, 3.0), Vec3::new(-1.0, 4.0, 0.0)], Some(ARRAY_BUFFER), true);
        assert_eq!((a, view, c), (0, 1, 1));
        let glb = b.to_glb();
        assert_eq!(glb.len() % 4, 0);
        let chunks = decode_glb(&glb).unwrap();
        let json = std::str::from_utf8(chunks.json).unwrap();
        assert!(json.contains(r#""byteOffset":16"#), "third view must start aligned: {json}");
        assert!(json.contains(r#""min":[-1.0,-2.0,0.0],"max":[1.0,4.0,3.0]"#), "{json}");
        assert_eq!(chunks.bin.unwrap().len(), 40);
        assert!(decode_glb(b"glTF\x01\0\0\0").is_err());
        assert!(gltf::Gltf::from_slice(&glb).is_ok(), "the builder's output validates");
    }
}
