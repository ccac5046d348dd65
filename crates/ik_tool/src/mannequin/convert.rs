//! Builds the mannequin in a [`Convention`]: same character and motion, other data.
//!
//! Method: the canonical mannequin (rig, body, skin weights, clips: +Y up, facing +Z, metres,
//! bone frames aligned with the model axes) is posed and re-expressed.
//! 1. Rest: the arms are raised to the convention's [`RestPose`] and the body is skinned into
//!    it (linear blend skinning with the canonical weights); that pose is the new bind pose.
//! 2. Spaces: world = top node × data. The data space is reached from canonical model space by
//!    `G = A⁻¹ · W`, with `W` the facing turn (180° about +Y for −Z) and `A` the top node's
//!    transform (armature scale, and the Z-up → Y-up turn). Vertices and joint positions are
//!    mapped by `G`; every bone's rest frame is axis-aligned in data space (rest locals are
//!    pure translations), so the inverse bind matrices are translations.
//! 3. Motion: a canonical frame's model transform `M_b` becomes the data-space transform with
//!    position `G·pos(M_b)` and rotation `G·rot(M_b)·rot(P_b)⁻¹·G⁻¹` (`P` the rest of step 1):
//!    the deformation `M_b·P_b⁻¹` of every bone is the canonical one seen through `G`, so the
//!    clip looks the same for any rest, facing, units, axes or hierarchy. Locals are
//!    re-derived against the convention's parents (feet under the root or a control bone key
//!    their translation in that parent's frame).
//! 4. The file: top node (children: top joints, then the mesh node), bone nodes in parents-first
//!    or scrambled order, skin joints in node order, one animation per clip (`LINEAR` rotation
//!    for every animated bone, translation for the pelvis and re-parented feet).
//!
//! Invariants: deterministic bytes; the world-space rest pose and skinned body are the
//! canonical ones posed to the rest and turned by `W`; core glTF 2.0 only.

use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use gltf::json;
use ik_core::{IkError, Xform};

use super::asset::{
    ClipMetadata, Ordered, add_materials, animation, mannequin_mesh, mannequin_skin, named_node, node_indices,
    primitive, push_channel, scene,
};
use super::clips::{self, Clip};
use super::convention::{BoneAxes, CONTROL, ClipSource, Convention, Facing, FeetParent, RestPose};
use super::mesh::{self, ACCENT, BODY, BodyMesh};
use super::skeleton::{self, ARM_ANGLE, BONE_NAMES, Rig};
use super::skin::{self, SkinWeights};
use super::{jump, sidecar_path};
use crate::ToolError;
use crate::gltf_write::{GlbBuilder, Index};

/// A generated convention asset.
#[derive(Clone, Debug)]
pub struct ConventionAsset {
    /// The glTF binary.
    pub glb: Vec<u8>,
    /// The sidecar JSON text, when the convention writes one.
    pub sidecar: Option<String>,
    /// Bone names in skin-joint order (= file node order).
    pub joint_names: Vec<String>,
    /// Animation names in file order (`None`: the animation has no name).
    pub clip_names: Vec<Option<String>>,
    /// Number of mesh vertices.
    pub vertex_count: usize,
}

/// One bone of the convention's skeleton (parents first).
struct Bone {
    /// Canonical bone index, `None` for the control bone.
    canonical: Option<usize>,
    parent: Option<usize>,
    name: String,
    /// Keyed translation (the pelvis and re-parented feet).
    moves: bool,
}

/// Canonical model space → data space (`G` of the module doc): rotation, then 1/scale.
#[derive(Clone, Copy)]
struct Space {
    rotation: Quat,
    inv_scale: f32,
}

impl Space {
    fn point(&self, p: Vec3) -> Vec3 {
        self.rotation * p * self.inv_scale
    }
    fn turn(&self, q: Quat) -> Quat {
        (self.rotation * q * self.rotation.conjugate()).normalize()
    }
}

/// The top node's transform `A`: the Z-up → Y-up turn (−90° about X) when the data is Z-up,
/// times the armature scale.
pub fn armature_matrix(c: &Convention) -> Mat4 {
    let turn = if c.z_up { Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2) } else { Quat::IDENTITY };
    Mat4::from_scale_rotation_translation(Vec3::splat(c.armature_scale), turn, Vec3::ZERO)
}

