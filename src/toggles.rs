//! The demo's IK switches (keys and UI) and how they reach bevy_ik's components.
//!
//! Method: [`DemoIk`] holds the wanted state; [`apply_toggles`] eases each feature's weight
//! toward on/off over [`FADE_TIME`] (foot placement and look-at weights; the reaching arm uses
//! bevy_ik's own `IkFade`), inserts or removes the `FootLock`, writes the clips' contact
//! labels into `FootContacts` (`ContactSource::Manual`; the lock and footstep prediction both
//! read them, locked or not), points the look-at at the camera or the orb, and
//! lets the right hand reach only while the orb is within arm's reach. Inputs: `DemoIk`, keys,
//! the character's components. Outputs: component fields. Invariants: weights stay in [0, 1].

use bevy::prelude::*;
use bevy_ik::prelude::*;

use crate::locomotion::Locomotion;
use crate::marks::ReachArm;
use crate::orb::{LookTargets, Orb};

/// Seconds a feature takes to fade fully in or out.
pub const FADE_TIME: f32 = 0.25;

/// What the look-at aims at.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LookAim {
    /// The camera (the character looks at you, while you are in front of it).
    Camera,
    /// The floating orb ahead of the character (the default).
    #[default]
    Orb,
}

/// The demo's IK switches. A reflected resource: the inspector edits it live.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource)]
pub struct DemoIk {
    /// Foot placement on the ground (F).
    pub foot_ik: bool,
    /// Foot locking during contacts (L).
    pub foot_lock: bool,
    /// Head/spine look-at (K).
    pub look_at: bool,
    /// What the look-at aims at (O toggles).
    pub aim: LookAim,
    /// Right hand reaches for the orb when it is near (H).
    pub hand_reach: bool,
    /// The orb follows the character (P toggles) or hovers at its spot.
    pub orb_follows: bool,
    /// Orientation warping turns the legs toward the movement while strafing (V).
    pub orientation_warping: bool,
    /// Slope warping tilts the stride onto ramps and leans the spine into them (B).
    pub slope_warping: bool,
    /// Stride warping: slower than the walk, the walk keeps its cadence and takes shorter
    /// steps instead of the blend space slowing its cycle toward idle (N).
    pub stride_warping: bool,
    /// Root motion drives (J): a character whose clips carry the body forward moves at their
    /// travel's speed (the controller steers); off, the controller's speed moves it and the
    /// clips are played in place. Characters with in-place clips move by the controller either way.
    pub clip_drives: bool,
    /// Reach when the orb is closer to the shoulder than this fraction of the arm's length.
    pub reach_fraction: f32,
    /// Snap weights this frame instead of fading (the autopilot uses it between passes).
    #[reflect(ignore)]
    pub snap: bool,
}

impl Default for DemoIk {
    fn default() -> Self {
        DemoIk {
            foot_ik: true,
            foot_lock: true,
            look_at: true,
            aim: LookAim::Orb,
            hand_reach: true,
            orb_follows: true,
            orientation_warping: true,
            slope_warping: true,
            stride_warping: false,
            clip_drives: false,
            reach_fraction: 1.1,
            snap: false,
        }
    }
}

/// The `FootLock` settings to restore when locking is switched back on.
#[derive(Component, Clone, Debug)]
pub struct LockTemplate(pub FootLock);

