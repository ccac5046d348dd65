//! The skeleton `clean` solves on.
//!
//! Method: the file's bones (the sampled clip's, parents first), with two changes the leg solve
//! needs. An *external foot* (an IK-control rig's foot hanging from the root or a control bone,
//! not below its shin) is re-hung below its shin for the solve, its local recomputed per frame
//! from the file's pose (so every frame's world pose is unchanged), and the bones renumbered so
//! parents still come first; after the solve it is hung back from its own parent with the local
//! that keeps the solved world pose. A foot without a ball gets a virtual sole bone below it (the
//! toe particle of the solve).
//!
//! Inputs: the sampled parents, the legs' shin and foot bones, the contact points. Outputs:
//! [`SolveRig`], whose [`SolveRig::extend`] and [`SolveRig::strip`] convert `frames × bones`
//! locals between the file's bones and the solve's.
//!
//! Invariants: `strip(extend(x))` poses every file bone as `x` does (same world transforms);
//! solve parents come before their children.

use ik_core::skeleton::forward_kinematics;
use ik_core::{IkError, Xform};

use crate::motion::ContactPoint;

/// The solve's skeleton (see the module docs).
pub(super) struct SolveRig {
    /// Parents, solve bones (the file's renumbered, then the virtual ones).
    pub parents: Vec<Option<usize>>,
    /// Number of file bones.
    pub bones: usize,
    /// Locals of the virtual sole bones (below a foot without a ball).
    added: Vec<Xform>,
    /// The file bone of each solve bone (for the first `bones`).
    file_of: Vec<usize>,
    /// The solve bone of each file bone.
    pub solve_of: Vec<usize>,
    /// The file's parents.
    file_parents: Vec<Option<usize>>,
    /// External feet re-hung below their shins: (foot, shin), file bones.
    moved: Vec<(usize, usize)>,
}

impl SolveRig {
    /// The rig for `legs` (shin and foot, file bones) and `points`; returns it and each foot's
    /// toe particle (solve bones). Fails when a shin hangs below its own foot.
    pub fn new(
        parents: &[Option<usize>],
        legs: [(usize, usize); 2],
        points: &[ContactPoint; 2],
    ) -> Result<(SolveRig, [usize; 2]), IkError> {
        let n = parents.len();
        let mut solve_parents = parents.to_vec();
        let mut moved = Vec::new();
        for (shin, foot) in legs {
            if !descends(parents, foot, shin) {
                if descends(parents, shin, foot) {
                    return Err(IkError::BrokenHierarchy { bone: shin });
                }
                solve_parents[foot] = Some(shin);
                moved.push((foot, shin));
            }
        }
        // Nothing re-hung: the file's numbering (already parents first) is kept.
        let file_of = if moved.is_empty() { (0..n).collect() } else { parents_first(&solve_parents) };
        let mut solve_of = vec![0; n];
        for (s, &f) in file_of.iter().enumerate() {
            solve_of[f] = s;
        }
        let mut rig = SolveRig {
            parents: file_of.iter().map(|&f| solve_parents[f].map(|p| solve_of[p])).collect(),
            bones: n,
            added: Vec::new(),
            file_of,
            solve_of,
            file_parents: parents.to_vec(),
            moved,
        };
        let toes = points.each_ref().map(|p| match p.ball {
            Some(b) => rig.solve_of[b],
            None => {
                rig.parents.push(Some(rig.solve_of[p.foot]));
                rig.added.push(Xform { translation: p.sole, ..Xform::IDENTITY });
                rig.parents.len() - 1
            }
        });
        Ok((rig, toes))
    }

    /// The file bone of solve bone `b` (`None` for a virtual one).
    pub fn file_of(&self, b: usize) -> Option<usize> {
        self.file_of.get(b).copied()
    }

    /// Bones of the solve, virtual ones included.
    pub fn total(&self) -> usize {
        self.parents.len()
    }

    /// `frames × bones` file locals as the solve's.
    pub fn extend(&self, locals: &[Xform]) -> Result<Vec<Xform>, IkError> {
        let mut world = vec![Xform::IDENTITY; self.bones];
        let mut out = Vec::with_capacity(locals.len() / self.bones.max(1) * self.total());
        for frame in locals.chunks_exact(self.bones) {
            let mut frame = frame.to_vec();
            if !self.moved.is_empty() {
                forward_kinematics(&self.file_parents, &frame, &Xform::IDENTITY, &mut world)?;
                for &(foot, shin) in &self.moved {
                    frame[foot] = world[shin].inverse() * world[foot];
                }
            }
            out.extend(self.file_of.iter().map(|&f| frame[f]));
            out.extend(&self.added);
        }
        Ok(out)
    }

