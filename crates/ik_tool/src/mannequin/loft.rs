//! Lofted shells: closed, smooth surfaces swept through a list of cross-section rings.
//!
//! Method: each [`Ring`] is a superellipse (`|x/ru|^p + |y/rv|^p = 1`) in the plane spanned by
//! its `u`/`v` axes; consecutive rings are joined by quads (two triangles each) and the two
//! ends are closed by triangle fans to a pole vertex. [`rounded_ends`] adds quarter-ellipse cap
//! rings so a tube ends in a dome (a tapered capsule). [`tube`] sweeps rings along a polyline
//! with radii interpolated along its arc length (limbs).
//!
//! Invariants: every shell is closed (each edge shared by exactly two triangles), triangles
//! wind counter-clockwise seen from outside (checked by signed volume and flipped if needed),
//! ring seams share vertices (indices wrap), so normals computed by [`vertex_normals`] are
//! smooth everywhere, poles included.

use std::f32::consts::{FRAC_PI_2, TAU};

use glam::Vec3;

/// One cross-section of a loft.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ring {
    /// Centre of the section.
    pub center: Vec3,
    /// First in-plane axis (unit).
    pub u: Vec3,
    /// Second in-plane axis (unit, perpendicular to `u`).
    pub v: Vec3,
    /// Half-extent along `u`.
    pub ru: f32,
    /// Half-extent along `v`.
    pub rv: f32,
    /// Superellipse exponent: 2 is an ellipse, larger is boxier.
    pub power: f32,
}

impl Ring {
    /// The same ring scaled about its centre.
    pub fn scaled(&self, s: f32) -> Ring {
        Ring { ru: self.ru * s, rv: self.rv * s, ..*self }
    }

    /// The point at angle `a` (radians) round the ring.
    pub fn point(&self, a: f32) -> Vec3 {
        let e = 2.0 / self.power.max(0.1);
        let (s, c) = a.sin_cos();
        let x = c.signum() * c.abs().powf(e) * self.ru;
        let y = s.signum() * s.abs().powf(e) * self.rv;
        self.center + self.u * x + self.v * y
    }
}

/// A closed triangle mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shell {
    /// Vertex positions.
    pub positions: Vec<Vec3>,
    /// Triangles, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// Joins `rings` (at least one) into a closed shell with a pole vertex at each end;
