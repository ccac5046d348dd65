//! Foot-locking bars, on a synthetic walk whose root moves 25 % faster than the clip (so the
//! animated toe slides forward at a quarter of the clip speed while planted):
//! - once a lock has blended in, the toe stays on its floor point within 1 mm until unlock;
//! - at lock and at unlock no frame-to-frame jump exceeds the animated toe's own travel that
//!   frame + 1 mm, and position and velocity stay continuous through the switch;
//! - dt = 0 and a zero blend time give no NaN.

use ik_core::IkError;
use ik_core::contact::{ContactSettings, label_contacts};
use ik_core::foot_lock::{FootLockSettings, FootLockState};
use ik_core::glam::Vec3;

const FPS: f32 = 60.0;

#[path = "support/walk.rs"]
mod walk;
use walk::*;

/// World toe per frame with the root moving at `root_scale` × clip speed, and true contacts.
fn walk(seconds: f32, phase_offset: f32, side: f32, root_scale: f32) -> (Vec<Vec3>, Vec<bool>) {
    walk_at(FPS, seconds, phase_offset, side, root_scale)
}

fn walk_at(fps: f32, seconds: f32, phase_offset: f32, side: f32, root_scale: f32) -> (Vec<Vec3>, Vec<bool>) {
    (0..(seconds * fps) as usize)
        .map(|i| {
            let t = i as f32 / fps;
            let p = (t / CYCLE + phase_offset).fract();
            (clip_toe(p, side) + Vec3::Z * SPEED * root_scale * t, p < STANCE)
        })
        .unzip()
}

/// Per-frame record of a foot-lock run.
struct Run {
    out: Vec<Vec3>,
    vel: Vec<Vec3>,
    locked: Vec<bool>,
    contact_point: Vec<Vec3>,
}

fn run(toe: &[Vec3], contacts: &[bool], settings: &FootLockSettings) -> Run {
    run_at(FPS, toe, contacts, settings)
}

fn run_at(fps: f32, toe: &[Vec3], contacts: &[bool], settings: &FootLockSettings) -> Run {
    let mut state = FootLockState::new(toe[0]);
    let mut r = Run { out: vec![], vel: vec![], locked: vec![], contact_point: vec![] };
    for (&p, &c) in toe.iter().zip(contacts) {
        state.update(p, c, PLANTED, 1.0 / fps, settings).unwrap();
        r.out.push(state.position);
        r.vel.push(state.velocity);
        r.locked.push(state.locked);
        r.contact_point.push(state.contact_point);
    }
    r
}

/// Measures one foot: (worst drift once settled, worst glide while blending in, worst jump
/// excess over own travel + 1 mm at the switch frames, worst velocity change at a switch frame,
/// number of locks).
fn measure(toe: &[Vec3], r: &Run, settings: &FootLockSettings) -> (f32, f32, f32, f32, usize) {
    let blend_frames = (settings.lock_blend_time * FPS).ceil() as usize;
    let (mut drift, mut glide, mut jump_excess, mut dv, mut locks) = (0.0f32, 0.0f32, f32::MIN, 0.0f32, 0);
    for k in 1..toe.len() {
        if r.locked[k] == r.locked[k - 1] {
            continue;
        }
        // The switch happens at the end of frame k: frames k and k + 1 are "at" the switch. The
        // toe's own speed there is its travel over the frame or the one before (the output
        // carries on with the velocity the toe had when the switch came).
        for f in [k, k + 1] {
            if f < toe.len() {
                let own = toe[f].distance(toe[f - 1]).max(toe[f - 1].distance(toe[f.saturating_sub(2)]));
                jump_excess = jump_excess.max(r.out[f].distance(r.out[f - 1]) - own - 0.001);
                dv = dv.max((r.vel[f] - r.vel[f - 1]).length());
            }
        }
        if r.locked[k] {
            locks += 1;
            // Follow this lock to its end.
            let end = (k + 1..toe.len()).find(|&f| !r.locked[f]).unwrap_or(toe.len());
            let point = r.contact_point[k];
            for f in k + 1..end {
                let off = r.out[f].distance(point);
                if f > k + blend_frames {
                    drift = drift.max(off);
                } else {
                    glide = glide.max(r.out[f].distance(r.out[k]));
                }
            }
        }
    }
    (drift, glide, jump_excess, dv, locks)
}

