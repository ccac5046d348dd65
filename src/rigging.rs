//! After [`HumanoidIk`] has rigged (or failed to rig) the character: start its animation, feed
//! the sidecar's contact labels to the foot lock, and measure the sole points the metrics use.
//!
//! Method: on the plugin's `HumanoidRigged`, per foot, sole points every ~1 cm from the back of
//! the heel through the ball to the toe tip of the sole the plugin probes with (its `LegRest`:
//! heel, the sole under the toe joint, toe tip, in the foot and toe bones' frames, measured in
//! the skin's bind pose), stored in the foot or ball bone's local frame so they ride with the
//! animated bones; the nodes' current pose (still un-animated, since the blend space is held
//! back until now) gives only bone lengths and scales, and the `ik_core::sole::FlatSole`
//! estimate where the plugin gave no sole. On
//! `HumanoidRigFailed` the message is kept for the UI and the character animates without IK.
//! Inputs: the rig, the rest `Transform`s. Outputs: `Locomotion`, [`FootProbe`], [`RigStatus`].
//! Invariants: sole points are finite; a rig without ball bones gets points estimated from the
//! ankle and the character's forward axis.

use bevy::prelude::*;
use bevy_ik::bones::{Hierarchy, world_of};
use bevy_ik::prelude::*;
use ik_core::foot_placement::PelvisSupport;
use ik_core::sole::FlatSole;
use ik_core::warping::WarpSettings;

use crate::character::PendingLocomotion;
use crate::locomotion::Locomotion;
use crate::marks::Avatar;
use crate::marks::{ReachArm, RigStatus};

/// A sole point: a bone and an offset in its local frame.
#[derive(Clone, Copy, Debug)]
pub struct SolePoint {
    /// The bone the point rides on.
    pub bone: Entity,
    /// Offset in the bone's local frame.
    pub local: Vec3,
}

/// Spacing of the sole points the metrics probe, m.
const SOLE_SPACING: f32 = 0.01;

/// Per foot (`[left, right]`): sole points heel → toe tip, and which one is the ball (slide).
#[derive(Component, Clone, Debug)]
pub struct FootProbe {
    /// Sole points per foot, heel first, about every centimetre to the toe tip.
    pub feet: [Vec<SolePoint>; 2],
    /// Index of the ball point in each foot's list.
    pub ball: [usize; 2],
}

