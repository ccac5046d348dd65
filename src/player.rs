//! Moving the character: WASD (camera-relative) or the autopilot write a [`MoveIntent`];
//! [`move_characters`] turns it into a facing and a speed and hands the step to rapier's
//! kinematic character controller.
//!
//! Method: the speed chases the wanted speed (walk 1.4 m/s, Shift: jog 3.2 m/s, or the clips'
//! nominal speeds, or the speed chosen with Z / C) with a critically damped spring; the yaw
//! turns toward the wanted direction (strafing, X: toward the camera's aim) at most
//! [`TURN_RATE`]; the character travels along its facing (strafing: where the keys steer, the
//! legs turned by pose warping). The blend space is told
//! the horizontal speed the controller actually achieved (slower than asked up slopes and
//! stair ramps), so the clips' feet and the ground agree. Gravity pulls when airborne.
//! Inputs: `MoveIntent`, `Time`, the controller's last output. Outputs: the body's rotation,
//! `KinematicCharacterController::translation`, and `Locomotion::speed` on the avatar.
//! Invariants: speed ≥ 0 and finite; yaw finite.

use bevy::prelude::*;
use bevy_ik::prelude::{FootPlacerState, RootMotionState, StairFinder, StairsAhead};
use bevy_rapier3d::prelude::*;

use crate::camera::OrbitCamera;
use crate::locomotion::Locomotion;
use crate::marks::{DriveMode, Motion, MoveIntent, Player, WALK_SPEED};

/// Most the character turns per second, radians.
pub const TURN_RATE: f32 = 4.0;
/// The speeds Z and C step through, m/s.
pub const SPEED_RANGE: (f32, f32) = (0.5, 3.0);
/// One Z or C step, m/s.
const SPEED_STEP: f32 = 0.25;

/// Keys: X strafing on/off; Z slower, C faster (from the walk speed; back to walk/jog past
/// the range's ends).
pub fn drive_keys(keys: Res<ButtonInput<KeyCode>>, mut drive: ResMut<DriveMode>) {
    if keys.just_pressed(KeyCode::KeyX) {
        drive.strafe = !drive.strafe;
    }
    let step = if keys.just_pressed(KeyCode::KeyC) {
        SPEED_STEP
    } else if keys.just_pressed(KeyCode::KeyZ) {
        -SPEED_STEP
    } else {
        return;
    };
    let next = drive.speed.unwrap_or(WALK_SPEED) + step;
    drive.speed = (SPEED_RANGE.0..=SPEED_RANGE.1).contains(&next).then_some(next);
}

/// Below this travel speed, m/s, the clips are taken to carry nothing (root motion driving
/// falls back to the controller's speed).
const MIN_TRAVEL: f32 = 0.05;

/// The ground speed the body moves at: with root motion driving (`travel` given), the clips'
/// travel last frame (the blend space still follows the wanted speed); without travel (in-place
/// clips, standing) the controller's `speed`.
fn pace(travel: Option<&RootMotionState>, speed: f32) -> f32 {
    let clips = travel.map_or(0.0, |t| Vec2::new(t.velocity.x, t.velocity.z).length());
    if clips > MIN_TRAVEL { clips } else { speed }
}

/// A grounded body is pressed down at this speed, m/s, for at most 1/60 s a frame (8 mm): a
/// frame whose ground cast misses (rapier's controller does, rarely, on flat ground) sinks the
/// body by the same 8 mm at any frame rate instead of by a whole long frame's worth (5 cm at
/// 10 fps, which the controller then took seconds to undo). Following the ground down slopes
/// and steps is the controller's snap to ground.
const GROUND_PRESS_SPEED: f32 = 0.5;

/// How far down a grounded body is pressed this frame, m, when it steps `horizontal` m: the
/// [`GROUND_PRESS_SPEED`], but while walking at most the step. Rapier's controller takes off
/// the part of a step that goes into the slope, so a press larger than the step stops a slow
/// walk up a 30° ramp (a 1.2 m character slowed to 0.33 m/s on the stairs kept 3 % of its step
/// against the full press); a walk over 0.5 m/s is pressed as before.
fn ground_press(horizontal: f32, dt: f32) -> f32 {
    let press = GROUND_PRESS_SPEED * dt.min(1.0 / 60.0);
    if horizontal > 0.0 { press.min(horizontal) } else { press }
}

