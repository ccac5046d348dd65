//! A creature's body frame from its rest pose, once its legs are found: the sides (the mirror
//! plane), forward (head against tail), each leg's side, and the spine, head and tail.
//!
//! **Method.** Heights are along `up`; lengths are shares of the mean leg length.
//! 1. **Sides**: the plane through the body bone, containing `up`, that best mirrors the
//!    skeleton onto itself — the legs' bones and every end bone, each matched to its nearest
//!    bone — tried every degree around `up` (the model's axes first, so an axis-aligned rest
//!    pose keeps them on a tie). Its normal is the side axis; the body axis is across it.
//! 2. **Forward**: of the two non-leg end bones farthest along the body axis either way, the
//!    head's is the one reached from the body through another leg carrier (a chest carrying the
//!    front legs), or whose other end hangs from above the body (a tail off the hips while the
//!    legs hang from the spine). On a tie the feet point forward (the legs' last links, summed,
//!    run ahead by over 5 % of a leg: toes, a paw, a hoof's tip); then the higher end is the
//!    head's (by over 5 % of a leg); then the convention of [`frame::assumed_forward`](super::frame) holds.
//! 3. **Legs' sides**: the side of the mean of a leg's bones; within 5 % of a leg of the mirror
//!    plane it has none. Legs are ordered front to back by the midpoint of hip and end.
//! 4. **Spine, head, tail**: the spine runs from the body to the bone that carries the front
//!    pair; the head from there to the non-leg end farthest forward and up (not behind the body
//!    by more than a tenth of a leg), stopping at its last bone with several children when all
//!    their branches are shorter than 0.4 leg (a skull with jaw and ears); the tail to the end
//!    farthest back, over a tenth of a leg behind the rear hips, on a chain of two bones or more
//!    that starts at least half the body's height above the ground, outside the head and the
//!    spine past the body (not an arm, not a control bone off the root).
//!
//! Inputs: a checked [`Tree`], `up`, the body bone and the legs. Outputs: a [`Layout`].
//! Invariant: `left = up × forward`, both unit and perpendicular to `up`.

use glam::Vec3;

use super::Side;
use super::creature::CreatureForward;
use super::creature_legs::LegChain;
use super::frame::assumed_forward;
use super::topology::reaches;
use super::tree::Tree;

/// Share of a leg within which toes, heights or sides are taken as level or undecided.
const UNDECIDED: f32 = 0.05;
/// Share of a leg below which the branches off a head's last bone are its jaw, ears and eyes.
const SKULL: f32 = 0.4;
/// Share of a leg a tail must reach behind the rear hips (and a head may sit behind the body).
const REACH: f32 = 0.1;

/// The frame and the legs' sides.
pub(crate) struct Layout {
    pub forward: Vec3,
    pub left: Vec3,
    pub forward_from: CreatureForward,
    /// Per leg, in the input order (`None`: on the mirror plane).
    pub sides: Vec<Option<Side>>,
}

/// Step 1: the normal of the best mirror plane through `centre` containing `up`.
fn mirror_normal(tree: &Tree, up: Vec3, centre: Vec3, sources: &[usize]) -> Vec3 {
    let a = [Vec3::X, Vec3::Z, Vec3::Y]
        .into_iter()
        .min_by(|x, y| x.dot(up).abs().total_cmp(&y.dot(up).abs()))
        .unwrap_or(Vec3::X);
    let a = (a - up * a.dot(up)).normalize_or_zero();
    let b = up.cross(a);
    let size = tree.pos.iter().map(|p| p.distance(centre)).fold(0.0f32, f32::max).max(f32::MIN_POSITIVE);
    let mut errors = Vec::with_capacity(sources.len());
    let mut best = (f32::MAX, a);
    for degree in 0..180 {
        let angle = (degree as f32).to_radians();
        let n = a * angle.cos() + b * angle.sin();
        errors.clear();
        for &s in sources {
            let p = tree.pos[s];
            let m = p - n * (2.0 * (p - centre).dot(n));
            errors.push(tree.pos.iter().map(|q| q.distance(m)).fold(f32::MAX, f32::min));
        }
        // Summed in a fixed order, so the bones' order cannot change the choice.
        errors.sort_by(f32::total_cmp);
        let error: f32 = errors.iter().sum();
        if error < best.0 - 1e-5 * size {
            best = (error, n);
        }
    }
    best.1
}

