//! CCD (cyclic coordinate descent) for chains of two or more joints.
//!
//! **Method.** One iteration is a sweep from the joint next to the tip back to the root: each
//! joint turns by the shortest arc that puts the tip on the line from that joint to the target,
//! then (with limits) is clamped into its limit before the sweep moves on, so limits are met
//! joint by joint. Sweeps repeat until the tip is within `tolerance` or `max_iterations` is
//! spent. CCD turns the joints near the tip most, so its answers bend more than FABRIK's and,
//! from a cold start, it needs several times more iterations (and misses more targets); warm
//! started from the previous answer it typically needs one or two.
//!
//! **Inputs and outputs** are FABRIK's ([`crate::fabrik`]): a [`ChainJob`], caller-owned
//! [`ChainScratch`] and optional [`WarmStart`] (same start pose: the previous answer swung to
//! face the target; a start lying on the target line is bent first); one local correction per
//! joint (`local' = local · correction`) and a [`ChainSolution`] (iterations, error, reached).
//!
//! **Invariants.**
//! - Every turn is a rotation about a joint, so bone lengths are kept; without limits each turn
//!   puts the tip as close to the target as that joint can, so the error never grows between
//!   sweeps. With limits it can; the best pose met is returned.
//! - Returned rotations are inside every joint limit (clamped after every turn).
//! - Unlike FABRIK, a joint's turn is about the axis between the joint→tip and joint→target
//!   lines, not the bone's own swing, so CCD may twist bones about their length.
//! - Zero-length bones are skipped, as in FABRIK; joints with the tip (or target) on top of them
//!   take no turn that sweep. Bad input returns an [`IkError`] with identity corrections.

use glam::Quat;

use crate::IkError;
pub use crate::fabrik::{ChainJob, ChainScratch, ChainSolution, WarmStart};
use crate::fabrik::{begin, clamp_joint, finish, forward_kinematics, tip_error};
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
    let tiny = crate::fabrik::ZERO_LENGTH * s.reach;
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
