//! A creature's legs for one up direction: the chains that descend from the body to the lowest
//! bones, whatever their names.
//!
//! **Method.** Heights are along `up`; every threshold is a share of a length of the skeleton.
//! 1. **Ground ends**: end bones (leaves away from their parent) that hang well below their
//!    highest ancestor — by at least a quarter of the skeleton's extent along up, and by at least
//!    0.3 of the path along the bones from that ancestor (a leg descends; a tail or a jaw runs
//!    across) — and end near the lowest end: within a quarter of that ancestor's height above
//!    it. A spider's legs qualify although they rise above the body first: the highest ancestor
//!    is the knee.
//! 2. **Feet**: two ground ends are one foot's (toes, a heel) when the bone they share is nearer
//!    to each, along the bones, than half its descent; otherwise they end two legs.
//! 3. **Legs**: from each foot's shared bone, climb while the parent carries no other foot: the
//!    top reached is the hip, its parent the *carrier* (a pelvis, a chest, a spider's anchor).
//!    The leg runs from the hip to the foot's end bone farthest along the bones.
//! 4. **Segments**: links of at least a tenth of the leg's length count. From the end back, the
//!    links that are short or run less than 45° below level are the toe part; the foot is the
//!    bone where the last long, steep link ends, and the toe the bone after it.
//!
//! Inputs: a checked [`Tree`] and a unit `up`. Outputs: the legs, in no particular order.
//! Invariant: legs never share a bone; every leg has at least one bone.

use glam::Vec3;

use super::tree::Tree;

/// Share of the skeleton's extent along up a ground end must hang below its highest ancestor.
const DROP: f32 = 0.25;
/// Share of the path from its highest ancestor a ground end must descend.
const DESCENT: f32 = 0.3;
/// Share of its highest ancestor's height above the lowest end within which a ground end ends.
const BAND: f32 = 0.25;
/// Two ground ends are one foot's when their shared bone is nearer than this share of descent.
const ONE_FOOT: f32 = 0.5;
/// A link counts as a segment when at least this share of the leg's length.
const LONG_LINK: f32 = 0.1;

/// One leg found for an up direction (bones are indices into the tree).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LegChain {
    /// Hip first, the end bone at the ground last.
    pub bones: Vec<usize>,
    /// The bone the hip hangs from (`None`: the hip is a root).
    pub carrier: Option<usize>,
    /// Index in `bones` of the foot: where the last long, steep link ends.
    pub foot: usize,
    /// Links of at least a tenth of the leg's length, from the hip to the foot.
    pub segments: usize,
    /// Sum of the links from the hip to the end bone.
    pub length: f32,
    /// How far the end bone hangs below its highest ancestor, along up.
    pub descent: f32,
}

impl LegChain {
    /// The end bone at the ground.
    pub fn end(&self) -> usize {
        self.bones[self.bones.len() - 1]
    }
}

/// A ground end with its highest ancestor.
#[derive(Clone, Copy)]
struct End {
    bone: usize,
    top: usize,
}

/// Path length from the root to every bone.
fn distances(tree: &Tree) -> Vec<f32> {
    let mut order: Vec<usize> = (0..tree.len()).collect();
    order.sort_by_key(|&b| tree.depth[b]);
    let mut dist = vec![0.0f32; tree.len()];
    for &b in &order {
        if let Some(p) = tree.parent[b] {
            dist[b] = dist[p] + tree.seg(p, b);
        }
    }
    dist
}

/// The highest strict ancestor of every bone along `up` (the nearest one on a tie).
fn highest_ancestors(tree: &Tree, up: Vec3) -> Vec<Option<usize>> {
    let h = |b: usize| tree.pos[b].dot(up);
    let mut order: Vec<usize> = (0..tree.len()).collect();
    order.sort_by_key(|&b| tree.depth[b]);
    let mut top: Vec<Option<usize>> = vec![None; tree.len()];
    for &b in &order {
        if let Some(p) = tree.parent[b] {
            top[b] = match top[p] {
                Some(t) if h(t) > h(p) => Some(t),
                _ => Some(p),
            };
        }
    }
    top
}

/// Step 1 of the module doc.
fn ground_ends(tree: &Tree, up: Vec3, dist: &[f32], top: &[Option<usize>]) -> Vec<End> {
    let h = |b: usize| tree.pos[b].dot(up);
    let (lo, hi) = (0..tree.len()).map(h).fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let extent = hi - lo;
    if !(extent > 0.0 && extent.is_finite()) {
        return Vec::new();
    }
    let leaf = |b: usize| tree.children[b].is_empty() && tree.parent[b].is_some_and(|p| tree.seg(p, b) > 0.0);
    let leaves: Vec<usize> = (0..tree.len()).filter(|&b| leaf(b)).collect();
    let low = leaves.iter().map(|&b| h(b)).fold(f32::MAX, f32::min);
    leaves
        .into_iter()
        .filter_map(|e| {
            let t = top[e]?;
            let drop = h(t) - h(e);
            let path = dist[e] - dist[t];
            let ground = drop >= DROP * extent && drop >= DESCENT * path && h(e) - low <= BAND * (h(t) - low);
            ground.then_some(End { bone: e, top: t })
        })
        .collect()
}

