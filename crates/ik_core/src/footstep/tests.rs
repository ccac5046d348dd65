//! Unit tests of [`super`]: learning and predicting a step, easing a shift in, fitting landings.

use super::*;
use crate::Xform;
use crate::foot_placement::FootRig;

#[test]
fn a_step_is_learned_and_the_next_swing_is_predicted() {
    let settings = FootstepSettings::default();
    let mut foot = FootstepState::default();
    let dt = 0.1;
    // Contact, lift-off, 0.4 s of swing (lift-off frame to touch-down frame), touch-down
    // at (0.1, 0, 0.35) in root space.
    assert_eq!(foot.update(true, Vec3::ZERO, dt, &settings), None);
    for _ in 0..4 {
        assert_eq!(foot.update(false, Vec3::ZERO, dt, &settings), None, "nothing learned yet");
    }
    assert_eq!(foot.update(true, Vec3::new(0.1, 0.0, 0.35), dt, &settings), None);
    // The next swing: predicted from the one learned.
    let step = foot.update(false, Vec3::ZERO, dt, &settings).unwrap();
    assert!((step.remaining - 0.4).abs() < 1e-5 && step.progress == 0.0, "{step:?}");
    assert_eq!(step.landing_in_root, Vec3::new(0.1, 0.0, 0.35));
    let step = foot.update(false, Vec3::ZERO, dt, &settings).unwrap();
    assert!((step.remaining - 0.3).abs() < 1e-5 && (step.progress - 0.25).abs() < 1e-5, "{step:?}");
    assert_eq!(foot.update(true, Vec3::ZERO, dt, &settings), None, "in contact: no prediction");
}

#[test]
fn a_contact_flickering_at_lift_off_is_not_learned_as_a_step() {
    let settings = FootstepSettings::default();
    let mut foot = FootstepState::default();
    let dt = 1.0 / 60.0;
    let landing = Vec3::new(0.0, 0.0, 0.4);
    // One step learned: 0.4 s of swing (24 frames), touch-down 0.4 m ahead.
    let step = |foot: &mut FootstepState, frames: usize, at: Vec3| {
        foot.update(true, Vec3::ZERO, dt, &settings);
        for _ in 0..frames {
            foot.update(false, Vec3::ZERO, dt, &settings);
        }
        foot.update(true, at, dt, &settings);
    };
    step(&mut foot, 24, landing);
    // The label drops for one frame as the foot lifts, then the real swing begins.
    step(&mut foot, 1, Vec3::ZERO);
    let next = foot.update(false, Vec3::ZERO, dt, &settings).expect("a prediction");
    assert!((next.remaining - 0.4).abs() < 0.02, "the swing learned before the flicker: {next:?}");
    assert!(next.landing_in_root.distance(landing) < 1e-3, "its landing too: {next:?}");
}

#[test]
fn the_shift_eases_in_over_the_swing() {
    let settings = FootstepSettings::default();
    let mut foot = FootstepState::default();
    foot.update(true, Vec3::ZERO, 0.1, &settings);
    for _ in 0..4 {
        foot.update(false, Vec3::ZERO, 0.1, &settings);
    }
    foot.update(true, Vec3::ZERO, 0.1, &settings);
    let mut applied = Vec::new();
    for _ in 0..5 {
        foot.update(false, Vec3::ZERO, 0.1, &settings);
        applied.push(foot.swing_shift(-0.1, 1.0, &settings));
    }
    // Nothing at lift-off, all of it by the learned touch-down (0.4 s later), in between
    // monotonic.
    assert!(applied[0] == 0.0 && applied[1] < 0.0 && applied[1] > -0.1, "{applied:?}");
    assert!(applied.windows(2).all(|w| w[1] <= w[0]), "{applied:?}");
    assert!((applied[4] + 0.1).abs() < 1e-6, "all of it by touch-down: {applied:?}");
    // Landed: the shift is held through the contact, then eased toward the next one.
    foot.update(true, Vec3::ZERO, 0.1, &settings);
    assert!((foot.swing_shift(0.0, 1.0, &settings) + 0.1).abs() < 1e-6, "held while planted");
    foot.update(false, Vec3::ZERO, 0.1, &settings);
    assert!((foot.swing_shift(0.05, 1.0, &settings) + 0.1).abs() < 1e-6, "lift-off starts from the held shift");
    foot.update(false, Vec3::ZERO, 0.1, &settings);
    let mid = foot.swing_shift(0.05, 1.0, &settings);
    assert!(mid > -0.1 && mid < 0.05, "{mid}");
    // A new shift is moved toward at most `shift_speed`; the target is what was asked.
    foot.swing_shift(-0.05, 0.01, &settings);
    assert!((foot.chosen_shift() - 0.04).abs() < 1e-6, "{}", foot.chosen_shift());
    assert_eq!(foot.target_shift(), -0.05);
}

