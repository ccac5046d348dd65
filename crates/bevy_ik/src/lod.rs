//! IK level of detail: [`IkLod`] picks how much IK a character gets ([`IkLevel`]), set by the
//! game or chosen by its distance to the [`IkLodViewer`] (with hysteresis, [`IkLodSettings`]).
//! A level change never pops: each feature a level adds or drops (the whole placement, the
//! foot lock, the footstep prediction, the look-at) fades its weight in or out over
//! [`IkLodSettings::blend_time`] ([`IkLodState::fades`]); the look-at changes its joints only
//! while faded out. The feet and look-at systems read the state: fewer sole probes and no edge
//! search ([`IkLevel::placement_settings`]), no prediction, no lock, fewer look-at joints.
//!
//! The frame budget ([`crate::budget`]) reads the same state: it decides which characters
//! update this frame ([`IkLodState::update_now`]). Both need [`crate::IkLodPlugin`] next to
//! [`crate::IkPlugin`].
//!
//! Only the components on the character root are governed ([`crate::feet::FootPlacer`],
//! [`crate::feet::FootLock`], [`crate::footstep::FootstepPrediction`],
//! [`crate::look_at::LookAtSpread`]); a limb's [`crate::chain::IkChain`] sits on its tip bone
//! and keeps its own [`crate::fade::IkFade`].

use bevy::prelude::*;
use ik_core::foot_placement::{FootPlacementSettings, SoleProbes};

/// How much IK a character gets.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IkLevel {
    /// Everything its components ask for.
    #[default]
    Full,
    /// Feet probed at heel and toe tip only, no edge search, no footstep prediction; the
    /// look-at on its last two joints (neck and head).
    Reduced,
    /// Pelvis and two-bone legs only: one ray per foot, no lock, prediction or look-at.
    Minimal,
    /// No IK: the pose as animated.
    Off,
}

impl IkLevel {
    /// The levels from [`IkLevel::Full`] down.
    pub const ALL: [IkLevel; 4] = [IkLevel::Full, IkLevel::Reduced, IkLevel::Minimal, IkLevel::Off];

    /// The foot placement's settings at this level: `full` with fewer probes and no edge
    /// search below [`IkLevel::Full`].
    ///
    /// ```
    /// # use bevy_ik::lod::IkLevel;
    /// # use bevy_ik::ik_core::foot_placement::{FootPlacementSettings, SoleProbes};
    /// let reduced = IkLevel::Reduced.placement_settings(FootPlacementSettings::default());
    /// assert_eq!(reduced.probes, SoleProbes::HeelAndTip);
    /// assert!(!reduced.edge_search);
    /// ```
    pub fn placement_settings(self, full: FootPlacementSettings) -> FootPlacementSettings {
        let probes = match self {
            IkLevel::Full => return full,
            IkLevel::Reduced => SoleProbes::HeelAndTip,
            IkLevel::Minimal | IkLevel::Off => SoleProbes::Ankle,
        };
        FootPlacementSettings { probes, edge_search: false, ..full }
    }

    /// The features this level runs: `[placement, lock, prediction, look-at]`.
    fn features(self) -> [bool; 4] {
        match self {
            IkLevel::Full => [true; 4],
            IkLevel::Reduced => [true, true, false, true],
            IkLevel::Minimal => [true, false, false, false],
            IkLevel::Off => [false; 4],
        }
    }

    /// Whether the look-at runs on its last two joints only.
    fn few_look_joints(self) -> bool {
        self >= IkLevel::Reduced
    }

    /// The level one step coarser (`Off` stays).
    fn coarser(self) -> IkLevel {
        match self {
            IkLevel::Full => IkLevel::Reduced,
            IkLevel::Reduced => IkLevel::Minimal,
            IkLevel::Minimal | IkLevel::Off => IkLevel::Off,
        }
    }
}

/// Put on a character root (next to its [`crate::feet::FootPlacer`], [`crate::look_at::LookAtSpread`]):
/// its IK level of detail, fixed or chosen by distance to the [`IkLodViewer`].
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity, far_away: Entity, camera: Entity) {
/// commands.entity(character).insert(IkLod::ByDistance); // IkLodSettings::distances
/// commands.entity(far_away).insert(IkLod::Fixed(IkLevel::Minimal));
/// commands.entity(camera).insert(IkLodViewer);
/// # }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default)]
#[require(IkLodState)]
pub enum IkLod {
    /// Chosen by distance to the [`IkLodViewer`] ([`IkLodSettings::distances`]); `Full`
    /// without a viewer.
    #[default]
    ByDistance,
    /// Always this level.
    Fixed(IkLevel),
}

/// Put on the camera (or whatever entity the distances are measured from): the nearest
/// [`IkLodViewer`] to each character chooses its [`IkLod::ByDistance`] level.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands) {
/// commands.spawn((Transform::from_xyz(0.0, 2.0, 8.0), IkLodViewer));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default)]
pub struct IkLodViewer;

/// How [`IkLod::ByDistance`] chooses levels and how fast levels blend (a live-editable
/// resource).
///
/// ```
/// # use bevy_ik::lod::IkLodSettings;
/// let settings = IkLodSettings { distances: [10.0, 30.0, 80.0], ..Default::default() };
/// assert!(settings.hysteresis > 0.0);
/// ```
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default)]
pub struct IkLodSettings {
    /// Distances from the viewer beyond which a character drops to Reduced, Minimal and Off, m.
    /// Default 15, 40, 120.
    pub distances: [f32; 3],
    /// A character comes back up a level only once this much nearer than the level's distance,
    /// m, so one walking along a threshold does not flicker between levels. Default 2.
    pub hysteresis: f32,
    /// Seconds over which a feature a level adds or drops fades in or out. Default 0.5 (a
    /// 50° look-at fades out by at most 2.5° a frame at 60 Hz).
    pub blend_time: f32,
}