/// End bones away from their parent that hang in no leg and share a root with the body.
fn non_leg_ends(tree: &Tree, body: usize, legs: &[LegChain]) -> Vec<usize> {
    let in_leg = |b: usize| legs.iter().any(|l| l.bones[0] == b || tree.is_ancestor(l.bones[0], b));
    (0..tree.len())
        .filter(|&b| tree.children[b].is_empty() && tree.parent[b].is_some_and(|p| tree.seg(p, b) > 0.0))
        .filter(|&b| !in_leg(b) && tree.lca(body, b).is_some())
        .collect()
}

/// The bone maximising `score`, ties broken by position so the bones' order does not matter.
fn best_by(tree: &Tree, bones: &[usize], score: impl Fn(usize) -> f32) -> Option<usize> {
    bones.iter().copied().max_by(|&x, &y| {
        let (p, q) = (tree.pos[x], tree.pos[y]);
        score(x).total_cmp(&score(y)).then(p.x.total_cmp(&q.x)).then(p.y.total_cmp(&q.y)).then(p.z.total_cmp(&q.z))
    })
}

/// Step 2: forward along `axis` (either sign), and what decided it.
fn facing(tree: &Tree, up: Vec3, axis: Vec3, body: usize, legs: &[LegChain]) -> (Vec3, CreatureForward) {
    let leg = legs.iter().map(|l| l.length).sum::<f32>() / legs.len().max(1) as f32;
    let ends = non_leg_ends(tree, body, legs);
    let along = |b: usize| (tree.pos[b] - tree.pos[body]).dot(axis);
    let front = best_by(tree, &ends, along);
    let back = best_by(tree, &ends, |b| -along(b));
    let carriers: Vec<usize> = legs.iter().filter_map(|l| l.carrier).filter(|&c| c != body).collect();
    let score = |e: usize| -> i32 {
        if !tree.is_ancestor(body, e) {
            -1
        } else {
            i32::from(carriers.iter().any(|&c| c == e || tree.is_ancestor(c, e)))
        }
    };
    if let (Some(f), Some(b)) = (front, back)
        && f != b
        && score(f) != score(b)
    {
        let sign = if score(f) > score(b) { 1.0 } else { -1.0 };
        return (axis * sign, CreatureForward::HeadChain);
    }
    let last_link = |l: &LegChain| match l.bones[..] {
        [.., a, b] => (tree.pos[b] - tree.pos[a]).dot(axis),
        _ => 0.0,
    };
    let toes: f32 = legs.iter().map(last_link).sum();
    if toes.abs() > UNDECIDED * leg {
        return (axis * toes.signum(), CreatureForward::Toes);
    }
    if let (Some(f), Some(b)) = (front, back) {
        let rise = (tree.pos[f] - tree.pos[b]).dot(up);
        if rise.abs() > UNDECIDED * leg {
            return (axis * rise.signum(), CreatureForward::HeadHigher);
        }
    }
    let sign = if assumed_forward(up).dot(axis) >= 0.0 { 1.0 } else { -1.0 };
    (axis * sign, CreatureForward::Assumed)
}

/// Steps 1 to 3: the frame and each leg's side.
pub(crate) fn layout(tree: &Tree, up: Vec3, body: usize, legs: &[LegChain]) -> Layout {
    let mut sources: Vec<usize> = legs.iter().flat_map(|l| l.bones.iter().copied()).collect();
    sources.extend(non_leg_ends(tree, body, legs));
    let centre = tree.pos[body];
    let normal = mirror_normal(tree, up, centre, &sources);
    let axis = up.cross(normal).normalize_or_zero();
    let (forward, forward_from) = facing(tree, up, axis, body, legs);
    let left = up.cross(forward).normalize_or_zero();
    let leg = legs.iter().map(|l| l.length).sum::<f32>() / legs.len().max(1) as f32;
    let sides = legs
        .iter()
        .map(|l| {
            let mean = l.bones.iter().map(|&b| tree.pos[b]).sum::<Vec3>() / l.bones.len() as f32;
            let off = (mean - centre).dot(left);
            if off.abs() <= UNDECIDED * leg {
                None
            } else if off > 0.0 {
                Some(Side::Left)
            } else {
                Some(Side::Right)
            }
        })
        .collect();
    Layout { forward, left, forward_from, sides }
}

