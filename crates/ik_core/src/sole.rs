//! Sole points: where a foot touches the ground, for probing it.
//!
//! **Method.** A foot is probed at its ankle and toe joints and, optionally, at extra points on
//! its sole — the back of the heel and the tip of the toes — each fixed to a bone of the foot.
//! [`sole_points`] places them in model space for a pose; [`sole_float`] measures the lowest
//! point's signed height above the ground found under it.
//!
//! **Invariants.** Positions come from the pose's own bones, so a tilted or rolled foot is
//! probed where it is; points without a ground hit are left out of every measure.

use glam::Vec3;

use crate::Xform;
use crate::foot_placement::FootRig;

/// A point on the sole, fixed to a bone: `local` in that bone's frame, `rest_height` its height
/// above the floor when the foot stands flat (0 for a point on the sole).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolePoint {
    /// The bone carrying the point (the ankle or toe bone of the leg).
    pub bone: usize,
    /// The point in that bone's local frame.
    pub local: Vec3,
    /// Height above the floor when the foot stands flat.
    pub rest_height: f32,
}

/// How many points a foot is probed at: ankle, toe, heel, toe tip.
pub const SOLE_PROBES: usize = 4;

/// Model-space positions and flat heights of a foot's probe points for a pose: `[ankle, toe,
/// heel, tip]`, `None` where the rig has no such point. The ankle and toe points are the sole
/// under those joints (the joint moved down the foot's up axis by its flat height), so every
/// point lies on the sole, with flat height 0, however the foot is pitched.
pub fn sole_points(foot: &FootRig, model: &[Xform]) -> [Option<(Vec3, f32)>; SOLE_PROBES] {
    let on = |p: Option<SolePoint>| p.and_then(|p| Some((model.get(p.bone)?.transform_point(p.local), p.rest_height)));
    let ankle = model[foot.leg.ankle];
    let up = ankle.rotation * foot.foot_up;
    [
        Some((ankle.translation - up * foot.ankle_height, 0.0)),
        foot.leg.toe.map(|t| (model[t].translation - up * foot.toe_height, 0.0)),
        on(foot.heel),
        on(foot.tip),
    ]
}

/// The lowest probed point's signed height above the ground plane found under it (negative:
/// inside the ground), `0` when nothing was hit. `hits` are `(point, normal)` per probe.
pub fn sole_float(points: &[Option<(Vec3, f32)>; SOLE_PROBES], hits: &[Option<(Vec3, Vec3)>; SOLE_PROBES]) -> f32 {
    let float = points
        .iter()
        .zip(hits)
        .filter_map(|(point, hit)| {
            let ((p, rest), (h, n)) = ((*point)?, (*hit)?);
            Some((p - h).dot(n.normalize_or(Vec3::Y)) - rest)
        })
        .fold(f32::INFINITY, f32::min);
    if float.is_finite() { float } else { 0.0 }
}

/// Heel and toe-tip points of a foot standing flat: the heel `heel_back` behind the ankle and
/// the tip `tip_ahead` in front of the toe joint (along the foot, on the floor y = 0), returned
/// in the ankle's and the toe's local frames (the ankle's when there is no toe). `ankle` and
/// `toe` are the joints' flat-pose transforms in model space; lengths in model units.
pub fn heel_and_tip(ankle: &Xform, toe: Option<&Xform>, heel_back: f32, tip_ahead: f32) -> (Vec3, Vec3) {
    let toe = toe.unwrap_or(ankle);
    let along = toe.translation - ankle.translation;
    let dir = Vec3::new(along.x, 0.0, along.z).try_normalize().unwrap_or(Vec3::Z);
    let floor = |p: Vec3| Vec3::new(p.x, 0.0, p.z);
    let heel = floor(ankle.translation) - dir * heel_back;
    let tip = floor(toe.translation) + dir * tip_ahead;
    (ankle.inverse_transform_point(heel), toe.inverse_transform_point(tip))
}

/// Most edges probed per foot: one between each pair of neighbouring sole points.
pub const SOLE_EDGES: usize = SOLE_PROBES - 1;
/// Ground height difference between neighbouring points that counts as an edge, model units.
const EDGE_STEP: f32 = 0.01;
/// Bisection steps locating an edge: the corner is found within 1/32 of the points' spacing.
const EDGE_ITERATIONS: usize = 5;

/// A probed point: its position and flat height (as in [`sole_points`]) and the ground
/// `(point, normal)` found under it.
pub type Probed = ((Vec3, f32), (Vec3, Vec3));

/// Finds the edges (stair nosings, kerbs) under a foot. Walking the sole heel → ankle → toe →
/// tip, wherever two neighbouring points stand over ground heights more than 1 cm apart, the
/// segment between them is bisected with `cast` (a ray down from above a model-space point) to
/// the last point still over the higher ground: its position and flat height interpolated
/// along the segment, and the ground there. Clearing those points keeps the sole off the
/// corner wherever it lies between the sole points. Costs `EDGE_ITERATIONS` rays per edge and
/// nothing on even ground.
pub fn find_edges(
    points: &[Option<(Vec3, f32)>; SOLE_PROBES],
    hits: &[Option<(Vec3, Vec3)>; SOLE_PROBES],
    mut cast: impl FnMut(Vec3) -> Option<(Vec3, Vec3)>,
) -> [Option<Probed>; SOLE_EDGES] {
    let mut edges = [None; SOLE_EDGES];
    // Sole order: heel, ankle, toe, tip (indices into `points`), skipping points without ground.
    let mut order = [2usize, 0, 1, 3].into_iter().filter_map(|i| Some(((points[i])?, (hits[i])?)));
    let Some(mut previous) = order.next() else { return edges };
    for (slot, next) in edges.iter_mut().zip(order) {
        let (((pa, ra), ha), ((pb, rb), hb)) = (previous, next);
        previous = next;
        if (ha.0.y - hb.0.y).abs() < EDGE_STEP {
            continue;
        }
        // `a_high`: the higher ground is at t = 0. Keep the high-side parameter nearest the edge.
        let a_high = ha.0.y > hb.0.y;
        let (high, low) = if a_high { (ha.0.y, hb.0.y) } else { (hb.0.y, ha.0.y) };
        let (mut high_t, mut low_t) = if a_high { (0.0f32, 1.0f32) } else { (1.0, 0.0) };
        let mut corner = if a_high { ha } else { hb };
        for _ in 0..EDGE_ITERATIONS {
            let t = 0.5 * (high_t + low_t);
            match cast(pa.lerp(pb, t)) {
                Some(hit) if (hit.0.y - high).abs() <= (hit.0.y - low).abs() => {
                    high_t = t;
                    corner = hit;
                }
                _ => low_t = t,
            }
        }
        *slot = Some(((pa.lerp(pb, high_t), ra + (rb - ra) * high_t), corner));
    }
    edges
}
