//! [`HumanoidIk`]: rig a humanoid in one call. Put it on the entity that holds a character's
//! spawned scene; once its bones exist they are matched against the rig profiles
//! ([`ik_core::rig`]: Unreal/mannequin names, Mixamo names, or your own map) and the character
//! gets a [`FootPlacer`] (+ [`FootLock`]), a [`LookAtSpread`] down the spine and a reaching
//! right arm ([`IkChain`] + [`Pole`] + [`IkFade`]), measured from its rest pose.

use bevy::prelude::*;
use ik_core::rig::{HumanoidRig, RigProfile, detect, match_profile};

use crate::bones::{Hierarchy, world_of};
use crate::chain::{IkChain, Pole};
use crate::fade::IkFade;
use crate::feet::{FootLock, FootPlacer, LegBones, LegRest};
use crate::look_at::{LookAtJoint, LookAtSpread};
use crate::target::IkTarget;

/// Which naming scheme to match bones with.
#[derive(Reflect, Clone, Debug, Default, PartialEq)]
pub enum RigChoice {
    /// Try the built-in profiles (Unreal-style, Mixamo) and keep the first that fits.
    #[default]
    Auto,
    /// Your own map of role names (`pelvis`, `spine_0`, `head`, `thigh_l`, `ball_r`, …) to bone
    /// names; see [`ik_core::rig::parse_role`].
    Map(Vec<(String, String)>),
}

/// Rig this character for IK as soon as its bones exist (see the module docs).
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity, camera: Entity) {
/// // `character`: the root of your spawned glTF scene (e.g. a `WorldAssetRoot` of
/// // `GltfAssetLabel::Scene(0).from_asset("mannequin.glb")`), or any hierarchy with humanoid
/// // bone names. Rigging waits until the bones exist.
/// commands.entity(character).insert(HumanoidIk { look_target: Some(IkTarget::Entity(camera)), ..default() });
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
pub struct HumanoidIk {
    /// Which naming scheme to match.
    pub profile: RigChoice,
    /// What the head looks at (no [`LookAtSpread`] when `None`).
    pub look_target: Option<IkTarget>,
    /// What the right hand reaches for (no arm chain when `None`). The reach starts faded out:
    /// set the arm's [`IkFade::active`] to reach.
    pub hand_target: Option<IkTarget>,
    /// Add a [`FootLock`] to the foot placer.
    pub foot_lock: bool,
    /// Give up (and report [`RigFailed`]) after this many frames without a match.
    pub patience_frames: u32,
}

impl Default for HumanoidIk {
    fn default() -> Self {
        HumanoidIk { profile: RigChoice::Auto, look_target: None, hand_target: None, foot_lock: true, patience_frames: 120 }
    }
}

/// Inserted when [`HumanoidIk`] rigged the character: the bone of every role.
#[derive(Component, Clone, Debug)]
pub struct RiggedHumanoid {
    /// The detected rig.
    pub rig: HumanoidRig<Entity>,
    /// The right-arm chain's tip (the hand), when a hand target was given.
    pub reaching_hand: Option<Entity>,
}

/// Inserted when [`HumanoidIk`] could not rig the character.
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component)]
pub struct RigFailed {
    /// What went wrong, naming every missing role.
    pub message: String,
}

/// Frames waited so far per character (not reflected).
#[derive(Component, Default)]
pub struct RigAttempts(u32);

