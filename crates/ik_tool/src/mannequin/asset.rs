//! Assembles the mannequin glTF binary and its contact-label sidecar.
//!
//! Method: one scene with a top node `Mannequin` holding the bone hierarchy (top joint `root`)
//! and a node `mannequin_mesh` carrying the skinned mesh; one skin over every bone in skeleton
//! order, with inverse bind matrices from the bind pose; one mesh with two primitives (body and
//! accent material, each with only its own vertices: `POSITION`, `NORMAL`, `JOINTS_0` as
//! unsigned shorts, `WEIGHTS_0` as floats); one animation per clip with a `LINEAR` rotation
//! channel for every non-root bone and a `LINEAR` translation channel for the pelvis, sharing
//! the clip's key-time accessor. Each animation's `extras` holds the clip's metadata (see
//! [`clip_metadata`]); the sidecar is the same metadata keyed by clip name.
//!
//! Invariants: output bytes depend only on the inputs; only core glTF 2.0 features are used.

use glam::Vec4;

use super::clips::Clip;
use super::mesh::{ACCENT, BODY, BodyMesh};
use super::skeleton::Rig;
use super::skin::{SkinWeights, inverse_bind_matrices};
use crate::gltf_write::{ARRAY_BUFFER, GlbBuilder};
use crate::json::Json;

/// Name of the scene's top node (the animation root in Bevy).
pub const ROOT_NODE: &str = "Mannequin";
/// Name of the node that carries the skinned mesh.
pub const MESH_NODE: &str = "mannequin_mesh";
/// Contact-label keys, `[left, right]`: the foot bone names.
pub const CONTACT_KEYS: [&str; 2] = ["foot_l", "foot_r"];

/// One clip's metadata, as written to the animation's `extras` and to the sidecar:
///
/// ```json
/// { "nominal_speed": 1.4, "duration": 1.05, "frame_rate": 60, "frame_count": 64,
///   "landing_phase": [0, 0.5],
///   "contacts": { "foot_l": [true, ...], "foot_r": [false, ...] } }
/// ```
///
/// `nominal_speed` is in m/s (the ground speed a planted ball moves backward at; the clip is in
/// place), `duration` the cycle in seconds, `frame_rate` the key rate in Hz, `frame_count` the
/// number of keys (the last key, at `duration`, repeats the first), `landing_phase` the cycle
/// phases at which the left and right feet land, and `contacts` one label per key for each
/// foot: `true` while that foot's ball is planted on the floor.
pub fn clip_metadata(clip: &Clip) -> Json {
    let contacts = Json::Obj(
        CONTACT_KEYS
            .iter()
            .zip(&clip.contacts)
            .map(|(k, labels)| (k.to_string(), Json::from(labels.clone())))
            .collect(),
    );
    Json::obj()
        .with("nominal_speed", clip.nominal_speed)
        .with("duration", clip.duration)
        .with("frame_rate", clip.frame_rate())
        .with("frame_count", clip.times.len())
        .with("landing_phase", vec![0.0f32, 0.5])
        .with("contacts", contacts)
}

/// The sidecar JSON text: an object from clip name to [`clip_metadata`], in clip order,
/// pretty-printed with a trailing newline.
pub fn sidecar(clips: &[Clip]) -> String {
    let root = Json::Obj(clips.iter().map(|c| (c.name.clone(), clip_metadata(c))).collect());
    let mut text = root.to_pretty_string();
    text.push('\n');
    text
}

