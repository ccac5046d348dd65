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
//! 3. **External feet** (IK-control rigs: the foot hangs from the root or a control bone and
//!    rests at the shin's end): when no pelvis passes step 1, it is searched again with chains
//!    that end at the shin (no bone after the calf, or only a leaf: the shin's end bone)
//!    completed by a bone elsewhere that rests at the shin's end by the rule names use
//!    (`report::external_foot_fit`: within 10 % of the leg length of the shin's end bone, else
//!    within half a thigh of one thigh length past the knee) and has a toe ahead of it (a child
//!    mostly across up) or no child at all; bones outside the spine and arms, not named like helpers,
//!    with a toe and nearest the thigh's line come first, and the two legs never share one. The
//!    legs' lengths and lowest bones are then those of the feet. With a pelvis from step 1, a
//!    chain without a foot takes one the same way, and a chain whose foot is a bare leaf takes
//!    an external foot only if that one has a toe. The height then reaches the feet's toes.
//! 4. **Spine and head**: from the third child, climb to the child near the mid-plane (within
//!    0.02 `leg` of it, across the hips) whose subtree rises highest. The top of the climb is the
//!    head, unless it is an end bone (a leaf whose name says end, top, nub…, or whose bone is
//!    over 1.4 times as long as the one below it: a skull-top marker).
//! 5. **Arms**: the two opposite sideways branches of the climb with the longest main chains;
//!    thigh-like, the two longest consecutive bones are upper arm and forearm, then the hand; a
//!    bone before the upper arm is the clavicle. Bones of the climb up to the arms are the
//!    spine, the first one after them (if not the head) the neck.
//! 6. **Sides**: from the frame ([`super::frame`]); left = up × forward.

use glam::Vec3;

use super::frame::{self, RigFrame};
use super::names;
use super::report::external_foot_fit;
use super::tree::Tree;
use super::{ArmBones, HumanoidRig, LegBones};

/// The longest path length below each bone, and the child it goes through.
pub(crate) fn reaches(tree: &Tree) -> (Vec<f32>, Vec<Option<usize>>) {
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

/// One leg hanging from the pelvis: its bones, whether its foot is external (not below the
/// shin), its length from the pelvis to the tip of the toes, and its lowest height along up.
#[derive(Clone, Copy)]
struct Leg {
    bones: LegBones<usize>,
    external: bool,
    length: f32,
    bottom: f32,
}

struct Hips {
    pelvis: usize,
    legs: [usize; 2],
    spine: usize,
    up: Vec3,
    leg: f32,
    /// The legs, when they were resolved with an external foot (the second search).
    resolved: Option<[Leg; 2]>,
}

/// Where a bone stands for the external-foot search: free, part of the spine and arms (ranked
/// after free bones), or never a foot (the legs' own subtrees).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    Free,
    Body,
    Leg,
}

/// The places of every bone, given the pelvis's spine child and leg children.
fn places(tree: &Tree, spine: usize, legs: [usize; 2]) -> Vec<Place> {
    let mut out = vec![Place::Free; tree.len()];
    for b in tree.subtree(spine) {
        out[b] = Place::Body;
    }
    for b in legs.into_iter().flat_map(|l| tree.subtree(l)) {
        out[b] = Place::Leg;
    }
    out
}

/// The child of `foot` that runs ahead of it, a toe: mostly across `up` (at least a tenth of
/// the thigh `t` across, rising by at most a quarter of that, falling by at most twice it);
/// the one with the longest chain.
fn toe(tree: &Tree, reach: &[f32], up: Vec3, foot: usize, t: f32) -> Option<usize> {
    let length = |c: usize| tree.seg(foot, c) + reach[c];
    tree.children[foot]
        .iter()
        .copied()
        .filter(|&c| {
            let d = tree.pos[c] - tree.pos[foot];
            let v = d.dot(up);
            let h = (d - up * v).length();
            h >= 0.1 * t && v <= 0.25 * h && -v <= 2.0 * h
        })
        .max_by(|&x, &y| length(x).total_cmp(&length(y)))
}

/// A bone that could be a shin's external foot, with its toe and its rank (lower first).
#[derive(Clone, Copy)]
struct FootPick {
    foot: usize,
    ball: Option<usize>,
    rank: (Place, bool, bool, f32),
}

fn by_rank(a: &FootPick, b: &FootPick) -> std::cmp::Ordering {
    let (x, y) = (a.rank, b.rank);
    (x.0, x.1, x.2).cmp(&(y.0, y.1, y.2)).then(x.3.total_cmp(&y.3))
}