    /// The file's locals of `frames × total` solve locals.
    pub fn strip(&self, locals: &[Xform]) -> Result<Vec<Xform>, IkError> {
        let mut world = vec![Xform::IDENTITY; self.total()];
        let mut out = Vec::with_capacity(locals.len() / self.total().max(1) * self.bones);
        for frame in locals.chunks_exact(self.total()) {
            let mut file: Vec<Xform> = self.solve_of.iter().map(|&s| frame[s]).collect();
            if !self.moved.is_empty() {
                forward_kinematics(&self.parents, frame, &Xform::IDENTITY, &mut world)?;
                for &(foot, _) in &self.moved {
                    let own = world[self.solve_of[foot]];
                    file[foot] = match self.file_parents[foot] {
                        Some(p) => world[self.solve_of[p]].inverse() * own,
                        None => own,
                    };
                }
            }
            out.extend(file);
        }
        Ok(out)
    }
}

/// True when `bone` is `ancestor` or below it.
fn descends(parents: &[Option<usize>], mut bone: usize, ancestor: usize) -> bool {
    for _ in 0..=parents.len() {
        if bone == ancestor {
            return true;
        }
        match parents.get(bone).copied().flatten() {
            Some(p) => bone = p,
            None => return false,
        }
    }
    false
}

/// Bones with every parent before its children (depth-first from the top bones, children in
/// index order).
fn parents_first(parents: &[Option<usize>]) -> Vec<usize> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); parents.len()];
    for (b, p) in parents.iter().enumerate() {
        if let Some(p) = *p {
            children[p].push(b);
        }
    }
    let mut order = Vec::with_capacity(parents.len());
    let mut stack: Vec<usize> = (0..parents.len()).rev().filter(|&b| parents[b].is_none()).collect();
    while let Some(b) = stack.pop() {
        order.push(b);
        stack.extend(children[b].iter().rev());
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    /// root(0) → pelvis(1) → thigh(2) → shin(3); foot(4) hangs from the root.
    #[test]
    fn an_external_foot_is_hung_below_its_shin_and_back_with_the_same_world_pose() {
        let parents = [None, Some(0), Some(1), Some(2), Some(0)];
        let point = ContactPoint { foot: 4, ball: None, sole: Vec3::new(0.0, -0.05, 0.1), leg_length: 0.8 };
        let (rig, toes) = SolveRig::new(&parents, [(3, 4), (3, 4)], &[point, point]).unwrap();
        assert_eq!(rig.parents[rig.solve_of[4]], Some(rig.solve_of[3]), "foot below the shin");
        assert!(rig.parents.iter().enumerate().all(|(b, p)| p.is_none_or(|p| p < b)), "parents first");
        assert_eq!(toes.map(|t| rig.parents[t]), [Some(rig.solve_of[4]); 2]);
        let x = |t: Vec3, r: f32| Xform { translation: t, rotation: Quat::from_rotation_x(r), scale: Vec3::ONE };
        let file =
            [x(Vec3::ZERO, 0.1), x(Vec3::Y, 0.2), x(Vec3::X * 0.1, -0.3), x(-Vec3::Y * 0.4, 0.5), x(Vec3::Z, 0.7)];
        let solve = rig.extend(&file).unwrap();
        let back = rig.strip(&solve).unwrap();
        let (mut a, mut b) = (vec![Xform::IDENTITY; 5], vec![Xform::IDENTITY; rig.total()]);
        forward_kinematics(&parents, &file, &Xform::IDENTITY, &mut a).unwrap();
        forward_kinematics(&rig.parents, &solve, &Xform::IDENTITY, &mut b).unwrap();
        for bone in 0..5 {
            assert!(a[bone].translation.distance(b[rig.solve_of[bone]].translation) < 1e-5, "bone {bone}");
            assert!(back[bone].translation.distance(file[bone].translation) < 1e-5, "bone {bone} back");
            assert!(back[bone].rotation.angle_between(file[bone].rotation) < 1e-3, "bone {bone} back");
        }
    }
}
