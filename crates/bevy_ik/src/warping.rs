//! Pose warping: [`PoseWarping`] next to a [`crate::feet::FootPlacer`] warps the animated
//! stride, orientation and slope to the character's real velocity and ground before the feet
//! are placed (maths in [`ik_core::warping`]).
//!
//! **Order.** Warping runs inside [`crate::IkSystems::Feet`], on the placer's bones, first:
//! gather the animated pose → warp (pelvis turn and drop, spine counter-turn, legs re-solved to
//! the scaled stride) → foot locking sees the warped toes → foot placement puts them on the
//! ground. The look-at ([`crate::IkSystems::LookAt`]) and the limb chains run after, on the
//! warped spine. One gather and one write-back for all of it.
//!
//! The spine joints become part of the placer's bone set. Like every bone two IK components
//! write (here the spine, with a [`crate::look_at::LookAtSpread`]), they must be animated
//! every frame (glTF clips animate every bone they have curves for; a bone no clip moves keeps
//! whatever the last IK wrote and would be warped again on top of it).

use bevy::ecs::entity::MapEntities;
use bevy::prelude::*;
use ik_core::warping::{MAX_LEGS, PoseWarp, WarpMotion, WarpReport, WarpSettings, WarpState};

use crate::bones::BoneSet;
use crate::fault::{FaultLatch, FaultSender, IkComponent, IkFault};
use crate::feet::FootPlacer;
use crate::humanoid::RigPending;

/// Where [`PoseWarping`] reads the character's velocity.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
pub enum WarpVelocity {
    /// From how far the character root moved since last frame (world space).
    FromRoot,
    /// Set by your own system each frame (e.g. your character controller's velocity), world
    /// space, m/s.
    World(Vec3),
}

/// One spine joint turned back by orientation warping, with its share of the counter-turn.
#[derive(Reflect, MapEntities, Clone, Copy, Debug, PartialEq)]
pub struct WarpSpineJoint {
    /// The bone entity (a descendant of the placer's pelvis).
    #[entities]
    pub bone: Entity,
    /// Its share (relative to the other joints') of the counter-turn, ≥ 0.
    pub share: f32,
}

/// Put on a character root next to its [`crate::feet::FootPlacer`]: the walk is warped to the
/// character's velocity, so a clip authored at one speed straight ahead on flat ground walks
/// at any speed (stride warping), in any direction (orientation warping: legs toward the
/// movement, chest kept facing ahead) and up and down ramps (slope warping: the stride plane
/// follows the ground under the feet, the spine leans into the slope) without its planted
/// feet sliding. Set
/// [`PoseWarping::clip_speed`] to the playing animation's authored ground speed every frame,
/// and play the clip at [`PoseWarpingState::play_rate`] for speeds past the stride's range.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity, spine: Entity, chest: Entity) {
/// // The walk clip is authored at 1.4 m/s; the velocity comes from how the root moves.
/// commands.entity(character).insert(PoseWarping {
///     clip_speed: 1.4,
///     spine: vec![WarpSpineJoint { bone: spine, share: 0.5 }, WarpSpineJoint { bone: chest, share: 0.5 }],
///     ..default()
/// });
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
#[require(PoseWarpingState)]
pub struct PoseWarping {
    /// Tuning: weights of the stride, orientation and slope warping (0 turns one kind off),
    /// the stride scale's range, the largest angle, the lean per slope, smoothing, the most
    /// the pelvis drops. Its lengths and speeds are in the
    /// character root's units, like [`crate::feet::FootPlacer`]'s settings (metres unless the
    /// root itself is scaled); `clip_speed` and the velocity are world m/s, converted.
    pub settings: WarpSettings,
    /// Ground speed the playing animation is authored at, m/s (world). 0: the clip does not
    /// travel, no stride warping.
    pub clip_speed: f32,
    /// The direction the clip travels, in the character root's frame: `+Z` (glTF's forward,
    /// the default) or `−Z` (Bevy's).
    pub clip_forward: Vec3,
    /// Where the velocity comes from.
    pub velocity: WarpVelocity,
    /// Spine joints turned back by the orientation angle, pelvis side first; the last one ends
    /// facing as the clip does. Empty: the whole body turns toward the movement.
    #[entities]
    pub spine: Vec<WarpSpineJoint>,
}

impl Default for PoseWarping {
    fn default() -> Self {
        PoseWarping {
            settings: WarpSettings::default(),
            clip_speed: 0.0,
            clip_forward: Vec3::Z,
            velocity: WarpVelocity::FromRoot,
            spine: Vec::new(),
        }
    }
}

/// What [`PoseWarping`] did last frame, and its memory.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(Component, Default)]
pub struct PoseWarpingState {
    /// Stride scale applied.
    pub scale: f32,
    /// Orientation angle applied, radians (about the root's up axis).
    pub angle: f32,
    /// Pelvis drop applied so the stretched legs reach (root frame, ≤ 0).
    pub pelvis_drop: f32,
    /// Slope of the ground along the movement that the stride followed, radians (positive
    /// uphill), from the feet's ground normals last frame.
    pub slope: f32,
    /// Spine lean applied for the slope, radians (positive forward).
    pub lean: f32,
    /// Play the clip at this rate for the rest of the speed match (1 while the stride scale
    /// alone matches it).
    pub play_rate: f32,
    /// The velocity used, world space, m/s.
    pub velocity: Vec3,
    /// Warnings logged so far (one per distinct fault).
    pub warnings: u32,
    #[reflect(ignore)]
    pub(crate) faults: FaultLatch,
    /// This frame's fault, reported by the feet system after the placement.
    #[reflect(ignore)]
    pub(crate) outcome: Option<IkFault>,
    #[reflect(ignore)]
    warp: WarpState,
    /// The spine as (bone-set index, share), rebuilt every frame without allocating.
    #[reflect(ignore)]
    spine: Vec<(usize, f32)>,
}

