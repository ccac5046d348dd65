//! [`rig_creature`] on synthetic skeletons: a quadruped, a hexapod, a spider, a biped, an odd
//! leg count, single-segment legs, and the same skeletons shuffled, renamed and turned Z-up.

use glam::Vec3;

use super::*;

/// A skeleton under construction: `(name, parent, rest)`.
#[derive(Default)]
struct Build(Vec<(String, Option<usize>, Vec3)>);

impl Build {
    fn add(&mut self, name: &str, parent: Option<usize>, at: [f32; 3]) -> usize {
        self.0.push((name.to_string(), parent, Vec3::from_array(at)));
        self.0.len() - 1
    }

    /// A chain of bones below `parent`, one per point; returns the last.
    fn chain(&mut self, name: &str, parent: usize, points: &[[f32; 3]]) -> usize {
        points.iter().enumerate().fold(parent, |p, (i, &at)| self.add(&format!("{name}_{i}"), Some(p), at))
    }

    /// A leg and its mirror twin (x negated), named `{name}_l` / `{name}_r`.
    fn pair(&mut self, name: &str, parent: usize, points: &[[f32; 3]]) {
        self.chain(&format!("{name}_l"), parent, points);
        let mirrored: Vec<[f32; 3]> = points.iter().map(|p| [-p[0], p[1], p[2]]).collect();
        self.chain(&format!("{name}_r"), parent, &mirrored);
    }

    fn bones(&self) -> Vec<SkeletonBone<'_, usize>> {
        let b = self.0.iter().enumerate();
        b.map(|(i, (name, parent, rest))| SkeletonBone { handle: i, name, parent: *parent, rest: *rest }).collect()
    }

    fn rig(&self) -> Result<CreatureReport<usize>, RigError> {
        rig_creature(&self.bones())
    }

    fn index(&self, name: &str) -> usize {
        self.0.iter().position(|b| b.0 == name).unwrap_or_else(|| panic!("no bone {name}"))
    }
}

/// A fox-like quadruped facing +Z, Y up: hind legs on the pelvis, front legs on the chest, a
/// drooping tail, a rising neck and head; every leg three segments.
fn quadruped() -> Build {
    let mut b = Build::default();
    let pelvis = b.add("pelvis", None, [0.0, 1.0, -0.5]);
    let spine = b.add("spine", Some(pelvis), [0.0, 1.05, 0.0]);
    let chest = b.add("chest", Some(spine), [0.0, 1.05, 0.5]);
    b.chain("neck", chest, &[[0.0, 1.3, 0.75], [0.0, 1.5, 0.9]]);
    b.chain("tail", pelvis, &[[0.0, 1.0, -0.7], [0.0, 0.8, -1.0], [0.0, 0.6, -1.3]]);
    b.pair("hind", pelvis, &[[0.2, 0.95, -0.5], [0.2, 0.6, -0.35], [0.2, 0.3, -0.6], [0.2, 0.0, -0.55]]);
    b.pair("front", chest, &[[0.2, 0.95, 0.5], [0.2, 0.6, 0.4], [0.2, 0.25, 0.5], [0.2, 0.0, 0.5]]);
    b
}

fn names(report: &CreatureReport<usize>, bones: &[usize]) -> Vec<String> {
    bones.iter().map(|&b| report.names[b].clone()).collect()
}

