//! CCD (cyclic coordinate descent) for chains of two or more joints.
//!
//! **Method**: each sweep turns every joint, from the tip's neighbour back to the root, by the
//! shortest arc that puts the tip on its line to the target, clamped into the joint's limit
//! before the next; sweeps repeat until within `tolerance` or `max_iterations`. **Inputs and
//! outputs** are FABRIK's ([`crate::fabrik`]): a [`ChainJob`], a [`ChainScratch`], an optional
//! [`WarmStart`]; one local correction per joint and a [`ChainSolution`]. **Invariants**: bone
//! lengths kept; returned rotations inside every limit; without limits the error never grows,
//! with them the best pose met is returned; bad input is an [`IkError`] with identity
//! corrections. The method in full: `docs/solvers.md` in the repository.
//!
//! ```
//! use ik_core::Xform;
//! use ik_core::ccd::{self, ChainJob, ChainScratch};
//! use ik_core::glam::{Quat, Vec3};
//! use ik_core::limits::JointLimit;
//!
//! // Three 0.4 m bones up +Y, each joint a hinge about Z (±90° from rest), reaching sideways.
//! let joints: Vec<Xform> = (0..4).map(|i| Xform::from_translation(Vec3::Y * 0.4 * i as f32)).collect();
//! let locals = [Quat::IDENTITY; 4];
//! let hinge = JointLimit::hinge(Quat::IDENTITY, Vec3::Z, -90f32.to_radians(), 90f32.to_radians());
//! let limits = [Some(hinge); 4];
//! let job = ChainJob { max_iterations: 50, ..ChainJob::new(&joints, Vec3::new(0.5, 0.6, 0.0)) }
//!     .with_limits(&locals, &limits);
//! let mut corrections = [Quat::IDENTITY; 4];
//! let solution = ccd::solve(&job, &mut ChainScratch::default(), None, &mut corrections)?;
//! assert!(solution.reached);
//! // The locals were identity, so each correction is the joint's new local rotation.
//! assert!(corrections.iter().all(|c| hinge.violation(*c) < 1e-4));
//! # Ok::<(), ik_core::IkError>(())
//! ```

use glam::Quat;

use crate::IkError;
pub use crate::chain::{ChainJob, ChainScratch, ChainSolution, WarmStart};
use crate::chain::{begin, clamp_joint, finish, forward_kinematics, tip_error};
use crate::limits::shortest_arc;

/// Solves a chain with CCD. See the module documentation for the method and invariants.
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
    let mut best = error;
    scratch.best.copy_from_slice(&scratch.turns);
    let mut iterations = 0;
    while iterations < job.max_iterations && error > tolerance {
        sweep(job, scratch);
        forward_kinematics(job, scratch);
        iterations += 1;
        error = tip_error(job, scratch);
        if limited && error < best {
            best = error;
            scratch.best.copy_from_slice(&scratch.turns);
        }
    }
    if limited && best < error {
        scratch.turns.copy_from_slice(&scratch.best);
    }
    finish(job, scratch, warm, corrections, iterations)
}

/// One tip-to-root sweep.
fn sweep(job: &ChainJob, s: &mut ChainScratch) {
    let n = job.joints.len();
    let tiny = crate::chain::ZERO_LENGTH * s.reach;
    for i in (0..n - 1).rev() {
        let pivot = s.positions[i];
        let to_tip = s.positions[n - 1] - pivot;
        let to_target = job.target - pivot;
        if to_tip.length() > tiny && to_target.length() > tiny {
            let (Some(from), Some(to)) = (to_tip.try_normalize(), to_target.try_normalize()) else {
                continue;
            };
            turn_subchain(s, i, shortest_arc(from, to));
        }
        if let Some(extra) = clamp_joint(job, s, i) {
            // The clamp already set joint i's turn; carry its descendants along.
            rotate_descendants(s, i, extra);
        }
    }
}

/// Turns joint `i` and everything after it by the model-space rotation `turn` about joint `i`.
fn turn_subchain(s: &mut ChainScratch, i: usize, turn: Quat) {
    s.turns[i] = (turn * s.turns[i]).normalize();
    rotate_descendants(s, i, turn);
}

/// Turns the joints after `i` (turns and positions) by `turn` about joint `i`.
fn rotate_descendants(s: &mut ChainScratch, i: usize, turn: Quat) {
    let pivot = s.positions[i];
    for j in i + 1..s.turns.len() {
        s.turns[j] = (turn * s.turns[j]).normalize();
        s.positions[j] = pivot + turn * (s.positions[j] - pivot);
    }
}
