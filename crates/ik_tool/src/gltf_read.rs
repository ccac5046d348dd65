//! Loads a glTF binary (`.glb`) for the `contacts` and `clean` commands.
//!
//! Method: the container is checked by hand first (magic, declared length against the file's,
//! chunk bounds) so a wrong or truncated file gets a plain message; the `gltf` crate then
//! validates the document; the JSON chunk is parsed into an ordered [`Json`] (kept whole, so the
//! file can be rewritten with every field it had) and the node hierarchy, skins and animation
//! clips are read from it. Accessors are read with every offset, stride and length checked.
//!
//! Inputs: the file's bytes and a label (its path) for messages. Outputs: a [`Document`].
//!
//! Invariants: never panics on any input; every failure is a [`ToolError::Input`] whose message
//! starts with the label and names the problem; every value read is finite; node parents come
//! from `children` lists and [`Document::order`] lists parents before children.

use glam::{Mat4, Quat, Vec3, Vec4};
use ik_core::Xform;

use crate::ToolError;
use crate::gltf_write::decode_glb;
use crate::json::Json;

/// One node of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The node's name (`node N` when it has none).
    pub name: String,
    /// Parent node index.
    pub parent: Option<usize>,
    /// The node's own transform (`matrix` decomposed, or TRS).
    pub rest: Xform,
}

/// Which part of a node's transform a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// `translation` (values are `xyz_`).
    Translation,
    /// `rotation` (values are `xyzw` quaternions).
    Rotation,
    /// `scale` (values are `xyz_`).
    Scale,
}

impl Property {
    /// The glTF `path` name.
    pub fn name(self) -> &'static str {
        match self {
            Property::Translation => "translation",
            Property::Rotation => "rotation",
            Property::Scale => "scale",
        }
    }
}

/// How a sampler interpolates between keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold each key.
    Step,
    /// Linear (spherical linear for rotations).
    Linear,
    /// Cubic Hermite with stored tangents: values are `[in, value, out]` per key.
    CubicSpline,
}

/// One animated node property.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// Index of the channel in its animation.
    pub index: usize,
    /// Index of its sampler in the animation.
    pub sampler: usize,
    /// Target node.
    pub node: usize,
    /// Target property.
    pub property: Property,
    /// Interpolation of the sampler.
    pub interpolation: Interpolation,
    /// Accessor index of the key times.
    pub input: usize,
    /// Key times, seconds, non-decreasing.
    pub times: Vec<f32>,
    /// Key values (three per key for cubic splines); `w` unused for translation and scale.
    pub values: Vec<Vec4>,
}

/// One animation of the file (morph-weight channels are skipped).
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// Index of the animation in the file.
    pub index: usize,
    /// Its name (`animation N` when it has none).
    pub name: String,
    /// Its node channels.
    pub channels: Vec<Channel>,
}

impl Clip {
    /// Time of the first and the last key over every channel.
    pub fn span(&self) -> (f32, f32) {
        let first = self.channels.iter().filter_map(|c| c.times.first()).fold(f32::INFINITY, |a, &b| a.min(b));
        let last = self.channels.iter().filter_map(|c| c.times.last()).fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        if first <= last { (first, last) } else { (0.0, 0.0) }
    }
}

/// A loaded `.glb`.
#[derive(Clone, Debug)]
pub struct Document {
    /// How messages name the file (its path).
    pub label: String,
    /// The whole JSON chunk.
    pub json: Json,
    /// The binary chunk (empty when there is none).
    pub bin: Vec<u8>,
    /// Every node, by glTF index.
    pub nodes: Vec<Node>,
    /// Node indices, parents before children.
    pub order: Vec<usize>,
    /// Node indices used as joints by any skin.
    pub joints: Vec<usize>,
    /// The animations.
    pub clips: Vec<Clip>,
}

impl Document {
    /// A bad-input error about this file.
    pub fn bad(&self, message: impl core::fmt::Display) -> ToolError {
        ToolError::Input(format!("{}: {message}", self.label))
    }

    /// Names of every clip, comma-separated, for messages.
    pub fn clip_names(&self) -> String {
        self.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
    }