#[test]
fn a_footprint_on_one_level_needs_no_shift_and_one_across_an_edge_is_moved_off_it() {
    let settings = FootstepSettings::default();
    let print = (0.2, 0.08);
    // The riser at z = 1.005 (clear of the samples' rounding).
    let mut stairs = |p: Vec3| Some(if p.z > 1.005 { 0.2 } else { 0.0 });
    let at = |z: f32| Vec3::new(0.0, 0.0, z);
    assert!(landing_fits(at(0.5), Vec3::Z, print, 0.0, &mut stairs, &settings));
    // Toe 2 cm past the riser: moving forward 20 cm is too far, back 10 cm clears the tip.
    assert!(!landing_fits(at(1.02), Vec3::Z, print, 0.0, &mut stairs, &settings));
    let shift = search_landing(at(1.02), Vec3::Z, print, &mut stairs, &settings).unwrap();
    assert!((shift + 0.1).abs() < 1e-4, "{shift}");
    // Heel just behind the riser: a small step forward puts the whole foot up.
    let shift = search_landing(at(1.19), Vec3::Z, print, &mut stairs, &settings).unwrap();
    assert!((shift - 0.02).abs() < 1e-4, "{shift}");
    // A tread too short for the foot: nothing fits.
    let mut short = one_tread(1.15);
    assert_eq!(search_landing(at(1.1), Vec3::Z, print, &mut short, &settings), None);
    // A 33 cm tread for a 28 cm foot: not 2 cm to spare at both ends, but 1 cm behind
    // and 2 cm ahead.
    let mut tread = one_tread(1.33);
    let none = LandingChoice { shift: 0.0, roomy: false, fits: false };
    let strict = FootstepSettings { tight_fit: false, ..settings };
    assert_eq!(choose_landing(at(1.25), Vec3::Z, print, 0.0, &mut tread, &strict), none, "no room: as animated");
    let choice = choose_landing(at(1.25), Vec3::Z, print, 0.0, &mut tread, &settings);
    assert!(!choice.roomy && choice.fits, "{choice:?}");
    // In the middle of where it fits: heel 2 cm past the lower riser, tip 3 cm short of the
    // upper one.
    assert!((1.25 + choice.shift - 1.22).abs() < 0.006, "{choice:?}");
    assert!(landing_fits(at(1.25), Vec3::Z, print, choice.shift, &mut tread, &settings), "{choice:?}");
    // The 15 cm tread, shorter than the 28 cm foot: no tight tier fits, so the ball goes on it
    // with the tip 2-3 cm short of the next riser and the heel hanging (not the animation's
    // landing, whose tip would stand the foot on the nosing above).
    let choice = choose_landing(at(1.08), Vec3::Z, print, 0.0, &mut short, &settings);
    let (ball, tip) = (1.08 + choice.shift, 1.08 + choice.shift + 0.08);
    assert!(choice.fits && !choice.roomy && ball > 1.0 && (1.115..=1.131).contains(&tip), "{choice:?}");
    // Between searches it reads as not fitting the tight tiers, so it is searched for again
    // (keeping it instead left a local 0.333 m sole 97 % over an edge on the turning stair).
    assert!(!landing_still_fits(at(1.08), Vec3::Z, print, choice.shift, &mut short, &settings), "{choice:?}");
    // Going down onto a 24 cm tread (from the 40 cm level, toward -Z), shorter than the
    // 28 cm foot: no tight tier fits, so the heel goes on it 2-3 cm clear of the riser behind
    // and the toes hang over the nosing, as little as they must (not the animation's landing,
    // whose heel would stand the foot on the nosing behind).
    let mut down = one_tread(1.24);
    let choice = choose_landing(at(1.1), Vec3::NEG_Z, print, 0.0, &mut down, &settings);
    let (ball, heel) = (1.1 - choice.shift, 1.1 - choice.shift + 0.2);
    assert!(choice.fits && !choice.roomy && ball >= 0.97 && (1.205..=1.2201).contains(&heel), "{choice:?}");
    // A 20 cm tread, as long as heel to ball: the ball over the nosing by at most a tenth of
    // the foot (2.8 cm), the heel still 2 cm clear.
    let mut shorter = one_tread(1.2);
    let choice = choose_landing(at(1.05), Vec3::NEG_Z, print, 0.0, &mut shorter, &settings);
    let (ball, heel) = (1.05 - choice.shift, 1.05 - choice.shift + 0.2);
    assert!(choice.fits && ball >= 1.0 - 0.028 - 1e-4 && heel <= 1.18 + 1e-4, "{choice:?}");
    // A 29 cm tread going up: the tip keeps 2 cm from the next riser, the heel hangs over
    // the lower level by at most a tenth of the foot (2.8 cm); with no overhang allowed, as
    // animated.
    let mut tight = one_tread(1.29);
    let choice = choose_landing(at(1.25), Vec3::Z, print, 0.0, &mut tight, &settings);
    let (tip, heel) = (1.25 + choice.shift + 0.08, 1.25 + choice.shift - 0.2);
    assert!(choice.fits && tip <= 1.27 + 1e-4 && heel >= 1.0 - 0.028 - 1e-4, "{choice:?}");
    let no_overhang = FootstepSettings { tight_overhang: 0.0, ..settings };
    assert_eq!(choose_landing(at(1.25), Vec3::Z, print, 0.0, &mut tight, &no_overhang), none);
    // 30 cm treads for the 28 cm foot going up: the tip 2 cm from the next riser, the heel
    // over the lower tread by at most 2.8 cm, in the middle of the run of fits (toe at
    // 1.172-1.2).
    let mut flight = |p: Vec3| Some(if p.z > 1.0 { ((p.z - 1.0) / 0.3).ceil() * 0.17 } else { 0.0 });
    let choice = choose_landing(at(1.3), Vec3::Z, print, 0.0, &mut flight, &settings);
    assert!(choice.fits && !choice.roomy, "{choice:?}");
    assert!((1.3 + choice.shift - 1.186).abs() < 0.006, "tip 2 cm clear, heel 1.4 cm over: {choice:?}");
    // Going down the same flight (toward -Z) the heel gets the 2 cm from the nosing behind it
    // (at z = 1.6), the tip may hang over the tread below (z < 1.3).
    let choice = choose_landing(at(1.3), Vec3::NEG_Z, print, 0.0, &mut flight, &settings);
    let heel = 1.3 - choice.shift + 0.2;
    assert!(choice.fits && (1.559..=1.5801).contains(&heel), "heel 2-3.5 cm clear: {choice:?}");
    // Halfway between two treads, the one nearer the shift the swing already has wins (a
    // prediction moving by a centimetre does not flip the landing across the edge).
    let far = FootstepSettings { max_shift: 0.3, ..settings };
    for (current, (from, to)) in [(-0.1, (1.172, 1.2)), (0.1, (1.472, 1.5))] {
        let choice = choose_landing(at(1.3575), Vec3::Z, print, current, &mut flight, &far);
        let toe = 1.3575 + choice.shift;
        assert!(choice.fits && (from - 1e-3..=to + 1e-3).contains(&toe), "from {current}: {choice:?}");
    }
    // A 30 degree ramp is one surface.
    let mut ramp = |p: Vec3| Some(p.z * 30f32.to_radians().tan());
    assert!(landing_fits(at(1.0), Vec3::Z, print, 0.0, &mut ramp, &settings));
}

