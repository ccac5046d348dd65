//! Body fitting: a body on several legs turned and raised to the ground under its feet —
//! pitched along a ramp or a flight of stairs, rolled on a side slope — before the legs are
//! placed, so each leg keeps about the bend it has on level ground instead of folding up under
//! a paw on the tread above or stretching for one below.
//!
//! The ground is a plane fitted through the points found under the feet (least squares, so
//! three or more feet give pitch and roll, two give a slope along the line between them). The
//! body bone turns by that plane's tilt about the middle of the hips and rises by the plane's
//! height there, both smoothed by springs; each leg keeps hanging as animated (its hip keeps its
//! turn), so a foot moves with its hip instead of being swung forward or back by the body's
//! pitch. The legs are then solved by [`crate::foot_placement`] as usual. Work in the
//! character's model space with the root upright: up is +Y.

use glam::{Quat, Vec3};

use crate::leg::refresh_model;
use crate::spring::{QuatSpring, Spring};
use crate::{IkError, Xform};

/// Tuning of [`BodyFitJob`].
///
/// ```
/// use ik_core::body_fit::BodyFitSettings;
///
/// let settings = BodyFitSettings { max_tilt: 0.3, ..Default::default() };
/// assert_eq!(settings.weight, 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct BodyFitSettings {
    /// Share of the fitted tilt and height applied, clamped to `[0, 1]`. Default 1.
    pub weight: f32,
    /// Largest tilt of the body, radians, clamped to `[0, 80°]`. Default 35° (0.61).
    pub max_tilt: f32,
    /// Largest raise or drop of the body, model units. Default 0.3.
    pub max_raise: f32,
    /// Half-life of the tilt and raise springs, seconds (≤ 0: no smoothing). Default 0.08.
    pub half_life: f32,
}

impl Default for BodyFitSettings {
    fn default() -> Self {
        BodyFitSettings { weight: 1.0, max_tilt: 0.61, max_raise: 0.3, half_life: 0.08 }
    }
}

/// One foot as [`BodyFitJob`] sees it: the hip its leg hangs from and the ground found under the
/// foot (model space), if any.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyFoot {
    /// The leg's hip bone (index into the pose).
    pub hip: usize,
    /// The ground under the foot (model space), `None` when nothing was found.
    pub ground: Option<Vec3>,
}

/// What [`BodyFitJob`] keeps between frames: its springs.
#[derive(Clone, Copy, Debug, Default)]
pub struct BodyFitMemory {
    tilt: QuatSpring,
    raise: Spring<f32>,
    started: bool,
}

/// The turn and raise a [`BodyFitJob`] applied this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyFitOutcome {
    /// The body's turn (model space) about [`Self::pivot`].
    pub tilt: Quat,
    /// The body's raise along +Y, model units.
    pub raise: f32,
    /// The middle of the hips (model space, before the turn).
    pub pivot: Vec3,
}

impl BodyFitOutcome {
    /// Where a point carried by the body (model space, as animated) is after the fit: e.g. the
    /// animated floor under a foot, `(x, 0, z)`, becomes that foot's floor.
    ///
    /// ```
    /// use glam::{Quat, Vec3};
    /// use ik_core::body_fit::BodyFitOutcome;
    ///
    /// let fit = BodyFitOutcome { tilt: Quat::IDENTITY, raise: 0.1, pivot: Vec3::ZERO };
    /// assert_eq!(fit.carry(Vec3::new(0.2, 0.0, 0.3)), Vec3::new(0.2, 0.1, 0.3));
    /// ```
    pub fn carry(&self, point: Vec3) -> Vec3 {
        self.pivot + self.tilt * (point - self.pivot) + Vec3::Y * self.raise
    }
}

