//! The bars of issue 45 item 5 for [`ProceduralGait`]: a spider (eight legs of three bones)
//! built in code walks a course of steps, a plateau and a ramp of rapier colliders at 0.5, 1.5
//! and 3 m/s, and turns 360° in place; a hexapod and a quadruped of two-bone legs walk the
//! course too. Per part of the course (flat, steps up, plateau, ramp down, flat again) and per
//! speed, printed and checked: a planted foot slides at most 1 cm and sinks at most 1 cm into
//! the ground under it, never more than half the legs are in the air, the body stays above the
//! ground, no leg is stretched past its reach, every `Transform` is finite. Bad input (a leg
//! outside the body, a NaN creature) warns once and moves nothing.

use core::f32::consts::TAU;

use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::common::{DT, headless_app};
use crate::feet::{Physics, Rapier};

/// A creature's shape: legs per side, spread over `length` along the body, the body bone's
/// height over the feet, and one leg's joints (hip … foot) in body space, on the left (+X).
struct Shape {
    per_side: usize,
    length: f32,
    height: f32,
    leg: &'static [Vec3],
}

/// Eight legs of three bones.
const SPIDER: Shape = Shape {
    per_side: 4,
    length: 0.6,
    height: 0.25,
    leg: &[
        Vec3::new(0.12, 0.0, 0.0),
        Vec3::new(0.30, 0.15, 0.0),
        Vec3::new(0.43, -0.08, 0.0),
        Vec3::new(0.47, -0.25, 0.0),
    ],
};

/// Six legs of three bones.
const HEXAPOD: Shape = Shape {
    per_side: 3,
    length: 0.7,
    height: 0.3,
    leg: &[
        Vec3::new(0.16, 0.0, 0.0),
        Vec3::new(0.34, 0.12, 0.0),
        Vec3::new(0.48, -0.1, 0.0),
        Vec3::new(0.5, -0.3, 0.0),
    ],
};

/// Four legs of two bones (hip, knee bent up and out, foot): the two-bone solver and its pole.
const QUADRUPED: Shape = Shape {
    per_side: 2,
    length: 0.7,
    height: 0.3,
    leg: &[Vec3::new(0.12, 0.0, 0.0), Vec3::new(0.3, 0.05, 0.0), Vec3::new(0.35, -0.3, 0.0)],
};

impl Shape {
    /// The sum of a leg's bones' lengths.
    fn reach(&self) -> f32 {
        self.leg.windows(2).map(|w| w[0].distance(w[1])).sum()
    }
}

/// A creature's entities.
pub struct Creature {
    pub root: Entity,
    pub body: Entity,
    /// Per leg, hip to foot.
    pub legs: Vec<Vec<Entity>>,
}

/// Spawns a standing creature (facing +Z) with its entity at `at`, feet on y = `at.y`.
fn spawn_creature(world: &mut World, at: Vec3, shape: &Shape) -> Creature {
    let root = world.spawn((Name::new("creature"), Transform::from_translation(at))).id();
    let body = world.spawn((Transform::from_xyz(0.0, shape.height, 0.0), ChildOf(root))).id();
    let mut legs = Vec::new();
    for side in [1.0f32, -1.0] {
        for k in 0..shape.per_side {
            let z = shape.length * (0.5 - k as f32 / (shape.per_side - 1) as f32);
            let (mut parent, mut last) = (body, Vec3::ZERO);
            let mut joints = Vec::new();
            for point in shape.leg {
                let point = *point * Vec3::new(side, 1.0, 1.0) + Vec3::Z * z;
                joints.push(world.spawn((Transform::from_translation(point - last), ChildOf(parent))).id());
                (parent, last) = (joints[joints.len() - 1], point);
            }
            legs.push(joints);
        }
    }
    let gait = ProceduralGait::new(body, legs.iter().map(|j| GaitLeg { hip: j[0], foot: j[j.len() - 1] }).collect());
    world.entity_mut(root).insert(gait);
    Creature { root, body, legs }
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
    /// Legs of the creature.
    legs: u32,
    /// Least height of a leg's first joint below the hip (its knee) over the straight line
    /// from hip to foot, m: positive while every knee bends up, as built.
    knee_lift: f32,
}

impl Figures {
    fn print(&self, section: &str) {
        println!(
            "{section:>16}: slide {:5.1} mm, penetration {:5.1} mm, float {:5.1} mm, in air ≤ {}, body clearance {:.3} m, \
             reach ≤ {:.3}, knees ≥ {:.3} m over the hip–foot line, {} steps, finite {}",
            self.slide * 1e3,
            self.penetration * 1e3,
            self.float * 1e3,
            self.in_air,
            self.clearance,
            self.reach,
            self.knee_lift,
            self.steps,
            self.finite,
        );
    }

