//! Building `rig_humanoid` input from a canonical skeleton, a namer and a [`Case`], and checking
//! the rig it finds.

use ik_core::glam::{Quat, Vec3};
use ik_core::rig::{ArmBones, HumanoidRig, LegBones, RigProfile, RigReport, SkeletonBone, rig_humanoid};

use super::namers::{arbitrary, mixamo};
use super::skeletons::{Bone, Feet, rehang, skeleton};

/// How a test case turns the canonical skeleton.
#[derive(Clone, Copy)]
pub struct Case {
    pub a_pose: bool,
    pub toes: bool,
    pub shuffle: bool,
    pub scale: f32,
    pub turn: Quat,
}

pub const PLAIN: Case = Case { a_pose: false, toes: true, shuffle: false, scale: 1.0, turn: Quat::IDENTITY };

/// The bones as `rig_humanoid` input; handles are the canonical keys' indices.
pub struct Built {
    pub keys: Vec<&'static str>,
    pub names: Vec<String>,
    pub parents: Vec<Option<usize>>,
    pub rest: Vec<Vec3>,
    pub handles: Vec<usize>,
}

pub fn build(namer: &dyn Fn(&str) -> Option<String>, case: Case) -> Built {
    build_from(skeleton(case.a_pose, case.toes), namer, case)
}

/// [`build`] for any canonical bone list.
pub fn build_from(canon: Vec<Bone>, namer: &dyn Fn(&str) -> Option<String>, case: Case) -> Built {
    let canon: Vec<_> = canon.into_iter().filter(|(k, _, _)| namer(k).is_some()).collect();
    let keys: Vec<&'static str> = canon.iter().map(|c| c.0).collect();
    let n = canon.len();
    // slot[i]: where canonical bone i goes in the input slice.
    let mut order: Vec<usize> = (0..n).collect();
    if case.shuffle {
        let mut seed = 0x2545_f491u32;
        for i in (1..n).rev() {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            order.swap(i, (seed >> 8) as usize % (i + 1));
        }
    }
    let mut slot = vec![0; n];
    for (pos, &i) in order.iter().enumerate() {
        slot[i] = pos;
    }
    let index_of = |k: &str| keys.iter().position(|x| *x == k);
    let mut built = Built { keys: keys.clone(), names: vec![], parents: vec![], rest: vec![], handles: vec![] };
    for &i in &order {
        let (k, parent, p) = canon[i];
        built.names.push(namer(k).unwrap_or_default());
        built.parents.push(parent.and_then(index_of).map(|pi| slot[pi]));
        built.rest.push(case.turn * (p * case.scale));
        built.handles.push(i);
    }
    built
}

pub fn bones(b: &Built) -> Vec<SkeletonBone<'_, usize>> {
    (0..b.names.len())
        .map(|i| SkeletonBone { handle: b.handles[i], name: &b.names[i], parent: b.parents[i], rest: b.rest[i] })
        .collect()
}

/// The rig the canonical keys describe, in handles (canonical indices).
pub fn expected(b: &Built, toes: bool) -> HumanoidRig<usize> {
    let k = |key: &str| b.keys.iter().position(|x| *x == key).unwrap();
    let arm = |s: &str| ArmBones {
        clavicle: Some(k(&format!("clav_{s}"))),
        upper: k(&format!("upper_{s}")),
        lower: k(&format!("lower_{s}")),
        hand: k(&format!("hand_{s}")),
    };
    let leg = |s: &str| LegBones {
        thigh: k(&format!("thigh_{s}")),
        calf: k(&format!("calf_{s}")),
        foot: k(&format!("foot_{s}")),
        ball: toes.then(|| k(&format!("ball_{s}"))),
    };
    HumanoidRig {
        profile: String::new(),
        pelvis: k("pelvis"),
        spine: vec![k("spine0"), k("spine1"), k("spine2")],
        neck: Some(k("neck")),
        head: k("head"),
        arms: [Some(arm("l")), Some(arm("r"))],
        legs: [leg("l"), leg("r")],
    }
}

pub fn angle_deg(a: Vec3, b: Vec3) -> f32 {
    a.angle_between(b).to_degrees()
}

