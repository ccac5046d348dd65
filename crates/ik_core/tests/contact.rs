//! Contact labelling bars: on a synthetic walk with known contacts (1 mm capture jitter and a
//! few one-frame pops), the default labels agree with the truth on ≥ 95 % of frames at 60 and
//! 30 fps; the majority vote removes one-frame blips; the smoothed signal stays in 0..1.

use ik_core::IkError;
use ik_core::contact::{ContactSettings, label_contacts, majority_vote, raw_contacts, smooth_contacts};
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

fn agreement(labels: &[bool], truth: &[bool]) -> f32 {
    labels.iter().zip(truth).filter(|(a, b)| a == b).count() as f32 / truth.len() as f32
}

#[test]
fn default_labels_agree_with_a_synthetic_walk_on_95_percent_of_frames() {
    for fps in [60.0f32, 30.0] {
        for (offset, side) in [(0.0, 1.0), (0.5, -1.0)] {
            let (toe, truth) = walk(fps, 12.0, offset, side, 0.001, true);
            let settings = ContactSettings::default();
            let mut raw = vec![false; toe.len()];
            raw_contacts(&toe, fps, 0.0, &settings, &mut raw).unwrap();
            let mut labels = vec![false; toe.len()];
            label_contacts(&toe, fps, 0.0, &settings, &mut labels).unwrap();
            let (a_raw, a) = (agreement(&raw, &truth), agreement(&labels, &truth));
            println!(
                "{fps} fps, foot {side}: raw labels agree on {:.1} %, voted labels on {:.1} %",
                a_raw * 100.0,
                a * 100.0
            );
            assert!(a >= 0.95, "agreement {a}");
            assert!(a >= a_raw, "the vote must not make things worse");
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
    let s = ContactSettings::default();
    assert_eq!(label_contacts(&toe, 60.0, 0.0, &s, &mut labels), Err(IkError::NonFiniteInput));
    assert_eq!(label_contacts(&toe[..1], 0.0, 0.0, &s, &mut labels[..1]), Err(IkError::NonFiniteInput));
    assert_eq!(
        label_contacts(&toe, 60.0, 0.0, &s, &mut labels[..1]),
        Err(IkError::LengthMismatch { expected: 2, got: 1 })
    );
    let mut signal = [0.0; 3];
    assert_eq!(smooth_contacts(&labels, 60.0, 0.1, &mut signal), Err(IkError::LengthMismatch { expected: 2, got: 3 }));
    // A still toe on the floor is in contact; a still toe in the air is not.
    let still = [Vec3::new(0.0, 0.02, 0.0); 5];
    let high = [Vec3::new(0.0, 0.5, 0.0); 5];
    let mut out = [false; 5];
    label_contacts(&still, 60.0, 0.0, &s, &mut out).unwrap();
    assert_eq!(out, [true; 5]);
    label_contacts(&high, 60.0, 0.0, &s, &mut out).unwrap();
    assert_eq!(out, [false; 5]);
}

fn lcg(state: &mut u64) -> f32 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 40) as f32) / ((1u64 << 24) as f32)
}
