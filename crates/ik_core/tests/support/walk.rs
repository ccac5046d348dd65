//! A synthetic in-place walk's toe for the contact and foot-locking tests.
#![allow(dead_code)]

use core::f32::consts::{PI, TAU};

use ik_core::glam::Vec3;

/// Clip speed (m/s), cycle length (s) and stance fraction of the synthetic walk.
pub const SPEED: f32 = 1.4;
pub const CYCLE: f32 = 1.1;
pub const STANCE: f32 = 0.6;
/// Height of the toe joint above the floor when planted, and its lift mid-swing.
pub const PLANTED: f32 = 0.02;
pub const LIFT: f32 = 0.12;

/// Toe position of an in-place walk clip at phase `p` in [0, 1): during stance the toe slides
/// backward at the clip speed; during swing it swings forward with a velocity that matches the
/// stance speed at both ends (so the world toe is still at touchdown and lift-off).
pub fn clip_toe(p: f32, side: f32) -> Vec3 {
    let travel = SPEED * STANCE * CYCLE;
    let swing_time = (1.0 - STANCE) * CYCLE;
    if p < STANCE {
        Vec3::new(side * 0.1, PLANTED, travel / 2.0 - SPEED * p * CYCLE)
    } else {
        let s = (p - STANCE) / (1.0 - STANCE);
        let z = -travel / 2.0 - SPEED * swing_time * s + (travel + SPEED * swing_time) * (s - (TAU * s).sin() / TAU);
        Vec3::new(side * 0.1, PLANTED + LIFT * (PI * s).sin().powi(2), z)
    }
}