/// How far the controller's step is nudged off a surface it touches, m (see [`controller`]).
const NORMAL_NUDGE: f32 = 0.005;

/// A step that kept less than this share of the horizontal move asked for was blocked (a wall,
/// a stuck frame), not slowed by a slope: a 45° slope, the steepest the controller climbs,
/// keeps half.
const BLOCKED_SHARE: f32 = 0.33;

/// After a frame blocked at a wall, the least horizontal step asked of the controller, as a
/// share of its capsule's radius plus skin offset (see [`step_reach`]).
const STEP_REACH: f32 = 0.35;

/// Whether the controller's last move `o` was blocked at a wall: it kept less than
/// [`BLOCKED_SHARE`] of the horizontal move asked (or went back), grounded, and hit something
/// steeper than it climbs (`max_climb`, radians) facing the move. `carried`: what a platform
/// added to the move.
fn blocked_at_wall(o: &KinematicCharacterControllerOutput, carried: Vec3, max_climb: f32) -> bool {
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    let asked = flat(o.desired_translation - carried);
    let Some(dir) = asked.try_normalize() else { return false };
    let wall = |n: Vec3| n.y < max_climb.cos() && n.y > -1e-3 && flat(n).dot(dir) < 0.0;
    o.grounded
        && flat(o.effective_translation - carried).dot(dir) < BLOCKED_SHARE * asked.length()
        && o.collisions.iter().any(|c| c.hit.details.is_some_and(|d| wall(d.normal1)))
}

/// The least horizontal step, m, that carries the controller's capsule onto a step it autosteps:
/// rapier's autostep lifts the capsule by the step's height but moves it on only by the rest of
/// the frame's move, then takes the lift back off that move; unless the capsule's round bottom is
/// then far enough over the edge that the edge is no steeper than it climbs (45°: at most 29 % of
/// its radius plus skin beyond where it touched), it slides back off. A slow or small character
/// (1.2 cm a frame against a 14 cm radius) never got there.
fn step_reach(kcc: &KinematicCharacterController) -> f32 {
    let radius = kcc.custom_shape.as_ref().and_then(|(c, _, _)| c.as_capsule()).map_or(0.0, |c| c.radius());
    let skin = match kcc.offset {
        CharacterLength::Absolute(skin) => skin,
        CharacterLength::Relative(_) => 0.0,
    };
    STEP_REACH * (radius + skin)
}

