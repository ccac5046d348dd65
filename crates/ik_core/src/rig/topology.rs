//! The shape-only rig search: pelvis, spine, head, arms and legs from the bone tree and the
//! rest positions alone, for rigs whose names match no convention.
//!
//! **Method.** Sizes are relative: `size` is the diagonal of the rest positions' bounding box,
//! then `leg` is the pelvis → toe chain length. A bone's *main chain* follows, at each step, the
//! child with the longest path below it (so twist, helper and finger bones branch off it).
//! 1. **Pelvis and legs**: a bone with two children whose main chains are equally long (±10 %),
//!    point the same way (`|a + b| > 0.85 (|a| + |b|)`, which arms in T- or A-pose do not) and
//!    end at the lowest bones of the skeleton, plus a third child rising above it by at least
//!    0.3 `leg`. Up (for now) is against the legs.
//! 2. **Legs**: along each leg's main chain, the two consecutive bones that are together the
//!    longest are thigh and calf; the next is the foot, the one after it the ball.
//! 3. **Spine and head**: from the third child, climb to the child near the mid-plane (within
//!    0.02 `leg` of it, across the hips) whose subtree rises highest. The top of the climb is the
//!    head, unless it is an end bone (a leaf whose name says end, top, nub…, or whose bone is
//!    over 1.4 times as long as the one below it: a skull-top marker).
//! 4. **Arms**: the two opposite sideways branches of the climb with the longest main chains;
//!    thigh-like, the two longest consecutive bones are upper arm and forearm, then the hand; a
//!    bone before the upper arm is the clavicle. Bones of the climb up to the arms are the
//!    spine, the first one after them (if not the head) the neck.
//! 5. **Sides**: from the frame ([`super::frame`]); left = up × forward.

use glam::Vec3;

use super::frame::{self, RigFrame};
use super::names;
use super::tree::Tree;
use super::{ArmBones, HumanoidRig, LegBones};

/// The longest path length below each bone, and the child it goes through.
fn reaches(tree: &Tree) -> (Vec<f32>, Vec<Option<usize>>) {
    let n = tree.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&b| std::cmp::Reverse(tree.depth[b]));
    let mut reach = vec![0.0f32; n];
    let mut next = vec![None; n];
    for &b in &order {
        for &c in &tree.children[b] {
            let r = tree.seg(b, c) + reach[c];
            if next[b].is_none() || r > reach[b] {
                reach[b] = r;
                next[b] = Some(c);
            }
        }
    }
    (reach, next)
}

fn main_chain(next: &[Option<usize>], start: usize) -> Vec<usize> {
    let mut chain = vec![start];
    while let Some(&n) = chain.last().and_then(|&b| next[b].as_ref()) {
        chain.push(n);
    }
    chain
}

/// Thigh/upper-arm index in a limb chain: the start of the longest two consecutive bones.
fn longest_pair(tree: &Tree, chain: &[usize]) -> Option<usize> {
    (0..chain.len().saturating_sub(2))
        .map(|i| (i, tree.seg(chain[i], chain[i + 1]) + tree.seg(chain[i + 1], chain[i + 2])))
        .fold(
            None,
            |best: Option<(usize, f32)>, (i, l)| if best.is_none_or(|(_, b)| l > b) { Some((i, l)) } else { best },
        )
        .map(|(i, _)| i)
}

struct Hips {
    pelvis: usize,
    legs: [usize; 2],
    spine: usize,
    up: Vec3,
    leg: f32,
}

fn find_hips(tree: &Tree, reach: &[f32], next: &[Option<usize>], size: f32) -> Option<Hips> {
    let mut best: Option<Hips> = None;
    for p in 0..tree.len() {
        let big: Vec<usize> =
            tree.children[p].iter().copied().filter(|&c| tree.seg(p, c) + reach[c] >= 0.15 * size).collect();
        if big.len() < 3 {
            continue;
        }
        for (i, &a) in big.iter().enumerate() {
            for &b in &big[i + 1..] {
                let (la, lb) = (tree.seg(p, a) + reach[a], tree.seg(p, b) + reach[b]);
                if (la - lb).abs() > 0.1 * la.max(lb) {
                    continue;
                }
                let tip = |c: usize| tree.pos[*main_chain(next, c).last().unwrap_or(&c)] - tree.pos[p];
                let (va, vb) = (tip(a), tip(b));
                let together = (va + vb).length() / (va.length() + vb.length()).max(f32::MIN_POSITIVE);
                let Some(up) = (-(va + vb)).try_normalize() else { continue };
                if together < 0.85 {
                    continue;
                }
                let h = |b: usize| tree.pos[b].dot(up);
                let lowest = (0..tree.len()).map(h).fold(f32::MAX, f32::min);
                let feet = (va.dot(up) + tree.pos[p].dot(up)).min(vb.dot(up) + tree.pos[p].dot(up));
                let leg = la.max(lb);
                if feet - lowest > 0.1 * leg {
                    continue;
                }
                let rise = |c: usize| tree.subtree(c).iter().map(|&d| h(d)).fold(f32::MIN, f32::max) - h(p);
                let spine =
                    big.iter().copied().filter(|&c| c != a && c != b).max_by(|&x, &y| rise(x).total_cmp(&rise(y)));
                let Some(spine) = spine.filter(|&s| rise(s) >= 0.3 * leg) else { continue };
                if best.as_ref().is_none_or(|h| leg > h.leg) {
                    best = Some(Hips { pelvis: p, legs: [a, b], spine, up, leg });
                }
            }
        }
    }
    best
}