impl Default for IkLodSettings {
    fn default() -> Self {
        IkLodSettings { distances: [15.0, 40.0, 120.0], hysteresis: 2.0, blend_time: 0.5 }
    }
}

impl IkLodSettings {
    /// The level at `distance` for a character now at `current` (hysteresis on the way up).
    ///
    /// ```
    /// # use bevy_ik::lod::{IkLevel, IkLodSettings};
    /// let s = IkLodSettings::default(); // 15 / 40 / 120 m, 2 m hysteresis
    /// assert_eq!(s.level_at(16.0, IkLevel::Full), IkLevel::Reduced);
    /// assert_eq!(s.level_at(14.0, IkLevel::Reduced), IkLevel::Reduced); // not 2 m nearer yet
    /// assert_eq!(s.level_at(12.0, IkLevel::Reduced), IkLevel::Full);
    /// ```
    pub fn level_at(&self, distance: f32, current: IkLevel) -> IkLevel {
        if !distance.is_finite() {
            return if distance.is_nan() { current } else { IkLevel::Off };
        }
        let mut level = IkLevel::Full;
        for (i, threshold) in self.distances.iter().enumerate() {
            // Staying at or below a level needs the distance past its threshold less the margin.
            let margin = if current > IkLevel::ALL[i] { self.hysteresis.max(0.0) } else { 0.0 };
            if distance > threshold - margin {
                level = level.coarser();
            }
        }
        level
    }
}

/// The fades of the features a level adds or drops, linear progress in `[0, 1]` (the weight
/// is its smoothstep, as [`crate::fade::IkFade`]'s).
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
pub struct LodFades {
    /// The whole foot placement (and with it everything on the feet).
    pub placement: f32,
    /// The foot lock's shifts.
    pub lock: f32,
    /// The footstep prediction's steering and swing floors.
    pub prediction: f32,
    /// The look-at.
    pub look_at: f32,
}

impl Default for LodFades {
    fn default() -> Self {
        LodFades { placement: 1.0, lock: 1.0, prediction: 1.0, look_at: 1.0 }
    }
}

/// The smoothstep weight of a linear fade progress.
pub(crate) fn weight_of(progress: f32) -> f32 {
    let t = if progress.is_finite() { progress.clamp(0.0, 1.0) } else { 0.0 };
    t * t * (3.0 - 2.0 * t)
}

/// Where a character's level of detail stands (required by [`IkLod`]; read-only in practice).
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
pub struct IkLodState {
    /// The level in effect (features still fading out keep running until faded).
    pub level: IkLevel,
    /// Distance to the nearest [`IkLodViewer`] last frame, m (infinite without one).
    pub distance: f32,
    /// Each feature's fade.
    pub fades: LodFades,
    /// Whether the look-at runs on its last two joints (changed only while it is faded out).
    pub few_look_joints: bool,
    /// From the frame budget: this character updates every `rate` frames (1, 2 or 4).
    pub rate: u8,
    /// Whether its IK is solved this frame; otherwise last frame's corrections are applied to
    /// this frame's animation.
    pub update_now: bool,
    /// Seconds since its IK last updated, this frame's included: the time step its next update
    /// advances its springs and contact timers by, so a character the budget solves every 4th
    /// frame settles as fast as one solved every frame.
    pub since_update: f32,
    /// Whether a level was chosen before (the first is taken at once, without a blend).
    #[reflect(ignore)]
    pub(crate) seen: bool,
}

impl Default for IkLodState {
    fn default() -> Self {
        IkLodState {
            level: IkLevel::Full,
            distance: f32::INFINITY,
            fades: LodFades::default(),
            few_look_joints: false,
            rate: 1,
            update_now: true,
            since_update: 0.0,
            seen: false,
        }
    }
}

impl IkLodState {
    /// The time step of this frame's update: [`IkLodState::since_update`], or `dt` before the
    /// level system has run (without [`crate::IkLodPlugin`]).
    pub fn time_step(&self, dt: f32) -> f32 {
        if self.since_update > 0.0 && self.since_update.is_finite() { self.since_update } else { dt }
    }