/// Turns and raises the body bone of a pose to the ground under its feet.
///
/// ```
/// use glam::{Quat, Vec3};
/// use ik_core::Xform;
/// use ik_core::body_fit::{BodyFitJob, BodyFitSettings, BodyFitMemory, BodyFoot};
///
/// // A body at 0.4 with four hips; the ground rises 0.1 per 0.5 forward (+Z).
/// let parents = [None, Some(0), Some(0), Some(0), Some(0)];
/// let at = |x: f32, z: f32| Xform { translation: Vec3::new(x, 0.0, z), ..Xform::IDENTITY };
/// let mut locals = vec![at(0.0, 0.0), at(-0.1, 0.25), at(0.1, 0.25), at(-0.1, -0.25), at(0.1, -0.25)];
/// locals[0].translation.y = 0.4;
/// let mut model = locals.clone();
/// for i in 1..5 {
///     model[i] = model[0].mul_xform(&locals[i]);
/// }
/// let ground = |x: f32, z: f32| Some(Vec3::new(x, 0.2 * z, z));
/// let feet = [(1, -0.1, 0.3), (2, 0.1, 0.3), (3, -0.1, -0.3), (4, 0.1, -0.3)]
///     .map(|(hip, x, z)| BodyFoot { hip, ground: ground(x, z) });
/// let fit = BodyFitJob { parents: &parents, body: 0, feet: &feet, settings: BodyFitSettings::default() };
/// let mut state = BodyFitMemory::default();
/// let outcome = fit.run(&mut locals, &mut model, &mut state, 1.0 / 60.0).unwrap();
/// // Nose up by the slope's angle (about -X turns +Z up).
/// let (axis, angle) = outcome.tilt.to_axis_angle();
/// assert!((angle - 0.2f32.atan()).abs() < 1e-3 && axis.x < -0.99);
/// // The front hips rose, the hind ones sank.
/// assert!(model[1].translation.y > 0.4 && model[3].translation.y < 0.4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BodyFitJob<'a> {
    /// Parent of each bone (parents before children).
    pub parents: &'a [Option<usize>],
    /// The bone every leg hangs from: turned and raised.
    pub body: usize,
    /// The feet.
    pub feet: &'a [BodyFoot],
    /// Tuning.
    pub settings: BodyFitSettings,
}

impl BodyFitJob<'_> {
    /// Fits the body to the ground under the feet and turns and raises it (`locals` and `model`
    /// of the body and everything below it). Without ground under any foot the body eases back
    /// to the pose as animated.
    pub fn run(
        &self,
        locals: &mut [Xform],
        model: &mut [Xform],
        state: &mut BodyFitMemory,
        dt: f32,
    ) -> Result<BodyFitOutcome, IkError> {
        let n = locals.len().min(model.len()).min(self.parents.len());
        if self.body >= n || self.feet.iter().any(|f| f.hip >= n) {
            return Err(IkError::BrokenHierarchy { bone: self.body });
        }
        if self.feet.iter().any(|f| f.ground.is_some_and(|g| !g.is_finite())) || !dt.is_finite() {
            return Err(IkError::NonFiniteInput);
        }
        let pivot = self.feet.iter().map(|f| model[f.hip].translation).sum::<Vec3>() / self.feet.len().max(1) as f32;
        let (tilt, raise) = self.goal(pivot);
        let s = &self.settings;
        if state.started {
            state.tilt.update(tilt, s.half_life, dt.max(0.0));
            state.raise.update(raise, s.half_life, dt.max(0.0));
        } else {
            state.tilt.snap(tilt);
            state.raise.snap(raise);
            state.started = true;
        }
        let outcome = BodyFitOutcome { tilt: state.tilt.value.normalize(), raise: state.raise.value, pivot };
        let body = model[self.body];
        let turned = Xform {
            translation: outcome.carry(body.translation),
            rotation: outcome.tilt * body.rotation,
            scale: body.scale,
        };
        let local = match self.parents[self.body] {
            Some(p) => model[p].inverse().mul_xform(&turned),
            None => turned,
        };
        if !local.is_finite() {
            return Err(IkError::NonFiniteInput);
        }
        locals[self.body] = local;
        if self.parents[self.body].is_none() {
            model[self.body] = local;
        }
        refresh_model(self.parents, locals, model, self.body);
        // The legs hang as animated: each hip keeps its turn, so a paw moves with its hip, not
        // swung forward or back by the body's pitch.
        let untilt = outcome.tilt.inverse();
        for foot in self.feet {
            let turned = |p: &usize| descends_from(self.parents, *p, self.body);
            if let Some(parent) = self.parents[foot.hip].filter(turned) {
                let rotation = model[parent].rotation.inverse() * untilt * model[foot.hip].rotation;
                locals[foot.hip].rotation = rotation.normalize();
            }
        }
        refresh_model(self.parents, locals, model, self.body);
        Ok(outcome)
    }

    /// The turn and raise the ground asks for, weighted and clamped.
    fn goal(&self, pivot: Vec3) -> (Quat, f32) {
        let Some((normal, height)) = fit_plane(self.feet.iter().filter_map(|f| f.ground), pivot) else {
            return (Quat::IDENTITY, 0.0);
        };
        let s = &self.settings;
        let weight = s.weight.clamp(0.0, 1.0);
        let turn = Quat::from_rotation_arc(Vec3::Y, normal);
        let (axis, angle) = turn.to_axis_angle();
        let angle = angle.min(s.max_tilt.clamp(0.0, 80f32.to_radians())) * weight;
        let tilt = if angle > 0.0 && axis.is_finite() { Quat::from_axis_angle(axis, angle) } else { Quat::IDENTITY };
        let max_raise = s.max_raise.max(0.0);
        (tilt, height.clamp(-max_raise, max_raise) * weight)
    }
}

