//! Properties of two-bone, FABRIK and CCD over random chains, poses, targets and poles,
//! degenerate ones included (target at the root, on the chain's or the pole's line, zero-length
//! bones, scales of 1e-3 and 1e3 m, NaN and infinite inputs):
//! - never a NaN or infinite output, never a panic;
//! - a NaN or infinite input gives `IkError::NonFiniteInput` and the input pose (identity
//!   corrections);
//! - zero-length bones: the chain solvers skip them (error only when every bone is zero length),
//!   the two-bone solver answers `IkError::ZeroLengthBone`;
//! - bone lengths kept, limits kept within 1e-4 rad; the chain solvers' reported error is the
//!   solved tip's distance to the target and, cold and without limits, never more than the
//!   start pose's;
//! - two-bone: weight ≤ 0 gives exact identity corrections; at full weight a target inside the
//!   limb's hard (unsoftened) reach is reached; a target a hair from the current tip is reached
//!   within 1e-5 of the limb length.

use ik_core::fabrik::{ChainJob, ChainScratch, ChainSolution, WarmStart};
use ik_core::glam::{EulerRot, Quat, Vec3};
use ik_core::limits::JointLimit;
use ik_core::{IkError, TwoBoneJob, Xform, ccd, fabrik, two_bone_positions};
use proptest::prelude::*;

use super::{Failure, Verdict};

const SCALES: [f32; 3] = [1e-3, 1.0, 1e3];

fn vec3(v: [f32; 3]) -> Vec3 {
    Vec3::from_array(v)
}

fn rotation(e: [f32; 3]) -> Quat {
    Quat::from_euler(EulerRot::YXZ, e[0], e[1], e[2])
}

fn fail(e: IkError) -> Failure {
    Failure::Invariant(format!("unexpected error: {e}"))
}

/// Where a non-finite value is planted, if anywhere.
#[derive(Clone, Copy, Debug)]
pub enum Poison {
    None,
    JointTranslation(usize),
    JointRotation(usize),
    Target,
    Local(usize),
    Limit(usize),
    Tolerance,
}

fn poison_strategy() -> impl Strategy<Value = Poison> {
    prop_oneof![
        4 => Just(Poison::None),
        1 => (0usize..8).prop_map(Poison::JointTranslation),
        1 => (0usize..8).prop_map(Poison::JointRotation),
        1 => Just(Poison::Target),
        1 => (0usize..8).prop_map(Poison::Local),
        1 => (0usize..8).prop_map(Poison::Limit),
        1 => Just(Poison::Tolerance),
    ]
}

fn bad_value() -> impl Strategy<Value = f32> {
    prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(f32::NEG_INFINITY)]
}

/// A random chain: per bone a direction, a length factor (some exactly zero) and a rotation.
#[derive(Clone, Debug)]
pub struct ChainCase {
    scale: f32,
    root: [f32; 3],
    bones: Vec<([f32; 3], f32, [f32; 3])>,
    target_kind: u8,
    target: [f32; 3],
    limited: bool,
    limit_numbers: Vec<(f32, f32, [f32; 3])>,
}

fn chain_strategy() -> impl Strategy<Value = ChainCase> {
    let bone = (
        prop::array::uniform3(-1.0f32..1.0),
        prop_oneof![1 => Just(0.0f32), 6 => 0.01f32..1.0],
        prop::array::uniform3(-3.2f32..3.2),
    );
    let limit = (0.0f32..1.5, -1.0f32..1.0, prop::array::uniform3(-1.0f32..1.0));
    (
        prop::sample::select(SCALES.to_vec()),
        prop::array::uniform3(-2.0f32..2.0),
        prop::collection::vec(bone, 2..9),
        0u8..6,
        prop::array::uniform3(-2.0f32..2.0),
        any::<bool>(),
        prop::collection::vec(limit, 9),
    )
        .prop_map(|(scale, root, bones, target_kind, target, limited, limit_numbers)| ChainCase {
            scale,
            root,
            bones,
            target_kind,
            target,
            limited,
            limit_numbers,
        })
}

