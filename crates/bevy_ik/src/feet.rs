//! Feet: [`FootPlacer`] puts planted feet on the real ground (rays through [`crate::ground`]),
//! lowers the pelvis when a foot must go down, re-solves the legs and tilts the feet to the
//! slope; [`FootLock`] pins toes to the floor during contacts. Maths in
//! [`ik_core::foot_placement`], [`ik_core::foot_lock`] and [`ik_core::leg`].

use bevy::prelude::*;
use ik_core::foot_lock::FootLockState;
use ik_core::foot_placement::{FootPlacementSettings, FootPlacementState, FootReport, FootRig, KneePole};

use crate::bones::BoneSet;
use crate::report::FaultLatch;

pub use crate::feet_system::place_feet;

/// One leg's bones, and (optionally) its flat-standing rest measurements.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
pub struct LegBones {
    /// Thigh bone (hip joint).
    pub hip: Entity,
    /// Shin bone (knee joint).
    pub knee: Entity,
    /// Foot bone (ankle joint).
    pub ankle: Entity,
    /// Ball-of-foot bone, if the rig has one (used for contacts and locking).
    pub toe: Option<Entity>,
    /// Rest measurements (ankle/toe height standing flat, the ankle's local up axis, heel and
    /// toe-tip points). `None` captures them on the first frame, assuming the character then
    /// stands flat (add the component in the rest pose, or let [`crate::humanoid::HumanoidIk`]
    /// fill them in); the heel and tip are then estimated from the ankle→toe length.
    pub rest: Option<LegRest>,
}

impl LegBones {
    /// A leg from its bones, rest measurements captured on the first frame.
    pub fn new(hip: Entity, knee: Entity, ankle: Entity, toe: Option<Entity>) -> Self {
        LegBones { hip, knee, ankle, toe, rest: None }
    }
}

/// A leg's measurements when the character stands flat on its floor (character space).
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
pub struct LegRest {
    /// Ankle height above the floor, m.
    pub ankle_height: f32,
    /// Toe (ball) height above the floor, m.
    pub toe_height: f32,
    /// The ankle bone's local axis that points up when the foot is flat.
    pub foot_up: Vec3,
    /// A point at the back of the heel, in the ankle bone's frame, also probed for ground.
    pub heel: Option<Vec3>,
    /// A point at the tip of the toes, in the toe bone's frame (the ankle's without a toe),
    /// also probed: it catches stair risers and slopes ahead of the toe joint.
    pub toe_tip: Option<Vec3>,
}

/// Put on a **character root** (its local y = 0 plane is the animation's floor, +Y up, +Z
/// forward): planted feet land on the ground under them, the pelvis drops by as much as the
/// lowest foot needs (never rises), legs are re-solved with two-bone IK (knees forward) and
/// planted feet tilt to the slope. Ground comes from the [`crate::ground::IkGround`] resource.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity, pelvis: Entity, l: [Entity; 4], r: [Entity; 4]) {
/// commands.entity(character).insert(FootPlacer::new(
///     pelvis,
///     vec![LegBones::new(l[0], l[1], l[2], Some(l[3])), LegBones::new(r[0], r[1], r[2], Some(r[3]))],
/// ));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
#[require(FootPlacerState)]
pub struct FootPlacer {
    /// The pelvis (hips) bone: its translation carries the pelvis drop.
    pub pelvis: Entity,
    /// The legs (usually left then right).
    pub legs: Vec<LegBones>,
    /// How far above the ankle rays start, m.
    pub ray_start_height: f32,
    /// Ray length from its start, m.
    pub ray_length: f32,
    /// Largest upward foot correction, m.
    pub max_step_up: f32,
    /// Largest downward foot correction and pelvis drop, m.
    pub max_step_down: f32,
    /// Sole height (in the animation) up to which a foot counts as fully planted, m.
    pub planted_height: f32,
    /// Height over which the planted weight fades to 0 above `planted_height`, m.
    pub planted_fade: f32,
    /// Largest foot tilt toward the ground normal, radians.
    pub max_tilt: f32,
    /// Half-life (s) of the pelvis drop spring.
    pub pelvis_half_life: f32,
    /// Half-life (s) of each foot's correction spring.
    pub foot_half_life: f32,
    /// Half-life (s) of each foot's tilt spring.
    pub tilt_half_life: f32,
    /// Soft extension of the leg solve (fraction of leg reach).
    pub soften: f32,
    /// Blend from the animated pose (0) to full placement (1).
    pub weight: f32,
    /// The character's forward in its root's frame: knees bend toward it (`+Z` by default;
    /// [`crate::humanoid::HumanoidIk`] measures it from the rest pose).
    pub knee_forward: Vec3,
}

impl Default for FootPlacer {
    fn default() -> Self {
        FootPlacer::new(Entity::PLACEHOLDER, Vec::new())
    }
}

impl FootPlacer {
    /// A placer with default tuning.
    pub fn new(pelvis: Entity, legs: Vec<LegBones>) -> Self {
        let d = FootPlacementSettings::default();
        FootPlacer {
            pelvis,
            legs,
            ray_start_height: d.ray_start_height,
            ray_length: d.ray_length,
            max_step_up: d.max_step_up,
            max_step_down: d.max_step_down,
            planted_height: d.planted_height,
            planted_fade: d.planted_fade,
            max_tilt: d.max_tilt,
            pelvis_half_life: d.pelvis_half_life,
            foot_half_life: d.foot_half_life,
            tilt_half_life: d.tilt_half_life,
            soften: d.soften,
            weight: 1.0,
            knee_forward: Vec3::Z,
        }
    }