/// The `.glb` bytes for the rig, body, skin and clips.
pub fn glb(rig: &Rig, body: &BodyMesh, skin: &SkinWeights, clips: &[Clip]) -> Vec<u8> {
    let mut b = GlbBuilder::new("ik_tool mannequin");
    add_materials(&mut b);
    let primitives: Vec<Json> = [BODY, ACCENT].iter().map(|&m| primitive(&mut b, body, skin, m)).collect();
    let mesh = b.add_mesh(Json::obj().with("name", "mannequin").with("primitives", primitives));

    // Nodes: 0 = top node, 1.. = bones in skeleton order, then the mesh node.
    let bones = rig.skeleton.len();
    let bone_node = |i: usize| i + 1;
    let mesh_node = bones + 1;
    b.add_node(Json::obj().with("name", ROOT_NODE).with("children", vec![bone_node(0), mesh_node]));
    for i in 0..bones {
        let rest = rig.skeleton.rest()[i];
        let children: Vec<usize> = (0..bones).filter(|&c| rig.skeleton.parent(c) == Some(i)).map(bone_node).collect();
        let mut node = Json::obj().with("name", rig.skeleton.names()[i].as_str());
        if !children.is_empty() {
            node.set("children", children);
        }
        node.set("translation", rest.translation.to_array().to_vec());
        if rest.rotation != glam::Quat::IDENTITY {
            node.set("rotation", rest.rotation.to_array().to_vec());
        }
        b.add_node(node);
    }
    let ibm = b.push_mat4(&inverse_bind_matrices(rig));
    let skin_index = b.add_skin(
        Json::obj()
            .with("name", "mannequin_skin")
            .with("inverseBindMatrices", ibm)
            .with("skeleton", bone_node(0))
            .with("joints", (0..bones).map(bone_node).collect::<Vec<_>>()),
    );
    b.add_node(Json::obj().with("name", MESH_NODE).with("mesh", mesh).with("skin", skin_index));
    b.add_scene(Json::obj().with("name", ROOT_NODE).with("nodes", vec![0usize]));

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
        b.add_animation(
            Json::obj()
                .with("name", clip.name.as_str())
                .with("channels", channels)
                .with("samplers", samplers)
                .with("extras", clip_metadata(clip)),
        );
    }
    b.to_glb()
}

/// Adds the two materials, [`BODY`] (light grey) then [`ACCENT`] (dark grey).
pub fn add_materials(b: &mut GlbBuilder) {
    let materials =
        [("mannequin_body", [0.78, 0.76, 0.72, 1.0], 0.55), ("mannequin_accent", [0.16, 0.17, 0.19, 1.0], 0.4)];
    for (name, color, roughness) in materials {
        let pbr = Json::obj()
            .with("baseColorFactor", color.to_vec())
            .with("metallicFactor", 0.0f32)
            .with("roughnessFactor", roughness);
        b.add_material(Json::obj().with("name", name).with("pbrMetallicRoughness", pbr));
    }
}

/// Adds a `LINEAR` sampler and the channel that drives `node`'s `path` with it.
pub fn push_channel(
    samplers: &mut Vec<Json>,
    channels: &mut Vec<Json>,
    input: usize,
    output: usize,
    node: usize,
    path: &str,
) {
    samplers.push(Json::obj().with("input", input).with("interpolation", "LINEAR").with("output", output));
    let target = Json::obj().with("node", node).with("path", path);
    channels.push(Json::obj().with("sampler", samplers.len() - 1).with("target", target));
}

/// One primitive: the vertices of every part with this material, re-indexed (`POSITION`
/// with bounds, `NORMAL`, `JOINTS_0`, `WEIGHTS_0`, indices, the material).
pub fn primitive(b: &mut GlbBuilder, body: &BodyMesh, skin: &SkinWeights, material: usize) -> Json {
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
    let attributes = Json::obj()
        .with("POSITION", b.push_vec3(&positions, Some(ARRAY_BUFFER), true))
        .with("NORMAL", b.push_vec3(&normals, Some(ARRAY_BUFFER), false))
        .with("JOINTS_0", b.push_u16x4(&joints, Some(ARRAY_BUFFER)))
        .with("WEIGHTS_0", b.push_vec4(&weights, Some(ARRAY_BUFFER)));
    Json::obj().with("attributes", attributes).with("indices", b.push_indices(&indices)).with("material", material)
}
