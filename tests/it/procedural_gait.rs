//! The bars of issue 45 item 5 for [`ProceduralGait`]: a spider (eight legs of three bones)
//! built in code walks a course of steps, a plateau and a ramp of rapier colliders at 0.5, 1.5
//! and 3 m/s, and turns 360° in place. Per section: a planted foot slides at most 1 cm and sinks
//! at most 1 cm into the ground under it, never more than half the legs are in the air, the body
//! stays above the ground, no leg is stretched past its reach, every `Transform` is finite.

use core::f32::consts::TAU;

use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::common::{DT, headless_app};
use crate::feet::{Physics, Rapier};

/// Body bone height over the creature's entity (and over the ground its feet stand on), m.
const BODY_HEIGHT: f32 = 0.25;
/// Each leg's joints in body space for a leg on the left (+X) at z = 0: hip, knee, ankle, foot.
const LEG: [Vec3; 4] =
    [Vec3::new(0.12, 0.0, 0.0), Vec3::new(0.30, 0.15, 0.0), Vec3::new(0.43, -0.08, 0.0), Vec3::new(0.47, -0.25, 0.0)];

/// The spider's entities.
pub struct Spider {
    pub root: Entity,
    pub body: Entity,
    /// Per leg, hip to foot.
    pub legs: Vec<[Entity; 4]>,
}

/// Spawns a standing spider (facing +Z) with its entity at `at`, feet on y = `at.y`.
pub fn spawn_spider(world: &mut World, at: Vec3) -> Spider {
    let root = world.spawn((Name::new("spider"), Transform::from_translation(at))).id();
    let body = world.spawn((Transform::from_xyz(0.0, BODY_HEIGHT, 0.0), ChildOf(root))).id();
    let mut legs = Vec::new();
    for side in [1.0f32, -1.0] {
        for k in 0..4 {
            let z = 0.3 - 0.2 * k as f32;
            let mirror = Vec3::new(side, 1.0, 1.0);
            let mut parent = body;
            let mut last = Vec3::new(0.0, 0.0, -z);
            let mut joints = [Entity::PLACEHOLDER; 4];
            for (joint, point) in joints.iter_mut().zip(LEG) {
                let point = point * mirror;
                *joint = world.spawn((Transform::from_translation(point - last), ChildOf(parent))).id();
                (parent, last) = (*joint, point);
            }
            legs.push(joints);
        }
    }
    let gait = ProceduralGait::new(body, legs.iter().map(|j| GaitLeg { hip: j[0], foot: j[3] }).collect());
    world.entity_mut(root).insert(gait);
    Spider { root, body, legs }
}

/// Rise of each of the three steps, their tread, where they start (z), where the plateau on
/// top ends and the ramp down's slope.
const RISE: f32 = 0.06;
const TREAD: f32 = 0.5;
const STEPS_AT: f32 = 2.0;
const PLATEAU_END: f32 = 4.5;
const RAMP_DEGREES: f32 = 10.0;

/// The ground's height under `p`: the course as built by [`spawn_course`].
fn course_height(p: Vec3) -> f32 {
    let top = 3.0 * RISE;
    let ramp_end = PLATEAU_END + top / RAMP_DEGREES.to_radians().tan();
    match p.z {
        z if z < STEPS_AT => 0.0,
        z if z < PLATEAU_END => (RISE * (1.0 + ((z - STEPS_AT) / TREAD).floor())).min(top),
        z if z < ramp_end => top - (z - PLATEAU_END) * RAMP_DEGREES.to_radians().tan(),
        _ => 0.0,
    }
}

/// A floor at y = 0, three steps up along +Z, a plateau and a 10° ramp back down.
fn spawn_course(world: &mut World) {
    Rapier::spawn_box(world, Vec3::new(3.0, 0.5, 10.0), Transform::from_xyz(0.0, -0.5, 4.0));
    for k in 0..3 {
        let top = RISE * (k + 1) as f32;
        let (start, end) =
            (STEPS_AT + TREAD * k as f32, if k == 2 { PLATEAU_END } else { STEPS_AT + TREAD * (k + 1) as f32 });
        let half = Vec3::new(3.0, 0.5 * top, 0.5 * (end - start));
        Rapier::spawn_box(world, half, Transform::from_xyz(0.0, 0.5 * top, 0.5 * (start + end)));
    }
    let angle = RAMP_DEGREES.to_radians();
    let length = 3.0 * RISE / angle.sin();
    let tilt = Quat::from_rotation_x(angle);
    let top_middle = Vec3::new(0.0, 1.5 * RISE, PLATEAU_END + 0.5 * length * angle.cos());
    let centre = top_middle - tilt * Vec3::Y * 0.05;
    Rapier::spawn_box(
        world,
        Vec3::new(3.0, 0.05, 0.5 * length),
        Transform::from_translation(centre).with_rotation(tilt),
    );
}

/// What one section measured.
#[derive(Debug)]
struct Figures {
    /// Largest move of a planted foot between two frames, m.
    slide: f32,
    /// Deepest a planted foot went below the ground under it, m.
    penetration: f32,
    /// Highest a planted foot stood above the ground under it, m.
    float: f32,
    /// Most legs in the air at once.
    in_air: u32,
    /// Least height of the body bone over the ground under it, m.
    clearance: f32,
    /// Largest hip–foot distance over the leg's reach.
    reach: f32,
    /// Steps taken (lift-offs), all legs.
    steps: usize,
    /// Every `Transform` finite on every frame.
    finite: bool,
}

