//! A small, general glTF 2.0 binary (`.glb`) builder, plus the GLB container codec.
//!
//! Method: [`GlbBuilder`] owns one binary buffer and the top-level JSON arrays. Typed data
//! (`Vec3` positions, `Quat` rotations, `u16` joint indices, `Mat4` inverse binds, ...) goes in
//! through `push_*` calls, each of which appends a 4-byte-aligned buffer view and an accessor
//! and returns the accessor index. Nodes, meshes, materials, skins, animations and scenes are
//! plain [`Json`] objects added in order; their index is returned so later objects can refer to
//! them. [`GlbBuilder::to_glb`] writes the container.
//!
//! Invariants: output is deterministic (ordered JSON, no timestamps); every buffer view starts
//! on a 4-byte boundary; accessors that the spec requires bounds for (`POSITION`, animation
//! inputs) get exact `min`/`max`; empty top-level arrays are omitted, as the spec requires.
//! [`encode_glb`] / [`decode_glb`] are exact inverses on the chunk contents (up to padding).

use glam::{Mat4, Quat, Vec3, Vec4};

use crate::ToolError;
use crate::json::Json;

/// `componentType` of unsigned 16-bit integers.
pub const UNSIGNED_SHORT: u32 = 5123;
/// `componentType` of unsigned 32-bit integers.
pub const UNSIGNED_INT: u32 = 5125;
/// `componentType` of 32-bit floats.
pub const FLOAT: u32 = 5126;
/// Buffer view target for vertex attributes.
pub const ARRAY_BUFFER: u32 = 34962;
/// Buffer view target for vertex indices.
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// Builds a glTF binary: one buffer, typed accessors, and JSON objects added in order.
#[derive(Clone, Debug, Default)]
pub struct GlbBuilder {
    generator: String,
    bin: Vec<u8>,
    buffer_views: Vec<Json>,
    accessors: Vec<Json>,
    nodes: Vec<Json>,
    meshes: Vec<Json>,
    materials: Vec<Json>,
    skins: Vec<Json>,
    animations: Vec<Json>,
    scenes: Vec<Json>,
    scene: Option<usize>,
}

impl GlbBuilder {
    /// An empty document; `generator` goes into `asset.generator`.
    pub fn new(generator: &str) -> Self {
        GlbBuilder { generator: generator.to_string(), ..Default::default() }
    }

    /// Appends raw bytes as a buffer view (4-byte aligned); returns the view index.
    pub fn push_view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view = Json::obj().with("buffer", 0).with("byteOffset", self.bin.len()).with("byteLength", bytes.len());
        if let Some(target) = target {
            view.set("target", target);
        }
        self.bin.extend_from_slice(bytes);
        self.buffer_views.push(view);
        self.buffer_views.len() - 1
    }

    /// Adds an accessor over a whole buffer view; returns the accessor index.
    pub fn push_accessor(
        &mut self,
        view: usize,
        component_type: u32,
        count: usize,
        kind: &str,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> usize {
        let mut accessor = Json::obj()
            .with("bufferView", view)
            .with("componentType", component_type)
            .with("count", count)
            .with("type", kind);
        if let Some((min, max)) = bounds {
            accessor.set("min", min);
            accessor.set("max", max);
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// `VEC3` float accessor (positions, normals, translations); `bounds` adds `min`/`max`.
    pub fn push_vec3(&mut self, values: &[Vec3], target: Option<u32>, bounds: bool) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().flat_map(|v| v.to_array())), target);
        let b = bounds.then(|| component_bounds(values.iter().map(|v| v.to_array().to_vec()), 3));
        self.push_accessor(view, FLOAT, values.len(), "VEC3", b)
    }

    /// `VEC4` float accessor (skin weights, tangents).
    pub fn push_vec4(&mut self, values: &[Vec4], target: Option<u32>) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().flat_map(|v| v.to_array())), target);
        self.push_accessor(view, FLOAT, values.len(), "VEC4", None)
    }

    /// `VEC4` float accessor of rotations, stored `x, y, z, w` as glTF wants.
    pub fn push_quat(&mut self, values: &[Quat]) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().flat_map(|q| q.to_array())), None);
        self.push_accessor(view, FLOAT, values.len(), "VEC4", None)
    }

    /// `SCALAR` float accessor (animation times, morph weights); `bounds` adds `min`/`max`.
    pub fn push_f32(&mut self, values: &[f32], bounds: bool) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().copied()), None);
        let b = bounds.then(|| component_bounds(values.iter().map(|v| vec![*v]), 1));
        self.push_accessor(view, FLOAT, values.len(), "SCALAR", b)
    }

    /// `MAT4` float accessor (inverse bind matrices), column-major as glTF wants.
    pub fn push_mat4(&mut self, values: &[Mat4]) -> usize {
        let view = self.push_view(&f32_bytes(values.iter().flat_map(|m| m.to_cols_array())), None);
        self.push_accessor(view, FLOAT, values.len(), "MAT4", None)
    }

    /// `VEC4` unsigned-short accessor (skin joint indices).
    pub fn push_u16x4(&mut self, values: &[[u16; 4]], target: Option<u32>) -> usize {
        let bytes: Vec<u8> = values.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.push_view(&bytes, target);
        self.push_accessor(view, UNSIGNED_SHORT, values.len(), "VEC4", None)
    }

    /// `SCALAR` index accessor: unsigned short when every index fits, else unsigned int.
    pub fn push_indices(&mut self, indices: &[u32]) -> usize {
        let max = indices.iter().copied().max().unwrap_or(0);
        if max < u16::MAX as u32 {
            let bytes: Vec<u8> = indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect();
            let view = self.push_view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
            self.push_accessor(view, UNSIGNED_SHORT, indices.len(), "SCALAR", None)
        } else {
            let bytes: Vec<u8> = indices.iter().flat_map(|&i| i.to_le_bytes()).collect();
            let view = self.push_view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
            self.push_accessor(view, UNSIGNED_INT, indices.len(), "SCALAR", None)
        }
    }

    /// Adds a node; returns its index.
    pub fn add_node(&mut self, node: Json) -> usize {
        push(&mut self.nodes, node)
    }

    /// Replaces a node added earlier (e.g. to fill in `children` once they exist).
    pub fn set_node(&mut self, index: usize, node: Json) {
        if let Some(slot) = self.nodes.get_mut(index) {
            *slot = node;
        }
    }

    /// Adds a mesh; returns its index.
    pub fn add_mesh(&mut self, mesh: Json) -> usize {
        push(&mut self.meshes, mesh)
    }

    /// Adds a material; returns its index.
    pub fn add_material(&mut self, material: Json) -> usize {
        push(&mut self.materials, material)
    }

    /// Adds a skin; returns its index.
    pub fn add_skin(&mut self, skin: Json) -> usize {
        push(&mut self.skins, skin)
    }

    /// Adds an animation; returns its index.
    pub fn add_animation(&mut self, animation: Json) -> usize {
        push(&mut self.animations, animation)
    }

    /// Adds a scene; the first one added becomes the default `scene`. Returns its index.
    pub fn add_scene(&mut self, scene: Json) -> usize {
        let index = push(&mut self.scenes, scene);
        self.scene.get_or_insert(index);
        index
    }

    /// The document's JSON (without the binary chunk).
    pub fn json(&self) -> Json {
        let mut root =
            Json::obj().with("asset", Json::obj().with("version", "2.0").with("generator", self.generator.as_str()));
        if let Some(scene) = self.scene {
            root.set("scene", scene);
        }
        let buffers = if self.bin.is_empty() { vec![] } else { vec![Json::obj().with("byteLength", self.bin.len())] };
        let arrays: [(&str, &Vec<Json>); 9] = [
            ("scenes", &self.scenes),
            ("nodes", &self.nodes),
            ("meshes", &self.meshes),
            ("materials", &self.materials),
            ("skins", &self.skins),
            ("animations", &self.animations),
            ("accessors", &self.accessors),
            ("bufferViews", &self.buffer_views),
            ("buffers", &buffers),
        ];
        for (key, items) in arrays {
            if !items.is_empty() {
                root.set(key, Json::Arr(items.clone()));
            }
        }
        root
    }

    /// The `.glb` bytes.
    pub fn to_glb(&self) -> Vec<u8> {
        encode_glb(&self.json().to_json_string(), &self.bin)
    }
}

