//! Assembles the mannequin glTF binary and its contact-label sidecar.
//!
//! Method: one scene with a top node `Mannequin` holding the bone hierarchy (top joint `root`)
//! and a node `mannequin_mesh` carrying the skinned mesh; one skin over every bone in skeleton
//! order, with inverse bind matrices from the bind pose; one mesh with two primitives (body and
//! accent material, each with only its own vertices: `POSITION`, `NORMAL`, `JOINTS_0` as
//! unsigned shorts, `WEIGHTS_0` as floats); one animation per clip with a `LINEAR` rotation
//! channel for every non-root bone and a `LINEAR` translation channel for the pelvis, sharing
//! the clip's key-time accessor. Each animation's `extras` holds the clip's metadata (see
//! [`clip_metadata`]); the sidecar is the same metadata keyed by clip name. The document is
//! built from `gltf-json` values and serialized by `serde_json`.
//!
//! Invariants: output bytes depend only on the inputs; only core glTF 2.0 features are used.

use glam::Vec4;
use gltf::json;
use json::validation::Checked;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::clips::Clip;
use super::mesh::{ACCENT, BODY, BodyMesh};
use super::skeleton::Rig;
use super::skin::{SkinWeights, inverse_bind_matrices};
use crate::gltf_write::{ARRAY_BUFFER, GlbBuilder, Index, channel, extras, linear_sampler};

/// Name of the scene's top node (the animation root in Bevy).
pub const ROOT_NODE: &str = "Mannequin";
/// Name of the node that carries the skinned mesh.
pub const MESH_NODE: &str = "mannequin_mesh";
/// Contact-label keys, `[left, right]`: the foot bone names.
pub const CONTACT_KEYS: [&str; 2] = ["foot_l", "foot_r"];

/// Named values serialized as a JSON object with the keys in this order.
#[derive(Clone, Debug, PartialEq)]
pub struct Ordered<T>(pub Vec<(String, T)>);

impl<T: Serialize> Serialize for Ordered<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// One clip's metadata, as written to the animation's `extras` and to the sidecar:
///
/// ```json
/// { "nominal_speed": 1.4, "duration": 1.05, "frame_rate": 60.0, "frame_count": 64,
///   "landing_phase": [0.0, 0.5],
///   "contacts": { "foot_l": [true, ...], "foot_r": [false, ...] } }
/// ```
///
/// `nominal_speed` is in m/s (the ground speed a planted ball moves backward at; the clip is in
/// place), `duration` the cycle in seconds, `frame_rate` the key rate in Hz, `frame_count` the
/// number of keys (the last key, at `duration`, repeats the first), `landing_phase` the cycle
/// phases at which the left and right feet land, and `contacts` one label per key for each
/// foot: `true` while that foot's ball is planted on the floor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClipMetadata {
    /// Ground speed, m/s.
    pub nominal_speed: f32,
    /// Cycle, s.
    pub duration: f32,
    /// Key rate, Hz.
    pub frame_rate: f32,
    /// Number of keys.
    pub frame_count: usize,
    /// Landing phases `[left, right]` (locomotion clips only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landing_phase: Option<[f32; 2]>,
    /// Labels per foot, keyed by the foot's name.
    pub contacts: Ordered<Vec<bool>>,
}

impl ClipMetadata {
    /// The metadata of `clip` with its labels keyed by `feet` (`[left, right]`).
    pub fn new(clip: &Clip, feet: [&str; 2], landing_phase: Option<[f32; 2]>) -> Self {
        ClipMetadata {
            nominal_speed: clip.nominal_speed,
            duration: clip.duration,
            frame_rate: clip.frame_rate(),
            frame_count: clip.times.len(),
            landing_phase,
            contacts: Ordered(feet.iter().zip(&clip.contacts).map(|(k, l)| (k.to_string(), l.clone())).collect()),
        }
    }
}

/// The mannequin's metadata of `clip` (labels keyed [`CONTACT_KEYS`], landings at 0 and 0.5).
pub fn clip_metadata(clip: &Clip) -> ClipMetadata {
    ClipMetadata::new(clip, CONTACT_KEYS, Some([0.0, 0.5]))
}

