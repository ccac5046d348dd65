//! Contact labelling bars: on a synthetic walk with known contacts (1 mm capture jitter and a
//! few one-frame pops), the default labels agree with the truth on ≥ 95 % of all frames and on
//! ≥ 98 % of the frames more than 70 ms from a true touch-down or lift-off, at 60 and 30 fps,
//! and the majority vote never agrees less than the labels without it; a swing that dips to the
//! floor never sets the floor; a looping clip's span across its seam is one span; the majority
//! vote removes one-frame blips; the smoothed signal stays in 0..1.

use ik_core::IkError;
use ik_core::contact::{ContactSettings, label_contacts, majority_vote, smooth_contacts};
use ik_core::glam::Vec3;

#[path = "support/walk.rs"]
mod walk;
use walk::*;

/// World toe trajectory and true contacts of one foot: the root moves at `root_scale` × the
/// clip speed; `jitter` metres of deterministic noise per axis; a 2 cm one-frame pop every
/// 97 frames when `pops` is set.
fn walk(fps: f32, seconds: f32, phase_offset: f32, side: f32, jitter: f32, pops: bool) -> (Vec<Vec3>, Vec<bool>) {
    let frames = (seconds * fps) as usize;
    let mut rng = 11u64 + side.to_bits() as u64;
    let mut toe = Vec::with_capacity(frames);
    let mut truth = Vec::with_capacity(frames);
    for i in 0..frames {
        let t = i as f32 / fps;
        let p = (t / CYCLE + phase_offset).fract();
        let noise = Vec3::new(lcg(&mut rng), lcg(&mut rng), lcg(&mut rng)) * 2.0 - Vec3::ONE;
        let pop = if pops && i % 97 == 50 { Vec3::new(0.0, 0.0, 0.02) } else { Vec3::ZERO };
        toe.push(clip_toe(p, side) + Vec3::Z * SPEED * t + noise * jitter + pop);
        truth.push(p < STANCE);
    }
    (toe, truth)
}

/// Leg length the synthetic walk is scaled for, m.
const LEG: f32 = 0.85;

/// Share of the frames more than `margin` frames from a change of `truth` where the labels
/// agree with it.
fn agreement(labels: &[bool], truth: &[bool], margin: usize) -> f32 {
    let n = truth.len();
    let edge =
        |i: usize| (i.saturating_sub(margin)..(i + margin + 1).min(n)).any(|j| j > 0 && truth[j] != truth[j - 1]);
    let far: Vec<usize> = (0..n).filter(|&i| margin == 0 || !edge(i)).collect();
    far.iter().filter(|&&i| labels[i] == truth[i]).count() as f32 / far.len().max(1) as f32
}

#[test]
fn default_labels_agree_with_a_synthetic_walk_on_95_percent_of_frames() {
    for fps in [60.0f32, 30.0] {
        for (offset, side) in [(0.0, 1.0), (0.5, -1.0)] {
            let (toe, truth) = walk(fps, 12.0, offset, side, 0.001, true);
            let settings = ContactSettings::for_gait(LEG, SPEED, fps);
            let mut raw = vec![false; toe.len()];
            let unvoted = ContactSettings { vote_window: 1, ..settings };
            label_contacts(&toe, fps, false, &unvoted, &mut raw).unwrap();
            let mut labels = vec![false; toe.len()];
            label_contacts(&toe, fps, false, &settings, &mut labels).unwrap();
            let margin = (0.07 * fps).ceil() as usize;
            let (all_raw, all) = (agreement(&raw, &truth, 0), agreement(&labels, &truth, 0));
            let (far_raw, far) = (agreement(&raw, &truth, margin), agreement(&labels, &truth, margin));
            println!(
                "{fps} fps, foot {side}: all frames: labels without the vote agree on {:.1} %, voted labels on \
                 {:.1} %; away from the edges {:.1} % / {:.1} %",
                all_raw * 100.0,
                all * 100.0,
                far_raw * 100.0,
                far * 100.0
            );
            assert!(all >= 0.95, "agreement {all}");
            assert!(all >= all_raw, "the vote must not make things worse: {all} < {all_raw}");
            assert!(far >= 0.98 && far_raw >= 0.98, "agreement away from the edges {far}, {far_raw}");
        }
    }
}