    /// The ik_core settings these fields stand for.
    pub fn settings(&self) -> FootPlacementSettings {
        FootPlacementSettings {
            ray_start_height: self.ray_start_height,
            ray_length: self.ray_length,
            max_step_up: self.max_step_up,
            max_step_down: self.max_step_down,
            planted_height: self.planted_height,
            planted_fade: self.planted_fade,
            max_tilt: self.max_tilt,
            pelvis_half_life: self.pelvis_half_life,
            foot_half_life: self.foot_half_life,
            tilt_half_life: self.tilt_half_life,
            soften: self.soften,
            knee_pole: KneePole::Forward(self.knee_forward.normalize_or(Vec3::Z)),
        }
    }
}

/// Where a [`FootLock`] learns that a foot is in contact.
#[derive(Reflect, Clone, Debug, PartialEq)]
pub enum ContactSource {
    /// From the animated toe: slower than `velocity_threshold` (m/s, world) and lower than
    /// `height_threshold` (m above its flat height).
    Heuristic {
        /// Toe speed under which a foot may be in contact, m/s.
        velocity_threshold: f32,
        /// Toe height (above its flat height) under which a foot may be in contact, m.
        height_threshold: f32,
    },
    /// One flag per leg, written by your own system before [`crate::IkSystems::Feet`] (e.g.
    /// from contact curves authored with the clip).
    Manual(Vec<bool>),
}

impl Default for ContactSource {
    fn default() -> Self {
        ContactSource::Heuristic { velocity_threshold: 0.3, height_threshold: 0.05 }
    }
}

/// Put next to a [`FootPlacer`] whose legs have toes: during a contact each toe stays on a fixed
/// floor point, otherwise it follows the animation; switching is blended by cubic
/// inertialization, so position and velocity stay continuous.
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
pub struct FootLock {
    /// Lock only when the foot's resting point is within this distance of the animated toe, m.
    pub lock_distance: f32,
    /// Unlock when the animated toe has moved further than this from the locked toe, m.
    pub unlock_distance: f32,
    /// Seconds over which an unlock is blended.
    pub blend_time: f32,
    /// Seconds over which a lock is blended in (0: the toe stops at once where it is — no
    /// glide, but its velocity jumps to zero).
    pub lock_blend_time: f32,
    /// Where contacts come from.
    pub contacts: ContactSource,
}

impl Default for FootLock {
    fn default() -> Self {
        let d = ik_core::foot_lock::FootLockSettings::default();
        FootLock {
            lock_distance: d.lock_distance,
            unlock_distance: d.unlock_distance,
            blend_time: d.blend_time,
            lock_blend_time: d.lock_blend_time,
            contacts: ContactSource::default(),
        }
    }
}

/// One foot's state after the last frame, for metrics and gizmos (world space).
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq)]
pub struct FootStatus {
    /// The ray found ground.
    pub hit: bool,
    /// Where (world).
    pub ground_point: Vec3,
    /// Ground normal (world).
    pub ground_normal: Vec3,
    /// Planted weight from the animation, 0..1.
    pub planted: f32,
    /// Vertical correction applied to the ankle (character space), m.
    pub offset: f32,
    /// Sole float above the ground before placement (negative: penetration), m.
    pub float_before: f32,
    /// Sole float after placement (negative: penetration), m.
    pub float_after: f32,
    /// In contact this frame (from the [`FootLock`] contact source).
    pub contact: bool,
    /// Locked to a floor point this frame.
    pub locked: bool,
    /// The toe (or ankle) position written this frame (world).
    pub toe_world: Vec3,
    /// The ray's start (world), for gizmos.
    pub ray_start: Vec3,
}

/// What a [`FootPlacer`] keeps between frames and reports.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(Component, Default)]
pub struct FootPlacerState {
    /// Pelvis drop applied last frame (character space, ≤ 0), m.
    pub pelvis_offset: f32,
    /// Per-leg status.
    pub feet: Vec<FootStatus>,
    /// Warnings logged so far (one per distinct fault).
    pub warnings: u32,
    #[reflect(ignore)]
    pub(crate) inner: FeetScratch,
}

/// Buffers and memory reused every frame (not reflected).
#[derive(Clone, Debug, Default)]
pub(crate) struct FeetScratch {
    pub bones: Option<BoneSet>,
    pub built_for: Vec<Entity>,
    pub rigs: Vec<FootRig>,
    pub chains: Vec<ik_core::leg::LegChain>,
    pub animated_toes: Vec<Option<Vec3>>,
    pub placement: FootPlacementState,
    pub reports: Vec<FootReport>,
    pub locks: Vec<Option<FootLockState>>,
    pub last_animated_toe: Vec<Option<Vec3>>,
    /// Per leg, the horizontal shift foot locking asks for this frame (model space).
    pub shifts: Vec<Vec3>,
    pub faults: FaultLatch,
    pub dirty: bool,
}
