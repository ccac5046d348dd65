//! Feet: [`FootPlacer`] puts planted feet on the real ground (rays through [`crate::ground`]),
//! lowers the pelvis when a foot must go down, re-solves the legs and tilts the feet to the
//! slope; [`FootLock`] pins toes to the floor during contacts. Maths in
//! [`ik_core::foot_placement`], [`ik_core::foot_lock`] and [`ik_core::leg`].

use bevy::ecs::entity::MapEntities;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use ik_core::Xform;
use ik_core::foot_lock::{ContactHeuristic, FootLockSettings, FootLockState};
use ik_core::foot_placement::{FootPlacementSettings, FootPlacementState, FootReport, FootRig};

use crate::bones::BoneSet;
use crate::fault::FaultLatch;

/// One leg's bones, and (optionally) its flat-standing rest measurements.
#[derive(Reflect, MapEntities, Clone, Copy, Debug, PartialEq)]
pub struct LegBones {
    /// Thigh bone (hip joint).
    #[entities]
    pub hip: Entity,
    /// Shin bone (knee joint).
    #[entities]
    pub knee: Entity,
    /// Foot bone (ankle joint).
    #[entities]
    pub ankle: Entity,
    /// Ball-of-foot bone, if the rig has one (locking and footstep prediction hold it; without
    /// one they hold the sole's ball point, [`ik_core::foot_placement::FootRig::ball`]).
    #[entities]
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
    /// The toe bone's local axis that points up when the foot is flat (`Y` without a toe).
    pub toe_up: Vec3,
    /// A point at the back of the heel, in the ankle bone's frame, also probed for ground.
    pub heel: Option<Vec3>,
    /// A point at the tip of the toes, in the toe bone's frame (the ankle's without a toe),
    /// also probed: it catches stair risers and slopes ahead of the toe joint.
    pub toe_tip: Option<Vec3>,
}

/// Put on a **character root** (its local y = 0 plane is the animation's floor, +Y up):
/// planted feet land on the ground under them, the pelvis drops by as much as the lowest foot
/// needs (never rises; [`FootPlacementSettings::pelvis_support`] chooses another foot to follow,
/// and [`FootPlacementSettings::heel_lift`] lets a short leg lift its heel before the pelvis
/// drops for it), legs are re-solved with two-bone IK and planted feet tilt to the slope.
/// Ground comes from the [`crate::ground::IkGround`] resource.
///
/// The tuning is ik_core's own [`FootPlacementSettings`] (edited live in an inspector through
/// the `bevy_reflect` feature): nothing is mirrored. The knees bend toward
/// [`FootPlacementSettings::knee_pole`]: by default the direction each knee bends in at rest
/// ([`ik_core::foot_placement::KneePole::RestBend`], measured when the legs are first
/// gathered, so a character facing +Z or −Z, or with a bird's or a kaiju's backward knees,
/// gets knees that bend its own way), for [`crate::humanoid::HumanoidIk`] too.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity, pelvis: Entity, l: [Entity; 4], r: [Entity; 4]) {
/// let mut placer = FootPlacer::new(
///     pelvis,
///     vec![LegBones::new(l[0], l[1], l[2], Some(l[3])), LegBones::new(r[0], r[1], r[2], Some(r[3]))],
/// );
/// placer.settings.max_step_up = 0.4;
/// // No crouch beyond what the ground needs: follow the foot on the highest ground, and let a
/// // leg short of its ground stand on its toes (up to `max_heel_lift`) before the pelvis drops.
/// placer.settings.pelvis_support = bevy_ik::ik_core::foot_placement::PelvisSupport::HighestFoot;
/// placer.settings.heel_lift = 1.0;
/// commands.entity(character).insert(placer);
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
#[require(FootPlacerState)]
#[component(on_remove = placer_removed)]
pub struct FootPlacer {
    /// The pelvis (hips) bone: its translation carries the pelvis drop.
    #[entities]
    pub pelvis: Entity,
    /// The legs (usually left then right).
    #[entities]
    pub legs: Vec<LegBones>,
    /// Ray lengths, step limits, springs, soft extension and the knee pole.
    pub settings: FootPlacementSettings,
    /// Blend from the animated pose (0) to full placement (1).
    pub weight: f32,
}

impl Default for FootPlacer {
    fn default() -> Self {
        FootPlacer::new(Entity::PLACEHOLDER, Vec::new())
    }
}

impl FootPlacer {
    /// A placer with default tuning and knees bending as they do at rest.
    pub fn new(pelvis: Entity, legs: Vec<LegBones>) -> Self {
        FootPlacer { pelvis, legs, settings: FootPlacementSettings::default(), weight: 1.0 }
    }
}

/// A [`FootPlacer`] taken off takes its state with it (unless one is put back in the same
/// batch of commands).
fn placer_removed(mut world: DeferredWorld, context: HookContext) {
    let root = context.entity;
    world.commands().queue(move |world: &mut World| {
        if world.get::<FootPlacer>(root).is_none()
            && let Ok(mut entity) = world.get_entity_mut(root)
        {
            entity.remove::<FootPlacerState>();
        }
    });
}

/// Where [`FootContacts`] learn that a foot is in contact.
#[derive(Reflect, Clone, Debug, PartialEq)]
pub enum ContactSource {
    /// From the animated toe: slow (its horizontal speed in the world) and low (its height in
    /// the character above flat standing); ik_core's [`ContactHeuristic`].
    Heuristic(ContactHeuristic),
    /// One flag per leg, written by your own system before [`crate::IkSystems::Feet`] (e.g.
    /// from contact curves authored with the clip).
    Manual(Vec<bool>),
}

impl Default for ContactSource {
    fn default() -> Self {
        ContactSource::Heuristic(ContactHeuristic::default())
    }
}

