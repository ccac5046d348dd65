//! Retargeting: a clip of one rigged humanoid played by another, feet put back with IK.
//!
//! **Method.** Both characters are rigged ([`crate::rig`]: roles and the measured
//! [`RigFrame`] — up, forward, left, leg length). The two frames give one rotation `M` that
//! takes the source's model space to the target's (its left/up/forward onto the target's, up
//! being each floor's normal, [`floor_up`], so neither rest pose's lean tilts a path), so
//! nothing depends on either file's axes, units or facing; `s = target leg / source leg`.
//! 1. **Rotations.** Per role, the source bone's *model-space turn from its rest*
//!    `D = R · R_rest⁻¹` is carried over, `R'_target = (M·D·M⁻¹) · A · R_rest,target`: no bone's
//!    local axes enter, only how far it turned from rest. `A` aligns the two rest poses: the
//!    shortest arc taking the target's rest bone direction (joint → its child role's joint) onto
//!    the source's, so a T-pose arm follows an A-pose arm's *direction* (a hand takes its
//!    forearm's `A`; feet, toes and head take none — both rests stand on flat feet, head up).
//!    Spine bones are matched by position along the chain when the counts differ; a target role
//!    the source lacks (neck, clavicle, ball) follows the nearest source bone below it.
//! 2. **Translation.** The pelvis moves as the source's did from rest, times `s`:
//!    `p' = p_aligned + M·s·(p − p_rest)`, from the target's *aligned rest* — the target posed
//!    by the source's rest (rotations only), raised or lowered until its feet stand as high as
//!    at its own rest — so a rest on bent knees walks on the source's knees. Other bones keep
//!    their rest offsets (bone lengths never change); a foot hanging outside its shin (an
//!    IK-control rig) is placed at the shin's end as at rest.
//! 3. **Feet.** Each foot's contact point (its ball, else the sole under its ankle,
//!    [`crate::sole::toeless_contact`]) is sent where the source's was, by the same rule as the
//!    pelvis, while the source's is on its floor; with the source's heel up over it the foot
//!    also turns about it toward where the source's ankle went; once the source's lifts (toes up
//!    at heel strike, the swing) the *ankle* is sent where the source's went instead, so a foot
//!    of other proportions does not bend or stretch the knee as it pitches. Where a goal is
//!    beyond the
//!    leg's soft zone (which starts at the retargeted pose's own extension or `1 − soften` of
//!    the reach, whichever is longer; other proportions: relatively shorter feet, a lower
//!    pelvis), the pelvis is first lowered along up just enough for both legs to reach. The leg
//!    is then solved with
//!    [`TwoBoneJob`](crate::TwoBoneJob) (pole on the retargeted knee's side, soft extension only past the
//!    retargeted pose's own extension), the foot keeping its retargeted orientation. A foot that
//!    stands still in the source stands still in the target; a target out of reach leaves the
//!    leg straight toward it, never longer.
//! 4. **Hands** (optional, [`RetargetSettings::hands`]): each wrist goes to the source's wrist
//!    position relative to the top spine bone, scaled by the arm-length ratio, by the same solve.
//!
//! **Inputs.** [`RetargetMap::new`] takes the two [`RetargetRig`]s (parents first, rest locals,
//! roles as bone indices, frames) and [`RetargetSettings`]; it checks them once. Then
//! [`RetargetMap::run`] maps one source pose (locals) into caller-owned target locals, using a
//! caller-owned [`RetargetScratch`] (no allocation once its buffers have grown).
//!
//! **Outputs.** Target locals: rotations of every role bone, the pelvis translation (and an
//! external foot's), every other bone at rest; a [`RetargetedFrame`] with what the IK did.
//!
//! **Invariants.** Never panics, never writes NaN: bad rigs are a [`RetargetError`] naming the
//! rig, role and bone; a bad pose is an [`IkError`] with the output untouched. Bone lengths are
//! kept. With identical rigs the output is the input (to rounding).

use core::fmt;

use glam::{Mat3, Quat, Vec3};

use crate::rig::{ArmBones, HumanoidRig, RigFrame};
use crate::{IkError, Xform};

mod clip;
mod pose;