/// Builds joints, locals, limits and target for a case (all finite).
fn build(case: &ChainCase) -> (Vec<Xform>, Vec<Quat>, Vec<Option<JointLimit>>, Vec3) {
    let mut joints = Vec::new();
    let mut position = vec3(case.root) * case.scale;
    for (dir, length, euler) in &case.bones {
        joints.push(Xform::from_translation_rotation(position, rotation(*euler)));
        position += vec3(*dir).normalize_or(Vec3::Y) * *length * case.scale;
    }
    joints.push(Xform::from_translation_rotation(position, Quat::from_rotation_z(0.3)));
    let locals: Vec<Quat> = joints.iter().map(|j| j.rotation).collect();
    let limits = joints
        .iter()
        .enumerate()
        .map(|(k, j)| {
            let (a, b, axis) = case.limit_numbers[k];
            match k % 3 {
                _ if !case.limited => None,
                0 => Some(JointLimit::cone(j.rotation, vec3(axis), a, -a.abs(), b.abs())),
                1 => Some(JointLimit::hinge(j.rotation, vec3(axis), b.min(0.0), a)),
                _ => None,
            }
        })
        .collect();
    let root = joints[0].translation;
    let tip = position;
    let reach: f32 = case.bones.iter().map(|b| b.1).sum::<f32>() * case.scale;
    let target = match case.target_kind {
        0 => root,                                                         // at the root
        1 => root + (tip - root) * 0.5,                                    // on the chain's line
        2 => tip,                                                          // on the tip
        3 => root + vec3(case.target).normalize_or(Vec3::X) * reach * 1e3, // far out of reach
        _ => root + vec3(case.target) * reach.max(case.scale),             // anywhere near
    };
    (joints, locals, limits, target)
}

fn all_zero_length(case: &ChainCase) -> bool {
    case.bones.iter().all(|b| b.1 == 0.0)
}

type Solve = fn(&ChainJob, &mut ChainScratch, Option<&mut WarmStart>, &mut [Quat]) -> Result<ChainSolution, IkError>;

/// One chain solve: the chain, what is poisoned, the solver (CCD or FABRIK), warm start or
/// cold, and the iteration cap.
#[derive(Clone, Debug)]
pub struct ChainInput {
    pub case: ChainCase,
    pub poison: Poison,
    pub bad: f32,
    pub use_ccd: bool,
    pub warm_start: bool,
    pub iterations: u32,
}

/// Chain solves; `use_ccd` picks the solver (`any::<bool>()` for both, `Just(..)` for one).
pub fn chain_input(use_ccd: impl Strategy<Value = bool>) -> impl Strategy<Value = ChainInput> {
    (chain_strategy(), poison_strategy(), bad_value(), use_ccd, any::<bool>(), 0u32..30).prop_map(
        |(case, poison, bad, use_ccd, warm_start, iterations)| ChainInput {
            case,
            poison,
            bad,
            use_ccd,
            warm_start,
            iterations,
        },
    )
}

/// FABRIK and CCD never output NaN, refuse non-finite input, keep bone lengths and limits, and
/// report the error of the pose they return.
pub fn chain_solvers(input: ChainInput) -> Verdict {
    let ChainInput { case, poison, bad, use_ccd, warm_start, iterations } = input;
    let solve: Solve = if use_ccd { ccd::solve } else { fabrik::solve };
    let (mut joints, mut locals, mut limits, mut target) = build(&case);
    let n = joints.len();
    let mut tolerance = 1e-3 * case.scale;
    let mut poisoned = true;
    match poison {
        Poison::None => poisoned = false,
        Poison::JointTranslation(k) => joints[k % n].translation.x = bad,
        Poison::JointRotation(k) => joints[k % n].rotation.w = bad,
        Poison::Target => target.y = bad,
        Poison::Local(k) => locals[k % n].z = bad,
        Poison::Limit(k) => {
            limits[k % n] = Some(JointLimit::hinge(Quat::IDENTITY, Vec3::X, bad, 1.0));
        }
        Poison::Tolerance => tolerance = bad,
    }
    let job = ChainJob { tolerance, max_iterations: iterations, ..ChainJob::new(&joints, target) }
        .with_limits(&locals, &limits);
    let mut scratch = ChainScratch::default();
    let mut warm = WarmStart::default();
    let mut corrections = vec![Quat::from_rotation_x(0.5); n];
    if warm_start {
        // A first solve fills the warm start (when the input is good).
        let _ = solve(&job, &mut scratch, Some(&mut warm), &mut corrections);
    }
    let result = solve(&job, &mut scratch, warm_start.then_some(&mut warm), &mut corrections);
    if poisoned {
        check_eq!(result, Err(IkError::NonFiniteInput));
        check!(corrections.iter().all(|c| *c == Quat::IDENTITY));
        return Ok(());
    }
    if all_zero_length(&case) {
        check_eq!(result, Err(IkError::ZeroLengthBone { bone: 0 }));
        check!(corrections.iter().all(|c| *c == Quat::IDENTITY));
        return Ok(());
    }
    let solution = result.map_err(fail)?;
    check_finite!(solution.error.is_finite());
    check_finite!(corrections.iter().all(|c| c.is_finite()));
    check!(corrections.iter().all(|c| (c.length() - 1.0).abs() < 1e-4));
    let solved = scratch.solved_positions();
    check_finite!(solved.iter().all(|p| p.is_finite()));
    // Bone lengths kept (zero-length bones stay zero length).
    for k in 0..n - 1 {
        let before = (joints[k + 1].translation - joints[k].translation).length();
        let after = (solved[k + 1] - solved[k]).length();
        check!((after - before).abs() <= 1e-4 * before + 1e-6 * case.scale, "bone {} {} -> {}", k, before, after);
    }
    // Limits kept.
    for k in 0..n {
        if let Some(limit) = &limits[k] {
            let violation = limit.violation(locals[k] * corrections[k]);
            check!(violation <= 1e-4, "joint {} is {} rad outside its limit", k, violation);
        }
    }
    // The error is the returned pose's, and `reached` says whether it is within tolerance.
    let reach: f32 = (0..n - 1).map(|k| (joints[k + 1].translation - joints[k].translation).length()).sum();
    let root_to_target = (target - joints[0].translation).length();
    let rounding = 1e-5 * (reach + root_to_target) + 1e-6 * case.scale;
    let tip_error = (solved[n - 1] - target).length();
    check!((solution.error - tip_error).abs() <= rounding, "error {} but the tip is {} off", solution.error, tip_error);
    check_eq!(solution.reached, solution.error <= tolerance);
    // Cold and free, the solver keeps the best pose it met: never worse than the start.
    if !warm_start && !case.limited {
        let start = (joints[n - 1].translation - target).length();
        check!(solution.error <= start + rounding, "error {} from a start {} off", solution.error, start);
    }
    Ok(())
}

