//! Tuning of [`super::FootPlacement`]: [`FootPlacementSettings`] and [`KneePole`].

use glam::Vec3;

use super::PelvisSupport;

/// Which way the knees point when a leg is re-solved.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub enum KneePole {
    /// Toward this model-space direction (e.g. `Vec3::Z`, the character's forward).
    Forward(Vec3),
    /// Keep each leg's current bend plane.
    CurrentPlane,
    /// Toward the direction each knee bent in the pose its [`super::FootRig`] was measured
    /// from ([`super::FootRig::knee_forward`]): no forward axis to configure, so characters
    /// facing +Z, −Z or anything else bend their knees forward.
    RestBend,
}

/// Which of a foot's sole points are probed for ground ([`FootPlacementSettings::probes`]): fewer
/// rays for characters far from the camera (a level of detail). A point left out is not probed:
/// it takes the ground of the plane found under its nearest probed neighbour, so it still keeps
/// clear of flat or sloped ground (not of a step between the two).
///
/// ```
/// use ik_core::foot_placement::{FootPlacementSettings, SoleProbes};
///
/// // One ray per foot, under the ankle, and no edge search: the cheapest placement.
/// let far = FootPlacementSettings { probes: SoleProbes::Ankle, edge_search: false, ..Default::default() };
/// assert!(far.probes.probes(0, true) && !far.probes.probes(1, true));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub enum SoleProbes {
    /// Under the ankle and toe joints, the back of the heel and the toe tip (default).
    #[default]
    All,
    /// The heel and the toe tip only (two rays); a foot without those points is probed under
    /// its ankle.
    HeelAndTip,
    /// Under the ankle only (one ray).
    Ankle,
}

impl SoleProbes {
    /// Whether probe `k` of [`super::FootRig::sole_points`] (`[ankle, toe, heel, tip]`) is
    /// cast; `has_ends`: the foot has a heel or a tip point.
    pub fn probes(self, k: usize, has_ends: bool) -> bool {
        match self {
            SoleProbes::All => true,
            SoleProbes::HeelAndTip if has_ends => k == 2 || k == 3,
            SoleProbes::HeelAndTip | SoleProbes::Ankle => k == 0,
        }
    }
}

/// Tuning of [`super::FootPlacement`]. Lengths in model units (metres; read clamped to ±10 km, and
/// to ≥ 0 where negative makes no sense), angles in radians, times in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct FootPlacementSettings {
    /// How far above the ankle the ray starts. Default 0.5.
    pub ray_start_height: f32,
    /// Ray length from its start. Default 1.5.
    pub ray_length: f32,
    /// Largest upward foot correction. Default 0.5.
    pub max_step_up: f32,
    /// Largest downward foot correction, and largest pelvis drop. Default 0.5.
    pub max_step_down: f32,
    /// Sole height above the floor (in the animation) up to which a foot counts as fully
    /// planted. Default 0.05.
    pub planted_height: f32,
    /// Height over which the planted weight fades from 1 to 0 above `planted_height`.
    /// Default 0.1.
    pub planted_fade: f32,
    /// Largest foot tilt to the ground normal, clamped to `[0, 80°]`. Default 35° (0.61).
    pub max_tilt: f32,
    /// Half-life of the pelvis offset spring. Default 0.06. 0 = no smoothing.
    pub pelvis_half_life: f32,
    /// Half-life of each foot's correction spring. Default 0 (no smoothing: a planted foot
    /// fades in through its planted weight already, and on a slope a smoothed correction lags
    /// behind the moving character by about speed × slope × half-life).
    pub foot_half_life: f32,
    /// Half-life of each foot's ground-normal spring. Default 0.03. 0 = no smoothing.
    pub tilt_half_life: f32,
    /// Soft extension of the legs' two-bone solve (fraction of reach). Default 0.02.
    pub soften: f32,
    /// Knee direction for the re-solve. Default [`KneePole::RestBend`]: each knee bends the way
    /// it bends in the pose its [`super::FootRig`] was measured from, whatever way the
    /// character faces.
    pub knee_pole: KneePole,
    /// Which planted feet the pelvis height follows. Default [`PelvisSupport::LowestFoot`].
    pub pelvis_support: PelvisSupport,
    /// Share, clamped to `[0, 1]`, of a planted leg's shortfall in reach (its ground further
    /// than the leg reaches from where [`Self::pelvis_support`] puts the pelvis) taken by
    /// lifting the heel (the foot pitched about its toe joint, the toes kept where they were)
    /// before the pelvis drops for the rest. Feet without a toe bone never lift. Smoothed with
    /// `pelvis_half_life`. Default 0: the pelvis drops for all of it.
    pub heel_lift: f32,
    /// Largest heel-lift angle, clamped to `[0, 60°]`. Default 25° (0.44).
    pub max_heel_lift: f32,
    /// Which sole points are probed. Default [`SoleProbes::All`].
    pub probes: SoleProbes,
    /// Search for ground edges (nosings, kerbs) between neighbouring probed points
    /// ([`crate::sole::find_edges`]). Default true.
    pub edge_search: bool,
}

impl Default for FootPlacementSettings {
    fn default() -> Self {
        FootPlacementSettings {
            ray_start_height: 0.5,
            ray_length: 1.5,
            max_step_up: 0.5,
            max_step_down: 0.5,
            planted_height: 0.05,
            planted_fade: 0.1,
            max_tilt: 35f32.to_radians(),
            pelvis_half_life: 0.06,
            foot_half_life: 0.0,
            tilt_half_life: 0.03,
            soften: 0.02,
            knee_pole: KneePole::RestBend,
            pelvis_support: PelvisSupport::LowestFoot,
            heel_lift: 0.0,
            max_heel_lift: 25f32.to_radians(),
            probes: SoleProbes::All,
            edge_search: true,
        }
    }
}

impl FootPlacementSettings {
    pub(super) fn is_finite(&self) -> bool {
        let pole = match self.knee_pole {
            KneePole::Forward(d) => d.is_finite(),
            KneePole::CurrentPlane | KneePole::RestBend => true,
        };
        pole && [
            self.ray_start_height,
            self.ray_length,
            self.max_step_up,
            self.max_step_down,
            self.planted_height,
            self.planted_fade,
            self.max_tilt,
            self.pelvis_half_life,
            self.foot_half_life,
            self.tilt_half_life,
            self.soften,
            self.heel_lift,
            self.max_heel_lift,
        ]
        .iter()
        .all(|v| v.is_finite())
    }
}
