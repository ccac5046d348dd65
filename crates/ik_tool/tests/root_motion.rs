//! Root-motion clips (issue 39): the generated mannequin's walking clips with their travel on
//! the root bone or on the hips (and the `everything` convention: no root, Z-up at scale 0.01,
//! facing −Z, feet under a control bone), against the in-place clips they came from. Bars: the
//! travel's speed within 2 % of the planted feet's backward speed in the in-place clip; baking
//! in place gives the in-place clip back, with no pelvis jump over 2 cm between frames (the
//! loop's seam included); contacts of the travelling clip end within 2 frames of the in-place
//! clip's; `clean` writes the travel back as it was and leaves planted toes within 1 cm.

mod common;

use common::{TempDir, ik_tool, s};
use glam::{Vec3, Vec4};
use ik_core::Xform;
use ik_tool::gltf_read::{self, Document, Property};
use ik_tool::legs::{Legs, find_file_legs};
use ik_tool::mannequin::root_motion::{Carrier, add_root_motion};
use ik_tool::motion::{Sampled, contact_points, ground_velocity, sample_clip, world_frames};
use ik_tool::travel::sample_in_place;

/// An in-place file and its root-motion variant.
struct Pair {
    label: String,
    still: Vec<u8>,
    moving: Vec<u8>,
}

fn pairs() -> Vec<Pair> {
    let mannequin = ik_tool::mannequin::generate().unwrap().glb;
    let preset = ik_tool::mannequin::convention::find("everything").unwrap();
    let everything = ik_tool::mannequin::generate_convention(&preset).unwrap().glb;
    let make = |label: &str, still: &[u8], carrier: Carrier| Pair {
        label: format!("{label}, {} carries", carrier.name()),
        still: still.to_vec(),
        moving: add_root_motion(label, still, carrier).unwrap(),
    };
    vec![
        make("mannequin", &mannequin, Carrier::Root),
        make("mannequin", &mannequin, Carrier::Hips),
        make("everything", &everything, Carrier::Hips),
    ]
}

fn open(bytes: &[u8]) -> (Document, Legs) {
    let doc = gltf_read::parse("test", bytes).unwrap();
    let legs = find_file_legs(&doc, None).unwrap();
    (doc, legs)
}

/// World transforms of every frame (no travel added).
fn world(sampled: &Sampled) -> Vec<Xform> {
    world_frames(&sampled.parents, &sampled.locals, 1.0 / sampled.timeline.rate, 0, Vec3::ZERO).unwrap()
}

/// The travelling clips of a pair: (name, in-place sampled, travelling sampled with its travel
/// taken out).
fn travelling(pair: &Pair) -> Vec<(String, Sampled, Sampled)> {
    let ((still, _), (moving, legs)) = (open(&pair.still), open(&pair.moving));
    let mut out = Vec::new();
    for clip in &moving.clips {
        let baked = sample_in_place(&moving, clip, &legs).unwrap();
        if baked.travel.is_some() {
            out.push((clip.name.clone(), sample_clip(&still, still.clip(&clip.name).unwrap()), baked));
        }
    }
    out
}

#[test]
fn the_travel_speed_is_the_planted_feet_speed_within_2_percent() {
    for pair in pairs() {
        let (still, legs) = open(&pair.still);
        let clips = travelling(&pair);
        assert!(!clips.is_empty(), "{}: no clip travels", pair.label);
        for (name, in_place, baked) in clips {
            let points = contact_points(&still, &in_place, &legs).unwrap();
            let planted = ground_velocity(&in_place, &world(&in_place), &points).length();
            let speed = baked.travel.as_ref().unwrap().clip.speed;
            let error = (speed - planted).abs() / planted;
            println!(
                "{}, {name}: travel {speed:.4} m/s, planted feet {planted:.4} m/s: {:.2} %",
                pair.label,
                100.0 * error
            );
            assert!(
                error <= 0.02,
                "{}, {name}: travel {speed} m/s against the planted feet's {planted} m/s",
                pair.label
            );
        }
    }
}

