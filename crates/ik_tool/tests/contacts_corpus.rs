//! Contacts on the corpus walks against contacts labelled by hand.
//!
//! Each clip's ball (contact point) height and its speed over the ground were printed frame by
//! frame (60 Hz, the rate the tool samples at: CesiumMan and RobotExpressive are resampled from
//! 24 and 30 Hz) and the stance spans were read off by hand with one rule: **the ball is within
//! 2 % of the leg length of the level it holds while planted** (CesiumMan 1.1 cm, mannequin
//! 1.7 cm, RobotExpressive 3.1 cm: its legs are 1.54 m) **and it moves over the ground no faster
//! than the clip's ground speed** (a swing moves forward at about twice it). Spans are
//! inclusive frame ranges; a looping clip's span may wrap past its last cycle frame (start >
//! end). The judgement for each span is in the comments of [`CLIPS`].
//!
//! Bar: per clip and foot, `ik_tool`'s labels (defaults; the one path `contacts`, `clean` and
//! `retarget` use) have as many spans as the hand labels, and each span's ends are within
//! 2 frames of the hand label's. Figures are printed (`--nocapture`). With
//! `CONTACT_PLOTS=<folder>` set, the plot of each clip is written there (docs/contacts/).

use std::path::Path;

use ik_tool::legs::{Leg, Legs, find_legs};
use ik_tool::motion::{ContactOptions, label_feet, root_motion, sample_clip};

/// A corpus clip and its hand labels `[left, right]`, inclusive frame spans.
struct HandLabels {
    file: &'static str,
    /// Clip name, or `""` for the file's first clip.
    clip: &'static str,
    plot: &'static str,
    spans: [&'static [(usize, usize)]; 2],
}

const CLIPS: [HandLabels; 5] = [
    // CesiumMan's walk (119 frames, not a loop: its ends differ by 3 mm at the right ball).
    // Left: the ball comes down to 7.9 mm above its level at frame 61 (11.0 mm at 60) moving at
    // 0.12 × ground speed, stays at 0–9.5 mm at ≤ 0.15 × until frame 69, and is 14.1 mm up at
    // 70. Right: planted from the first frame (8.1 mm, 0.31 ×; the heel is down) to frame 8
    // (8.8 mm, 0.44 ×; 14.0 mm at 9); again from frame 114, where its descent stops at
    // 10.8 mm (12.5 at 113) moving at 0.14 ×, holding 10.4–11.5 mm to the last frame.
    HandLabels {
        file: "assets/characters/CesiumMan.glb",
        clip: "",
        plot: "CesiumMan_walk.png",
        spans: [&[(61, 69)], &[(0, 8), (114, 118)]],
    },
    // RobotExpressive `Walking` (59 frames, looping: cycle frames 0–57). Left: the ball reaches
    // 6.6 mm above its level at frame 5 (31.9 mm at 4) at 0.96 × ground speed, holds 0–6 mm to
    // frame 25 (4.1 mm, 0.83 ×) and lifts to 18 mm at 1.35 × at 26. Right: 28 mm at 0.71 × at
    // frame 32 (58 mm at 31), 0–17 mm through frame 44, 25.1 mm at 0.15 × at 45, 36.6 mm at 46.
    HandLabels {
        file: "assets/characters/RobotExpressive.glb",
        clip: "Walking",
        plot: "RobotExpressive_Walking.png",
        spans: [&[(5, 25)], &[(32, 45)]],
    },
    // RobotExpressive `Running` (59 frames, looping). Short contacts: left 25 mm at 0.08 × at
    // frame 17 (59 mm at 16), 0–6 mm at 18–19, 17 mm at 0.19 × at 20, 59 mm at 21 (its ball also
    // dips to the floor at frame 45, but moving at 1.54 ×: a swing). Right: 9 mm at 0.43 × at 48
    // (44 mm at 47), 0 mm at 49, 11 mm at 0.02 × at 50, 39 mm at 51.
    HandLabels {
        file: "assets/characters/RobotExpressive.glb",
        clip: "Running",
        plot: "RobotExpressive_Running.png",
        spans: [&[(17, 20)], &[(48, 50)]],
    },
    // The mannequin's Walk (64 frames, looping: cycle frames 0–62, 1.4 m/s), heel first: the
    // ball comes down as the foot rolls off its heel. Left: 21.5 mm at frame 4, 9.5 mm at
    // 0.02 × at 5, 0 mm at exactly the ground speed from 6 to 37, 10.8 mm at 0.60 × at 38,
    // 27 mm at 39. Right: 26.5 mm at 35, 15.9 mm at 0.04 × at 36, 0 mm to 6, 10.3 mm at 0.72 ×
    // at 7, 24.9 mm at 8.
    HandLabels {
        file: "assets/mannequin.glb",
        clip: "Walk",
        plot: "mannequin_Walk.png",
        spans: [&[(5, 38)], &[(36, 7)]],
    },
    // The mannequin's Jog (45 frames, looping: cycle frames 0–43, 3.2 m/s). Left: 11 mm at
    // 0.42 × at frame 43 (25 mm at 42), 0 mm at the ground speed to 16, 2 mm at 0.24 × at 17,
    // 23 mm at 18. Right: the same half a cycle on, 21 to 39.
    HandLabels {
        file: "assets/mannequin.glb",
        clip: "Jog",
        plot: "mannequin_Jog.png",
        spans: [&[(43, 17)], &[(21, 39)]],
    },
];

/// The legs as `ik_tool` finds them; RobotExpressive's by name, because `ik_tool`'s leg finding
/// still takes its `LegL`/`LegR` chains for the legs and refuses `FootL` under `Bone` (its feet
/// are IK-control feet; tried after the rig learned to leave its hands out).
fn legs(doc: &ik_tool::gltf_read::Document) -> Legs {
    find_legs(&doc.nodes, None).unwrap_or_else(|e| {
        let node = |n: &str| doc.nodes.iter().position(|x| x.name == n).unwrap_or_else(|| panic!("{e}: no {n}"));
        let leg = |side: &'static str, s: &str| Leg {
            side,
            thigh: node(&format!("UpperLeg{s}")),
            calf: node(&format!("LowerLeg{s}")),
            foot: node(&format!("Foot{s}")),
            ball: Some(node(&format!("Foot{s}_1"))),
            toe_end: None,
        };
        Legs { profile: "by name".into(), pelvis: node("Body"), legs: [leg("left", "L"), leg("right", "R")] }
    })
}