/// One two-bone solve over random limbs, targets, poles, soften and weight, with one value
/// poisoned when `poison <= 8`.
#[derive(Clone, Debug)]
pub struct TwoBoneInput {
    pub scale: f32,
    pub root: [f32; 3],
    pub upper: ([f32; 3], f32),
    pub lower: ([f32; 3], f32),
    pub rotations: ([f32; 3], [f32; 3]),
    pub target_kind: u8,
    pub target: [f32; 3],
    pub pole_kind: u8,
    pub pole: [f32; 3],
    pub soften: f32,
    pub weight: f32,
    pub poison: u8,
    pub bad: f32,
}

pub fn two_bone_input() -> impl Strategy<Value = TwoBoneInput> {
    let bone = || (prop::array::uniform3(-1.0f32..1.0), prop_oneof![1 => Just(0.0f32), 6 => 0.01f32..1.0]);
    (
        (prop::sample::select(SCALES.to_vec()), prop::array::uniform3(-2.0f32..2.0), bone(), bone()),
        (prop::array::uniform3(-3.2f32..3.2), prop::array::uniform3(-3.2f32..3.2)),
        (0u8..5, prop::array::uniform3(-2.0f32..2.0), 0u8..4, prop::array::uniform3(-2.0f32..2.0)),
        (0.0f32..1.0, -0.5f32..1.5, 0u8..12, bad_value()),
    )
        .prop_map(
            |(
                (scale, root, upper, lower),
                rotations,
                (target_kind, target, pole_kind, pole),
                (soften, weight, poison, bad),
            )| {
                TwoBoneInput {
                    scale,
                    root,
                    upper,
                    lower,
                    rotations,
                    target_kind,
                    target,
                    pole_kind,
                    pole,
                    soften,
                    weight,
                    poison,
                    bad,
                }
            },
        )
}