pub use clip::{ClipRetargetReport, FrameError, PELVIS_DROP_EASE, clip_loops, retarget_clip};
pub use pose::{RetargetScratch, RetargetedFrame};

/// Which of the two characters a message is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Character {
    /// The character the clip comes from.
    Source,
    /// The character the clip is retargeted to.
    Target,
}

impl fmt::Display for Character {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if *self == Character::Source { "source" } else { "target" })
    }
}

/// Why two rigs cannot be retargeted: which character, and what is wrong (naming the bone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetargetError {
    /// The character at fault.
    pub character: Character,
    /// What is wrong, naming the role and bone.
    pub reason: String,
}

impl fmt::Display for RetargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rig: {}", self.character, self.reason)
    }
}

impl std::error::Error for RetargetError {}

/// One character of a retarget, borrowed from the caller.
#[derive(Clone, Copy, Debug)]
pub struct RetargetRig<'a> {
    /// Parent of each bone; parents come before their children.
    pub parents: &'a [Option<usize>],
    /// Rest locals, one per bone (the pose the rig was measured in).
    pub rest: &'a [Xform],
    /// Bone names for messages (may be empty; then bones are named by index).
    pub names: &'a [String],
    /// The roles, as bone indices (e.g. [`crate::rig::RigReport::indices`]).
    pub rig: &'a HumanoidRig<usize>,
    /// The character's frame in the same model space (e.g. [`crate::rig::RigReport::frame`]).
    pub frame: RigFrame,
}

/// How [`RetargetMap`] poses the target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetargetSettings {
    /// Put each foot's contact point where the source's was (scaled), with IK. Default true.
    pub feet: bool,
    /// Put each wrist at the source's wrist position relative to the top spine bone, scaled by
    /// the arm-length ratio, with IK. Default false (the arms take the source's rotations).
    pub hands: bool,
    /// Width of the legs' soft extension zone, fraction of thigh + shin, in `[0, 1]`; the zone
    /// never starts below the retargeted pose's own extension. Default 0.03: where legs of
    /// other proportions would reach further, the pelvis lowers instead, so their knees stay as
    /// bent as the source's (at 0.002, 10–15 % longer legs worked at 99.8 % of their reach and
    /// their knees turned up to 10.9° a frame where the source's turn 9.5°).
    pub soften: f32,
    /// Scale of the pelvis and foot paths; `None` (default): target leg length / source leg
    /// length.
    pub scale: Option<f32>,
}

impl Default for RetargetSettings {
    fn default() -> Self {
        RetargetSettings { feet: true, hands: false, soften: 0.03, scale: None }
    }
}

/// One target bone driven by one source bone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BoneMap {
    pub target: usize,
    pub source: usize,
    /// Rest alignment `A`, target model space.
    pub align: Quat,
}

/// One two-bone limb of both rigs: `[root, mid, tip]` and the point sent to the source's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LimbMap {
    pub target: [usize; 3],
    pub source: [usize; 3],
    /// Target bone whose point is sent (ball or ankle / wrist), and the point in its frame
    /// (zero but for a foot without a ball: [`crate::sole::toeless_contact`]).
    pub target_point: (usize, Vec3),
    /// Source bone and point whose path it follows.
    pub source_point: (usize, Vec3),
}

impl LimbMap {
    /// The target's point in a pose's model transforms.
    pub(crate) fn target_at(&self, model: &[Xform]) -> Vec3 {
        model[self.target_point.0].transform_point(self.target_point.1)
    }
}

/// A foot that hangs outside its shin: placed at the shin's end by `offset` (shin frame, rest).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ExternalFoot {
    pub foot: usize,
    pub calf: usize,
    pub offset: Xform,
}

