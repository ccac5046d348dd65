//! The mannequin's body: closed lofted shells for torso, neck, head, legs, arms, hands and feet.
//!
//! Method: every body part is a [`loft`](super::loft) shell in the bind pose, placed from the
//! rig's joints: the torso is a boxy superellipse loft up the spine, each leg one tapered tube
//! hip → knee → ankle (thigh and calf bulges in its radius profile), each arm one tube
//! shoulder → elbow → wrist, hands flattened mittens, feet boxy lofts whose soles lie on
//! `y = 0`, and the head an egg shape. Parts overlap at the joints like a jointed mannequin.
//!
//! Outputs: one vertex list with smooth per-vertex normals, triangles, and per-part ranges
//! carrying the part's material and the bones its vertices may bind to (used by skinning).
//!
//! Invariants: every part is closed and outward-wound; the mesh is left/right symmetric; the
//! soles touch `y = 0` and nothing goes below it; about 4,800 vertices.

use glam::Vec3;

use super::loft::{Ring, loft, rounded_ends, rounded_ends_toward, tube, vertex_normals};
use super::skeleton::{self, ANKLE_L, HAND, HIP_L, KNEE_L, Rig, SHOULDER_L};

/// Material index of the body (light grey).
pub const BODY: usize = 0;
/// Material index of the hands and feet (dark grey).
pub const ACCENT: usize = 1;

/// One body part inside [`BodyMesh`].
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// Part name (e.g. `"leg_l"`).
    pub name: String,
    /// First vertex of the part.
    pub first_vertex: usize,
    /// Number of vertices.
    pub vertex_count: usize,
    /// First triangle of the part.
    pub first_triangle: usize,
    /// Number of triangles.
    pub triangle_count: usize,
    /// Material index ([`BODY`] or [`ACCENT`]).
    pub material: usize,
    /// Bones this part's vertices may be bound to (skeleton indices, ascending).
    pub bones: Vec<usize>,
    /// Whether skin-weight smoothing applies to this part (off for the feet: the toe hinge
    /// stays crisp, so the sole in front of the ball stays on the floor when the heel lifts).
    pub smooth_weights: bool,
}

/// The whole body in the bind pose.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyMesh {
    /// Vertex positions, model space, metres.
    pub positions: Vec<glam::Vec3>,
    /// Unit per-vertex normals.
    pub normals: Vec<glam::Vec3>,
    /// Triangles (indices into `positions`), counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
    /// Parts, in vertex order.
    pub parts: Vec<Part>,
}

impl BodyMesh {
    /// Triangle indices, flattened, of every part with this material.
    pub fn indices_for(&self, material: usize) -> Vec<u32> {
        self.parts
            .iter()
            .filter(|p| p.material == material)
            .flat_map(|p| {
                self.triangles[p.first_triangle..p.first_triangle + p.triangle_count].iter().flatten().copied()
            })
            .collect()
    }

    fn add(
        &mut self,
        rig: &Rig,
        name: &str,
        material: usize,
        bones: &[&str],
        shape: (Vec<Ring>, Vec3, Vec3),
        segments: usize,
    ) {
        let shell = loft(&shape.0, shape.1, shape.2, segments);
        let base = self.positions.len() as u32;
        let mut bone_ids: Vec<usize> = bones.iter().map(|b| rig.bone(b)).collect();
        bone_ids.sort_unstable();
        self.parts.push(Part {
            name: name.to_string(),
            first_vertex: base as usize,
            vertex_count: shell.positions.len(),
            first_triangle: self.triangles.len(),
            triangle_count: shell.triangles.len(),
            material,
            bones: bone_ids,
            smooth_weights: !name.starts_with("foot"),
        });
        self.normals.extend(vertex_normals(&shell.positions, &shell.triangles));
        self.positions.extend(shell.positions);
        self.triangles.extend(shell.triangles.iter().map(|t| t.map(|i| i + base)));
    }
}

/// Horizontal ring at height `y`, centred at `(x, y, z)`.
fn level_ring(x: f32, y: f32, z: f32, half_width: f32, half_depth: f32, power: f32) -> Ring {
    Ring { center: Vec3::new(x, y, z), u: Vec3::X, v: Vec3::Z, ru: half_width, rv: half_depth, power }
}