/// Two-bone never outputs NaN, refuses non-finite input and zero-length bones, keeps bone
/// lengths, is the identity at weight ≤ 0 and reaches what its hard reach allows at full weight.
pub fn two_bone(input: TwoBoneInput) -> Verdict {
    let TwoBoneInput {
        scale,
        root,
        upper,
        lower,
        rotations,
        target_kind,
        target,
        pole_kind,
        pole,
        soften,
        weight,
        poison,
        bad,
    } = input;
    let root = vec3(root) * scale;
    let mid = root + vec3(upper.0).normalize_or(Vec3::X) * upper.1 * scale;
    let tip = mid + vec3(lower.0).normalize_or(Vec3::Y) * lower.1 * scale;
    let reach = (upper.1 + lower.1) * scale;
    let target = match target_kind {
        0 => root,
        1 => tip,
        2 => root + vec3(target).normalize_or(Vec3::Z) * reach.max(scale) * 1e3,
        _ => root + vec3(target) * reach.max(scale),
    };
    let pole = match pole_kind {
        0 => None,
        1 => Some(root + (target - root) * 2.0), // on the root→target line
        2 => Some(root),
        _ => Some(root + vec3(pole) * scale),
    };
    let mut job = TwoBoneJob {
        root,
        mid,
        tip,
        root_rotation: rotation(rotations.0),
        mid_rotation: rotation(rotations.1),
        target,
        pole,
        soften,
        weight,
    };
    match poison {
        0 => job.root.z = bad,
        1 => job.mid.x = bad,
        2 => job.tip.y = bad,
        3 => job.root_rotation.x = bad,
        4 => job.mid_rotation.w = bad,
        5 => job.target.x = bad,
        6 => job.pole = Some(Vec3::new(0.0, bad, 0.0)),
        7 => job.soften = bad,
        8 => job.weight = bad,
        _ => {}
    }
    let result = job.run();
    if poison <= 8 {
        check_eq!(result, Err(IkError::NonFiniteInput));
        check!(two_bone_positions(root, bad, 1.0, target, root).is_err());
        return Ok(());
    }
    if upper.1 == 0.0 || lower.1 == 0.0 {
        check!(matches!(result, Err(IkError::ZeroLengthBone { .. })), "{:?}", result);
        return Ok(());
    }
    let s = result.map_err(fail)?;
    check_finite!(s.root_correction.is_finite() && s.mid_correction.is_finite());
    check!((s.root_correction.length() - 1.0).abs() < 1e-4 && (s.mid_correction.length() - 1.0).abs() < 1e-4);
    check_finite!(s.mid.is_finite() && s.tip.is_finite());
    let (a, b) = ((mid - root).length(), (tip - mid).length());
    check!(((s.mid - root).length() - a).abs() <= 1e-4 * (a + b));
    check!(((s.tip - s.mid).length() - b).abs() <= 1e-4 * (a + b));
    if weight <= 0.0 {
        check!(s.root_correction == Quat::IDENTITY && s.mid_correction == Quat::IDENTITY, "{:?}", s);
    }
    // At full weight a target between the most folded and the softened reach (with a margin)
    // is reached.
    let d = (target - root).length();
    let margin = 1e-3 * (a + b);
    if weight >= 1.0 && d >= (a - b).abs() + margin && d <= (1.0 - soften) * (a + b) - margin {
        check!(s.reached, "tip {} off a reachable target ({} of {})", (s.tip - target).length(), d, a + b);
    }
    let (pm, pt) = two_bone_positions(root, a, b, target, pole.unwrap_or(mid)).map_err(fail)?;
    check_finite!(pm.is_finite() && pt.is_finite());
    Ok(())
}

/// A target turned a hair (1e-6 to 2e-3 rad) and stretched a hair from the tip of a bent limb.
#[derive(Clone, Debug)]
pub struct HairInput {
    pub upper: ([f32; 3], f32),
    pub lower: ([f32; 3], f32),
    pub turn_axis: [f32; 3],
    pub turn_angle: f32,
    pub stretch: f32,
}

pub fn hair_input() -> impl Strategy<Value = HairInput> {
    (
        (prop::array::uniform3(-1.0f32..1.0), 0.1f32..1.0),
        (prop::array::uniform3(-1.0f32..1.0), 0.1f32..1.0),
        prop::array::uniform3(-1.0f32..1.0),
        prop_oneof![1e-6f32..1e-4, 1e-4f32..2e-3],
        -1e-3f32..1e-3,
    )
        .prop_map(|(upper, lower, turn_axis, turn_angle, stretch)| HairInput {
            upper,
            lower,
            turn_axis,
            turn_angle,
            stretch,
        })
}

/// Two-bone reaches a target a hair from the current tip within 1e-5 of the limb length.
pub fn two_bone_hair(input: HairInput) -> Verdict {
    let HairInput { upper, lower, turn_axis, turn_angle, stretch } = input;
    let root = Vec3::new(0.1, 1.0, -0.2);
    let mid = root + vec3(upper.0).normalize_or(Vec3::X) * upper.1;
    let tip = mid + vec3(lower.0).normalize_or(Vec3::Y) * lower.1;
    let (a, b) = ((mid - root).length(), (tip - mid).length());
    let to_tip = tip - root;
    // Keep clear of the fully stretched and fully folded limits.
    assume!(to_tip.length() < 0.99 * (a + b) && to_tip.length() > (a - b).abs() + 0.01 * (a + b));
    let turn = Quat::from_axis_angle(vec3(turn_axis).normalize_or(Vec3::Z), turn_angle);
    let target = root + turn * to_tip * (1.0 + stretch);
    let s = TwoBoneJob { root, mid, tip, target, ..Default::default() }.run().map_err(fail)?;
    check_finite!(s.tip.is_finite());
    let error = (s.tip - target).length() / (a + b);
    check!(error <= 1e-5, "tip misses by {} of the limb length", error);
    Ok(())
}