/// The sidecar JSON text: an object from clip name to [`clip_metadata`], in clip order,
/// pretty-printed with a trailing newline.
pub fn sidecar(clips: &[Clip]) -> String {
    crate::sidecar::to_text(&Ordered(clips.iter().map(|c| (c.name.clone(), clip_metadata(c))).collect()))
}

/// A node with a name and nothing else.
pub fn named_node(name: &str) -> json::Node {
    json::Node { name: Some(name.to_string()), ..Default::default() }
}

/// Node indices as `gltf-json` indices.
pub fn node_indices(nodes: impl IntoIterator<Item = usize>) -> Vec<Index<json::Node>> {
    nodes.into_iter().map(|n| Index::new(n as u32)).collect()
}

/// The mannequin's skin: inverse binds `ibm`, skeleton root `skeleton`, joints `joints`.
pub fn mannequin_skin(ibm: usize, skeleton: usize, joints: impl IntoIterator<Item = usize>) -> json::Skin {
    json::Skin {
        extensions: None,
        extras: Default::default(),
        inverse_bind_matrices: Some(Index::new(ibm as u32)),
        joints: node_indices(joints),
        name: Some("mannequin_skin".into()),
        skeleton: Some(Index::new(skeleton as u32)),
    }
}

/// A mesh called `mannequin` with these primitives.
pub fn mannequin_mesh(primitives: Vec<json::mesh::Primitive>) -> json::Mesh {
    json::Mesh {
        extensions: None,
        extras: Default::default(),
        name: Some("mannequin".into()),
        primitives,
        weights: None,
    }
}

/// A scene called `name` with top node 0.
pub fn scene(name: &str) -> json::Scene {
    json::Scene { extensions: None, extras: Default::default(), name: Some(name.into()), nodes: vec![Index::new(0)] }
}

/// An animation (its name, if any), with `extras` holding `metadata` when given.
pub fn animation(
    name: Option<&str>,
    channels: Vec<json::animation::Channel>,
    samplers: Vec<json::animation::Sampler>,
    metadata: Option<&ClipMetadata>,
) -> json::Animation {
    json::Animation {
        extensions: None,
        extras: metadata.and_then(extras),
        channels,
        name: name.map(str::to_string),
        samplers,
    }
}

/// The `.glb` bytes for the rig, body, skin and clips.
pub fn glb(rig: &Rig, body: &BodyMesh, skin_weights: &SkinWeights, clips: &[Clip]) -> Vec<u8> {
    let mut b = GlbBuilder::new("ik_tool mannequin");
    add_materials(&mut b);
    let primitives = [BODY, ACCENT].iter().map(|&m| primitive(&mut b, body, skin_weights, m)).collect();
    let mesh_index = b.add_mesh(mannequin_mesh(primitives));

    // Nodes: 0 = top node, 1.. = bones in skeleton order, then the mesh node.
    let bones = rig.skeleton.len();
    let bone_node = |i: usize| i + 1;
    let mesh_node = bones + 1;
    b.add_node(json::Node { children: Some(node_indices([bone_node(0), mesh_node])), ..named_node(ROOT_NODE) });
    for i in 0..bones {
        let rest = rig.skeleton.rest()[i];
        let children: Vec<usize> = (0..bones).filter(|&c| rig.skeleton.parent(c) == Some(i)).map(bone_node).collect();
        b.add_node(json::Node {
            children: (!children.is_empty()).then(|| node_indices(children)),
            translation: Some(rest.translation.to_array()),
            rotation: (rest.rotation != glam::Quat::IDENTITY)
                .then(|| json::scene::UnitQuaternion(rest.rotation.to_array())),
            ..named_node(rig.skeleton.names()[i].as_str())
        });
    }
    let ibm = b.push_mat4(&inverse_bind_matrices(rig));
    let skin_index = b.add_skin(mannequin_skin(ibm, bone_node(0), (0..bones).map(bone_node)));
    b.add_node(json::Node {
        mesh: Some(Index::new(mesh_index as u32)),
        skin: Some(Index::new(skin_index as u32)),
        ..named_node(MESH_NODE)
    });
    b.add_scene(scene(ROOT_NODE));

    for clip in clips {
        let input = b.push_f32(&clip.times, true);
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let pelvis = rig.bone("pelvis");
        let output = b.push_vec3(&clip.pelvis_translation, None, false);
        push_channel(&mut samplers, &mut channels, input, output, bone_node(pelvis), "translation");
        for (bone, keys) in clip.rotations.iter().enumerate().skip(1) {
            let output = b.push_quat(keys);
            push_channel(&mut samplers, &mut channels, input, output, bone_node(bone), "rotation");
        }
        b.add_animation(animation(Some(&clip.name), channels, samplers, Some(&clip_metadata(clip))));
    }
    b.to_glb()
}