    /// The clip with this name, or an error listing the names there are.
    pub fn clip(&self, name: &str) -> Result<&Clip, ToolError> {
        self.clips
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| self.bad(format!("no animation named \"{name}\" (found: {})", self.clip_names())))
    }
}

/// Reads and loads a `.glb` file; see [`parse`].
pub fn load(path: &std::path::Path) -> Result<Document, ToolError> {
    let label = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ToolError::Input(format!("{label}: cannot read: {e}")))?;
    parse(&label, &bytes)
}

/// Loads a `.glb` from its bytes. Requires a skin, at least one animation, and only the binary
/// chunk as buffer data.
pub fn parse(label: &str, bytes: &[u8]) -> Result<Document, ToolError> {
    let bad = |m: String| ToolError::Input(format!("{label}: {m}"));
    if !bytes.starts_with(b"glTF") {
        let text = bytes.iter().find(|b| !b.is_ascii_whitespace());
        return Err(bad(if text == Some(&b'{') {
            "a JSON .gltf file; ik_tool reads binary .glb files (export as glTF binary)".into()
        } else {
            "not a glTF binary (.glb): the file does not start with \"glTF\"".into()
        }));
    }
    if bytes.len() < 12 {
        return Err(bad(format!("truncated glTF binary: {} bytes, shorter than the 12-byte header", bytes.len())));
    }
    let declared = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    if declared > bytes.len() {
        return Err(bad(format!(
            "truncated glTF binary: the header says {declared} bytes, the file has {}",
            bytes.len()
        )));
    }
    let chunks = decode_glb(bytes).map_err(|e| bad(format!("broken glTF binary: {e}")))?;
    gltf::Gltf::from_slice(bytes).map_err(|e| bad(format!("invalid glTF: {e}")))?;
    let text = std::str::from_utf8(chunks.json).map_err(|_| bad("the JSON chunk is not UTF-8".into()))?;
    let json = Json::parse(text.trim_end_matches([' ', '\0', '\n', '\r', '\t'])).map_err(bad)?;
    let bin = chunks.bin.map(<[u8]>::to_vec).unwrap_or_default();
    if let Some(buffers) = json.get("buffers").and_then(Json::as_array) {
        for (i, buffer) in buffers.iter().enumerate() {
            if i > 0 || buffer.get("uri").is_some() {
                return Err(bad(format!("buffer {i} lives outside the file; only self-contained .glb files are read")));
            }
        }
    }
    let nodes = read_nodes(&json).map_err(bad)?;
    let order = parents_first(&nodes).map_err(bad)?;
    let skins = json.get("skins").and_then(Json::as_array).unwrap_or(&[]);
    if skins.is_empty() {
        return Err(bad("no skin: ik_tool needs a skinned character".into()));
    }
    let mut joints: Vec<usize> = skins
        .iter()
        .flat_map(|s| s.get("joints").and_then(Json::as_array).unwrap_or(&[]).iter().filter_map(Json::as_usize))
        .collect();
    joints.sort_unstable();
    joints.dedup();
    let animations = json.get("animations").and_then(Json::as_array).unwrap_or(&[]);
    if animations.is_empty() {
        return Err(bad("no animation".into()));
    }
    let reader = Accessors { json: &json, bin: &bin };
    let mut clips = Vec::new();
    for (index, animation) in animations.iter().enumerate() {
        let name =
            animation.get("name").and_then(Json::as_str).map_or_else(|| format!("animation {index}"), String::from);
        let channels =
            read_channels(&reader, animation, nodes.len()).map_err(|e| bad(format!("animation \"{name}\": {e}")))?;
        clips.push(Clip { index, name, channels });
    }
    Ok(Document { label: label.to_string(), json, bin, nodes, order, joints, clips })
}

fn number_list(value: Option<&Json>, n: usize) -> Option<Vec<f32>> {
    let items = value?.as_array()?;
    let list: Vec<f32> = items.iter().filter_map(|v| v.as_f64().map(|x| x as f32)).collect();
    (list.len() == n && items.len() == n).then_some(list)
}

