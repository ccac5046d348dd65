//! The benchmark character: an 18-bone biped (root, pelvis, two legs of hip, knee, ankle and
//! ball, spine, chest, neck, head, and a right arm of shoulder, upper arm, forearm and hand)
//! standing on a 5° slope, with a cheap procedural walk-in-place standing in for animation.
//!
//! **Inputs.** A grid index (where the character stands, its animation phase) and the ground.
//! **Outputs.** Spawned entities ([`Character`]); every frame [`animate`] rewrites each bone's
//! local `Transform` (as an animation player would), so IK always corrects a fresh pose.
//! **Invariants.** Rest rotations are identity, the character faces +Z with its left at +X and
//! its animation floor is its root's y = 0 plane; the animated legs never straighten past 97 %
//! of their reach. Deterministic: the same index gives the same character and motion.

use std::f32::consts::TAU;

use bevy::animation::animation_curves::{AnimatableCurve, AnimatableKeyframeCurve};
use bevy::animation::{AnimatedBy, AnimationTargetId, animated_field};
use bevy::prelude::*;
use bevy_ik::prelude::*;

/// Pelvis height above the animation floor at rest, m.
pub const PELVIS_HEIGHT: f32 = 0.96;
/// Ankle height above the floor with the foot flat, m.
pub const ANKLE_HEIGHT: f32 = 0.08;
/// How far the ball of the foot is ahead of the ankle, m.
pub const BALL_AHEAD: f32 = 0.13;
/// Gait cycle length, s.
const CYCLE: f32 = 1.05;
/// Distance between neighbouring characters on the grid, m.
pub const SPACING: f32 = 1.5;
/// The ground's tilt about +X (it rises toward +Z), radians.
pub const SLOPE: f32 = 5.0 * std::f32::consts::PI / 180.0;

/// The ground plane every scenario uses (as a probe plane, or as a rapier collider's top face).
pub fn ground_plane() -> GroundPlane {
    GroundPlane { height: 0.0, normal: Vec3::new(0.0, SLOPE.cos(), -SLOPE.sin()) }
}

/// Ground height of [`ground_plane`] at `(x, z)`.
pub fn ground_height(x: f32, z: f32) -> f32 {
    let n = ground_plane().normal;
    -(n.x * x + n.z * z) / n.y
}

/// How a bone moves in the procedural walk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// Bobs and yaws (the pelvis).
    Pelvis,
    /// Swings about X, `side` = +1 left, −1 right.
    Hip(f32),
    /// Bends forward (knee ahead of the hip–ankle line).
    Knee(f32),
    /// Pitches the foot.
    Ankle(f32),
    /// Bends the toes at push-off.
    Ball(f32),
    /// Twists a spine joint about Y by this amplitude.
    Spine(f32),
    /// Swings the upper arm.
    UpperArm,
    /// Bends the elbow.
    Forearm,
    /// Not animated.
    Still,
}

/// A bone's rest transform, its motion and its character's phase: what [`animate`] needs.
#[derive(Component, Clone, Copy, Debug)]
pub struct Anim {
    /// Local rest transform.
    pub rest: Transform,
    /// How it moves.
    pub motion: Motion,
    /// The character's gait phase offset, radians.
    pub phase: f32,
}

/// Marks the bones an IK component of the full character reads or writes (the floor system
/// touches exactly these).
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Touched;

/// One spawned character.
#[derive(Clone, Copy, Debug)]
pub struct Character {
    /// The character root (world placement, animation floor).
    pub root: Entity,
    /// Pelvis.
    pub pelvis: Entity,
    /// `[hip, knee, ankle, ball]` per leg, left then right.
    pub legs: [[Entity; 4]; 2],
    /// Spine, chest, neck, head.
    pub spine: [Entity; 4],
    /// Shoulder, upper arm, forearm, hand (right arm).
    pub arm: [Entity; 4],
}

impl Character {
    /// Every bone IK touches for the full character, root first (18 entities).
    pub fn touched(&self) -> [Entity; 18] {
        let [l, r] = self.legs;
        let [s, c, n, h] = self.spine;
        let [sh, u, f, hand] = self.arm;
        [self.root, self.pelvis, l[0], l[1], l[2], l[3], r[0], r[1], r[2], r[3], s, c, n, h, sh, u, f, hand]
    }
}

