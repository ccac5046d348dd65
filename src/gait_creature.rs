//! `--creature spider|hexapod`: a creature built in code (a body bone and legs of three bones,
//! no skin, no clips) walked by bevy_ik's [`ProceduralGait`] along the player's own path —
//! procedural locomotion exactly as a game gets it: the controller here only slides and turns
//! the creature's entity; the gait plants, steps and lands the feet and rides the body over
//! them. With `--headless` its feet's figures are printed per section ([`GaitFigures`]).
//!
//! **The path.** The player's position is recorded every 10 cm, a new pass each time the
//! player is moved more than 2 m in one frame (the autopilot starting a pass). Windowed, the
//! creature walks the newest pass at its speed, keeping [`BEHIND`] back from the player, and
//! jumps to the start of the next pass when it reaches the end of an old one. Headless, it
//! waits until the player's first whole pass is recorded, walks all of it at its own speed
//! (whatever the player does meanwhile), turns 360° in place at its end and lets the app exit
//! ([`ExitHeld`]).

use bevy::prelude::*;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::autopilot::{Autopilot, ExitHeld};
use crate::marks::Player;
use crate::platforms::{Platform, ride_platforms};

mod figures;

pub use figures::GaitFigures;

/// Spacing of the recorded path, m.
const SPACING: f32 = 0.1;
/// The player moving further than this in one frame was moved, not walking, m.
const TELEPORT: f32 = 2.0;
/// How far behind the player along the newest pass the creature stops, m.
const BEHIND: f32 = 1.5;
/// Turning rate of the creature's entity, rad/s.
const TURN_RATE: f32 = 1.5;
/// How far over the ground it probes the gait's rays start (and reach below it), m.
const RAY_HEIGHT: f32 = 0.35;
/// A pass shorter than this is not walked headless (the player's spawn before the first pass), m.
const SHORTEST_PASS: f32 = 20.0;

/// A creature's shape: legs per side, their spread along the body, the body bone's height and
/// one leg's joints (hip, knee, ankle, foot) in body space, on the left (+X).
pub struct Shape {
    /// Its name in the figures.
    pub name: &'static str,
    per_side: usize,
    length: f32,
    height: f32,
    leg: [Vec3; 4],
    color: Color,
}

/// Eight legs of three bones, 25 cm body height.
pub const SPIDER: Shape = Shape {
    name: "spider",
    per_side: 4,
    length: 0.6,
    height: 0.25,
    leg: [
        Vec3::new(0.12, 0.0, 0.0),
        Vec3::new(0.3, 0.15, 0.0),
        Vec3::new(0.43, -0.08, 0.0),
        Vec3::new(0.47, -0.25, 0.0),
    ],
    color: Color::srgb(0.25, 0.2, 0.2),
};

/// Six legs of three bones, 30 cm body height.
pub const HEXAPOD: Shape = Shape {
    name: "hexapod",
    per_side: 3,
    length: 0.7,
    height: 0.3,
    leg: [Vec3::new(0.16, 0.0, 0.0), Vec3::new(0.34, 0.12, 0.0), Vec3::new(0.48, -0.1, 0.0), Vec3::new(0.5, -0.3, 0.0)],
    color: Color::srgb(0.25, 0.45, 0.7),
};

impl Shape {
    /// The sum of a leg's bones' lengths.
    fn reach(&self) -> f32 {
        self.leg.windows(2).map(|w| w[0].distance(w[1])).sum()
    }
}

/// The creatures' controller and figures; [`spawn_creature`] adds one.
pub struct GaitCreaturePlugin;

impl Plugin for GaitCreaturePlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(GaitFigures::new(SPIDER.name, 0.0))
            .init_resource::<ExitHeld>()
            // After the player moved and rode its platform: the same each run.
            .add_systems(Update, follow_path.in_set(crate::marks::DemoSystems::Drive).after(ride_platforms))
            .add_systems(PostUpdate, figures::measure_feet.after(TransformSystems::Propagate));
    }
}

/// What the creature's entity is doing.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Headless: waiting for the player's first whole pass.
    Wait,
    Walk,
    /// Headless, at the end of its pass: turned this far so far, rad.
    Turn(f32),
    Done,
}