fn space(c: &Convention) -> Space {
    let turn = if c.z_up { Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2) } else { Quat::IDENTITY };
    let facing = match c.facing {
        Facing::PlusZ => Quat::IDENTITY,
        Facing::MinusZ => Quat::from_xyzw(0.0, 1.0, 0.0, 0.0),
    };
    Space { rotation: turn.conjugate() * facing, inv_scale: 1.0 / c.armature_scale }
}

/// The canonical model transforms of the convention's rest pose (the mannequin's rest with the
/// upper arms raised about the model's Z axis).
pub fn rest_pose(rig: &Rig, rest: RestPose) -> Result<Vec<Xform>, IkError> {
    let raise = match rest {
        RestPose::Mannequin => 0.0,
        RestPose::T => 90f32.to_radians() - ARM_ANGLE,
        RestPose::A45 => 45f32.to_radians() - ARM_ANGLE,
    };
    let mut locals = rig.skeleton.rest().to_vec();
    locals[rig.bone("upperarm_l")].rotation = Quat::from_rotation_z(raise);
    locals[rig.bone("upperarm_r")].rotation = Quat::from_rotation_z(-raise);
    let mut model = vec![Xform::IDENTITY; locals.len()];
    ik_core::skeleton::forward_kinematics(rig.skeleton.parents(), &locals, &Xform::IDENTITY, &mut model)?;
    Ok(model)
}

/// Scales the thighs and shins of canonical `locals` by `leg_scale` (the calves' and feet's
/// offsets); returns how far the pelvis must rise for the feet to stay on the floor.
fn proportion(rig: &Rig, locals: &mut [Xform], leg_scale: f32) -> f32 {
    let mut drop = 0.0;
    for bone in ["calf_l", "foot_l", "calf_r", "foot_r"] {
        let local = &mut locals[rig.bone(bone)];
        if bone.ends_with('l') {
            drop -= local.translation.y;
        }
        local.translation *= leg_scale;
    }
    (leg_scale - 1.0) * drop
}

/// [`rest_pose`] with the convention's leg proportions ([`Convention::leg_scale`]).
pub fn convention_rest(rig: &Rig, c: &Convention) -> Result<Vec<Xform>, IkError> {
    if c.leg_scale == 1.0 {
        return rest_pose(rig, c.rest);
    }
    let arms = rest_pose(rig, c.rest)?;
    let mut locals = rig.skeleton.rest().to_vec();
    for arm in ["upperarm_l", "upperarm_r"] {
        let b = rig.bone(arm);
        locals[b].rotation = arms[b].rotation;
    }
    let lift = proportion(rig, &mut locals, c.leg_scale);
    locals[rig.bone("pelvis")].translation.y += lift;
    let mut model = vec![Xform::IDENTITY; locals.len()];
    ik_core::skeleton::forward_kinematics(rig.skeleton.parents(), &locals, &Xform::IDENTITY, &mut model)?;
    Ok(model)
}

/// Each convention bone's rest rotation in data space ([`Convention::bone_axes`]): identity,
/// or the turn taking data +Y onto the bone (joint → tail) in the rest pose.
fn bone_axes(rig: &Rig, bones: &[Bone], g: Space, rest: &[Xform], axes: BoneAxes) -> Vec<Quat> {
    bones
        .iter()
        .map(|bone| match (axes, bone.canonical) {
            (BoneAxes::AlongBone, Some(b)) => {
                let along = rest[b].rotation * (rig.tails[b] - rig.rest_model[b].translation);
                (g.rotation * along).try_normalize().map_or(Quat::IDENTITY, |d| Quat::from_rotation_arc(Vec3::Y, d))
            }
            _ => Quat::IDENTITY,
        })
        .collect()
}

/// How canonical poses become data: the space, the rest, each bone's rest axes, leg scale.
#[derive(Clone, Copy)]
struct Posing<'a> {
    g: Space,
    rest: &'a [Xform],
    axes: &'a [Quat],
    leg_scale: f32,
}

