//! Issue 45, item 1: the corpus's creatures rigged by shape alone — the Khronos Fox (front legs
//! named as arms), the Mesh2Motion horse and spider — and every other character either a
//! two-legged creature or one clear message, never a panic.

mod common;

use ik_core::Xform;
use ik_core::glam::Vec3;
use ik_core::rig::{CreatureLeg, CreatureReport, Side};
use ik_tool::creature::rig_file;
use ik_tool::gltf_read::{Document, load_character};

fn rig(file: &str) -> (Document, CreatureReport<usize>) {
    let doc = load_character(&common::characters().join(file)).unwrap();
    let report = rig_file(&doc).unwrap_or_else(|e| panic!("{file}: {e}"));
    println!("{file}:\n{}\n", report.summary());
    (doc, report)
}

/// Every node's rest position in model space.
fn rest_positions(doc: &Document) -> Vec<Vec3> {
    let mut world = vec![Xform::IDENTITY; doc.nodes.len()];
    for &k in &doc.order {
        let node = &doc.nodes[k];
        world[k] = node.parent.map_or(node.rest, |p| world[p].mul_xform(&node.rest));
    }
    world.iter().map(|w| w.translation).collect()
}

/// Pairs left then right, front to back, the legs of a pair alike, left on the left, and
/// every leg ahead of the next pair's along the found forward (hips and ends).
fn check_pairs(file: &str, doc: &Document, report: &CreatureReport<usize>, legs: usize) {
    let (rig, f) = (&report.rig, &report.frame);
    assert_eq!(rig.legs.len(), legs, "{file}");
    let pos = rest_positions(doc);
    let body = pos[rig.body];
    let middle = |l: &CreatureLeg<usize>| (pos[l.bones[0]] + pos[l.bones[l.bones.len() - 1]]) * 0.5;
    for (k, leg) in rig.legs.iter().enumerate() {
        assert_eq!(leg.pair, k / 2, "{file}");
        assert_eq!(leg.side, if k % 2 == 0 { Side::Left } else { Side::Right }, "{file}");
        let off = (middle(leg) - body).dot(f.left);
        assert!(if leg.side == Side::Left { off > 0.0 } else { off < 0.0 }, "{file}: leg {k} on the wrong side");
        assert!(leg.segments >= 2, "{file}: leg {k} has {} segments", leg.segments);
    }
    for pair in rig.legs.chunks(2) {
        let (l, r) = (&pair[0], &pair[1]);
        assert_eq!((l.bones.len(), l.segments), (r.bones.len(), r.segments), "{file}: pair {}", l.pair);
        assert!((l.length - r.length).abs() <= 0.02 * l.length, "{file}: pair {}", l.pair);
    }
    for (front, back) in rig.legs.chunks(2).zip(rig.legs.chunks(2).skip(1)) {
        for (a, b) in front.iter().zip(back) {
            let (fa, fb) = (middle(a).dot(f.forward), middle(b).dot(f.forward));
            assert!(fa > fb, "{file}: pair {} is not ahead of pair {} ({fa} <= {fb})", a.pair, b.pair);
        }
    }
    let (front_hips, hind_hips) = (pos[rig.legs[0].bones[0]], pos[rig.legs[legs - 1].bones[0]]);
    println!("{file}: front hips {:.3} ahead of the hind hips", (front_hips - hind_hips).dot(f.forward));
    assert!(f.left.dot(f.up).abs() < 1e-4 && f.forward.dot(f.up).abs() < 1e-4, "{file}");
}

/// The name of each leg's hip, in the rig's order.
fn first_names(report: &CreatureReport<usize>) -> Vec<String> {
    report.indices.legs.iter().map(|l| report.names[l.bones[0]].clone()).collect()
}