#[test]
fn locked_toe_holds_within_1mm_and_switches_without_jumps_at_125_percent_root_speed() {
    let settings =
        FootLockSettings { lock_distance: 0.1, unlock_distance: 0.35, blend_time: 0.2, lock_blend_time: 0.2 };
    for (offset, side) in [(0.0, 1.0), (0.5, -1.0)] {
        let (toe, truth) = walk(12.0, offset, side, 1.25);
        let r = run(&toe, &truth, &settings);
        let (drift, glide, jump_excess, _, locks) = measure(&toe, &r, &settings);
        let locks = locks + r.locked[0] as usize; // a lock on the very first frame
        let own_max = toe.windows(2).map(|w| w[0].distance(w[1])).fold(0.0f32, f32::max);
        let out_max = r.out.windows(2).map(|w| w[0].distance(w[1])).fold(0.0f32, f32::max);
        println!(
            "foot {side}: {locks} locks; drift once blended in {:.3} mm; blend-in glide {:.1} mm; \
             worst (step − toe's own travel) at lock/unlock {:+.3} mm (bar: ≤ +1 mm); \
             largest step anywhere {:.1} mm (animated toe {:.1} mm)",
            drift * 1e3,
            glide * 1e3,
            jump_excess * 1e3 + 1.0,
            out_max * 1e3,
            own_max * 1e3,
        );
        // Every contact locks exactly once, and the lock lasts until the contact ends.
        let contacts = (1..truth.len()).filter(|&f| truth[f] && !truth[f - 1]).count() + truth[0] as usize;
        assert_eq!(locks, contacts, "one lock per contact");
        for f in 1..truth.len() {
            if truth[f - 1] && !truth[f] {
                assert!(!r.locked[f] && r.locked[f - 1], "unlocks exactly when contact {f} ends");
            }
        }
        assert!(drift <= 0.001, "locked toe drifted {drift} m");
        assert!(jump_excess <= 0.0, "a switch jumped {} m beyond the toe's own travel + 1 mm", jump_excess);
        // Unlocked outside contacts, the output stays within the unlock distance of the animated toe.
        let settled_unlocked = (1..toe.len()).filter(|&f| !r.locked[f] && !truth[f]).map(|f| r.out[f].distance(toe[f]));
        assert!(settled_unlocked.fold(0.0f32, f32::max) < 0.35 + 1e-3);
        // Without locking, the animated toe slides ≈ 0.25 × 1.4 m/s × 0.66 s ≈ 0.23 m per contact.
        let mut slide = 0.0f32;
        let mut start = toe[0];
        for f in 0..toe.len() {
            if truth[f] && (f == 0 || !truth[f - 1]) {
                start = toe[f];
            }
            if truth[f] {
                slide = slide.max(toe[f].distance(start));
            }
        }
        println!("foot {side}: the animated toe alone slides up to {:.0} mm per contact", slide * 1e3);
        assert!(slide > 0.2, "the test walk really slides: {slide}");
    }
}

#[test]
fn velocity_is_continuous_through_lock_and_unlock() {
    // A velocity jump would stay the same size as frames get shorter; a continuous velocity's
    // frame-to-frame change shrinks with dt. Compare 60 and 240 fps.
    let settings =
        FootLockSettings { lock_distance: 0.1, unlock_distance: 0.35, blend_time: 0.2, lock_blend_time: 0.2 };
    let mut worst = Vec::new();
    for fps in [60.0f32, 240.0] {
        let (toe, truth) = walk_at(fps, 6.0, 0.0, 1.0, 1.25);
        let r = run_at(fps, &toe, &truth, &settings);
        let mut dv = 0.0f32;
        for k in 2..toe.len() - 1 {
            if r.locked[k] != r.locked[k - 1] {
                dv = dv.max((r.vel[k + 1] - r.vel[k]).length()).max((r.vel[k] - r.vel[k - 1]).length());
            }
        }
        worst.push(dv);
    }
    println!(
        "largest velocity change over one frame at a switch: {:.3} m/s at 60 fps, {:.3} m/s at 240 fps",
        worst[0], worst[1]
    );
    assert!(worst[1] <= 0.35 * worst[0], "velocity step does not shrink with dt: {worst:?}");
}