/// Inclusive contact spans over one cycle (`cycle` frames); a span across the seam of a
/// looping clip is one span with start > end.
fn spans(labels: &[bool], cycle: usize, looping: bool) -> Vec<(usize, usize)> {
    let at = |i: usize| labels[i % cycle];
    let starts: Vec<usize> =
        (0..cycle).filter(|&i| at(i) && if i == 0 { !looping || !at(cycle - 1) } else { !at(i - 1) }).collect();
    if starts.is_empty() {
        return if labels[..cycle].iter().all(|&c| c) { vec![(0, cycle - 1)] } else { vec![] };
    }
    starts
        .into_iter()
        .map(|s| {
            let mut e = s;
            while (looping || e + 1 < cycle) && at(e + 1) && (e + 1) % cycle != s {
                e += 1;
            }
            (s, e % cycle)
        })
        .collect()
}

/// Frames between two frame numbers, round the cycle when looping.
fn gap(a: usize, b: usize, cycle: usize, looping: bool) -> usize {
    let d = a.abs_diff(b);
    if looping { d.min(cycle - d) } else { d }
}

#[test]
fn corpus_walk_contacts_match_the_hand_labels_within_2_frames() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let plots = std::env::var_os("CONTACT_PLOTS").map(std::path::PathBuf::from);
    let mut failures = Vec::new();
    for hand in &CLIPS {
        let doc = ik_tool::gltf_read::load(&root.join(hand.file)).unwrap();
        let legs = legs(&doc);
        let clip = if hand.clip.is_empty() { &doc.clips[0] } else { doc.clip(hand.clip).unwrap() };
        let sampled = sample_clip(&doc, clip);
        let motion = root_motion(&doc, clip, &sampled, &legs, None, None).unwrap();
        let feet = label_feet(&doc, &sampled, &legs, &motion, &ContactOptions::default()).unwrap();
        let (n, looping) = (sampled.timeline.frames, sampled.looping);
        let cycle = if looping { n - 1 } else { n };
        for (foot, expected) in feet.iter().zip(hand.spans) {
            let got = spans(&foot.contacts, cycle, looping);
            let worst = expected
                .iter()
                .map(|&(s, e)| {
                    got.iter()
                        .map(|&(gs, ge)| gap(s, gs, cycle, looping).max(gap(e, ge, cycle, looping)))
                        .min()
                        .unwrap_or(usize::MAX)
                })
                .max()
                .unwrap_or(0);
            println!(
                "{} {} {}: hand {:?}, labelled {:?} (floor {:.3} m, {:.2} m/s); largest end difference {} frame(s)",
                hand.file,
                hand.clip,
                foot.side,
                expected,
                got,
                foot.floor,
                motion.velocity.length(),
                if worst == usize::MAX { "-".to_string() } else { worst.to_string() }
            );
            if got.len() != expected.len() || worst > 2 {
                failures
                    .push(format!("{} {} {}: hand {expected:?}, labelled {got:?}", hand.file, hand.clip, foot.side));
            }
        }
        if let Some(dir) = &plots {
            std::fs::create_dir_all(dir).unwrap();
            let times: Vec<f32> = (0..n).map(|f| sampled.timeline.time(f)).collect();
            let title = format!(
                "{} {}: ball height, speed over the ground, contacts (ground speed {:.2} m/s)",
                hand.file.rsplit('/').next().unwrap_or(hand.file),
                if hand.clip.is_empty() { "walk" } else { hand.clip },
                motion.velocity.length()
            );
            let input = ik_tool::plot::PlotInput {
                title: &title,
                times: &times,
                feet: &feet,
                velocity_threshold: feet[0].thresholds.leave_speed,
                height_threshold: feet[0].thresholds.leave_height,
            };
            ik_tool::plot::draw(&dir.join(hand.plot), &input).unwrap();
        }
    }
    assert!(failures.is_empty(), "contacts off the hand labels:\n{}", failures.join("\n"));
}