impl PoseWarpingState {
    fn record(&mut self, report: &WarpReport) {
        self.scale = report.scale;
        self.angle = report.angle;
        self.pelvis_drop = report.pelvis_drop;
        self.slope = report.slope;
        self.lean = report.lean;
        self.play_rate = report.play_rate;
    }
}

/// What the feet system tells the warp besides the bones.
pub(crate) struct WarpGround {
    /// The ground's normal under the feet (world).
    pub normal: Vec3,
    /// Where the spine joints' keys start in the bone set (after the legs').
    pub spine_keys: usize,
    /// The root's velocity over the last frame that advanced (world), once known.
    pub measured: Option<Vec3>,
}

/// The warping stage of the feet system: warps `bones` (gathered for the placer, the spine
/// joints' keys after the legs') in place; returns the animated floor height under each leg
/// (the slope's rise, for the placement).
pub(crate) fn warp_pose(
    warping: &PoseWarping,
    state: &mut PoseWarpingState,
    bones: &mut BoneSet,
    legs: &[ik_core::leg::LegChain],
    ground: WarpGround,
    dt: f32,
) -> Result<[f32; MAX_LEGS], IkFault> {
    let spine_keys = ground.spine_keys;
    let root = bones.stop_world;
    let velocity = match warping.velocity {
        WarpVelocity::World(v) => Some(v),
        // Nothing before two positions are known; on a paused frame the last velocity holds.
        WarpVelocity::FromRoot => ground.measured,
    };
    let Some(velocity) = velocity else {
        state.record(&WarpReport { scale: 1.0, play_rate: 1.0, ..default() });
        return Ok([0.0; MAX_LEGS]);
    };
    state.velocity = velocity;
    // The job works in the root's frame: its units (a rig at 1 cm units reads 100 per metre)
    // and its axes.
    let scale = root.scale.max_element().max(1e-6);
    let motion = WarpMotion {
        velocity: root.rotation.inverse() * velocity / scale,
        clip_speed: warping.clip_speed / scale,
        clip_forward: warping.clip_forward,
        ground_normal: (root.rotation.inverse() * ground.normal).normalize_or(Vec3::Y),
    };
    state.spine.clear();
    state.spine.extend(warping.spine.iter().zip(&bones.keys[spine_keys..]).map(|(joint, &k)| (k, joint.share)));
    let job = PoseWarp {
        parents: &bones.parents,
        pelvis: bones.keys[0],
        legs,
        spine: &state.spine,
        settings: warping.settings,
    };
    let report = job.run(&mut bones.locals, &mut bones.model, &motion, dt, &mut state.warp).map_err(|e| match e {
        ik_core::IkError::BrokenHierarchy { bone } if bone < bones.entities.len() => IkFault::MissingBone(format!(
            "bone {} is not under the pelvis {}: pose warping needs each leg's hip below the pelvis (its foot may \
             hang from the root or a control bone)",
            bones.entities[bone], bones.entities[bones.keys[0]]
        )),
        e => IkFault::Solver(e),
    })?;
    state.record(&report);
    Ok(report.floor_heights)
}

/// A [`PoseWarping`] works inside its [`FootPlacer`]'s solve: on an entity without one (and
/// not waiting for [`crate::humanoid::HumanoidIk`] to add it) it would do nothing. Reported
/// once as a fault instead; it recovers when a placer is added.
#[allow(clippy::type_complexity)]
pub(crate) fn report_missing_placer(
    mut warps: Query<(Entity, &mut PoseWarpingState), (With<PoseWarping>, Without<FootPlacer>, Without<RigPending>)>,
    mut faults: FaultSender,
) {
    let notices = faults.notices();
    for (root, mut state) in &mut warps {
        if matches!(state.faults.current(), Some(IkFault::MissingComponent(_))) {
            continue; // reported already
        }
        let fault = IkFault::MissingComponent(format!(
            "PoseWarping on {root} has no FootPlacer next to it: it warps the placer's legs, so it does nothing \
             without one (add a FootPlacer, or HumanoidIk, to the same entity)"
        ));
        if state.faults.report(root, IkComponent::PoseWarping, Some(fault), notices) {
            state.warnings += 1;
        }
    }
    faults.send();
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use bevy::time::TimeUpdateStrategy;

    use super::*;
    use crate::IkPlugin;

    #[test]
    fn pose_warping_without_a_foot_placer_is_reported_once_not_silently_ignored() {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, TransformPlugin, IkPlugin::default()));
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(1.0 / 60.0)));
        let root = app.world_mut().spawn((Transform::default(), PoseWarping { clip_speed: 1.4, ..default() })).id();
        for frame in 0..5 {
            app.update();
            let state = app.world().get::<PoseWarpingState>(root).unwrap();
            assert_eq!(state.warnings, 1, "frame {frame}: one warning, not one per frame");
            assert!(matches!(state.faults.current(), Some(IkFault::MissingComponent(_))), "frame {frame}");
        }
    }
}