/// The creature's entity: its bones, speed and heading, and where it is on the player's path.
#[derive(Component)]
struct Walker {
    body: Entity,
    /// Per leg, its joints from hip to foot.
    legs: Vec<Vec<Entity>>,
    /// A leg's length (the sum of its bones), m.
    reach: f32,
    cruise: f32,
    speed: f32,
    yaw: f32,
    headless: bool,
    phase: Phase,
    path: PlayerPath,
    /// The pass walked and the index of its point nearest the creature.
    at: (usize, usize),
}

/// The player's path, pass by pass, a point every [`SPACING`].
#[derive(Default)]
struct PlayerPath(Vec<Vec<Vec3>>);

impl PlayerPath {
    fn record(&mut self, at: Vec3) {
        match self.0.last_mut() {
            Some(pass) if pass.last().is_some_and(|last| last.distance(at) > TELEPORT) => self.0.push(vec![at]),
            Some(pass) if pass.last().is_some_and(|last| last.distance(at) < SPACING) => {}
            Some(pass) => pass.push(at),
            None => self.0.push(vec![at]),
        }
    }

    /// Length of the pass `pass` from its point `from` to its end, m.
    fn left(&self, pass: usize, from: usize) -> f32 {
        self.0[pass][from..].windows(2).map(|w| w[0].distance(w[1])).sum()
    }

    /// The first pass the player finished that is longer than [`SHORTEST_PASS`].
    fn first_whole(&self) -> Option<usize> {
        (0..self.0.len().saturating_sub(1)).find(|&p| self.left(p, 0) > SHORTEST_PASS)
    }

    /// The point of pass `pass` `ahead` metres on from its point `from` (its end at most).
    fn ahead(&self, pass: usize, from: usize, ahead: f32) -> Vec3 {
        let points = &self.0[pass];
        let (mut left, mut here) = (ahead, points[from]);
        for &point in &points[from + 1..] {
            let step = here.distance(point);
            if step >= left {
                return here.lerp(point, left / step);
            }
            (left, here) = (left - step, point);
        }
        here
    }

    /// The index of the point of pass `pass` nearest `p` (horizontally), searching a few
    /// metres on from `from`: progress never goes back, and a path that passes near itself
    /// is not cut short.
    fn nearest(&self, pass: usize, from: usize, p: Vec3) -> usize {
        let points = &self.0[pass];
        let end = (from + 40).min(points.len());
        let distance = |i: &usize| (points[*i] - p).with_y(0.0).length_squared();
        (from..end).min_by(|a, b| distance(a).total_cmp(&distance(b))).unwrap_or(from)
    }
}

/// A creature of `shape` beside and behind a player standing at `at` facing `yaw`, walking at
/// `cruise` (m/s): its entity, a body bone and legs of three bones (with capsules and a body
/// sphere when `looks` is given), and its [`ProceduralGait`]. Returns its entity.
pub fn spawn_creature(
    commands: &mut Commands,
    mut looks: Option<(&mut Assets<Mesh>, &mut Assets<StandardMaterial>)>,
    shape: &Shape,
    (at, yaw): (Vec3, f32),
    (cruise, headless): (f32, bool),
) -> Entity {
    let facing = Quat::from_rotation_y(yaw);
    let start = at + facing * Vec3::new(1.0, 0.0, -1.5);
    let root = commands.spawn((Name::new(shape.name), Transform::from_translation(start).with_rotation(facing))).id();
    commands.entity(root).insert(Visibility::default());
    let body = commands.spawn((Transform::from_xyz(0.0, shape.height, 0.0), Visibility::default(), ChildOf(root))).id();
    let material = looks.as_mut().map(|(_, materials)| materials.add(shape.color));
    let mut look = |commands: &mut Commands, mesh: Mesh, at: Transform, parent: Entity| {
        if let (Some((meshes, _)), Some(material)) = (looks.as_mut(), &material) {
            commands.spawn((Mesh3d(meshes.add(mesh)), MeshMaterial3d(material.clone()), at, ChildOf(parent)));
        }
    };
    let radius = shape.leg[0].x;
    let scale = Vec3::new(radius, 0.6 * radius, 0.5 * shape.length + radius);
    look(commands, Sphere::new(1.0).into(), Transform::from_scale(scale), body);
    let mut legs = Vec::new();
    for side in [1.0, -1.0] {
        for k in 0..shape.per_side {
            let z = shape.length * (0.5 - k as f32 / (shape.per_side - 1) as f32);
            let (mut parent, mut last) = (body, Vec3::new(0.0, 0.0, z));
            let mut joints = Vec::new();
            for point in shape.leg {
                let point = point * Vec3::new(side, 1.0, 1.0) + Vec3::Z * z;
                let local = Transform::from_translation(point - last);
                let joint = commands.spawn((local, Visibility::default(), ChildOf(parent))).id();
                // Each bone's capsule hangs from the joint before it, pointing at this one.
                let bone = point - last;
                if parent != body {
                    let along = Quat::from_rotation_arc(Vec3::Y, bone.normalize());
                    let at = Transform::from_translation(bone / 2.0).with_rotation(along);
                    look(commands, Capsule3d::new(0.025, bone.length()).into(), at, parent);
                }
                joints.push(joint);
                (parent, last) = (joint, point);
            }
            legs.push(joints);
        }
    }
    let gait_legs = legs.iter().map(|joints| GaitLeg { hip: joints[0], foot: joints[3] }).collect();
    // Rays from 35 cm over the ground it probes: above the course's highest step in one stride
    // (20 cm) and under the board in lane D (41 cm), which the creature walks under.
    let gait = ProceduralGait { ray_height: RAY_HEIGHT, ..ProceduralGait::new(body, gait_legs) };
    commands.entity(root).insert((
        gait,
        Walker {
            body,
            legs,
            reach: shape.reach(),
            cruise,
            speed: 0.0,
            yaw,
            headless,
            phase: if headless { Phase::Wait } else { Phase::Walk },
            path: PlayerPath::default(),
            at: (0, 0),
        },
    ));
    root
}