fn push(list: &mut Vec<Json>, item: Json) -> usize {
    list.push(item);
    list.len() - 1
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

/// GLB container magic, `"glTF"` little-endian.
const MAGIC: u32 = 0x4654_6C67;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// Wraps JSON text and a binary buffer into a GLB container (version 2). The JSON chunk is
/// padded with spaces and the binary chunk with zeros to 4-byte multiples; an empty `bin`
/// writes no binary chunk.
pub fn encode_glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let json_len = json.len().next_multiple_of(4);
    let bin_len = bin.len().next_multiple_of(4);
    let total = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin_len };
    let mut out = Vec::with_capacity(total);
    for word in [MAGIC, 2, total as u32, json_len as u32, CHUNK_JSON] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(json.as_bytes());
    out.resize(20 + json_len, b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    out
}

/// The two chunks of a GLB container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlbChunks<'a> {
    /// The JSON chunk (may end with padding spaces).
    pub json: &'a [u8],
    /// The binary chunk, when present (may end with padding zeros).
    pub bin: Option<&'a [u8]>,
}

/// Splits a GLB container into its JSON and binary chunks, checking the header and lengths.
pub fn decode_glb(bytes: &[u8]) -> Result<GlbChunks<'_>, ToolError> {
    let word = |at: usize| -> Result<u32, ToolError> {
        let b = bytes.get(at..at + 4).ok_or_else(|| ToolError::Format("GLB truncated".into()))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if word(0)? != MAGIC || word(4)? != 2 {
        return Err(ToolError::Format("not a glTF 2.0 binary".into()));
    }
    let total = (word(8)? as usize).min(bytes.len());
    let chunk = |at: usize, kind: u32| -> Result<Option<&[u8]>, ToolError> {
        if at + 8 > total {
            return Ok(None);
        }
        let (len, found) = (word(at)? as usize, word(at + 4)?);
        let data = bytes.get(at + 8..at + 8 + len).ok_or_else(|| ToolError::Format("GLB chunk truncated".into()))?;
        if found != kind {
            return Err(ToolError::Format(format!("unexpected GLB chunk type {found:#x}")));
        }
        Ok(Some(data))
    };
    let json = chunk(12, CHUNK_JSON)?.ok_or_else(|| ToolError::Format("GLB has no JSON chunk".into()))?;
    let bin = chunk(12 + 8 + json.len(), CHUNK_BIN)?;
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
        assert!(json.contains(r#""min":[-1,-2,0],"max":[1,4,3]"#), "{json}");
        assert_eq!(chunks.bin.unwrap().len(), 40);
        assert!(decode_glb(b"glTF\x01\0\0\0").is_err());
    }
}
