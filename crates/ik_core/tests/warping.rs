//! Pose warping on the procedural walk (authored at 1.4 m/s, in place): the character moves at
//! other speeds and in other directions, and the planted balls must stay still in the world.
//!
//! Method: the test biped plays `GaitParams::walk()` in place; the character travels at a
//! constant velocity (facing +Z all along) and [`PoseWarp`] warps every frame. The clip plays
//! at the report's `play_rate` (the part of the speed match past the stride scale's range).
//! Slide: the largest horizontal drift of a ball from where its contact started, in the world
//! (character position + model-space ball), over three cycles after a 0.5 s warm-up. Also
//! measured: the leg extension (hip–ankle ÷ thigh + shin), the largest local rotation change
//! of any bone between frames (against the clip's own, warping off), the chest's turn away from
//! the clip's facing. Bars (issue): slide ≤ 1.5 cm, legs within reach, no joint jump > 10°
//! beyond the clip's own, chest within 5°.

mod common;

use common::*;
use glam::{Quat, Vec3};
use ik_core::gait::GaitParams;
use ik_core::warping::{PoseWarp, WarpMotion, WarpReport, WarpSettings, WarpState};
use ik_core::{Skeleton, Xform};

const FPS: f32 = 60.0;
const WARM_UP: f32 = 0.5;

#[derive(Debug, Default)]
struct Figures {
    slide: f32,
    contacts: usize,
    extension: f32,
    jump_degrees: f32,
    chest_degrees: f32,
    last: WarpReport,
    drop: f32,
}

fn job<'a>(skel: &'a Skeleton, legs: &'a [ik_core::leg::LegChain], settings: WarpSettings) -> PoseWarp<'a> {
    PoseWarp { parents: skel.parents(), pelvis: PELVIS, legs, spine: &[(SPINE, 1.0)], settings }
}

/// Walks at `velocity` (model space) for three cycles with warping `on` or off.
fn walk(velocity: Vec3, on: bool) -> Figures {
    let skel = biped();
    let legs = [LEFT, RIGHT];
    let params = GaitParams::walk();
    let off = WarpSettings { stride_weight: 0.0, orientation_weight: 0.0, ..WarpSettings::default() };
    let warp = job(&skel, &legs, if on { WarpSettings::default() } else { off });
    let motion = WarpMotion::new(velocity, params.speed);
    // The play rate the job asks for (constant at a constant velocity); warping off plays at 1.
    let rate = if on {
        let (mut l, mut m) = (skel.rest().to_vec(), skel.rest_model());
        warp.run(&mut l, &mut m, &motion, 1.0 / FPS, &mut WarpState::default()).unwrap().play_rate
    } else {
        1.0
    };
    let frames = ((WARM_UP + 3.0 * params.cycle_duration / rate) * FPS) as usize;
    // Clip frames at clip time k·rate/FPS: the clip sampled at FPS / rate.
    let (clip, contacts) = gait_clip(&skel, &params, frames, FPS / rate, 0.0);
    let mut state = WarpState::default();
    let mut figures = Figures::default();
    let mut start: [Option<Vec3>; 2] = [None, None];
    let mut previous: Option<Vec<Xform>> = None;
    for (k, frame) in clip.chunks_exact(skel.len()).enumerate() {
        let mut locals = frame.to_vec();
        let mut model = model_of(&skel, &locals);
        let report = warp.run(&mut locals, &mut model, &motion, 1.0 / FPS, &mut state).unwrap();
        let time = k as f32 / FPS;
        let at = velocity * time;
        if time >= WARM_UP {
            figures.last = report;
            figures.drop = figures.drop.min(report.pelvis_drop);
            for (side, leg) in legs.iter().enumerate() {
                let ball = at + model[leg.toe.unwrap()].translation;
                let ball = Vec3::new(ball.x, 0.0, ball.z);
                match (contacts[side][k], start[side]) {
                    (true, None) => start[side] = Some(ball),
                    (true, Some(s)) => figures.slide = figures.slide.max(s.distance(ball)),
                    (false, Some(_)) => {
                        start[side] = None;
                        figures.contacts += 1;
                    }
                    _ => {}
                }
                let hip_ankle = model[leg.hip].translation.distance(model[leg.ankle].translation);
                figures.extension = figures.extension.max(hip_ankle / leg_reach());
            }
            let chest = model[SPINE].rotation * Vec3::Z;
            figures.chest_degrees =
                figures.chest_degrees.max(Vec3::new(chest.x, 0.0, chest.z).angle_between(Vec3::Z).to_degrees());
            if let Some(previous) = &previous {
                for (a, b) in previous.iter().zip(&locals) {
                    figures.jump_degrees = figures.jump_degrees.max(a.rotation.angle_between(b.rotation).to_degrees());
                }
            }
            previous = Some(locals);
        } else {
            // Contacts under way at the end of the warm-up are not counted.
            start = [None, None];
        }
    }
    figures
}

fn check(name: &str, on: &Figures, off: &Figures) -> Vec<String> {
    println!(
        "{name:>14}: slide {:5.2} cm warping on ({} contacts; off: {:5.2} cm) | scale {:.2} × play rate {:.2}, angle {:6.1}°, pelvis drop {:5.1} cm, leg extension {:.3}, joint jump {:4.1}° (clip {:4.1}°), chest {:4.2}°",
        on.slide * 100.0,
        on.contacts,
        off.slide * 100.0,
        on.last.scale,
        on.last.play_rate,
        on.last.angle.to_degrees(),
        on.drop * 100.0,
        on.extension,
        on.jump_degrees,
        off.jump_degrees,
        on.chest_degrees,
    );
    let mut failures = Vec::new();
    if on.contacts < 4 {
        failures.push(format!("{name}: only {} contacts measured", on.contacts));
    }
    if on.slide > 0.015 {
        failures.push(format!("{name}: slide {:.2} cm > 1.5 cm", on.slide * 100.0));
    }
    if on.extension > 1.0 + 1e-4 {
        failures.push(format!("{name}: a leg stretched to {:.4} of its reach", on.extension));
    }
    // The fixture's clip itself turns a knee ~21° in a frame where the heel lift starts: the
    // bar is on what warping adds.
    if on.jump_degrees > (off.jump_degrees * on.last.play_rate.max(1.0)).max(10.0) + 0.5 {
        failures.push(format!(
            "{name}: a joint turned {:.1}° in one frame (the clip: {:.1}°)",
            on.jump_degrees, off.jump_degrees
        ));
    }
    if on.chest_degrees > 5.0 {
        failures.push(format!("{name}: the chest turned {:.1}° off the facing", on.chest_degrees));
    }
    failures
}

#[test]
fn stride_warping_keeps_the_planted_balls_still_at_every_speed() {
    let mut failures = Vec::new();
    for speed in [0.6f32, 0.9, 1.4, 2.0, 2.5] {
        let velocity = Vec3::Z * speed;
        failures.extend(check(&format!("{speed} m/s"), &walk(velocity, true), &walk(velocity, false)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn orientation_warping_walks_any_direction_with_the_chest_facing_ahead() {
    let mut failures = Vec::new();
    for degrees in [-90.0f32, -45.0, 0.0, 45.0, 90.0] {
        let velocity = Quat::from_rotation_y(degrees.to_radians()) * Vec3::Z * 1.4;
        failures.extend(check(&format!("{degrees}° at 1.4"), &walk(velocity, true), &walk(velocity, false)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