#[test]
fn labels_from_the_clip_drive_the_lock_as_well_as_the_truth() {
    // Offline: label contacts on the clip played with its own root motion; runtime: the root
    // runs 25 % fast.
    let settings =
        FootLockSettings { lock_distance: 0.1, unlock_distance: 0.35, blend_time: 0.2, lock_blend_time: 0.2 };
    let (clip, _) = walk(12.0, 0.0, 1.0, 1.0);
    let mut labels = vec![false; clip.len()];
    label_contacts(&clip, FPS, false, &ContactSettings::for_gait(0.85, SPEED, FPS), &mut labels).unwrap();
    let (toe, _) = walk(12.0, 0.0, 1.0, 1.25);
    let r = run(&toe, &labels, &settings);
    let (drift, _, jump_excess, _, locks) = measure(&toe, &r, &settings);
    assert!(locks >= 10 && drift <= 0.001 && jump_excess <= 0.0, "{locks} {drift} {jump_excess}");
}

#[test]
fn lock_settles_on_the_floor_ahead_of_the_toe_without_sliding_back() {
    // A toe sliding forward at 0.35 m/s on the floor, labelled in contact throughout.
    let settings = FootLockSettings::default();
    let mut state = FootLockState::new(Vec3::new(0.0, PLANTED, 0.0));
    let mut last_z = f32::MIN;
    for i in 1..120 {
        let toe = Vec3::new(0.0, PLANTED, 0.35 * i as f32 / FPS);
        let out = state.update(toe, true, PLANTED, 1.0 / FPS, &settings).unwrap();
        assert!(out.z >= last_z - 1e-6, "slid backward at frame {i}");
        last_z = out.z;
    }
    assert!(state.locked);
    assert!((state.position.z - state.contact_point.z).abs() < 1e-6);
}

#[test]
fn zero_dt_zero_blend_time_and_bad_input_give_no_nan() {
    let (toe, truth) = walk(3.0, 0.0, 1.0, 1.25);
    for blend_time in [0.0, 0.2] {
        let settings = FootLockSettings { blend_time, lock_blend_time: blend_time, ..FootLockSettings::default() };
        let mut state = FootLockState::new(toe[0]);
        for (i, (&p, &c)) in toe.iter().zip(&truth).enumerate() {
            let dt = if i % 3 == 0 { 0.0 } else { 1.0 / FPS };
            let out = state.update(p, c, PLANTED, dt, &settings).unwrap();
            assert!(out.is_finite() && state.is_finite());
        }
    }
    // dt = 0 with an unchanged toe changes nothing.
    let mut state = FootLockState::new(toe[0]);
    state.update(toe[1], true, PLANTED, 1.0 / FPS, &FootLockSettings::default()).unwrap();
    let before = state;
    state.update(toe[1], true, PLANTED, 0.0, &FootLockSettings::default()).unwrap();
    assert_eq!(state.position, before.position);
    assert_eq!(state.input_velocity, before.input_velocity);
    // Bad input leaves the state alone.
    assert_eq!(state.update(Vec3::NAN, true, PLANTED, 0.1, &FootLockSettings::default()), Err(IkError::NonFiniteInput));
    assert_eq!(
        state.update(toe[2], true, PLANTED, f32::INFINITY, &FootLockSettings::default()),
        Err(IkError::NonFiniteInput)
    );
    assert_eq!(state.position, before.position);
}

#[test]
fn a_hard_lock_holds_the_toe_within_1mm_for_the_whole_contact_at_125_percent_root_speed() {
    // lock_blend_time 0: the toe stops where it is when the lock engages (position continuous,
    // velocity not), so there is no blend-in glide; unlocks stay inertialized.
    let settings =
        FootLockSettings { lock_distance: 0.1, unlock_distance: 0.35, blend_time: 0.2, lock_blend_time: 0.0 };
    for (offset, side) in [(0.0, 1.0), (0.5, -1.0)] {
        let (toe, truth) = walk(12.0, offset, side, 1.25);
        let r = run(&toe, &truth, &settings);
        let (drift, glide, jump_excess, _, locks) = measure(&toe, &r, &settings);
        // With no blend-in, every frame of the lock after its first counts as drift.
        let whole = drift.max(glide);
        println!(
            "hard lock, foot {side}: {locks} locks; drift over the whole contact {:.3} mm; worst (step − toe's own travel) {:+.3} mm",
            whole * 1e3,
            jump_excess * 1e3 + 1.0
        );
        assert!(locks >= 10, "the walk locks on every contact ({locks})");
        assert!(whole <= 0.001, "locked toe drifted {} mm", whole * 1e3);
        assert!(jump_excess <= 0.0, "a switch jumped {} mm past the toe's own travel + 1 mm", jump_excess * 1e3 + 1.0);
    }
}
