//! The rough ground patch: a height function, its render mesh and its rapier trimesh collider.
//!
//! Method: a sum of three sine waves (bumps 5–15 cm, slopes up to ~15°) multiplied by a window
//! that fades to flat ground over the patch's outer 0.6 m, sampled on a regular grid. Inputs: the
//! patch rectangle and grid spacing. Outputs: a triangle mesh (positions, normals from central
//! differences) and a collider built from the same vertices and triangles. Invariants: heights
//! are finite and 0 at the border (no cliffs). Where a hollow dips below the floor, the floor's
//! own collider is the higher surface there, so that is what feet stand on; the drawn mesh
//! shows that (its heights are `max(3 mm, height)`: no hollow shows the floor through it, and
//! no flat part fights the floor's mesh for the same depth), so what is drawn is what feet
//! stand on, within 3 mm.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy_rapier3d::prelude::Collider;

/// A rectangle of bumpy ground.
#[derive(Clone, Copy, Debug)]
pub struct RoughPatch {
    /// Corner with the smallest x and z.
    pub min: Vec2,
    /// Size along x and z, m.
    pub size: Vec2,
    /// Grid spacing, m.
    pub spacing: f32,
}

impl RoughPatch {
    /// Ground height at world (x, z); 0 outside the patch.
    pub fn height(&self, x: f32, z: f32) -> f32 {
        let u = x - self.min.x;
        let v = z - self.min.y;
        if u < 0.0 || v < 0.0 || u > self.size.x || v > self.size.y {
            return 0.0;
        }
        let edge = u.min(self.size.x - u).min(v).min(self.size.y - v);
        let t = (edge / 0.6).clamp(0.0, 1.0);
        let window = t * t * (3.0 - 2.0 * t);
        let bumps = 0.06
            + 0.04 * (2.3 * u + 0.4).sin() * (1.9 * v).sin()
            + 0.03 * (3.7 * u + 1.6 * v + 0.8).sin()
            + 0.025 * (4.9 * v - 2.4 * u + 1.7).sin();
        window * bumps
    }

    fn grid(&self) -> (usize, usize) {
        let nx = (self.size.x / self.spacing).round().max(1.0) as usize + 1;
        let nz = (self.size.y / self.spacing).round().max(1.0) as usize + 1;
        (nx, nz)
    }

    /// Grid vertices (world) and triangles.
    pub fn triangles(&self) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let (nx, nz) = self.grid();
        let mut vertices = Vec::with_capacity(nx * nz);
        for j in 0..nz {
            for i in 0..nx {
                let x = self.min.x + self.size.x * i as f32 / (nx - 1) as f32;
                let z = self.min.y + self.size.y * j as f32 / (nz - 1) as f32;
                vertices.push(Vec3::new(x, self.height(x, z), z));
            }
        }
        let mut triangles = Vec::with_capacity((nx - 1) * (nz - 1) * 2);
        for j in 0..nz - 1 {
            for i in 0..nx - 1 {
                let a = (j * nx + i) as u32;
                let b = a + 1;
                let c = a + nx as u32;
                let d = c + 1;
                // Counter-clockwise seen from above (+Y).
                triangles.push([a, c, b]);
                triangles.push([b, c, d]);
            }
        }
        (vertices, triangles)
    }
}

/// The surface feet stand on over (x, z): the patch, or the floor where a hollow dips below it.
pub fn walkable_height(patch: &RoughPatch, x: f32, z: f32) -> f32 {
    patch.height(x, z).max(0.0)
}

/// Where the walkable surface is the floor, the drawn patch lies this far above it, m (so the
/// two meshes never share a depth).
pub const DRAWN_ABOVE_FLOOR: f32 = 0.003;

/// The patch as a lit mesh: the walkable surface ([`walkable_height`]), at least
/// [`DRAWN_ABOVE_FLOOR`] above the floor.
pub fn rough_mesh(patch: &RoughPatch) -> Mesh {
    let (mut vertices, triangles) = patch.triangles();
    for v in &mut vertices {
        v.y = v.y.max(DRAWN_ABOVE_FLOOR);
    }
    let e = patch.spacing * 0.5;
    let h = |x: f32, z: f32| walkable_height(patch, x, z);
    let normals: Vec<[f32; 3]> = vertices
        .iter()
        .map(|p| {
            let dx = h(p.x + e, p.z) - h(p.x - e, p.z);
            let dz = h(p.x, p.z + e) - h(p.x, p.z - e);
            Vec3::new(-dx, 2.0 * e, -dz).normalize_or(Vec3::Y).to_array()
        })
        .collect();
    let positions: Vec<[f32; 3]> = vertices.iter().map(|v| v.to_array()).collect();
    let uvs: Vec<[f32; 2]> = vertices.iter().map(|v| [v.x, v.z]).collect();
    let indices: Vec<u32> = triangles.iter().flatten().copied().collect();
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
        .with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, uvs)
        .with_inserted_indices(Indices::U32(indices))
}

/// The patch as a trimesh collider (same vertices and triangles as the mesh).
pub fn rough_collider(patch: &RoughPatch) -> Option<Collider> {
    let (vertices, triangles) = patch.triangles();
    Collider::trimesh(vertices, triangles).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rough_ground_is_bumpy_inside_and_flat_at_the_border() {
        let p = RoughPatch { min: Vec2::new(8.0, 1.0), size: Vec2::new(4.0, 20.0), spacing: 0.1 };
        let (v, t) = p.triangles();
        assert_eq!(v.len(), 41 * 201);
        assert_eq!(t.len(), 40 * 200 * 2);
        let max = v.iter().map(|v| v.y).fold(f32::MIN, f32::max);
        let min = v.iter().map(|v| v.y).fold(f32::MAX, f32::min);
        assert!(max > 0.10 && max < 0.20, "max {max}");
        assert!(min > -0.05, "min {min}");
        assert_eq!(p.height(8.0, 5.0), 0.0);
        assert_eq!(p.height(9.0, 1.0), 0.0);
    }

    #[test]
    fn no_point_of_the_drawn_patch_is_below_the_floor() {
        let p = RoughPatch { min: Vec2::new(8.0, 1.0), size: Vec2::new(4.0, 20.0), spacing: 0.1 };
        // The patch itself has hollows below the floor (the floor's collider covers them) …
        let (v, _) = p.triangles();
        assert!(v.iter().any(|v| v.y < -0.01), "the test needs hollows");
        // … the drawn mesh never goes below it (its triangles lie above their lowest corner).
        let mesh = rough_mesh(&p);
        let Some(bevy::mesh::VertexAttributeValues::Float32x3(drawn)) = mesh.attribute(Mesh::ATTRIBUTE_POSITION) else {
            panic!("positions")
        };
        assert_eq!(drawn.len(), v.len());
        for (d, v) in drawn.iter().zip(&v) {
            assert!(d[1] >= DRAWN_ABOVE_FLOOR, "{d:?}");
            assert!(d[1] - walkable_height(&p, v.x, v.z) <= DRAWN_ABOVE_FLOOR, "{d:?} vs {v:?}");
        }
    }
}
