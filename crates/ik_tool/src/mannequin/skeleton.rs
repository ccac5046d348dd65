//! The mannequin's skeleton: 23 bones named like common game rigs, ~1.8 m tall.
//!
//! Method: each bone is given by its joint position ("head") and the end of its bone segment
//! ("tail") in model space, in the bind pose; the left side is authored and mirrored across
//! `x = 0` for the right. Rest locals are pure translations (every joint frame is aligned with
//! the model axes: +Y up, +Z forward, +X the character's left), so a bone's model rotation in
//! the bind pose is the identity and an animation rotation reads directly in model axes.
//!
//! Invariants: parents come before children; `root` sits on the floor at the origin and is the
//! only top joint; `ball_l`/`ball_r` lie on the floor (`y = 0`) under the ball of the foot, so
//! a planted ball's height is its height above the floor; knees bend slightly forward and
//! elbows slightly back in the bind pose, which gives two-bone IK a stable bend plane.

use glam::Vec3;
use ik_core::{IkError, Skeleton, Xform};

/// Every bone name, in skeleton order (parents first).
pub const BONE_NAMES: [&str; 23] = [
    "root",
    "pelvis",
    "spine_01",
    "spine_02",
    "spine_03",
    "neck_01",
    "head",
    "clavicle_l",
    "upperarm_l",
    "lowerarm_l",
    "hand_l",
    "clavicle_r",
    "upperarm_r",
    "lowerarm_r",
    "hand_r",
    "thigh_l",
    "calf_l",
    "foot_l",
    "ball_l",
    "thigh_r",
    "calf_r",
    "foot_r",
    "ball_r",
];

/// Hip joint (top of the thigh), left side, model space.
pub const HIP_L: Vec3 = Vec3::new(0.09, 0.915, 0.0);
/// Knee joint (top of the calf), left side: 2 cm forward of the hip–ankle line.
pub const KNEE_L: Vec3 = Vec3::new(0.09, 0.50, 0.02);
/// Ankle joint (the foot bone), left side.
pub const ANKLE_L: Vec3 = Vec3::new(0.09, 0.08, -0.01);
/// Ball of the foot (the ball bone), left side, on the floor.
pub const BALL_L: Vec3 = Vec3::new(0.09, 0.0, 0.125);
/// Tip of the toes, left side (end of the ball bone).
pub const TOE_TIP_L: Vec3 = Vec3::new(0.09, 0.0, 0.205);
/// Shoulder joint (top of the upper arm), left side.
pub const SHOULDER_L: Vec3 = Vec3::new(0.175, 1.445, -0.02);
/// Bind-pose angle of the arms away from the body, from vertical (an A-pose), in radians.
pub const ARM_ANGLE: f32 = 30.0 * std::f32::consts::PI / 180.0;
/// Upper-arm length (shoulder to elbow).
pub const UPPER_ARM: f32 = 0.285;
/// Forearm length (elbow to wrist).
pub const FOREARM: f32 = 0.265;
/// Hand length (wrist to fingertips).
pub const HAND: f32 = 0.18;

/// The skeleton with its bone segments.
#[derive(Clone, Debug)]
pub struct Rig {
    /// Bones, parents and rest locals (pure translations).
    pub skeleton: Skeleton,
    /// Rest model transforms (the bind pose); rotations are identity.
    pub rest_model: Vec<Xform>,
    /// End of each bone's segment in the bind pose (model space); for the root it is the
    /// root itself.
    pub tails: Vec<Vec3>,
}

impl Rig {
    /// Index of a bone by name; the names in [`BONE_NAMES`] always resolve.
    pub fn bone(&self, name: &str) -> usize {
        self.skeleton.find(name).unwrap_or(0)
    }

    /// Bind-pose joint position of a bone.
    pub fn joint(&self, bone: usize) -> Vec3 {
        self.rest_model[bone].translation
    }
}

/// Direction of the left upper arm in the bind pose: out by [`ARM_ANGLE`], slightly back so the
/// elbow bends backward.
pub fn upper_arm_dir_l() -> Vec3 {
    Vec3::new(ARM_ANGLE.sin(), -ARM_ANGLE.cos(), -0.06).normalize()
}

/// Direction of the left forearm (and hand) in the bind pose: slightly forward.
pub fn forearm_dir_l() -> Vec3 {
    Vec3::new(ARM_ANGLE.sin(), -ARM_ANGLE.cos(), 0.14).normalize()
}