/// Step 2: the ground ends grouped by foot (union–find over pairs).
fn feet(tree: &Tree, ends: &[End], dist: &[f32]) -> Vec<Vec<usize>> {
    let mut group: Vec<usize> = (0..ends.len()).collect();
    fn find(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    for i in 0..ends.len() {
        for j in i + 1..ends.len() {
            let Some(a) = tree.lca(ends[i].bone, ends[j].bone) else { continue };
            let near = |e: End| dist[e.bone] - dist[a] < ONE_FOOT * (dist[e.bone] - dist[e.top]);
            if near(ends[i]) && near(ends[j]) {
                let (x, y) = (find(&mut group, i), find(&mut group, j));
                group[x.max(y)] = x.min(y);
            }
        }
    }
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut slot = vec![usize::MAX; ends.len()];
    for (i, end) in ends.iter().enumerate() {
        let r = find(&mut group, i);
        if slot[r] == usize::MAX {
            slot[r] = out.len();
            out.push(Vec::new());
        }
        out[slot[r]].push(end.bone);
    }
    out
}

/// Step 4: the foot's index in `bones`, the segment count and the length.
fn shape(tree: &Tree, up: Vec3, bones: &[usize]) -> (usize, usize, f32) {
    let links: Vec<f32> = bones.windows(2).map(|w| tree.seg(w[0], w[1])).collect();
    let length: f32 = links.iter().sum();
    let long = |i: usize| links[i] >= LONG_LINK * length && links[i] > 0.0;
    let steep = |i: usize| {
        let d = tree.pos[bones[i + 1]] - tree.pos[bones[i]];
        let v = d.dot(up);
        -v > (d - up * v).length()
    };
    let foot = (0..links.len()).rev().find(|&i| long(i) && steep(i)).map_or(bones.len() - 1, |i| i + 1);
    let segments = (0..foot).filter(|&i| long(i)).count();
    (foot, segments, length)
}

/// Step 3: the leg ending at the foot `leaves` (one group of [`feet`]); `others` are the other
/// feet's ground ends.
fn leg(
    tree: &Tree,
    up: Vec3,
    (dist, highest): (&[f32], &[Option<usize>]),
    leaves: &[usize],
    others: &[usize],
) -> Option<LegChain> {
    let (&first, rest) = leaves.split_first()?;
    let mut top = rest.iter().try_fold(first, |a, &b| tree.lca(a, b)).unwrap_or(first);
    while let Some(p) = tree.parent[top] {
        if others.iter().any(|&o| tree.is_ancestor(p, o)) {
            break;
        }
        top = p;
    }
    // The end farthest along the bones from the hip; ties: the lowest, then by position.
    let key = |e: usize| {
        let p = tree.pos[e];
        (dist[e] - dist[top], -p.dot(up), p.x, p.y, p.z)
    };
    let below_top: Vec<usize> = leaves.iter().copied().filter(|&e| e == top || tree.is_ancestor(top, e)).collect();
    let end = below_top
        .iter()
        .copied()
        .max_by(|&a, &b| {
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0)
                .then(ka.1.total_cmp(&kb.1))
                .then(ka.2.total_cmp(&kb.2))
                .then(ka.3.total_cmp(&kb.3))
                .then(ka.4.total_cmp(&kb.4))
        })
        .unwrap_or(top);
    let mut bones = vec![top];
    if end != top {
        bones.extend(tree.between(top, end));
        bones.push(end);
    }
    let (foot, segments, length) = shape(tree, up, &bones);
    let descent = highest[end].map_or(0.0, |t| (tree.pos[t] - tree.pos[end]).dot(up));
    Some(LegChain { carrier: tree.parent[top], bones, foot, segments, length, descent })
}

/// The legs for `up` (see the module doc), in no particular order.
pub(crate) fn find_legs(tree: &Tree, up: Vec3) -> Vec<LegChain> {
    let dist = distances(tree);
    let highest = highest_ancestors(tree, up);
    let ends = ground_ends(tree, up, &dist, &highest);
    let groups = feet(tree, &ends, &dist);
    (0..groups.len())
        .filter_map(|g| {
            let others: Vec<usize> =
                groups.iter().enumerate().filter(|(k, _)| *k != g).flat_map(|(_, v)| v).copied().collect();
            leg(tree, up, (&dist, &highest), &groups[g], &others)
        })
        .collect()
}
