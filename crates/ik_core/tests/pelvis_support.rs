//! Which planted foot carries the pelvis (lowest, front uphill, highest), the heel that lifts
//! before the pelvis drops for a short leg, and the floor a swinging foot is carried over.

mod common;

use common::*;
use glam::{Quat, Vec3};
use ik_core::foot_placement::{
    FootPlacement, FootPlacementSettings, FootPlacementState, FootReport, GroundHit, PelvisSupport, SwingFloor,
};
use ik_core::{IkError, Skeleton, Xform};

/// Standing with knees bent (pelvis 10 cm low), the left foot 20 cm forward, the right 20 cm
/// back.
fn striding(skel: &Skeleton) -> Vec<Xform> {
    let mut animated = standing(skel, 0.1);
    lift_foot(skel, &mut animated, &LEFT, 0.0, 0.2);
    lift_foot(skel, &mut animated, &RIGHT, 0.0, -0.2);
    animated
}

/// [`striding`] across a 12 cm riser going up: the left foot on the upper tread, the right on
/// the lower one (z < 0).
fn across_a_riser(skel: &Skeleton) -> (Vec<Xform>, impl FnMut(Vec3, Vec3, f32) -> Option<GroundHit>) {
    let animated = striding(skel);
    let ground = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::Y * if o.z > 0.0 { 0.0 } else { -0.12 }, Vec3::Y);
    (animated, ground)
}

/// The pelvis offset after two seconds of placement at 60 fps on the same animated pose.
fn settled_pelvis<G>(skel: &Skeleton, job: &FootPlacement, animated: &[Xform], ground: &mut G) -> f32
where
    G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
{
    let (mut state, mut reports) = (FootPlacementState::new(2), [FootReport::default(); 2]);
    let mut offset = 0.0;
    for _ in 0..120 {
        let mut locals = animated.to_vec();
        let mut model = model_of(skel, &locals);
        offset = job.run(&mut locals, &mut model, &mut *ground, 1.0 / 60.0, &mut state, &mut reports).unwrap();
    }
    offset
}

#[test]
fn the_front_foot_uphill_keeps_the_pelvis_up_and_the_heel_behind_lifts_before_it_drops() {
    let skel = biped();
    let settings =
        |pelvis_support, heel_lift| FootPlacementSettings { pelvis_support, heel_lift, ..Default::default() };
    let place = |s: FootPlacementSettings| {
        let (animated, ground) = across_a_riser(&skel);
        run(&skel, &animated, Xform::IDENTITY, s, 120, 1.0 / 60.0, ground)
    };
    let lowest = place(settings(PelvisSupport::LowestFoot, 1.0));
    let front = place(settings(PelvisSupport::FrontFoot, 0.0));
    let lifted = place(settings(PelvisSupport::FrontFoot, 1.0));
    let highest = place(settings(PelvisSupport::HighestFoot, 1.0));
    println!(
        "12 cm riser: pelvis lowest foot {:.2} cm, front foot {:.2} cm, front foot + heel lift {:.2} cm ({:.1}°), highest {:.2} cm",
        lowest.pelvis_offset * 100.0,
        front.pelvis_offset * 100.0,
        lifted.pelvis_offset * 100.0,
        lifted.reports[1].heel_lift.to_degrees(),
        highest.pelvis_offset * 100.0,
    );
    // Following the lowest foot, the pelvis drops the whole riser and no heel lifts.
    assert!((lowest.pelvis_offset + 0.12).abs() < 2e-3, "{}", lowest.pelvis_offset);
    assert!(lowest.reports.iter().all(|r| r.heel_lift == 0.0));
    // Following the front foot, the leg behind straightens instead; lifting its heel takes
    // more of the riser; going uphill the highest foot is the front one.
    assert!(front.pelvis_offset > lowest.pelvis_offset + 0.01, "{}", front.pelvis_offset);
    assert!(lifted.pelvis_offset > front.pelvis_offset + 0.01, "{}", lifted.pelvis_offset);
    assert!((highest.pelvis_offset - lifted.pelvis_offset).abs() < 1e-4);
    assert!(lifted.reports[1].heel_lift > 0.05 && lifted.reports[0].heel_lift == 0.0);
    // Every planted foot still stands on its ground (the lifted one on its toes) ...
    for (name, out) in [("lowest", &lowest), ("front", &front), ("lifted", &lifted)] {
        for r in &out.reports {
            assert!(r.float_after.abs() < 5e-3 && r.reached, "{name}: {r:?}");
        }
    }
    // ... the lifted foot's toes where they stood, turned as they were, its heel up.
    let toe = RIGHT.toe.unwrap();
    assert!(lifted.model[toe].translation.distance(lowest.model[toe].translation) < 2e-3);
    assert!(lifted.model[toe].rotation.angle_between(lowest.model[toe].rotation) < 1e-3);
    assert!(lifted.model[RIGHT.ankle].translation.y > lowest.model[RIGHT.ankle].translation.y + 0.01);
}