/// Starts animation and measures the feet once the plugin rigged the character (observing its
/// [`HumanoidRigged`], so again whenever it rigs it anew: a respawned scene).
#[allow(clippy::too_many_arguments)]
pub fn on_rigged(
    rigged: On<HumanoidRigged>,
    mut commands: Commands,
    mut status: ResMut<RigStatus>,
    mut avatars: Query<(&RiggedHumanoid, Option<&mut PendingLocomotion>), With<Avatar>>,
    mut placers: Query<&mut FootPlacer>,
    mut locks: Query<&mut FootLock>,
    source: Res<crate::character::CharacterSource>,
    visuals: Res<crate::marks::Visuals>,
    mut meshes: Option<ResMut<Assets<Mesh>>>,
    mut materials: Option<ResMut<Assets<StandardMaterial>>>,
    hierarchy: Hierarchy,
) {
    let avatar = rigged.entity;
    let Ok((humanoid, pending)) = avatars.get_mut(avatar) else { return };
    let rig = &humanoid.rig;
    let Some(root) = world_of(avatar, &hierarchy) else { return };
    let rel = |e: Entity| world_of(e, &hierarchy).map(|w| root.inverse().mul_xform(&w));
    let rests = placers.get(avatar).ok().map(|p| p.legs.iter().map(|l| l.rest).collect::<Vec<_>>()).unwrap_or_default();
    let (feet, ball_index) = sole_points(humanoid, &rests, rel);
    let mut entity = commands.entity(avatar);
    if let Ok(mut placer) = placers.get_mut(avatar) {
        tune_placer(&mut placer);
    }
    entity.insert(pose_warping(humanoid));
    if let Ok(mut lock) = locks.get_mut(avatar) {
        // A planted toe stops where it lands (no inertialized glide into the lock), even
        // when the previous unlock is still blending out (short first steps from standing):
        // a hard lock keeps the toe's position continuous wherever it engages.
        lock.settings.lock_blend_time = 0.0;
        lock.settings.lock_distance = 0.25;
        lock.settings.blend_time = 0.12;
    }
    if feet.iter().all(|f| !f.is_empty() && f.iter().all(|p| p.local.is_finite())) {
        entity.insert(FootProbe { feet, ball: ball_index });
    } else {
        warn!("the feet's sole points could not be measured from the rest pose: no foot metrics");
    }
    if let Some(arm) = rig.arms[1]
        && let (Some(hand), Some(s), Some(e), Some(w)) =
            (humanoid.reaching_hand, rel(arm.upper), rel(arm.lower), rel(arm.hand))
    {
        let reach = s.translation.distance(e.translation) + e.translation.distance(w.translation);
        entity.insert(ReachArm { shoulder: arm.upper, hand, reach, forward: humanoid.frame.forward });
    }
    if let Some(mut pending) = pending {
        // No clips: an empty blend space, so the autopilot knows the character only stands.
        entity.insert(pending.0.take().unwrap_or_else(|| Locomotion::new(Entity::PLACEHOLDER, Vec::new())));
        entity.remove::<PendingLocomotion>();
    }
    if !source.custom
        && visuals.0
        && let (Some(meshes), Some(materials)) = (meshes.as_deref_mut(), materials.as_deref_mut())
    {
        add_eyes(&mut commands, rig.head, meshes, materials);
    }
    *status = RigStatus::Rigged(rig.profile.clone());
}

/// Keeps the plugin's message for the UI when it could not rig the character (observing its
/// [`HumanoidRigFailed`]); the character animates without IK.
pub fn on_rig_failed(
    failed: On<HumanoidRigFailed>,
    mut commands: Commands,
    mut status: ResMut<RigStatus>,
    mut avatars: Query<Option<&mut PendingLocomotion>, With<Avatar>>,
) {
    let Ok(pending) = avatars.get_mut(failed.entity) else { return };
    let mut entity = commands.entity(failed.entity);
    if let Some(mut pending) = pending {
        if let Some(loco) = pending.0.take() {
            entity.insert(loco);
        }
        entity.remove::<PendingLocomotion>();
    }
    *status = RigStatus::Failed(failed.message.clone());
    commands.insert_resource(crate::marks::CharacterError(format!("cannot rig the character: {}", failed.message)));
}