#[test]
fn a_big_foot_takes_the_tread_it_can_reach_not_one_only_the_shift_limit_reaches() {
    // A 32 cm sole (21.5 cm heel to ball) on 30 cm treads going up (risers at z = 1, 1.3,
    // 1.6, 17 cm each), the animated ball 27.9 cm onto the first tread. The next tread is
    // nearest, but a 15 cm shift (`max_shift`) only gets the ball 13 cm onto it and leaves the
    // heel 8.6 cm over the riser (27 % of the sole); back on the first tread, the tip 2 cm
    // from the riser ahead, the heel hangs 4.6 cm over the floor (14 %).
    let settings = FootstepSettings::default();
    let print = (0.215, 0.109);
    let mut flight = |p: Vec3| Some(if p.z > 1.0 { ((p.z - 1.0) / 0.3).ceil() * 0.17 } else { 0.0 });
    let at = Vec3::new(0.0, 0.17, 1.279);
    let choice = choose_landing(at, Vec3::Z, print, 0.0, &mut flight, &settings);
    let ball = at.z + choice.shift;
    let (heel, tip) = (ball - print.0, ball + print.1);
    let hanging = (0..=32).filter(|i| {
        let z = heel + (tip - heel) * *i as f32 / 32.0;
        flight(Vec3::Z * z) < flight(Vec3::Z * tip)
    });
    let share = hanging.count() as f32 / 33.0;
    assert!(choice.fits && !choice.roomy && tip <= 1.28 + 1e-4, "{choice:?}");
    assert!(share <= 0.2, "{:.0} % of the sole over the lower level: {choice:?}", share * 100.0);
}

