//! Sole points: where a foot touches the ground, for probing it.
//!
//! **Method.** A foot is probed at its ankle and toe joints and, optionally, at extra points on
//! its sole — the back of the heel and the tip of the toes — each fixed to a bone of the foot.
//! [`FootRig::sole_points`](crate::foot_placement::FootRig::sole_points) places them in model space for a pose; [`sole_float`] measures the lowest
//! point's signed height above the ground found under it.
//!
//! **Invariants.** Positions come from the pose's own bones, so a tilted or rolled foot is
//! probed where it is; points without a ground hit are left out of every measure.

use glam::Vec3;

use crate::Xform;

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

/// How high above the floor a foot's vertex still belongs to its sole, as a fraction of the
/// ankle's height over the floor ([`FlatSole::from_vertices`]).
pub const SOLE_BAND: f32 = 0.2;

/// Where the back of the heel is estimated, behind the ankle, as a fraction of the foot's
/// ankle-to-ball length.
pub const HEEL_BACK: f32 = 0.45;
/// Where the toe tip is estimated, ahead of the ball, as a fraction of the ankle-to-ball length.
pub const TIP_AHEAD: f32 = 0.55;
/// Ankle-to-ball length of a foot without a toe bone, as a fraction of the leg's length.
pub const FOOT_PER_LEG: f32 = 0.18;
/// Where the ball of a foot without a toe bone lies, as a share of its sole from the back of the
/// heel to the toe tip: where [`FlatSole::estimate`] puts it (about 0.73, as on a human foot).
pub const BALL_SHARE: f32 = (1.0 + HEEL_BACK) / (1.0 + HEEL_BACK + TIP_AHEAD);

/// Where a foot without a toe bone touches the floor, as a point in its ankle's frame: under
/// the ankle by its rest height above the rest pose's lowest joint (`above_lowest`; 0.1 ×
/// `leg_length` when the ankle is itself about the lowest) and 0.07 × `leg_length` ahead along
/// `forward`. One rule for everything that follows such a foot's contacts (`ik_tool`'s contact
/// labels and stance checks, retargeting's foot goals). `ankle` is the foot bone's model-space
/// rest transform; `up` and `forward` unit vectors in that space.
///
/// ```
/// use glam::Vec3;
/// use ik_core::Xform;
/// use ik_core::sole::toeless_contact;
///
/// let ankle = Xform::from_translation(Vec3::new(0.1, 0.08, 0.0));
/// let local = toeless_contact(&ankle, Vec3::Y, Vec3::Z, 0.08, 0.9);
/// assert!((ankle.transform_point(local) - Vec3::new(0.1, 0.0, 0.063)).length() < 1e-6);
/// ```
pub fn toeless_contact(ankle: &Xform, up: Vec3, forward: Vec3, above_lowest: f32, leg_length: f32) -> Vec3 {
    let height = if above_lowest > 0.02 * leg_length { above_lowest } else { 0.1 * leg_length };
    let point = ankle.translation - up * height + forward * (0.07 * leg_length);
    ankle.inverse_transform_point(point)
}

/// The sole of a foot standing flat, estimated from its joints: the back of the heel, the ball
/// and the toe tip on the floor, in model space (+Y up). One estimate for every caller (rigging,
/// placement without measured rest data, measuring tools), so they agree on where a sole is.
///
/// ```
/// use glam::Vec3;
/// use ik_core::Xform;
/// use ik_core::sole::FlatSole;
///
/// let ankle = Xform::from_translation(Vec3::new(0.1, 0.08, 0.0));
/// let toe = Xform::from_translation(Vec3::new(0.1, 0.02, 0.14));
/// let sole = FlatSole::estimate(&ankle, Some(&toe), Vec3::Z, 0.9);
/// assert!((sole.length - 0.14).abs() < 1e-6);
/// assert!((sole.heel - Vec3::new(0.1, 0.0, -0.063)).length() < 1e-6);
/// assert!((sole.tip - Vec3::new(0.1, 0.0, 0.14 + 0.077)).length() < 1e-6);
/// // Without a toe bone the foot points along `forward`, 18 % of the leg long.
/// let bare = FlatSole::estimate(&ankle, None, Vec3::NEG_Z, 0.9);
/// assert!((bare.ball - Vec3::new(0.1, 0.0, -0.162)).length() < 1e-5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlatSole {
    /// Back of the heel, on the floor.
    pub heel: Vec3,
    /// Under the toe joint (or the estimated toe), on the floor.
    pub ball: Vec3,
    /// Tip of the toes, on the floor.
    pub tip: Vec3,
    /// Horizontal ankle-to-ball length.
    pub length: f32,
}

