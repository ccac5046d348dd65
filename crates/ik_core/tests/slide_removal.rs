//! Bars for offline slide removal: synthetic walks and jogs whose root moves ×1.25 and ×0.75
//! the clip's speed (so planted toes slide) lose ≥ 90 % of their toe travel during contacts,
//! and no hip-to-toe length exceeds the leg's reach.

mod common;

use common::*;
use glam::Vec3;
use ik_core::gait::GaitParams;
use ik_core::leg::LegChain;
use ik_core::slide_removal::{SlideFoot, SlideRemovalSettings, remove_foot_slide, toe_contact_travel};
use ik_core::{IkError, Skeleton, Xform};

const FPS: f32 = 60.0;

struct Outcome {
    before: f32,
    after: f32,
    worst_reach_ratio: f32,
    worst_target_miss: f32,
}

fn clean(skel: &Skeleton, params: &GaitParams, scale: f32, cycles: f32) -> Outcome {
    let frames = (params.cycle_duration * cycles * FPS).round() as usize;
    let (clip, contacts) = gait_clip(skel, params, frames, FPS, scale);
    let feet = [
        SlideFoot { chain: LEFT, contacts: &contacts[0], min_heights: min_heights(skel, &LEFT) },
        SlideFoot { chain: RIGHT, contacts: &contacts[1], min_heights: min_heights(skel, &RIGHT) },
    ];
    let mut calls = 0usize;
    let mut last = (0, 0);
    let settings = SlideRemovalSettings::default();
    let result = remove_foot_slide(skel.parents(), PELVIS, &feet, &clip, &settings, &mut |done, total| {
        calls += 1;
        assert!(done >= last.0 && done <= total);
        last = (done, total);
    })
    .unwrap();
    assert!(calls > 10 && last.0 == last.1, "progress reported {calls} times, ended at {last:?}");
    assert_eq!(result.locals.len(), clip.len());

    // Measure on the output clip itself.
    let mut before = 0.0;
    let mut after = 0.0;
    let mut worst_reach_ratio: f32 = 0.0;
    let mut worst_target_miss: f32 = 0.0;
    for (k, chain) in [LEFT, RIGHT].iter().enumerate() {
        let toe = chain.toe.unwrap();
        before += toe_contact_travel(&track(skel, &clip, toe), &contacts[k]);
        let toes_out = track(skel, &result.locals, toe);
        after += toe_contact_travel(&toes_out, &contacts[k]);
        let hips_out = track(skel, &result.locals, chain.hip);
        let reach = THIGH + SHIN + BALL_FROM_ANKLE.length();
        for f in 0..frames {
            worst_reach_ratio = worst_reach_ratio.max((toes_out[f] - hips_out[f]).length() / reach);
            worst_target_miss = worst_target_miss.max((toes_out[f] - result.toe_targets[k][f]).length());
            // The solved targets themselves: hip to toe within reach.
            let hip_target = result.pelvis[f] + (hips_out[f] - track_pelvis(skel, &result.locals, f));
            worst_reach_ratio = worst_reach_ratio.max((result.toe_targets[k][f] - hip_target).length() / reach);
        }
        assert!(
            (result.toe_travel_before[k] - toe_contact_travel(&track(skel, &clip, toe), &contacts[k])).abs() < 1e-4
        );
        assert!((result.toe_travel_after[k] - toe_contact_travel(&toes_out, &contacts[k])).abs() < 1e-4);
    }
    assert!(result.locals.iter().all(Xform::is_finite));
    Outcome { before, after, worst_reach_ratio, worst_target_miss }
}

fn track_pelvis(skel: &Skeleton, clip: &[Xform], frame: usize) -> Vec3 {
    model_of(skel, &clip[frame * skel.len()..(frame + 1) * skel.len()])[PELVIS].translation
}

#[test]
fn synthetic_clip_without_root_speed_change_does_not_slide() {
    let skel = biped();
    for params in [GaitParams::walk(), GaitParams::jog()] {
        let frames = (params.cycle_duration * FPS) as usize;
        let (clip, contacts) = gait_clip(&skel, &params, frames, FPS, 1.0);
        for (k, chain) in [LEFT, RIGHT].iter().enumerate() {
            let travel = toe_contact_travel(&track(&skel, &clip, chain.toe.unwrap()), &contacts[k]);
            assert!(travel < 1e-3, "fixture slides {travel} m at matching root speed");
        }
    }
}

#[test]
fn scaled_root_speed_toe_travel_reduced_by_90_percent_within_reach() {
    let skel = biped();
    for (name, params) in [("walk", GaitParams::walk()), ("jog", GaitParams::jog())] {
        for scale in [1.25f32, 0.75] {
            let o = clean(&skel, &params, scale, 2.0);
            let reduction = 1.0 - o.after / o.before;
            println!(
                "{name} x{scale}: toe travel during contacts {:.1} cm -> {:.2} cm ({:.1} % less); worst hip-toe / reach {:.3}; worst toe miss {:.2} mm",
                o.before * 100.0,
                o.after * 100.0,
                reduction * 100.0,
                o.worst_reach_ratio,
                o.worst_target_miss * 1000.0
            );
            assert!(o.before > 0.1, "{name} x{scale}: the source barely slides ({} m)", o.before);
            assert!(reduction >= 0.9, "{name} x{scale}: travel reduced by only {:.1} %", reduction * 100.0);
            assert!(
                o.worst_reach_ratio <= 1.0 + 1e-5,
                "{name} x{scale}: hip-toe length {} of reach",
                o.worst_reach_ratio
            );
            assert!(
                o.worst_target_miss < 1e-3,
                "{name} x{scale}: a leg missed its toe target by {} m",
                o.worst_target_miss
            );
        }
    }
}

#[test]
fn bad_input_is_an_error() {
    let skel = biped();
    let (clip, contacts) = gait_clip(&skel, &GaitParams::walk(), 10, FPS, 1.0);
    let mins = min_heights(&skel, &LEFT);
    let settings = SlideRemovalSettings { iterations: 10, ..Default::default() };
    let short = [SlideFoot { chain: LEFT, contacts: &contacts[0][..5], min_heights: mins }];
    assert_eq!(
        remove_foot_slide(skel.parents(), PELVIS, &short, &clip, &settings, &mut |_, _| {}),
        Err(IkError::LengthMismatch { expected: 10, got: 5 })
    );
    let no_toe = LegChain { toe: None, ..LEFT };
    let feet = [SlideFoot { chain: no_toe, contacts: &contacts[0], min_heights: mins }];
    assert!(remove_foot_slide(skel.parents(), PELVIS, &feet, &clip, &settings, &mut |_, _| {}).is_err());
    let mut broken = clip.clone();
    broken[7].translation.x = f32::NAN;
    let feet = [SlideFoot { chain: LEFT, contacts: &contacts[0], min_heights: mins }];
    assert_eq!(
        remove_foot_slide(skel.parents(), PELVIS, &feet, &broken, &settings, &mut |_, _| {}),
        Err(IkError::NonFiniteInput)
    );
    assert!(matches!(
        remove_foot_slide(skel.parents(), PELVIS, &feet, &clip[..clip.len() - 1], &settings, &mut |_, _| {}),
        Err(IkError::LengthMismatch { .. })
    ));
}