#[test]
fn baking_in_place_gives_back_the_in_place_clip_without_a_snap_at_the_loop() {
    for pair in pairs() {
        let (_, legs) = open(&pair.moving);
        let pelvis = |sampled: &Sampled| sampled.bone_of_node[legs.pelvis];
        for (name, in_place, baked) in travelling(&pair) {
            let (a, b) = (world(&in_place), world(&baked));
            let moved = a.iter().zip(&b).map(|(x, y)| x.translation.distance(y.translation)).fold(0.0, f32::max);
            let turned = a.iter().zip(&b).map(|(x, y)| x.rotation.angle_between(y.rotation)).fold(0.0, f32::max);
            let bones = baked.bones();
            let hips: Vec<Vec3> = b.chunks_exact(bones).map(|f| f[pelvis(&baked)].translation).collect();
            let jump = hips.windows(2).map(|w| w[0].distance(w[1])).fold(0.0, f32::max);
            let seam = hips[hips.len() - 1].distance(hips[0]);
            println!(
                "{}, {name}: joints within {:.3} mm and {:.4}°; pelvis jump ≤ {:.2} cm a frame, {:.3} mm at the seam",
                pair.label,
                1000.0 * moved,
                turned.to_degrees(),
                100.0 * jump,
                1000.0 * seam
            );
            assert!(baked.looping, "{}, {name}: the baked clip no longer loops", pair.label);
            assert!(moved < 1e-3 && turned < 0.1f32.to_radians(), "{}, {name}: {moved} m, {turned} rad", pair.label);
            assert!(jump <= 0.02 && seam <= 1e-3, "{}, {name}: pelvis jump {jump} m, seam {seam} m", pair.label);
        }
    }
}

#[test]
fn contacts_of_the_travelling_clip_end_within_2_frames_of_the_in_place_ones() {
    let dir = TempDir::new("root_motion_contacts");
    for (k, pair) in pairs().iter().enumerate() {
        let (still_path, moving_path) = (dir.path(&format!("still{k}.glb")), dir.path(&format!("moving{k}.glb")));
        std::fs::write(&still_path, &pair.still).unwrap();
        std::fs::write(&moving_path, &pair.moving).unwrap();
        let shared = ik_tool::cli::Shared::default();
        let (_, still) = ik_tool::cli::label_clips(&still_path, None, &shared).unwrap();
        let (_, moving) = ik_tool::cli::label_clips(&moving_path, None, &shared).unwrap();
        let mut checked = 0;
        for (a, b) in still.clips.iter().zip(&moving.clips).filter(|(_, b)| b.sampled.travel.is_some()) {
            assert!(
                (b.motion.velocity.length() - a.motion.velocity.length()).abs() < 0.02 * a.motion.velocity.length()
            );
            for foot in 0..2 {
                let (x, y) = (
                    ik_tool::stance::spans(&a.feet[foot].contacts, false),
                    ik_tool::stance::spans(&b.feet[foot].contacts, false),
                );
                assert_eq!(x.len(), y.len(), "{}, {}: stances {x:?} vs {y:?}", pair.label, a.clip);
                let ends = x.iter().zip(&y).map(|(p, q)| p.0.abs_diff(q.0).max(p.1.abs_diff(q.1))).max().unwrap_or(0);
                println!("{}, {} foot {foot}: {} stances, ends within {ends} frames", pair.label, a.clip, x.len());
                assert!(ends <= 2, "{}, {}: stances {x:?} vs {y:?}", pair.label, a.clip);
            }
            checked += 1;
        }
        assert!(checked > 0, "{}: no travelling clip labelled", pair.label);
    }
}