/// `segments` vertices per ring (at least 3).
pub fn loft(rings: &[Ring], start_pole: Vec3, end_pole: Vec3, segments: usize) -> Shell {
    let segments = segments.max(3);
    let mut positions = Vec::with_capacity(rings.len() * segments + 2);
    positions.push(start_pole);
    for ring in rings {
        for j in 0..segments {
            positions.push(ring.point(TAU * j as f32 / segments as f32));
        }
    }
    positions.push(end_pole);
    let at = |ring: usize, j: usize| (1 + ring * segments + j % segments) as u32;
    let last = (positions.len() - 1) as u32;
    let mut triangles = Vec::with_capacity(2 * segments * rings.len());
    for j in 0..segments {
        triangles.push([0, at(0, j + 1), at(0, j)]);
    }
    for i in 0..rings.len().saturating_sub(1) {
        for j in 0..segments {
            triangles.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            triangles.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    let end = rings.len().saturating_sub(1);
    for j in 0..segments {
        triangles.push([last, at(end, j), at(end, j + 1)]);
    }
    let mut shell = Shell { positions, triangles };
    if signed_volume(&shell) < 0.0 {
        for t in &mut shell.triangles {
            t.swap(1, 2);
        }
    }
    shell
}

/// Adds `cap_rings` dome rings before the first ring (reaching `start_len` beyond it) and after
/// the last one (reaching `end_len`), along the loft's own axis at each end, and returns the
/// rings with the two pole positions. Domes follow a quarter ellipse, so the surface meets them
/// without a crease.
pub fn rounded_ends(body: &[Ring], start_len: f32, end_len: f32, cap_rings: usize) -> (Vec<Ring>, Vec3, Vec3) {
    let (Some(first), Some(last)) = (body.first(), body.last()) else {
        return (Vec::new(), Vec3::ZERO, Vec3::ZERO);
    };
    let axis_at = |a: &Ring, b: Option<&Ring>| match b {
        Some(b) => (a.center - b.center).normalize_or(a.u.cross(a.v)),
        None => a.u.cross(a.v),
    };
    let start_dir = axis_at(first, body.get(1));
    let end_dir = axis_at(last, body.len().checked_sub(2).and_then(|i| body.get(i)));
    rounded_ends_toward(body, start_dir * start_len, end_dir * end_len, cap_rings)
}

/// [`rounded_ends`] with each dome's direction and length given as a vector (`start` points
/// away from the first ring, `end` away from the last).
pub fn rounded_ends_toward(body: &[Ring], start: Vec3, end: Vec3, cap_rings: usize) -> (Vec<Ring>, Vec3, Vec3) {
    let (Some(first), Some(last)) = (body.first(), body.last()) else {
        return (Vec::new(), Vec3::ZERO, Vec3::ZERO);
    };
    let cap = |ring: &Ring, reach: Vec3, k: usize| {
        let phi = FRAC_PI_2 * k as f32 / (cap_rings + 1) as f32;
        Ring { center: ring.center + reach * phi.sin(), ..ring.scaled(phi.cos()) }
    };
    let mut rings: Vec<Ring> = (1..=cap_rings).rev().map(|k| cap(first, start, k)).collect();
    rings.extend_from_slice(body);
    rings.extend((1..=cap_rings).map(|k| cap(last, end, k)));
    (rings, first.center + start, last.center + end)
}

/// Rings swept along a polyline, one every `spacing` metres of arc length (ends included),
/// with half-extents `(ru, rv)` interpolated linearly from `profile` (`(arc length, ru, rv)`,
/// sorted by arc length). Ring `u` axes are `side` made perpendicular to the path; at a corner
/// the ring plane bisects the two segments.
pub fn tube(path: &[Vec3], profile: &[(f32, f32, f32)], side: Vec3, spacing: f32, power: f32) -> Vec<Ring> {
    let lengths: Vec<f32> = path.windows(2).map(|w| (w[1] - w[0]).length()).collect();
    let total: f32 = lengths.iter().sum();
    if path.len() < 2 || total <= 0.0 || profile.is_empty() {
        return Vec::new();
    }
    let count = ((total / spacing.max(1e-3)).ceil() as usize).max(1);
    // Arc lengths of the samples, with every corner added so the tube follows the bend.
    let mut samples: Vec<f32> = (0..=count).map(|i| total * i as f32 / count as f32).collect();
    let mut corner = 0.0;
    for len in &lengths[..lengths.len() - 1] {
        corner += len;
        samples.push(corner);
    }
    samples.sort_by(f32::total_cmp);
    samples.dedup_by(|a, b| (*a - *b).abs() < spacing * 0.3);
    samples
        .iter()
        .map(|&s| {
            let (center, dir) = point_on_path(path, &lengths, s);
            let u = (side - dir * side.dot(dir)).normalize_or(dir.any_orthonormal_vector());
            let v = dir.cross(u);
            let (ru, rv) = interpolate(profile, s);
            Ring { center, u, v, ru, rv, power }
        })
        .collect()
}

fn point_on_path(path: &[Vec3], lengths: &[f32], s: f32) -> (Vec3, Vec3) {
    let mut start = 0.0;
    for (i, len) in lengths.iter().enumerate() {
        let dir = (path[i + 1] - path[i]) / len.max(1e-9);
        let end = start + len;
        let at_corner = (s - end).abs() < 1e-5 && i + 1 < lengths.len();
        if at_corner {
            let next = (path[i + 2] - path[i + 1]).normalize_or(dir);
            return (path[i + 1], (dir + next).normalize_or(dir));
        }
        if s <= end || i + 1 == lengths.len() {
            return (path[i] + dir * (s - start).clamp(0.0, *len), dir);
        }
        start = end;
    }
    (path[0], Vec3::Y)
}

fn interpolate(profile: &[(f32, f32, f32)], s: f32) -> (f32, f32) {
    let first = profile[0];
    if s <= first.0 {
        return (first.1, first.2);
    }
    for w in profile.windows(2) {
        let (a, b) = (w[0], w[1]);
        if s <= b.0 {
            let t = ((s - a.0) / (b.0 - a.0).max(1e-9)).clamp(0.0, 1.0);
            return (a.1 + (b.1 - a.1) * t, a.2 + (b.2 - a.2) * t);
        }
    }
    let last = profile[profile.len() - 1];
    (last.1, last.2)
}

/// Six times the signed volume enclosed (positive when triangles wind outward).
pub fn signed_volume(shell: &Shell) -> f32 {
    shell
        .triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| shell.positions[i as usize]);
            a.dot(b.cross(c))
        })
        .sum()
}

/// Smooth per-vertex normals: the area-weighted sum of the adjacent face normals, normalized.
/// A vertex with no area around it gets +Y.
pub fn vertex_normals(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut normals = vec![Vec3::ZERO; positions.len()];
    for t in triangles {
        let [a, b, c] = t.map(|i| positions[i as usize]);
        let n = (b - a).cross(c - a);
        for &i in t {
            normals[i as usize] += n;
        }
    }
    normals.iter().map(|n| n.normalize_or(Vec3::Y)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capsule_is_closed_outward_and_sized() {
        let rings = tube(&[Vec3::ZERO, Vec3::Y], &[(0.0, 0.2, 0.2), (1.0, 0.1, 0.1)], Vec3::X, 0.1, 2.0);
        let (rings, a, b) = rounded_ends(&rings, 0.2, 0.1, 3);
        let shell = loft(&rings, a, b, 16);
        assert!((a.y + 0.2).abs() < 1e-6 && (b.y - 1.1).abs() < 1e-6);
        // Closed: every directed edge appears once and its reverse once.
        let mut edges = std::collections::BTreeMap::new();
        for t in &shell.triangles {
            for k in 0..3 {
                *edges.entry((t[k], t[(k + 1) % 3])).or_insert(0) += 1;
            }
        }
        assert!(edges.iter().all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1)));
        assert!(signed_volume(&shell) > 0.0);
        let normals = vertex_normals(&shell.positions, &shell.triangles);
        for (p, n) in shell.positions.iter().zip(&normals) {
            let outward = *p - Vec3::new(0.0, p.y.clamp(0.0, 1.0), 0.0);
            assert!(n.dot(outward) > 0.0 || outward.length() < 1e-4, "normal {n} at {p} points inward");
        }
    }
}