/// Turns `motion` toward where `intent` faces, or else toward `wanted`, by at most
/// [`TURN_RATE`]; returns the share of the speed kept: less while facing far from the wanted
/// direction (turning on the spot), all of it when a facing is given (strafing).
fn turn(motion: &mut Motion, intent: &MoveIntent, wanted: Vec2, dt: f32) -> f32 {
    let mut kept = 1.0;
    let face = intent.facing.filter(|f| f.length() > 1e-3).or((wanted.length() > 1e-3).then_some(wanted));
    if let Some(face) = face {
        let target_yaw = face.x.atan2(face.y);
        let diff =
            (target_yaw - motion.yaw + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
        motion.yaw += diff.clamp(-TURN_RATE * dt, TURN_RATE * dt);
        if intent.facing.is_none() {
            kept = ((diff.cos() + 0.3) / 1.3).clamp(0.0, 1.0);
        }
    }
    motion.yaw = if motion.yaw.is_finite() { motion.yaw.rem_euclid(std::f32::consts::TAU) } else { 0.0 };
    kept
}

/// The gain on the horizontal step asked of the controller that keeps the ground speed what was
/// wanted on slopes, from the share of its asked steps the controller kept lately (`kept`,
/// smoothed over frames: on a slope it alternates a frame that keeps the whole step with one
/// that the surface's nudge takes most of) at `speed` (m/s): up slopes the controller keeps
/// only part of a step, so more is asked (bounded, only while moving); down slopes the ground
/// press slides it further than asked (0.82 m/s for 0.61 down the stairs), so less. A body that
/// keeps less than a blocked share (a wall) asks for nothing more.
fn slope_gain(kept: f32, speed: f32) -> f32 {
    if speed > 0.2 && kept > BLOCKED_SHARE { (1.0 / kept).clamp(0.5, 3.0) } else { 1.0 }
}

/// The kinematic controller used for a character `height` metres tall: a capsule as tall as the
/// character (radius a sixth of it: 0.3 m for the 1.8 m mannequin), steps up to 30 cm, slopes up
/// to 45°, snapping down steps of up to 35 cm; it walks stairs on their invisible ramps (see
/// [`crate::course`]).
pub fn controller(height: f32) -> KinematicCharacterController {
    let offset = 0.02;
    let height = if height.is_finite() { height.clamp(0.3, 20.0) } else { 1.8 };
    let (radius, half) = (height / 6.0, height / 3.0);
    KinematicCharacterController {
        // Raised by the skin offset so the body's origin sits on the floor when grounded.
        custom_shape: Some((
            Collider::capsule_y(half, radius),
            Vec3::Y * (half + radius + offset * 0.5),
            Quat::IDENTITY,
        )),
        offset: CharacterLength::Absolute(offset),
        autostep: Some(CharacterAutostep {
            max_height: CharacterLength::Absolute(0.3),
            min_width: CharacterLength::Absolute(0.2),
            include_dynamic_bodies: false,
        }),
        max_slope_climb_angle: 45f32.to_radians(),
        min_slope_slide_angle: 50f32.to_radians(),
        snap_to_ground: Some(CharacterLength::Absolute(0.35)),
        apply_impulse_to_dynamic_bodies: false,
        // Rapier's default nudge (0.1 mm) leaves the body stuck for a frame about once in a
        // hundred frames, even on flat ground (the step cast starts touching the floor): at
        // 10 fps that is 14 cm of walk lost in one frame, which the blend space reads as a stop.
        // 5 mm: 23 stuck frames of 11 551 at 60 fps (120 with the default), 1 of 1 943 at 10 fps.
        normal_nudge_factor: NORMAL_NUDGE,
        // Sensors count (the stair ramps and the platforms' stand-ins are sensors only the
        // controller sees); stair treads (group 2), what hangs over the floor (group 3: the
        // body passes through it) and the moving platforms (group 4) do not.
        filter_flags: QueryFilterFlags::empty(),
        filter_groups: Some(CollisionGroups::new(
            Group::ALL,
            Group::ALL ^ crate::marks::STAIR_GROUP ^ crate::marks::OVERHANG_GROUP ^ crate::marks::PLATFORM_GROUP,
        )),
        ..default()
    }
}

/// WASD relative to the camera, Shift to jog; strafing faces the camera's aim.
pub fn keyboard_intent(
    keys: Res<ButtonInput<KeyCode>>,
    drive: Res<DriveMode>,
    camera: Query<&OrbitCamera>,
    mut players: Query<&mut MoveIntent, With<Player>>,
) {
    let mut local = Vec2::ZERO;
    for (key, dir) in
        [(KeyCode::KeyW, Vec2::Y), (KeyCode::KeyS, -Vec2::Y), (KeyCode::KeyD, Vec2::X), (KeyCode::KeyA, -Vec2::X)]
    {
        if keys.pressed(key) {
            local += dir;
        }
    }
    let yaw = camera.iter().next().map_or(0.0, |c| c.yaw);
    // Camera forward on the ground is -Z rotated by yaw; right is +X rotated by yaw.
    let forward = Vec2::new(-yaw.sin(), -yaw.cos());
    let right = Vec2::new(yaw.cos(), -yaw.sin());
    let direction = (forward * local.y + right * local.x).clamp_length_max(1.0);
    let jog = keys.pressed(KeyCode::ShiftLeft) || keys.pressed(KeyCode::ShiftRight);
    for mut intent in &mut players {
        *intent =
            MoveIntent { direction, jog, facing: drive.strafe.then_some(forward), speed: drive.speed, stairs: false };
    }
}

/// Slows a walking body (not jogging) to one tread per step near stairs, lining its steps up
/// with the treads on the approach: the plugin's pace for the flight its stair finder found
/// ([`StairsAhead::walking_speed`]), taken as shorter steps at the walk's cadence
/// ([`MoveIntent::stairs`]). Speeds chosen below that are kept. Nothing here knows the course.
pub fn slow_on_stairs(
    mut bodies: Query<(&Motion, &mut MoveIntent), With<Player>>,
    avatars: Query<(&Locomotion, &GlobalTransform, &StairsAhead, &StairFinder, Option<&FootPlacerState>)>,
) {
    for (motion, mut intent) in &mut bodies {
        if intent.jog || intent.direction.length() < 1e-3 {
            continue;
        }
        let Some((loco, at, stairs, finder, feet)) = motion.avatar.and_then(|a| avatars.get(a).ok()) else { continue };
        let Some(walk) = loco.walk_step() else { continue };
        if let Some(slow) = stairs.walking_speed(finder, at.translation(), walk, feet) {
            intent.speed = Some(intent.speed.map_or(slow, |s| s.min(slow)));
            intent.stairs = true;
        }
    }
}

/// Turns intents into facing, speed and a controller step.
pub fn move_characters(
    time: Res<Time>,
    mut bodies: Query<
        (
            &MoveIntent,
            &mut Motion,
            &mut Transform,
            &mut KinematicCharacterController,
            Option<&KinematicCharacterControllerOutput>,
        ),
        With<Player>,
    >,
    mut spaces: Query<&mut Locomotion>,
    travels: Query<&RootMotionState>,
    ik: Option<Res<crate::toggles::DemoIk>>,
) {
    let dt = time.delta_secs();
    let stride_warping = ik.as_ref().is_some_and(|ik| ik.stride_warping);
    let clip_drives = ik.as_ref().is_some_and(|ik| ik.clip_drives);
    if dt.is_nan() || dt <= 0.0 {
        return;
    }
    for (intent, mut motion, mut transform, mut kcc, output) in &mut bodies {
        let output = if std::mem::take(&mut motion.teleported) { None } else { output };
        let wanted = intent.direction.clamp_length_max(1.0);
        let nominal = intent.speed.unwrap_or(if intent.jog { motion.speeds.1 } else { motion.speeds.0 });
        let goal = nominal * wanted.length() * turn(&mut motion, intent, wanted, dt);
        let speed = motion.speed.update(goal, 0.12, dt).max(0.0);
        let grounded = output.is_none_or(|o| o.grounded);
        // What the controller achieved last frame: the ground speed the feet must match (over
        // the platform it stands on, if it rides one).
        let own = |o: &KinematicCharacterControllerOutput| o.effective_translation - motion.carried;
        let effective = output.map(|o| Vec2::new(own(o).x, own(o).z).length());
        let achieved = motion.achieved.update(effective.map_or(speed, |e| e / dt), 0.05, dt).max(0.0);
        if let Some(e) = effective.filter(|_| motion.requested > 1e-4) {
            motion.kept += (e / motion.requested - motion.kept) * (dt / 0.1).min(1.0);
        }
        motion.vertical = if grounded { 0.0 } else { (motion.vertical - 9.81 * dt).max(-30.0) };
        // Strafing travels where the keys steer; otherwise along the facing.
        let forward = Vec3::new(motion.yaw.sin(), 0.0, motion.yaw.cos());
        let forward = match (intent.facing, wanted.try_normalize()) {
            (Some(_), Some(w)) => Vec3::new(w.x, 0.0, w.y),
            _ => forward,
        };
        transform.rotation = Quat::from_rotation_y(motion.yaw);
        let travel = motion.avatar.filter(|_| clip_drives).and_then(|a| travels.get(a).ok());
        motion.requested = pace(travel, speed) * slope_gain(motion.kept, speed) * dt;
        // Blocked at a wall last frame: ask for enough to get onto it if it is a step (a wall
        // stops the body where it is; along a wall met at a slant it slides that much further).
        if motion.requested > 0.0
            && output.is_some_and(|o| blocked_at_wall(o, motion.carried, kcc.max_slope_climb_angle))
        {
            motion.requested = motion.requested.max(step_reach(&kcc));
        }
        let press = if grounded { ground_press(motion.requested, dt) } else { 0.0 };
        kcc.translation = Some(forward * motion.requested + Vec3::Y * (motion.vertical * dt - press));
        if let Some(mut loco) = motion.avatar.and_then(|a| spaces.get_mut(a).ok()) {
            // Driven by the clips, the body moves at their travel: slower on stairs only by
            // blending toward the idle, not by shortened steps at the walk's cadence.
            let stairs = intent.stairs && !clip_drives;
            // Driven by the clips, the blend follows the wanted speed (the clips' travel then
            // follows it); else what the body achieved, so the feet match the ground.
            let blended = if clip_drives { speed } else { achieved };
            let walk = motion.speeds.0;
            loco.short_steps = crate::toggles::shortens_stride(stride_warping, stairs, &loco, (blended, walk));
            loco.speed = crate::toggles::blend_speed(blended, walk, loco.short_steps);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clips_set_the_pace_only_when_they_travel() {
        let with = |velocity| {
            let mut state = RootMotionState::default();
            state.velocity = velocity;
            state
        };
        let travelling = with(Vec3::new(0.0, 0.3, 1.4));
        assert_eq!(pace(Some(&travelling), 0.5), Vec2::new(0.0, 1.4).length(), "the ground part of the travel");
        let in_place = RootMotionState::default();
        assert_eq!(pace(Some(&in_place), 0.5), 0.5, "in-place clips: the controller's speed");
        assert_eq!(pace(None, 0.5), 0.5, "root motion not driving");
        let broken = with(Vec3::NAN);
        assert_eq!(pace(Some(&broken), 0.5), 0.5);
    }

    /// Where a body `height` m tall (its [`controller`]) is after walking toward +X at `speed`
    /// m/s for 2 s at 60 fps from x = 0, toward a box `rise` m high, 4 m long, whose edge is at x = 0.5.
    fn walk_toward_a_box(height: f32, speed: f32, rise: f32) -> Vec3 {
        let the_box = (Collider::cuboid(2.0, rise * 0.5, 2.0), Transform::from_xyz(2.5, rise * 0.5, 0.0));
        walk_toward(height, speed, the_box, 120)
    }

    /// Where a body `height` m tall (its [`controller`]) is after walking toward +X at `speed`
    /// m/s for `frames` frames at 60 fps from x = 0 on a floor, toward `obstacle`.
    fn walk_toward(height: f32, speed: f32, obstacle: (Collider, Transform), frames: usize) -> Vec3 {
        use bevy::time::TimeUpdateStrategy;
        let dt = 1.0 / 60.0;
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, TransformPlugin, RapierPhysicsPlugin::<NoUserData>::default()))
            .insert_resource(TimeUpdateStrategy::ManualDuration(std::time::Duration::from_secs_f32(dt)))
            .insert_resource(TimestepMode::Fixed { dt, substeps: 1 })
            .add_systems(Update, move_characters);
        let world = app.world_mut();
        world.spawn((Collider::cuboid(10.0, 0.5, 10.0), Transform::from_xyz(0.0, -0.5, 0.0)));
        world.spawn(obstacle);
        let intent = MoveIntent { direction: Vec2::X, speed: Some(speed), ..default() };
        let motion = Motion::new(std::f32::consts::FRAC_PI_2);
        let kinematic = RigidBody::KinematicPositionBased;
        let body = world.spawn((Player, intent, motion, Transform::default(), kinematic, controller(height))).id();
        for _ in 0..frames {
            app.update();
        }
        app.world().get::<Transform>(body).unwrap().translation
    }

    #[test]
    fn a_slow_walk_up_a_stair_ramp_keeps_its_speed() {
        // A ramp of 30° (a flight of 17 cm rises on 30 cm treads) from x = 0.1: the body
        // climbs it as fast as it walks the floor. A 1.2 m CesiumMan slowed to 0.31 m/s on the
        // stairs climbed at 0.18 m/s, the surface's nudge taking most of every other step.
        let slope = 30f32.to_radians();
        let rotation = Quat::from_rotation_z(slope);
        let top = Vec3::new(0.1 + 3.0 * slope.cos(), 3.0 * slope.sin(), 0.0);
        let ramp = (
            Collider::cuboid(3.0, 0.5, 2.0),
            Transform::from_translation(top - rotation * Vec3::Y * 0.5).with_rotation(rotation),
        );
        let far_away = (Collider::cuboid(0.1, 0.1, 0.1), Transform::from_xyz(50.0, 0.0, 0.0));
        for (height, speed) in [(1.17, 0.31), (1.8, 0.6), (1.8, 1.4)] {
            let frames = 180;
            let flat = walk_toward(height, speed, far_away.clone(), frames).x;
            let up = walk_toward(height, speed, ramp.clone(), frames);
            println!(
                "{height} m at {speed} m/s for 3 s: {flat:.3} m on the floor, up the ramp to x {:.3}, y {:.3}",
                up.x, up.y
            );
            assert!(up.y > 0.1 && up.x > 0.9 * flat, "{height} m at {speed} m/s: {up} against {flat} on the floor");
        }
    }

    #[test]
    fn slow_and_small_bodies_step_onto_a_kerb_but_not_up_a_wall() {
        // A 1.2 m KayKit knight's capsule (0.82 m: 2.15 legs) at its 0.7 m/s walk, the
        // root-motion kaiju's (1.27 m) at 0.5 m/s, the mannequin's at 1.4 m/s: each stood for
        // good at the edge of a 13 cm kerb (the first two) before a blocked frame asked for
        // enough to get onto it.
        for (height, speed) in [(0.82, 0.7), (1.27, 0.5), (1.8, 1.4)] {
            let at = walk_toward_a_box(height, speed, 0.13);
            println!("{height} m at {speed} m/s toward a 13 cm kerb: at x {:.3}, y {:.3}", at.x, at.y);
            assert!(at.y > 0.12 && at.x > 0.6, "{height} m at {speed} m/s: at {at}");
        }
        // A 40 cm box is a wall: the body stays on the floor before it.
        for (height, speed) in [(0.82, 0.7), (1.8, 1.4)] {
            let at = walk_toward_a_box(height, speed, 0.4);
            println!("{height} m at {speed} m/s toward a 40 cm wall: at x {:.3}, y {:.3}", at.x, at.y);
            assert!(at.y < 0.05 && at.x < 0.5 - height / 6.0 + 0.01, "{height} m at {speed} m/s: at {at}");
        }
    }

    #[test]
    fn the_ground_press_never_outweighs_a_walking_step_up_a_slope() {
        // What rapier keeps of a step up a 30° slope after taking off its part into the slope.
        let kept = |h: f32, press: f32| {
            let normal = Vec2::new(-30f32.to_radians().sin(), 30f32.to_radians().cos());
            let step = Vec2::new(h, -press);
            (step - normal * step.dot(normal).min(0.0)).x
        };
        let dt = 1.0 / 60.0;
        for speed in [0.2, 0.33, 0.9, 1.4, 3.0] {
            let h = speed * dt;
            assert!(kept(h, ground_press(h, dt)) > 0.3 * h, "{speed} m/s keeps {}", kept(h, ground_press(h, dt)) / h);
        }
        // Standing still: the full press (8 mm at 60 fps), never more at lower frame rates.
        assert!((ground_press(0.0, dt) - GROUND_PRESS_SPEED / 60.0).abs() < 1e-6);
        assert_eq!(ground_press(0.0, 0.1), ground_press(0.0, dt));
    }
}
