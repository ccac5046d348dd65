//! Landings for [`CreatureGait`](super::CreatureGait): the ground under a predicted landing and
//! the nearest candidate around it that is not on an edge. See [`super`] for the method.
//! Invariants: the point returned is finite; at most `1 + 8 · search_rings` candidates of nine
//! ground probes each are tried.

use core::f32::consts::FRAC_1_SQRT_2;

use glam::Vec3;

use super::CreatureGaitSettings;
use crate::footstep::FootprintGround;

/// The eight directions of a ring (a candidate's neighbourhood, a ring of candidates).
const RING: [(f32, f32); 8] = [
    (1.0, 0.0),
    (FRAC_1_SQRT_2, FRAC_1_SQRT_2),
    (0.0, 1.0),
    (-FRAC_1_SQRT_2, FRAC_1_SQRT_2),
    (-1.0, 0.0),
    (-FRAC_1_SQRT_2, -FRAC_1_SQRT_2),
    (0.0, -1.0),
    (FRAC_1_SQRT_2, -FRAC_1_SQRT_2),
];

/// A chosen landing: the ground point and its normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Landing {
    pub point: Vec3,
    pub normal: Vec3,
}

/// The ground's height under `p`, if any and finite.
fn height<G: FootprintGround + ?Sized>(ground: &mut G, p: Vec3) -> Option<f32> {
    ground.height(p).filter(|h| h.is_finite())
}

/// The ground at `at` if its ring of `radius` stays within `edge` of its height (no edge under
/// the foot): the point and the normal the ring's heights give.
fn flat_spot<G: FootprintGround + ?Sized>(at: Vec3, radius: f32, edge: f32, ground: &mut G) -> Option<Landing> {
    let centre = height(ground, at)?;
    let mut ring = [0.0f32; 8];
    for (h, (x, z)) in ring.iter_mut().zip(RING) {
        *h = height(ground, at + Vec3::new(x, 0.0, z) * radius)?;
        if (*h - centre).abs() > edge {
            return None;
        }
    }
    let slope_x = (ring[0] - ring[4]) / (2.0 * radius);
    let slope_z = (ring[2] - ring[6]) / (2.0 * radius);
    let normal = Vec3::new(-slope_x, 1.0, -slope_z).normalize_or(Vec3::Y);
    Some(Landing { point: at.with_y(centre), normal })
}

/// Where a foot predicted to land at `predicted` (world; its y where no ground is found) lands:
/// the nearest spot off any edge ([`flat_spot`]) within `reach` of `hip`, searched ring by ring
/// around the prediction (on a ring, the one nearest the hip); failing that, the prediction on
/// whatever ground is under it.
pub(super) fn choose<G: FootprintGround + ?Sized>(
    predicted: Vec3,
    hip: Vec3,
    reach: f32,
    settings: &CreatureGaitSettings,
    ground: &mut G,
) -> Landing {
    let positive = |v: f32, fallback: f32| if v.is_finite() && v > 0.0 { v } else { fallback };
    let radius = positive(settings.foot_radius, 0.05);
    let edge = if settings.edge_height.is_finite() { settings.edge_height.max(0.0) } else { 0.03 };
    let step = positive(settings.search_step, 0.05);
    for ring in 0..=settings.search_rings.min(16) {
        let offsets = if ring == 0 { &RING[..1] } else { &RING[..] };
        let distance = step * ring as f32;
        let best = offsets
            .iter()
            .filter_map(|&(x, z)| flat_spot(predicted + Vec3::new(x, 0.0, z) * distance, radius, edge, ground))
            .filter(|l| l.point.distance(hip) <= reach)
            .min_by(|a, b| a.point.distance_squared(hip).total_cmp(&b.point.distance_squared(hip)));
        if let Some(best) = best {
            return best;
        }
    }
    let point = height(ground, predicted).map_or(predicted, |h| predicted.with_y(h));
    Landing { point: if point.is_finite() { point } else { hip }, normal: Vec3::Y }
}
