//! A foot of the rig ([`FootRig`]): its leg, flat-standing heights, probe points and the
//! direction its knee bends ([`knee_bend_direction`]).

use glam::Vec3;

use super::external;
use crate::Xform;
use crate::leg::LegChain;
use crate::sole::{BALL_SHARE, FlatSole, SOLE_PROBES, SolePoint, heel_and_tip};

/// One foot of the rig.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootRig {
    /// Hip, knee, ankle (and optionally toe) bones. `toe_end` is not used here. The toe, when
    /// given, also decides whether the foot is planted (toe-off counts as planted).
    pub leg: LegChain,
    /// Height of the ankle above the floor when the foot stands flat, m.
    pub ankle_height: f32,
    /// Height of the toe joint above the floor when the foot stands flat, m (unused without toe).
    pub toe_height: f32,
    /// The axis, in the ankle bone's local space, that points up when the foot stands flat.
    pub foot_up: Vec3,
    /// The axis, in the toe bone's local space, that points up when the foot stands flat
    /// (`Y` without a toe): [`Self::ball`] is the sole that far below the toe joint.
    pub toe_up: Vec3,
    /// A point at the back of the heel, probed too (see [`crate::sole::heel_and_tip`]).
    pub heel: Option<SolePoint>,
    /// A point at the tip of the toes, probed too: catches stair risers and slopes ahead.
    pub tip: Option<SolePoint>,
    /// The direction the knee bent in the measured pose (model space, unit): what
    /// [`KneePole::RestBend`](super::KneePole::RestBend) bends the knee toward. See [`knee_bend_direction`].
    pub knee_forward: Vec3,
}

/// The direction a leg's knee bends in a pose (model space, unit): the knee's offset from the
/// hip–ankle line; for a straight leg (offset under 1 % of the hip–ankle distance, as in most
/// T- and A-pose rests) the foot's horizontal ankle→toe direction; `+Z` when neither exists.
///
/// ```
/// # use ik_core::foot_placement::knee_bend_direction;
/// # use ik_core::leg::LegChain;
/// # use ik_core::Xform;
/// # use glam::Vec3;
/// let at = |x, y, z| Xform::from_translation(Vec3::new(x, y, z));
/// // A character facing −Z: the knee sits slightly in front (−Z) of the hip–ankle line.
/// let pose = [at(0.0, 1.0, 0.0), at(0.0, 0.5, -0.05), at(0.0, 0.1, 0.0)];
/// let leg = LegChain { hip: 0, knee: 1, ankle: 2, toe: None, toe_end: None };
/// assert!(knee_bend_direction(&pose, &leg).abs_diff_eq(Vec3::NEG_Z, 1e-6));
/// ```
pub fn knee_bend_direction(model: &[Xform], leg: &LegChain) -> Vec3 {
    let at = |i: usize| model.get(i).map(|x| x.translation).filter(|p| p.is_finite());
    if let (Some(hip), Some(knee), Some(ankle)) = (at(leg.hip), at(leg.knee), at(leg.ankle)) {
        let axis = ankle - hip;
        let offset = (knee - hip).reject_from(axis);
        if offset.is_finite() && offset.length() > 0.01 * axis.length() {
            return offset.normalize();
        }
        let toe = leg.toe.and_then(at).map(|t| t - ankle);
        if let Some(ahead) = toe.and_then(|d| Vec3::new(d.x, 0.0, d.z).try_normalize()) {
            return ahead;
        }
    }
    Vec3::Z
}

/// What a foot's flat (rest) pose tells placement: the joints' heights above the floor and the
/// floor's up axis in the ankle's frame. One measurement for [`FootRig::from_flat_pose`] and
/// for callers that measure the rest pose elsewhere (a rig step before the animation runs).
///
/// ```
/// use glam::{Quat, Vec3};
/// use ik_core::Xform;
/// use ik_core::foot_placement::FootRest;
///
/// let ankle = Xform::from_translation_rotation(Vec3::new(0.1, 0.08, 0.0), Quat::from_rotation_x(0.5));
/// let toe = Xform::from_translation(Vec3::new(0.1, 0.02, 0.14));
/// let rest = FootRest::measure(&ankle, Some(&toe));
/// assert_eq!((rest.ankle_height, rest.toe_height), (0.08, 0.02));
/// assert!((ankle.rotation * rest.foot_up - Vec3::Y).length() < 1e-6);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootRest {
    /// The ankle's height above the floor.
    pub ankle_height: f32,
    /// The toe joint's height above the floor (0 without a toe).
    pub toe_height: f32,
    /// The floor's up axis in the ankle's frame.
    pub foot_up: Vec3,
    /// The floor's up axis in the toe's frame (`Y` without a toe).
    pub toe_up: Vec3,
}

