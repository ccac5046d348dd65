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
/// heel, tip]`, `None` where the rig has no such point.
pub fn sole_points(foot: &FootRig, model: &[Xform]) -> [Option<(Vec3, f32)>; SOLE_PROBES] {
    let on = |p: Option<SolePoint>| p.and_then(|p| Some((model.get(p.bone)?.transform_point(p.local), p.rest_height)));
    [
        Some((model[foot.leg.ankle].translation, foot.ankle_height)),
        foot.leg.toe.map(|t| (model[t].translation, foot.toe_height)),
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