/// Per foot, the sole points the metrics probe (see the module docs) and which is the ball;
/// `rests`: the placer's legs' rests (the soles the plugin uses), `rel`: a bone's transform
/// relative to the avatar now (only bone lengths and scales are read from it where the plugin
/// gave a sole; its rotations are the nodes' and need not be the pose the mesh was bound in).
fn sole_points(
    humanoid: &RiggedHumanoid,
    rests: &[Option<LegRest>],
    rel: impl Fn(Entity) -> Option<ik_core::Xform>,
) -> ([Vec<SolePoint>; 2], [usize; 2]) {
    let mut feet: [Vec<SolePoint>; 2] = [Vec::new(), Vec::new()];
    let mut ball_index = [0; 2];
    for (side, leg) in humanoid.rig.legs.iter().enumerate() {
        let Some(ankle) = rel(leg.foot) else { continue };
        let ball = leg.ball.and_then(|b| rel(b).map(|x| (b, x)));
        // The sole the plugin uses (measured from the mesh where there is one), so the
        // metrics measure the feet the player sees; the estimate only without it.
        let rest = rests.get(side).copied().flatten();
        let (heel, ball_foot, ball_toe, tip) = match rest.and_then(|r| Some((r, r.heel?, r.toe_tip?))) {
            Some((rest, heel, tip)) => plugin_sole(&rest, heel, tip, &ankle, ball.as_ref().map(|(_, x)| x)),
            None => {
                let toe = ball.as_ref().map(|(_, x)| x);
                let sole = FlatSole::estimate(&ankle, toe, humanoid.frame.forward, humanoid.frame.leg_length);
                let local = |x: &ik_core::Xform, p: Vec3| x.inverse_transform_point(p);
                let toe_frame = toe.unwrap_or(&ankle);
                (
                    local(&ankle, sole.heel),
                    local(&ankle, sole.ball),
                    local(toe_frame, sole.ball),
                    local(toe_frame, sole.tip),
                )
            }
        };
        let (toe_bone, toe_frame) = ball.unwrap_or((leg.foot, ankle));
        // Heel → ball on the foot bone, ball → tip on the toe bone, a point every ~1 cm. The
        // ball point the slide is measured at is the toe bone's (the toe the lock holds): the
        // foot bone's point under the toe joint swings with the heel as it lifts, which is
        // rolling off, not sliding.
        let along = |from: Vec3, to: Vec3, bone: Entity, frame: ik_core::Xform, first: usize| {
            let length = frame.transform_point(to).distance(frame.transform_point(from));
            let n = ((length / SOLE_SPACING).ceil() as usize).max(1);
            (first..=n).map(move |k| SolePoint { bone, local: from.lerp(to, k as f32 / n as f32) })
        };
        let mut points: Vec<SolePoint> = along(heel, ball_foot, leg.foot, ankle, 0).collect();
        let on_toe = usize::from(toe_bone != leg.foot);
        ball_index[side] = points.len() - 1 + on_toe;
        points.extend(along(ball_toe, tip, toe_bone, toe_frame, 1 - on_toe));
        feet[side] = points;
    }
    (feet, ball_index)
}

/// The plugin's sole in bone frames: heel, ball (on the foot bone, then on the toe bone) and
/// toe tip. The ball is the sole under the toe joint as the plugin probes it: the joint moved
/// down the foot's (the toe's) flat-pose up axis by the toe's rest height, so the points hold
/// wherever the nodes happen to stand when rigging happens (the plugin measured them in the
/// skin's bind pose). Without a toe bone the tip is on the foot bone and the ball between.
fn plugin_sole(
    rest: &LegRest,
    heel: Vec3,
    tip: Vec3,
    ankle: &ik_core::Xform,
    toe: Option<&ik_core::Xform>,
) -> (Vec3, Vec3, Vec3, Vec3) {
    let Some(toe) = toe else {
        let ball = heel.lerp(tip, ik_core::sole::BALL_SHARE);
        return (heel, ball, ball, tip);
    };
    // A model-space height as a length along a bone's local axis.
    let local_height = |x: &ik_core::Xform, axis: Vec3| rest.toe_height / (x.scale * axis).length().max(1e-6);
    let toe_in_ankle = ankle.inverse_transform_point(toe.translation);
    let ball_foot = toe_in_ankle - rest.foot_up * local_height(ankle, rest.foot_up);
    let ball_toe = -rest.toe_up * local_height(toe, rest.toe_up);
    (heel, ball_foot, ball_toe, tip)
}

/// Demo tuning of the placer: corrections follow the ground closely (short half-lives), so a
/// foot moving up a 30° ramp at walking speed does not lag into it; no crouch beyond what the
/// ground needs: the pelvis follows the planted foot on the highest ground, and a leg short of
/// its ground lifts its heel (up to 25°) before the pelvis drops for the rest.
fn tune_placer(placer: &mut FootPlacer) {
    placer.settings.foot_half_life = 0.0;
    placer.settings.tilt_half_life = 0.03;
    placer.settings.pelvis_half_life = 0.06;
    placer.settings.pelvis_support = PelvisSupport::HighestFoot;
    placer.settings.heel_lift = 1.0;
}