    /// The weight the foot placement runs at (0: not run).
    pub fn placement_weight(&self) -> f32 {
        weight_of(self.fades.placement)
    }

    /// The weight of the lock's shifts (0: the lock is not run).
    pub fn lock_weight(&self) -> f32 {
        weight_of(self.fades.lock)
    }

    /// The weight of the prediction's steering (0: not run).
    pub fn prediction_weight(&self) -> f32 {
        weight_of(self.fades.prediction)
    }

    /// The look-at's weight (0: not run).
    pub fn look_at_weight(&self) -> f32 {
        weight_of(self.fades.look_at)
    }

    /// Moves to `level`: each feature's fade advances `dt / blend` toward on or off.
    pub fn advance(&mut self, level: IkLevel, dt: f32, blend: f32) {
        self.level = level;
        let [placement, lock, prediction, look] = level.features();
        // The look-at switches joints only while faded out.
        let look = look && self.few_look_joints == level.few_look_joints();
        let step = if blend.is_finite() && blend > 0.0 && dt.is_finite() { dt.max(0.0) / blend } else { 1.0 };
        let fade = |progress: &mut f32, on: bool| {
            let goal = if on { 1.0 } else { 0.0 };
            *progress = if goal > *progress { (*progress + step).min(goal) } else { (*progress - step).max(goal) };
        };
        fade(&mut self.fades.placement, placement);
        fade(&mut self.fades.lock, lock);
        fade(&mut self.fades.prediction, prediction);
        fade(&mut self.fades.look_at, look);
        if self.fades.look_at <= 0.0 && self.few_look_joints != level.few_look_joints() {
            self.few_look_joints = level.few_look_joints();
            fade(&mut self.fades.look_at, level.features()[3]);
        }
    }
}

/// Chooses each [`IkLod`]'s level and advances its fades (in [`crate::IkSystems::Prepare`]).
pub fn choose_levels(
    time: Res<Time>,
    settings: Res<IkLodSettings>,
    viewers: Query<&GlobalTransform, With<IkLodViewer>>,
    mut characters: Query<(&IkLod, &GlobalTransform, &mut IkLodState)>,
) {
    let dt = time.delta_secs();
    let eyes: Vec<Vec3> = viewers.iter().map(GlobalTransform::translation).filter(|p| p.is_finite()).collect();
    characters.par_iter_mut().for_each(|(lod, at, mut state)| {
        let at = at.translation();
        let distance = eyes.iter().map(|eye| eye.distance(at)).fold(f32::INFINITY, f32::min);
        let level = match lod {
            IkLod::Fixed(level) => *level,
            IkLod::ByDistance if eyes.is_empty() => IkLevel::Full,
            IkLod::ByDistance => settings.level_at(distance, state.level),
        };
        let state = state.bypass_change_detection();
        state.distance = distance;
        state.since_update = if state.update_now { dt } else { state.since_update + dt };
        let blend = if state.seen { settings.blend_time } else { 0.0 };
        state.seen = true;
        state.advance(level, dt, blend);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hysteresis_keeps_a_level_until_the_margin_is_crossed() {
        let s = IkLodSettings::default();
        assert_eq!(s.level_at(10.0, IkLevel::Full), IkLevel::Full);
        assert_eq!(s.level_at(41.0, IkLevel::Full), IkLevel::Minimal);
        assert_eq!(s.level_at(39.0, IkLevel::Minimal), IkLevel::Minimal);
        assert_eq!(s.level_at(37.0, IkLevel::Minimal), IkLevel::Reduced);
        assert_eq!(s.level_at(500.0, IkLevel::Full), IkLevel::Off);
        assert_eq!(s.level_at(f32::NAN, IkLevel::Reduced), IkLevel::Reduced);
    }

    #[test]
    fn the_look_at_fades_out_before_it_changes_joints_and_back_in_after() {
        let mut state = IkLodState::default();
        let mut weights = Vec::new();
        for _ in 0..40 {
            state.advance(IkLevel::Reduced, 1.0 / 60.0, 0.3);
            weights.push((state.look_at_weight(), state.few_look_joints));
        }
        // Out over 0.3 s (18 frames) on all joints, then in on the last two.
        assert!(weights[..17].iter().all(|&(w, few)| w > 0.0 && !few), "{weights:?}");
        assert!(weights[20..].iter().all(|&(_, few)| few));
        assert_eq!(weights[39].0, 1.0);
        let steps = weights.windows(2).map(|w| (w[1].0 - w[0].0).abs()).fold(0.0f32, f32::max);
        assert!(steps < 0.1, "largest weight step per frame {steps}");
        assert_eq!(state.prediction_weight(), 0.0);
        assert_eq!(state.lock_weight(), 1.0);
    }
}