#[test]
fn a_heel_lifts_only_about_toes_that_are_down() {
    // The foot behind lands heel first, toes up (a heel strike): lifting its heel about its
    // toes would lift the whole foot off the tread, so it does not lift; the pelvis drops and
    // the foot stands as it would under the lowest foot.
    let skel = biped();
    let (mut animated, ground) = across_a_riser(&skel);
    let ankle = model_of(&skel, &animated)[RIGHT.ankle].translation;
    pose_leg(&skel, &mut animated, &RIGHT, ankle, Quat::from_rotation_x(-0.4));
    let rigs = foot_rigs_with_heel_and_tip(&skel.rest_model(), [LEFT, RIGHT]);
    let mut ground = ground;
    let mut place = |pelvis_support| {
        let settings = FootPlacementSettings { pelvis_support, heel_lift: 1.0, ..Default::default() };
        let job = FootPlacement { settings, ..placement_job(skel.parents(), &rigs) };
        let (mut state, mut reports) = (FootPlacementState::new(2), [FootReport::default(); 2]);
        for _ in 0..60 {
            let mut locals = animated.clone();
            let mut model = model_of(&skel, &locals);
            job.run(&mut locals, &mut model, &mut ground, 1.0 / 60.0, &mut state, &mut reports).unwrap();
        }
        reports[1]
    };
    let (lowest, front) = (place(PelvisSupport::LowestFoot), place(PelvisSupport::FrontFoot));
    println!(
        "heel strike behind a riser: heel lift {:.1}°, sole float {:.2} mm (lowest foot: {:.2} mm)",
        front.heel_lift.to_degrees(),
        front.float_after * 1e3,
        lowest.float_after * 1e3
    );
    assert_eq!(front.heel_lift, 0.0);
    assert!(front.planted == 1.0 && (front.float_after - lowest.float_after).abs() < 1e-3, "{front:?}");
}

#[test]
fn going_down_the_front_foot_is_the_lowest_and_the_highest_foot_keeps_the_pelvis_up() {
    let skel = biped();
    // The same stance going down: the front foot on the lower tread.
    let animated = striding(&skel);
    let down = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::Y * if o.z > 0.0 { -0.12 } else { 0.0 }, Vec3::Y);
    let place = |pelvis_support| {
        let s = FootPlacementSettings { pelvis_support, heel_lift: 1.0, ..Default::default() };
        run(&skel, &animated, Xform::IDENTITY, s, 120, 1.0 / 60.0, down)
    };
    let (lowest, front, highest) =
        (place(PelvisSupport::LowestFoot), place(PelvisSupport::FrontFoot), place(PelvisSupport::HighestFoot));
    println!(
        "12 cm riser down: pelvis lowest foot {:.2} cm, front foot {:.2} cm, highest {:.2} cm",
        lowest.pelvis_offset * 100.0,
        front.pelvis_offset * 100.0,
        highest.pelvis_offset * 100.0
    );
    assert!((front.pelvis_offset - lowest.pelvis_offset).abs() < 1e-4);
    assert!(highest.pelvis_offset > lowest.pelvis_offset + 0.01);
    for r in highest.reports.iter().chain(&front.reports) {
        assert!(r.float_after.abs() < 5e-3 && r.reached, "{r:?}");
    }
}

