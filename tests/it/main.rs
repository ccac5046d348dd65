//! Integration tests: headless Bevy apps (no window, no renderer), all in one test binary so
//! Bevy is linked once.

mod bind_pose;
mod chain;
mod common;
mod components;
mod conventions;
mod corpus;
mod creature;
mod demo_at;
mod demo_characters;
mod facing;
mod feet;
mod feet_avian;
mod frame_rate;
mod lifecycle;
mod lod;
mod look_at;
mod mannequin;
mod platforms;
mod procedural_gait;
mod retarget;
mod rig;
mod robustness;
mod root_motion;
mod stairs;
mod warping;