/// Two rigs matched role by role, checked once; [`RetargetMap::run`] retargets poses.
#[derive(Clone, Debug, PartialEq)]
pub struct RetargetMap {
    pub(crate) source_parents: Vec<Option<usize>>,
    pub(crate) target_parents: Vec<Option<usize>>,
    pub(crate) source_rest_model: Vec<Xform>,
    pub(crate) target_rest: Vec<Xform>,
    pub(crate) target_rest_model: Vec<Xform>,
    /// The target's aligned rest: the model pose the pelvis and feet paths are carried from
    /// ([`RetargetMap::aligned_rest`]).
    pub(crate) carried_from: Vec<Xform>,
    /// Source model space → target model space.
    pub(crate) turn: Quat,
    pub(crate) scale: f32,
    pub(crate) target_leg_length: f32,
    pub(crate) arm_scale: f32,
    /// Driven bones, by increasing target index.
    pub(crate) bones: Vec<BoneMap>,
    pub(crate) pelvis: [usize; 2],
    pub(crate) chest: [usize; 2],
    pub(crate) legs: [LimbMap; 2],
    /// `None` where either rig has no such arm (left out by the rigging).
    pub(crate) arms: [Option<LimbMap>; 2],
    pub(crate) external_feet: Vec<ExternalFoot>,
    pub(crate) target_forward: Vec3,
    pub(crate) target_up: Vec3,
    pub(crate) settings: RetargetSettings,
}

/// A bone's name for messages: its name, or `#index`.
fn label(names: &[String], bone: usize) -> String {
    match names.get(bone) {
        Some(n) if !n.is_empty() => format!("`{n}`"),
        _ => format!("#{bone}"),
    }
}

/// Checks one rig: buffers, hierarchy, role indices, limb chains, lengths, frame.
fn check(rig: &RetargetRig<'_>, character: Character, model: &[Xform]) -> Result<(), RetargetError> {
    let bad = |reason: String| RetargetError { character, reason };
    let n = rig.parents.len();
    if n == 0 {
        return Err(bad("the skeleton has no bones".into()));
    }
    if rig.rest.len() != n {
        return Err(bad(format!("{} rest transforms for {n} bones", rig.rest.len())));
    }
    if let Err(IkError::BrokenHierarchy { bone }) = crate::skeleton::check_parents(rig.parents) {
        return Err(bad(format!("bone {} comes before its parent", label(rig.names, bone))));
    }
    if let Some(b) = rig.rest.iter().position(|x| !x.is_finite()) {
        return Err(bad(format!("bone {} has a non-finite rest transform", label(rig.names, b))));
    }
    let f = &rig.frame;
    if !(f.up.is_finite() && f.forward.is_finite() && f.leg_length.is_finite() && f.leg_length > 0.0) {
        return Err(bad("the character frame is not finite or its legs have no length".into()));
    }
    if f.up.cross(f.forward).length() < 0.5 {
        return Err(bad("the character frame's up and forward are not perpendicular".into()));
    }
    let r = rig.rig;
    let mut roles: Vec<(String, usize)> = vec![("pelvis".into(), r.pelvis), ("head".into(), r.head)];
    roles.extend(r.spine.iter().enumerate().map(|(i, &b)| (format!("spine_{i}"), b)));
    roles.extend(r.neck.map(|b| ("neck".to_string(), b)));
    for (s, arm) in ["l", "r"].into_iter().zip(&r.arms) {
        let Some(arm) = arm else { continue };
        roles.extend(arm.clavicle.map(|b| (format!("clavicle_{s}"), b)));
        roles.extend([(format!("upperarm_{s}"), arm.upper), (format!("lowerarm_{s}"), arm.lower)]);
        roles.push((format!("hand_{s}"), arm.hand));
    }
    for (s, leg) in ["l", "r"].into_iter().zip(&r.legs) {
        roles.extend([(format!("thigh_{s}"), leg.thigh), (format!("calf_{s}"), leg.calf)]);
        roles.push((format!("foot_{s}"), leg.foot));
        roles.extend(leg.ball.map(|b| (format!("ball_{s}"), b)));
    }
    if r.spine.is_empty() {
        return Err(bad("the rig has no spine bone (role spine_0)".into()));
    }
    if let Some((role, b)) = roles.iter().find(|(_, b)| *b >= n) {
        return Err(bad(format!("role {role} names bone index {b}, but there are only {n} bones")));
    }
    let descends = |d: usize, a: usize| {
        let mut cur = rig.parents[d];
        while let Some(p) = cur {
            if p == a {
                return true;
            }
            cur = rig.parents[p];
        }
        false
    };
    let name = |b: usize| label(rig.names, b);
    let mut chains: Vec<(&str, [usize; 3])> = Vec::new();
    for (s, leg) in ["left", "right"].into_iter().zip(&r.legs) {
        if !descends(leg.calf, leg.thigh) {
            return Err(bad(format!("{s} calf {} is not below thigh {}", name(leg.calf), name(leg.thigh))));
        }
        chains.push((s, [leg.thigh, leg.calf, leg.foot]));
    }
    for (s, arm) in ["left", "right"].into_iter().zip(&r.arms) {
        let Some(arm) = arm else { continue };
        for (a, d, what) in [(arm.upper, arm.lower, "forearm"), (arm.lower, arm.hand, "hand")] {
            if !descends(d, a) {
                return Err(bad(format!("{s} {what} {} is not below {}", name(d), name(a))));
            }
        }
        chains.push((s, [arm.upper, arm.lower, arm.hand]));
    }
    for (side, [a, b, c]) in chains {
        let (pa, pb, pc) = (model[a].translation, model[b].translation, model[c].translation);
        let tiny = 1e-4 * f.leg_length;
        for (from, to, at) in [(pa, pb, a), (pb, pc, b)] {
            if from.distance(to) <= tiny {
                return Err(bad(format!("{side} limb: bone {} has no length", name(at))));
            }
        }
    }
    Ok(())
}

