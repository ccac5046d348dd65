//! Loads a glTF file (`.glb`, or `.gltf` with external or embedded buffers) for the `contacts`
//! and `clean` commands.
//!
//! Method: a binary container's header is checked first (magic, declared length against the
//! file's) so a wrong or truncated file gets a plain message; the `gltf` crate then parses the
//! document and [`crate::gltf_check`] checks every index and enum the crate would `unwrap`
//! before anything iterates it, then runs the crate's validation. Buffers are resolved: the binary chunk,
//! a `data:` URI (base64), or a file next to the input. The node hierarchy, skins and animation
//! clips are read through the document; key data is read with the crate's accessor readers
//! (dense or **sparse** storage, normalized integer rotations) after every accessor's offsets,
//! strides and lengths have been checked against its buffers with checked arithmetic. The
//! document's JSON ([`gltf::json::Root`]) and the buffers are kept, so the file can be rewritten
//! with every field it had ([`crate::gltf_patch`]).
//!
//! Inputs: the file's bytes, a label (its path) for messages, and the folder that external
//! buffers are relative to. Outputs: a [`Document`].
//!
//! Invariants: never panics on any input; every failure is a [`ToolError::Input`] whose message
//! starts with the label and names the problem; every value read is finite; node parents come
//! from `children` lists and [`Document::order`] lists parents before children.

use std::path::Path;

use base64::Engine as _;
use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::util::ReadOutputs;
use ik_core::Xform;

use crate::ToolError;

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

    /// The `gltf-json` path.
    pub fn json(self) -> gltf::json::animation::Property {
        match self {
            Property::Translation => gltf::json::animation::Property::Translation,
            Property::Rotation => gltf::json::animation::Property::Rotation,
            Property::Scale => gltf::json::animation::Property::Scale,
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

/// A loaded glTF file.
#[derive(Clone, Debug)]
pub struct Document {
    /// How messages name the file (its path).
    pub label: String,
    /// The whole document, as `gltf-json` values.
    pub root: gltf::json::Root,
    /// The data of every buffer, by index (buffer 0 of a `.glb` is its binary chunk).
    pub buffers: Vec<Vec<u8>>,
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

    /// The file's own name of animation `index` (`None` when it has none).
    pub fn animation_name(&self, index: usize) -> Option<&str> {
        self.root.animations.get(index).and_then(|a| a.name.as_deref())
    }

    /// The `extras` of animation `index`, parsed (`None` when absent or not JSON).
    pub fn animation_extras(&self, index: usize) -> Option<serde_json::Value> {
        let raw = self.root.animations.get(index)?.extras.as_ref()?;
        serde_json::from_str(raw.get()).ok()
    }
}

/// Reads and loads a `.glb` or `.gltf` file; external buffers are read from its folder. See
/// [`parse_in`].
pub fn load(path: &Path) -> Result<Document, ToolError> {
    let label = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ToolError::Input(format!("{label}: cannot read: {e}")))?;
    let folder = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
    parse_in(&label, &bytes, folder)
}

/// Loads a glTF file from its bytes, refusing buffers in other files; see [`parse_in`].
pub fn parse(label: &str, bytes: &[u8]) -> Result<Document, ToolError> {
    parse_in(label, bytes, None)
}

/// Loads a glTF file from its bytes; buffers given by a relative URI are read from `folder`
/// (with `None`, such a buffer is an error). Requires a skin and at least one animation.
pub fn parse_in(label: &str, bytes: &[u8], folder: Option<&Path>) -> Result<Document, ToolError> {
    parse_checked(label, bytes, folder, true)
}

/// Reads and loads a character that may have no animation (a retarget's target): as [`load`],
/// requiring a skin only.
pub fn load_character(path: &Path) -> Result<Document, ToolError> {
    let label = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ToolError::Input(format!("{label}: cannot read: {e}")))?;
    let folder = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
    parse_checked(&label, &bytes, folder, false)
}

