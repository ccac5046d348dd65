//! The vertices a foot carries, read from the character's own meshes, for measuring its sole
//! ([`ik_core::sole::FlatSole::from_vertices`]) instead of estimating it from the joints.
//!
//! Method: a vertex of a skinned mesh belongs to the foot when its largest joint weight is on
//! a bone of the foot's subtree (the ankle, the toes and their ends); a mesh with no skin
//! belongs to it when it hangs below one of those bones (rigid parts, as in asset-pack robots).
//! Skinned vertices are placed through their joint's inverse bind matrix and that joint's
//! rest transform (the bind pose: [`crate::bind_pose`]). Output: positions
//! relative to the character root. Meshes not loaded into the main world give nothing.

use bevy::ecs::system::SystemParam;
use bevy::mesh::skinning::{SkinnedMesh, SkinnedMeshInverseBindposes};
use bevy::mesh::{Mesh, Mesh3d, VertexAttributeValues};
use bevy::platform::collections::HashSet;
use bevy::prelude::*;

use crate::bind_pose::BindPose;
use crate::bones::Hierarchy;

/// Read access to the meshes under a character.
#[derive(SystemParam)]
pub(crate) struct FootMeshes<'w, 's> {
    shapes: Query<'w, 's, (&'static Mesh3d, Option<&'static SkinnedMesh>)>,
    children: Query<'w, 's, &'static Children>,
    // Optional: an app without Bevy's mesh assets (a hand-built hierarchy) has no meshes.
    meshes: Option<Res<'w, Assets<Mesh>>>,
    bindposes: Option<Res<'w, Assets<SkinnedMeshInverseBindposes>>>,
}

impl FootMeshes<'_, '_> {
    /// The positions, relative to `root`, of the vertices the bones under (and including)
    /// `ankle` carry in the meshes under `root`, with the bones in `pose`.
    pub(crate) fn vertices(&self, root: Entity, ankle: Entity, pose: &BindPose, hierarchy: &Hierarchy) -> Vec<Vec3> {
        let Some(meshes) = self.meshes.as_deref() else { return Vec::new() };
        let foot: HashSet<Entity> = std::iter::once(ankle).chain(self.children.iter_descendants(ankle)).collect();
        let world = |e: Entity| pose.rest_of(e, hierarchy).map(|x| mat(&x));
        let mut out = Vec::new();
        for entity in self.children.iter_descendants(root) {
            let Ok((shape, skin)) = self.shapes.get(entity) else { continue };
            let Some(mesh) = meshes.get(&shape.0) else { continue };
            let Some(positions) = float3(mesh, Mesh::ATTRIBUTE_POSITION) else { continue };
            match skin {
                Some(skin) => self.skinned(mesh, skin, positions, &foot, &world, &mut out),
                None if foot.contains(&entity) => {
                    if let Some(m) = world(entity) {
                        out.extend(positions.iter().map(|p| m.transform_point3(Vec3::from(*p))));
                    }
                }
                None => {}
            }
        }
        out
    }

    /// The skinned vertices whose heaviest joint is a bone of `foot`, relative to the root.
    fn skinned(
        &self,
        mesh: &Mesh,
        skin: &SkinnedMesh,
        positions: &[[f32; 3]],
        foot: &HashSet<Entity>,
        world: &impl Fn(Entity) -> Option<Mat4>,
        out: &mut Vec<Vec3>,
    ) {
        let Some(inverse_binds) = self.bindposes.as_ref().and_then(|b| b.get(&skin.inverse_bindposes)) else {
            return;
        };
        let (Some(VertexAttributeValues::Uint16x4(joints)), Some(VertexAttributeValues::Float32x4(weights))) = (
            mesh.try_attribute_option(Mesh::ATTRIBUTE_JOINT_INDEX).ok().flatten(),
            mesh.try_attribute_option(Mesh::ATTRIBUTE_JOINT_WEIGHT).ok().flatten(),
        ) else {
            return;
        };
        // Per joint of the skin: joint-from-mesh, then root-from-joint; `None` off the foot.
        let placed: Vec<Option<Mat4>> = skin
            .joints
            .iter()
            .zip(inverse_binds.iter())
            .map(|(joint, inverse_bind)| {
                foot.contains(joint).then(|| world(*joint).map(|w| w * *inverse_bind)).flatten()
            })
            .collect();
        for ((p, j), w) in positions.iter().zip(joints).zip(weights) {
            let heaviest = (0..4).max_by(|&a, &b| w[a].total_cmp(&w[b])).unwrap_or(0);
            if let Some(Some(m)) = placed.get(usize::from(j[heaviest])) {
                out.push(m.transform_point3(Vec3::from(*p)));
            }
        }
    }
}

/// A float3 vertex attribute, if the mesh has it in the main world.
fn float3(mesh: &Mesh, id: impl Into<bevy::mesh::MeshVertexAttributeId>) -> Option<&[[f32; 3]]> {
    match mesh.try_attribute_option(id).ok().flatten()? {
        VertexAttributeValues::Float32x3(v) => Some(v),
        _ => None,
    }
}

fn mat(x: &ik_core::Xform) -> Mat4 {
    Mat4::from_scale_rotation_translation(x.scale, x.rotation, x.translation)
}
