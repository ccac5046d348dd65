//! # ik_bench
//!
//! How many characters can a game afford? A headless Bevy benchmark of bevy_ik on N identical,
//! animated bipeds, against a memory-bound floor and against bevy_mod_inverse_kinematics 0.12
//! on the same legs and targets. The harness is `benches/ecs.rs`; results and the command to
//! reproduce them are in this crate's README.
//!
//! - [`rig`]: the 18-bone character, its procedural walk and its full IK set-up.
//! - [`floor`]: the floor systems (touch each bone once).
//! - [`scenario`]: one app per scenario, the timed window, the error measurement.
//! - [`spider`]: the eight-legged creature of the procedural-gait rows.
//! - [`lod`]: the level-of-detail and crowd scenarios' set-up and figures.

pub mod floor;
pub mod lod;
pub mod rig;
pub mod scenario;
pub mod spider;