/// World position of grid cell `index` on a square grid of `count` characters.
pub fn grid_position(index: usize, count: usize) -> Vec3 {
    let side = (count as f32).sqrt().ceil().max(1.0) as usize;
    let (x, z) = ((index % side) as f32 * SPACING, (index / side) as f32 * SPACING);
    Vec3::new(x, ground_height(x, z), z)
}

fn bone(world: &mut World, parent: Entity, offset: Vec3, motion: Motion, phase: f32) -> Entity {
    let rest = Transform::from_translation(offset);
    world.spawn((rest, ChildOf(parent), Anim { rest, motion, phase }, Touched)).id()
}

/// Spawns character `index` of `count` at its grid cell, in its rest pose.
pub fn spawn_character(world: &mut World, index: usize, count: usize) -> Character {
    // A well-spread, deterministic phase per character (golden-ratio sequence).
    let phase = (index as f32 * 0.618_034).fract() * TAU;
    let at = grid_position(index, count);
    let root = world.spawn((Transform::from_translation(at), Touched)).id();
    let pelvis = bone(world, root, Vec3::Y * PELVIS_HEIGHT, Motion::Pelvis, phase);
    let mut legs = [[Entity::PLACEHOLDER; 4]; 2];
    for (leg, side) in legs.iter_mut().zip([1.0f32, -1.0]) {
        let hip = bone(world, pelvis, Vec3::new(0.09 * side, -0.045, 0.0), Motion::Hip(side), phase);
        let knee = bone(world, hip, Vec3::new(0.0, -0.415, 0.02), Motion::Knee(side), phase);
        let ankle = bone(world, knee, Vec3::new(0.0, -0.42, -0.02), Motion::Ankle(side), phase);
        let ball = bone(world, ankle, Vec3::new(0.0, -ANKLE_HEIGHT, BALL_AHEAD), Motion::Ball(side), phase);
        *leg = [hip, knee, ankle, ball];
    }
    let spine = bone(world, pelvis, Vec3::Y * 0.10, Motion::Spine(0.04), phase);
    let chest = bone(world, spine, Vec3::Y * 0.15, Motion::Spine(0.05), phase);
    let neck = bone(world, chest, Vec3::Y * 0.22, Motion::Spine(0.08), phase);
    let head = bone(world, neck, Vec3::Y * 0.10, Motion::Spine(0.12), phase);
    let shoulder = bone(world, chest, Vec3::new(-0.08, 0.18, 0.0), Motion::Still, phase);
    let upper = bone(world, shoulder, Vec3::new(-0.12, 0.0, 0.0), Motion::UpperArm, phase);
    let fore = bone(world, upper, Vec3::new(0.0, -0.28, 0.0), Motion::Forearm, phase);
    let hand = bone(world, fore, Vec3::new(0.0, -0.26, 0.0), Motion::Still, phase);
    Character { root, pelvis, legs, spine: [spine, chest, neck, head], arm: [shoulder, upper, fore, hand] }
}

/// World position of a bone of a character in its rest pose (root at its grid cell).
pub fn rest_world(world: &World, bone: Entity) -> Vec3 {
    let mut point = Vec3::ZERO;
    let mut current = Some(bone);
    while let Some(e) = current {
        let t = world.get::<Transform>(e).copied().unwrap_or_default();
        point = t.transform_point(point);
        current = world.get::<ChildOf>(e).map(ChildOf::parent);
    }
    point
}

/// The full character's IK: feet ([`FootPlacer`] + [`FootLock`]), a 4-joint
/// [`LookAtSpread`] and a two-bone right-hand [`IkChain`] with a pole.
pub fn add_full_ik(world: &mut World, c: &Character) {
    let legs = c
        .legs
        .map(|[hip, knee, ankle, ball]| LegBones {
            // What `HumanoidIk` measures for this foot (ankle 13 cm behind the ball): the heel
            // 45 % of that behind the ankle, the toe tip 55 % ahead of the ball, on the floor.
            rest: Some(LegRest {
                ankle_height: ANKLE_HEIGHT,
                toe_height: 0.0,
                foot_up: Vec3::Y,
                toe_up: Vec3::Y,
                heel: Some(Vec3::new(0.0, -ANKLE_HEIGHT, -0.45 * BALL_AHEAD)),
                toe_tip: Some(Vec3::new(0.0, 0.0, 0.55 * BALL_AHEAD)),
            }),
            ..LegBones::new(hip, knee, ankle, Some(ball))
        })
        .to_vec();
    let root = rest_world(world, c.root);
    let look = LookAtSpread {
        forward: Vec3::Z,
        eye_offset: Vec3::new(0.0, 0.08, 0.1),
        ..LookAtSpread::spine_chest_neck_head(c.spine, IkTarget::Position(root + Vec3::new(1.5, 1.6, 2.0)))
    };
    world.entity_mut(c.root).insert((FootPlacer::new(c.pelvis, legs), FootLock::default(), look));
    let shoulder = rest_world(world, c.arm[1]);
    world.entity_mut(c.arm[3]).insert((
        IkChain::two_bone(IkTarget::Position(hand_target(shoulder))),
        Pole::new(IkTarget::Position(shoulder + Vec3::new(-0.3, -0.3, -0.3))),
    ));
}

