//! # ik_core
//!
//! Inverse kinematics and procedural locomotion maths on [`glam`], with no engine attached.
//!
//! Every procedure here follows the same shape: plain value inputs (positions, rotations,
//! lengths, weights) go in, plain outputs come out, and no hidden state is kept (where a
//! procedure needs memory between frames, such as warm starts or springs, that state is an
//! explicit value the caller owns). Solvers that modify a pose return **local-space
//! corrections** to multiply onto the animated local rotations (`local' = local · correction`),
//! so IK is a minimal modification of the animated pose rather than a replacement of it.
//!
//! Conventions:
//! - Lengths are in metres, angles in radians, time in seconds; +Y is up.
//! - "Model space" is the space of the skeleton's root (the character); "local space" is a
//!   bone's parent's space.
//! - Bad input never panics and never produces NaN: functions return an [`IkError`] and leave
//!   (or return) the input pose untouched.
//!
//! Modules, one per solver or procedure:
//! - [`skeleton`], [`xform`]: bone hierarchy, forward kinematics, model ↔ local turns.
//! - [`two_bone`]: exact two-bone IK with pole, soft extension, weight and `reached`.
//! - [`fabrik`], [`ccd`], [`limits`]: iterative solvers for longer chains and joint limits.
//! - [`follow`]: follow-the-leader chains (creatures, ropes, trains).
//! - [`spring`]: critically damped springs and `turn_towards`.
//! - [`look_at`]: a look-at spread down a chain of joints.
//! - [`foot_placement`], [`sole`], [`leg`]: feet on uneven ground (probed at ankle, toe, heel
//!   and toe tip); the heel/toe leg chain.
//! - [`foot_lock`], [`contact`], [`clip_feet`]: runtime foot locking, contact labelling and
//!   a clip's feet before labelling (contact points, facing, ground speed, loops).
//! - [`footstep`]: where a swinging foot will land, and a landing fitted to one tread.
//! - [`retarget`]: a clip of one rigged humanoid played by another, feet put back with IK.
//! - `sidecar` (feature `sidecar`): the clip sidecar (`.ik.json`) as serde structs.
//! - [`rig`]: humanoid rig profiles (Unreal, Mixamo, user maps) and their detection.
//! - [`gait`]: a procedural biped walk cycle (clip authoring and tests).
//! - [`creature_gait`]: a procedural gait for any number of legs (spiders, hexapods, quadrupeds).
//! - [`slide_removal`]: offline foot-slide removal over a whole clip.
//! - [`resample`]: a Catmull–Rom spline through a coarse clip's linear keys.
//! - [`warping`]: stride and orientation warping (any speed, any direction, no slide).

#![warn(missing_docs)]

pub mod body_fit;
pub mod ccd;
pub mod chain;
pub mod clip_feet;
pub mod contact;
pub mod creature_gait;
pub mod envelope;
pub mod error;
pub mod fabrik;
pub mod follow;
pub mod foot_lock;
pub mod foot_placement;
pub mod footstep;
pub mod gait;
pub mod leg;
pub mod limits;
pub mod look_at;
pub mod resample;
pub mod retarget;
pub mod rig;
pub mod root_motion;
#[cfg(feature = "sidecar")]
pub mod sidecar;
pub mod skeleton;
pub mod slide_removal;
pub mod sole;
pub mod spring;
pub mod stairs;
pub mod two_bone;
pub mod warping;
pub mod xform;

pub use error::IkError;
pub use glam;
pub use skeleton::{Skeleton, model_turn_to_local_correction, turn_local_by_model_rotation};
pub use two_bone::{TwoBoneJob, TwoBoneSolution, two_bone_positions};
pub use xform::Xform;
