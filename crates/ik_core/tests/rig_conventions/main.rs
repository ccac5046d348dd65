//! `rig_humanoid` on one synthetic 1.8 m humanoid, named in every supported convention, with
//! arbitrary names, shuffled, scaled, turned Z-up or to face −Z, and without toes. Each case
//! asserts the exact role → bone mapping (left is the character's left), the up and forward
//! directions within 1° and the height within 1 %.
//!
//! The skeletons are in `skeletons.rs`, the naming conventions in `namers.rs`, building and
//! checking a rig in `harness.rs`; the tests are grouped by what rigs the skeleton: names,
//! shape, IK-control rigs, and maps and errors.

mod harness;
mod namers;
mod skeletons;

mod control_rigs;
mod maps_and_errors;
mod names;
mod partial_rigs;
mod shape;

use harness::*;
use ik_core::glam::{Quat, Vec3};
use ik_core::rig::{ForwardSource, HumanoidRig, RigError, RigProfile, SkeletonBone, rig_humanoid};
use namers::*;
use skeletons::*;
