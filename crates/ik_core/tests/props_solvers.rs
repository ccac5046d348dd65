//! Property tests for two-bone, FABRIK and CCD over random chains, poses, targets and poles,
//! degenerate ones included (target at the root, on the chain's or the pole's line, zero-length
//! bones, scales of 1e-3 and 1e3 m, NaN and infinite inputs):
//! - never a NaN or infinite output, never a panic;
//! - a NaN or infinite input gives `IkError::NonFiniteInput` and the input pose (identity
//!   corrections);
//! - zero-length bones: the chain solvers skip them (error only when every bone is zero length),
//!   the two-bone solver answers `IkError::ZeroLengthBone`;
//! - bone lengths kept, limits kept within 1e-4 rad, and two-bone reaching reachable targets
//!   within 1e-5 of the limb length even when the target is a hair from the current tip.

use ik_core::fabrik::{ChainJob, ChainScratch, WarmStart};
use ik_core::glam::{EulerRot, Quat, Vec3};
use ik_core::limits::JointLimit;
use ik_core::{IkError, TwoBoneJob, Xform, ccd, fabrik, two_bone_positions};
use proptest::prelude::*;

const SCALES: [f32; 3] = [1e-3, 1.0, 1e3];

fn vec3(v: [f32; 3]) -> Vec3 {
    Vec3::from_array(v)
}

fn rotation(e: [f32; 3]) -> Quat {
    Quat::from_euler(EulerRot::YXZ, e[0], e[1], e[2])
}

/// Where a non-finite value is planted, if anywhere.
#[derive(Clone, Copy, Debug)]
enum Poison {
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
struct ChainCase {
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

type Solve = fn(
    &ChainJob,
    &mut ChainScratch,
    Option<&mut WarmStart>,
    &mut [Quat],
) -> Result<ik_core::fabrik::ChainSolution, IkError>;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn chain_solvers_never_output_nan_and_refuse_non_finite_input(
        case in chain_strategy(),
        poison in poison_strategy(),
        bad in bad_value(),
        use_ccd in any::<bool>(),
        warm_start in any::<bool>(),
        iterations in 0u32..30,
    ) {
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
            prop_assert_eq!(result, Err(IkError::NonFiniteInput));
            prop_assert!(corrections.iter().all(|c| *c == Quat::IDENTITY));
            return Ok(());
        }
        if all_zero_length(&case) {
            prop_assert_eq!(result, Err(IkError::ZeroLengthBone { bone: 0 }));
            prop_assert!(corrections.iter().all(|c| *c == Quat::IDENTITY));
            return Ok(());
        }
        let solution = result.map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert!(solution.error.is_finite());
        prop_assert!(corrections.iter().all(|c| c.is_finite() && (c.length() - 1.0).abs() < 1e-4));
        let solved = scratch.solved_positions();
        prop_assert!(solved.iter().all(|p| p.is_finite()));
        // Bone lengths kept (zero-length bones stay zero length).
        for k in 0..n - 1 {
            let before = (joints[k + 1].translation - joints[k].translation).length();
            let after = (solved[k + 1] - solved[k]).length();
            prop_assert!((after - before).abs() <= 1e-4 * before + 1e-6 * case.scale, "bone {} {} -> {}", k, before, after);
        }
        // Limits kept.
        for k in 0..n {
            if let Some(limit) = &limits[k] {
                let violation = limit.violation(locals[k] * corrections[k]);
                prop_assert!(violation <= 1e-4, "joint {} is {} rad outside its limit", k, violation);
            }
        }
    }

    #[test]
    fn two_bone_never_outputs_nan_and_refuses_non_finite_input(
        scale in prop::sample::select(SCALES.to_vec()),
        root in prop::array::uniform3(-2.0f32..2.0),
        upper in (prop::array::uniform3(-1.0f32..1.0), prop_oneof![1 => Just(0.0f32), 6 => 0.01f32..1.0]),
        lower in (prop::array::uniform3(-1.0f32..1.0), prop_oneof![1 => Just(0.0f32), 6 => 0.01f32..1.0]),
        rotations in (prop::array::uniform3(-3.2f32..3.2), prop::array::uniform3(-3.2f32..3.2)),
        target_kind in 0u8..5,
        target in prop::array::uniform3(-2.0f32..2.0),
        pole_kind in 0u8..4,
        pole in prop::array::uniform3(-2.0f32..2.0),
        soften in 0.0f32..1.0,
        weight in -0.5f32..1.5,
        poison in 0u8..12,
        bad in bad_value(),
    ) {
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
            root, mid, tip,
            root_rotation: rotation(rotations.0),
            mid_rotation: rotation(rotations.1),
            target, pole, soften, weight,
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
            prop_assert_eq!(result, Err(IkError::NonFiniteInput));
            prop_assert!(two_bone_positions(root, bad, 1.0, target, root).is_err());
            return Ok(());
        }
        if upper.1 == 0.0 || lower.1 == 0.0 {
            prop_assert!(matches!(result, Err(IkError::ZeroLengthBone { .. })), "{:?}", result);
            return Ok(());
        }
        let s = result.map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert!(s.root_correction.is_finite() && s.mid_correction.is_finite());
        prop_assert!((s.root_correction.length() - 1.0).abs() < 1e-4 && (s.mid_correction.length() - 1.0).abs() < 1e-4);
        prop_assert!(s.mid.is_finite() && s.tip.is_finite());
        let (a, b) = ((mid - root).length(), (tip - mid).length());
        prop_assert!(((s.mid - root).length() - a).abs() <= 1e-4 * (a + b));
        prop_assert!(((s.tip - s.mid).length() - b).abs() <= 1e-4 * (a + b));
        let (pm, pt) = two_bone_positions(root, a, b, target, pole.unwrap_or(mid))
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert!(pm.is_finite() && pt.is_finite());
    }

    #[test]
    fn two_bone_reaches_a_target_a_hair_from_the_current_tip_within_1e5_of_the_limb(
        upper in (prop::array::uniform3(-1.0f32..1.0), 0.1f32..1.0),
        lower in (prop::array::uniform3(-1.0f32..1.0), 0.1f32..1.0),
        turn_axis in prop::array::uniform3(-1.0f32..1.0),
        turn_angle in prop_oneof![1e-6f32..1e-4, 1e-4f32..2e-3],
        stretch in -1e-3f32..1e-3,
    ) {
        let root = Vec3::new(0.1, 1.0, -0.2);
        let mid = root + vec3(upper.0).normalize_or(Vec3::X) * upper.1;
        let tip = mid + vec3(lower.0).normalize_or(Vec3::Y) * lower.1;
        let (a, b) = ((mid - root).length(), (tip - mid).length());
        let to_tip = tip - root;
        // Keep clear of the fully stretched and fully folded limits.
        prop_assume!(to_tip.length() < 0.99 * (a + b) && to_tip.length() > (a - b).abs() + 0.01 * (a + b));
        let turn = Quat::from_axis_angle(vec3(turn_axis).normalize_or(Vec3::Z), turn_angle);
        let target = root + turn * to_tip * (1.0 + stretch);
        let s = TwoBoneJob { root, mid, tip, target, ..Default::default() }.run()
            .map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let error = (s.tip - target).length() / (a + b);
        prop_assert!(error <= 1e-5, "tip misses by {} of the limb length", error);
    }
}