/// Pose warping on every rig, IK-control rigs too: orientation warping while strafing, slope
/// warping on ramps and stride warping where the steps are shortened, each off until
/// [`crate::toggles::apply_warping`] eases it on.
fn pose_warping(humanoid: &RiggedHumanoid) -> PoseWarping {
    let rig = &humanoid.rig;
    let share = 1.0 / rig.spine.len().max(1) as f32;
    PoseWarping {
        settings: WarpSettings { stride_weight: 0.0, orientation_weight: 0.0, ..default() },
        clip_forward: humanoid.frame.forward,
        spine: rig.spine.iter().map(|&bone| WarpSpineJoint { bone, share }).collect(),
        ..default()
    }
}

/// Two small dark eyes on a mannequin's head bone, so where it looks can be seen. Head-local
/// positions fit the project's mannequin (head joint at 1.60 m, face at about +0.11 m in z).
pub fn add_eyes(
    commands: &mut Commands,
    head: Entity,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
) {
    let mesh = meshes.add(Sphere::new(0.016).mesh().uv(10, 6));
    let material = materials.add(StandardMaterial {
        base_color: Color::srgb(0.08, 0.08, 0.1),
        perceptual_roughness: 0.3,
        ..default()
    });
    for side in [-1.0, 1.0] {
        commands.spawn((
            Name::new("eye"),
            Mesh3d(mesh.clone()),
            MeshMaterial3d(material.clone()),
            Transform::from_xyz(0.034 * side, 0.105, 0.1),
            ChildOf(head),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ik_core::Xform;
    use ik_core::foot_placement::FootRest;

    #[test]
    fn the_sole_rides_the_bones_as_the_plugin_measured_it_whatever_the_nodes_hold() {
        // Bound flat: ankle 8 cm up, toe joint 22 cm ahead at the same height, the bones' own
        // axes turned; the sole from 10 cm behind the ankle to 6 cm past the toe joint, on the floor.
        let ankle =
            Xform { translation: Vec3::new(0.0, 0.08, 0.0), rotation: Quat::from_rotation_x(1.1), scale: Vec3::ONE };
        let toe_local =
            Xform { translation: Vec3::new(0.0, 0.2, 0.1), rotation: Quat::from_rotation_x(-0.4), scale: Vec3::ONE };
        let toe = ankle.mul_xform(&toe_local);
        let measured = FootRest::measure(&ankle, Some(&toe));
        let rest = LegRest {
            ankle_height: measured.ankle_height,
            toe_height: measured.toe_height,
            foot_up: measured.foot_up,
            toe_up: measured.toe_up,
            heel: Some(ankle.inverse_transform_point(Vec3::new(0.0, 0.0, -0.1))),
            toe_tip: Some(toe.inverse_transform_point(toe.translation * Vec3::new(1.0, 0.0, 1.0) + Vec3::Z * 0.06)),
        };
        // The nodes hold another pose when rigging happens (a file saved mid-stride): the ankle
        // pitched 40° and the toes bent, the bones as long.
        let node_ankle = Xform { rotation: Quat::from_rotation_x(0.7) * ankle.rotation, ..ankle };
        let node_toe =
            node_ankle.mul_xform(&Xform { rotation: Quat::from_rotation_x(0.5) * toe_local.rotation, ..toe_local });
        let (heel, ball_foot, ball_toe, tip) =
            plugin_sole(&rest, rest.heel.unwrap(), rest.toe_tip.unwrap(), &node_ankle, Some(&node_toe));
        // Placed by the bind pose, every point is on the floor, and the ball is one point on
        // both bones: the sole under the toe joint.
        let on_foot = [heel, ball_foot].map(|p| ankle.transform_point(p));
        let on_toe = [ball_toe, tip].map(|p| toe.transform_point(p));
        for p in on_foot.iter().chain(&on_toe) {
            assert!(p.y.abs() < 1e-5, "{p}");
        }
        assert!(on_foot[1].distance(on_toe[0]) < 1e-5 && on_foot[1].z > 0.14, "{} {}", on_foot[1], on_toe[0]);
    }
}