/// Ground with one tread 20 cm up from z = 1 to `end`, and 40 cm up beyond it.
fn one_tread(end: f32) -> impl Fn(Vec3) -> Option<f32> + Copy {
    move |p: Vec3| {
        Some(if p.z >= end {
            0.4
        } else if p.z > 1.0 {
            0.2
        } else {
            0.0
        })
    }
}

/// Swings the toe in root space from `from` to `to` (z) over `frames` frames of `dt`, linearly,
/// then touches down; returns the predicted landing (z) at each swing frame.
fn swing(foot: &mut FootstepState, (from, to): (f32, f32), frames: usize, dt: f32) -> Vec<f32> {
    let settings = FootstepSettings::default();
    let mut predicted = Vec::new();
    for i in 0..frames {
        let toe = Vec3::new(0.0, 0.0, from + (to - from) * i as f32 / frames as f32);
        if let Some(step) = foot.update(false, toe, dt, &settings) {
            predicted.push(step.landing_in_root.z);
        }
    }
    foot.update(true, Vec3::new(0.0, 0.0, to), dt, &settings);
    predicted
}

#[test]
fn a_stride_shortening_mid_swing_is_seen_before_touch_down() {
    let (settings, dt) = (FootstepSettings::default(), 1.0 / 60.0);
    let mut foot = FootstepState::default();
    foot.update(true, Vec3::ZERO, dt, &settings);
    // Two walking steps, toe from 30 cm behind the root to 30 cm ahead in 24 frames: the
    // swing's length, its landing and its path are learned.
    for _ in 0..2 {
        swing(&mut foot, (-0.3, 0.3), 24, dt);
    }
    // Now a shorter stride (the body slowing): 20 cm behind to 20 cm ahead, same cadence.
    let predicted = swing(&mut foot, (-0.2, 0.2), 24, dt);
    let (first, last) = (predicted[0], *predicted.last().unwrap());
    assert!((first - 0.3).abs() < 0.02, "at lift-off, the landing learned: {predicted:?}");
    assert!((last - 0.2).abs() < 0.01, "by touch-down, where this toe is going: {predicted:?}");
    // Late in the swing the prediction is nearer the true landing than the learned one.
    assert!(predicted[16..].iter().all(|z| (z - 0.2).abs() < 0.06), "{predicted:?}");
}