/// Builds the body for the rig.
pub fn body(rig: &Rig) -> BodyMesh {
    let mut mesh = BodyMesh::default();
    torso(rig, &mut mesh);
    head_and_neck(rig, &mut mesh);
    for side in ["l", "r"] {
        let flip = if side == "l" { 1.0 } else { -1.0 };
        let m = |v: Vec3| Vec3::new(v.x * flip, v.y, v.z);
        let b = |name: &str| format!("{name}_{side}");
        let (pelvis, thigh, calf, foot, ball) = ("pelvis".to_string(), b("thigh"), b("calf"), b("foot"), b("ball"));
        // Leg: hip -> knee -> ankle, radius by arc length.
        let knee_s = (KNEE_L - HIP_L).length();
        let leg_profile: Vec<(f32, f32, f32)> = [
            (0.0, 0.080),
            (0.10, 0.078),
            (0.25, 0.066),
            (knee_s - 0.04, 0.052),
            (knee_s, 0.049),
            (knee_s + 0.06, 0.051),
            (knee_s + 0.15, 0.054),
            (knee_s + 0.27, 0.043),
            (knee_s + 0.38, 0.033),
            (knee_s + 0.43, 0.031),
        ]
        .iter()
        .map(|&(s, r)| (s, r, r))
        .collect();
        let rings = tube(&[m(HIP_L), m(KNEE_L), m(ANKLE_L)], &leg_profile, Vec3::X, 0.03, 2.0);
        let shape = rounded_ends(&rings, 0.06, 0.03, 3);
        mesh.add(rig, &b("leg"), BODY, &[&pelvis, &thigh, &calf, &foot], shape, 20);
        // Foot: boxy loft heel -> toes with the sole on the floor.
        let foot_sections: [(f32, f32, f32); 8] = [
            (-0.06, 0.032, 0.040),
            (-0.03, 0.040, 0.055),
            (0.01, 0.043, 0.058),
            (0.05, 0.046, 0.048),
            (0.09, 0.049, 0.035),
            (0.125, 0.050, 0.026),
            (0.16, 0.048, 0.020),
            (0.185, 0.042, 0.016),
        ];
        let rings: Vec<Ring> = foot_sections
            .iter()
            .map(|&(z, hw, hh)| Ring {
                center: m(Vec3::new(ANKLE_L.x, hh, z)),
                u: Vec3::X,
                v: Vec3::Y,
                ru: hw,
                rv: hh,
                power: 2.8,
            })
            .collect();
        let shape = rounded_ends_toward(&rings, Vec3::Z * -0.02, Vec3::Z * 0.022, 3);
        mesh.add(rig, &b("foot"), ACCENT, &[&calf, &foot, &ball], shape, 20);
        // Arm: shoulder -> elbow -> wrist.
        let elbow = rig.joint(rig.bone(&b("lowerarm")));
        let wrist = rig.joint(rig.bone(&b("hand")));
        let elbow_s = (elbow - m(SHOULDER_L)).length();
        let arm_profile: Vec<(f32, f32, f32)> = [
            (0.0, 0.050),
            (0.08, 0.048),
            (0.20, 0.040),
            (elbow_s, 0.036),
            (elbow_s + 0.05, 0.039),
            (elbow_s + 0.16, 0.032),
            (elbow_s + 0.265, 0.026),
        ]
        .iter()
        .map(|&(s, r)| (s, r, r))
        .collect();
        let rings = tube(&[m(SHOULDER_L), elbow, wrist], &arm_profile, Vec3::Z, 0.025, 2.0);
        let shape = rounded_ends(&rings, 0.04, 0.02, 3);
        let (clavicle, upperarm, lowerarm, hand) = (b("clavicle"), b("upperarm"), b("lowerarm"), b("hand"));
        mesh.add(rig, &b("arm"), BODY, &[&clavicle, &upperarm, &lowerarm, &hand], shape, 20);
        // Hand: a flattened mitten along the forearm, palm towards the thigh.
        let dir = m(skeleton::forearm_dir_l());
        let hand_profile = [
            (0.0, 0.030, 0.022),
            (0.04, 0.042, 0.026),
            (0.09, 0.048, 0.024),
            (0.13, 0.045, 0.018),
            (0.16, 0.038, 0.014),
        ];
        let rings = tube(&[wrist, wrist + dir * (HAND - 0.02)], &hand_profile, Vec3::Z, 0.02, 2.4);
        let shape = rounded_ends(&rings, 0.015, 0.02, 3);
        mesh.add(rig, &b("hand"), ACCENT, &[&lowerarm, &hand], shape, 16);
    }
    mesh
}