impl FootRest {
    /// Measures a foot from the ankle's and the toe's flat-pose transforms (floor at y = 0).
    pub fn measure(ankle: &Xform, toe: Option<&Xform>) -> FootRest {
        FootRest {
            ankle_height: ankle.translation.y,
            toe_height: toe.map_or(0.0, |t| t.translation.y),
            foot_up: (ankle.rotation.inverse() * Vec3::Y).normalize_or(Vec3::Y),
            toe_up: toe.map_or(Vec3::Y, |t| (t.rotation.inverse() * Vec3::Y).normalize_or(Vec3::Y)),
        }
    }
}

impl FootRig {
    /// Whether the foot is *external*: its ankle bone does not hang below the knee (an
    /// IK-control rig, the foot under the root or a control bone). Such a foot is moved with
    /// the shin's end each run, and its local translation is written
    /// ([`FootReport::ankle_translated`](super::FootReport::ankle_translated)). See the module docs.
    pub fn is_external(&self, parents: &[Option<usize>]) -> bool {
        external::is_external(parents, &self.leg)
    }

    /// Model-space positions and flat heights of a foot's probe points for a pose: `[ankle, toe,
    /// heel, tip]`, `None` where the rig has no such point. The ankle and toe points are the sole
    /// under those joints (each joint moved down its own bone's up axis by its flat height: the
    /// toe point is [`Self::ball`]'s), so every point lies on the sole, with flat height 0,
    /// however the foot is pitched and the toes bent.
    pub fn sole_points(&self, model: &[Xform]) -> [Option<(Vec3, f32)>; SOLE_PROBES] {
        let on =
            |p: Option<SolePoint>| p.and_then(|p| Some((model.get(p.bone)?.transform_point(p.local), p.rest_height)));
        let ankle = model[self.leg.ankle];
        let up = ankle.rotation * self.foot_up;
        [
            Some((ankle.translation - up * self.ankle_height, 0.0)),
            self.leg.toe.and_then(|t| Some((self.toe_sole(model.get(t)?), 0.0))),
            on(self.heel),
            on(self.tip),
        ]
    }

    /// The point the foot plants by and rolls over (model space): the sole under the toe joint,
    /// carried by the toe bone (the joint moved down the toe's [`Self::toe_up`] by
    /// [`Self::toe_height`]: the toe's contact with the ground, which stays put while the toe
    /// bone turns under a rolling foot, where the joint above it moves), or for a foot
    /// without a toe bone the sole [`BALL_SHARE`] of the way from its heel point to its toe tip
    /// (on the ankle bone, at flat height 0, as [`Self::toe_height`] is then), or without those
    /// points the sole under the ankle. Locking and footstep prediction hold and steer this
    /// point, so every foot has one. `None` only for an index out of range.
    ///
    /// ```
    /// # use glam::Vec3;
    /// # use ik_core::Xform;
    /// # use ik_core::leg::LegChain;
    /// # use ik_core::foot_placement::FootRig;
    /// let pose = [
    ///     Xform::from_translation(Vec3::new(0.0, 0.9, 0.0)),
    ///     Xform::from_translation(Vec3::new(0.0, 0.5, 0.0)),
    ///     Xform::from_translation(Vec3::new(0.0, 0.1, 0.0)),
    /// ];
    /// let leg = LegChain { hip: 0, knee: 1, ankle: 2, toe: None, toe_end: None };
    /// let rig = FootRig::from_flat_pose(&pose, leg).unwrap().with_estimated_sole(&pose);
    /// let ball = rig.ball(&pose).unwrap();
    /// assert!(ball.y.abs() < 1e-5, "on the sole, under a toe-less ankle's foot");
    /// assert!(ball.z > 0.1, "ahead of the ankle, toward the toe tip: {ball}");
    /// // Without sole points: under the ankle, still held by a lock.
    /// let bare = FootRig::from_flat_pose(&pose, leg).unwrap().ball(&pose).unwrap();
    /// assert!((bare - Vec3::ZERO).length() < 1e-5, "{bare}");
    ///
    /// // With a toe joint 3 cm over the floor: the sole under it, carried by the toe bone. A toe
    /// // bone turned 20° (the foot rolling over it) keeps its contact where the joint moves.
    /// use glam::Quat;
    /// let mut pose = pose.to_vec();
    /// pose.push(Xform::from_translation(Vec3::new(0.0, 0.03, 0.15)));
    /// let leg = LegChain { toe: Some(3), ..leg };
    /// let rig = FootRig::from_flat_pose(&pose, leg).unwrap();
    /// assert!((rig.ball(&pose).unwrap() - Vec3::new(0.0, 0.0, 0.15)).length() < 1e-6);
    /// pose[3].rotation = Quat::from_rotation_x(20f32.to_radians());
    /// let turned = rig.ball(&pose).unwrap();
    /// assert!((turned.z - (0.15 - 0.03 * 20f32.to_radians().sin())).abs() < 1e-6, "{turned}");
    /// ```
    pub fn ball(&self, model: &[Xform]) -> Option<Vec3> {
        if let Some(toe) = self.leg.toe {
            return model.get(toe).map(|t| self.toe_sole(t));
        }
        match (self.heel, self.tip) {
            (Some(heel), Some(tip)) if heel.bone == tip.bone => {
                model.get(heel.bone).map(|bone| bone.transform_point(heel.local.lerp(tip.local, BALL_SHARE)))
            }
            // No sole points to place it between: the sole under the ankle.
            _ => model.get(self.leg.ankle).map(|a| a.translation - a.rotation * self.foot_up * self.ankle_height),
        }
    }

