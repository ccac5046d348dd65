//! FABRIK (forward and backward reaching IK) for chains of two or more joints, on the chain
//! job it shares with [`crate::ccd`] ([`crate::chain`]).
//!
//! **Method**: joint positions are moved, tip pinned to the target back to the root, then root
//! pinned out to the tip, until within `tolerance` or `max_iterations`; positions become
//! rotations by shortest arcs (animated twist kept); a [`WarmStart`] starts from the last answer.
//! **Inputs**: a [`ChainJob`] (model-space joints root first, target, optional [`JointLimit`](crate::limits::JointLimit)s)
//! and a caller-owned [`ChainScratch`]. **Outputs**: one local correction per joint and a
//! [`ChainSolution`]. **Invariants**: without limits bone lengths are kept and the error never
//! grows; with limits the best pose met is returned; bad input is an [`IkError`] with identity
//! corrections, never NaN. The method in full: `docs/solvers.md` in the repository.
//!
//! ```
//! use ik_core::Xform;
//! use ik_core::fabrik::{self, ChainJob, ChainScratch, WarmStart};
//! use ik_core::glam::{Quat, Vec3};
//!
//! // A four-joint tail along +X, 0.3 m per bone, reaching up for a point near its end.
//! let joints: Vec<Xform> = (0..4).map(|i| Xform::from_translation(Vec3::X * 0.3 * i as f32)).collect();
//! let job = ChainJob::new(&joints, Vec3::new(0.6, 0.4, 0.0));
//! let (mut scratch, mut warm) = (ChainScratch::default(), WarmStart::default());
//! let mut corrections = vec![Quat::IDENTITY; joints.len()];
//! // Every frame: solve (warm-started from the last answer), then multiply the corrections
//! // onto the joints' local rotations (`fabrik::apply_corrections`).
//! let solution = fabrik::solve(&job, &mut scratch, Some(&mut warm), &mut corrections)?;
//! assert!(solution.reached && solution.error <= job.tolerance);
//! assert!((scratch.solved_positions()[3] - job.target).length() <= job.tolerance);
//! # Ok::<(), ik_core::IkError>(())
//! ```

use glam::{Quat, Vec3};

use crate::IkError;
pub use crate::chain::{
    ChainJob, ChainScratch, ChainSolution, DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, WarmStart, apply_corrections,
    gather_chain,
};
use crate::chain::{aim_at_positions, begin, finish, swing_onto_target_line, tip_error};

/// Solves a chain with FABRIK. See the module documentation for the method and invariants.
///
/// `corrections` must have one entry per joint. On error every entry is set to identity.
pub fn solve(
    job: &ChainJob,
    scratch: &mut ChainScratch,
    warm: Option<&mut WarmStart>,
    corrections: &mut [Quat],
) -> Result<ChainSolution, IkError> {
    let mut error = begin(job, scratch, warm.as_deref(), corrections)?;
    let limited = job.limits.iter().any(Option::is_some);
    let tolerance = job.tolerance.max(0.0);
    let root = job.joints[0].translation;
    let mut iterations = 0;
    if error > tolerance && job.max_iterations > 0 {
        let to_target = job.target - root;
        if to_target.length() >= scratch.reach {
            // Out of reach: one pass lays the chain straight towards the target.
            let dir = to_target.normalize_or(Vec3::X);
            for i in 0..scratch.lengths.len() {
                scratch.positions[i + 1] = scratch.positions[i] + dir * scratch.lengths[i];
            }
            aim_at_positions(job, scratch);
            iterations = 1;
        } else {
            let mut best = error;
            scratch.best.copy_from_slice(&scratch.turns);
            while iterations < job.max_iterations && error > tolerance {
                fabrik_passes(job, scratch);
                swing_onto_target_line(job.target, &mut scratch.positions);
                iterations += 1;
                if limited {
                    aim_at_positions(job, scratch);
                }
                error = tip_error(job, scratch);
                if limited && error < best {
                    best = error;
                    scratch.best.copy_from_slice(&scratch.turns);
                }
            }
            if !limited {
                aim_at_positions(job, scratch);
            } else if best < error {
                scratch.turns.copy_from_slice(&scratch.best);
            }
        }
    }
    finish(job, scratch, warm, corrections, iterations)
}

/// One backward pass (tip pinned on the target) and one forward pass (root pinned).
fn fabrik_passes(job: &ChainJob, s: &mut ChainScratch) {
    let n = job.joints.len();
    s.positions[n - 1] = job.target;
    for i in (0..n - 1).rev() {
        let fallback = -(s.turns[i] * job.offset(i)).normalize_or(Vec3::X);
        let dir = (s.positions[i] - s.positions[i + 1]).normalize_or(fallback);
        s.positions[i] = s.positions[i + 1] + dir * s.lengths[i];
    }
    s.positions[0] = job.joints[0].translation;
    for i in 0..n - 1 {
        let fallback = (s.turns[i] * job.offset(i)).normalize_or(Vec3::X);
        let dir = (s.positions[i + 1] - s.positions[i]).normalize_or(fallback);
        s.positions[i + 1] = s.positions[i] + dir * s.lengths[i];
    }
}