fn torso(rig: &Rig, mesh: &mut BodyMesh) {
    // (height, centre z, half width, half depth)
    let sections: [(f32, f32, f32, f32); 13] = [
        (0.855, 0.0, 0.085, 0.070),
        (0.88, 0.0, 0.135, 0.090),
        (0.92, 0.0, 0.160, 0.100),
        (0.97, 0.0, 0.168, 0.105),
        (1.03, 0.0, 0.160, 0.098),
        (1.09, 0.0, 0.142, 0.090),
        (1.16, 0.005, 0.145, 0.092),
        (1.23, 0.012, 0.158, 0.102),
        (1.30, 0.015, 0.170, 0.108),
        (1.36, 0.012, 0.176, 0.105),
        (1.41, 0.0, 0.175, 0.095),
        (1.45, -0.01, 0.155, 0.080),
        (1.48, -0.015, 0.090, 0.060),
    ];
    let rings: Vec<Ring> = sections.iter().map(|&(y, z, hw, hd)| level_ring(0.0, y, z, hw, hd, 2.6)).collect();
    let shape = rounded_ends(&rings, 0.025, 0.02, 3);
    let bones =
        ["pelvis", "spine_01", "spine_02", "spine_03", "neck_01", "clavicle_l", "clavicle_r", "thigh_l", "thigh_r"];
    mesh.add(rig, "torso", BODY, &bones, shape, 32);
}

fn head_and_neck(rig: &Rig, mesh: &mut BodyMesh) {
    let profile = [(0.0, 0.058, 0.055), (0.18, 0.052, 0.050)];
    let rings = tube(&[Vec3::new(0.0, 1.45, -0.03), Vec3::new(0.0, 1.63, 0.0)], &profile, Vec3::X, 0.03, 2.0);
    let shape = rounded_ends(&rings, 0.02, 0.02, 2);
    mesh.add(rig, "neck", BODY, &["spine_03", "neck_01", "head"], shape, 16);
    // Egg-shaped head: rings up a half-ellipse, narrower jaw and a slight chin forward.
    let (c, rx, ry, rz) = (Vec3::new(0.0, 1.685, 0.015), 0.088, 0.115, 0.102);
    let count = 15;
    let rings: Vec<Ring> = (1..count)
        .map(|k| {
            let theta = std::f32::consts::PI * k as f32 / count as f32;
            let lower = (1.0 - theta / std::f32::consts::FRAC_PI_2).max(0.0);
            let width = 1.0 - 0.15 * lower;
            Ring {
                center: Vec3::new(0.0, c.y - ry * theta.cos(), c.z + 0.012 * lower),
                u: Vec3::X,
                v: Vec3::Z,
                ru: rx * theta.sin() * width,
                rv: rz * theta.sin(),
                power: 2.0,
            }
        })
        .collect();
    let shape = (rings, c - Vec3::Y * ry + Vec3::Z * 0.012, c + Vec3::Y * ry);
    mesh.add(rig, "head", BODY, &["neck_01", "head"], shape, 24);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_is_symmetric_grounded_and_modest() {
        let rig = skeleton::rig().unwrap();
        let mesh = body(&rig);
        let n = mesh.positions.len();
        assert!((2_000..20_000).contains(&n), "{n} vertices");
        let min_y = mesh.positions.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        let max_y = mesh.positions.iter().map(|p| p.y).fold(f32::NEG_INFINITY, f32::max);
        assert!(min_y.abs() < 1e-4, "lowest point {min_y}");
        assert!((1.75..1.85).contains(&max_y), "height {max_y}");
        let mirrored = |p: &Vec3| mesh.positions.iter().any(|q| (*q - Vec3::new(-p.x, p.y, p.z)).length() < 1e-5);
        assert!(mesh.positions.iter().step_by(7).all(mirrored));
        assert!(mesh.normals.iter().all(|v| (v.length() - 1.0).abs() < 1e-4));
    }
}
