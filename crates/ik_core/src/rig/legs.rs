//! Why a skeleton the shape search could not rig is no humanoid the legs' IK can bend: more
//! than two legs reach the ground (a spider), or its two legs have fewer than three bones (a
//! toy whose legs are single bones). Read from the rest pose, +Y up.

use super::error::RigError;
use super::tree::Tree;

/// How close to the lowest end bone another one must end to count as a foot, as a share of the
/// skeleton's height.
const FOOT_BAND: f32 = 0.1;

/// The real cause, when it is one of the two above; `None` otherwise (the generic message).
pub(crate) fn unusable_legs(tree: &Tree) -> Option<RigError> {
    let height = |b: usize| tree.pos[b].y;
    let (low, high) = (0..tree.len()).map(height).fold((f32::MAX, f32::MIN), |(lo, hi), h| (lo.min(h), hi.max(h)));
    // End bones away from their parents (a mesh node sitting on its parent is no leg).
    let ends = |&b: &usize| tree.children[b].is_empty() && tree.parent[b].is_some_and(|p| tree.seg(p, b) > 0.0);
    let leaves: Vec<usize> = (0..tree.len()).filter(ends).collect();
    let lowest_leaf = leaves.iter().map(|&b| height(b)).fold(f32::MAX, f32::min);
    let band = FOOT_BAND * (high - low);
    if !(band > 0.0 && band.is_finite()) {
        return None;
    }
    let feet: Vec<usize> = leaves.into_iter().filter(|&b| height(b) <= lowest_leaf + band).collect();
    let names = |bones: &[usize]| bones.iter().map(|&b| tree.names[b].clone()).collect::<Vec<_>>();
    match feet.as_slice() {
        [] | [_] => None,
        &[a, b] => {
            let bones = bones_below_fork(tree, a, b);
            (bones < 3).then(|| RigError::ShortLegs { legs: [a, b].map(|f| tree.names[f].clone()), bones })
        }
        many => Some(RigError::ManyLegs { feet: names(many) }),
    }
}

/// How many bones each of the two chains ending at `a` and `b` has below the bone they share
/// (the shorter of the two).
fn bones_below_fork(tree: &Tree, a: usize, b: usize) -> usize {
    let up = |from: usize| {
        let mut chain = vec![from];
        while let Some(p) = tree.parent[*chain.last().unwrap_or(&from)] {
            chain.push(p);
        }
        chain
    };
    let (ua, ub) = (up(a), up(b));
    let below = |chain: &[usize], other: &[usize]| chain.iter().take_while(|c| !other.contains(c)).count();
    below(&ua, &ub).min(below(&ub, &ua))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    fn tree(bones: &[(&str, Option<usize>, [f32; 3])]) -> Tree {
        Tree::new(
            bones.iter().map(|b| b.1).collect(),
            bones.iter().map(|b| Vec3::from_array(b.2)).collect(),
            bones.iter().map(|b| b.0.to_string()).collect(),
        )
        .unwrap()
    }

    #[test]
    fn single_bone_legs_are_named_as_too_short() {
        // A toy figure: legs, arms and head each one bone under the root.
        let t = tree(&[
            ("root", None, [0.0, 0.0, 0.0]),
            ("leg-left", Some(0), [0.08, 0.18, 0.0]),
            ("leg-right", Some(0), [-0.08, 0.18, 0.0]),
            ("torso", Some(0), [0.0, 0.18, 0.0]),
            ("arm-left", Some(3), [0.1, 0.29, 0.0]),
            ("arm-right", Some(3), [-0.1, 0.29, 0.0]),
            ("head", Some(3), [0.0, 0.35, 0.0]),
        ]);
        let err = unusable_legs(&t).expect("one-bone legs");
        assert_eq!(err, RigError::ShortLegs { legs: ["leg-left".into(), "leg-right".into()], bones: 1 });
        assert!(err.to_string().contains("leg-left and leg-right"), "{err}");
    }

    #[test]
    fn eight_feet_on_the_ground_are_a_creature() {
        let mut bones = vec![("body", None, [0.0, 0.5, 0.0])];
        let names: Vec<String> = (0..8).flat_map(|i| [format!("leg_{i}"), format!("leg_{i}_tip")]).collect();
        for i in 0..8 {
            let x = (i as f32 - 3.5) * 0.2;
            bones.push((names[2 * i].as_str(), Some(0), [x, 0.6, 0.0]));
            bones.push((names[2 * i + 1].as_str(), Some(bones.len() - 1), [x * 2.0, 0.0, 0.0]));
        }
        let err = unusable_legs(&tree(&bones)).expect("eight legs");
        assert!(matches!(&err, RigError::ManyLegs { feet } if feet.len() == 8), "{err:?}");
        assert!(err.to_string().contains("8 legs"), "{err}");
    }

    #[test]
    fn a_biped_s_three_bone_legs_are_not_blamed() {
        let t = tree(&[
            ("hips", None, [0.0, 1.0, 0.0]),
            ("thigh_l", Some(0), [0.1, 0.95, 0.0]),
            ("shin_l", Some(1), [0.1, 0.5, 0.0]),
            ("foot_l", Some(2), [0.1, 0.08, 0.0]),
            ("thigh_r", Some(0), [-0.1, 0.95, 0.0]),
            ("shin_r", Some(4), [-0.1, 0.5, 0.0]),
            ("foot_r", Some(5), [-0.1, 0.08, 0.0]),
            ("head", Some(0), [0.0, 1.7, 0.0]),
        ]);
        assert_eq!(unusable_legs(&t), None);
    }
}