fn read_nodes(json: &Json) -> Result<Vec<Node>, String> {
    let list = json.get("nodes").and_then(Json::as_array).unwrap_or(&[]);
    let mut nodes: Vec<Node> = Vec::with_capacity(list.len());
    for (i, node) in list.iter().enumerate() {
        let name = node.get("name").and_then(Json::as_str).map_or_else(|| format!("node {i}"), String::from);
        let rest = if let Some(m) = number_list(node.get("matrix"), 16) {
            let (scale, rotation, translation) = Mat4::from_cols_slice(&m).to_scale_rotation_translation();
            Xform { translation, rotation: rotation.normalize(), scale }
        } else {
            let t = number_list(node.get("translation"), 3).unwrap_or(vec![0.0; 3]);
            let r = number_list(node.get("rotation"), 4).unwrap_or(vec![0.0, 0.0, 0.0, 1.0]);
            let s = number_list(node.get("scale"), 3).unwrap_or(vec![1.0; 3]);
            Xform {
                translation: Vec3::from_slice(&t),
                rotation: Quat::from_slice(&r).normalize(),
                scale: Vec3::from_slice(&s),
            }
        };
        if !rest.is_finite() {
            return Err(format!("node {i} (\"{name}\") has a non-finite transform"));
        }
        nodes.push(Node { name, parent: None, rest });
    }
    for (i, node) in list.iter().enumerate() {
        for child in node.get("children").and_then(Json::as_array).unwrap_or(&[]) {
            let c = child.as_usize().filter(|&c| c < nodes.len()).ok_or(format!("node {i} has a bad child"))?;
            if nodes[c].parent.is_some() || c == i {
                return Err(format!("node {c} has more than one parent"));
            }
            nodes[c].parent = Some(i);
        }
    }
    Ok(nodes)
}

/// Node indices with every parent before its children (depth-first from the top nodes).
fn parents_first(nodes: &[Node]) -> Result<Vec<usize>, String> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            children[p].push(i);
        }
    }
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack: Vec<usize> = (0..nodes.len()).rev().filter(|&i| nodes[i].parent.is_none()).collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().rev());
    }
    if order.len() == nodes.len() { Ok(order) } else { Err("the node hierarchy has a cycle".into()) }
}

/// Checked accessor reads over the JSON and binary chunk.
struct Accessors<'a> {
    json: &'a Json,
    bin: &'a [u8],
}

impl Accessors<'_> {
    /// The accessor's elements as floats, `components` per element (normalized integers are
    /// mapped to [-1, 1] / [0, 1] as glTF defines).
    fn floats(&self, index: usize, components: usize) -> Result<Vec<f32>, String> {
        let accessor = self.json.get("accessors").and_then(Json::as_array).and_then(|a| a.get(index));
        let accessor = accessor.ok_or(format!("accessor {index} missing"))?;
        let kind = accessor.get("type").and_then(Json::as_str).unwrap_or("");
        let want = match components {
            1 => "SCALAR",
            3 => "VEC3",
            _ => "VEC4",
        };
        if kind != want {
            return Err(format!("accessor {index} is {kind}, expected {want}"));
        }
        if accessor.get("sparse").is_some() {
            return Err(format!("accessor {index} is sparse, which ik_tool does not read"));
        }
        let count = accessor.get("count").and_then(Json::as_usize).ok_or(format!("accessor {index} has no count"))?;
        let component_type = accessor.get("componentType").and_then(Json::as_usize).unwrap_or(0);
        let normalized = accessor.get("normalized").and_then(Json::as_bool).unwrap_or(false);
        let size = match component_type {
            5126 => 4,
            5120 | 5121 if normalized => 1,
            5122 | 5123 if normalized => 2,
            _ => return Err(format!("accessor {index} holds neither floats nor normalized integers")),
        };
        let Some(view_index) = accessor.get("bufferView").and_then(Json::as_usize) else {
            return Ok(vec![0.0; count * components]);
        };
        let view = self.json.get("bufferViews").and_then(Json::as_array).and_then(|v| v.get(view_index));
        let view = view.ok_or(format!("buffer view {view_index} missing"))?;
        let view_offset = view.get("byteOffset").and_then(Json::as_usize).unwrap_or(0);
        let view_length = view.get("byteLength").and_then(Json::as_usize).unwrap_or(0);
        let offset = accessor.get("byteOffset").and_then(Json::as_usize).unwrap_or(0);
        let element = size * components;
        let stride = view.get("byteStride").and_then(Json::as_usize).unwrap_or(element).max(element);
        let needed = if count == 0 { 0 } else { offset + (count - 1) * stride + element };
        let view_end = view_offset.checked_add(view_length).filter(|&e| e <= self.bin.len());
        let view_end = view_end.ok_or(format!("buffer view {view_index} runs past the binary chunk"))?;
        if needed > view_length {
            return Err(format!("accessor {index} runs past its buffer view"));
        }
        let data = &self.bin[view_offset..view_end];
        let mut out = Vec::with_capacity(count * components);
        for e in 0..count {
            for c in 0..components {
                let at = offset + e * stride + c * size;
                let b = &data[at..at + size];
                out.push(match component_type {
                    5126 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    5120 => (b[0] as i8 as f32 / 127.0).max(-1.0),
                    5121 => b[0] as f32 / 255.0,
                    5122 => (i16::from_le_bytes([b[0], b[1]]) as f32 / 32767.0).max(-1.0),
                    _ => u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0,
                });
            }
        }
        if out.iter().all(|v| v.is_finite()) { Ok(out) } else { Err(format!("accessor {index} holds NaN or infinity")) }
    }
}