#[test]
fn a_quadruped_has_two_pairs_front_legs_on_the_chest_and_a_tail_and_head() {
    let b = quadruped();
    let report = b.rig().unwrap_or_else(|e| panic!("{e}"));
    println!("{}", report.summary());
    let rig = &report.indices;
    assert_eq!(rig.legs.len(), 4);
    assert_eq!(report.frame.up, Vec3::Y);
    assert!(report.frame.forward.abs_diff_eq(Vec3::Z, 1e-5), "{:?}", report.frame.forward);
    assert_eq!(report.frame.forward_from, CreatureForward::HeadChain);
    assert!(report.frame.left.abs_diff_eq(Vec3::X, 1e-5));
    assert_eq!(report.names[rig.body], "pelvis");
    let legs: Vec<(usize, Side, String, usize)> =
        rig.legs.iter().map(|l| (l.pair, l.side, report.names[l.bones[0]].clone(), l.segments)).collect();
    assert_eq!(
        legs,
        vec![
            (0, Side::Left, "front_l_0".into(), 3),
            (0, Side::Right, "front_r_0".into(), 3),
            (1, Side::Left, "hind_l_0".into(), 3),
            (1, Side::Right, "hind_r_0".into(), 3),
        ]
    );
    assert_eq!(report.names[rig.legs[0].carrier], "chest");
    assert_eq!(report.names[rig.legs[2].carrier], "pelvis");
    assert_eq!(names(&report, &rig.legs[2].bones), ["hind_l_0", "hind_l_1", "hind_l_2", "hind_l_3"]);
    assert_eq!(rig.legs[2].foot, b.index("hind_l_3"));
    assert_eq!(rig.legs[2].toe, None);
    assert_eq!(names(&report, &rig.spine), ["pelvis", "spine", "chest"]);
    assert_eq!(names(&report, &rig.head), ["neck_0", "neck_1"]);
    assert_eq!(names(&report, &rig.tail), ["tail_0", "tail_1", "tail_2"]);
    assert!((report.frame.body_height - 1.0).abs() < 1e-5);
    assert!((report.frame.ground - 0.0).abs() < 1e-6);
}

#[test]
fn a_hexapod_s_three_pairs_on_three_thorax_bones_are_ordered_front_to_back() {
    let mut b = Build::default();
    let abdomen = b.add("abdomen", None, [0.0, 0.3, -0.5]);
    b.add("abdomen_tip", Some(abdomen), [0.0, 0.25, -0.9]);
    let t3 = b.add("thorax_3", Some(abdomen), [0.0, 0.3, -0.3]);
    let t2 = b.add("thorax_2", Some(t3), [0.0, 0.3, 0.0]);
    let t1 = b.add("thorax_1", Some(t2), [0.0, 0.3, 0.3]);
    b.add("head", Some(t1), [0.0, 0.35, 0.6]);
    for (name, t, z) in [("fore", t1, 0.3), ("mid", t2, 0.0), ("hind", t3, -0.3)] {
        b.pair(name, t, &[[0.1, 0.3, z], [0.4, 0.55, z], [0.7, 0.15, z], [0.8, 0.0, z]]);
    }
    let report = b.rig().unwrap_or_else(|e| panic!("{e}"));
    println!("{}", report.summary());
    let firsts: Vec<String> = report.indices.legs.iter().map(|l| report.names[l.bones[0]].clone()).collect();
    assert_eq!(firsts, ["fore_l_0", "fore_r_0", "mid_l_0", "mid_r_0", "hind_l_0", "hind_r_0"]);
    assert!(report.indices.legs.iter().all(|l| l.segments == 3));
    assert_eq!(report.names[report.indices.body], "thorax_3");
    assert!(report.frame.forward.abs_diff_eq(Vec3::Z, 1e-5));
    assert_eq!(names(&report, &report.indices.head), ["head"]);
}

/// A spider: eight three-segment legs from one body bone; the abdomen above it in the
/// hierarchy (as the Mesh2Motion spider's), fangs in front.
fn spider() -> Build {
    let mut b = Build::default();
    let hips = b.add("hips", None, [0.0, 0.2, -0.2]);
    b.chain("abdomen", hips, &[[0.0, 0.25, -0.4], [0.0, 0.3, -0.7]]);
    let body = b.add("cephalothorax", Some(hips), [0.0, 0.2, 0.0]);
    let head = b.add("head", Some(body), [0.0, 0.2, 0.15]);
    b.add("fang_l", Some(head), [0.03, 0.15, 0.25]);
    b.add("fang_r", Some(head), [-0.03, 0.15, 0.25]);
    for (i, z) in [0.15f32, 0.05, -0.05, -0.15].into_iter().enumerate() {
        let pts = [[0.1, 0.2, z], [0.5, 0.6, z * 2.0], [0.9, 0.3, z * 3.0], [1.1, 0.0, z * 3.3]];
        b.pair(&format!("leg{i}"), body, &pts);
    }
    b
}

#[test]
fn a_spider_has_eight_three_segment_legs_in_four_pairs() {
    let report = spider().rig().unwrap_or_else(|e| panic!("{e}"));
    println!("{}", report.summary());
    let rig = &report.indices;
    assert_eq!(rig.pairs(), 4);
    for (k, leg) in rig.legs.iter().enumerate() {
        let side = if k % 2 == 0 { "l" } else { "r" };
        assert_eq!(report.names[leg.bones[0]], format!("leg{}_{side}_0", k / 2));
        assert_eq!(leg.segments, 3, "{}", report.summary());
    }
    assert_eq!(report.names[rig.body], "cephalothorax");
    assert!(report.frame.forward.abs_diff_eq(Vec3::Z, 1e-5));
    assert_eq!(names(&report, &rig.head), ["head"]);
    assert_eq!(names(&report, &rig.tail), ["abdomen_0", "abdomen_1"]);
}

