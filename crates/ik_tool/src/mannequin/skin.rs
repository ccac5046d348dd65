//! Automatic skin binding (linear blend skinning weights) and inverse bind matrices.
//!
//! Method, per vertex, over the bones its body part allows:
//! 1. The nearest bone: smallest distance from the vertex to the bone's segment (joint → tail).
//! 2. The side of the joint, by projecting the vertex on that bone: in the bone's first half
//!    the joint in question is the bone's own joint (shared with its parent); in its second
//!    half it is the joint of the child that continues the chain from the bone's tail.
//! 3. Linear falloff inside that joint's binding radius `R`: with `s` the signed distance of the
//!    vertex past the joint (along the bisector of the two bones, or the child bone's axis
//!    where the child branches off), the child-side bone gets `clamp(½ + ½·s/R, 0, 1)` and the
//!    parent-side bone the rest, so the two bones cross over smoothly at the joint instead of
//!    switching at a hard edge. `R` is the distance from the joint to its nearest vertex times
//!    [`BindParams::radius_multiplier`] (at least [`BindParams::min_radius`]), capped to a
//!    fraction of the adjacent bone lengths.
//! 4. A short smoothing pass (each vertex moves half-way to its mesh neighbours' mean, a few
//!    times) removes the remaining steps where the nearest bone changes (groin, armpit); parts
//!    that opt out (the feet, whose toe hinge stays crisp) keep their weights.
//! 5. The four largest influences are kept and renormalized.
//!
//! Invariants: every vertex has ≤ 4 non-zero weights that sum to 1 (within float rounding),
//! all finite and in `[0, 1]`; joint indices are skeleton indices (= skin joint order); unused
//! slots have joint 0 and weight 0; the output depends only on the inputs (no hashing).

use glam::{Mat4, Vec3};

use super::mesh::BodyMesh;
use super::skeleton::Rig;

/// Tuning of the automatic binding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BindParams {
    /// Binding radius = distance from the joint to its nearest vertex × this. Default 1.5.
    pub radius_multiplier: f32,
    /// Largest binding radius as a fraction of the adjacent bone lengths. Default 0.45.
    pub max_radius_fraction: f32,
    /// Smallest binding radius, m (for joints that lie on the surface, like the ball of the
    /// foot). Default 0.01.
    pub min_radius: f32,
    /// Neighbour-averaging passes after binding. Default 2.
    pub smoothing_passes: usize,
}

impl Default for BindParams {
    fn default() -> Self {
        BindParams { radius_multiplier: 1.5, max_radius_fraction: 0.45, min_radius: 0.01, smoothing_passes: 2 }
    }
}

/// Per-vertex skin influences, ready for `JOINTS_0` / `WEIGHTS_0`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinWeights {
    /// Four joint indices per vertex, largest weight first.
    pub joints: Vec<[u16; 4]>,
    /// The matching weights, summing to 1.
    pub weights: Vec<[f32; 4]>,
}

/// Where two bones meet: the child's joint, the side normal and the binding radius.
#[derive(Clone, Copy, Debug)]
struct Joint {
    parent: usize,
    position: Vec3,
    normal: Vec3,
    radius: f32,
}

/// Binds every vertex of `mesh` to the rig's bones.
pub fn bind(rig: &Rig, mesh: &BodyMesh, params: &BindParams) -> SkinWeights {
    let bones = rig.skeleton.len();
    let joints = joints(rig, mesh, params);
    let mut dense = vec![0.0f32; mesh.positions.len() * bones];
    for part in &mesh.parts {
        for v in part.first_vertex..part.first_vertex + part.vertex_count {
            let p = mesh.positions[v];
            let row = &mut dense[v * bones..(v + 1) * bones];
            let Some((b, t)) = nearest_bone(rig, &part.bones, p) else { continue };
            // The joint on the vertex's side of the bone, if the bone on its far side is allowed.
            let crossing = if t < 0.5 {
                joints[b].filter(|j| part.bones.contains(&j.parent)).map(|j| (j, b))
            } else {
                part.bones
                    .iter()
                    .filter(|&&c| rig.skeleton.parent(c) == Some(b) && rig.joint(c).distance(rig.tails[b]) < 1e-4)
                    .find_map(|&c| joints[c].map(|j| (j, c)))
            };
            match crossing {
                Some((joint, child)) => {
                    let s = (p - joint.position).dot(joint.normal);
                    let w = (0.5 + 0.5 * s / joint.radius).clamp(0.0, 1.0);
                    row[child] += w;
                    row[joint.parent] += 1.0 - w;
                }
                None => row[b] += 1.0,
            }
        }
    }
    let smoothed: Vec<bool> =
        mesh.parts.iter().flat_map(|p| std::iter::repeat_n(p.smooth_weights, p.vertex_count)).collect();
    smooth(&mut dense, bones, &mesh.triangles, &smoothed, params.smoothing_passes);
    let mut out = SkinWeights { joints: Vec::with_capacity(mesh.positions.len()), weights: Vec::new() };
    for row in dense.chunks(bones) {
        let (j, w) = top_four(row);
        out.joints.push(j);
        out.weights.push(w);
    }
    out
}