fn read_channels(reader: &Accessors<'_>, animation: &Json, node_count: usize) -> Result<Vec<Channel>, String> {
    let samplers = animation.get("samplers").and_then(Json::as_array).unwrap_or(&[]);
    let mut channels = Vec::new();
    for (index, channel) in animation.get("channels").and_then(Json::as_array).unwrap_or(&[]).iter().enumerate() {
        let target = channel.get("target");
        let property = match target.and_then(|t| t.get("path")).and_then(Json::as_str) {
            Some("translation") => Property::Translation,
            Some("rotation") => Property::Rotation,
            Some("scale") => Property::Scale,
            _ => continue, // morph weights and extension paths do not move bones
        };
        let Some(node) = target.and_then(|t| t.get("node")).and_then(Json::as_usize).filter(|&n| n < node_count) else {
            continue;
        };
        let sampler_index = channel.get("sampler").and_then(Json::as_usize).unwrap_or(usize::MAX);
        let sampler = samplers.get(sampler_index).ok_or(format!("channel {index} has a bad sampler"))?;
        let interpolation = match sampler.get("interpolation").and_then(Json::as_str).unwrap_or("LINEAR") {
            "STEP" => Interpolation::Step,
            "CUBICSPLINE" => Interpolation::CubicSpline,
            _ => Interpolation::Linear,
        };
        let input = sampler.get("input").and_then(Json::as_usize).ok_or(format!("channel {index} has no input"))?;
        let output = sampler.get("output").and_then(Json::as_usize).ok_or(format!("channel {index} has no output"))?;
        let times = reader.floats(input, 1).map_err(|e| format!("channel {index}: {e}"))?;
        let components = if property == Property::Rotation { 4 } else { 3 };
        let raw = reader.floats(output, components).map_err(|e| format!("channel {index}: {e}"))?;
        let values: Vec<Vec4> = raw
            .chunks_exact(components)
            .map(|v| if components == 4 { Vec4::from_slice(v) } else { Vec3::from_slice(v).extend(0.0) })
            .collect();
        let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        if times.is_empty() || values.len() != times.len() * per_key {
            return Err(format!("channel {index} has {} keys but {} values", times.len(), values.len()));
        }
        if times.windows(2).any(|w| w[1] < w[0]) {
            return Err(format!("channel {index} has key times out of order"));
        }
        channels.push(Channel { index, sampler: sampler_index, node, property, interpolation, input, times, values });
    }
    Ok(channels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_containers_get_plain_messages() {
        let message = |bytes: &[u8]| match parse("x.glb", bytes) {
            Err(ToolError::Input(m)) => m,
            other => panic!("expected an input error, got {other:?}"),
        };
        assert!(message(b"PK\x03\x04 zip").contains("not a glTF binary"));
        assert!(message(b"  {\"asset\":{}}").contains(".gltf"));
        assert!(message(b"glTF\x02\0\0\0").contains("truncated"));
        assert!(message(b"glTF\x02\0\0\0\xff\0\0\0....").contains("header says 255 bytes"));
    }
}