#[test]
fn a_swinging_foot_is_carried_over_its_swing_floor_and_never_lowered_by_it() {
    let skel = biped();
    let mut animated = standing(&skel, 0.04);
    lift_foot(&skel, &mut animated, &LEFT, 0.25, 0.15);
    let animated_model = model_of(&skel, &animated);
    let rigs = biped_feet(&skel);
    let flat = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::ZERO, Vec3::Y);
    let place = |floors: &[SwingFloor]| {
        let job = FootPlacement { swing_floors: floors, ..placement_job(skel.parents(), &rigs) };
        let (mut state, mut reports) = (FootPlacementState::new(2), [FootReport::default(); 2]);
        let mut locals = animated.clone();
        let mut model = model_of(&skel, &locals);
        let result = job.run(&mut locals, &mut model, flat, 1.0 / 60.0, &mut state, &mut reports);
        result.map(|pelvis| (model, reports, pelvis))
    };
    let carried = |height| SwingFloor { height, weight: 1.0 };
    let moved = |model: &[Xform], chain: &ik_core::leg::LegChain| {
        model[chain.ankle].translation - animated_model[chain.ankle].translation
    };
    // The swinging left foot over a floor 15 cm up: carried 15 cm higher; the planted right foot
    // (no floor) stays where it stood.
    let (model, reports, _) = place(&[carried(0.15), SwingFloor::default()]).unwrap();
    let rise = moved(&model, &LEFT);
    println!("swing floor 15 cm up: swinging ankle raised {:.2} cm", rise.y * 100.0);
    assert_eq!(reports[0].planted, 0.0);
    assert!((rise.y - 0.15).abs() < 1e-3 && rise.x.abs() < 1e-3 && rise.z.abs() < 1e-3, "{rise}");
    assert!(moved(&model, &RIGHT).length() < 1e-3);
    // Half its weight: half the lift.
    let (model, _, _) = place(&[SwingFloor { height: 0.15, weight: 0.5 }, SwingFloor::default()]).unwrap();
    assert!((moved(&model, &LEFT).y - 0.075).abs() < 1e-3);
    // A floor below the animated floor lowers nothing.
    let (model, _, _) = place(&[carried(-0.05), SwingFloor::default()]).unwrap();
    assert!(moved(&model, &LEFT).length() < 1e-4);
    // The planted right foot given a floor 10 cm up (the caller thinks it swings): lifted, and it
    // no longer counts as planted.
    let (model, reports, _) = place(&[SwingFloor::default(), carried(0.1)]).unwrap();
    assert!((moved(&model, &RIGHT).y - 0.1).abs() < 1e-3 && reports[1].planted == 0.0);
    // One floor for two feet, or a NaN: an error.
    assert!(matches!(place(&[carried(0.1)]), Err(IkError::LengthMismatch { expected: 2, got: 1 })));
    assert!(matches!(place(&[carried(f32::NAN), carried(0.0)]), Err(IkError::NonFiniteInput)));
}

#[test]
fn walking_backwards_up_a_riser_the_front_foot_is_the_one_ahead_in_the_direction_of_travel() {
    // The striding pose walking backwards (-z) up a 12 cm riser: the right foot, behind the
    // knees but ahead in the direction of travel, stands on the upper tread.
    let skel = biped();
    let animated = striding(&skel);
    let rigs = foot_rigs(&skel.rest_model(), [LEFT, RIGHT]);
    let place = |pelvis_support, travel| {
        let mut ground =
            |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::Y * if o.z < 0.0 { 0.0 } else { -0.12 }, Vec3::Y);
        let settings = FootPlacementSettings { pelvis_support, ..Default::default() };
        let job = FootPlacement { settings, travel, ..placement_job(skel.parents(), &rigs) };
        settled_pelvis(&skel, &job, &animated, &mut ground)
    };
    let lowest = place(PelvisSupport::LowestFoot, Vec3::ZERO);
    let backwards = place(PelvisSupport::FrontFoot, Vec3::new(0.0, 0.3, -1.2));
    let knees = place(PelvisSupport::FrontFoot, Vec3::ZERO);
    let forwards = place(PelvisSupport::FrontFoot, Vec3::Z);
    println!(
        "12 cm riser walking backwards: pelvis lowest foot {:.2} cm, front foot by travel {:.2} cm, by the knees {:.2} cm",
        lowest * 100.0,
        backwards * 100.0,
        knees * 100.0
    );
    // Following the foot ahead in the direction of travel keeps the pelvis up, as going up
    // forwards does; the knees' forward (or travel the other way) picks the lower foot.
    assert!(backwards > lowest + 0.01, "{backwards} vs {lowest}");
    assert!((knees - lowest).abs() < 1e-4 && (forwards - lowest).abs() < 1e-4, "{knees} {forwards} {lowest}");
    // A non-finite travel is refused, not used.
    let job = FootPlacement { travel: Vec3::NAN, ..placement_job(skel.parents(), &rigs) };
    let (mut locals, mut state, mut reports) =
        (animated.clone(), FootPlacementState::new(2), [FootReport::default(); 2]);
    let mut model = model_of(&skel, &locals);
    let no_ground = |_: Vec3, _: Vec3, _: f32| None;
    assert_eq!(
        job.run(&mut locals, &mut model, no_ground, 1.0 / 60.0, &mut state, &mut reports),
        Err(IkError::NonFiniteInput)
    );
}