/// The bones that could be the external foot of the shin `calf` below `thigh`: at the shin's
/// end by [`external_foot_fit`] (the rule names use), not below or above the shin, outside the
/// legs, with a toe ahead of it or none at all (`toe_only`: a toe is required). Best first:
/// outside the spine and arms, not named like a helper, with a toe, nearest the thigh's line
/// continued past the knee.
fn foot_picks(
    tree: &Tree,
    reach: &[f32],
    up: Vec3,
    (thigh, calf): (usize, usize),
    place: &[Place],
    toe_only: bool,
) -> Vec<FootPick> {
    let t = tree.seg(thigh, calf);
    let along = (tree.pos[calf] - tree.pos[thigh]).normalize_or_zero();
    let mut out: Vec<FootPick> = (0..tree.len())
        .filter(|&f| place[f] != Place::Leg && f != thigh && f != calf)
        .filter(|&f| !tree.is_ancestor(calf, f) && !tree.is_ancestor(f, calf))
        .filter(|&f| external_foot_fit(tree, thigh, calf, f).is_ok())
        .filter_map(|f| {
            let ball = toe(tree, reach, up, f, t);
            if ball.is_none() && (toe_only || !tree.children[f].is_empty()) {
                return None;
            }
            let off = tree.pos[f] - tree.pos[calf];
            let across = (off - along * off.dot(along)).length();
            Some(FootPick { foot: f, ball, rank: (place[f], names::is_helper(&tree.names[f]), ball.is_none(), across) })
        })
        .collect();
    out.sort_by(by_rank);
    out
}

/// One external foot per leg that needs one, never the same bone for both: when both legs'
/// best is one bone, the pairing with the smaller distance across wins.
fn assign(picks: [&[FootPick]; 2]) -> [Option<FootPick>; 2] {
    let first = |i: usize, not: Option<usize>| picks[i].iter().find(|p| Some(p.foot) != not).copied();
    let (a, b) = (first(0, None), first(1, None));
    match (a, b) {
        (Some(x), Some(y)) if x.foot == y.foot => {
            let (a1, b1) = (first(0, Some(y.foot)), first(1, Some(x.foot)));
            let cost = |p: &FootPick, q: &Option<FootPick>| q.map(|q| p.rank.3 + q.rank.3);
            match (cost(&x, &b1), cost(&y, &a1)) {
                (Some(k), Some(l)) if k <= l => [Some(x), b1],
                (Some(_), None) => [Some(x), b1],
                (_, Some(_)) => [a1, Some(y)],
                (None, None) if x.rank.3 <= y.rank.3 => [Some(x), None],
                (None, None) => [None, Some(y)],
            }
        }
        _ => [a, b],
    }
}

/// The two legs hanging from the pelvis `p` through its children `starts`: along each main
/// chain the longest two consecutive bones are thigh and calf, the next the foot and the one
/// after it the ball. A chain that ends at the shin (no bone after the calf, or only a leaf)
/// takes an external foot from [`foot_picks`], the calf being the chain's last bone or the one
/// before the leaf; `strict` (the legs of the first search): only when the chain has no foot
/// at all, or the external foot has a toe and the chain's is a bare leaf. `None`: a leg has no
/// foot.
fn legs_of(
    tree: &Tree,
    (reach, next): (&[f32], &[Option<usize>]),
    p: usize,
    starts: [usize; 2],
    up: Vec3,
    place: &[Place],
    strict: bool,
) -> Option<[Leg; 2]> {
    let h = |b: usize| tree.pos[b].dot(up);
    let lowest = |bs: &[usize]| bs.iter().flat_map(|&b| tree.subtree(b)).map(h).fold(f32::MAX, f32::min);
    let chains = starts.map(|s| main_chain(next, s));
    let mut ordinary: [Option<LegBones<usize>>; 2] = [None, None];
    let mut shins_found: [Option<(usize, usize)>; 2] = [None, None];
    let mut picks: [Vec<FootPick>; 2] = [Vec::new(), Vec::new()];
    for (k, chain) in chains.iter().enumerate() {
        let i = longest_pair(tree, chain);
        ordinary[k] = i.map(|i| LegBones {
            thigh: chain[i],
            calf: chain[i + 1],
            foot: chain[i + 2],
            ball: chain.get(i + 3).copied().filter(|&b| !names::is_helper(&tree.names[b])),
        });
        let (shins, toe_only) = match i {
            Some(i) if chain.len() == i + 3 => (vec![(chain[i], chain[i + 1]), (chain[i + 1], chain[i + 2])], strict),
            None if chain.len() == 2 => (vec![(chain[0], chain[1])], false),
            _ => (Vec::new(), false),
        };
        for shin in shins {
            let found = foot_picks(tree, reach, up, shin, place, toe_only);
            if !found.is_empty() {
                shins_found[k] = Some(shin);
                picks[k] = found;
                break;
            }
        }
    }
    let chosen = assign([&picks[0], &picks[1]]);
    let mut out = Vec::new();
    for k in 0..2 {
        let start = starts[k];
        let leg = match (shins_found[k], chosen[k]) {
            (Some((thigh, calf)), Some(pick)) => {
                let ball = pick.ball.filter(|&b| !names::is_helper(&tree.names[b]));
                let length =
                    tree.seg(p, start) + (reach[start] - reach[calf]) + tree.seg(calf, pick.foot) + reach[pick.foot];
                Leg {
                    bones: LegBones { thigh, calf, foot: pick.foot, ball },
                    external: true,
                    length,
                    bottom: lowest(&[start, pick.foot]),
                }
            }
            _ => Leg {
                bones: ordinary[k]?,
                external: false,
                length: tree.seg(p, start) + reach[start],
                bottom: lowest(&[start]),
            },
        };
        out.push(leg);
    }
    Some([out[0], out[1]])
}