/// [`parse_in`], with the animation requirement optional.
fn parse_checked(label: &str, bytes: &[u8], folder: Option<&Path>, animated: bool) -> Result<Document, ToolError> {
    let bad = |m: String| ToolError::Input(format!("{label}: {m}"));
    check_container(bytes).map_err(bad)?;
    let gltf = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| bad(format!("invalid glTF: {e}")))?;
    let raw = match gltf::binary::Glb::from_slice(bytes) {
        Ok(glb) => glb.json.into_owned(),
        Err(_) => bytes.to_vec(),
    };
    crate::gltf_check::check(gltf.document.as_json(), &raw).map_err(bad)?;
    let buffers = read_buffers(&gltf, folder).map_err(bad)?;
    let document = &gltf.document;
    let nodes = read_nodes(document).map_err(bad)?;
    let order = parents_first(&nodes).map_err(bad)?;
    if document.skins().len() == 0 {
        return Err(bad("no skin: ik_tool needs a skinned character".into()));
    }
    let mut joints: Vec<usize> = document.skins().flat_map(|s| s.joints().map(|j| j.index())).collect();
    joints.sort_unstable();
    joints.dedup();
    if animated && document.animations().len() == 0 {
        return Err(bad("no animation".into()));
    }
    let mut clips = Vec::new();
    for animation in document.animations() {
        let index = animation.index();
        let name = animation.name().map_or_else(|| format!("animation {index}"), String::from);
        let channels = read_channels(&animation, &buffers).map_err(|e| bad(format!("animation \"{name}\": {e}")))?;
        clips.push(Clip { index, name, channels });
    }
    let root = gltf.document.into_json();
    Ok(Document { label: label.to_string(), root, buffers, nodes, order, joints, clips })
}

/// Plain messages for what is not a glTF file at all, or a truncated binary one.
fn check_container(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(b"glTF") {
        let text = bytes.iter().find(|b| !b.is_ascii_whitespace());
        return match (text == Some(&b'{'), not_gltf(bytes)) {
            (true, _) => Ok(()),
            (false, Some(what)) => Err(format!("not a glTF file: {what}")),
            (false, None) => {
                Err("not a glTF file: neither a glTF binary (.glb, starting with \"glTF\") nor glTF JSON (.gltf)"
                    .into())
            }
        };
    }
    if bytes.len() < 12 {
        return Err(format!("truncated glTF binary: {} bytes, shorter than the 12-byte header", bytes.len()));
    }
    let declared = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    if declared > bytes.len() {
        return Err(format!("truncated glTF binary: the header says {declared} bytes, the file has {}", bytes.len()));
    }
    if declared < 20 {
        return Err(format!("broken glTF binary: the header says {declared} bytes, too few for a JSON chunk"));
    }
    Ok(())
}

/// What a file that is not glTF is, when its first bytes say so, and what to do about it.
fn not_gltf(bytes: &[u8]) -> Option<&'static str> {
    const FBX: &str = "an FBX file; convert it to glTF first (Blender: File > Import > FBX, then Export > glTF 2.0)";
    const PAGE: &str = "a web page (HTML), probably saved from a repository's page; download the raw file instead";
    const LFS: &str = "a Git LFS pointer, not the file itself; run `git lfs pull` or download the raw file";
    const ZIP: &str = "a zip archive; unpack it and give the .glb or .gltf inside";
    let kinds = [
        ("kaydara fbx binary", FBX),
        ("; fbx", FBX),
        ("<!doctype html", PAGE),
        ("<html", PAGE),
        ("version https://git-lfs", LFS),
        ("pk\u{3}\u{4}", ZIP),
    ];
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]).trim_start().to_ascii_lowercase();
    kinds.iter().find(|(start, _)| head.starts_with(start)).map(|(_, what)| *what)
}

/// The data of every buffer: the binary chunk, a base64 `data:` URI or a file in `folder`.
fn read_buffers(gltf: &gltf::Gltf, folder: Option<&Path>) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    for buffer in gltf.document.buffers() {
        let i = buffer.index();
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => {
                gltf.blob.clone().ok_or(format!("buffer {i} is the binary chunk, which the file does not have"))?
            }
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                let (_, payload) = uri
                    .split_once(";base64,")
                    .ok_or(format!("buffer {i}: a data URI that is not base64, which ik_tool does not read"))?;
                base64::engine::general_purpose::STANDARD
                    .decode(payload)
                    .map_err(|e| format!("buffer {i}: bad base64 data: {e}"))?
            }
            gltf::buffer::Source::Uri(uri) => {
                if uri.contains("://") {
                    return Err(format!("buffer {i} is at a URL ({uri}); ik_tool reads files only"));
                }
                let folder = folder.ok_or(format!("buffer {i} lives in another file ({uri})"))?;
                let path = folder.join(percent_decoded(uri));
                std::fs::read(&path).map_err(|e| format!("buffer {i}: cannot read {}: {e}", path.display()))?
            }
        };
        if data.len() < buffer.length() {
            return Err(format!("buffer {i} has {} bytes, the file says {}", data.len(), buffer.length()));
        }
        out.push(data);
    }
    Ok(out)
}