/// Records the player's path and moves each creature's entity along it (carried by a moving
/// platform it stands on, as the player is).
fn follow_path(
    time: Res<Time>,
    rapier: ReadRapierContext,
    platforms: Query<&Platform>,
    players: Query<&Transform, (With<Player>, Without<Walker>)>,
    mut walkers: Query<(&mut Walker, &mut Transform)>,
    mut held: ResMut<ExitHeld>,
    pilot: Option<Res<Autopilot>>,
) {
    let dt = time.delta_secs();
    let (Ok(player), Ok(context)) = (players.single(), rapier.single()) else { return };
    for (mut walker, mut transform) in &mut walkers {
        let walker = &mut *walker;
        walker.path.record(player.translation);
        let filter = QueryFilter::default().exclude_sensors();
        let under = context.cast_ray(transform.translation + Vec3::Y * 0.5, -Vec3::Y, 1.0, true, filter);
        let platform = under.and_then(|(hit, _)| platforms.get(hit).ok());
        if let Some(platform) = platform {
            transform.translation = platform.carry(transform.translation);
            walker.yaw += platform.yaw_step();
            transform.rotation = Quat::from_rotation_y(walker.yaw);
        }
        match walker.phase {
            Phase::Wait => {
                if let Some(pass) = walker.path.first_whole() {
                    jump_to(walker, &mut transform, pass);
                    walker.phase = Phase::Walk;
                } else if pilot.as_ref().is_some_and(|pilot| pilot.finished) {
                    // The player walked no whole pass (a standing check, a failed rig): nothing to follow.
                    walker.phase = Phase::Done;
                }
            }
            Phase::Walk => walk(walker, &mut transform, dt, platform.is_some()),
            Phase::Turn(turned) => {
                walker.yaw += TURN_RATE * dt;
                transform.rotation = Quat::from_rotation_y(walker.yaw);
                let turned = turned + TURN_RATE * dt;
                walker.phase = if turned >= std::f32::consts::TAU { Phase::Done } else { Phase::Turn(turned) };
            }
            Phase::Done => held.0 = false,
        }
    }
}

/// Puts the creature at the start of pass `pass`, facing along it.
fn jump_to(walker: &mut Walker, transform: &mut Transform, pass: usize) {
    let start = walker.path.0[pass][0];
    let along = (walker.path.ahead(pass, 0, 1.0) - start).with_y(0.0);
    walker.yaw = if along.length() > 1e-3 { along.x.atan2(along.z) } else { walker.yaw };
    (walker.at, walker.speed) = ((pass, 0), 0.0);
    *transform = Transform::from_translation(start).with_rotation(Quat::from_rotation_y(walker.yaw));
}