/// Keys: F foot IK, L foot lock, K look-at, O look at orb/camera, H hand reach, P orb follows,
/// V orientation warping, B slope warping, N stride warping, J root motion drives.
pub fn toggle_keys(keys: Res<ButtonInput<KeyCode>>, mut ik: ResMut<DemoIk>) {
    let switches: [(KeyCode, fn(&mut DemoIk) -> &mut bool); 9] = [
        (KeyCode::KeyF, |ik| &mut ik.foot_ik),
        (KeyCode::KeyL, |ik| &mut ik.foot_lock),
        (KeyCode::KeyK, |ik| &mut ik.look_at),
        (KeyCode::KeyH, |ik| &mut ik.hand_reach),
        (KeyCode::KeyP, |ik| &mut ik.orb_follows),
        (KeyCode::KeyV, |ik| &mut ik.orientation_warping),
        (KeyCode::KeyB, |ik| &mut ik.slope_warping),
        (KeyCode::KeyN, |ik| &mut ik.stride_warping),
        (KeyCode::KeyJ, |ik| &mut ik.clip_drives),
    ];
    for (key, switch) in switches {
        if keys.just_pressed(key) {
            let on = switch(&mut ik);
            *on = !*on;
        }
    }
    if keys.just_pressed(KeyCode::KeyO) {
        ik.aim = if ik.aim == LookAim::Camera { LookAim::Orb } else { LookAim::Camera };
    }
}

/// Drives each character's [`PoseWarping`], one weight per kind, each fading in and out: the
/// clips travel at the blend space's speed; orientation warping while strafing (V), so a
/// character walking where it faces is left as animated; slope warping (B) on ramps; stride
/// warping where its steps are shortened ([`Locomotion::short_steps`]) and [`blend_speed`]
/// plays the walk faster than the character moves.
pub fn apply_warping(
    time: Res<Time>,
    ik: Res<DemoIk>,
    drive: Option<Res<crate::marks::DriveMode>>,
    mut warps: Query<(&Locomotion, &mut PoseWarping)>,
) {
    let strafing = drive.is_some_and(|d| d.strafe);
    let dt = time.delta_secs();
    for (loco, mut warping) in &mut warps {
        warping.clip_speed = loco.speed;
        let weights = &mut warping.settings;
        ease(&mut weights.orientation_weight, strafing && ik.orientation_warping, dt, ik.snap);
        ease(&mut weights.slope_weight, ik.slope_warping, dt, ik.snap);
        ease(&mut weights.stride_weight, loco.short_steps, dt, ik.snap);
    }
}

/// The speed the blend space plays at for a character moving at `speed`: with its steps
/// shortened (`short_steps`), the walk (`walk` m/s) keeps its cadence down to
/// [`SHORTEST_STRIDE`] × its speed (stride warping shortens the steps) and slows below it,
/// toward the idle if there is one; otherwise `speed` itself (the blend space: toward the idle,
/// whose stance then weighs in every step — a character whose idle stands with one foot ahead
/// limps). Continuous, so the blend weights never jump.
pub fn blend_speed(speed: f32, walk: f32, short_steps: bool) -> f32 {
    if !short_steps || walk <= 0.0 || speed >= walk {
        return speed;
    }
    (speed.max(0.0) / SHORTEST_STRIDE).min(walk)
}

/// The shortest stride stride warping plays, a share of the clip's (ik_core's default
/// `WarpSettings::min_scale`).
pub const SHORTEST_STRIDE: f32 = 0.3;

/// Whether a character's steps are shortened by stride warping when it moves slower than its
/// walk ([`Locomotion::short_steps`]): the toggle (N, `toggle`), on stairs (`stairs`: the
/// plugin's pace asks for one tread per step at the walk's cadence), or always for a blend
/// space without an idle clip (its only other way to go slower is to slow its cadence with
/// whole-length steps, which on stairs span two treads). Once shortened, the steps stay so
/// until the body is back near its walk's speed or standing ([`still_shortened`]).
pub fn shortens_stride(toggle: bool, stairs: bool, loco: &Locomotion, (speed, walk): (f32, f32)) -> bool {
    toggle || stairs || (loco.walks() && !loco.has_idle()) || still_shortened(loco.short_steps, speed, walk)
}

/// Whether steps shortened last frame (`was`) stay shortened at `speed` now that nothing asks
/// for it: between standing and [`SETTLED`] × the walk's speed (`walk`), where [`blend_speed`]
/// with and without shortened steps differ, so ending them would jump the blend from the walk
/// toward the idle (leaving a flight at its pace, that jump moved a landing foot 5 cm back onto
/// the last nosing).
pub fn still_shortened(was: bool, speed: f32, walk: f32) -> bool {
    was && speed > STANDING && speed < SETTLED * walk
}