impl FlatSole {
    /// Estimates the sole from the ankle's and the toe's flat-pose model transforms. Without a
    /// toe (or with a toe right above the ankle) the foot points along `forward`, and is
    /// [`FOOT_PER_LEG`] × `leg_length` long (at least 30 % of that with a toe). The floor is
    /// y = 0, or the ball's height when the ball is below it.
    pub fn estimate(ankle: &Xform, toe: Option<&Xform>, forward: Vec3, leg_length: f32) -> FlatSole {
        let nominal = FOOT_PER_LEG * if leg_length.is_finite() { leg_length.abs() } else { 0.0 };
        let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
        let forward = flat(forward).try_normalize().unwrap_or(Vec3::Z);
        let a = ankle.translation;
        let along = toe.map_or(Vec3::ZERO, |t| flat(t.translation - a));
        let (dir, length) = match along.try_normalize() {
            Some(dir) => (dir, along.length().max(0.3 * nominal)),
            None => (forward, nominal),
        };
        let ball = toe.map_or(a + dir * length, |t| t.translation);
        let floor = ball.y.min(0.0);
        let on_floor = |p: Vec3| Vec3::new(p.x, floor, p.z);
        FlatSole {
            heel: on_floor(a - dir * HEEL_BACK * length),
            ball: on_floor(ball),
            tip: on_floor(ball + dir * TIP_AHEAD * length),
            length,
        }
    }

    /// Measures the sole from the mesh: `vertices` are the model-space positions (+Y up) of the
    /// vertices the foot and toe bones carry, in the same flat-standing pose as `ankle` and
    /// `toe`. The floor is the lowest vertex; the heel and the tip are where the foot's vertices
    /// that a flat floor carries (within [`SOLE_BAND`] of the ankle's height over that floor: the
    /// sole, not a rounded heel or toe cap above it) reach furthest back and forward along the
    /// foot (ankle → toe, else `forward`), on the floor under the ankle's line.
    /// `None` with fewer than 8 finite vertices, or when they do not reach behind the ankle and
    /// past the ball (not a foot's mesh): then [`FlatSole::estimate`] is the fallback.
    ///
    /// ```
    /// use glam::Vec3;
    /// use ik_core::Xform;
    /// use ik_core::sole::FlatSole;
    ///
    /// // A shoe 7.5 cm behind the ankle to 14.8 cm ahead of it, 1 cm above y = 0.
    /// let ankle = Xform::from_translation(Vec3::new(0.0, 0.09, 0.0));
    /// let toe = Xform::from_translation(Vec3::new(0.0, 0.03, 0.032));
    /// let mut shoe = Vec::new();
    /// for z in [-0.075, 0.0, 0.05, 0.1, 0.148] {
    ///     for (x, y) in [(-0.04, 0.01), (0.04, 0.01), (0.0, 0.08)] {
    ///         shoe.push(Vec3::new(x, y, z));
    ///     }
    /// }
    /// let sole = FlatSole::from_vertices(&shoe, &ankle, Some(&toe), Vec3::Z).unwrap();
    /// assert!((sole.heel - Vec3::new(0.0, 0.01, -0.075)).length() < 1e-6);
    /// assert!((sole.tip - Vec3::new(0.0, 0.01, 0.148)).length() < 1e-6);
    /// // Too few vertices, or none behind the ankle (not a foot's mesh): no measurement.
    /// assert!(FlatSole::from_vertices(&shoe[..6], &ankle, Some(&toe), Vec3::Z).is_none());
    /// let ahead: Vec<Vec3> = shoe.iter().map(|v| *v + Vec3::Z * 0.2).collect();
    /// assert!(FlatSole::from_vertices(&ahead, &ankle, Some(&toe), Vec3::Z).is_none());
    /// ```
    pub fn from_vertices(vertices: &[Vec3], ankle: &Xform, toe: Option<&Xform>, forward: Vec3) -> Option<FlatSole> {
        let finite: Vec<Vec3> = vertices.iter().copied().filter(|v| v.is_finite()).collect();
        if finite.len() < 8 || !ankle.is_finite() {
            return None;
        }
        let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
        let a = ankle.translation;
        let along = toe.map_or(Vec3::ZERO, |t| flat(t.translation - a));
        let dir = along.try_normalize().or_else(|| flat(forward).try_normalize())?;
        let floor = finite.iter().map(|v| v.y).fold(f32::INFINITY, f32::min);
        let band = floor + SOLE_BAND * (a.y - floor).max(0.0);
        let reach = finite.iter().filter(|v| v.y <= band).map(|v| (*v - a).dot(dir));
        let (back, ahead) = reach.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), t| (lo.min(t), hi.max(t)));
        let ball_at = toe.map_or(0.0, |t| (t.translation - a).dot(dir));
        if !(back < 0.0 && ahead > ball_at) {
            return None;
        }
        let on_floor = |p: Vec3| Vec3::new(p.x, floor, p.z);
        let length = along.length();
        Some(FlatSole {
            heel: on_floor(a + dir * back),
            ball: on_floor(toe.map_or(a + dir * 0.5 * ahead, |t| t.translation)),
            tip: on_floor(a + dir * ahead),
            length: if length > 0.0 { length } else { 0.5 * ahead },
        })
    }

    /// The heel point in the ankle's frame and the tip point in the toe's frame (the ankle's
    /// when there is no toe): what [`SolePoint`]s fixed to those bones hold.
    pub fn local_points(&self, ankle: &Xform, toe: Option<&Xform>) -> (Vec3, Vec3) {
        (ankle.inverse_transform_point(self.heel), toe.unwrap_or(ankle).inverse_transform_point(self.tip))
    }
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