/// Whether a leaf at the top of the climb is an end bone rather than the head.
fn is_end(tree: &Tree, climb: &[usize]) -> bool {
    let [.., below, parent, leaf] = climb else { return false };
    if !tree.children[*leaf].is_empty() {
        return false;
    }
    names::is_helper(&tree.names[*leaf]) || tree.seg(*parent, *leaf) > 1.4 * tree.seg(*below, *parent)
}

/// Finds the rig from shape alone; `Err` says which step failed.
pub(crate) fn find(tree: &Tree) -> Result<(HumanoidRig<usize>, RigFrame), String> {
    let (lo, hi) = tree.pos.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    let size = (hi - lo).length();
    if size.is_nan() || size <= 0.0 || !size.is_finite() {
        return Err("the rest positions are all at one point".into());
    }
    let (reach, next) = reaches(tree);
    let hips = find_hips(tree, &reach, &next, size)
        .ok_or("no bone has two equal chains hanging down to the lowest bones and one rising")?;
    let (pelvis, up, leg) = (hips.pelvis, hips.up, hips.leg);

    let mut legs = Vec::new();
    for start in hips.legs {
        let chain = main_chain(&next, start);
        let i = longest_pair(tree, &chain).ok_or("a leg has fewer than three bones (thigh, calf, foot)")?;
        let ball = chain.get(i + 3).copied().filter(|&b| !names::is_helper(&tree.names[b]));
        legs.push(LegBones { thigh: chain[i], calf: chain[i + 1], foot: chain[i + 2], ball });
    }
    let lateral = {
        let d = tree.pos[legs[0].thigh] - tree.pos[legs[1].thigh];
        (d - up * d.dot(up)).try_normalize().ok_or("the two hips are at one point")?
    };
    let off_mid = |b: usize| (tree.pos[b] - tree.pos[pelvis]).dot(lateral).abs();
    let h = |b: usize| tree.pos[b].dot(up);
    let top = |b: usize| tree.subtree(b).iter().map(|&d| h(d)).fold(f32::MIN, f32::max);

    let mut climb = vec![hips.spine];
    while let Some(&cur) = climb.last() {
        let step = tree.children[cur]
            .iter()
            .copied()
            .filter(|&c| off_mid(c) <= 0.02 * leg && h(c) >= h(cur) - 0.02 * leg)
            .max_by(|&x, &y| top(x).total_cmp(&top(y)));
        match step {
            Some(c) => climb.push(c),
            None => break,
        }
    }
    if is_end(tree, &climb) {
        climb.pop();
    }
    if climb.len() < 2 {
        return Err("the rising chain above the pelvis has fewer than two bones (spine, head)".into());
    }
    let head = climb[climb.len() - 1];

    // The arms: opposite sideways branches of the climb (below the head), longest first.
    let mut arms: Option<(usize, [usize; 2], f32)> = None;
    for (k, &q) in climb[..climb.len() - 1].iter().enumerate() {
        let side: Vec<(usize, f32, f32)> = tree.children[q]
            .iter()
            .copied()
            .filter(|c| !climb.contains(c))
            .map(|c| {
                let tip = *main_chain(&next, c).last().unwrap_or(&c);
                (c, (tree.pos[tip] - tree.pos[q]).dot(lateral), tree.seg(q, c) + reach[c])
            })
            .filter(|&(_, across, _)| across.abs() >= 0.15 * leg)
            .collect();
        for (i, &(a, xa, la)) in side.iter().enumerate() {
            for &(b, xb, lb) in &side[i + 1..] {
                let fits = xa * xb < 0.0 && (la - lb).abs() <= 0.15 * la.max(lb);
                if fits && arms.is_none_or(|(_, _, l)| la + lb > l) {
                    arms = Some((k, [a, b], la + lb));
                }
            }
        }
    }
    let (k, arm_starts, _) = arms.ok_or("no two opposite sideways chains (arms) branch from the spine")?;
    let mut arm_bones = Vec::new();
    for start in arm_starts {
        let chain = main_chain(&next, start);
        let i = longest_pair(tree, &chain).ok_or("an arm has fewer than three bones (upper arm, forearm, hand)")?;
        let clavicle = (i >= 1).then(|| chain[i - 1]);
        arm_bones.push(ArmBones { clavicle, upper: chain[i], lower: chain[i + 1], hand: chain[i + 2] });
    }
    let spine = climb[..=k].to_vec();
    let neck = (k + 1 < climb.len() - 1).then(|| climb[k + 1]);
    let mut rig = HumanoidRig {
        profile: "topology".into(),
        pelvis,
        spine,
        neck,
        head,
        arms: [arm_bones[0], arm_bones[1]],
        legs: [legs[0], legs[1]],
    };
    let frame = frame::measure(tree, &rig, false);
    let leftish = |b: usize, from: usize| (tree.pos[b] - tree.pos[from]).dot(frame.left) > 0.0;
    if !leftish(rig.legs[0].thigh, pelvis) {
        rig.legs.swap(0, 1);
    }
    if !leftish(rig.arms[0].upper, climb[k]) {
        rig.arms.swap(0, 1);
    }
    Ok((rig, frame))
}