/// Largest angle between a rig's up (pelvis → head) and a model axis for which the axis is
/// taken as the floor's normal: rest poses lean a few degrees; files stand on an axis.
pub const FLOOR_SNAP: f32 = 20.0 * core::f32::consts::PI / 180.0;

/// The floor's normal for a rig whose up (pelvis → head) is `up`: the model axis nearest it when
/// within [`FLOOR_SNAP`], else `up` itself. A rest pose leaning forward (3–5° on common rigs)
/// would otherwise tilt every path mapped between the two characters, and a planted foot would
/// sink or rise along the stance by that slope.
///
/// ```
/// use ik_core::glam::Vec3;
/// use ik_core::retarget::floor_up;
/// let leaning = Vec3::new(0.0, 1.0, 0.06).normalize(); // 3.4° forward
/// assert_eq!(floor_up(leaning), Vec3::Y);
/// assert_eq!(floor_up(Vec3::new(0.0, 0.0, 1.0)), Vec3::Z);
/// ```
pub fn floor_up(up: Vec3) -> Vec3 {
    let up = up.normalize_or(Vec3::Y);
    let axes = [Vec3::X, Vec3::Y, Vec3::Z, Vec3::NEG_X, Vec3::NEG_Y, Vec3::NEG_Z];
    let nearest = axes.into_iter().max_by(|a, b| a.dot(up).total_cmp(&b.dot(up))).unwrap_or(Vec3::Y);
    if nearest.dot(up) >= FLOOR_SNAP.cos() { nearest } else { up }
}

/// The rotation taking the frame's model space to the character space (x left, y up, z forward),
/// up being the floor's normal ([`floor_up`]).
fn character_basis(f: &RigFrame) -> Quat {
    let up = floor_up(f.up);
    let forward = (f.forward - up * f.forward.dot(up)).normalize_or(up.any_orthonormal_vector());
    let left = up.cross(forward);
    Quat::from_mat3(&Mat3::from_cols(left, up, forward)).normalize()
}

/// Rest direction from `bone` to `child` (model space), when it has one.
fn direction(model: &[Xform], bone: usize, child: Option<usize>) -> Option<Vec3> {
    (model[child?].translation - model[bone].translation).try_normalize()
}