#[test]
fn the_inplace_command_bakes_the_clips_and_writes_the_travel_to_the_sidecar() {
    let dir = TempDir::new("root_motion_inplace");
    let pair = &pairs()[1];
    let (input, out) = (dir.path("moving.glb"), dir.path("baked.glb"));
    std::fs::write(&input, &pair.moving).unwrap();
    let (code, stdout, stderr) = ik_tool(&["inplace", s(&input), "--out", s(&out)]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Walk: travels: the hips bone `pelvis` carries root motion at 1.400 m/s"), "{stdout}");
    assert!(stdout.contains("Idle: in place already"), "{stdout}");
    let sidecar =
        ik_tool::sidecar::Sidecar::parse(&std::fs::read_to_string(dir.path("baked.ik.json")).unwrap()).unwrap();
    let (baked, legs) = open(&std::fs::read(&out).unwrap());
    let (still, _) = open(&pair.still);
    for name in ["Walk", "Jog"] {
        let record = sidecar.clip(name).unwrap().root_motion.clone().unwrap();
        let nominal = sidecar.clip(name).unwrap().nominal_speed;
        assert!(record.baked && record.carrier == "pelvis" && record.turn_rate.abs() < 1e-3, "{record:?}");
        assert!((nominal - record.speed).abs() < 1e-4, "{name}: nominal {nominal} vs travel {}", record.speed);
        let clip = baked.clip(name).unwrap();
        let again = sample_in_place(&baked, clip, &legs).unwrap();
        assert!(again.travel.is_none(), "{name}: the baked clip still travels");
        let reference = world(&sample_clip(&still, still.clip(name).unwrap()));
        let again = world(&again);
        let moved = reference.iter().zip(&again).map(|(x, y)| x.translation.distance(y.translation));
        let moved = moved.fold(0.0, f32::max);
        assert!(moved < 1e-3, "{name}: the baked clip is {moved} m off the in-place one");
    }
    assert!(sidecar.clip("Idle").unwrap().root_motion.is_none());
}

/// The pair's travelling file with the pelvis swaying 1.5 cm sideways once a cycle over its
/// travel (planted feet slide with it).
fn swaying(pair: &Pair, clip: &str) -> Vec<u8> {
    use ik_tool::gltf_patch::{AnimationPatch, NewChannel, patch};
    let (doc, legs) = open(&pair.moving);
    let c = doc.clip(clip).unwrap();
    let sampled = sample_clip(&doc, c);
    let (bones, frames, bone) = (sampled.bones(), sampled.timeline.frames, sampled.bone_of_node[legs.pelvis]);
    let values: Vec<Vec4> = (0..frames)
        .map(|f| {
            let phase = std::f32::consts::TAU * f as f32 / (frames - 1) as f32;
            (sampled.locals[f * bones + bone].translation + Vec3::X * 0.015 * phase.sin()).extend(0.0)
        })
        .collect();
    let times = (0..frames).map(|f| sampled.timeline.time(f)).collect();
    let channel = NewChannel { node: legs.pelvis, property: Property::Translation, times, values };
    patch(&doc, &[AnimationPatch { animation: c.index, channels: vec![channel], extras: None }]).unwrap()
}

#[test]
fn clean_keeps_the_travel_as_it_was_and_plants_the_toes_within_a_centimetre() {
    use ik_tool::gltf_patch::{AnimationPatch, patch};
    let pair = &pairs()[1];
    let input = swaying(pair, "Walk");
    let (doc, legs) = open(&input);
    let clip = doc.clip("Walk").unwrap();
    let options = ik_tool::clean::CleanOptions::default();
    let cleaned = ik_tool::clean::clean_clip(&doc, clip, &legs, None, &options, &mut |_, _| {}).unwrap();
    assert!(cleaned.travel.as_ref().is_some_and(|t| t.contains("1.400 m/s")), "{:?}", cleaned.travel);
    assert!(cleaned.report.kept.is_none() && !cleaned.report.nothing_to_fix, "{}", cleaned.report.table());
    for foot in &cleaned.report.feet {
        println!(
            "{} foot: contact travel {:.2} cm → {:.2} cm",
            foot.side,
            100.0 * foot.travel[0],
            100.0 * foot.travel[1]
        );
        assert!(foot.travel[0] > 0.01 && foot.travel[1] <= 0.01, "{}", cleaned.report.table());
    }
    let written = patch(&doc, &[AnimationPatch { animation: clip.index, channels: cleaned.channels, extras: None }]);
    let (out, out_legs) = open(&written.unwrap());
    let before = sample_in_place(&doc, clip, &legs).unwrap().travel.unwrap();
    let after = sample_in_place(&out, out.clip("Walk").unwrap(), &out_legs).unwrap().travel.unwrap();
    let apart = before.travel.iter().zip(&after.travel).map(|(a, b)| a.translation.distance(b.translation));
    let apart = apart.fold(0.0, f32::max);
    println!("travel {:.4} → {:.4} m/s, frames within {:.3} mm", before.clip.speed, after.clip.speed, 1000.0 * apart);
    assert!((after.clip.speed - before.clip.speed).abs() < 1e-3 * before.clip.speed && apart < 1e-3);
}

#[test]
fn on_the_corpus_in_place_walks_stay_in_place_and_moving_hips_are_taken_out_and_put_back() {
    // CesiumMan's walk and RobotExpressive's Walking and Running are in place; RobotExpressive's
    // Sitting and Standing move its hips (`Body`) 0.4–0.7 m over the floor.
    let characters = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/characters");
    let cases = [
        ("CesiumMan.glb", None, false),
        ("RobotExpressive.glb", Some("Walking"), false),
        ("RobotExpressive.glb", Some("Running"), false),
        ("RobotExpressive.glb", Some("Sitting"), true),
        ("RobotExpressive.glb", Some("Standing"), true),
    ];
    for (file, name, travels) in cases {
        let doc = gltf_read::load(&characters.join(file)).unwrap();
        let legs = find_file_legs(&doc, None).unwrap();
        let clip = name.map_or(&doc.clips[0], |n| doc.clip(n).unwrap());
        let sampled = sample_clip(&doc, clip);
        let baked = sample_in_place(&doc, clip, &legs).unwrap();
        assert_eq!(baked.travel.is_some(), travels, "{file} {}", clip.name);
        let Some(travel) = &baked.travel else { continue };
        println!("{file} {}: {}", clip.name, travel.describe());
        assert_eq!(travel.carrier_name, "Body");
        // The remainder's hips end where they started over the floor; the travel put back gives
        // the clip as the file plays it.
        let bones = baked.bones();
        let hips = |f: usize| world(&baked)[f * bones + travel.carrier].translation;
        let net = hips(baked.timeline.frames - 1) - hips(0);
        assert!(Vec3::new(net.x, 0.0, net.z).length() < 1e-3, "{file} {}: remainder moves {net}", clip.name);
        let mut restored = baked.clone();
        travel.restore(&restored.parents, &mut restored.locals, 1.0).unwrap();
        let (a, b) = (world(&restored), world(&sampled));
        let apart = a.iter().zip(&b).map(|(x, y)| x.translation.distance(y.translation)).fold(0.0, f32::max);
        assert!(apart < 1e-4, "{file} {}: restored {apart} m off the file's clip", clip.name);
    }
}

#[test]
fn retarget_carries_the_travel_onto_the_target_scaled_by_its_legs() {
    use ik_tool::retarget::{RetargetOptions, run_clips};
    use ik_tool::sidecar::Sidecar;
    let dir = TempDir::new("root_motion_retarget");
    let pair = &pairs()[1];
    let (still, moving) = (dir.path("still.glb"), dir.path("moving.glb"));
    std::fs::write(&still, &pair.still).unwrap();
    std::fs::write(&moving, &pair.moving).unwrap();
    let target = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/characters/CesiumMan.glb");
    let options = RetargetOptions::default();
    let (still_out, moving_out) = (dir.path("still_out.glb"), dir.path("moving_out.glb"));
    run_clips(&still, &target, &still_out, Some(&["Walk"]), &options).unwrap();
    let text = run_clips(&moving, &target, &moving_out, Some(&["Walk"]), &options).unwrap();
    assert!(text.contains("carried onto the target at"), "{text}");
    let sidecar = |glb: &std::path::Path| {
        Sidecar::parse(&std::fs::read_to_string(ik_tool::mannequin::sidecar_path(glb)).unwrap()).unwrap()
    };
    let (a, b) = (sidecar(&still_out), sidecar(&moving_out));
    let (a, b) = (a.clip("Walk").unwrap(), b.clip("Walk").unwrap());
    let speed = b.root_motion.as_ref().expect("the retargeted Walk travels").speed;
    let error = (speed - a.nominal_speed).abs() / a.nominal_speed;
    println!("retargeted travel {speed:.4} m/s, in-place retarget {:.4} m/s: {:.2} %", a.nominal_speed, 100.0 * error);
    assert!(error <= 0.02);
    for (x, y) in [(&a.contacts.foot_l, &b.contacts.foot_l), (&a.contacts.foot_r, &b.contacts.foot_r)] {
        let (x, y) = (ik_tool::stance::spans(x, false), ik_tool::stance::spans(y, false));
        assert_eq!(x.len(), y.len(), "stances {x:?} vs {y:?}");
        let ends = x.iter().zip(&y).map(|(p, q)| p.0.abs_diff(q.0).max(p.1.abs_diff(q.1))).max().unwrap_or(0);
        println!("retargeted Walk: {} stances, ends within {ends} frames of the in-place retarget's", x.len());
        assert!(ends <= 2, "stances {x:?} vs {y:?}");
    }
}