/// The pelvis: see the module doc. `external`: the second search, for legs whose chains end at
/// the shins (the feet hang from the root or a control bone): each pair of chains is resolved
/// with [`legs_of`], and the legs' lengths and lowest bones are those of their external feet.
fn find_hips(tree: &Tree, reach: &[f32], next: &[Option<usize>], size: f32, external: bool) -> Option<Hips> {
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
                if !external && (la - lb).abs() > 0.1 * la.max(lb) {
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
                let rise = |c: usize| tree.subtree(c).iter().map(|&d| h(d)).fold(f32::MIN, f32::max) - h(p);
                let spine =
                    big.iter().copied().filter(|&c| c != a && c != b).max_by(|&x, &y| rise(x).total_cmp(&rise(y)));
                let (leg, resolved) = if external {
                    let Some(spine) = spine else { continue };
                    let place = places(tree, spine, [a, b]);
                    let Some(legs) = legs_of(tree, (reach, next), p, [a, b], up, &place, false) else { continue };
                    let (la, lb) = (legs[0].length, legs[1].length);
                    let leg = la.max(lb);
                    let feet = legs[0].bottom.max(legs[1].bottom);
                    if !legs.iter().any(|l| l.external) || (la - lb).abs() > 0.1 * leg || feet - lowest > 0.1 * leg {
                        continue;
                    }
                    (leg, Some(legs))
                } else {
                    let feet = (va.dot(up) + tree.pos[p].dot(up)).min(vb.dot(up) + tree.pos[p].dot(up));
                    let leg = la.max(lb);
                    if feet - lowest > 0.1 * leg {
                        continue;
                    }
                    (leg, None)
                };
                let Some(spine) = spine.filter(|&s| rise(s) >= 0.3 * leg) else { continue };
                if best.as_ref().is_none_or(|h| leg > h.leg) {
                    best = Some(Hips { pelvis: p, legs: [a, b], spine, up, leg, resolved });
                }
            }
        }
    }
    best
}

/// A second bone that carries a pair of legs like the rig's own: a four-legged creature's
/// shoulders beside the hips the rig took for a pelvis (no humanoid's arms match its legs in a
/// rest pose). The pair's chains are equal (±10 %), as long as the rig's legs (±15 %) or as tall
/// (their carrier as high above their feet as the hips above theirs, ±15 %: a horse's front
/// legs zigzag from high shoulder blades), point the same way down (within ~30°) and end at the
/// same level (within 15 % of a leg along the two pairs' mean down), outside the rig's legs.
pub(crate) fn four_legged(tree: &Tree, rig: &HumanoidRig<usize>) -> Option<usize> {
    let (reach, next) = reaches(tree);
    let tip = |c: usize| tree.pos[*main_chain(&next, c).last().unwrap_or(&c)];
    let hips = rig.pelvis;
    let feet = rig.legs.map(|l| tip(l.thigh));
    let down = (feet[0] + feet[1] - tree.pos[hips] * 2.0).try_normalize()?;
    let leg = rig.legs.iter().map(|l| tree.seg(hips, l.thigh) + reach[l.thigh]).fold(0.0, f32::max);
    let in_legs = |b: usize| rig.legs.iter().any(|l| l.thigh == b || tree.is_ancestor(l.thigh, b));
    let matches = |pair: LegPair| {
        let mean = (pair.down + down).normalize_or_zero();
        let level = |f: &Vec3| f.dot(mean);
        let hind = feet.iter().map(level).fold(f32::MIN, f32::max);
        let hips_height = hind - level(&tree.pos[hips]);
        let as_tall = |carrier: usize| ((hind - level(&tree.pos[carrier])) - hips_height).abs() <= 0.15 * hips_height;
        pair.down.dot(down) > 0.85
            && ((pair.leg - leg).abs() <= 0.15 * leg || as_tall(pair.carrier))
            && pair.feet.iter().all(|f| (level(f) - hind).abs() <= 0.15 * leg)
    };
    (0..tree.len())
        .filter(|&p| p != hips && !in_legs(p))
        .find(|&p| leg_pair(tree, (&reach, &next), p, 0.5 * leg).is_some_and(matches))
}

