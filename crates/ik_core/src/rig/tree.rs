//! The bone tree the rig searches walk: parents, children, depths and rest positions, checked
//! once (no parent index out of range, no parent cycles, no non-finite positions) so the
//! searches after it can walk parents without bounds or cycle checks.

use glam::Vec3;

/// A checked bone tree. Bones are indices into the caller's slice.
pub(crate) struct Tree {
    pub parent: Vec<Option<usize>>,
    pub children: Vec<Vec<usize>>,
    pub depth: Vec<usize>,
    pub pos: Vec<Vec3>,
    pub names: Vec<String>,
}

impl Tree {
    /// Checks and builds the tree; `Err` says what is wrong with the input, naming the bone.
    pub fn new(parent: Vec<Option<usize>>, pos: Vec<Vec3>, names: Vec<String>) -> Result<Self, String> {
        let n = parent.len();
        if n == 0 {
            return Err("the skeleton has no bones".into());
        }
        let label = |i: usize| if names[i].is_empty() { format!("#{i} (unnamed)") } else { format!("`{}`", names[i]) };
        for i in 0..n {
            if let Some(p) = parent[i]
                && p >= n
            {
                return Err(format!("bone {} names parent index {p}, but there are only {n} bones", label(i)));
            }
            if !pos[i].is_finite() {
                return Err(format!("bone {} has a non-finite rest position (NaN or infinity)", label(i)));
            }
        }
        let mut depth = vec![usize::MAX; n];
        let mut path = Vec::new();
        for i in 0..n {
            path.clear();
            let mut cur = i;
            let mut base = None;
            loop {
                if depth[cur] != usize::MAX {
                    base = Some(depth[cur]);
                    break;
                }
                if path.len() > n {
                    return Err(format!("the parents of bone {} form a cycle", label(i)));
                }
                path.push(cur);
                match parent[cur] {
                    Some(p) => cur = p,
                    None => break,
                }
            }
            for (d, &b) in (base.map_or(0, |b| b + 1)..).zip(path.iter().rev()) {
                depth[b] = d;
            }
        }
        let mut children = vec![Vec::new(); n];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                children[p].push(i);
            }
        }
        Ok(Tree { parent, children, depth, pos, names })
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether `a` is a strict ancestor of `d`.
    pub fn is_ancestor(&self, a: usize, d: usize) -> bool {
        let mut cur = self.parent[d];
        while let Some(p) = cur {
            if p == a {
                return true;
            }
            cur = self.parent[p];
        }
        false
    }

    /// The lowest common ancestor of `a` and `b` (either itself if one is above the other).
    pub fn lca(&self, mut a: usize, mut b: usize) -> Option<usize> {
        while self.depth[a] > self.depth[b] {
            a = self.parent[a]?;
        }
        while self.depth[b] > self.depth[a] {
            b = self.parent[b]?;
        }
        while a != b {
            a = self.parent[a]?;
            b = self.parent[b]?;
        }
        Some(a)
    }

    /// The bones strictly between ancestor `a` and descendant `d`, nearest `a` first.
    pub fn between(&self, a: usize, d: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = self.parent[d];
        while let Some(p) = cur {
            if p == a {
                out.reverse();
                return out;
            }
            out.push(p);
            cur = self.parent[p];
        }
        Vec::new()
    }

    /// `b` and all its descendants.
    pub fn subtree(&self, b: usize) -> Vec<usize> {
        let mut out = vec![b];
        let mut i = 0;
        while i < out.len() {
            out.extend_from_slice(&self.children[out[i]]);
            i += 1;
        }
        out
    }

    /// Distance between two bones' rest positions.
    pub fn seg(&self, a: usize, b: usize) -> f32 {
        self.pos[a].distance(self.pos[b])
    }
}