/// How far forward a leg is: the midpoint of its hip and its end bone, along `forward`.
pub(crate) fn leg_front(tree: &Tree, forward: Vec3, leg: &LegChain) -> f32 {
    ((tree.pos[leg.bones[0]] + tree.pos[leg.end()]) * 0.5).dot(forward)
}

/// The chain from below the bone `end` shares with `from` down to `end`, cut after its last
/// bone with several children when every branch below it is shorter than `short` (a skull's
/// jaw, ears and eyes; not a chest's arms).
fn chain_to(tree: &Tree, reach: &[f32], from: usize, end: usize, short: f32) -> Vec<usize> {
    let Some(a) = tree.lca(from, end) else { return Vec::new() };
    let mut chain = tree.between(a, end);
    if end != a {
        chain.push(end);
    }
    if let Some(k) = chain.iter().rposition(|&b| tree.children[b].len() > 1) {
        let b = chain[k];
        if tree.children[b].iter().all(|&c| tree.seg(b, c) + reach[c] <= short) {
            chain.truncate(k + 1);
        }
    }
    chain
}

/// Step 4: spine, head and tail. `legs` are ordered front to back, pair by pair.
pub(crate) fn trunk(tree: &Tree, up: Vec3, forward: Vec3, body: usize, legs: &[LegChain]) -> [Vec<usize>; 3] {
    let leg = legs.iter().map(|l| l.length).sum::<f32>() / legs.len().max(1) as f32;
    let front = match legs {
        [a, b, ..] => tree.lca(a.bones[0], b.bones[0]).unwrap_or(body),
        _ => body,
    };
    let mut spine = vec![body];
    if front != body && tree.is_ancestor(body, front) {
        spine.extend(tree.between(body, front));
        spine.push(front);
    }
    let last = spine[spine.len() - 1];
    let ends = non_leg_ends(tree, body, legs);
    let (reach, _) = reaches(tree);
    let rel = |b: usize| tree.pos[b] - tree.pos[body];
    let ahead: Vec<usize> = ends.iter().copied().filter(|&e| rel(e).dot(forward) >= -REACH * leg).collect();
    let head_end = best_by(tree, &ahead, |e| rel(e).dot(forward) + rel(e).dot(up));
    let head = head_end.map_or(Vec::new(), |e| chain_to(tree, &reach, last, e, SKULL * leg));
    let rear = legs.iter().map(|l| (tree.pos[l.bones[0]] - tree.pos[body]).dot(forward)).fold(f32::MAX, f32::min);
    // Not the head's, not under the spine past the body (an arm), not a lone bone nor one
    // starting at the ground (a control bone off the root).
    let front_part: Vec<usize> = head.iter().chain(spine.get(1)).copied().collect();
    let h = |b: usize| tree.pos[b].dot(up);
    let ground = legs.iter().map(|l| h(l.end())).fold(f32::MAX, f32::min);
    let raised = |chain: &[usize]| chain.first().is_some_and(|&b| h(b) - ground >= 0.5 * (h(body) - ground));
    let behind: Vec<usize> = ends
        .iter()
        .copied()
        .filter(|&e| rel(e).dot(forward) <= rear - REACH * leg && Some(e) != head_end)
        .filter(|&e| !front_part.iter().any(|&f| f == e || tree.is_ancestor(f, e)))
        .filter(|&e| {
            let chain = chain_to(tree, &reach, last, e, 0.0);
            chain.len() >= 2 && raised(&chain)
        })
        .collect();
    let tail_end = best_by(tree, &behind, |e| -rel(e).dot(forward));
    let tail = tail_end.map_or(Vec::new(), |e| chain_to(tree, &reach, last, e, SKULL * leg));
    [spine, head, tail]
}
