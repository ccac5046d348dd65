//! Shared fixtures for the FABRIK and CCD tests: random posed chains, solving on a rig, and
//! reachable targets.
#![allow(dead_code)]

use std::f32::consts::PI;

use ik_core::fabrik::{ChainJob, ChainScratch, ChainSolution, WarmStart, apply_corrections, gather_chain};
use ik_core::glam::{EulerRot, Quat, Vec3};
use ik_core::{IkError, Skeleton, Xform};

pub type Solver =
    fn(&ChainJob, &mut ChainScratch, Option<&mut WarmStart>, &mut [Quat]) -> Result<ChainSolution, IkError>;

/// Deterministic pseudo-random numbers in [0, 1).
pub fn lcg(state: &mut u64) -> f32 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 40) as f32) / ((1u64 << 24) as f32)
}

pub fn random_rotation(rng: &mut u64) -> Quat {
    Quat::from_euler(EulerRot::YXZ, (lcg(rng) - 0.5) * 2.0 * PI, (lcg(rng) - 0.5) * PI, (lcg(rng) - 0.5) * 2.0 * PI)
}

pub fn random_dir(rng: &mut u64) -> Vec3 {
    Vec3::new(lcg(rng) - 0.5, lcg(rng) - 0.5, lcg(rng) - 0.5).normalize_or(Vec3::Y)
}

/// A rig: a posed base bone, then `joints` chain bones each offset from its parent along a
/// random direction by 0.05..0.3 m, all with random rotations. Chain = bones 1..=joints.
pub fn random_rig(rng: &mut u64, joints: usize) -> (Skeleton, Vec<Xform>, Vec<usize>) {
    let mut parents = vec![None];
    let mut rest = vec![Xform::from_translation_rotation(Vec3::new(0.2, 1.0, -0.3), random_rotation(rng))];
    for i in 1..=joints {
        parents.push(Some(i - 1));
        let offset = random_dir(rng) * (0.05 + 0.25 * lcg(rng));
        rest.push(Xform::from_translation_rotation(offset, random_rotation(rng)));
    }
    let names = (0..=joints).map(|i| format!("b{i}")).collect();
    let skeleton = Skeleton::new(parents, names, rest).unwrap();
    let locals = skeleton.rest().to_vec();
    (skeleton, locals, (1..=joints).collect())
}

pub fn model_of(skeleton: &Skeleton, locals: &[Xform]) -> Vec<Xform> {
    let mut model = vec![Xform::IDENTITY; skeleton.len()];
    skeleton.model_from_local(locals, &mut model).unwrap();
    model
}

pub fn chain_lengths(model: &[Xform], chain: &[usize]) -> Vec<f32> {
    chain.windows(2).map(|w| (model[w[1]].translation - model[w[0]].translation).length()).collect()
}

/// Solves on the rig, applies the corrections to `locals`, and returns the new model pose.
#[allow(clippy::too_many_arguments)]
pub fn solve_rig(
    solve: Solver,
    skeleton: &Skeleton,
    locals: &mut [Xform],
    chain: &[usize],
    target: Vec3,
    tolerance: f32,
    max_iterations: u32,
    warm: Option<&mut WarmStart>,
) -> (ChainSolution, Vec<Xform>, Vec<Vec3>) {
    let model = model_of(skeleton, locals);
    let mut joints = vec![Xform::IDENTITY; chain.len()];
    let mut chain_locals = vec![Quat::IDENTITY; chain.len()];
    gather_chain(&model, locals, chain, &mut joints, &mut chain_locals).unwrap();
    let job = ChainJob { tolerance, max_iterations, ..ChainJob::new(&joints, target) };
    let mut scratch = ChainScratch::default();
    let mut corrections = vec![Quat::IDENTITY; chain.len()];
    let solution = solve(&job, &mut scratch, warm, &mut corrections).unwrap();
    apply_corrections(&corrections, chain, locals).unwrap();
    (solution, model_of(skeleton, locals), scratch.solved_positions().to_vec())
}

/// A reachable target for the chain: distance from the root between the chain's inner reach
/// (plus a margin) and 95% of full reach.
pub fn reachable_target(rng: &mut u64, root: Vec3, lengths: &[f32]) -> Vec3 {
    let reach: f32 = lengths.iter().sum();
    let longest = lengths.iter().copied().fold(0.0, f32::max);
    let inner = (2.0 * longest - reach).max(0.0) + 0.05 * reach;
    root + random_dir(rng) * (inner + (0.95 * reach - inner) * lcg(rng))
}

/// Over `cases` random chains (2–9 joints; every fifth target out of reach), solves from the same
/// pose with iteration caps `0..=max_cap` and returns `(worst relative bone-length change, worst
/// growth of the error from one cap to the next)`. Checks on the way that the reported error is
/// the posed skeleton's and that the solved positions are the posed joints.
pub fn lengths_and_error_growth(solve: Solver, seed: u64, cases: usize, max_cap: u32) -> (f32, f32) {
    let mut rng = seed;
    let (mut worst_length, mut worst_growth) = (0.0f32, 0.0f32);
    for case in 0..cases {
        let (skeleton, rest, chain) = random_rig(&mut rng, 2 + case % 8);
        let before = model_of(&skeleton, &rest);
        let lengths = chain_lengths(&before, &chain);
        let reach: f32 = lengths.iter().sum();
        let target = if case % 5 == 0 {
            before[chain[0]].translation + random_dir(&mut rng) * reach * 1.3
        } else {
            reachable_target(&mut rng, before[chain[0]].translation, &lengths)
        };
        let mut previous = f32::INFINITY;
        for cap in 0..=max_cap {
            let mut locals = rest.clone();
            let (solution, after, solved) = solve_rig(solve, &skeleton, &mut locals, &chain, target, 0.0, cap, None);
            let tip = after[*chain.last().unwrap()].translation;
            assert!(((tip - target).length() - solution.error).abs() <= 1e-5 * reach);
            for (k, &bone) in chain.iter().enumerate() {
                assert!((after[bone].translation - solved[k]).length() <= 1e-5 * reach);
            }
            for (a, b) in chain_lengths(&after, &chain).iter().zip(&lengths) {
                worst_length = worst_length.max((a - b).abs() / b);
            }
            worst_growth = worst_growth.max(solution.error - previous);
            previous = solution.error;
        }
    }
    (worst_length, worst_growth)
}
