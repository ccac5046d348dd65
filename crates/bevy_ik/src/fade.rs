//! [`IkFade`]: blend an IK component in and out over time instead of snapping.

use bevy::prelude::*;

/// Fades the weight of the IK components on the same entity ([`crate::chain::IkChain`],
/// [`crate::look_at::LookAtSpread`], [`crate::feet::FootPlacer`]) in and out over time: set
/// `active` and the effective weight eases toward 1 over `fade_in` seconds, or toward 0 over
/// `fade_out` seconds (smoothstep), so a hand reaching for a ledge or a foot planting does not
/// pop. The component's own `weight` is multiplied by [`IkFade::factor`].
///
/// ```
/// # use bevy_ik::prelude::IkFade;
/// let mut fade = IkFade::new(false);
/// fade.active = true; // start reaching: ramps in over `fade_in` (0.15 s by default)
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
pub struct IkFade {
    /// Whether the IK should be on; the weight eases toward this.
    pub active: bool,
    /// Seconds to fade in (0 snaps).
    pub fade_in: f32,
    /// Seconds to fade out (0 snaps).
    pub fade_out: f32,
    /// Linear fade progress in `[0, 1]` (read-only in practice; advanced every frame).
    pub progress: f32,
}

impl Default for IkFade {
    fn default() -> Self {
        IkFade::new(true)
    }
}

impl IkFade {
    /// A fade starting fully in (`active`) or fully out, with 0.15 s fades.
    pub fn new(active: bool) -> Self {
        IkFade { active, fade_in: 0.15, fade_out: 0.15, progress: if active { 1.0 } else { 0.0 } }
    }

    /// The weight multiplier now: smoothstep of the progress, in `[0, 1]`.
    pub fn factor(&self) -> f32 {
        let t = self.progress.clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    }

    /// Advances the fade by `dt` seconds.
    pub fn advance(&mut self, dt: f32) {
        let (goal, duration) = if self.active { (1.0, self.fade_in) } else { (0.0, self.fade_out) };
        if duration.is_nan() || duration <= 0.0 || !dt.is_finite() {
            self.progress = goal;
            return;
        }
        let step = dt.max(0.0) / duration;
        self.progress =
            if goal > self.progress { (self.progress + step).min(goal) } else { (self.progress - step).max(goal) };
    }
}

/// The effective weight: a component's weight times its fade (if any), clamped to `[0, 1]`.
pub fn effective_weight(weight: f32, fade: Option<&IkFade>) -> f32 {
    let w = weight * fade.map_or(1.0, IkFade::factor);
    if w.is_finite() { w.clamp(0.0, 1.0) } else { 0.0 }
}

/// Advances every [`IkFade`].
pub fn advance_fades(time: Res<Time>, mut fades: Query<&mut IkFade>) {
    let dt = time.delta_secs();
    for mut fade in &mut fades {
        let before = fade.progress;
        fade.bypass_change_detection().advance(dt);
        if fade.progress != before {
            fade.set_changed();
        }
    }
}