/// Below this speed (m/s) a body stands: the blend speed is near 0 with shortened steps or not.
const STANDING: f32 = 0.02;

/// Share of the walk's speed from which the blend with shortened steps and without differ by
/// little enough (the idle's weight at most 1 − this) to let the steps be whole again.
pub const SETTLED: f32 = 0.97;

fn ease(weight: &mut f32, on: bool, dt: f32, snap: bool) {
    let goal = if on { 1.0 } else { 0.0 };
    let step = if snap { 1.0 } else { dt / FADE_TIME };
    *weight = if *weight < goal { (*weight + step).min(goal) } else { (*weight - step).max(goal) };
}

/// Half-angle (degrees, about the vertical, from the character's root) of the cone in front of
/// the character in which the hand reaches for the orb, so it never reaches beside or behind
/// itself.
pub const REACH_DECIDE_CONE: f32 = 60.0;

/// Angle about the vertical between `forward` and `to_target` (radians, seen from above); 0
/// for a target within 5 cm of straight above or below (not behind, whatever its bearing).
pub fn bearing(forward: Vec3, to_target: Vec3) -> f32 {
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    let (forward, to_target) = (flat(forward).normalize_or_zero(), flat(to_target));
    if to_target.length() < 0.05 {
        return 0.0;
    }
    forward.dot(to_target.normalize()).clamp(-1.0, 1.0).acos()
}

/// Whether `to_target` (from the character's root) is within [`REACH_DECIDE_CONE`] of
/// `forward` ([`bearing`]).
pub fn in_front(forward: Vec3, to_target: Vec3) -> bool {
    bearing(forward, to_target) <= REACH_DECIDE_CONE.to_radians()
}

/// Starts and stops the hand's reach for the orb: only while the orb is within reach of the
/// shoulder and in front of the body. Runs in `PostUpdate` after physics has moved the body
/// and before IK, on world positions worked out from this frame's `Transform`s (global
/// transforms are last frame's until propagation), so the decision holds for the pose IK
/// solves.
pub fn decide_reach(
    ik: Res<DemoIk>,
    targets: Option<Res<LookTargets>>,
    arms: Query<(Entity, &ReachArm)>,
    mut fades: Query<&mut IkFade>,
    hierarchy: bevy_ik::bones::Hierarchy,
) {
    let Some(targets) = targets else { return };
    let world = |e: Entity| bevy_ik::bones::world_of(e, &hierarchy);
    let orb = world(targets.focus).map(|w| w.translation);
    for (avatar, arm) in &arms {
        let shoulder = world(arm.shoulder).map(|w| w.translation);
        let body = world(avatar);
        // In front of the body (bearing from the character's root, which a swinging shoulder
        // does not move), and within reach of the shoulder.
        let reachable = match (orb, shoulder, body) {
            (Some(o), Some(s), Some(b)) => {
                o.distance(s) < arm.reach * ik.reach_fraction && in_front(b.rotation * arm.forward, o - b.translation)
            }
            _ => false,
        };
        if let Ok(mut fade) = fades.get_mut(arm.hand) {
            let active = ik.hand_reach && reachable;
            if fade.active != active {
                fade.active = active;
            }
        }
    }
}