    /// The sole under the toe joint whose model transform is `toe`, carried by the toe bone.
    fn toe_sole(&self, toe: &Xform) -> Vec3 {
        toe.translation - toe.rotation * self.toe_up * self.toe_height
    }

    /// A rig from a pose standing flat on the floor (usually the model-space rest pose).
    /// `None` when an index is out of range.
    pub fn from_flat_pose(flat_model: &[Xform], leg: LegChain) -> Option<Self> {
        let toe = match leg.toe {
            Some(t) => Some(flat_model.get(t)?),
            None => None,
        };
        let rest = FootRest::measure(flat_model.get(leg.ankle)?, toe);
        Some(FootRig {
            leg,
            ankle_height: rest.ankle_height,
            toe_height: rest.toe_height,
            foot_up: rest.foot_up,
            toe_up: rest.toe_up,
            heel: None,
            tip: None,
            knee_forward: knee_bend_direction(flat_model, &leg),
        })
    }

    /// This rig also probed at the heel and toe tip of its [`FlatSole`] estimate: the foot
    /// points from the ankle to the toe joint (or along the knee's bend direction without a
    /// toe), and without a toe it is [`crate::sole::FOOT_PER_LEG`] of the leg's length long.
    pub fn with_estimated_sole(mut self, flat_model: &[Xform]) -> Self {
        let joint = |i: usize| flat_model.get(i).map(|x| x.translation);
        let (Some(hip), Some(knee), Some(ankle)) =
            (joint(self.leg.hip), joint(self.leg.knee), flat_model.get(self.leg.ankle))
        else {
            return self;
        };
        let toe = self.leg.toe.and_then(|t| flat_model.get(t));
        let leg_length = hip.distance(knee) + knee.distance(ankle.translation);
        let sole = FlatSole::estimate(ankle, toe, self.knee_forward, leg_length);
        let (heel, tip) = sole.local_points(ankle, toe);
        self.heel = Some(SolePoint { bone: self.leg.ankle, local: heel, rest_height: 0.0 });
        self.tip = Some(SolePoint { bone: self.leg.toe.unwrap_or(self.leg.ankle), local: tip, rest_height: 0.0 });
        self
    }

    /// This rig also probed at a heel point `heel_back` behind the ankle and a tip point
    /// `tip_ahead` in front of the toe joint (flat pose, model units).
    pub fn with_heel_and_tip(mut self, flat_model: &[Xform], heel_back: f32, tip_ahead: f32) -> Self {
        let (Some(ankle), toe) = (flat_model.get(self.leg.ankle), self.leg.toe.and_then(|t| flat_model.get(t))) else {
            return self;
        };
        let (heel, tip) = heel_and_tip(ankle, toe, heel_back, tip_ahead);
        self.heel = Some(SolePoint { bone: self.leg.ankle, local: heel, rest_height: 0.0 });
        self.tip = Some(SolePoint { bone: self.leg.toe.unwrap_or(self.leg.ankle), local: tip, rest_height: 0.0 });
        self
    }
}