/// Rigs the case and checks mapping, frame and height; returns `found_by`.
pub fn check(namer: &dyn Fn(&str) -> Option<String>, case: Case) -> String {
    let b = build(namer, case);
    let canon = skeleton(case.a_pose, case.toes);
    let kept: Vec<_> = canon.iter().filter(|c| namer(c.0).is_some()).collect();
    let top = kept.iter().filter(|c| c.0.starts_with("head")).map(|c| c.2.y).fold(f32::MIN, f32::max);
    let bottom = kept.iter().filter(|c| c.2.y > 0.0 && c.2.y < 0.5).map(|c| c.2.y).fold(f32::MAX, f32::min);
    check_built(&b, case, top - bottom, 0.851).0.found_by
}

/// How far a rig's frame is off: up, forward and left in degrees, height as a fraction.
#[derive(Clone, Copy, Debug, Default)]
pub struct Off {
    pub up: f32,
    pub forward: f32,
    pub left: f32,
    pub height: f32,
}

impl Off {
    pub fn max(self, o: Off) -> Off {
        Off {
            up: self.up.max(o.up),
            forward: self.forward.max(o.forward),
            left: self.left.max(o.left),
            height: self.height.max(o.height),
        }
    }
}

/// Rigs built bones and checks the mapping (the canonical keys' roles), up, forward and left
/// within 1°, the height (unscaled `height`, metres) within 1 % and the leg length (`leg`)
/// within 1 cm; returns the report and how far its frame was off.
pub fn check_built(b: &Built, case: Case, height: f32, leg: f32) -> (RigReport<usize>, Off) {
    let report = rig_humanoid(&bones(b), None).unwrap_or_else(|e| panic!("{e}"));
    let want = HumanoidRig { profile: report.found_by.clone(), ..expected(b, case.toes) };
    assert_eq!(report.rig, want, "mapping:\n{}", report.mapping());
    assert_eq!(report.rig.profile, report.found_by);
    let f = report.frame;
    let height = height * case.scale;
    let off = Off {
        up: angle_deg(f.up, case.turn * Vec3::Y),
        forward: angle_deg(f.forward, case.turn * Vec3::Z),
        left: angle_deg(f.left, case.turn * Vec3::X),
        height: (f.height - height).abs() / height,
    };
    assert!(off.up < 1.0, "up {:?}", f.up);
    assert!(off.forward < 1.0, "forward {:?} from {:?}", f.forward, f.forward_from);
    assert!(off.left < 1.0, "left {:?}", f.left);
    assert!(off.height < 0.01, "height {} vs {height}", f.height);
    assert!((f.leg_length - leg * case.scale).abs() < 0.01 * case.scale, "leg {}", f.leg_length);
    (report, off)
}

/// The Mixamo rig turned into an IK-control rig: the left foot hangs from a `FootControl`
/// bone under the root (at the foot's rest position), the right foot from the root itself.
pub fn control_rig() -> Built {
    let mut b = build(&mixamo, PLAIN);
    let root = b.names.iter().position(|n| n.ends_with("Armature")).unwrap();
    let left = b.names.iter().position(|n| n.ends_with("LeftFoot")).unwrap();
    let right = b.names.iter().position(|n| n.ends_with("RightFoot")).unwrap();
    b.names.push("FootControl".into());
    b.parents.push(Some(root));
    b.rest.push(b.rest[left]);
    b.handles.push(999);
    b.parents[left] = Some(b.names.len() - 1);
    b.parents[right] = Some(root);
    b
}

pub fn mixamo_map() -> RigProfile {
    RigProfile::from_map(
        "user map",
        [
            ("pelvis", "Hips"),
            ("spine_0", "Spine"),
            ("head", "Head"),
            ("upperarm_l", "LeftArm"),
            ("lowerarm_l", "LeftForeArm"),
            ("hand_l", "LeftHand"),
            ("upperarm_r", "RightArm"),
            ("lowerarm_r", "RightForeArm"),
            ("hand_r", "RightHand"),
            ("thigh_l", "LeftUpLeg"),
            ("calf_l", "LeftLeg"),
            ("foot_l", "LeftFoot"),
            ("ball_l", "LeftToeBase"),
            ("thigh_r", "RightUpLeg"),
            ("calf_r", "RightLeg"),
            ("foot_r", "RightFoot"),
            ("ball_r", "RightToeBase"),
        ],
    )
    .unwrap()
}

/// The synthetic humanoid with arbitrary names, as an IK-control rig.
pub fn control_variant(feet: Feet, root: bool, unnamed_control: bool, case: Case) -> Built {
    let canon = rehang(skeleton(case.a_pose, case.toes), feet, root);
    let namer = |k: &str| if k == "foot_control" && unnamed_control { Some(String::new()) } else { arbitrary(k) };
    build_from(canon, &namer, case)
}