/// A humanoid in T-pose: three-bone legs with toes, spine, arms and head.
fn biped() -> Build {
    let mut b = Build::default();
    let pelvis = b.add("pelvis", None, [0.0, 1.0, 0.0]);
    b.pair(
        "leg",
        pelvis,
        &[[0.1, 0.95, 0.0], [0.1, 0.5, 0.02], [0.1, 0.08, 0.0], [0.1, 0.02, 0.12], [0.1, 0.02, 0.18]],
    );
    let chest = b.chain("spine", pelvis, &[[0.0, 1.15, 0.0], [0.0, 1.35, 0.0]]);
    b.chain("head", chest, &[[0.0, 1.55, 0.0], [0.0, 1.65, 0.02], [0.0, 1.85, 0.02]]);
    b.pair("arm", chest, &[[0.15, 1.45, 0.0], [0.4, 1.45, 0.0], [0.65, 1.45, 0.0], [0.8, 1.45, 0.0]]);
    b
}

/// Decision: a biped is a creature of one pair (a bird, a robot, a humanoid), so creature IK
/// can drive any two-legged character; `rig_humanoid` is the richer rig for humanoids.
#[test]
fn a_biped_is_a_creature_of_one_pair() {
    let report = biped().rig().unwrap_or_else(|e| panic!("{e}"));
    println!("{}", report.summary());
    let rig = &report.indices;
    assert_eq!(rig.pairs(), 1);
    assert_eq!(report.frame.forward_from, CreatureForward::Toes);
    assert!(report.frame.forward.abs_diff_eq(Vec3::Z, 1e-5));
    assert_eq!(names(&report, &rig.legs[0].bones), ["leg_l_0", "leg_l_1", "leg_l_2", "leg_l_3", "leg_l_4"]);
    assert_eq!(report.names[rig.legs[0].foot], "leg_l_2");
    assert_eq!(rig.legs[0].toe.map(|t| report.names[t].as_str()), Some("leg_l_3"));
    assert_eq!(rig.legs[0].segments, 2);
    assert_eq!(rig.legs[0].side, Side::Left);
    assert_eq!(names(&report, &rig.head), ["spine_0", "spine_1", "head_0", "head_1", "head_2"]);
    assert!(rig.tail.is_empty());
}

#[test]
fn an_odd_number_of_legs_is_one_clear_error() {
    let mut b = quadruped();
    let gone = b.index("hind_r_0");
    // Hang the right hind leg's bones off a bone of its own well above the ground: the leg is
    // gone, the bone count and order stay.
    for i in gone..gone + 4 {
        b.0[i].2.y += 2.0;
    }
    let err = b.rig().expect_err("three legs");
    println!("{err}");
    assert!(matches!(&err, RigError::UnpairedLegs { left, right, .. } if left.len() == 2 && right.len() == 1));
    let text = err.to_string();
    assert!(text.contains("found 3 chains reaching the ground"), "{text}");
    assert!(text.contains("front_l_3, hind_l_3") && text.contains("right: front_r_3"), "{text}");
    assert!(text.contains("even number >= 2 of legs paired left/right"), "{text}");
    assert!(text.contains("re-export"), "{text}");
}

