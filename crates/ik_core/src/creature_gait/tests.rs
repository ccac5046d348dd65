//! The bars of issue 45 (items 3 and 4) for [`CreatureGait`]: spiders, hexapods and quadrupeds
//! walking at 0.5, 1.5 and 3 m/s and turning in place on flat ground and over kerbs, landings
//! off edges, and random terrain and input.

use core::f32::consts::TAU;

use glam::{Quat, Vec3};
use proptest::prelude::*;

use super::*;

const DT: f32 = 1.0 / 60.0;

/// A creature with `per_side` legs on each side, hips spread over `length` along the body,
/// `width` out from its middle; feet rest `spread` outside the hips, `height` below them.
fn creature(per_side: usize, length: f32, width: f32, spread: f32, height: f32, reach: f32) -> Vec<CreatureLeg> {
    let mut legs = Vec::new();
    for side in [1.0, -1.0] {
        for k in 0..per_side {
            let z = length * (0.5 - k as f32 / (per_side - 1) as f32);
            let hip = Vec3::new(side * width, 0.0, z);
            legs.push(CreatureLeg { hip, home: Vec3::new(side * (width + spread), -height, z), reach });
        }
    }
    legs
}

fn spider() -> Vec<CreatureLeg> {
    creature(4, 0.6, 0.12, 0.35, 0.25, 0.65)
}

fn hexapod() -> Vec<CreatureLeg> {
    creature(3, 0.7, 0.15, 0.3, 0.3, 0.6)
}

fn quadruped() -> Vec<CreatureLeg> {
    creature(2, 0.7, 0.15, 0.1, 0.4, 0.55)
}

/// Flat ground at y = 0.
fn flat(_: Vec3) -> Option<f32> {
    Some(0.0)
}

/// Kerbs: the ground rises 6 cm every 0.9 m of z (either way round) and rolls gently across.
fn kerbs(p: Vec3) -> Option<f32> {
    Some(0.06 * (p.z / 0.9).floor() + 0.03 * (1.5 * p.x).sin())
}

/// What a run measured.
#[derive(Debug, Default)]
struct Figures {
    /// Largest move of a planted foot's target between two frames it stayed planted, m.
    slide: f32,
    /// Most legs in the air at one frame.
    in_air: usize,
    /// Largest foot–hip distance over the leg's reach.
    reach: f32,
    /// Least height of the body's origin over the ground under it, less the clearance, m.
    clearance: f32,
    /// Fewest steps any leg took.
    fewest_steps: usize,
    /// Frames with legs of both groups in the air.
    mixed: usize,
    /// Mean offset of planted feet from their home points along the body's heading, m: about
    /// zero when landings are predicted to the middle of the stance.
    centring: f32,
    /// Where feet touched down.
    landings: Vec<Vec3>,
}

/// Walks `legs` forward at `speed` (m/s) turning at `yaw_rate` (rad/s) for `seconds`.
fn walk(legs: &[CreatureLeg], speed: f32, yaw_rate: f32, seconds: f32, ground: &mut impl FnMut(Vec3) -> Option<f32>) -> Figures {
    let settings = CreatureGaitSettings::default();
    let mut gait = CreatureGait::new(legs);
    let (mut position, mut yaw) = (Vec3::new(0.0, 0.4, 0.0), 0.0f32);
    let mut last: Vec<CreatureFoot> = Vec::new();
    let mut steps = vec![0usize; legs.len()];
    let mut figures = Figures { clearance: f32::INFINITY, ..Default::default() };
    let (mut offset, mut planted) = (0.0f32, 0.0f32);
    for _ in 0..(seconds / DT).round() as usize {
        let velocity = Quat::from_rotation_y(yaw) * Vec3::Z * speed;
        position += velocity * DT;
        yaw += yaw_rate * DT;
        let body = CreatureBody { position, rotation: Quat::from_rotation_y(yaw), velocity, yaw_rate };
        let pose = gait.update(&settings, body, ground, DT);
        position.y = pose.position.y;
        let feet = gait.feet();
        let heading = Quat::from_rotation_y(yaw);
        for (i, (foot, leg)) in feet.iter().zip(legs).enumerate() {
            let hip = pose.position + pose.rotation * leg.hip;
            figures.reach = figures.reach.max(foot.target.distance(hip) / leg.reach);
            if foot.planted {
                offset += (foot.target - (position + heading * leg.home)).dot(heading * Vec3::Z);
                planted += 1.0;
            }
            if let Some(before) = last.get(i) {
                if before.planted && foot.planted {
                    figures.slide = figures.slide.max(foot.target.distance(before.target));
                }
                if !before.planted && foot.planted {
                    figures.landings.push(foot.target);
                }
                steps[i] += usize::from(before.planted && !foot.planted);
            }
        }
        figures.in_air = figures.in_air.max(feet.iter().filter(|f| !f.planted).count());
        let group_in_air = |g: u8| feet.iter().enumerate().any(|(i, f)| !f.planted && gait.group(i) == Some(g));
        figures.mixed += usize::from(group_in_air(0) && group_in_air(1));
        let under = ground(pose.position).unwrap();
        figures.clearance = figures.clearance.min(pose.position.y - under - settings.min_clearance);
        last.clear();
        last.extend_from_slice(feet);
    }
    figures.fewest_steps = steps.iter().copied().min().unwrap_or(0);
    figures.centring = offset / planted.max(1.0);
    figures
}