/// One frame along the path: pure pursuit at the creature's speed, slowing for sharp turns and
/// stopping [`BEHIND`] the player on the pass the player is walking.
fn walk(walker: &mut Walker, transform: &mut Transform, dt: f32, carried: bool) {
    let (pass, from) = walker.at;
    let index = walker.path.nearest(pass, from, transform.translation);
    walker.at.1 = index;
    let live = pass + 1 == walker.path.0.len();
    let left = walker.path.left(pass, index);
    if !live && left < 0.3 {
        if walker.headless {
            walker.phase = Phase::Turn(0.0);
        } else {
            jump_to(walker, transform, pass + 1);
        }
        return;
    }
    // On a moving platform it aims further along: fighting its drift back to the path at
    // walking pace it would not get off a platform moving faster than it walks.
    let lookahead = if carried { 2.5 } else { (0.4 * walker.speed).max(0.5) };
    let carrot = walker.path.ahead(pass, index, lookahead);
    let to = (carrot - transform.translation).with_y(0.0);
    let heading = if to.length() > 0.05 { to.x.atan2(to.z) } else { walker.yaw };
    let turn = (heading - walker.yaw + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
    walker.yaw += turn.clamp(-TURN_RATE * dt, TURN_RATE * dt);
    let room = if live { ((left - BEHIND) / 1.0).clamp(0.0, 1.0) } else { 1.0 };
    // Slower through a bend: no faster than it can turn along the path's next two metres.
    let (near, far) = (walker.path.ahead(pass, index, 0.5), walker.path.ahead(pass, index, 2.0));
    let (now, next) = ((near - walker.path.0[pass][index]).with_y(0.0), (far - near).with_y(0.0));
    let bend = now.angle_between(next);
    let through_bend = if bend.is_finite() && bend > 0.05 { TURN_RATE * 1.5 / bend } else { f32::INFINITY };
    let wanted = walker.cruise.min(through_bend) * room * (1.0 - turn.abs() / std::f32::consts::PI).max(0.2);
    walker.speed += (wanted - walker.speed) * (1.0 - (-4.0 * dt).exp());
    let rotation = Quat::from_rotation_y(walker.yaw);
    transform.translation += rotation * Vec3::Z * walker.speed * dt;
    transform.translation.y = carrot.y;
    transform.rotation = rotation;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The player walking `metres` along +X from `from`, recorded every 5 cm.
    fn walk(path: &mut PlayerPath, from: Vec3, metres: f32) {
        for k in 0..=(metres / 0.05) as usize {
            path.record(from + Vec3::X * 0.05 * k as f32);
        }
    }

    #[test]
    fn the_path_is_kept_pass_by_pass_and_walked_forward_only() {
        let mut path = PlayerPath::default();
        walk(&mut path, Vec3::ZERO, 5.0);
        // A jump of more than 2 m starts a new pass; points closer than 10 cm are not kept.
        walk(&mut path, Vec3::new(0.0, 0.0, 10.0), 30.0);
        walk(&mut path, Vec3::new(0.0, 0.0, 20.0), 1.0);
        assert_eq!(path.0.len(), 3);
        assert!(path.0[0].windows(2).all(|w| w[0].distance(w[1]) >= SPACING - 1e-4));
        // The first whole pass: not the 5 m one, not the one the player is still walking.
        assert_eq!(path.first_whole(), Some(1));
        assert!((path.left(1, 0) - 30.0).abs() < 0.11, "{}", path.left(1, 0));
        // Ahead along the pass, never past its end.
        assert!(path.ahead(1, 0, 2.5).distance(Vec3::new(2.5, 0.0, 10.0)) < 1e-4);
        assert!(path.ahead(1, 0, 99.0).distance(Vec3::new(30.0, 0.0, 10.0)) < 0.06);
        // The nearest point is searched from where the creature is on, never behind it.
        assert_eq!(path.nearest(1, 30, Vec3::new(0.0, 0.0, 10.0)), 30, "a point behind is not taken");
        let ahead = path.nearest(1, 30, Vec3::new(5.0, 0.3, 10.4));
        assert!(ahead > 30 && (path.0[1][ahead].x - 5.0).abs() < 0.1, "{ahead}: {}", path.0[1][ahead]);
    }
}