/// Flat floor with a rail 2 cm wide and 5 cm high across z = 1.03..1.05 that height samples
/// miss; `clear` sees it under a sole spanning it.
struct Railed;

impl FootprintGround for Railed {
    fn height(&mut self, _: Vec3) -> Option<f32> {
        Some(0.0)
    }

    fn clear(&mut self, heel: Vec3, tip: Vec3, top: f32) -> bool {
        let (from, to) = (heel.z.min(tip.z), heel.z.max(tip.z));
        !(from <= 1.05 && to >= 1.03 && top < 0.05)
    }
}

#[test]
fn a_rail_between_the_height_samples_moves_the_landing_off_it() {
    let settings = FootstepSettings::default();
    // Toe at 1.0: heel 0.8, tip 1.08, the rail under the ball of the foot.
    let at = Vec3::new(0.0, 0.0, 1.0);
    assert!(landing_fits(at, Vec3::Z, (0.2, 0.08), 0.0, &mut |_: Vec3| Some(0.0), &settings));
    assert!(!landing_fits(at, Vec3::Z, (0.2, 0.08), 0.0, &mut Railed, &settings));
    let choice = choose_landing(at, Vec3::Z, (0.2, 0.08), 0.0, &mut Railed, &settings);
    let (heel, tip) = (1.0 + choice.shift - 0.2, 1.0 + choice.shift + 0.08);
    assert!(choice.fits && choice.roomy, "{choice:?}");
    assert!(heel >= 1.05 + 0.02 - 1e-4 || tip <= 1.03 - 0.02 + 1e-4, "clear of the rail with room: {choice:?}");
}

#[test]
fn a_foot_stepping_down_is_let_down_over_frames_and_arrives_in_time() {
    // Over the tread it left (raised 20 cm above the animated floor, the landing tread 20 cm
    // below it), 0.4 s of swing left at 60 fps: each frame the floor follows the foot's last
    // correction down by the drop speed, or faster where it must, and reaches the landing
    // before the swing ends.
    let (dt, landing) = (1.0 / 60.0, -0.2);
    let (mut last, mut remaining, mut frames) = (0.2f32, 0.4f32, 0);
    let mut largest = 0.0f32;
    while remaining > 0.0 {
        let floor = descending_floor(last, landing, remaining, dt, 1.0);
        if floor.weight == 0.0 {
            break;
        }
        assert!(floor.height <= last && floor.height >= landing, "{floor:?} after {last}");
        largest = largest.max(last - floor.height);
        last = floor.height;
        remaining -= dt;
        frames += 1;
    }
    assert!((last - landing).abs() < 1e-5, "{last} after {frames} frames");
    // 40 cm at 1 m/s takes 0.4 s: 24 frames of 1.67 cm, not one frame of 40 cm.
    assert!(frames >= 23 && largest < 0.018, "{frames} frames, largest {largest}");
    // Overdue or going up: no hold past the landing; bad input: none.
    assert_eq!(descending_floor(0.2, landing, 0.0, dt, 1.0).height, landing);
    assert_eq!(descending_floor(landing, 0.2, 0.3, dt, 1.0).weight, 0.0);
    for bad in [
        descending_floor(f32::NAN, landing, 0.3, dt, 1.0),
        descending_floor(0.2, landing, f32::INFINITY, dt, 1.0),
        descending_floor(0.2, landing, 0.3, 0.0, 1.0),
        descending_floor(0.2, landing, 0.3, dt, f32::NAN),
    ] {
        assert_eq!(bad, SwingFloor::default());
    }
}

