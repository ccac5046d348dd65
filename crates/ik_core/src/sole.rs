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
/// How far the ground under a point may leave its neighbour's ground plane before the
/// segment between them is searched for an edge, model units.
const EDGE_STEP: f32 = 0.005;
/// Bisection steps locating an edge: within 1/128 of the points' spacing.
const EDGE_ITERATIONS: usize = 7;

/// A probe point placed for this frame: where it will be once the foot is tilted, its
/// animated height above the floor, its flat-standing height above the sole, and the ground
/// `(point, normal)` under it.
pub type Probe = (Vec3, f32, f32, (Vec3, Vec3));

/// Height at `p` (x, z) of the ground plane through `hit` (point, normal).
fn plane_height((point, normal): (Vec3, Vec3), p: Vec3) -> f32 {
    let n = normal.normalize_or(Vec3::Y);
    if n.y < 0.1 {
        return point.y;
    }
    point.y - ((p.x - point.x) * n.x + (p.z - point.z) * n.z) / n.y
}

/// Bisects `t ∈ [0, 1]` for the edge between two sides: `sample(t)` measures there (`None`:
/// nothing found, counted as the second side), `on_a_side` says whether a sample belongs to the
/// first. Returns the last sample found on the first side and the first found on the second —
/// the pair bracketing the edge to within `2^-iterations`. Used for ground edges under a sole
/// here, and by anyone measuring one (the demo's metrics).
pub fn bracket_edge<S>(
    iterations: usize,
    mut sample: impl FnMut(f32) -> Option<S>,
    mut on_a_side: impl FnMut(&S) -> bool,
) -> (Option<S>, Option<S>) {
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    let (mut last_a, mut first_b) = (None, None);
    for _ in 0..iterations {
        let t = 0.5 * (lo + hi);
        match sample(t) {
            Some(s) if on_a_side(&s) => {
                lo = t;
                last_a = Some(s);
            }
            s => {
                hi = t;
                first_b = s.or(first_b);
            }
        }
    }
    (last_a, first_b)
}

/// Finds where the ground pokes up most into the sole between neighbouring probe points:
/// stair nosings, kerbs, the crest of a ramp. Walking the sole heel → ankle → toe → tip,
/// wherever the ground under one point leaves the ground plane under its neighbour by more
/// than 5 mm, the segment between them is bisected (`cast`: the ground under a model-space
/// point) to where the ground stops following the first point's plane and starts following
/// the second's. Of the two samples that bracket that edge, the one whose ground comes
/// closest to the sole (ground height minus sole height, largest) is returned as an extra
/// probe when it asks for more than the segment's ends; clearing it keeps the sole off the
/// corner. Costs `EDGE_ITERATIONS` rays per segment with an edge, nothing on even or evenly
/// sloping ground.
pub fn find_edges(
    probes: &[Option<Probe>; SOLE_PROBES],
    mut cast: impl FnMut(Vec3) -> Option<(Vec3, Vec3)>,
) -> [Option<Probe>; SOLE_EDGES] {
    let mut edges = [None; SOLE_EDGES];
    // Sole order: heel, ankle, toe, tip (indices into `probes`), skipping missing points.
    let mut order = [2usize, 0, 1, 3].into_iter().filter_map(|i| probes[i]);
    let Some(mut a) = order.next() else { return edges };
    for (slot, b) in edges.iter_mut().zip(order) {
        let (pa, ka, ra, ha) = a;
        let (pb, kb, rb, hb) = b;
        a = b;
        if (plane_height(ha, pb) - hb.0.y).abs() < EDGE_STEP && (plane_height(hb, pa) - ha.0.y).abs() < EDGE_STEP {
            continue;
        }
        // A sample at `t`: how far its ground rises above the sole there, and the probe.
        let mut sample = |t: f32| -> Option<(f32, Probe)> {
            let p = pa.lerp(pb, t);
            let rest = ra + (rb - ra) * t;
            let hit = cast(p)?;
            Some((hit.0.y - (p.y - rest), (p, ka + (kb - ka) * t, rest, hit)))
        };
        // A sample stays on the first point's side while its ground is nearer that plane.
        let on_a_side = |s: &(f32, Probe)| {
            let (p, ground) = (s.1.0, s.1.3.0.y);
            (ground - plane_height(ha, p)).abs() <= (ground - plane_height(hb, p)).abs()
        };
        let (last_a, first_b) = bracket_edge(EDGE_ITERATIONS, &mut sample, on_a_side);
        let ends = (ha.0.y - (pa.y - ra)).max(hb.0.y - (pb.y - rb));
        let best = [last_a, first_b].into_iter().flatten().fold(None, |m: Option<(f32, Probe)>, s| match m {
            Some(m) if m.0 >= s.0 => Some(m),
            _ => Some(s),
        });
        *slot = best.filter(|b| b.0 > ends + 1e-4).map(|b| b.1);
    }
    edges
}