    fn assert_bars(&self, section: &str) {
        assert!(self.finite, "{section}: a Transform went non-finite");
        assert!(self.slide <= 0.01, "{section}: a planted foot slid {} m", self.slide);
        assert!(self.penetration <= 0.01, "{section}: a planted foot sank {} m into the ground", self.penetration);
        assert!(self.in_air <= self.legs / 2, "{section}: {} of {} legs in the air", self.in_air, self.legs);
        assert!(self.clearance > 0.0, "{section}: the body went {} m below the ground", -self.clearance);
        assert!(self.reach <= 1.0 + 1e-3, "{section}: a leg stretched to {} of its reach", self.reach);
        assert!(self.knee_lift > 0.0, "{section}: a knee bent down ({} m under the hip–foot line)", -self.knee_lift);
        assert!(self.steps >= self.legs as usize, "{section}: only {} steps", self.steps);
    }
}

impl Figures {
    /// Nothing measured yet, for a creature of `legs` legs.
    fn new(legs: usize) -> Figures {
        Figures {
            slide: 0.0,
            penetration: 0.0,
            float: 0.0,
            in_air: 0,
            clearance: f32::INFINITY,
            reach: 0.0,
            steps: 0,
            finite: true,
            legs: legs as u32,
            knee_lift: f32::INFINITY,
        }
    }
}

