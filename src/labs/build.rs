//! Building blocks for labs: which lab the camera shows and where each stands, a chain of joint
//! entities drawn as spheres and capsules, handles.
//!
//! Method: each joint is an entity whose local `Transform` is the previous bone's offset (so
//! bevy_ik turns joints exactly as it turns a skeleton's bones); each joint carries a ball and,
//! for every bone leaving it, a capsule child aligned with the bone. Inputs: root position,
//! bone offsets, materials. Output: joint entities root first (the last is the tip).
//! Invariants: bone offsets are non-zero (zero-length bones get no capsule).

use bevy::prelude::*;

use super::drag::Draggable;
use crate::cli::StartView;

/// The scene the camera shows.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ActiveView(pub StartView);

impl ActiveView {
    /// Every view with its label, in key order (1–5).
    pub const ALL: [(StartView, &'static str); 5] = [
        (StartView::Course, "Course"),
        (StartView::TwoBone, "Two-bone arm"),
        (StartView::Chains, "CCD vs FABRIK"),
        (StartView::LookAt, "Look-at spread"),
        (StartView::Caterpillar, "Caterpillar"),
    ];
}

/// Where each lab stands (world), beside the course.
pub fn lab_origin(view: StartView) -> Vec3 {
    match view {
        StartView::Course => Vec3::ZERO,
        StartView::TwoBone => Vec3::new(-30.0, 0.0, 0.0),
        StartView::Chains => Vec3::new(-30.0, 0.0, 14.0),
        StartView::LookAt => Vec3::new(-30.0, 0.0, 28.0),
        StartView::Caterpillar => Vec3::new(-48.0, 0.0, 14.0),
    }
}

/// Materials and meshes a lab reuses.
pub struct Paints<'a> {
    /// Mesh assets.
    pub meshes: &'a mut Assets<Mesh>,
    /// Material assets.
    pub materials: &'a mut Assets<StandardMaterial>,
}

impl Paints<'_> {
    /// A plain lit material.
    pub fn material(&mut self, color: Color) -> Handle<StandardMaterial> {
        self.materials.add(StandardMaterial { base_color: color, perceptual_roughness: 0.6, ..default() })
    }
}

/// Spawns a chain: root at `root` (world, under `parent` if given), then one joint per offset.
pub fn bone_chain(
    commands: &mut Commands,
    paints: &mut Paints,
    name: &str,
    root: Vec3,
    offsets: &[Vec3],
    color: Color,
    thickness: f32,
) -> Vec<Entity> {
    let bone_mat = paints.material(color);
    let joint_mat = paints.material(Color::srgb(0.15, 0.15, 0.18));
    let ball = paints.meshes.add(Sphere::new(thickness * 1.25).mesh().uv(16, 10));
    let mut joints = Vec::with_capacity(offsets.len() + 1);
    let mut parent: Option<Entity> = None;
    let mut at = Transform::from_translation(root);
    for i in 0..=offsets.len() {
        let mut joint = commands.spawn((Name::new(format!("{name} joint {i}")), at, Visibility::default()));
        if let Some(p) = parent {
            joint.insert(ChildOf(p));
        }
        joint.with_child((Mesh3d(ball.clone()), MeshMaterial3d(joint_mat.clone()), Transform::IDENTITY));
        if let Some(offset) = offsets.get(i).copied().filter(|o| o.length() > 1e-4) {
            let len = offset.length();
            let mesh = paints.meshes.add(Capsule3d::new(thickness, len).mesh().rings(4).latitudes(8).longitudes(12));
            joint.with_child((
                Mesh3d(mesh),
                MeshMaterial3d(bone_mat.clone()),
                Transform::from_translation(offset * 0.5).with_rotation(Quat::from_rotation_arc(Vec3::Y, offset / len)),
            ));
        }
        let id = joint.id();
        joints.push(id);
        parent = Some(id);
        at = Transform::from_translation(offsets.get(i).copied().unwrap_or(Vec3::ZERO));
    }
    joints
}

/// Spawns a draggable sphere handle (top-level entity).
pub fn handle(
    commands: &mut Commands,
    paints: &mut Paints,
    name: &str,
    at: Vec3,
    color: Color,
    radius: f32,
    bounds: (Vec3, Vec3),
) -> Entity {
    let material = paints.materials.add(StandardMaterial {
        base_color: color,
        emissive: LinearRgba::from(color) * 0.6,
        perceptual_roughness: 0.4,
        ..default()
    });
    commands
        .spawn((
            Name::new(name.to_string()),
            Mesh3d(paints.meshes.add(Sphere::new(radius).mesh().uv(20, 14))),
            MeshMaterial3d(material),
            Transform::from_translation(at),
            Draggable { radius: radius * 1.8, bounds },
        ))
        .id()
}

/// A flat round plate marking a lab's floor area.
pub fn plate(commands: &mut Commands, paints: &mut Paints, at: Vec3, radius: f32, color: Color) {
    let mesh = paints.meshes.add(Cylinder::new(radius, 0.02));
    let material = paints.material(color);
    commands.spawn((
        Name::new("Lab plate"),
        Mesh3d(mesh),
        MeshMaterial3d(material),
        Transform::from_translation(at + Vec3::Y * 0.01),
    ));
}