/// Where each foot's contact comes from, for a [`FootLock`] (which toes it holds) and a
/// [`FootstepPrediction`](crate::footstep::FootstepPrediction) (when a swing starts and ends).
/// A [`FootLock`] brings the default heuristic along. Write [`ContactSource::Manual`] flags here
/// (e.g. a clip's contact labels), one per leg in [`FootPlacer::legs`] order, and both follow
/// them, with or without a lock (another count is refused with one warning, the feet left as
/// animated); without flags or a lock, a foot is in contact as far as its clip plants it (its
/// height).
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// // Your clip's labels this frame: the left foot planted, the right swinging.
/// fn label_feet(mut characters: Query<&mut FootContacts>) {
///     for mut contacts in &mut characters {
///         contacts.0 = ContactSource::Manual(vec![true, false]);
///     }
/// }
/// # bevy::ecs::system::assert_is_system(label_feet);
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default)]
pub struct FootContacts(pub ContactSource);

impl FootContacts {
    /// The flag per leg, when they are written by hand ([`ContactSource::Manual`]).
    pub fn manual(&self) -> Option<&[bool]> {
        match &self.0 {
            ContactSource::Manual(flags) => Some(flags),
            ContactSource::Heuristic(_) => None,
        }
    }
}

/// Put next to a [`FootPlacer`]: during a contact each foot's ball (the sole under its toe joint, or the
/// sole's ball point on a foot without a toe bone) stays on a fixed
/// floor point, otherwise it follows the animation; switching is blended by cubic
/// inertialization, so position and velocity stay continuous. The tuning is ik_core's
/// [`FootLockSettings`]. The hold is horizontal: heights stay [`FootPlacer`]'s business, and
/// the lock and unlock distances are measured on the ground plane (a root climbing stairs
/// under a held toe does not let it go). A held toe is let go before its contact ends only
/// when the clip's toe is past the unlock distance *and* the leg cannot reach the held toe
/// (a body starting from standing lags its stride's toe while the leg still reaches). Keep the
/// character root upright (turned about up only): on a tilted root a held foot slides along the
/// slope as placement lifts it (one warning says so); tilt a creature's body with
/// [`crate::body_fit::BodyFit`].
///
/// A held toe rides what it stands on: the collider under it is looked up each frame (one ray
/// per locked foot), and when that entity's transform moves — a moving or turning platform, a
/// lift, a ship's deck — the held point moves with it. (The character's own body must be carried
/// too; that is the character controller's business.) With [`crate::ground::IkGround::Plane`]
/// there is nothing to ride.
///
/// Which feet are in contact comes from the character's [`FootContacts`] (the heuristic,
/// unless you write flags there).
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity) {
/// let mut lock = FootLock::default();
/// lock.settings.unlock_distance = 0.25;
/// commands.entity(character).insert(lock);
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default)]
#[require(FootContacts)]
pub struct FootLock {
    /// Lock and unlock distances and blend times.
    pub settings: FootLockSettings,
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
    /// How far the heel is lifted about the toes, radians
    /// ([`FootPlacementSettings::heel_lift`]).
    pub heel_lift: f32,
    /// In contact this frame: from the [`FootLock`] contact source, or without a lock the clip's
    /// own planted weight over 0.5 ([`ik_core::foot_placement::FootReport::clip_planted`]).
    pub contact: bool,
    /// Locked to a floor point this frame.
    pub locked: bool,
    /// The ball written this frame (world): the sole under the toe joint, or the sole's ball point on a foot
    /// without a toe bone ([`ik_core::foot_placement::FootRig::ball`]).
    pub toe_world: Vec3,
    /// The ray's start (world), for gizmos.
    pub ray_start: Vec3,
    /// With [`FootstepPrediction`](crate::footstep::FootstepPrediction), while swinging: where the toe is predicted
    /// to land (world), the landing shift included.
    pub landing: Option<Vec3>,
    /// With [`FootstepPrediction`](crate::footstep::FootstepPrediction): the shift along the stride steering this
    /// foot now (m, world; negative: back).
    pub landing_shift: f32,
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

impl FootPlacerState {
    /// World positions of each leg's hip, knee, ankle and toe (`None` without a toe bone) as
    /// placed last frame; nothing before the first placement.
    pub fn leg_joints(&self) -> impl Iterator<Item = [Option<Vec3>; 4]> + '_ {
        let bones = self.inner.bones.as_ref();
        self.inner.chains.iter().filter_map(move |leg| {
            let bones = bones?;
            let at = |i: usize| bones.model.get(i).map(|m| bones.stop_world.transform_point(m.translation));
            Some([at(leg.hip), at(leg.knee), at(leg.ankle), leg.toe.and_then(at)])
        })
    }
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
    /// Per leg, the horizontal shift foot locking asks for this frame (model space).
    pub shifts: Vec<Vec3>,
    /// Per leg, what a locked toe stands on (a collider entity) and its world transform when
    /// last seen, so the lock rides it when it moves ([`FootLockState::carry`]).
    pub surfaces: Vec<Option<(Entity, Xform)>>,
    /// How the root moves (footstep prediction's stride, the pelvis support's front, pose
    /// warping's velocity), measured once a frame.
    pub motion: ik_core::footstep::RootVelocity,
    /// Per leg, the landing shift footstep prediction applies this frame (model space).
    pub steer: Vec<Vec3>,
    /// Per leg, the ground a swinging foot is carried over this frame, from footstep
    /// prediction.
    pub swing_floors: Vec<ik_core::foot_placement::SwingFloor>,
    pub faults: FaultLatch,
    pub dirty: bool,
    /// A warning that the root is tilted under a [`FootLock`] was given (until it is upright).
    pub tilt_warned: bool,
}