/// The bars every run must meet.
fn check(name: &str, legs: &[CreatureLeg], figures: &Figures, least_steps: usize) {
    eprintln!(
        "{name}: slide {:.2} mm, at most {} of {} legs in the air ({} frames both groups), reach ratio {:.3}, \
         body {:.1} mm over its clearance, fewest steps {}, planted feet {:+.1} mm from home on average",
        figures.slide * 1e3,
        figures.in_air,
        legs.len(),
        figures.mixed,
        figures.reach,
        figures.clearance * 1e3,
        figures.fewest_steps,
        figures.centring * 1e3,
    );
    assert!(figures.slide <= 0.01, "{name}: a planted foot slid {} m", figures.slide);
    assert!(figures.in_air <= legs.len() / 2, "{name}: {} legs in the air", figures.in_air);
    assert!(figures.reach <= 1.0 + 1e-4, "{name}: a foot {} reaches from its hip", figures.reach);
    assert!(figures.clearance >= -1e-4, "{name}: the body {} m below its clearance", figures.clearance);
    assert!(figures.fewest_steps >= least_steps, "{name}: a leg stepped {} times", figures.fewest_steps);
    assert_eq!(figures.mixed, 0, "{name}: legs of both groups in the air at once");
}

fn creatures() -> [(&'static str, Vec<CreatureLeg>); 3] {
    [("spider", spider()), ("hexapod", hexapod()), ("quadruped", quadruped())]
}

#[test]
fn creatures_walk_on_flat_ground_at_any_speed() {
    for (name, legs) in creatures() {
        for speed in [0.5, 1.5, 3.0] {
            let figures = walk(&legs, speed, 0.0, 4.0, &mut flat);
            // At least one step per 0.8 m stride (the longest) travelled, less the first.
            check(&format!("{name} at {speed} m/s, flat"), &legs, &figures, (speed * 4.0 / 0.8) as usize - 1);
            assert!(figures.centring.abs() < 0.03, "{name} at {speed} m/s: feet {} m off home", figures.centring);
        }
    }
}

#[test]
fn creatures_walk_over_kerbs_at_any_speed() {
    for (name, legs) in creatures() {
        for speed in [0.5, 1.5, 3.0] {
            let figures = walk(&legs, speed, 0.0, 4.0, &mut kerbs);
            check(&format!("{name} at {speed} m/s, kerbs"), &legs, &figures, (speed * 4.0 / 0.8) as usize - 1);
            // Kerb edges at every 0.9 m of z: no foot lands within its ring (5 cm) of one.
            let off_edge = |p: &Vec3| {
                let along = p.z.rem_euclid(0.9);
                along.min(0.9 - along)
            };
            let nearest = figures.landings.iter().map(off_edge).fold(f32::INFINITY, f32::min);
            eprintln!("  {} landings, the nearest {:.1} mm from a kerb edge", figures.landings.len(), nearest * 1e3);
            assert!(nearest >= 0.045, "{name} at {speed} m/s: a foot landed {nearest} m from an edge");
        }
    }
}

#[test]
fn creatures_turn_in_place() {
    for (name, legs) in creatures() {
        for ground in [flat as fn(Vec3) -> Option<f32>, kerbs] {
            let figures = walk(&legs, 0.0, TAU / 4.0, 4.0, &mut { ground });
            check(&format!("{name} turning 360° in place"), &legs, &figures, 2);
        }
    }
}

#[test]
fn creatures_walk_in_circles() {
    for (name, legs) in creatures() {
        let figures = walk(&legs, 1.0, 1.0, 6.0, &mut kerbs);
        check(&format!("{name} circling at 1 m/s, 1 rad/s"), &legs, &figures, 3);
    }
}