/// The convention's bones, parents first.
fn bones(rig: &Rig, c: &Convention) -> Result<Vec<Bone>, IkError> {
    let mut out: Vec<Bone> = Vec::new();
    let mut index_of = vec![None; BONE_NAMES.len()];
    let mut control = None;
    let name = |canonical: &str| c.bone_name(canonical).ok_or(IkError::BrokenHierarchy { bone: 0 });
    for (b, canonical) in BONE_NAMES.iter().enumerate() {
        let is_foot = matches!(*canonical, "foot_l" | "foot_r");
        let parent = match (is_foot, c.feet) {
            (true, FeetParent::Root) => Some(index_of[0].ok_or(IkError::BrokenHierarchy { bone: b })?),
            (true, FeetParent::Control) => control,
            _ => rig.skeleton.parent(b).and_then(|p| index_of[p]),
        };
        if b > 0 || c.root_bone {
            index_of[b] = Some(out.len());
            let moves = *canonical == "pelvis" || (is_foot && c.feet != FeetParent::Shins);
            out.push(Bone { canonical: Some(b), parent, name: name(canonical)?, moves });
        }
        if b == 0 && c.feet == FeetParent::Control {
            control = Some(out.len());
            out.push(Bone { canonical: None, parent: index_of[0], name: name(CONTROL)?, moves: false });
        }
    }
    Ok(out)
}

/// Data-space transforms of the convention's bones for canonical model transforms `model`.
fn data_pose(bones: &[Bone], p: Posing<'_>, model: &[Xform]) -> Vec<Xform> {
    bones
        .iter()
        .zip(p.axes)
        .map(|(bone, axes)| match bone.canonical {
            None => Xform::IDENTITY,
            Some(b) => {
                let turn = p.g.turn(model[b].rotation * p.rest[b].rotation.conjugate());
                let rotation = if *axes == Quat::IDENTITY { turn } else { (turn * *axes).normalize() };
                Xform { translation: p.g.point(model[b].translation), rotation, scale: Vec3::ONE }
            }
        })
        .collect()
}

/// Locals against the convention's parents.
fn locals(bones: &[Bone], pose: &[Xform]) -> Vec<Xform> {
    bones.iter().zip(pose).map(|(bone, x)| bone.parent.map_or(*x, |p| pose[p].inverse() * *x)).collect()
}

/// The body skinned into the rest pose `rest`, then mapped into data space.
fn posed_body(rig: &Rig, body: &BodyMesh, weights: &SkinWeights, rest: &[Xform], g: Space) -> BodyMesh {
    let skinning: Vec<Xform> = rest.iter().zip(&rig.rest_model).map(|(p, r)| *p * r.inverse()).collect();
    let mut out = body.clone();
    for v in 0..body.positions.len() {
        let (joints, w) = (weights.joints[v], weights.weights[v]);
        let (mut p, mut n) = (Vec3::ZERO, Vec3::ZERO);
        for k in 0..4 {
            let x = &skinning[joints[k] as usize];
            p += w[k] * x.transform_point(body.positions[v]);
            n += w[k] * (x.rotation * body.normals[v]);
        }
        out.positions[v] = g.point(p);
        out.normals[v] = g.rotation * n.normalize_or(body.normals[v]);
    }
    out
}

/// The canonical clip a source stands for.
fn source_clip(rig: &Rig, source: ClipSource) -> Result<Clip, IkError> {
    let specs = clips::clip_specs();
    match source {
        ClipSource::Idle => clips::build_clip(rig, &specs[0]),
        ClipSource::Walk => clips::build_clip(rig, &specs[1]),
        ClipSource::Jog => clips::build_clip(rig, &specs[2]),
        ClipSource::Jump => jump::build_jump(rig, "WalkJump"),
    }
}

/// Clip metadata keyed by the convention's foot names (the sidecar / `extras` layout of
/// [`super::asset::clip_metadata`]; `landing_phase` only for the locomotion clips).
fn metadata(clip: &Clip, source: ClipSource, feet: [&str; 2]) -> ClipMetadata {
    ClipMetadata::new(clip, feet, (source != ClipSource::Jump).then_some([0.0, 0.5]))
}

