//! [`FootReport`]: what one run of [`FootPlacement`] found and did for each foot.

use glam::Vec3;

#[cfg(doc)]
use super::{FootPlacement, FootPlacementSettings, FootRig};

/// Per-foot result of a run. Heights are model-space y; floats are signed distances of the sole
/// from the ground (the lower of the ankle's `(ankle − hit)·normal − ankle_height` and the toe's
/// likewise, each against the ground under it; positive = floating, negative = penetrating), 0
/// without a hit.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct FootReport {
    /// The ray found ground.
    pub hit: bool,
    /// Ground height under the foot (0 without a hit).
    pub ground_height: f32,
    /// The hit point, model space (zero without a hit).
    pub ground_point: Vec3,
    /// Ground normal, model space (+Y without a hit).
    pub ground_normal: Vec3,
    /// How planted the foot stands, in `[0, 1]`: the animated pose's planted weight, less the
    /// share a swing floor carries it ([`FootPlacement::swing_floors`]).
    pub planted: f32,
    /// The animated pose's own planted weight in `[0, 1]` (its sole within `planted_height`
    /// of its floor, fading over `planted_fade`), whatever a swing floor does with the foot:
    /// what to read as "the clip has this foot down" without contact labels.
    pub clip_planted: f32,
    /// Correction the ground asks for, before smoothing (planted weight included).
    pub target_offset: f32,
    /// Vertical correction applied to the ankle (smoothed).
    pub offset: f32,
    /// Where the ankle was sent, model space.
    pub ankle_target: Vec3,
    /// The toe ray found ground (only for feet with a toe).
    pub toe_hit: bool,
    /// Where the toe ray met the ground, model space (zero without a hit).
    pub toe_ground_point: Vec3,
    /// Ground normal under the toe, model space (zero without a hit).
    pub toe_ground_normal: Vec3,
    /// Float of the animated foot: its lowest sole point's height above that point's ground.
    pub float_before: f32,
    /// Float after placement.
    pub float_after: f32,
    /// The leg solve reached its ankle target.
    pub reached: bool,
    /// The heel-lift angle applied (radians, ≥ 0; see [`FootPlacementSettings::heel_lift`]).
    pub heel_lift: f32,
    /// The foot (ankle) bone's local *translation* was changed, not only its rotation: an
    /// external foot ([`FootRig::is_external`]) moved with its shin. Write it back too.
    pub ankle_translated: bool,
}