/// Builds the rig. Cannot fail for the built-in table; the `Result` carries [`Skeleton::new`]'s
/// checks.
pub fn rig() -> Result<Rig, IkError> {
    let elbow = SHOULDER_L + upper_arm_dir_l() * UPPER_ARM;
    let wrist = elbow + forearm_dir_l() * FOREARM;
    let fingertips = wrist + forearm_dir_l() * HAND;
    let clavicle = Vec3::new(0.025, 1.44, 0.015);
    // (name, parent, joint, tail), left side only for the limbs.
    let spine: [(&str, Option<&str>, Vec3, Vec3); 7] = [
        ("root", None, Vec3::ZERO, Vec3::ZERO),
        ("pelvis", Some("root"), Vec3::new(0.0, 0.96, 0.0), Vec3::new(0.0, 1.05, -0.005)),
        ("spine_01", Some("pelvis"), Vec3::new(0.0, 1.05, -0.005), Vec3::new(0.0, 1.17, -0.01)),
        ("spine_02", Some("spine_01"), Vec3::new(0.0, 1.17, -0.01), Vec3::new(0.0, 1.30, -0.005)),
        ("spine_03", Some("spine_02"), Vec3::new(0.0, 1.30, -0.005), Vec3::new(0.0, 1.49, -0.02)),
        ("neck_01", Some("spine_03"), Vec3::new(0.0, 1.49, -0.02), Vec3::new(0.0, 1.60, 0.0)),
        ("head", Some("neck_01"), Vec3::new(0.0, 1.60, 0.0), Vec3::new(0.0, 1.79, 0.02)),
    ];
    let arm: [(&str, &str, Vec3, Vec3); 4] = [
        ("clavicle", "spine_03", clavicle, SHOULDER_L),
        ("upperarm", "clavicle", SHOULDER_L, elbow),
        ("lowerarm", "upperarm", elbow, wrist),
        ("hand", "lowerarm", wrist, fingertips),
    ];
    let leg: [(&str, &str, Vec3, Vec3); 4] = [
        ("thigh", "pelvis", HIP_L, KNEE_L),
        ("calf", "thigh", KNEE_L, ANKLE_L),
        ("foot", "calf", ANKLE_L, BALL_L),
        ("ball", "foot", BALL_L, TOE_TIP_L),
    ];
    let mirror = |v: Vec3| Vec3::new(-v.x, v.y, v.z);
    let mut table: Vec<(String, Option<String>, Vec3, Vec3)> =
        spine.iter().map(|(n, p, j, t)| (n.to_string(), p.map(str::to_string), *j, *t)).collect();
    for limb in [&arm, &leg] {
        for (side, flip) in [("l", false), ("r", true)] {
            for (name, parent, joint, tail) in limb.iter() {
                let parent = if parent.starts_with("spine") || *parent == "pelvis" {
                    parent.to_string()
                } else {
                    format!("{parent}_{side}")
                };
                let (j, t) = if flip { (mirror(*joint), mirror(*tail)) } else { (*joint, *tail) };
                table.push((format!("{name}_{side}"), Some(parent), j, t));
            }
        }
    }
    let names: Vec<String> = table.iter().map(|b| b.0.clone()).collect();
    let mut parents = Vec::with_capacity(table.len());
    let mut rest = Vec::with_capacity(table.len());
    for (_, parent, joint, _) in &table {
        let parent = parent.as_ref().and_then(|p| names.iter().position(|n| n == p));
        let parent_joint = parent.map_or(Vec3::ZERO, |p| table[p].2);
        parents.push(parent);
        rest.push(Xform::from_translation(*joint - parent_joint));
    }
    let skeleton = Skeleton::new(parents, names, rest)?;
    let rest_model = skeleton.rest_model();
    let tails = table.iter().map(|b| b.3).collect();
    Ok(Rig { skeleton, rest_model, tails })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bones_follow_the_published_order_and_stand_on_the_floor() {
        let rig = rig().unwrap();
        let names: Vec<&str> = rig.skeleton.names().iter().map(String::as_str).collect();
        assert_eq!(names, BONE_NAMES);
        for ball in ["ball_l", "ball_r"] {
            assert!(rig.joint(rig.bone(ball)).y.abs() < 1e-6);
        }
        let head_top = rig.tails[rig.bone("head")].y;
        assert!((1.75..1.85).contains(&head_top), "head top {head_top}");
        let (hip, knee, ankle) = (rig.bone("thigh_r"), rig.bone("calf_r"), rig.bone("foot_r"));
        let knee_ahead = rig.joint(knee).z - (rig.joint(hip).z + rig.joint(ankle).z) * 0.5;
        assert!(knee_ahead > 0.01 && rig.joint(hip).x < 0.0, "right knee bends forward, right is -X");
    }
}