/// Generates the mannequin in convention `c`, in memory.
pub fn generate_convention(c: &Convention) -> Result<ConventionAsset, IkError> {
    let positive = |x: f32| x.is_finite() && x > 0.0;
    if !(positive(c.armature_scale) && positive(c.leg_scale)) {
        return Err(IkError::NonFiniteInput);
    }
    let rig = skeleton::rig()?;
    let body = mesh::body(&rig);
    let weights = skin::bind(&rig, &body, &skin::BindParams::default());
    let g = space(c);
    let rest = convention_rest(&rig, c)?;
    let bones = bones(&rig, c)?;
    let axes = bone_axes(&rig, &bones, g, &rest, c.bone_axes);
    let posing = Posing { g, rest: &rest, axes: &axes, leg_scale: c.leg_scale };
    let rest_data: Vec<Xform> = bones
        .iter()
        .zip(&axes)
        .map(|(b, q)| {
            Xform::from_translation_rotation(b.canonical.map_or(Vec3::ZERO, |i| g.point(rest[i].translation)), *q)
        })
        .collect();
    let rest_locals = locals(&bones, &rest_data);

    // File order: node 0 = top node, 1..=n = bones in `order`, then the mesh node.
    let mut order: Vec<usize> = (0..bones.len()).collect();
    if c.shuffled {
        order.sort_by_key(|&i| (i * 7 + 3) % 29);
    }
    let mut joint_of = vec![0usize; bones.len()];
    for (slot, &i) in order.iter().enumerate() {
        joint_of[i] = slot;
    }
    let node = |i: usize| joint_of[i] + 1;
    let mesh_node = bones.len() + 1;
    // Canonical bone → skin joint (a dropped root's weights, if any, go to the pelvis's).
    let index = |b: usize| bones.iter().position(|x| x.canonical == Some(b));
    let pelvis = index(rig.bone("pelvis")).unwrap_or(0);
    let canonical_joint: Vec<u16> =
        (0..rig.skeleton.len()).map(|b| joint_of[index(b).unwrap_or(pelvis)] as u16).collect();
    let skin_weights = SkinWeights {
        joints: weights.joints.iter().map(|j| j.map(|b| canonical_joint[b as usize])).collect(),
        weights: weights.weights.clone(),
    };
    let data_body = posed_body(&rig, &body, &weights, &rest, g);

    let mut b = GlbBuilder::new("ik_tool mannequin");
    add_materials(&mut b);
    let primitives = [BODY, ACCENT].iter().map(|&m| primitive(&mut b, &data_body, &skin_weights, m)).collect();
    let mesh_index = b.add_mesh(mannequin_mesh(primitives));
    let tops: Vec<usize> = (0..bones.len()).filter(|&i| bones[i].parent.is_none()).collect();
    let mut top_children: Vec<usize> = tops.iter().map(|&i| node(i)).collect();
    top_children.sort_unstable();
    top_children.push(mesh_node);
    let mut top = json::Node { children: Some(node_indices(top_children)), ..named_node(c.top_node) };
    if c.z_up {
        top.matrix = Some(armature_matrix(c).to_cols_array());
    } else if c.armature_scale != 1.0 {
        top.scale = Some([c.armature_scale; 3]);
    }
    b.add_node(top);
    for &i in &order {
        let mut children: Vec<usize> = (0..bones.len()).filter(|&k| bones[k].parent == Some(i)).map(node).collect();
        children.sort_unstable();
        b.add_node(json::Node {
            children: (!children.is_empty()).then(|| node_indices(children)),
            translation: Some(rest_locals[i].translation.to_array()),
            rotation: (c.bone_axes != BoneAxes::Model)
                .then(|| json::scene::UnitQuaternion(rest_locals[i].rotation.to_array())),
            ..named_node(bones[i].name.as_str())
        });
    }
    let inverse_binds: Vec<Mat4> = order
        .iter()
        .map(|&i| match c.bone_axes {
            BoneAxes::Model => Mat4::from_translation(-rest_data[i].translation),
            BoneAxes::AlongBone => Mat4::from_rotation_translation(axes[i], rest_data[i].translation).inverse(),
        })
        .collect();
    let ibm = b.push_mat4(&inverse_binds);
    let skeleton_node = if tops.len() == 1 { node(tops[0]) } else { 0 };
    let skin_index = b.add_skin(mannequin_skin(ibm, skeleton_node, 1..=bones.len()));
    b.add_node(json::Node {
        mesh: Some(Index::new(mesh_index as u32)),
        skin: Some(Index::new(skin_index as u32)),
        ..named_node("mannequin_mesh")
    });
    b.add_scene(scene(c.top_node));

    let feet = ["foot_l", "foot_r"].map(|f| c.bone_name(f).unwrap_or_default());
    let mut sidecar = Vec::new();
    let mut clip_names = Vec::new();
    for (k, (source, name)) in c.clips.clips().into_iter().enumerate() {
        let clip = source_clip(&rig, source)?;
        let (rotations, translations) = clip_keys(&rig, &bones, posing, &rest_locals, &clip)?;
        let input = b.push_f32(&clip.times, true);
        let (mut samplers, mut channels) = (Vec::new(), Vec::new());
        for (i, bone) in bones.iter().enumerate() {
            if bone.moves {
                let output = b.push_vec3(&translations[i], None, false);
                push_channel(&mut samplers, &mut channels, input, output, node(i), "translation");
            }
            if bone.canonical.is_some_and(|x| x != 0) {
                let output = b.push_quat(&rotations[i]);
                push_channel(&mut samplers, &mut channels, input, output, node(i), "rotation");
            }
        }
        let meta = c.sidecar.then(|| metadata(&clip, source, [feet[0].as_str(), feet[1].as_str()]));
        b.add_animation(animation(name, channels, samplers, meta.as_ref()));
        if let Some(meta) = meta {
            sidecar.push((name.map_or(format!("animation_{k}"), str::to_string), meta));
        }
        clip_names.push(name.map(str::to_string));
    }
    Ok(ConventionAsset {
        glb: b.to_glb(),
        sidecar: c.sidecar.then(|| crate::sidecar::to_text(&Ordered(sidecar))),
        joint_names: order.iter().map(|&i| bones[i].name.clone()).collect(),
        clip_names,
        vertex_count: data_body.positions.len(),
    })
}