#[test]
fn a_swing_floor_that_does_not_raise_a_foot_leaves_it_its_say_in_the_pelvis() {
    // The stride across a 12 cm riser, the right foot on the lower tread. A floor at that
    // tread's height raises nothing: the foot still holds the pelvis down a riser under the
    // lowest foot. One at the upper tread's height carries it: it has no say.
    let skel = biped();
    let (animated, mut ground) = across_a_riser(&skel);
    let rigs = biped_feet(&skel);
    let mut pelvis_with = |floor: SwingFloor| {
        let floors = [SwingFloor::default(), floor];
        let job = FootPlacement { swing_floors: &floors, ..placement_job(skel.parents(), &rigs) };
        settled_pelvis(&skel, &job, &animated, &mut ground)
    };
    let none = pelvis_with(SwingFloor::default());
    let at_its_ground = pelvis_with(SwingFloor { height: -0.12, weight: 1.0 });
    let raised = pelvis_with(SwingFloor { height: 0.0, weight: 1.0 });
    println!(
        "pelvis: no floor {:.2} cm, a floor at the foot's ground {:.2} cm, one a riser up {:.2} cm",
        none * 100.0,
        at_its_ground * 100.0,
        raised * 100.0
    );
    assert!((none + 0.12).abs() < 2e-3 && (at_its_ground - none).abs() < 1e-4, "{none} {at_its_ground}");
    assert!(raised > none + 0.1, "{raised}");
}

#[test]
fn a_foot_in_the_air_beyond_its_legs_reach_does_not_pull_the_pelvis_down() {
    // A run's back-kick: the left foot 30 cm up and 60 cm behind, its leg nearly straight, and
    // a landing shift (footstep prediction) 25 cm further back: out of the leg's reach however
    // low the pelvis goes. The right foot stands on flat ground. Following the highest foot, the
    // pelvis stays where the planted foot holds it; the swinging leg stretches for its target.
    let skel = biped();
    let mut animated = standing(&skel, 0.04);
    lift_foot(&skel, &mut animated, &LEFT, 0.3, -0.6);
    let rigs = biped_feet(&skel);
    let shifts = [Vec3::new(0.0, 0.0, -0.25), Vec3::ZERO];
    let mut flat = |o: Vec3, d: Vec3, m: f32| plane_hit(o, d, m, Vec3::ZERO, Vec3::Y);
    let mut pelvis = |pelvis_support| {
        let settings = FootPlacementSettings { pelvis_support, ..Default::default() };
        let job = FootPlacement { settings, foot_shifts: &shifts, ..placement_job(skel.parents(), &rigs) };
        settled_pelvis(&skel, &job, &animated, &mut flat)
    };
    let (highest, front, lowest) =
        (pelvis(PelvisSupport::HighestFoot), pelvis(PelvisSupport::FrontFoot), pelvis(PelvisSupport::LowestFoot));
    println!(
        "a foot in the air out of reach: pelvis {:.2} cm (highest foot), {:.2} cm (front foot), {:.2} cm (lowest foot)",
        highest * 100.0,
        front * 100.0,
        lowest * 100.0
    );
    for offset in [highest, front, lowest] {
        assert!(offset.abs() < 0.01, "the pelvis fell {:.2} cm for a foot in the air", -offset * 100.0);
    }
}