/// [`PoseWarping`] on a full character: it moves at 2 m/s, 45° to the left of its walk,
/// authored at 1.4 m/s straight ahead (stride scale 1.25 plus play rate, legs turned 45°), the
/// spine and chest turning back.
pub fn add_pose_warping(world: &mut World, c: &Character) {
    let velocity = Vec3::new(1.0, 0.0, 1.0).normalize() * 2.0;
    let [spine, chest, _, _] = c.spine;
    world.entity_mut(c.root).insert(PoseWarping {
        clip_speed: 1.4,
        velocity: WarpVelocity::World(velocity),
        spine: vec![WarpSpineJoint { bone: spine, share: 0.5 }, WarpSpineJoint { bone: chest, share: 0.5 }],
        ..default()
    });
}

/// A full character ([`add_full_ik`] first) that travels: its root moves forward at
/// [`WALK_SPEED`] ([`walk_roots`]) and, with a lock, its contacts become the walk's labels, as a
/// clip's would be ([`label_contacts`] sets them each frame; the heuristic reads the
/// walk-in-place's sliding stance feet as moving, so footstep prediction would never learn a
/// step). `prediction`: with [`FootstepPrediction`].
pub fn add_walking(world: &mut World, c: &Character, prediction: bool) {
    let phase = world.get::<Anim>(c.pelvis).map_or(0.0, |a| a.phase);
    let mut root = world.entity_mut(c.root);
    root.insert(WalkLabels { phase });
    if prediction {
        root.insert(FootstepPrediction::default());
    }
    if root.contains::<FootLock>() {
        root.insert(FootContacts(ContactSource::Manual(vec![true; 2])));
    }
}

/// A character whose contacts follow the walk ([`label_contacts`]).
#[derive(Component, Clone, Copy, Debug)]
pub struct WalkLabels {
    /// The character's gait phase offset, radians (as its bones' [`Anim::phase`]).
    pub phase: f32,
}

/// Speed at which [`walk_roots`] moves labelled characters forward (+Z), m/s.
pub const WALK_SPEED: f32 = 1.4;

/// Moves each labelled character's root forward at [`WALK_SPEED`] on the ground (prediction
/// steers only a character that travels).
pub fn walk_roots(time: Res<Time>, mut roots: Query<&mut Transform, With<WalkLabels>>) {
    let step = WALK_SPEED * time.delta_secs();
    roots.par_iter_mut().for_each(|mut transform| {
        let at = transform.translation + Vec3::Z * step;
        transform.translation = Vec3::new(at.x, ground_height(at.x, at.z), at.z);
    });
}

/// Labels each foot planted during the half cycle in which [`animate`] leaves its knee
/// unbent (left, then right), in place: nothing is allocated.
pub fn label_contacts(time: Res<Time>, mut characters: Query<(&WalkLabels, &mut FootContacts)>) {
    let t = time.elapsed_secs_wrapped();
    characters.par_iter_mut().for_each(|(labels, mut contacts)| {
        let theta = t * TAU / CYCLE + labels.phase;
        if let ContactSource::Manual(flags) = &mut contacts.0 {
            for (flag, side) in flags.iter_mut().zip([1.0, -1.0]) {
                *flag = knee_swing(leg_theta(theta, side)) <= 0.0;
            }
        }
    });
}

/// A leg's gait angle: the character's for the left leg (`side > 0`), half a cycle on for the
/// right.
fn leg_theta(theta: f32, side: f32) -> f32 {
    if side > 0.0 { theta } else { theta + std::f32::consts::PI }
}