#[test]
fn single_segment_legs_and_bad_skeletons_are_refused_without_panicking() {
    let mut b = Build::default();
    let body = b.add("body", None, [0.0, 0.5, 0.0]);
    b.pair("stick", body, &[[0.2, 0.5, 0.0], [0.2, 0.0, 0.0]]);
    b.add("head", Some(body), [0.0, 0.8, 0.2]);
    let err = b.rig().expect_err("stiff legs");
    assert_eq!(err, RigError::StiffLegs { legs: vec!["stick_l_1".into(), "stick_r_1".into()] });
    assert!(err.to_string().contains("single segment"), "{err}");

    let none: [SkeletonBone<'_, u8>; 0] = [];
    assert!(matches!(rig_creature(&none), Err(RigError::BadSkeleton { .. })));
    let one = [SkeletonBone { handle: 0u8, name: "root", parent: None, rest: Vec3::ZERO }];
    let err = rig_creature(&one).expect_err("no legs");
    assert!(err.to_string().contains("found no chain reaching the ground"), "{err}");
    let nan = [SkeletonBone { handle: 0u8, name: "root", parent: None, rest: Vec3::NAN }];
    assert!(matches!(rig_creature(&nan), Err(RigError::BadSkeleton { .. })));
    let cycle = [
        SkeletonBone { handle: 0u8, name: "a", parent: Some(1), rest: Vec3::ZERO },
        SkeletonBone { handle: 1u8, name: "b", parent: Some(0), rest: Vec3::Y },
    ];
    assert!(matches!(rig_creature(&cycle), Err(RigError::BadSkeleton { .. })));
}

/// `b` with its bones in a scrambled order and renamed `bone_N`, with each one's old index.
fn shuffled(b: &Build, seed: u64) -> (Vec<usize>, Build) {
    let n = b.0.len();
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = seed;
    for i in (1..n).rev() {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        order.swap(i, (state >> 33) as usize % (i + 1));
    }
    let mut at = vec![0; n];
    for (new, &old) in order.iter().enumerate() {
        at[old] = new;
    }
    let bones = order.iter().enumerate().map(|(i, &old)| (format!("bone_{i}"), b.0[old].1.map(|p| at[p]), b.0[old].2));
    let build = Build(bones.collect());
    (order, build)
}

#[test]
fn shuffled_renamed_and_z_up_skeletons_give_the_same_rig() {
    for (label, b) in [("quadruped", quadruped()), ("spider", spider()), ("biped", biped())] {
        let plain = b.rig().unwrap_or_else(|e| panic!("{label}: {e}"));
        for seed in [1, 7, 42] {
            let (order, scrambled) = shuffled(&b, seed);
            let mut bones = scrambled.bones();
            bones.iter_mut().for_each(|bone| bone.handle = order[bone.handle]);
            let report = rig_creature(&bones).unwrap_or_else(|e| panic!("{label} seed {seed}: {e}"));
            assert_eq!(report.rig, plain.rig, "{label} seed {seed}:\n{}\n{}", report.summary(), plain.summary());
            assert_eq!(report.frame, plain.frame, "{label} seed {seed}");
        }
        // The same skeleton Z-up (Blender): +Y becomes +Z, +Z becomes -Y.
        let turned: Vec<SkeletonBone<'_, usize>> = b
            .bones()
            .into_iter()
            .map(|s| SkeletonBone { rest: Vec3::new(s.rest.x, -s.rest.z, s.rest.y), ..s })
            .collect();
        let report = rig_creature(&turned).unwrap_or_else(|e| panic!("{label} Z-up: {e}"));
        // Lengths differ in the last bit (the positions were turned); the bones must not.
        let bones_only = |rig: &CreatureRig<usize>| {
            let mut rig = rig.clone();
            rig.legs.iter_mut().for_each(|l| l.length = 0.0);
            rig
        };
        assert_eq!(bones_only(&report.rig), bones_only(&plain.rig), "{label} Z-up:\n{}", report.summary());
        assert_eq!(report.frame.up, Vec3::Z);
        assert!(report.frame.forward.abs_diff_eq(-Vec3::Y, 1e-5), "{label} Z-up");
    }
}

#[test]
fn a_quadruped_turned_30_degrees_about_up_faces_the_turned_forward() {
    let b = quadruped();
    let turn = glam::Quat::from_rotation_y(30f32.to_radians());
    let plain = b.rig().unwrap_or_else(|e| panic!("{e}"));
    let turned: Vec<SkeletonBone<'_, usize>> =
        b.bones().into_iter().map(|s| SkeletonBone { rest: turn * s.rest, ..s }).collect();
    let report = rig_creature(&turned).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.frame.forward.abs_diff_eq(turn * Vec3::Z, 1e-3), "{:?}", report.frame.forward);
    assert!(report.frame.left.abs_diff_eq(turn * Vec3::X, 1e-3), "{:?}", report.frame.left);
    let bones = |r: &CreatureReport<usize>| r.rig.legs.iter().map(|l| l.bones.clone()).collect::<Vec<_>>();
    assert_eq!(bones(&report), bones(&plain));
}