#[test]
fn a_foot_rises_toward_higher_ground_ahead_in_time_to_be_over_it() {
    // A riser 20 cm up reached in 0.08 s, the landing 40 cm up in 0.4 s, 60 fps: the floor
    // rises evenly enough to be 20 cm up when the toe gets over the riser.
    let dt = 1.0 / 60.0;
    let (mut last, mut largest) = (0.0f32, 0.0f32);
    for frame in 0..5 {
        let to_riser = 0.08 - frame as f32 * dt;
        let floor = rising_floor(last, [(0.2, to_riser), (0.4, 0.4 - frame as f32 * dt)], dt);
        assert_eq!(floor.weight, 1.0);
        largest = largest.max(floor.height - last);
        last = floor.height;
    }
    assert!((last - 0.2).abs() < 0.02, "{last}");
    assert!(largest < 0.05, "{largest}");
    // Up there and not yet over the tread (the landing lower than the foot was raised to):
    // held at the highest ground ahead; nothing ahead or bad input: none; a non-finite entry is
    // skipped.
    assert_eq!(rising_floor(0.25, [(0.2, 0.01), (0.1, 0.2)], dt), SwingFloor { height: 0.2, weight: 1.0 });
    assert_eq!(rising_floor(0.0, [], dt), SwingFloor::default());
    assert_eq!(rising_floor(f32::NAN, [(0.4, 0.1)], dt), SwingFloor::default());
    assert_eq!(rising_floor(0.0, [(0.4, 0.1)], 0.0), SwingFloor::default());
    assert_eq!(rising_floor(0.0, [(f32::NAN, 0.1), (0.1, f32::INFINITY)], dt), SwingFloor::default());
}

/// Stairs going up along +Z from z = 0: treads `TREAD` deep, risers `RISE` high; a ray meets
/// the tread under it, a box swept down meets the highest tread it spans.
struct Stairs;
const TREAD: f32 = 0.4;
const RISE: f32 = 0.15;

impl Stairs {
    fn height(z: f32) -> f32 {
        (z / TREAD).floor().max(0.0) * RISE
    }
}

impl StepGround for Stairs {
    fn ray(&mut self, o: Vec3, d: Vec3, max: f32) -> Option<crate::foot_placement::GroundHit> {
        let h = Self::height(o.z);
        (d.y < 0.0 && o.y >= h && o.y - h <= max * -d.y)
            .then(|| crate::foot_placement::GroundHit { point: Vec3::new(o.x, h, o.z), normal: Vec3::Y })
    }

    fn box_hits(&mut self, center: Vec3, rotation: Quat, half: Vec3, d: Vec3, distance: f32) -> bool {
        let reach = (rotation * Vec3::Z * half.z).z.abs() + (rotation * Vec3::X * half.x).z.abs();
        let (from, to) = (center.z - reach, center.z + reach);
        let highest = (0..=20).map(|k| Self::height(from + (to - from) * k as f32 / 20.0)).fold(0.0, f32::max);
        center.y - half.y + d.y * distance <= highest
    }
}

/// Where the heel and the toe tip of [`walk_up_stairs`]'s foot are with its ball at `ball` (along
/// +Z): from the flat foot, the heel 1.5 ankle-to-ball lengths behind, the tip 0.5 ahead.
fn footprint(ball: f32) -> (f32, f32) {
    let ankle = Vec3::new(0.0, 0.1, -0.12).length();
    (ball - 1.5 * ankle, ball + 0.5 * ankle)
}