/// Applies [`DemoIk`] to the character's IK components.
#[allow(clippy::type_complexity)]
pub fn apply_toggles(
    mut commands: Commands,
    time: Res<Time>,
    mut ik: ResMut<DemoIk>,
    targets: Option<Res<LookTargets>>,
    mut placers: Query<(Entity, &mut FootPlacer, Option<&FootLock>, Option<&mut FootContacts>, Option<&LockTemplate>)>,
    spaces: Query<&Locomotion>,
    mut looks: Query<&mut LookAtSpread, Without<crate::marks::LabOnly>>,
    mut orbs: Query<&mut Orb>,
) {
    let dt = time.delta_secs();
    let snap = std::mem::take(&mut ik.snap);
    for (entity, mut placer, lock, contacts, template) in &mut placers {
        ease(&mut placer.weight, ik.foot_ik, dt, snap);
        // The clips' labels are the feet's contacts, for the lock and footstep prediction alike.
        if let Ok(loco) = spaces.get(entity)
            && loco.labelled
        {
            let labels = &loco.contacts[..];
            match contacts {
                Some(mut contacts) if contacts.manual() != Some(labels) => {
                    contacts.0 = ContactSource::Manual(labels.to_vec());
                }
                Some(_) => {}
                None => {
                    commands.entity(entity).insert(FootContacts(ContactSource::Manual(labels.to_vec())));
                }
            }
        }
        match (ik.foot_lock && ik.foot_ik, lock) {
            (true, Some(_)) => {}
            (true, None) => {
                if let Some(t) = template {
                    commands.entity(entity).insert(t.0.clone());
                }
            }
            (false, Some(lock)) => {
                if template.is_none() {
                    commands.entity(entity).insert(LockTemplate(lock.clone()));
                }
                commands.entity(entity).remove::<FootLock>();
            }
            (false, None) => {}
        }
    }
    if let Some(targets) = targets {
        let aim = match (ik.aim, targets.camera) {
            (LookAim::Camera, Some(camera)) => IkTarget::Entity(camera),
            _ => IkTarget::Entity(targets.focus),
        };
        for mut look in &mut looks {
            ease(&mut look.weight, ik.look_at, dt, snap);
            if look.target != aim {
                look.target = aim;
            }
        }
    }
    for mut orb in &mut orbs {
        if orb.follow != ik.orb_follows {
            orb.follow = ik.orb_follows;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_speed_is_continuous_keeps_the_walk_s_cadence_and_leaves_other_speeds_alone() {
        let walk = 1.4;
        // Shortened steps: the walk's cadence down to the shortest stride, slower below it,
        // continuous and the stride never shorter than that.
        let mut previous = blend_speed(0.0, walk, true);
        for i in 1..=400 {
            let v = i as f32 * 0.01;
            let blend = blend_speed(v, walk, true);
            assert!((blend - previous).abs() <= 0.05, "a jump at {v} m/s: {previous} -> {blend}");
            assert!(v / blend >= SHORTEST_STRIDE - 1e-6 && v / blend <= 1.0 + 1e-6, "{v} m/s plays at {blend}");
            assert_eq!(blend_speed(v, walk, false), v, "the blend space");
            previous = blend;
        }
        assert_eq!(blend_speed(0.61, walk, true), walk, "stairs: the walk's cadence, shorter steps");
        assert!((blend_speed(0.21, walk, true) - 0.7).abs() < 1e-5, "below 0.3 x the walk: slower");
        assert_eq!(blend_speed(2.0, walk, true), 2.0, "faster than the walk: the blend space toward the jog");
    }

    #[test]
    fn shortened_steps_last_until_the_blend_would_not_jump() {
        let walk = 1.4;
        // Leaving a flight at its pace: still shortened while the body speeds up to its walk.
        assert!(still_shortened(true, 0.61, walk));
        assert!(still_shortened(true, 0.9 * walk, walk));
        // Back at the walk's speed, or standing: whole steps, and the blend barely moves.
        for speed in [SETTLED * walk, walk, 2.0, 0.0, 0.01] {
            assert!(!still_shortened(true, speed, walk), "{speed} m/s");
            let jump = (blend_speed(speed, walk, true) - blend_speed(speed, walk, false)).abs();
            assert!(jump <= (1.0 - SETTLED) * walk + 0.05, "{speed} m/s: the blend jumps by {jump} m/s");
        }
        // Never shortened by itself.
        assert!(!still_shortened(false, 0.61, walk));
    }
}