impl Figures {
    fn print(&self, section: &str) {
        println!(
            "{section:>16}: slide {:5.1} mm, penetration {:5.1} mm, float {:5.1} mm, in air ≤ {}, body clearance {:.3} m, \
             reach ≤ {:.3}, {} steps, finite {}",
            self.slide * 1e3,
            self.penetration * 1e3,
            self.float * 1e3,
            self.in_air,
            self.clearance,
            self.reach,
            self.steps,
            self.finite,
        );
    }

    fn assert_bars(&self, section: &str) {
        assert!(self.finite, "{section}: a Transform went non-finite");
        assert!(self.slide <= 0.01, "{section}: a planted foot slid {} m", self.slide);
        assert!(self.penetration <= 0.01, "{section}: a planted foot sank {} m into the ground", self.penetration);
        assert!(self.in_air <= 4, "{section}: {} of 8 legs in the air", self.in_air);
        assert!(self.clearance > 0.0, "{section}: the body went {} m below the ground", -self.clearance);
        assert!(self.reach <= 1.0 + 1e-3, "{section}: a leg stretched to {} of its reach", self.reach);
        assert!(self.steps >= 8, "{section}: only {} steps", self.steps);
    }
}

/// Runs `frames` frames, the creature's entity put where `drive(frame)` says (position,
/// heading), and measures them.
fn run(app: &mut App, spider: &Spider, frames: usize, drive: impl Fn(usize) -> (Vec3, f32)) -> Figures {
    let reach: f32 = LEG.windows(2).map(|w| w[0].distance(w[1])).sum();
    let mut figures = Figures {
        slide: 0.0,
        penetration: 0.0,
        float: 0.0,
        in_air: 0,
        clearance: f32::INFINITY,
        reach: 0.0,
        steps: 0,
        finite: true,
    };
    let mut last: Vec<(bool, Vec3)> = Vec::new();
    for frame in 0..frames {
        let (at, yaw) = drive(frame);
        app.world_mut()
            .entity_mut(spider.root)
            .insert(Transform::from_translation(at).with_rotation(Quat::from_rotation_y(yaw)));
        app.update();
        let world = app.world();
        let state = world.get::<ProceduralGaitState>(spider.root).unwrap();
        let position = |e: Entity| world.get::<GlobalTransform>(e).unwrap().translation();
        figures.in_air = figures.in_air.max(state.in_air);
        let body = position(spider.body);
        figures.clearance = figures.clearance.min(body.y - course_height(body));
        let mut now = Vec::new();
        for (leg, foot) in spider.legs.iter().zip(state.feet()) {
            let (hip, at) = (position(leg[0]), position(leg[3]));
            figures.reach = figures.reach.max(hip.distance(at) / reach);
            if foot.planted {
                figures.penetration = figures.penetration.max(course_height(at) - at.y);
                figures.float = figures.float.max(at.y - course_height(at));
            }
            now.push((foot.planted, at));
        }
        for ((was, before), (is, at)) in last.iter().zip(&now) {
            if *was && *is {
                figures.slide = figures.slide.max(before.distance(*at));
            }
            figures.steps += usize::from(*was && !*is);
        }
        let bones = core::iter::once(spider.body).chain(spider.legs.iter().flatten().copied());
        figures.finite &= bones.into_iter().all(|e| world.get::<Transform>(e).unwrap().is_finite());
        last = now;
    }
    figures
}

/// An app with the course and a spider standing at `at`, settled for half a second.
fn course_with_spider(at: Vec3) -> (App, Spider) {
    let mut app = headless_app();
    Rapier::add_to(&mut app);
    spawn_course(app.world_mut());
    let spider = spawn_spider(app.world_mut(), at);
    for _ in 0..30 {
        app.update();
    }
    (app, spider)
}

#[test]
fn a_spider_walks_steps_and_a_ramp_at_three_speeds_and_turns_in_place() {
    let start = Vec3::new(0.0, 0.0, -1.0);
    for speed in [0.5, 1.5, 3.0] {
        let (mut app, spider) = course_with_spider(start);
        let frames = (8.0 / speed / DT).round() as usize;
        let figures = run(&mut app, &spider, frames, |f| (start + Vec3::Z * speed * DT * (f + 1) as f32, 0.0));
        let section = format!("walk {speed} m/s");
        figures.print(&section);
        figures.assert_bars(&section);
        let z = app.world().get::<GlobalTransform>(spider.body).unwrap().translation().z;
        assert!(z > 6.5, "{section}: the spider crossed the course (body at z = {z})");
    }
    let (mut app, spider) = course_with_spider(Vec3::ZERO);
    let rate = 1.5;
    let frames = (TAU / rate / DT).round() as usize;
    let figures = run(&mut app, &spider, frames, |f| (Vec3::ZERO, rate * DT * (f + 1) as f32));
    figures.print("turn 360°");
    figures.assert_bars("turn 360°");
}