impl RetargetMap {
    /// Matches `target`'s roles to `source`'s and checks both rigs (see the module docs).
    ///
    /// ```
    /// use ik_core::glam::Vec3;
    /// use ik_core::retarget::{RetargetMap, RetargetRig, RetargetScratch, RetargetSettings};
    /// use ik_core::rig::{SkeletonBone, rig_humanoid};
    /// use ik_core::Xform;
    ///
    /// // A tiny humanoid: (name, parent, model-space joint).
    /// let joints: [(&str, Option<usize>, Vec3); 15] = [
    ///     ("pelvis", None, Vec3::new(0.0, 1.0, 0.0)),
    ///     ("spine_01", Some(0), Vec3::new(0.0, 1.2, 0.0)),
    ///     ("head", Some(1), Vec3::new(0.0, 1.6, 0.0)),
    ///     ("upperarm_l", Some(1), Vec3::new(0.2, 1.45, 0.0)),
    ///     ("lowerarm_l", Some(3), Vec3::new(0.35, 1.2, -0.02)),
    ///     ("hand_l", Some(4), Vec3::new(0.5, 0.95, 0.0)),
    ///     ("upperarm_r", Some(1), Vec3::new(-0.2, 1.45, 0.0)),
    ///     ("lowerarm_r", Some(6), Vec3::new(-0.35, 1.2, -0.02)),
    ///     ("hand_r", Some(7), Vec3::new(-0.5, 0.95, 0.0)),
    ///     ("thigh_l", Some(0), Vec3::new(0.1, 0.95, 0.0)),
    ///     ("calf_l", Some(9), Vec3::new(0.1, 0.5, 0.02)),
    ///     ("foot_l", Some(10), Vec3::new(0.1, 0.08, 0.0)),
    ///     ("thigh_r", Some(0), Vec3::new(-0.1, 0.95, 0.0)),
    ///     ("calf_r", Some(12), Vec3::new(-0.1, 0.5, 0.02)),
    ///     ("foot_r", Some(13), Vec3::new(-0.1, 0.08, 0.0)),
    /// ];
    /// let parents: Vec<_> = joints.iter().map(|j| j.1).collect();
    /// let names: Vec<String> = joints.iter().map(|j| j.0.to_string()).collect();
    /// let rest: Vec<Xform> = joints
    ///     .iter()
    ///     .map(|(_, p, at)| Xform::from_translation(*at - p.map_or(Vec3::ZERO, |p| joints[p].2)))
    ///     .collect();
    /// let bones: Vec<SkeletonBone<usize>> = joints
    ///     .iter()
    ///     .enumerate()
    ///     .map(|(i, (name, parent, at))| SkeletonBone { handle: i, name, parent: *parent, rest: *at })
    ///     .collect();
    /// let report = rig_humanoid(&bones, None).unwrap();
    /// let rig = RetargetRig { parents: &parents, rest: &rest, names: &names, rig: &report.indices, frame: report.frame };
    ///
    /// // Retarget the character onto itself: a pose comes back as it went in.
    /// let map = RetargetMap::new(&rig, &rig, RetargetSettings::default()).unwrap();
    /// let mut pose = rest.clone();
    /// pose[9].rotation = ik_core::glam::Quat::from_rotation_x(-0.4); // left thigh forward
    /// let mut out = vec![Xform::IDENTITY; rest.len()];
    /// let mut scratch = RetargetScratch::default();
    /// map.run(&pose, &mut out, &mut scratch).unwrap();
    /// assert!(out[9].rotation.angle_between(pose[9].rotation) < 1e-3);
    /// ```
    pub fn new(
        source: &RetargetRig<'_>,
        target: &RetargetRig<'_>,
        settings: RetargetSettings,
    ) -> Result<RetargetMap, RetargetError> {
        let fk = |rig: &RetargetRig<'_>, character| -> Result<Vec<Xform>, RetargetError> {
            let mut model = vec![Xform::IDENTITY; rig.parents.len()];
            if rig.rest.len() == rig.parents.len() && crate::skeleton::check_parents(rig.parents).is_ok() {
                crate::skeleton::forward_kinematics(rig.parents, rig.rest, &Xform::IDENTITY, &mut model)
                    .map_err(|e| RetargetError { character, reason: e.to_string() })?;
            }
            Ok(model)
        };
        let (sm, tm) = (fk(source, Character::Source)?, fk(target, Character::Target)?);
        check(source, Character::Source, &sm)?;
        check(target, Character::Target, &tm)?;
        let settings_ok = settings.soften.is_finite() && settings.scale.is_none_or(|s| s.is_finite() && s > 0.0);
        if !settings_ok {
            return Err(RetargetError {
                character: Character::Target,
                reason: "the settings' soften or scale is not a finite positive number".into(),
            });
        }
        let turn = (character_basis(&target.frame) * character_basis(&source.frame).inverse()).normalize();
        let scale = settings.scale.unwrap_or(target.frame.leg_length / source.frame.leg_length);
        let (s, t) = (source.rig, target.rig);
        let arm_length = |a: &ArmBones<usize>, m: &[Xform]| -> f32 {
            m[a.upper].translation.distance(m[a.lower].translation)
                + m[a.lower].translation.distance(m[a.hand].translation)
        };
        // Arms present in both rigs (a rig may leave an arm out).
        let arm_pairs = [0, 1].map(|i| t.arms[i].zip(s.arms[i]));
        let arm_scale = arm_pairs
            .iter()
            .flatten()
            .next()
            .map_or(scale, |(ta, sa)| arm_length(ta, &tm) / arm_length(sa, &sm).max(f32::MIN_POSITIVE));

