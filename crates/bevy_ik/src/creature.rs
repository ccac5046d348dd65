//! [`CreatureIk`]: rig a creature with any number of legs in one call — a fox, a horse, a
//! spider playing its own clips. Once its bones exist its legs are found from the skeleton's
//! shape ([`ik_core::rig::rig_creature`], whatever the bones are called) and it gets a
//! [`FootPlacer`] with every leg (the body bone as its pelvis, each leg solved on its last
//! two links above the foot) and a [`FootLock`] (a [`FootstepPrediction`] on request),
//! measured from its rest pose. Each outcome is
//! told once: the legs found on success (logged, a [`RiggedCreature`] and a [`CreatureRigged`]
//! event), one message naming what was found on failure (logged, a [`CreatureRigFailed`]).

use bevy::prelude::*;
use ik_core::Xform;
use ik_core::foot_placement::FootRest;
use ik_core::rig::{CreatureFrame, CreatureRig, rig_creature};

use crate::body_fit::{BodyFit, BodyFitState};
use crate::feet::{FootLock, FootPlacer, FootPlacerState, LegBones, LegRest};
use crate::footstep::FootstepPrediction;
use crate::humanoid::{HumanoidBones, skeleton_bones};

/// Rig this creature's legs for foot placement and locking as soon as its bones exist.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, fox: Entity) {
/// // `fox`: the entity above your creature's spawned scene (e.g. the Khronos Fox's
/// // `WorldAssetRoot`, scaled to metres under it). Rigging waits until the bones exist.
/// commands.entity(fox).insert(CreatureIk::default()).observe(|rigged: On<CreatureRigged>| {
///     info!("{} is standing on its own legs", rigged.entity);
/// });
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
pub struct CreatureIk {
    /// Add a [`FootLock`] to the foot placer. Default on.
    pub foot_lock: bool,
    /// Add a [`BodyFit`]: the body pitched and rolled to the ground under the feet, raised or
    /// lowered to it. Default on (keep the creature's root upright: yaw only).
    pub body_fit: bool,
    /// Add a [`FootstepPrediction`] (swinging paws steered onto whole treads and carried over
    /// the ground on the way). Default off: on the Fox following the demo's player it left
    /// planted paws up to 17 cm over flat ground (its swing floors outlast the paw's landing).
    pub footstep_prediction: bool,
}

impl Default for CreatureIk {
    fn default() -> Self {
        CreatureIk { foot_lock: true, body_fit: true, footstep_prediction: false }
    }
}

/// Inserted when [`CreatureIk`] rigged the creature: its legs, body, head and tail.
#[derive(Component, Clone, Debug)]
pub struct RiggedCreature {
    /// The rig found.
    pub rig: CreatureRig<Entity>,
    /// Up, forward and sizes in the creature root's frame.
    pub frame: CreatureFrame,
    /// What was found, one line per leg.
    pub summary: String,
}

/// Inserted when [`CreatureIk`] could not rig the creature.
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component)]
pub struct CreatureRigFailed {
    /// What was found and what the rig needs.
    pub message: String,
}

/// Triggered on a creature when [`CreatureIk`] rigged it (its [`RiggedCreature`] is there).
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreatureRigged {
    /// The creature.
    pub entity: Entity,
}

/// Rigs every [`CreatureIk`] whose bones exist and that has no outcome yet (in `PreUpdate`).
#[allow(clippy::type_complexity)]
pub(crate) fn rig_creatures(
    mut commands: Commands,
    creatures: Query<
        (Entity, &CreatureIk, Option<&Name>),
        (Without<RiggedCreature>, Without<CreatureRigFailed>, Without<FootPlacer>),
    >,
    bones: HumanoidBones,
) {
    for (root, creature, name) in &creatures {
        // Its scene not spawned yet: looked at again next frame, without reading the skeleton.
        if bones.named_count(root) == 0 {
            continue;
        }
        let skeleton = bones.skeleton(root);
        if skeleton.is_empty() {
            continue;
        }
        let who = name.map_or_else(|| format!("{root}"), |n| format!("`{n}`"));
        let report = match rig_creature(&skeleton_bones(&skeleton)) {
            Ok(report) => report,
            Err(e) => {
                let message = e.to_string();
                error!("bevy_ik: cannot rig {who} as a creature: {message}");
                commands.entity(root).insert(CreatureRigFailed { message });
                continue;
            }
        };
        let pose = bones.bind_pose(root);
        let rest_of = |e: Entity| pose.rest_of(e, &bones.hierarchy);
        let frame = report.frame;
        let legs: Vec<LegBones> = report.rig.legs.iter().filter_map(|leg| leg_bones(leg, &frame, rest_of)).collect();
        if legs.len() != report.rig.legs.len() {
            let message = format!("a leg has fewer than two links above its foot: {}", report.summary());
            error!("bevy_ik: cannot rig {who} as a creature: {message}");
            commands.entity(root).insert(CreatureRigFailed { message });
            continue;
        }
        let summary = report.summary();
        info!("bevy_ik: rigged {who} as a creature of {} legs:\n{summary}", legs.len());
        let mut entity = commands.entity(root);
        entity.insert(FootPlacer::new(report.rig.body, legs));
        if creature.foot_lock {
            entity.insert(FootLock::default());
        }
        if creature.body_fit {
            entity.insert(BodyFit::default());
        }
        if creature.footstep_prediction {
            entity.insert(FootstepPrediction::default());
        }
        entity.insert(RiggedCreature { rig: report.rig, frame, summary });
        commands.trigger(CreatureRigged { entity: root });
    }
}