/// A URI path with `%XX` escapes decoded (invalid escapes are kept as written).
fn percent_decoded(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn read_nodes(document: &gltf::Document) -> Result<Vec<Node>, String> {
    let mut nodes: Vec<Node> = Vec::with_capacity(document.nodes().len());
    for node in document.nodes() {
        let i = node.index();
        let name = node.name().map_or_else(|| format!("node {i}"), String::from);
        let rest = match node.transform() {
            gltf::scene::Transform::Matrix { matrix } => {
                let (scale, rotation, translation) = Mat4::from_cols_array_2d(&matrix).to_scale_rotation_translation();
                Xform { translation, rotation: rotation.normalize(), scale }
            }
            gltf::scene::Transform::Decomposed { translation, rotation, scale } => Xform {
                translation: Vec3::from_array(translation),
                rotation: Quat::from_array(rotation).normalize(),
                scale: Vec3::from_array(scale),
            },
        };
        if !rest.is_finite() {
            return Err(format!("node {i} (\"{name}\") has a non-finite transform"));
        }
        nodes.push(Node { name, parent: None, rest });
    }
    for node in document.nodes() {
        let i = node.index();
        for child in node.children() {
            let c = child.index();
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

/// Checks that `count` elements of `element` bytes, `stride` apart from `offset` in `view`, lie
/// inside the view and the view inside its buffer (all in checked arithmetic).
fn check_range(
    what: &str,
    view: &gltf::buffer::View<'_>,
    offset: usize,
    count: usize,
    element: usize,
    buffers: &[Vec<u8>],
) -> Result<(), String> {
    let v = view.index();
    let stride = view.stride().unwrap_or(element);
    if stride < element {
        return Err(format!(
            "{what}: buffer view {v} has a stride of {stride} bytes, less than an element ({element})"
        ));
    }
    let buffer = buffers.get(view.buffer().index()).map_or(0, Vec::len);
    let view_end = view.offset().checked_add(view.length()).filter(|&end| end <= buffer);
    view_end.ok_or(format!("{what}: buffer view {v} runs past its buffer"))?;
    let needed = count
        .checked_sub(1)
        .and_then(|n| n.checked_mul(stride))
        .and_then(|n| n.checked_add(element))
        .and_then(|n| n.checked_add(offset))
        .filter(|&n| n <= view.length());
    needed.map(|_| ()).ok_or(format!("{what} runs past buffer view {v}"))
}

/// Checks an accessor before the `gltf` readers run on it: its type, component type, count, and
/// every range of its dense and sparse storage.
fn check_accessor(
    accessor: &gltf::Accessor<'_>,
    dimensions: Dimensions,
    rotation: bool,
    buffers: &[Vec<u8>],
) -> Result<(), String> {
    let index = accessor.index();
    if accessor.dimensions() != dimensions {
        return Err(format!("accessor {index} is {:?}, expected {dimensions:?}", accessor.dimensions()));
    }
    let normalized_int = accessor.normalized() && accessor.data_type() != DataType::U32;
    if !(accessor.data_type() == DataType::F32 || rotation && normalized_int) {
        return Err(format!("accessor {index} holds {:?} values, not floats", accessor.data_type()));
    }
    if accessor.count() == 0 {
        return Err(format!("accessor {index} is empty"));
    }
    let element = accessor.size();
    let what = format!("accessor {index}");
    if let Some(view) = accessor.view() {
        check_range(&what, &view, accessor.offset(), accessor.count(), element, buffers)?;
    }
    if let Some(sparse) = accessor.sparse() {
        let count = sparse.count();
        if count == 0 || count > accessor.count() {
            return Err(format!("accessor {index}: {count} sparse values for {} elements", accessor.count()));
        }
        let indices = sparse.indices();
        let index_size = indices.index_type().size();
        check_range(
            &format!("{what} (sparse indices)"),
            &indices.view(),
            indices.offset(),
            count,
            index_size,
            buffers,
        )?;
        let values = sparse.values();
        check_range(&format!("{what} (sparse values)"), &values.view(), values.offset(), count, element, buffers)?;
    }
    Ok(())
}

/// Every element of a checked accessor, or an error when the reader returns fewer than `count`.
fn complete<T>(index: usize, count: usize, values: Option<impl Iterator<Item = T>>) -> Result<Vec<T>, String> {
    let values: Vec<T> = values.map(Iterator::collect).unwrap_or_default();
    if values.len() == count { Ok(values) } else { Err(format!("accessor {index} could not be read")) }
}

fn read_channels(animation: &gltf::Animation<'_>, buffers: &[Vec<u8>]) -> Result<Vec<Channel>, String> {
    let mut channels = Vec::new();
    let data = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);
    for (index, channel) in animation.channels().enumerate() {
        let property = match channel.target().property() {
            gltf::animation::Property::Translation => Property::Translation,
            gltf::animation::Property::Rotation => Property::Rotation,
            gltf::animation::Property::Scale => Property::Scale,
            gltf::animation::Property::MorphTargetWeights => continue, // does not move bones
        };
        let node = channel.target().node().index();
        let sampler = channel.sampler();
        let interpolation = match sampler.interpolation() {
            gltf::animation::Interpolation::Step => Interpolation::Step,
            gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
            gltf::animation::Interpolation::Linear => Interpolation::Linear,
        };
        let (input, output) = (sampler.input(), sampler.output());
        let at = |e: String| format!("channel {index}: {e}");
        check_accessor(&input, Dimensions::Scalar, false, buffers).map_err(at)?;
        let is_rotation = property == Property::Rotation;
        let dimensions = if is_rotation { Dimensions::Vec4 } else { Dimensions::Vec3 };
        check_accessor(&output, dimensions, is_rotation, buffers).map_err(at)?;
        let reader = channel.reader(data);
        let times = complete(input.index(), input.count(), reader.read_inputs()).map_err(at)?;
        let values: Vec<Vec4> = match reader.read_outputs() {
            Some(ReadOutputs::Translations(v)) | Some(ReadOutputs::Scales(v)) => {
                complete(output.index(), output.count(), Some(v.map(|x| Vec3::from_array(x).extend(0.0))))
            }
            Some(ReadOutputs::Rotations(r)) => {
                complete(output.index(), output.count(), Some(r.into_f32().map(Vec4::from_array)))
            }
            _ => Err(format!("accessor {} could not be read", output.index())),
        }
        .map_err(at)?;
        if !times.iter().all(|t| t.is_finite()) || !values.iter().all(|v| v.is_finite()) {
            return Err(at("NaN or infinity in its keys".into()));
        }
        let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        if values.len() != times.len() * per_key {
            return Err(format!("channel {index} has {} keys but {} values", times.len(), values.len()));
        }
        if times.windows(2).any(|w| w[1] < w[0]) {
            return Err(format!("channel {index} has key times out of order"));
        }
        let (sampler, input) = (sampler.index(), input.index());
        channels.push(Channel { index, sampler, node, property, interpolation, input, times, values });
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
        assert!(message(b"PK\x03\x04 zip").contains("not a glTF file: a zip archive"));
        assert!(message(b"Kaydara FBX Binary  \0\x1a\0").contains("an FBX file; convert it"));
        assert!(message(b"\n<!DOCTYPE html>\n<html>").contains("a web page (HTML)"));
        assert!(message(b"version https://git-lfs.github.com/spec/v1\noid").contains("git lfs pull"));
        assert!(message(b"OBJ? no").contains("neither a glTF binary"));
        assert!(message(b"  {\"asset\":{\"version\":\"2.0\"}}").contains("no skin"));
        assert!(message(b"glTF\x02\0\0\0").contains("truncated"));
        assert!(message(b"glTF\x02\0\0\0\xff\0\0\0....").contains("header says 255 bytes"));
        assert!(message(b"glTF\x02\0\0\0\x04\0\0\0....").contains("too few"));
        assert!(message(b"{ not json").contains("invalid glTF"));
    }

    #[test]
    fn uris_are_percent_decoded() {
        assert_eq!(percent_decoded("my%20rig.bin"), "my rig.bin");
        assert_eq!(percent_decoded("100%.bin"), "100%.bin");
    }
}