/// Whether [`walk_up_stairs`]'s foot, its ball at `ball`, stands across a riser of [`Stairs`].
fn straddles(ball: f32) -> bool {
    let (heel, tip) = footprint(ball);
    Stairs::height(heel) != Stairs::height(tip)
}

/// One leg walking up [`Stairs`], stance and swing 0.5 s each (a 50 cm stride as animated),
/// the root `root_z(t)` along +Z: per touch-down, where the ball lands (world, steered) and its
/// shift; and the frames with a shift but no steering.
fn walk_up_stairs(steps: usize, root_z: impl Fn(f32) -> f32) -> (Vec<(Vec3, f32)>, usize) {
    let (dt, settings) = (1.0 / 60.0, FootstepSettings::default());
    let leg = crate::leg::LegChain { hip: 0, knee: 1, ankle: 2, toe: Some(3), toe_end: None };
    let pose = |toe: Vec3| {
        let at = |p: Vec3| Xform::from_translation(p);
        [at(Vec3::Y * 0.9), at(Vec3::new(0.0, 0.5, 0.05)), at(toe + Vec3::new(0.0, 0.1, -0.12)), at(toe)]
    };
    let rig = FootRig::from_flat_pose(&pose(Vec3::ZERO), leg).unwrap();
    let (mut root, mut legs, mut out) = (RootVelocity::default(), Vec::new(), [FootstepOutput::default()]);
    let (mut foot, mut landings) = (FootstepFoot::default(), Vec::new());
    let mut unsteered = 0;
    for frame in 0..(steps as f32 / dt) as usize {
        let t = frame as f32 * dt;
        // The root climbs with the stairs' pitch line.
        let z = root_z(t);
        let phase = t % 1.0;
        let contact = phase < 0.5;
        // Stance: the toe moves back under the root; swing: forward again, eased.
        let s = if contact {
            0.25 - phase
        } else {
            -0.25 + 0.5 * (1.0 - (std::f32::consts::PI * (phase - 0.5) * 2.0).cos()) * 0.5
        };
        let toe = Vec3::new(0.1, 0.0, s);
        let to_world = Xform::from_translation(Vec3::new(0.0, z.max(0.0) * RISE / TREAD, z));
        root.update(to_world, dt);
        let model = pose(toe);
        let job = FootstepJob {
            to_world,
            root: &root,
            model: &model,
            rigs: &[rig],
            toes: &[Some(toe)],
            planted_now: None,
            floor_heights: &[],
            ray: (0.5, 1.5),
        };
        let touch_down = contact && !foot.contact && t > 2.5;
        foot.contact = contact;
        let ball = to_world.transform_point(toe);
        (foot.ground, foot.ball_height) = (Some(Vec3::new(ball.x, Stairs::height(ball.z), ball.z)), ball.y);
        job.run(&settings, &mut legs, &[foot], &mut Stairs, dt, &mut out);
        assert!(out[0].steer.is_finite() && out[0].floor.height.is_finite() && out[0].shift.is_finite());
        if touch_down {
            // Where the ball lands: the animated one moved by the steering it landed with.
            landings.push((to_world.transform_point(toe + out[0].steer), out[0].shift));
        }
        unsteered += usize::from(out[0].shift != 0.0 && out[0].steer.length() < 0.5 * out[0].shift.abs());
    }
    (landings, unsteered)
}

#[test]
fn the_job_lands_a_foot_walking_up_stairs_on_whole_treads() {
    let (landings, unsteered) = walk_up_stairs(12, |t| t - 1.5);
    assert_eq!(unsteered, 0);
    assert!(landings.len() >= 8, "{}", landings.len());
    let naive = landings.iter().filter(|(at, shift)| straddles(at.z - shift)).count();
    let steered = landings.iter().filter(|(at, _)| straddles(at.z)).count();
    eprintln!("{} landings: {naive} would straddle a riser as animated, {steered} as steered", landings.len());
    assert!(naive >= 2, "the walk must give the job edges to avoid");
    assert_eq!(steered, 0);
}