        // (target bone, source bone, target child role, source child role, alignment rule)
        #[derive(Clone, Copy, PartialEq)]
        enum Align {
            Direction,
            None,
            Parent,
        }
        type Pair = (usize, usize, Option<usize>, Option<usize>, Align);
        let mut pairs: Vec<Pair> = Vec::new();
        let spine_of = |j: usize| -> usize {
            let (ns, nt) = (s.spine.len(), t.spine.len());
            ((j + 1) * ns).div_ceil(nt).clamp(1, ns) - 1
        };
        let above_spine = |rig: &HumanoidRig<usize>| rig.neck.unwrap_or(rig.head);
        pairs.push((t.pelvis, s.pelvis, Some(t.spine[0]), Some(s.spine[0]), Align::Direction));
        for (j, &bone) in t.spine.iter().enumerate() {
            let k = spine_of(j);
            let t_next = t.spine.get(j + 1).copied().unwrap_or(above_spine(t));
            let s_next = s.spine.get(k + 1).copied().unwrap_or(above_spine(s));
            pairs.push((bone, s.spine[k], Some(t_next), Some(s_next), Align::Direction));
        }
        let s_top = *s.spine.last().unwrap_or(&s.pelvis);
        if let Some(neck) = t.neck {
            pairs.push((neck, s.neck.unwrap_or(s_top), Some(t.head), Some(s.head), Align::Direction));
        }
        pairs.push((t.head, s.head, None, None, Align::None));
        for (ta, sa) in arm_pairs.iter().flatten() {
            if let Some(c) = ta.clavicle {
                pairs.push((c, sa.clavicle.unwrap_or(s_top), Some(ta.upper), Some(sa.upper), Align::Direction));
            }
            pairs.push((ta.upper, sa.upper, Some(ta.lower), Some(sa.lower), Align::Direction));
            pairs.push((ta.lower, sa.lower, Some(ta.hand), Some(sa.hand), Align::Direction));
            pairs.push((ta.hand, sa.hand, None, None, Align::Parent));
        }
        for (tl, sl) in t.legs.iter().zip(&s.legs) {
            pairs.push((tl.thigh, sl.thigh, Some(tl.calf), Some(sl.calf), Align::Direction));
            pairs.push((tl.calf, sl.calf, Some(tl.foot), Some(sl.foot), Align::Direction));
            pairs.push((tl.foot, sl.foot, None, None, Align::None));
            if let Some(ball) = tl.ball {
                pairs.push((ball, sl.ball.unwrap_or(sl.foot), None, None, Align::None));
            }
        }
        let mut bones: Vec<BoneMap> = Vec::with_capacity(pairs.len());
        for (tb, sb, tc, sc, rule) in pairs {
            let align = match rule {
                Align::None => Quat::IDENTITY,
                Align::Parent => bones.last().map_or(Quat::IDENTITY, |b| b.align),
                Align::Direction => match (direction(&tm, tb, tc), direction(&sm, sb, sc)) {
                    (Some(dt), Some(ds)) => Quat::from_rotation_arc(dt, turn * ds).normalize(),
                    _ => Quat::IDENTITY,
                },
            };
            if !bones.iter().any(|b| b.target == tb) {
                bones.push(BoneMap { target: tb, source: sb, align });
            }
        }
        bones.sort_by_key(|b| b.target);
        let limb = |t3: [usize; 3], s3: [usize; 3], tp: (usize, Vec3), sp: (usize, Vec3)| LimbMap {
            target: t3,
            source: s3,
            target_point: tp,
            source_point: sp,
        };
        // Each foot's point on the floor: its ball, else the sole under its ankle, so a foot
        // without toes stands where the other's ball stood, not where its ankle was.
        let contact = |rig: &RetargetRig<'_>, model: &[Xform], leg: &crate::rig::LegBones<usize>| {
            leg.ball.map_or_else(
                || {
                    let up = rig.frame.up;
                    let lowest = model.iter().map(|x| x.translation.dot(up)).fold(f32::INFINITY, f32::min);
                    let above = model[leg.foot].translation.dot(up) - lowest;
                    let offset = crate::sole::toeless_contact(
                        &model[leg.foot],
                        up,
                        rig.frame.forward,
                        above,
                        rig.frame.leg_length,
                    );
                    (leg.foot, offset)
                },
                |ball| (ball, Vec3::ZERO),
            )
        };
        let legs = [0, 1].map(|i| {
            let (tl, sl) = (&t.legs[i], &s.legs[i]);
            let (tp, sp) = (contact(target, &tm, tl), contact(source, &sm, sl));
            limb([tl.thigh, tl.calf, tl.foot], [sl.thigh, sl.calf, sl.foot], tp, sp)
        });
        let arms = arm_pairs.map(|pair| {
            pair.map(|(ta, sa)| {
                let (tp, sp) = ((ta.hand, Vec3::ZERO), (sa.hand, Vec3::ZERO));
                limb([ta.upper, ta.lower, ta.hand], [sa.upper, sa.lower, sa.hand], tp, sp)
            })
        });
        let external_feet = t
            .legs
            .iter()
            .filter(|l| target.parents[l.foot] != Some(l.calf))
            .map(|l| ExternalFoot { foot: l.foot, calf: l.calf, offset: tm[l.calf].inverse() * tm[l.foot] })
            .collect();
        let t_top = *t.spine.last().unwrap_or(&t.pelvis);
        let mut map = RetargetMap {
            source_parents: source.parents.to_vec(),
            target_parents: target.parents.to_vec(),
            source_rest_model: sm,
            target_rest: target.rest.to_vec(),
            carried_from: tm.clone(),
            target_rest_model: tm,
            turn,
            scale,
            target_leg_length: target.frame.leg_length,
            arm_scale,
            bones,
            pelvis: [s.pelvis, t.pelvis],
            chest: [s_top, t_top],
            legs,
            arms,
            external_feet,
            target_forward: target.frame.forward,
            target_up: floor_up(target.frame.up),
            settings,
        };
        if let Some(aligned) = map.aligned_rest() {
            map.carried_from = aligned;
        }
        Ok(map)
    }

    /// Scale of the pelvis and foot paths (target leg length / source leg length unless set).
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// The target's leg length (its [`RigFrame::leg_length`], target units).
    pub fn target_leg_length(&self) -> f32 {
        self.target_leg_length
    }

    /// The rotation taking the source's model space to the target's (their character frames
    /// matched), e.g. to map a travel velocity.
    pub fn turn(&self) -> Quat {
        self.turn
    }

    /// Number of source bones a pose must have.
    pub fn source_bones(&self) -> usize {
        self.source_parents.len()
    }

    /// Number of target bones the output has.
    pub fn target_bones(&self) -> usize {
        self.target_parents.len()
    }

    /// The target bones whose rotation [`RetargetMap::run`] sets (every role bone), by index.
    pub fn driven_bones(&self) -> impl Iterator<Item = usize> + '_ {
        self.bones.iter().map(|b| b.target)
    }

    /// The target bones whose translation [`RetargetMap::run`] sets: the pelvis and any foot
    /// that hangs outside its shin.
    pub fn translated_bones(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.pelvis[1]).chain(self.external_feet.iter().map(|f| f.foot))
    }
}

#[cfg(test)]
mod tests;