/// Two legs hanging from one bone (see [`four_legged`]).
struct LegPair {
    carrier: usize,
    feet: [Vec3; 2],
    down: Vec3,
    leg: f32,
}

/// The first pair of children of `p`, each at least `least` long, equal (±10 %), pointing the
/// same way and ending at the lowest bones along that way.
fn leg_pair(tree: &Tree, (reach, next): (&[f32], &[Option<usize>]), p: usize, least: f32) -> Option<LegPair> {
    let long: Vec<usize> = tree.children[p].iter().copied().filter(|&c| tree.seg(p, c) + reach[c] >= least).collect();
    let tip = |c: usize| tree.pos[*main_chain(next, c).last().unwrap_or(&c)] - tree.pos[p];
    let pairs = long.iter().enumerate().flat_map(|(i, &a)| long[i + 1..].iter().map(move |&b| (a, b)));
    pairs.into_iter().find_map(|(a, b)| {
        let (la, lb) = (tree.seg(p, a) + reach[a], tree.seg(p, b) + reach[b]);
        let (va, vb) = (tip(a), tip(b));
        let together = (va + vb).length() / (va.length() + vb.length()).max(f32::MIN_POSITIVE);
        let down = (va + vb).try_normalize()?;
        let lowest = (0..tree.len()).map(|d| tree.pos[d].dot(down)).fold(f32::MIN, f32::max);
        let feet = (tree.pos[p] + va).dot(down).min((tree.pos[p] + vb).dot(down));
        let leg = la.max(lb);
        let fits = (la - lb).abs() <= 0.1 * leg && together >= 0.85 && lowest - feet <= 0.1 * leg;
        fits.then_some(LegPair { carrier: p, feet: [tree.pos[p] + va, tree.pos[p] + vb], down, leg })
    })
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
    let hips = find_hips(tree, &reach, &next, size, false)
        .or_else(|| find_hips(tree, &reach, &next, size, true))
        .ok_or("no bone has two equal chains hanging down to the lowest bones and one rising")?;
    let (pelvis, up, leg) = (hips.pelvis, hips.up, hips.leg);

    let resolved = match hips.resolved {
        Some(legs) => legs,
        None => {
            let place = places(tree, hips.spine, hips.legs);
            legs_of(tree, (&reach, &next), pelvis, hips.legs, up, &place, true)
                .ok_or("a leg has fewer than three bones (thigh, calf, foot)")?
        }
    };
    let external = resolved.iter().any(|l| l.external);
    let legs = resolved.map(|l| l.bones);
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
    // No arms (or arms of fewer than three bones): the rig goes on without them.
    let arm = |start: usize| {
        let chain = main_chain(&next, start);
        let i = longest_pair(tree, &chain)?;
        let clavicle = (i >= 1).then(|| chain[i - 1]);
        Some(ArmBones { clavicle, upper: chain[i], lower: chain[i + 1], hand: chain[i + 2] })
    };
    let (k, arm_bones) = match arms {
        Some((k, [a, b], _)) => (k, [arm(a), arm(b)]),
        None => (climb.len().saturating_sub(3), [None, None]),
    };
    let spine = climb[..=k].to_vec();
    let neck = (k + 1 < climb.len() - 1).then(|| climb[k + 1]);
    let mut rig = HumanoidRig {
        profile: "topology".into(),
        pelvis,
        spine,
        neck,
        head,
        arms: arm_bones,
        legs: [legs[0], legs[1]],
    };
    let mut frame = frame::measure(tree, &rig, false);
    if external {
        // The measured height stops at the legs' subtrees; external feet hang elsewhere.
        let h = |b: usize| tree.pos[b].dot(frame.up);
        let top = tree.subtree(head).into_iter().map(h).fold(f32::MIN, f32::max);
        let bottom = legs.iter().flat_map(|l| [l.thigh, l.foot]).flat_map(|b| tree.subtree(b)).map(h);
        frame.height = (top - bottom.fold(f32::MAX, f32::min)).max(0.0);
    }
    let leftish = |b: usize, from: usize| (tree.pos[b] - tree.pos[from]).dot(frame.left) > 0.0;
    if !leftish(rig.legs[0].thigh, pelvis) {
        rig.legs.swap(0, 1);
    }
    let on_left = |arm: Option<ArmBones<usize>>| arm.map(|a| leftish(a.upper, climb[k]));
    if on_left(rig.arms[0]) == Some(false) || on_left(rig.arms[1]) == Some(true) {
        rig.arms.swap(0, 1);
    }
    Ok((rig, frame))
}