/// Runs `frames` frames, the creature's entity put where `drive(frame)` says (position,
/// heading), and measures each frame into the part of `parts` that `part_of` gives for the
/// body bone's position.
fn run(
    app: &mut App,
    (creature, shape): (&Creature, &Shape),
    (frames, drive): (usize, impl Fn(usize) -> (Vec3, f32)),
    parts: &mut [Figures],
    part_of: impl Fn(Vec3) -> usize,
) {
    let reach = shape.reach();
    let mut last: Vec<(bool, Vec3)> = Vec::new();
    for frame in 0..frames {
        let (at, yaw) = drive(frame);
        let place = Transform::from_translation(at).with_rotation(Quat::from_rotation_y(yaw));
        app.world_mut().entity_mut(creature.root).insert(place);
        app.update();
        let world = app.world();
        let state = world.get::<ProceduralGaitState>(creature.root).unwrap();
        let position = |e: Entity| world.get::<GlobalTransform>(e).unwrap().translation();
        let body = position(creature.body);
        let figures = &mut parts[part_of(body)];
        figures.in_air = figures.in_air.max(state.in_air);
        figures.clearance = figures.clearance.min(body.y - course_height(body));
        let mut now = Vec::new();
        for (leg, foot) in creature.legs.iter().zip(state.feet()) {
            let (hip, knee, at) = (position(leg[0]), position(leg[1]), position(leg[leg.len() - 1]));
            figures.reach = figures.reach.max(hip.distance(at) / reach);
            let along = ((knee - hip).dot(at - hip) / (at - hip).length_squared()).clamp(0.0, 1.0);
            figures.knee_lift = figures.knee_lift.min(knee.y - hip.lerp(at, along).y);
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
        let bones = core::iter::once(creature.body).chain(creature.legs.iter().flatten().copied());
        figures.finite &= bones.into_iter().all(|e| world.get::<Transform>(e).unwrap().is_finite());
        last = now;
    }
}

/// An app with the course and a creature standing at `at`, settled for half a second.
fn course_with(at: Vec3, shape: &Shape) -> (App, Creature) {
    let mut app = headless_app();
    Rapier::add_to(&mut app);
    spawn_course(app.world_mut());
    let spider = spawn_creature(app.world_mut(), at, shape);
    for _ in 0..30 {
        app.update();
    }
    (app, spider)
}

/// The parts of the course, by where the body bone is: name, and the z it ends at.
const PARTS: [(&str, f32); 5] =
    [("flat", 1.4), ("steps up", 3.3), ("plateau", 4.2), ("ramp down", 5.9), ("flat again", f32::INFINITY)];

/// Walks the course from z = −1 to z = 7 at `speed`, straight along +Z; prints and checks each
/// part of it.
fn walk_course(shape: &Shape, speed: f32, name: &str) {
    let start = Vec3::new(0.0, 0.0, -1.0);
    let (mut app, creature) = course_with(start, shape);
    let frames = (8.0 / speed / DT).round() as usize;
    let drive = |f: usize| (start + Vec3::Z * speed * DT * (f + 1) as f32, 0.0);
    let mut parts: Vec<Figures> = PARTS.iter().map(|_| Figures::new(creature.legs.len())).collect();
    run(&mut app, (&creature, shape), (frames, drive), &mut parts, |body| {
        PARTS.iter().position(|(_, end)| body.z < *end).unwrap_or(PARTS.len() - 1)
    });
    for ((part, _), figures) in PARTS.iter().zip(&parts) {
        let section = format!("{name}, {part}");
        figures.print(&section);
        figures.assert_bars(&section);
    }
    let z = app.world().get::<GlobalTransform>(creature.body).unwrap().translation().z;
    assert!(z > 6.5, "{name}: the creature crossed the course (body at z = {z})");
}

/// Turns `shape` 360° in place at 1.5 rad/s on the flat; prints and checks it.
fn turn_in_place(shape: &Shape, name: &str) {
    let (mut app, creature) = course_with(Vec3::ZERO, shape);
    let rate = 1.5;
    let frames = (TAU / rate / DT).round() as usize;
    let mut figures = [Figures::new(creature.legs.len())];
    run(&mut app, (&creature, shape), (frames, |f| (Vec3::ZERO, rate * DT * (f + 1) as f32)), &mut figures, |_| 0);
    figures[0].print(name);
    figures[0].assert_bars(name);
}

#[test]
fn a_spider_walks_steps_and_a_ramp_at_three_speeds_and_turns_in_place() {
    for speed in [0.5, 1.5, 3.0] {
        walk_course(&SPIDER, speed, &format!("spider {speed} m/s"));
    }
    turn_in_place(&SPIDER, "spider, turn 360°");
}

#[test]
fn a_hexapod_and_a_two_bone_quadruped_walk_the_course() {
    walk_course(&HEXAPOD, 1.5, "hexapod 1.5 m/s");
    walk_course(&QUADRUPED, 1.0, "quadruped 1 m/s");
}

/// The largest move of a planted foot over a rapier platform sliding 0.6 m/s along +X and
/// turning 20°/s while the spider (its entity a child of the platform) walks 0.8 m/s over it,
/// between two frames it stays planted (the platform's frame), and the steps taken.
fn slide_over_a_moving_platform() -> (f32, usize) {
    let mut app = headless_app();
    Rapier::add_to(&mut app);
    let platform = app
        .world_mut()
        .spawn((
            bevy_rapier3d::prelude::RigidBody::KinematicPositionBased,
            bevy_rapier3d::prelude::Collider::cuboid(3.0, 0.05, 3.0),
            Transform::from_xyz(0.0, -0.05, 0.0),
        ))
        .id();
    let spider = spawn_creature(app.world_mut(), Vec3::new(0.0, 0.05, -1.5), &SPIDER);
    app.world_mut().entity_mut(spider.root).insert(ChildOf(platform));
    for _ in 0..30 {
        app.update();
    }
    let (mut slide, mut steps, mut last) = (0.0f32, 0, Vec::<(bool, Vec3)>::new());
    for _ in 0..180 {
        let mut moved = app.world_mut().get_mut::<Transform>(platform).unwrap();
        moved.translation.x += 0.6 * DT;
        moved.rotate_y(20f32.to_radians() * DT);
        app.world_mut().get_mut::<Transform>(spider.root).unwrap().translation.z += 0.8 * DT;
        app.update();
        let world = app.world();
        let on_platform = world.get::<GlobalTransform>(platform).unwrap().affine().inverse();
        let state = world.get::<ProceduralGaitState>(spider.root).unwrap();
        let now: Vec<(bool, Vec3)> = spider
            .legs
            .iter()
            .zip(state.feet())
            .map(|(leg, foot)| {
                let at = world.get::<GlobalTransform>(leg[leg.len() - 1]).unwrap().translation();
                (foot.planted, on_platform.transform_point3(at))
            })
            .collect();
        for ((was, before), (is, at)) in last.iter().zip(&now) {
            if *was && *is {
                slide = slide.max(before.distance(*at));
            }
            steps += usize::from(*was && !*is);
        }
        last = now;
    }
    (slide, steps)
}

#[test]
fn planted_feet_ride_a_moving_platform() {
    let (slide, steps) = slide_over_a_moving_platform();
    println!(
        "spider on a platform sliding 0.6 m/s and turning 20°/s: planted feet move {:.2} mm over it, {steps} steps",
        slide * 1e3
    );
    assert!(slide <= 0.001, "a planted foot slid {slide} m over the platform");
    assert!(steps >= 8, "only {steps} steps");
}

#[test]
fn a_spider_walks_under_a_board_its_rays_start_below() {
    // A board 41–45 cm over the floor across the spider's way (its body rides at 25 cm): with
    // its rays starting 30 cm over its feet's level, the board is not ground — no foot is put
    // on it and the body passes under it.
    let mut app = headless_app();
    Rapier::add_to(&mut app);
    Rapier::spawn_box(app.world_mut(), Vec3::new(3.0, 0.5, 6.0), Transform::from_xyz(0.0, -0.5, 2.0));
    Rapier::spawn_box(app.world_mut(), Vec3::new(2.0, 0.02, 0.5), Transform::from_xyz(0.0, 0.43, 1.5));
    let spider = spawn_creature(app.world_mut(), Vec3::new(0.0, 0.0, -1.0), &SPIDER);
    app.world_mut().get_mut::<ProceduralGait>(spider.root).unwrap().ray_height = 0.3;
    for _ in 0..30 {
        app.update();
    }
    let (mut highest_foot, mut highest_body) = (0.0f32, 0.0f32);
    for frame in 0..240 {
        let at = Vec3::new(0.0, 0.0, -1.0 + 1.0 * DT * (frame + 1) as f32);
        app.world_mut().get_mut::<Transform>(spider.root).unwrap().translation = at;
        app.update();
        let world = app.world();
        let state = world.get::<ProceduralGaitState>(spider.root).unwrap();
        for (leg, foot) in spider.legs.iter().zip(state.feet()) {
            let toe = world.get::<GlobalTransform>(leg[leg.len() - 1]).unwrap().translation();
            if foot.planted {
                highest_foot = highest_foot.max(toe.y);
            }
        }
        highest_body = highest_body.max(world.get::<GlobalTransform>(spider.body).unwrap().translation().y);
    }
    let z = app.world().get::<GlobalTransform>(spider.body).unwrap().translation().z;
    println!(
        "spider under a board at 41 cm: planted feet at most {highest_foot:.3} m, body at most {highest_body:.3} m up"
    );
    assert!(z > 2.5, "it walked past the board (body at z = {z})");
    assert!(highest_foot < 0.01, "a foot was planted {highest_foot} m up (on the board)");
    assert!(highest_body < 0.3, "the body rose to {highest_body} m");
}

#[test]
fn a_leg_outside_the_body_or_a_nan_creature_warns_once_and_moves_nothing() {
    let (mut app, creature) = course_with(Vec3::ZERO, &SPIDER);
    let stray = app.world_mut().spawn(Transform::default()).id();
    let foot = app.world_mut().spawn((Transform::from_xyz(0.0, -0.3, 0.0), ChildOf(stray))).id();
    let foot = app.world_mut().spawn((Transform::from_xyz(0.0, -0.3, 0.0), ChildOf(foot))).id();
    let body_before = *app.world().get::<Transform>(creature.body).unwrap();
    app.world_mut().get_mut::<ProceduralGait>(creature.root).unwrap().legs.push(GaitLeg { hip: stray, foot });
    for _ in 0..10 {
        app.update();
    }
    let state = app.world().get::<ProceduralGaitState>(creature.root).unwrap();
    assert!(matches!(state.fault(), Some(IkFault::MissingBone(_))), "{:?}", state.fault());
    assert_eq!(state.warnings, 1, "one warning, not one per frame");
    assert_eq!(*app.world().get::<Transform>(creature.body).unwrap(), body_before, "the body is left alone");

    app.world_mut().get_mut::<ProceduralGait>(creature.root).unwrap().legs.pop();
    app.world_mut().get_mut::<Transform>(creature.root).unwrap().translation = Vec3::NAN;
    for _ in 0..10 {
        app.update();
    }
    let state = app.world().get::<ProceduralGaitState>(creature.root).unwrap();
    assert_eq!(state.fault(), Some(&IkFault::NonFiniteTarget));
    let bones = core::iter::once(creature.body).chain(creature.legs.iter().flatten().copied());
    for bone in bones {
        assert!(app.world().get::<Transform>(bone).unwrap().is_finite(), "no NaN reaches a bone");
    }
    app.world_mut().get_mut::<Transform>(creature.root).unwrap().translation = Vec3::new(0.0, 0.0, 0.5);
    let mut figures = [Figures::new(8)];
    let drive = |f: usize| (Vec3::new(0.0, 0.0, 0.5 + 0.01 * f as f32), 0.0);
    run(&mut app, (&creature, &SPIDER), (60, drive), &mut figures, |_| 0);
    assert!(app.world().get::<ProceduralGaitState>(creature.root).unwrap().fault().is_none(), "it walks again");
    figures[0].assert_bars("after the faults");
}