#[test]
fn majority_vote_removes_single_frame_blips_and_keeps_longer_runs() {
    let mut labels = [true, true, false, true, true, false, false, true, false, false, true, true];
    majority_vote(&mut labels, 3);
    assert_eq!(labels, [true, true, true, true, true, false, false, false, false, false, true, true]);
    // Window 5: runs of 2 vanish, runs of 3+ stay.
    let mut labels = [false, false, false, true, true, false, false, false, true, true, true, false, false, false];
    majority_vote(&mut labels, 5);
    assert_eq!(labels, [false, false, false, false, false, false, false, false, true, true, true, false, false, false]);
    // Against a brute-force vote on a long pseudo-random sequence and many windows.
    let mut rng = 5u64;
    let input: Vec<bool> = (0..500).map(|_| lcg(&mut rng) < 0.5).collect();
    for window in [2usize, 3, 4, 7, 15, 31, 127, 400] {
        let mut fast = input.clone();
        majority_vote(&mut fast, window);
        let r = window.min(127) / 2;
        for i in 0..input.len() {
            let (lo, hi) = (i.saturating_sub(r), (i + r).min(input.len() - 1));
            let count = input[lo..=hi].iter().filter(|&&l| l).count();
            let size = hi - lo + 1;
            let want = if 2 * count == size { input[i] } else { 2 * count > size };
            assert_eq!(fast[i], want, "window {window}, frame {i}");
        }
    }
}

#[test]
fn smoothed_signal_is_in_0_1_and_crosses_one_half_at_the_label_edges() {
    let labels: Vec<bool> = (0..120).map(|i| (30..80).contains(&i)).collect();
    let mut signal = vec![0.0; labels.len()];
    smooth_contacts(&labels, 60.0, 0.05, &mut signal).unwrap();
    assert!(signal.iter().all(|s| (0.0..=1.0).contains(s)));
    for (i, (&s, &l)) in signal.iter().zip(&labels).enumerate() {
        if (i as i32 - 30).abs() > 1 && (i as i32 - 79).abs() > 1 {
            assert_eq!(s > 0.5, l, "frame {i}: {s}");
        }
    }
    assert!(signal[55] > 0.999 && signal[5] < 1e-3);
    // Rising edge is smooth: no step bigger than a third of the range.
    assert!(signal.windows(2).all(|w| (w[1] - w[0]).abs() < 0.34));
    smooth_contacts(&labels, 60.0, 0.0, &mut signal).unwrap();
    assert!(signal.iter().zip(&labels).all(|(&s, &l)| s == if l { 1.0 } else { 0.0 }));
}

#[test]
fn bad_input_is_an_error() {
    let toe = [Vec3::ZERO, Vec3::new(0.0, f32::NAN, 0.0)];
    let mut labels = [false; 2];
    let s = ContactSettings::for_gait(LEG, SPEED, 60.0);
    assert_eq!(label_contacts(&toe, 60.0, false, &s, &mut labels), Err(IkError::NonFiniteInput));
    assert_eq!(label_contacts(&toe[..1], 0.0, false, &s, &mut labels[..1]), Err(IkError::NonFiniteInput));
    assert_eq!(
        label_contacts(&toe, 60.0, false, &s, &mut labels[..1]),
        Err(IkError::LengthMismatch { expected: 2, got: 1 })
    );
    let mut signal = [0.0; 3];
    assert_eq!(smooth_contacts(&labels, 60.0, 0.1, &mut signal), Err(IkError::LengthMismatch { expected: 2, got: 3 }));
    let nan = ContactSettings { leave_speed: f32::NAN, ..s };
    assert_eq!(label_contacts(&toe[..1], 60.0, false, &nan, &mut labels[..1]), Err(IkError::NonFiniteInput));
    // A still toe is in contact; one held still 0.5 m above where it stood is not.
    let mut out = [false; 30];
    let path: Vec<Vec3> = (0..30).map(|i| Vec3::new(0.0, if i < 12 { 0.0 } else { 0.5 }, 0.0)).collect();
    let floor = label_contacts(&path, 60.0, false, &s, &mut out).unwrap().floor;
    assert_eq!(floor, 0.0);
    assert!(out[..11].iter().all(|&c| c) && out[12..].iter().all(|&c| !c), "{out:?}");
}

