//! The demo's shared marks, at the bottom of its modules (they import nothing of the demo):
//! the schedule's sets, the player's and the avatar's components, the collision groups of the
//! course and the speeds the controller drives at.

use bevy::prelude::*;
use bevy_rapier3d::prelude::Group;
use ik_core::spring::Spring;

/// Ordering of the demo's own per-frame work in `Update`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DemoSystems {
    /// Character setup as assets arrive.
    Setup,
    /// Keyboard, UI or autopilot decide what the character wants.
    Intent,
    /// Movement, blend space, IK switches.
    Drive,
}

/// The main camera for the course.
#[derive(Component)]
pub struct MainCamera;

/// Marks IK components that belong to a lab, not to the playable character.
#[derive(Component)]
pub struct LabOnly;

/// Whether to spawn meshes and lights (off in `--headless`).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visuals(pub bool);

/// Collision group of stair treads: feet see them, the character controller does not.
pub const STAIR_GROUP: Group = Group::GROUP_2;

/// Collision group of things hanging over the floor: the feet's rays see them, the character
/// controller and the metrics' floor rays do not.
pub const OVERHANG_GROUP: Group = Group::GROUP_3;

/// Collision group of the moving platforms: feet and metrics see them, the character
/// controller does not (it walks on their still stand-ins, see [`crate::platforms`]).
pub const PLATFORM_GROUP: Group = Group::GROUP_4;

/// Walking speed, m/s (the walk clip's nominal speed).
pub const WALK_SPEED: f32 = 1.4;

/// Jogging speed, m/s.
pub const JOG_SPEED: f32 = 3.2;

/// Marks the character's physics body (the entity the controller moves).
#[derive(Component)]
pub struct Player;

/// How the keyboard drives the character: strafing (X) and a chosen speed (Z slower, C
/// faster).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct DriveMode {
    /// Face the camera's aim and walk where the keys steer (pose warping turns the legs).
    pub strafe: bool,
    /// Wanted speed, m/s, in [`SPEED_RANGE`](crate::player::SPEED_RANGE); `None`: walk, or jog with Shift.
    pub speed: Option<f32>,
}

/// What the character is asked to do this frame.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct MoveIntent {
    /// Face this way (x, z world) instead of the moving direction: strafing.
    pub facing: Option<Vec2>,
    /// Wanted speed, m/s, instead of the walk or jog speed.
    pub speed: Option<f32>,
    /// Wanted direction on the ground (x, z world), length 0..1.
    pub direction: Vec2,
    /// Jog instead of walk.
    pub jog: bool,
    /// `speed` is the stairs' pace (one tread per step at the walk's cadence: the steps are
    /// shortened, not slowed; see `player::slow_on_stairs`).
    pub stairs: bool,
}

/// The body's motion state.
#[derive(Component, Clone, Debug)]
pub struct Motion {
    /// Ground speed spring, m/s.
    pub speed: Spring<f32>,
    /// Facing angle about +Y (0 = +Z), radians.
    pub yaw: f32,
    /// Vertical speed, m/s (gravity when airborne).
    pub vertical: f32,
    /// The avatar (IK root) entity whose blend space this body drives.
    pub avatar: Option<Entity>,
    /// Walk and jog speeds (from the clips).
    pub speeds: (f32, f32),
    /// Ground speed the controller actually achieved last frame (horizontal), smoothed, m/s.
    pub achieved: Spring<f32>,
    /// The share of its asked horizontal steps the controller kept lately (smoothed; less than
    /// 1 up a slope, more down one): what the next step asked makes up for.
    pub kept: f32,
    /// Horizontal distance asked of the controller last frame, m.
    pub requested: f32,
    /// Set after moving the body by hand (a teleport): the controller's last output then
    /// describes the old place and is ignored for one frame.
    pub teleported: bool,
    /// The shift a moving platform added to the controller's step last frame (see
    /// [`crate::platforms::ride_platforms`]), m: not the character's own travel.
    pub carried: Vec3,
}

impl Motion {
    /// At rest, facing `yaw`.
    pub fn new(yaw: f32) -> Self {
        Motion {
            speed: Spring::new(0.0),
            yaw,
            vertical: 0.0,
            avatar: None,
            speeds: (WALK_SPEED, JOG_SPEED),
            achieved: Spring::new(0.0),
            kept: 1.0,
            requested: 0.0,
            teleported: false,
            carried: Vec3::ZERO,
        }
    }
}

/// What became of rigging, for the UI.
#[derive(Resource, Clone, Debug, Default, PartialEq)]
pub enum RigStatus {
    /// Waiting for the character to load.
    #[default]
    Loading,
    /// Rigged with this profile.
    Rigged(String),
    /// Could not be rigged: the message names the missing roles.
    Failed(String),
}

/// The right arm's bones, for the reach distance check.
#[derive(Component, Clone, Copy, Debug)]
pub struct ReachArm {
    /// Upper arm (shoulder joint).
    pub shoulder: Entity,
    /// Hand (the chain tip, which carries the `IkFade`).
    pub hand: Entity,
    /// Upper arm + forearm length, m.
    pub reach: f32,
    /// The character's forward in the avatar's (IK root's) frame.
    pub forward: Vec3,
}

/// The avatar: the character's IK root (child of the [`Player`] body).
#[derive(Component, Clone, Copy, Debug)]
pub struct Avatar {
    /// The entity holding the glTF scene.
    pub holder: Entity,
}

/// Set when the character cannot be used; headless runs exit with status 2.
#[derive(Resource, Clone, Debug)]
pub struct CharacterError(pub String);