#[test]
fn the_fox_has_four_legs_its_front_legs_are_its_arm_bones() {
    let (doc, report) = rig("Fox.glb");
    check_pairs("Fox.glb", &doc, &report, 4);
    assert_eq!(
        first_names(&report),
        ["b_LeftUpperArm_09", "b_RightUpperArm_06", "b_LeftLeg01_015", "b_RightLeg01_019"]
    );
    let rig = &report.indices;
    assert_eq!(report.names[rig.body], "b_Hip_01");
    assert_eq!(report.names[rig.legs[0].carrier], "b_Spine02_03");
    assert_eq!(report.names[rig.legs[2].carrier], "b_Hip_01");
    assert_eq!(rig.legs[0].segments, 2, "the fox's front legs: upper arm, forearm, hand");
    assert_eq!(rig.legs[2].segments, 3, "the fox's hind legs: thigh, shin, hock, foot");
    assert!(report.frame.forward.abs_diff_eq(Vec3::Z, 1e-4), "{:?}", report.frame.forward);
    let names = |v: &[usize]| v.iter().map(|&b| report.names[b].as_str()).collect::<Vec<_>>();
    assert_eq!(names(&rig.head), ["b_Neck_04", "b_Head_05"]);
    assert_eq!(names(&rig.tail), ["b_Tail01_012", "b_Tail02_013", "b_Tail03_014"]);
}

#[test]
fn the_horse_has_four_legs_front_legs_from_the_shoulder_blades() {
    let (doc, report) = rig("m2m_horse.glb");
    check_pairs("m2m_horse.glb", &doc, &report, 4);
    assert_eq!(first_names(&report), ["front_scapula_l", "front_scapula_r", "back_leg_pelvis_l", "back_leg_pelvis_r"]);
    let rig = &report.indices;
    assert_eq!(report.names[rig.body], "hips");
    assert!(report.frame.forward.abs_diff_eq(Vec3::Z, 1e-4), "{:?}", report.frame.forward);
    assert!(rig.tail.iter().any(|&b| report.names[b] == "tail_leaf"));
    assert!(rig.head.iter().any(|&b| report.names[b] == "head"));
}

#[test]
fn the_spider_has_eight_legs_in_four_pairs() {
    let (doc, report) = rig("m2m_spider.glb");
    check_pairs("m2m_spider.glb", &doc, &report, 8);
    let firsts: Vec<String> = report.indices.legs.iter().map(|l| report.names[l.bones[1]].clone()).collect();
    assert_eq!(
        firsts,
        ["leg_a_1_l", "leg_a_1_r", "leg_b_1_l", "leg_b_1_r", "leg_c_1_l", "leg_c_1_r", "leg_d_1_l", "leg_d_1_r"]
    );
    assert!(report.indices.legs.iter().all(|l| l.segments == 3), "{}", report.summary());
    assert!(report.frame.forward.abs_diff_eq(Vec3::Z, 1e-4), "{:?}", report.frame.forward);
    assert!(report.indices.tail.iter().any(|&b| report.names[b] == "tail_tip"));
}

/// Every other character of the corpus: a creature of one pair, or one clear message.
#[test]
fn the_other_characters_rig_as_bipeds_or_say_why_not() {
    let creatures = ["Fox.glb", "m2m_horse.glb", "m2m_spider.glb"];
    let mut files: Vec<_> = std::fs::read_dir(common::characters())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "glb"))
        .filter(|p| !creatures.iter().any(|c| p.file_name().is_some_and(|n| n == *c)))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc = match load_character(&path) {
            Ok(doc) => doc,
            Err(e) => {
                println!("{file}: not loaded: {e}");
                assert!(e.to_string().contains(&file), "{e}");
                continue;
            }
        };
        match rig_file(&doc) {
            Ok(report) => {
                println!("{file}:\n{}\n", report.summary());
                assert_eq!(report.rig.legs.len(), 2, "{file}: a humanoid is a creature of one pair");
            }
            Err(e) => {
                let text = e.to_string();
                println!("{file}: {text}\n");
                assert!(text.starts_with(&doc.label) && text.contains("cannot rig"), "{file}: {text}");
                assert!(text.contains("re-export") || text.contains("Re-export"), "{file}: {text}");
            }
        }
    }
}

/// `ik_tool rig-creature FILE` prints the legs, or the one message with exit status 2.
#[test]
fn the_rig_creature_command_prints_the_legs_or_the_refusal() {
    let fox = common::characters().join("Fox.glb");
    let (code, out, err) = common::ik_tool(&["rig-creature", common::s(&fox)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("a creature of 4 legs"), "{out}");
    assert!(out.contains("pair 0 left : b_LeftUpperArm_09 > b_LeftForeArm_010 > b_LeftHand_011"), "{out}");
    let toy = common::characters().join("kenney_mini_female_a.glb");
    let (code, out, err) = common::ik_tool(&["rig-creature", common::s(&toy)]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("cannot rig this creature") && err.contains("re-export"), "{err}");
}