/// Whether `bone` is `ancestor` or hangs below it.
fn descends_from(parents: &[Option<usize>], bone: usize, ancestor: usize) -> bool {
    let mut at = Some(bone);
    while let Some(b) = at {
        if b == ancestor {
            return true;
        }
        // Parents come first: a parent at or after its child is a broken hierarchy.
        at = parents.get(b).copied().flatten().filter(|&p| p < b);
    }
    false
}

/// The plane through `points` (least squares in height): its up normal and its height under
/// `at`. `None` without points. A direction the points do not span gets no slope.
fn fit_plane(points: impl Iterator<Item = Vec3> + Clone, at: Vec3) -> Option<(Vec3, f32)> {
    let count = points.clone().count();
    if count == 0 {
        return None;
    }
    let centre = points.clone().sum::<Vec3>() / count as f32;
    let (mut xx, mut xz, mut zz, mut xh, mut zh) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for p in points {
        let d = p - centre;
        (xx, xz, zz) = (xx + d.x * d.x, xz + d.x * d.z, zz + d.z * d.z);
        (xh, zh) = (xh + d.x * d.y, zh + d.z * d.y);
    }
    // A small ridge leaves a direction the feet do not span level (two feet: across them).
    let ridge = 1e-6 * (xx + zz) + 1e-12;
    let (a, b, c) = (xx + ridge, xz, zz + ridge);
    let det = a * c - b * b;
    let (slope_x, slope_z) = ((c * xh - b * zh) / det, (a * zh - b * xh) / det);
    if !(slope_x.is_finite() && slope_z.is_finite()) {
        return None;
    }
    let height = centre.y + slope_x * (at.x - centre.x) + slope_z * (at.z - centre.z);
    Some((Vec3::new(-slope_x, 1.0, -slope_z).normalize(), height))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body at 0.4 over four hips (±0.1 across, ±0.25 along +Z), each with a foot below.
    fn quadruped() -> (Vec<Option<usize>>, Vec<Xform>, Vec<Xform>) {
        let parents = vec![None, Some(0), Some(0), Some(0), Some(0)];
        let at = |x: f32, y: f32, z: f32| Xform { translation: Vec3::new(x, y, z), ..Xform::IDENTITY };
        let locals =
            vec![at(0.0, 0.4, 0.0), at(-0.1, 0.0, 0.25), at(0.1, 0.0, 0.25), at(-0.1, 0.0, -0.25), at(0.1, 0.0, -0.25)];
        let mut model = locals.clone();
        for i in 1..5 {
            model[i] = model[0].mul_xform(&locals[i]);
        }
        (parents, locals, model)
    }

    fn feet(ground: impl Fn(f32, f32) -> f32) -> [BodyFoot; 4] {
        [(1, -0.1, 0.3), (2, 0.1, 0.3), (3, -0.1, -0.3), (4, 0.1, -0.3)]
            .map(|(hip, x, z)| BodyFoot { hip, ground: Some(Vec3::new(x, ground(x, z), z)) })
    }

    fn run(feet: &[BodyFoot], settings: BodyFitSettings) -> (BodyFitOutcome, Vec<Xform>) {
        let (parents, mut locals, mut model) = quadruped();
        let fit = BodyFitJob { parents: &parents, body: 0, feet, settings };
        let outcome = fit.run(&mut locals, &mut model, &mut BodyFitMemory::default(), 1.0 / 60.0).unwrap();
        (outcome, model)
    }

    #[test]
    fn a_side_slope_rolls_the_body_and_raises_it_by_the_ground_under_its_middle() {
        // Up 0.3 per 1 to the right (+X), 5 cm up everywhere.
        let (outcome, model) = run(&feet(|x, _| 0.05 + 0.3 * x), BodyFitSettings::default());
        let (axis, angle) = outcome.tilt.to_axis_angle();
        assert!((angle - 0.3f32.atan()).abs() < 1e-3, "rolled by the slope: {angle}");
        assert!(axis.z > 0.99, "about +Z (right side up): {axis}");
        assert!((outcome.raise - 0.05).abs() < 1e-4, "the ground under the middle: {}", outcome.raise);
        assert!(model[2].translation.y > model[1].translation.y, "the right hips above the left");
        for hip in &model[1..5] {
            assert!(hip.rotation.angle_between(Quat::IDENTITY) < 1e-5, "the legs hang as animated");
        }
        assert!(model[0].rotation.angle_between(outcome.tilt) < 1e-5, "the body turned");
    }

    #[test]
    fn the_tilt_is_clamped_and_weighted_and_level_ground_leaves_the_pose() {
        let steep = feet(|_, z| 2.0 * z);
        let (clamped, _) = run(&steep, BodyFitSettings { max_tilt: 0.2, ..Default::default() });
        assert!((clamped.tilt.angle_between(Quat::IDENTITY) - 0.2).abs() < 1e-4);
        let (half, _) = run(&steep, BodyFitSettings { max_tilt: 0.2, weight: 0.5, ..Default::default() });
        assert!((half.tilt.angle_between(Quat::IDENTITY) - 0.1).abs() < 1e-4);
        let (level, model) = run(&feet(|_, _| 0.0), BodyFitSettings::default());
        assert!(level.tilt.angle_between(Quat::IDENTITY) < 1e-5 && level.raise.abs() < 1e-6);
        assert!((model[1].translation - Vec3::new(-0.1, 0.4, 0.25)).length() < 1e-5, "the pose as animated");
    }

    #[test]
    fn two_feet_give_a_slope_along_them_only_and_no_ground_eases_back() {
        let two = [
            BodyFoot { hip: 1, ground: Some(Vec3::new(0.0, 0.1, 0.3)) },
            BodyFoot { hip: 3, ground: Some(Vec3::new(0.0, -0.1, -0.3)) },
        ];
        let (outcome, _) = run(&two, BodyFitSettings::default());
        let (axis, angle) = outcome.tilt.to_axis_angle();
        assert!((angle - (0.2f32 / 0.6).atan()).abs() < 2e-3 && axis.x < -0.99, "{axis} {angle}");

        let (parents, mut locals, mut model) = quadruped();
        let mut state = BodyFitMemory::default();
        let steep = feet(|_, z| 0.5 * z);
        let fit = BodyFitJob { parents: &parents, body: 0, feet: &steep, settings: BodyFitSettings::default() };
        fit.run(&mut locals, &mut model, &mut state, 1.0 / 60.0).unwrap();
        let none = steep.map(|f| BodyFoot { ground: None, ..f });
        let fit = BodyFitJob { feet: &none, ..fit };
        let mut last = f32::MAX;
        for _ in 0..120 {
            let (parents, mut locals, mut model) = quadruped();
            let fit = BodyFitJob { parents: &parents, ..fit };
            let turned =
                fit.run(&mut locals, &mut model, &mut state, 1.0 / 60.0).unwrap().tilt.angle_between(Quat::IDENTITY);
            assert!(turned <= last + 1e-6, "eases back without overshoot");
            last = turned;
        }
        assert!(last < 1e-3, "back to the pose as animated: {last}");
    }

    #[test]
    fn a_leg_hanging_outside_the_body_is_left_as_it_is() {
        // Root 0 > body 1; a control bone 2 on the root and a hip 3 on it, not under the body
        // (an IK-control foot rig), after the body in the bone order.
        let parents = [None, Some(0), Some(0), Some(2)];
        let at = |y: f32, turn: f32| Xform {
            translation: Vec3::new(0.0, y, 0.0),
            rotation: Quat::from_rotation_y(turn),
            ..Xform::IDENTITY
        };
        let mut locals = vec![Xform::IDENTITY, at(0.4, 0.0), at(0.1, 0.0), at(0.2, 0.5)];
        let mut model = locals.clone();
        model[3] = model[2].mul_xform(&locals[3]);
        let feet = [
            BodyFoot { hip: 3, ground: Some(Vec3::new(0.0, 0.0, 0.3)) },
            BodyFoot { hip: 3, ground: Some(Vec3::new(0.0, 0.2, -0.3)) },
        ];
        let fit = BodyFitJob { parents: &parents, body: 1, feet: &feet, settings: BodyFitSettings::default() };
        let outcome = fit.run(&mut locals, &mut model, &mut BodyFitMemory::default(), 1.0 / 60.0).unwrap();
        assert!(outcome.tilt.angle_between(Quat::IDENTITY) > 0.1, "the body turned");
        assert_eq!(locals[3], at(0.2, 0.5), "the hip outside the body untouched");
    }

    #[test]
    fn bad_input_is_refused_and_leaves_the_pose() {
        let (parents, mut locals, mut model) = quadruped();
        let before = (locals.clone(), model.clone());
        let mut bad = feet(|_, _| 0.0);
        bad[0].ground = Some(Vec3::NAN);
        let fit = BodyFitJob { parents: &parents, body: 0, feet: &bad, settings: BodyFitSettings::default() };
        assert_eq!(
            fit.run(&mut locals, &mut model, &mut BodyFitMemory::default(), 0.016),
            Err(IkError::NonFiniteInput)
        );
        let fit = BodyFitJob { body: 9, feet: &[], ..fit };
        assert!(fit.run(&mut locals, &mut model, &mut BodyFitMemory::default(), 0.016).is_err());
        assert_eq!((locals, model), before);
    }
}