/// Takes a creature's rig down when its bones are gone (its scene was respawned), so
/// `rig_creatures` rigs it again from the new bones.
pub(crate) fn watch_creatures(
    mut commands: Commands,
    rigged: Query<(Entity, &RiggedCreature, Option<&Name>)>,
    alive: Query<(), With<Transform>>,
) {
    for (root, creature, name) in &rigged {
        let rig = &creature.rig;
        let bones = core::iter::once(rig.body).chain(rig.legs.iter().flat_map(|l| l.bones.iter().copied()));
        if bones.into_iter().all(|e| alive.contains(e)) {
            continue;
        }
        let who = name.map_or_else(|| format!("{root}"), |n| format!("`{n}`"));
        info!("bevy_ik: the bones of {who} were replaced (scene respawned?): rigging it again");
        commands.entity(root).remove::<(
            RiggedCreature,
            FootPlacer,
            FootPlacerState,
            FootLock,
            FootstepPrediction,
            BodyFit,
            BodyFitState,
        )>();
    }
}

/// A creature leg as the placer's two-bone leg: the foot, the two bones above it, the toe;
/// its rest from the bind pose over the rest pose's ground (`rest_of`: a bone's rest relative
/// to the root). `None` with fewer than two bones above the foot.
fn leg_bones(
    leg: &ik_core::rig::CreatureLeg<Entity>,
    frame: &CreatureFrame,
    rest_of: impl Fn(Entity) -> Option<Xform>,
) -> Option<LegBones> {
    let at = leg.bones.iter().position(|b| *b == leg.foot)?;
    let (hip, knee) = (*leg.bones.get(at.checked_sub(2)?)?, leg.bones[at - 1]);
    // Heights over the ground the rest pose stands on.
    let grounded = |e: Entity| {
        rest_of(e).map(|mut x| {
            x.translation -= frame.up * frame.ground;
            x
        })
    };
    let ankle = grounded(leg.foot);
    let toe = leg.toe.and_then(grounded);
    let rest = ankle.map(|a| paw_rest(&a, toe.as_ref(), frame));
    Some(LegBones { hip, knee, ankle: leg.foot, toe: leg.toe, rest })
}

/// How far a paw's sole reaches behind its foot bone and ahead of its toe (or foot), per unit
/// of leg length: a fox's paw is about a sixth of its leg long.
const PAW_PER_LEG: f32 = 0.06;

/// A paw's rest (`ankle`, `toe`: rest transforms over the ground at y = 0): its heights, and a
/// short sole on the ground under it, from [`PAW_PER_LEG`] behind the foot bone to as far ahead
/// of the toe (a human foot's long estimated sole would let a lifting paw pivot about a tip
/// far ahead of it).
fn paw_rest(ankle: &Xform, toe: Option<&Xform>, frame: &CreatureFrame) -> LegRest {
    let measured = FootRest::measure(ankle, toe);
    let reach = PAW_PER_LEG * frame.leg_length;
    let on_ground = |p: Vec3| p - frame.up * p.dot(frame.up);
    let heel = on_ground(ankle.translation) - frame.forward * reach;
    let front = toe.unwrap_or(ankle);
    let tip = on_ground(front.translation) + frame.forward * reach;
    LegRest {
        ankle_height: measured.ankle_height,
        toe_height: measured.toe_height,
        foot_up: measured.foot_up,
        toe_up: measured.toe_up,
        heel: Some(ankle.inverse_transform_point(heel)),
        toe_tip: Some(front.inverse_transform_point(tip)),
    }
}
