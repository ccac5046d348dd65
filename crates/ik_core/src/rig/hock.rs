//! Digitigrade legs: a foot joint found high above the floor, on a chain of bones reaching down
//! to it, is a hock (a bird's, a dinosaur's, a kaiju's), not an ankle.
//!
//! Method: after the search, each leg whose foot joint stands more than [`HOCK_SHARE`] of its
//! hip joint's height above the lowest joint below it, with one bone below it whose own joint is
//! nearer the floor, is taken one bone lower: thigh ← shin, shin ← the hock's bone, foot ← the
//! bone below, ball ← that bone's only child when it is lower still. The leg's upper bone then
//! follows the pelvis and two-bone IK bends the two below it — the knee bending its own way (a
//! hock's backward). A user's rig map is never changed.

use glam::Vec3;

use super::HumanoidRig;
use super::tree::Tree;

/// A person's ankle stands at about a tenth of the hip's height; a foot joint above this share
/// is a hock.
const HOCK_SHARE: f32 = 0.25;

/// Lowers each hock-footed leg of `rig` one bone (see the module docs); `up` is the skeleton's
/// up axis. Returns whether any leg was lowered.
pub(super) fn lower_hocks(tree: &Tree, rig: &mut HumanoidRig<usize>, up: Vec3) -> bool {
    let height = |i: usize| tree.pos[i].dot(up);
    let only_child = |i: usize| match tree.children[i][..] {
        [child] => Some(child),
        _ => None,
    };
    let mut lowered = false;
    for leg in &mut rig.legs {
        let floor = tree.subtree(leg.foot).into_iter().map(height).fold(f32::INFINITY, f32::min);
        let (hip, foot) = (height(leg.thigh) - floor, height(leg.foot) - floor);
        if !(hip > 0.0 && foot > HOCK_SHARE * hip) {
            continue;
        }
        let Some(below) = only_child(leg.foot).filter(|&b| height(b) - floor < foot) else { continue };
        let ball = only_child(below).filter(|&b| height(b) < height(below));
        *leg = super::LegBones { thigh: leg.calf, calf: leg.foot, foot: below, ball };
        lowered = true;
    }
    lowered
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Role, Side, SkeletonBone, rig_humanoid};

    fn bone(report: &crate::rig::RigReport<usize>, role: Role) -> Option<&str> {
        report.bone_names.iter().find(|(r, _)| *r == role).map(|(_, b)| b.as_str())
    }

    /// The joints' heights of a leg named like Mesh2Motion's kaiju's: pelvis, upper, lower,
    /// ankle (44 cm up: a hock), foot, toe, tip.
    const KAIJU: [f32; 7] = [0.8, 0.99, 0.64, 0.44, 0.2, 0.09, 0.08];

    /// A biped with legs pelvis → upper → lower → ankle → foot → toe → tip at `heights`, a
    /// spine and a head.
    fn biped(heights: [f32; 7]) -> Vec<SkeletonBone<'static, usize>> {
        let mut bones = vec![
            SkeletonBone { handle: 0, name: "Hips", parent: None, rest: Vec3::new(0.0, 0.8, 0.0) },
            SkeletonBone { handle: 1, name: "Spine", parent: Some(0), rest: Vec3::new(0.0, 1.1, 0.2) },
            SkeletonBone { handle: 2, name: "Head", parent: Some(1), rest: Vec3::new(0.0, 1.7, 0.5) },
        ];
        let names = [
            ["Leg_Pelvis_L", "Leg_Upper_L", "Leg_Lower_L", "Leg_Ankle_L", "Leg_Foot_L", "Leg_Toe_L", "Leg_Tip_L"],
            ["Leg_Pelvis_R", "Leg_Upper_R", "Leg_Lower_R", "Leg_Ankle_R", "Leg_Foot_R", "Leg_Toe_R", "Leg_Tip_R"],
        ];
        for (side, x) in [(0, 0.25f32), (1, -0.25)] {
            let ahead = [0.0, 0.0, 0.28, 0.03, 0.14, 0.19, 0.32];
            for (k, (h, z)) in heights.into_iter().zip(ahead).enumerate() {
                let parent = if k == 0 { 0 } else { bones.len() - 1 };
                let handle = bones.len();
                bones.push(SkeletonBone {
                    handle,
                    name: names[side][k],
                    parent: Some(parent),
                    rest: Vec3::new(x, h, z),
                });
            }
        }
        bones
    }

    #[test]
    fn a_kaiju_stands_on_its_toes_not_on_its_hocks() {
        let report = rig_humanoid(&biped(KAIJU), None).expect("rigs");
        let (l, r) = (Side::Left, Side::Right);
        assert_eq!(bone(&report, Role::Thigh(l)), Some("Leg_Lower_L"), "{:?}", report.bone_names);
        assert_eq!(bone(&report, Role::Calf(l)), Some("Leg_Ankle_L"));
        assert_eq!(bone(&report, Role::Foot(l)), Some("Leg_Foot_L"));
        assert_eq!(bone(&report, Role::Ball(l)), Some("Leg_Toe_L"));
        assert_eq!(bone(&report, Role::Foot(r)), Some("Leg_Foot_R"));
    }

    #[test]
    fn a_person_keeps_its_ankles() {
        // The same names on a person's heights (ankle 9 cm up): left as named.
        let report = rig_humanoid(&biped([0.8, 0.99, 0.5, 0.09, 0.05, 0.02, 0.01]), None).expect("rigs");
        assert_eq!(bone(&report, Role::Foot(Side::Left)), Some("Leg_Ankle_L"), "{:?}", report.bone_names);
    }
}
