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
fn walk(
    legs: &[CreatureLeg],
    speed: f32,
    yaw_rate: f32,
    seconds: f32,
    ground: &mut impl FnMut(Vec3) -> Option<f32>,
) -> Figures {
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

#[test]
fn groups_are_diagonal_pairs_tripods_and_alternate() {
    // Legs listed left side front to back, then right side front to back.
    let groups = |legs: Vec<CreatureLeg>| {
        let gait = CreatureGait::new(&legs);
        (0..legs.len()).map(|i| gait.group(i).unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(groups(quadruped()), [0, 1, 1, 0], "left front with right back");
    assert_eq!(groups(hexapod()), [0, 1, 0, 1, 0, 1], "left front, left back and right middle");
    assert_eq!(groups(spider()), [0, 1, 0, 1, 1, 0, 1, 0]);
    assert_eq!(CreatureGait::new(&quadruped()).group(4), None);
}

#[test]
fn a_landing_on_an_edge_moves_off_it() {
    let settings = CreatureGaitSettings::default();
    // A 20 cm riser across z = 1.01, right under the predicted landing at z = 1.
    let mut riser = |p: Vec3| Some(if p.z > 1.01 { 0.2 } else { 0.0 });
    let (predicted, hip) = (Vec3::new(0.0, 0.0, 1.0), Vec3::new(0.0, 0.3, 0.9));
    let landing = landing::choose(predicted, hip, 0.6, &settings, &mut riser);
    let margin = (landing.point.z - 1.01).abs();
    eprintln!(
        "landing on a riser: moved {:.1} mm, {:.1} mm off the edge",
        landing.point.distance(predicted) * 1e3,
        margin * 1e3
    );
    assert!(margin >= 0.9 * settings.foot_radius, "{landing:?}");
    let level = if landing.point.z > 1.01 { 0.2 } else { 0.0 };
    assert_eq!(landing.point.y, level, "on the ground where it landed");
    assert!(landing.point.distance(predicted) <= settings.search_step * settings.search_rings as f32 + 1e-5);
    // A slanted edge is found as well: the riser along x = z.
    let mut slanted = |p: Vec3| Some(if p.z - p.x > 0.01 { 0.2 } else { 0.0 });
    let landing = landing::choose(Vec3::ZERO, Vec3::new(0.0, 0.3, 0.0), 0.6, &settings, &mut slanted);
    let margin = (landing.point.z - landing.point.x - 0.01).abs() / 2f32.sqrt();
    assert!(margin >= 0.9 * settings.foot_radius, "{landing:?}, {margin}");
}

#[test]
fn a_creature_standing_still_keeps_its_feet_and_its_height() {
    for (name, legs) in creatures() {
        let figures = walk(&legs, 0.0, 0.0, 2.0, &mut kerbs);
        eprintln!("{name} standing: {} landings, slide {:.2} mm", figures.landings.len(), figures.slide * 1e3);
        assert!(figures.landings.is_empty() && figures.slide == 0.0, "{name}: {figures:?}");
    }
}

#[test]
fn the_body_tilts_with_a_ramp_and_clears_a_ridge_under_it() {
    let settings = CreatureGaitSettings::default();
    // A 1:5 ramp up +Z, with a 42 cm ridge along it between the feet (|x| < 0.08).
    let mut ground = |p: Vec3| Some(0.2 * p.z + if p.x.abs() < 0.08 { 0.42 } else { 0.0 });
    let legs = quadruped();
    let mut gait = CreatureGait::new(&legs);
    let mut body = CreatureBody { velocity: Vec3::Z, ..Default::default() };
    let mut pose = CreatureBodyPose::default();
    for _ in 0..180 {
        body.position += body.velocity * DT;
        pose = gait.update(&settings, body, &mut ground, DT);
        body.position.y = pose.position.y;
        let over = pose.position.y - ground(pose.position).unwrap();
        assert!(over >= settings.min_clearance - 1e-4, "the body {over} m over the ridge");
    }
    let pitch = (pose.rotation * Vec3::Y).angle_between(Vec3::Y);
    let expected = 0.2f32.atan();
    eprintln!("on a 1:5 ramp the body pitches {:.1}° ({:.1}° expected)", pitch.to_degrees(), expected.to_degrees());
    assert!((pitch - expected).abs() < 0.03, "{pitch}");
    assert!((pose.rotation * Vec3::Z).y > 0.15, "nose up the ramp");
}

#[test]
fn a_body_pushed_out_of_reach_forces_steps_and_keeps_targets_in_reach() {
    let (settings, legs) = (CreatureGaitSettings::default(), spider());
    let mut gait = CreatureGait::new(&legs);
    let mut body = CreatureBody { position: Vec3::new(0.0, 0.25, 0.0), ..Default::default() };
    gait.update(&settings, body, &mut flat, DT);
    // Shoved 40 cm sideways without velocity: no phase, only reach and comfort drive steps.
    for shove in [0.4, 20.0] {
        body.position.x += shove;
        let mut lifted = vec![false; legs.len()];
        for _ in 0..120 {
            let pose = gait.update(&settings, body, &mut flat, DT);
            for ((foot, leg), lifted) in gait.feet().iter().zip(&legs).zip(&mut lifted) {
                let hip = pose.position + pose.rotation * leg.hip;
                assert!(foot.target.distance(hip) <= leg.reach + 1e-4, "shoved {shove} m");
                *lifted |= !foot.planted;
            }
            assert!(gait.feet().iter().filter(|f| !f.planted).count() <= legs.len() / 2);
        }
        let home = |(foot, leg): (&CreatureFoot, &CreatureLeg)| foot.target.distance(body.position + leg.home);
        let worst = gait.feet().iter().zip(&legs).map(home).fold(0.0, f32::max);
        eprintln!("shoved {shove} m: feet back within {:.1} mm of home", worst * 1e3);
        assert!(worst < settings.comfort_radius, "{worst}");
        if shove < 1.0 {
            assert!(lifted.iter().all(|&l| l), "every leg stepped after the shove");
        }
    }
}

#[test]
fn planted_feet_ride_a_moving_platform_and_swinging_feet_keep_their_landing() {
    // A spider walking 1 m/s forward on a platform that drifts 0.6 m/s sideways and turns
    // 0.4 rad/s: each planted foot is carried by the platform's step, so in the platform's
    // frame it does not move while planted; the body moves with the platform and its own walk.
    let (settings, legs) = (CreatureGaitSettings::default(), spider());
    let mut gait = CreatureGait::new(&legs);
    let (drift, spin) = (Vec3::new(0.6, 0.0, 0.0), 0.4);
    let platform_at = |t: f32| Xform::from_translation_rotation(drift * t, Quat::from_rotation_y(spin * t));
    let (mut slide, mut steps, mut last) = (0.0f32, 0, Vec::<(bool, Vec3)>::new());
    let mut walked = Vec3::new(0.0, 0.25, 0.0);
    for frame in 0..240 {
        let (t0, t1) = (frame as f32 * DT, (frame + 1) as f32 * DT);
        let step = platform_at(t1).mul_xform(&platform_at(t0).inverse());
        for leg in 0..legs.len() {
            gait.carry(leg, step);
        }
        walked += Vec3::Z * DT;
        let (here, rotation) = (platform_at(t1).transform_point(walked), Quat::from_rotation_y(spin * t1));
        let velocity = (here - platform_at(t0).transform_point(walked - Vec3::Z * DT)) / DT;
        let body = CreatureBody { position: here, rotation, velocity, yaw_rate: spin };
        gait.update(&settings, body, &mut flat, DT);
        let on_platform: Vec<(bool, Vec3)> =
            gait.feet().iter().map(|f| (f.planted, platform_at(t1).inverse_transform_point(f.target))).collect();
        for ((was, before), (is, now)) in last.iter().zip(&on_platform) {
            if *was && *is {
                slide = slide.max(before.distance(*now));
            }
            steps += usize::from(*was && !*is);
        }
        last = on_platform;
    }
    assert!(slide < 1e-4, "a planted foot slid {slide} m over the platform");
    assert!(steps >= legs.len(), "only {steps} steps");
    // Carrying a foot in the air changes nothing; a non-finite step neither.
    let swinging = gait.feet().iter().position(|f| !f.planted).unwrap_or(0);
    let before = gait.clone();
    gait.carry(legs.len(), Xform::from_translation(Vec3::X));
    gait.carry(0, Xform::from_translation(Vec3::NAN));
    if !gait.feet()[swinging].planted {
        gait.carry(swinging, Xform::from_translation(Vec3::X));
    }
    assert_eq!(gait, before);
}

#[test]
fn bad_input_never_gives_nan_and_no_time_changes_nothing() {
    let settings = CreatureGaitSettings::default();
    let mut gait = CreatureGait::new(&hexapod());
    let body = CreatureBody { position: Vec3::new(1.0, 0.3, 2.0), velocity: Vec3::Z, ..Default::default() };
    let pose = gait.update(&settings, body, &mut flat, DT);
    let before = gait.clone();
    for dt in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert_eq!(gait.update(&settings, body, &mut flat, dt), pose);
        assert_eq!(gait, before, "dt {dt} changed the state");
    }
    let nan = Vec3::splat(f32::NAN);
    let odd = [
        CreatureBody {
            position: nan,
            rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            velocity: nan,
            yaw_rate: f32::NAN,
        },
        CreatureBody {
            position: Vec3::splat(1e30),
            rotation: Quat::from_xyzw(1e30, 0.0, 0.0, 1.0),
            velocity: Vec3::splat(1e30),
            yaw_rate: 1e30,
        },
        CreatureBody { velocity: Vec3::splat(f32::INFINITY), yaw_rate: -f32::INFINITY, ..body },
    ];
    let mut grounds: [&mut dyn FnMut(Vec3) -> Option<f32>; 3] =
        [&mut |_| Some(f32::NAN), &mut |_| None, &mut |p| Some(p.x * 1e20)];
    for body in odd {
        for ground in &mut grounds {
            for dt in [DT, 1e-9, 5.0] {
                let pose = gait.update(&settings, body, ground, dt);
                assert!(pose.position.is_finite() && pose.rotation.is_finite() && pose.rotation.is_normalized());
                assert!(
                    gait.feet().iter().all(|f| f.target.is_finite() && f.normal.is_finite() && f.swing.is_finite())
                );
            }
        }
    }
    // No legs, and one leg, are creatures too.
    for legs in [vec![], vec![quadruped()[0]]] {
        let mut gait = CreatureGait::new(&legs);
        for _ in 0..60 {
            let pose = gait.update(&settings, body, &mut flat, DT);
            assert!(pose.position.is_finite() && pose.position.y >= settings.min_clearance - 1e-6);
        }
    }
}

/// A random height field: 8 × 8 cells of 0.4 m, each a height in ±0.3 m (edges between them).
fn height_field() -> impl Strategy<Value = Vec<f32>> {
    proptest::collection::vec(-0.3f32..0.3, 64)
}

/// One frame of random input: velocity (x, z), yaw rate, dt.
fn frame() -> impl Strategy<Value = (f32, f32, f32, f32)> {
    (-4.0f32..4.0, -4.0f32..4.0, -4.0f32..4.0, prop_oneof![Just(DT), -0.05f32..0.2])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_terrain_and_motion_stay_finite_and_in_reach(
        heights in height_field(),
        frames in proptest::collection::vec(frame(), 1..90),
        kind in 0usize..3,
    ) {
        let legs = [spider(), hexapod(), quadruped()][kind].clone();
        let settings = CreatureGaitSettings::default();
        let mut ground = |p: Vec3| {
            let cell = |v: f32| ((v / 0.4).floor() as i64).rem_euclid(8) as usize;
            Some(heights[cell(p.x) * 8 + cell(p.z)])
        };
        let mut gait = CreatureGait::new(&legs);
        let (mut position, mut yaw, mut ran) = (Vec3::new(0.0, 0.5, 0.0), 0.0f32, false);
        for (vx, vz, yaw_rate, dt) in frames {
            let velocity = Vec3::new(vx, 0.0, vz);
            if dt > 0.0 {
                position += velocity * dt;
                yaw += yaw_rate * dt;
            }
            let body = CreatureBody { position, rotation: Quat::from_rotation_y(yaw), velocity, yaw_rate };
            let pose = gait.update(&settings, body, &mut ground, dt);
            prop_assert!(pose.position.is_finite() && pose.rotation.is_finite());
            ran |= dt > 0.0;
            if !ran {
                continue; // Nothing suggested yet.
            }
            position.y = pose.position.y;
            prop_assert!(pose.position.y - ground(pose.position).unwrap() >= settings.min_clearance - 1e-4);
            prop_assert!(gait.feet().iter().filter(|f| !f.planted).count() <= legs.len() / 2);
            for (foot, leg) in gait.feet().iter().zip(&legs) {
                prop_assert!(foot.target.is_finite() && foot.normal.is_finite() && (0.0..=1.0).contains(&foot.swing));
                let hip = pose.position + pose.rotation * leg.hip;
                prop_assert!(foot.target.distance(hip) <= leg.reach * (1.0 + 1e-4), "{} > {}", foot.target.distance(hip), leg.reach);
            }
        }
    }
}