/// Per convention bone, the rotation keys (one hemisphere from key to key) and the
/// translation keys of one clip.
type Keys = (Vec<Vec<Quat>>, Vec<Vec<Vec3>>);

fn clip_keys(
    rig: &Rig,
    bones: &[Bone],
    posing: Posing<'_>,
    rest_locals: &[Xform],
    clip: &Clip,
) -> Result<Keys, IkError> {
    let pelvis = rig.bone("pelvis");
    let mut canonical = rig.skeleton.rest().to_vec();
    let lift = proportion(rig, &mut canonical, posing.leg_scale);
    let mut model = vec![Xform::IDENTITY; canonical.len()];
    let (mut rotations, mut translations) = (vec![Vec::new(); bones.len()], vec![Vec::new(); bones.len()]);
    for f in 0..clip.times.len() {
        for (bone, local) in canonical.iter_mut().enumerate() {
            local.rotation = clip.rotations[bone][f];
        }
        canonical[pelvis].translation = clip.pelvis_translation[f] + Vec3::Y * lift;
        ik_core::skeleton::forward_kinematics(rig.skeleton.parents(), &canonical, &Xform::IDENTITY, &mut model)?;
        let frame = locals(bones, &data_pose(bones, posing, &model));
        for (i, local) in frame.iter().enumerate() {
            let mut q = local.rotation.normalize();
            if rotations[i].last().is_some_and(|p: &Quat| p.dot(q) < 0.0) {
                q = -q;
            }
            rotations[i].push(q);
            translations[i].push(if bones[i].moves { local.translation } else { rest_locals[i].translation });
        }
    }
    Ok((rotations, translations))
}

/// Generates convention `c` and writes the `.glb` to `out` (creating the directory) and, when
/// the convention has one, the sidecar next to it. Returns the paths written.
pub fn write_convention(c: &Convention, out: &Path) -> Result<Vec<PathBuf>, ToolError> {
    let asset = generate_convention(c)?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(out, &asset.glb)?;
    let mut written = vec![out.to_path_buf()];
    if let Some(text) = &asset.sidecar {
        let path = sidecar_path(out);
        std::fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rest_pose_puts_the_t_pose_arms_level() {
        let rig = skeleton::rig().unwrap();
        let rest = rest_pose(&rig, RestPose::T).unwrap();
        let (shoulder, wrist) = (rest[rig.bone("upperarm_l")].translation, rest[rig.bone("hand_l")].translation);
        assert!((wrist.y - shoulder.y).abs() < 0.01 && wrist.x > shoulder.x + 0.5, "{shoulder} {wrist}");
    }
}