/// Adds the two materials, [`BODY`] (light grey) then [`ACCENT`] (dark grey).
pub fn add_materials(b: &mut GlbBuilder) {
    let materials =
        [("mannequin_body", [0.78, 0.76, 0.72, 1.0], 0.55), ("mannequin_accent", [0.16, 0.17, 0.19, 1.0], 0.4)];
    for (name, color, roughness) in materials {
        let pbr = json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor(color),
            metallic_factor: json::material::StrengthFactor(0.0),
            roughness_factor: json::material::StrengthFactor(roughness),
            ..Default::default()
        };
        b.add_material(json::Material { name: Some(name.into()), pbr_metallic_roughness: pbr, ..Default::default() });
    }
}

/// Adds a `LINEAR` sampler and the channel that drives `node`'s `path` (`"translation"` or
/// `"rotation"`) with it.
pub fn push_channel(
    samplers: &mut Vec<json::animation::Sampler>,
    channels: &mut Vec<json::animation::Channel>,
    input: usize,
    output: usize,
    node: usize,
    path: &str,
) {
    samplers.push(linear_sampler(Index::new(input as u32), Index::new(output as u32)));
    let property = match path {
        "rotation" => json::animation::Property::Rotation,
        "scale" => json::animation::Property::Scale,
        _ => json::animation::Property::Translation,
    };
    channels.push(channel(samplers.len() - 1, node, property));
}

/// One primitive: the vertices of every part with this material, re-indexed (`POSITION`
/// with bounds, `NORMAL`, `JOINTS_0`, `WEIGHTS_0`, indices, the material).
pub fn primitive(b: &mut GlbBuilder, body: &BodyMesh, skin: &SkinWeights, material: usize) -> json::mesh::Primitive {
    let parts: Vec<_> = body.parts.iter().filter(|p| p.material == material).collect();
    let (mut positions, mut normals, mut joints, mut weights, mut indices) = (vec![], vec![], vec![], vec![], vec![]);
    for part in parts {
        let base = positions.len() as u32;
        let range = part.first_vertex..part.first_vertex + part.vertex_count;
        positions.extend_from_slice(&body.positions[range.clone()]);
        normals.extend_from_slice(&body.normals[range.clone()]);
        joints.extend_from_slice(&skin.joints[range.clone()]);
        weights.extend(skin.weights[range].iter().map(|w| Vec4::from_array(*w)));
        for t in &body.triangles[part.first_triangle..part.first_triangle + part.triangle_count] {
            indices.extend(t.iter().map(|&i| i - part.first_vertex as u32 + base));
        }
    }
    use json::mesh::Semantic;
    let attributes = [
        (Semantic::Positions, b.push_vec3(&positions, Some(ARRAY_BUFFER), true)),
        (Semantic::Normals, b.push_vec3(&normals, Some(ARRAY_BUFFER), false)),
        (Semantic::Joints(0), b.push_u16x4(&joints, Some(ARRAY_BUFFER))),
        (Semantic::Weights(0), b.push_vec4(&weights, Some(ARRAY_BUFFER))),
    ];
    json::mesh::Primitive {
        attributes: attributes.into_iter().map(|(s, a)| (Checked::Valid(s), Index::new(a as u32))).collect(),
        extensions: None,
        extras: Default::default(),
        indices: Some(Index::new(b.push_indices(&indices) as u32)),
        material: Some(Index::new(material as u32)),
        mode: Checked::Valid(json::mesh::Mode::Triangles),
        targets: None,
    }
}