/// The joint data of every bone that has a parent (indexed by the child bone).
fn joints(rig: &Rig, mesh: &BodyMesh, params: &BindParams) -> Vec<Option<Joint>> {
    let dir = |b: usize| (rig.tails[b] - rig.joint(b)).normalize_or(Vec3::Y);
    let len = |b: usize| (rig.tails[b] - rig.joint(b)).length();
    (0..rig.skeleton.len())
        .map(|c| {
            let parent = rig.skeleton.parent(c)?;
            let position = rig.joint(c);
            let continues = rig.tails[parent].distance(position) < 1e-4 && len(parent) > 0.0;
            let normal = if continues { (dir(parent) + dir(c)).normalize_or(dir(c)) } else { dir(c) };
            let nearest = mesh
                .parts
                .iter()
                .filter(|part| part.bones.contains(&c))
                .flat_map(|part| &mesh.positions[part.first_vertex..part.first_vertex + part.vertex_count])
                .map(|p| p.distance(position))
                .fold(f32::INFINITY, f32::min);
            let mut cap = params.max_radius_fraction * len(c);
            if continues {
                cap = cap.min(params.max_radius_fraction * len(parent));
            }
            let radius = (nearest * params.radius_multiplier).max(params.min_radius).min(cap);
            (radius.is_finite() && radius > 1e-4).then_some(Joint { parent, position, normal, radius })
        })
        .collect()
}

/// The allowed bone whose segment is nearest to `p`, with the projection parameter in [0, 1].
fn nearest_bone(rig: &Rig, allowed: &[usize], p: Vec3) -> Option<(usize, f32)> {
    let mut best: Option<(usize, f32, f32)> = None;
    for &b in allowed {
        let (a, e) = (rig.joint(b), rig.tails[b]);
        let ab = e - a;
        let t = if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
        let d = p.distance(a + ab * t);
        if best.is_none_or(|(_, _, bd)| d < bd) {
            best = Some((b, t, d));
        }
    }
    best.map(|(b, t, _)| (b, t))
}

/// Jacobi smoothing of dense weight rows over the mesh edges, for the vertices flagged in
/// `smoothed` (the others keep their weights).
fn smooth(dense: &mut [f32], bones: usize, triangles: &[[u32; 3]], smoothed: &[bool], passes: usize) {
    if passes == 0 {
        return;
    }
    let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); smoothed.len()];
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            neighbours[a as usize].push(b);
            neighbours[b as usize].push(a);
        }
    }
    for n in &mut neighbours {
        n.sort_unstable();
        n.dedup();
    }
    let mut next = dense.to_vec();
    for _ in 0..passes {
        for (v, ns) in neighbours.iter().enumerate() {
            if ns.is_empty() || !smoothed[v] {
                continue;
            }
            let inv = 0.5 / ns.len() as f32;
            for b in 0..bones {
                let mean: f32 = ns.iter().map(|&n| dense[n as usize * bones + b]).sum();
                next[v * bones + b] = 0.5 * dense[v * bones + b] + mean * inv;
            }
        }
        dense.copy_from_slice(&next);
    }
}

/// The four largest weights of a row (ties to the lower bone index), renormalized.
fn top_four(row: &[f32]) -> ([u16; 4], [f32; 4]) {
    let mut order: Vec<usize> = (0..row.len()).filter(|&b| row[b] > 1e-6).collect();
    order.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
    order.truncate(4);
    let total: f32 = order.iter().map(|&b| row[b]).sum();
    let mut joints = [0u16; 4];
    let mut weights = [0.0f32; 4];
    if total <= 0.0 || !total.is_finite() {
        weights[0] = 1.0;
        return (joints, weights);
    }
    for (k, &b) in order.iter().enumerate() {
        joints[k] = b as u16;
        weights[k] = row[b] / total;
    }
    // Put any rounding left over on the largest weight so the sum is 1 as closely as f32 allows.
    let sum: f32 = weights.iter().sum();
    weights[0] += 1.0 - sum;
    (joints, weights)
}

/// Inverse bind matrices: the inverse of each bone's bind-pose model matrix, in skeleton order.
pub fn inverse_bind_matrices(rig: &Rig) -> Vec<Mat4> {
    rig.rest_model
        .iter()
        .map(|x| Mat4::from_scale_rotation_translation(x.scale, x.rotation, x.translation).inverse())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mannequin::{mesh, skeleton};

    #[test]
    fn knee_weights_cross_over_linearly_without_a_step() {
        let rig = skeleton::rig().unwrap();
        let body = mesh::body(&rig);
        let skin = bind(&rig, &body, &BindParams::default());
        let (thigh, calf) = (rig.bone("thigh_l") as u16, rig.bone("calf_l") as u16);
        let weight_of = |v: usize, bone: u16| {
            (0..4).filter(|&k| skin.joints[v][k] == bone).map(|k| skin.weights[v][k]).sum::<f32>()
        };
        let leg = body.parts.iter().find(|p| p.name == "leg_l").unwrap();
        let knee_y = rig.joint(calf as usize).y;
        let band: Vec<usize> = (leg.first_vertex..leg.first_vertex + leg.vertex_count)
            .filter(|&v| (body.positions[v].y - knee_y).abs() < 0.01)
            .collect();
        assert!(!band.is_empty());
        for v in band {
            let (wt, wc) = (weight_of(v, thigh), weight_of(v, calf));
            assert!(wt > 0.2 && wc > 0.2, "at the knee both bones share the vertex: {wt} {wc}");
        }
    }
}