#[test]
fn a_body_slowing_to_a_crawl_keeps_steering_its_feet() {
    // Up the stairs at 1 m/s, then at 0.1 m/s (below `RootVelocity::STANDING`): the shift the
    // feet were given still moves them along the line the body travelled, so a lock taking
    // the foot at touch-down takes it where it was steered.
    let crawl = |t: f32| if t < 4.0 { t - 1.5 } else { 2.5 + 0.1 * (t - 4.0) };
    let (landings, unsteered) = walk_up_stairs(10, crawl);
    assert!(landings.iter().any(|(_, shift)| *shift != 0.0), "the walk must steer: {landings:?}");
    assert_eq!(unsteered, 0, "frames with a landing shift and no steering");
}

#[test]
fn a_body_crawling_up_a_flight_still_lands_on_whole_treads() {
    // Up the stairs at 1 m/s, then crawling at 0.1 m/s (below `RootVelocity::STANDING`) with
    // the clip still stepping: the landings are still searched, along the line the body came
    // on, so every one that a shift well within `max_shift` puts on a whole tread with
    // `edge_margin` to spare lands on a whole tread.
    let crawl = |t: f32| if t < 4.0 { t - 1.5 } else { 2.5 + 0.1 * (t - 4.0) };
    let (landings, _) = walk_up_stairs(14, crawl);
    assert!(landings.len() >= 10, "{}", landings.len());
    let crawling = &landings[landings.len() - 7..];
    let margin = FootstepSettings::default().edge_margin;
    let roomy = |ball: f32| {
        let (heel, tip) = footprint(ball);
        Stairs::height(heel - margin) == Stairs::height(tip + margin)
    };
    let fixable = |ball: f32| (-12..=12).any(|k| roomy(ball + 0.01 * k as f32));
    let naive = crawling.iter().filter(|(at, shift)| straddles(at.z - shift) && fixable(at.z - shift)).count();
    let steered: Vec<_> = crawling.iter().filter(|(at, shift)| straddles(at.z) && fixable(at.z - shift)).collect();
    eprintln!("{} landings crawling: {naive} fixable ones would straddle a riser as animated", crawling.len());
    assert!(naive >= 2, "the crawl must give the job edges to avoid");
    assert!(steered.is_empty(), "landed across a riser though a shift would have fitted: {steered:?}");
}

#[test]
fn the_travel_turn_rate_follows_the_path_not_a_spinning_body() {
    // Straight ahead at 1.4 m/s while the body spins at 3 rad/s (a controller snapping to a
    // new heading): the path does not bend, the body's yaw rate says 3.
    let dt = 1.0 / 60.0;
    let mut spinning = RootVelocity::default();
    for frame in 0..60 {
        let t = frame as f32 * dt;
        spinning.update(Xform::from_translation_rotation(Vec3::Z * 1.4 * t, Quat::from_rotation_y(3.0 * t)), dt);
    }
    assert!(spinning.travel_turn_rate.abs() < 1e-3, "{}", spinning.travel_turn_rate);
    assert!((spinning.yaw_rate - 3.0).abs() < 0.05, "{}", spinning.yaw_rate);
    // Round a 2 m circle at 1.4 m/s, turning from +Z toward +X: the path bends at 0.7 rad/s
    // (positive about +Y), whatever way the body faces.
    let (radius, rate) = (2.0f32, 0.7f32);
    let mut rounding = RootVelocity::default();
    for frame in 0..60 {
        let a = rate * frame as f32 * dt;
        let at = Vec3::new(radius * (1.0 - a.cos()), 0.0, radius * a.sin());
        rounding.update(Xform::from_translation_rotation(at, Quat::IDENTITY), dt);
    }
    assert!((rounding.travel_turn_rate - rate).abs() < 0.01, "{}", rounding.travel_turn_rate);
    assert_eq!(rounding.yaw_rate, 0.0);
}