/// Rigs every [`HumanoidIk`] whose bones have appeared.
#[allow(clippy::type_complexity)]
pub fn rig_humanoids(
    mut commands: Commands,
    pending: Query<(Entity, &HumanoidIk, Option<&RigAttempts>), (Without<RiggedHumanoid>, Without<RigFailed>)>,
    names: Query<&Name>,
    children: Query<&Children>,
    hierarchy: Hierarchy,
) {
    for (root, humanoid, attempts) in &pending {
        let bones: Vec<(Entity, &str)> = children
            .iter_descendants(root)
            .filter_map(|e| names.get(e).ok().map(|n| (e, n.as_str())))
            .collect();
        let detected = match &humanoid.profile {
            RigChoice::Auto => detect(&bones, &RigProfile::builtin()).map_err(|e| e.to_string()),
            RigChoice::Map(map) => RigProfile::from_map("user map", map.iter().map(|(r, b)| (r.as_str(), b.as_str())))
                .map_err(|unknown| format!("unknown role names in the rig map: {}", unknown.join(", ")))
                .and_then(|p| match_profile(&bones, &p).map_err(|e| e.to_string())),
        };
        match detected {
            Ok(rig) => {
                let reaching_hand = attach(&mut commands, root, humanoid, &rig, &hierarchy);
                commands.entity(root).remove::<RigAttempts>().insert(RiggedHumanoid { rig, reaching_hand });
            }
            Err(message) => {
                let tries = attempts.map_or(0, |a| a.0) + 1;
                if bones.is_empty() || tries < humanoid.patience_frames {
                    commands.entity(root).insert(RigAttempts(tries));
                } else {
                    error!("bevy_ik: cannot rig {root} as a humanoid: {message}");
                    commands.entity(root).remove::<RigAttempts>().insert(RigFailed { message });
                }
            }
        }
    }
}

/// A bone's transform relative to the character root, from the current (rest) locals.
fn rest_relative(root: Entity, bone: Entity, hierarchy: &Hierarchy) -> Option<ik_core::Xform> {
    Some(world_of(root, hierarchy)?.inverse().mul_xform(&world_of(bone, hierarchy)?))
}

/// Adds the IK components for a detected rig; returns the reaching hand.
fn attach(
    commands: &mut Commands,
    root: Entity,
    humanoid: &HumanoidIk,
    rig: &HumanoidRig<Entity>,
    hierarchy: &Hierarchy,
) -> Option<Entity> {
    let legs = rig
        .legs
        .iter()
        .map(|leg| {
            let ankle = rest_relative(root, leg.foot, hierarchy);
            let toe = leg.ball.and_then(|b| rest_relative(root, b, hierarchy));
            let rest = ankle.map(|a| {
                let foot = toe.map_or(0.15, |t| crate::feet_system::horizontal(t.translation - a.translation));
                let (heel, tip) = ik_core::sole::heel_and_tip(
                    &a,
                    toe.as_ref(),
                    crate::feet_system::HEEL_BACK * foot,
                    crate::feet_system::TIP_AHEAD * foot,
                );
                LegRest {
                    ankle_height: a.translation.y,
                    toe_height: toe.map_or(0.0, |t| t.translation.y),
                    foot_up: (a.rotation.inverse() * Vec3::Y).normalize_or(Vec3::Y),
                    heel: Some(heel),
                    toe_tip: Some(tip),
                }
            });
            LegBones { hip: leg.thigh, knee: leg.calf, ankle: leg.foot, toe: leg.ball, rest }
        })
        .collect();
    let mut root_commands = commands.entity(root);
    root_commands.insert(FootPlacer::new(rig.pelvis, legs));
    if humanoid.foot_lock && rig.legs.iter().all(|l| l.ball.is_some()) {
        root_commands.insert(FootLock::default());
    }
    if let Some(target) = humanoid.look_target {
        let mut joints: Vec<Entity> = rig.spine.iter().rev().take(2).rev().copied().collect();
        joints.extend(rig.neck);
        joints.push(rig.head);
        let spread = ik_core::look_at::spine_chest_neck_head();
        let shares = &spread[spread.len().saturating_sub(joints.len())..];
        let forward = rest_relative(root, rig.head, hierarchy)
            .map_or(Vec3::ZERO, |h| ik_core::look_at::local_forward_axis(h.rotation, Vec3::Z));
        root_commands.insert(LookAtSpread {
            joints: joints.iter().zip(shares).map(|(b, j)| LookAtJoint { bone: *b, share: j.share, limit: j.limit }).collect(),
            target,
            forward,
            ..Default::default()
        });
    }
    humanoid.hand_target.map(|target| {
        let arm = rig.arms[1];
        let pole = commands.spawn((Name::new("right elbow pole"), Transform::from_xyz(-0.7, 1.0, -0.6), ChildOf(root))).id();
        commands.entity(arm.hand).insert((IkChain { soften: 0.03, ..IkChain::two_bone(target) }, Pole::new(IkTarget::Entity(pole)), IkFade::new(false)));
        arm.hand
    })
}