#[test]
fn a_swing_dipping_to_the_floor_does_not_set_it_and_a_seam_span_is_one_span() {
    // One looping 60-frame cycle at 1.4 m/s: planted 2 cm up for frames 40..=59 and 0..=9 (one
    // span across the seam), swinging forward at 2.8 m/s 5 cm up, dipping to 0.5 cm below the
    // stance for one frame (25).
    let mut path: Vec<Vec3> = Vec::new();
    let mut z = 0.0;
    for i in 0..=60 {
        let p = i % 60;
        let planted = !(10..40).contains(&p);
        if i > 0 && !planted {
            z += 2.8 / 60.0;
        }
        let y = if planted {
            0.02
        } else if p == 25 {
            0.015
        } else {
            0.05
        };
        path.push(Vec3::new(0.0, y, z));
    }
    let s = ContactSettings::for_gait(LEG, SPEED, 60.0);
    let mut labels = vec![false; path.len()];
    let floor = label_contacts(&path, 60.0, true, &s, &mut labels).unwrap().floor;
    println!("floor {floor:.3} m (stance at 0.020, swing dip at 0.015)");
    assert!((floor - 0.02).abs() < 1e-6, "floor {floor}");
    let cycle = &labels[..60];
    let starts = (0..60).filter(|&i| cycle[i] && !cycle[(i + 59) % 60]).count();
    assert_eq!(starts, 1, "{labels:?}");
    assert!(labels[59] && labels[0] && labels[60] && labels[9] && !labels[11] && !labels[25], "{labels:?}");
}

fn lcg(state: &mut u64) -> f32 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 40) as f32) / ((1u64 << 24) as f32)
}

/// A clean capture's planted ball rising a millimetre mid-stance, still, is one stance; a swing
/// rising as slowly but a few centimetres is a step. (The band fits the still frames: 2 mm
/// here, far under the 1.7 cm a noisy capture gets.)
#[test]
fn a_still_foot_a_millimetre_off_its_floor_mid_stance_stays_planted() {
    // 60 Hz, 1.4 m/s in the ground frame: 24 frames planted at z = 0 (frames 8–15 1 mm up,
    // barely moving), then a 24-frame swing forward 0.7 m, 6 cm up at its middle; looping.
    let mut path: Vec<Vec3> = (0..24)
        .map(|i| {
            let bump = if (8..16).contains(&i) { 0.001 } else { 0.0 };
            Vec3::new(0.0, bump, 0.0005 * (i % 3) as f32)
        })
        .collect();
    path.extend((1..=24).map(|i| {
        let t = i as f32 / 24.0;
        Vec3::new(0.0, 0.06 * (std::f32::consts::PI * t).sin(), 0.7 * t)
    }));
    let settings = ContactSettings::for_gait(0.85, 1.4, 60.0);
    let mut labels = vec![false; path.len()];
    let labelled = label_contacts(&path, 60.0, false, &settings, &mut labels).unwrap();
    println!("band {:.5} m, labels {labels:?}", labelled.settings.leave_height);
    assert!(labelled.settings.leave_height < 0.003, "a clean stance's band: {}", labelled.settings.leave_height);
    assert!(labels[..24].iter().all(|&c| c), "the stance is one: {labels:?}");
    assert!(labels[26..47].iter().all(|&c| !c), "the swing is free: {labels:?}");
}

/// A stance whose ball holds the floor exactly for its first half and then holds still 4 mm up
/// (a capture's toe roll: a Mixamo walk's late stance) is planted to its end: the band fits
/// every still frame, not only the slowest tenth (those were all in the first half, so the band
/// was 0.1 mm and the second half of every stance was labelled a swing).
#[test]
fn a_stance_holding_still_a_few_millimetres_up_is_planted_to_its_end() {
    // 60 Hz, 1.4 m/s in the ground frame: 30 frames planted (15 at the floor, 15 at 4 mm,
    // barely moving), then a 30-frame swing forward 0.84 m, 8 cm up at its middle; looping.
    let mut path: Vec<Vec3> =
        (0..30).map(|i| Vec3::new(0.0, if i < 15 { 0.0 } else { 0.004 }, 0.0005 * (i % 3) as f32)).collect();
    path.extend((1..=30).map(|i| {
        let t = i as f32 / 30.0;
        Vec3::new(0.0, 0.004 + 0.08 * (std::f32::consts::PI * t).sin(), 0.84 * t)
    }));
    let settings = ContactSettings::for_gait(0.85, 1.4, 60.0);
    let mut labels = vec![false; path.len()];
    let labelled = label_contacts(&path, 60.0, true, &settings, &mut labels).unwrap();
    println!("band {:.5} m, labels {labels:?}", labelled.settings.leave_height);
    assert!(labels[..30].iter().all(|&c| c), "the whole stance: {labels:?}");
    assert!(labels[33..58].iter().all(|&c| !c), "the swing is free: {labels:?}");
    assert!(labelled.settings.enter_height < settings.enter_height, "still fitted to the stance");
}