/// The knee's swing at a leg's gait angle: [`animate`] bends the knee where it is positive,
/// [`label_contacts`] labels the foot planted where it is not.
fn knee_swing(leg_theta: f32) -> f32 {
    (leg_theta + 0.6).sin()
}

/// Where the right hand reaches: ahead of and below its shoulder (80 % of the arm's reach).
pub fn hand_target(shoulder: Vec3) -> Vec3 {
    shoulder + Vec3::new(0.05, -0.15, 0.40)
}

/// The procedural walk: rewrites every animated bone's local transform from the time.
pub fn animate(time: Res<Time>, mut bones: Query<(&Anim, &mut Transform)>) {
    let t = time.elapsed_secs_wrapped();
    bones.par_iter_mut().for_each(|(anim, mut transform)| {
        let theta = t * TAU / CYCLE + anim.phase;
        let side_theta = |side: f32| leg_theta(theta, side);
        let (rotation, lift) = match anim.motion {
            Motion::Pelvis => (Quat::from_rotation_y(0.05 * theta.sin()), 0.015 * (2.0 * theta).sin()),
            Motion::Hip(side) => (Quat::from_rotation_x(-0.35 * side_theta(side).sin()), 0.0),
            Motion::Knee(side) => (Quat::from_rotation_x(0.05 + 0.5 * knee_swing(side_theta(side)).max(0.0)), 0.0),
            Motion::Ankle(side) => (Quat::from_rotation_x(-0.15 * side_theta(side).sin()), 0.0),
            Motion::Ball(side) => (Quat::from_rotation_x(0.2 * (-side_theta(side).sin()).max(0.0)), 0.0),
            Motion::Spine(amplitude) => (Quat::from_rotation_y(amplitude * theta.sin()), 0.0),
            Motion::UpperArm => (Quat::from_rotation_x(0.3 * theta.sin()), 0.0),
            Motion::Forearm => (Quat::from_rotation_x(-0.3 - 0.2 * theta.sin()), 0.0),
            Motion::Still => (Quat::IDENTITY, 0.0),
        };
        transform.translation = anim.rest.translation + Vec3::Y * lift;
        transform.rotation = anim.rest.rotation * rotation;
    });
}

/// The root-motion clip every [`add_root_motion`] character plays: the pelvis's rest height,
/// its bob, and [`WALK_SPEED`] forward (+Z), one gait cycle long, keyed at 60 Hz.
pub fn root_motion_clip() -> AnimationClip {
    let frames = (CYCLE * 60.0).round() as usize;
    let keys = (0..=frames).map(|i| {
        let t = CYCLE * i as f32 / frames as f32;
        let bob = 0.015 * (2.0 * t * TAU / CYCLE).sin();
        (t, Vec3::new(0.0, PELVIS_HEIGHT + bob, WALK_SPEED * t))
    });
    let curve = AnimatableKeyframeCurve::new(keys).expect("at least two keys");
    let mut clip = AnimationClip::default();
    clip.add_curve_to_target(pelvis_target(), AnimatableCurve::new(animated_field!(Transform::translation), curve));
    clip
}

/// The pelvis's animation target (every character's pelvis, each animated by its own player).
fn pelvis_target() -> AnimationTargetId {
    AnimationTargetId::from_name(&Name::new("pelvis"))
}

/// [`RootMotion`] on a full character ([`add_full_ik`] first), reported only (the character
/// stays on its cell, so its hand still reaches): an [`AnimationPlayer`] on its root plays
/// `node` of `graph` ([`root_motion_clip`]) on repeat from its gait phase, animating the
/// pelvis's translation over [`animate`]'s.
pub fn add_root_motion(world: &mut World, c: &Character, graph: &Handle<AnimationGraph>, node: AnimationNodeIndex) {
    let phase = world.get::<Anim>(c.pelvis).map_or(0.0, |a| a.phase);
    world.entity_mut(c.pelvis).insert((pelvis_target(), AnimatedBy(c.root)));
    let mut player = AnimationPlayer::default();
    player.play(node).repeat().seek_to(phase / TAU * CYCLE);
    let rig = RootMotionRig { hips: c.pelvis, up: Vec3::Y, forward: Vec3::Z, leg_length: 0.415 + 0.42 + ANKLE_HEIGHT };
    world.entity_mut(c.root).insert((
        player,
        AnimationGraphHandle(graph.clone()),
        RootMotion { rig: Some(rig), ..default() },
    ));
}
