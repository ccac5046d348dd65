//! FABRIK bars: bone lengths kept within 1e-4 relative, the distance to the target never grows
//! between iterations, reachable targets reached to 1 mm, out-of-reach answered straight in one
//! pass, twist kept, limits respected within 1e-4 rad, warm start, no allocation once sized, and
//! bad input. The lesson's CCD-against-FABRIK experiment is in `tests/ccd.rs`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ik_core::fabrik::{self, ChainJob, ChainScratch, WarmStart, apply_corrections, gather_chain};
use ik_core::glam::{Quat, Vec3};
use ik_core::limits::{JointLimit, signed_angle_about, swing_twist};
use ik_core::{IkError, Skeleton, Xform, ccd};

/// Counts heap allocations made by the current thread (tests run on several threads).
struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[path = "support/chains.rs"]
mod chains;
use chains::*;

#[test]
fn bone_lengths_stay_within_1e4_relative_and_the_error_never_grows_on_1000_random_chains() {
    let (worst_length, worst_growth) = lengths_and_error_growth(fabrik::solve, 1, 1000, 12);
    eprintln!("worst relative bone-length change {worst_length:e}; worst error growth {worst_growth:e} m");
    assert!(worst_length <= 1e-4, "bone length changed by {worst_length} relative");
    // Rounding of f32 coordinates near 1 m is about 0.1 µm; allow 1 µm.
    assert!(worst_growth <= 1e-6, "error grew by {worst_growth} m between iterations");
}

#[test]
fn reachable_targets_on_random_chains_are_reached_within_1mm() {
    let mut rng = 2u64;
    let mut most = 0;
    for case in 0..500 {
        let (skeleton, mut locals, chain) = random_rig(&mut rng, 3 + case % 8);
        let before = model_of(&skeleton, &locals);
        let lengths = chain_lengths(&before, &chain);
        let target = reachable_target(&mut rng, before[chain[0]].translation, &lengths);
        let (solution, after, solved) =
            solve_rig(fabrik::solve, &skeleton, &mut locals, &chain, target, 1e-3, 100, None);
        assert!(solution.reached, "case {case}: error {} after {} iterations", solution.error, solution.iterations);
        // The corrections pose the skeleton where the solver says the joints are.
        for (k, &bone) in chain.iter().enumerate() {
            assert!((after[bone].translation - solved[k]).length() < 1e-5);
        }
        most = most.max(solution.iterations);
    }
    eprintln!("most iterations on a reachable target: {most}");
}

#[test]
fn an_out_of_reach_target_gives_a_straight_chain_towards_it_in_one_iteration() {
    let mut rng = 3u64;
    for case in 0..100 {
        let (skeleton, mut locals, chain) = random_rig(&mut rng, 2 + case % 6);
        let before = model_of(&skeleton, &locals);
        let reach: f32 = chain_lengths(&before, &chain).iter().sum();
        let root = before[chain[0]].translation;
        let target = root + random_dir(&mut rng) * reach * (1.0 + lcg(&mut rng));
        let (solution, after, _) = solve_rig(fabrik::solve, &skeleton, &mut locals, &chain, target, 1e-3, 10, None);
        assert_eq!(solution.iterations, 1);
        assert!(!solution.reached);
        assert!((solution.error - ((target - root).length() - reach)).abs() < 1e-5);
        let towards = (target - root).normalize();
        for w in chain.windows(2) {
            let bone = (after[w[1]].translation - after[w[0]].translation).normalize();
            assert!(bone.cross(towards).length() < 1e-4 && bone.dot(towards) > 0.0, "bone {bone} vs {towards}");
        }
    }
}

#[test]
fn each_bone_turns_by_the_shortest_arc_so_its_animated_twist_is_kept() {
    let mut rng = 4u64;
    let mut worst = 0.0f32;
    for case in 0..300 {
        let (skeleton, mut locals, chain) = random_rig(&mut rng, 3 + case % 5);
        let before = model_of(&skeleton, &locals);
        let target = reachable_target(&mut rng, before[chain[0]].translation, &chain_lengths(&before, &chain));
        let (_, after, _) = solve_rig(fabrik::solve, &skeleton, &mut locals, &chain, target, 1e-3, 20, None);
        let mut parent_turn = Quat::IDENTITY;
        for w in chain.windows(2) {
            let turn = after[w[0]].rotation * before[w[0]].rotation.inverse();
            let own = turn * parent_turn.inverse();
            let bone = (parent_turn * (before[w[1]].translation - before[w[0]].translation)).normalize();
            let twist = signed_angle_about(swing_twist(own, bone).1, bone);
            worst = worst.max(twist.abs());
            parent_turn = turn;
        }
    }
    assert!(worst < 1e-4, "a bone twisted by {worst} rad about itself");
}

#[test]
fn chains_with_bones_between_their_joints_carry_those_bones_rigidly() {
    // Upper arm, a twist bone, forearm, hand: the chain skips the twist bone.
    let skeleton = Skeleton::new(
        vec![None, Some(0), Some(1), Some(2), Some(3)],
        ["chest", "upper", "twist", "fore", "hand"].map(String::from).to_vec(),
        vec![
            Xform::from_translation_rotation(Vec3::new(0.0, 1.4, 0.0), Quat::from_rotation_y(0.4)),
            Xform::from_translation_rotation(Vec3::new(0.2, 0.0, 0.0), Quat::from_rotation_z(-0.3)),
            Xform::from_translation_rotation(Vec3::new(0.15, 0.0, 0.0), Quat::from_rotation_x(0.7)),
            Xform::from_translation_rotation(Vec3::new(0.13, 0.0, 0.01), Quat::from_rotation_y(-0.5)),
            Xform::from_translation(Vec3::new(0.26, 0.0, 0.0)),
        ],
    )
    .unwrap();
    let mut locals = skeleton.rest().to_vec();
    let target = Vec3::new(0.25, 1.2, 0.35);
    let (solution, after, solved) =
        solve_rig(fabrik::solve, &skeleton, &mut locals, &[1, 3, 4], target, 1e-4, 50, None);
    assert!(solution.reached, "error {}", solution.error);
    assert!((after[4].translation - target).length() < 1e-4);
    assert!((after[3].translation - solved[1]).length() < 1e-5);
    assert_eq!(locals[2], skeleton.rest()[2], "the twist bone's local is untouched");
}

#[test]
fn warm_start_repeats_in_zero_iterations_and_follows_a_moved_root_and_new_lengths() {
    let mut rng = 5u64;
    for case in 0..100 {
        let (skeleton, rest, chain) = random_rig(&mut rng, 3 + case % 5);
        let before = model_of(&skeleton, &rest);
        let target = reachable_target(&mut rng, before[chain[0]].translation, &chain_lengths(&before, &chain));
        let mut warm = WarmStart::default();
        let mut locals = rest.clone();
        let (first, _, _) =
            solve_rig(fabrik::solve, &skeleton, &mut locals, &chain, target, 1e-3, 100, Some(&mut warm));
        assert!(first.reached);
        // Same animated input, same target: the previous answer is already there.
        let mut locals = rest.clone();
        let (again, _, _) =
            solve_rig(fabrik::solve, &skeleton, &mut locals, &chain, target, 1e-3, 100, Some(&mut warm));
        assert_eq!(again.iterations, 0, "case {case}: error {}", again.error);
        // The character moved 0.5 m: root and target moved together, the answer comes along.
        let mut moved = rest.clone();
        moved[0].translation += Vec3::new(0.5, 0.0, -0.2);
        let (carried, _, _) = solve_rig(
            fabrik::solve,
            &skeleton,
            &mut moved,
            &chain,
            target + Vec3::new(0.5, 0.0, -0.2),
            1e-3,
            100,
            Some(&mut warm),
        );
        assert_eq!(carried.iterations, 0, "case {case}: error {}", carried.error);
        // Bones 10% longer: the warm start lays the new lengths along the old directions.
        let mut longer = rest.clone();
        for &bone in &chain[1..] {
            longer[bone].translation *= 1.1;
        }
        let (stretched, after, _) =
            solve_rig(fabrik::solve, &skeleton, &mut longer, &chain, target, 1e-3, 100, Some(&mut warm));
        assert!(stretched.reached && after.iter().all(Xform::is_finite), "case {case}: {stretched:?}");
    }
}

#[test]
fn a_warm_start_for_another_chain_length_is_ignored() {
    let mut rng = 6u64;
    let (skeleton, rest, chain) = random_rig(&mut rng, 5);
    let target = reachable_target(
        &mut rng,
        model_of(&skeleton, &rest)[1].translation,
        &chain_lengths(&model_of(&skeleton, &rest), &chain),
    );
    let mut warm = WarmStart::default();
    let mut locals = rest.clone();
    solve_rig(fabrik::solve, &skeleton, &mut locals, &chain[..3], target, 1e-3, 100, Some(&mut warm));
    assert_eq!(warm.directions().len(), 2);
    let (mut a, mut b) = (rest.clone(), rest.clone());
    let (with_foreign, _, _) = solve_rig(fabrik::solve, &skeleton, &mut a, &chain, target, 1e-3, 100, Some(&mut warm));
    let (cold, _, _) = solve_rig(fabrik::solve, &skeleton, &mut b, &chain, target, 1e-3, 100, None);
    assert_eq!(with_foreign, cold);
    assert_eq!(a, b);
}

#[test]
fn limited_chains_stay_inside_every_limit_within_1e4_rad() {
    let mut rng = 7u64;
    let mut worst = 0.0f32;
    for case in 0..400 {
        let (skeleton, mut locals, chain) = random_rig(&mut rng, 3 + case % 5);
        let model = model_of(&skeleton, &locals);
        let limits: Vec<Option<JointLimit>> = chain
            .iter()
            .enumerate()
            .map(|(k, &bone)| {
                let reference = skeleton.rest()[bone].rotation * Quat::from_rotation_x(0.3 * (lcg(&mut rng) - 0.5));
                match k % 3 {
                    0 => Some(JointLimit::cone(reference, random_dir(&mut rng), 0.2 + lcg(&mut rng), -0.3, 0.4)),
                    1 => Some(JointLimit::hinge(reference, random_dir(&mut rng), -0.2, 1.5 * lcg(&mut rng))),
                    _ => None,
                }
            })
            .collect();
        let mut joints = vec![Xform::IDENTITY; chain.len()];
        let mut chain_locals = vec![Quat::IDENTITY; chain.len()];
        gather_chain(&model, &locals, &chain, &mut joints, &mut chain_locals).unwrap();
        let target = reachable_target(&mut rng, joints[0].translation, &chain_lengths(&model, &chain));
        let job = ChainJob { max_iterations: if case % 2 == 0 { 10 } else { 100 }, ..ChainJob::new(&joints, target) }
            .with_limits(&chain_locals, &limits);
        let mut corrections = vec![Quat::IDENTITY; chain.len()];
        let solution = fabrik::solve(&job, &mut ChainScratch::default(), None, &mut corrections).unwrap();
        for k in 0..chain.len() {
            if let Some(limit) = &limits[k] {
                worst = worst.max(limit.violation(chain_locals[k] * corrections[k]));
            }
        }
        apply_corrections(&corrections, &chain, &mut locals).unwrap();
        let after = model_of(&skeleton, &locals);
        let tip = after[*chain.last().unwrap()].translation;
        assert!(((tip - target).length() - solution.error).abs() < 1e-5, "reported error is the posed one");
    }
    eprintln!("worst limit violation {worst:e} rad");
    assert!(worst <= 1e-4, "a joint is {worst} rad outside its limit");
}

#[test]
fn bad_input_returns_an_error_and_identity_corrections() {
    let joints = [Xform::IDENTITY, Xform::from_translation(Vec3::X), Xform::from_translation(Vec3::X * 2.0)];
    let mut scratch = ChainScratch::default();
    let mut corrections = [Quat::from_rotation_x(1.0); 3];
    let mut nan_joints = joints;
    nan_joints[1].translation.y = f32::NAN;
    let run = |job: &ChainJob, corrections: &mut [Quat], scratch: &mut ChainScratch| {
        fabrik::solve(job, scratch, None, corrections)
    };
    for job in [
        ChainJob::new(&nan_joints, Vec3::Y),
        ChainJob::new(&joints, Vec3::new(f32::INFINITY, 0.0, 0.0)),
        ChainJob { tolerance: f32::NAN, ..ChainJob::new(&joints, Vec3::Y) },
    ] {
        assert_eq!(run(&job, &mut corrections, &mut scratch), Err(IkError::NonFiniteInput));
        assert_eq!(corrections, [Quat::IDENTITY; 3]);
        corrections = [Quat::from_rotation_x(1.0); 3];
    }
    assert_eq!(
        run(&ChainJob::new(&joints[..1], Vec3::Y), &mut corrections[..1], &mut scratch),
        Err(IkError::ChainTooShort { needed: 2, got: 1 })
    );
    assert_eq!(
        run(&ChainJob::new(&joints, Vec3::Y), &mut corrections[..2], &mut scratch),
        Err(IkError::LengthMismatch { expected: 3, got: 2 })
    );
    let point = [Xform::IDENTITY; 3];
    assert_eq!(
        run(&ChainJob::new(&point, Vec3::Y), &mut corrections, &mut scratch),
        Err(IkError::ZeroLengthBone { bone: 0 })
    );
}

#[test]
fn a_zero_length_bone_is_skipped_without_nan() {
    let joints = [
        Xform::IDENTITY,
        Xform::from_translation(Vec3::X * 0.3),
        Xform::from_translation(Vec3::X * 0.3),
        Xform::from_translation(Vec3::X * 0.6),
    ];
    let mut corrections = [Quat::IDENTITY; 4];
    let mut scratch = ChainScratch::default();
    let target = Vec3::new(0.2, 0.35, 0.1);
    let job = ChainJob { max_iterations: 100, ..ChainJob::new(&joints, target) };
    let solution = fabrik::solve(&job, &mut scratch, None, &mut corrections).unwrap();
    assert!(solution.reached, "{solution:?}");
    assert_eq!(corrections[1], Quat::IDENTITY, "the joint of the zero-length bone takes no turn of its own");
    let p = scratch.solved_positions();
    assert!(p.iter().all(|p| p.is_finite()) && (p[2] - p[1]).length() < 1e-6);
}

#[test]
fn a_straight_chain_aimed_through_an_in_reach_target_bends_and_reaches_it() {
    let joints: Vec<Xform> = (0..5).map(|i| Xform::from_translation(Vec3::X * 0.1 * i as f32)).collect();
    for target in [Vec3::new(0.25, 0.0, 0.0), Vec3::new(-0.2, 0.0, 0.0), Vec3::ZERO] {
        for solve in [fabrik::solve as Solver, ccd::solve] {
            let mut corrections = [Quat::IDENTITY; 5];
            let job = ChainJob { max_iterations: 100, ..ChainJob::new(&joints, target) };
            let solution = solve(&job, &mut ChainScratch::default(), None, &mut corrections).unwrap();
            assert!(solution.reached, "target {target}: {solution:?}");
        }
    }
}

/// Found by the soak (`tests/soak.rs`, FABRIK and CCD, 30 of 2 000 000 cases): a straight
/// start was bent into an arc even with an iteration cap of 0, and that bent start, further from
/// the target than the input, was the answer.
#[test]
fn with_no_iterations_allowed_a_straight_chain_is_not_bent_away_from_its_target() {
    let joints: Vec<Xform> = (0..5).map(|i| Xform::from_translation(Vec3::X * 0.1 * i as f32)).collect();
    let target = Vec3::new(0.25, 0.0, 0.0);
    for solve in [fabrik::solve as Solver, ccd::solve] {
        let mut corrections = [Quat::from_rotation_y(1.0); 5];
        let job = ChainJob { max_iterations: 0, ..ChainJob::new(&joints, target) };
        let solution = solve(&job, &mut ChainScratch::default(), None, &mut corrections).unwrap();
        assert_eq!(solution.iterations, 0);
        assert!((solution.error - 0.15).abs() < 1e-6, "error {} (the start is 0.15 m off)", solution.error);
        assert_eq!(corrections, [Quat::IDENTITY; 5]);
    }
}

#[test]
fn a_tip_already_on_the_target_takes_zero_iterations_and_identity_corrections() {
    let joints =
        [Xform::IDENTITY, Xform::from_translation(Vec3::Y * 0.4), Xform::from_translation(Vec3::new(0.3, 0.4, 0.0))];
    let mut corrections = [Quat::from_rotation_y(1.0); 3];
    let job = ChainJob::new(&joints, Vec3::new(0.3005, 0.4, 0.0));
    let solution = fabrik::solve(&job, &mut ChainScratch::default(), None, &mut corrections).unwrap();
    assert_eq!(solution.iterations, 0);
    assert!(solution.reached && (solution.error - 0.0005).abs() < 1e-6);
    assert_eq!(corrections, [Quat::IDENTITY; 3]);
}

#[test]
fn a_one_bone_chain_points_at_its_target() {
    let joints = [Xform::IDENTITY, Xform::from_translation(Vec3::Y * 0.5)];
    let mut corrections = [Quat::IDENTITY; 2];
    let mut scratch = ChainScratch::default();
    let target = Vec3::new(0.3, 0.0, 0.4);
    let solution = fabrik::solve(&ChainJob::new(&joints, target), &mut scratch, None, &mut corrections).unwrap();
    assert!(solution.reached && solution.error < 1e-5);
    assert!((corrections[0] * Vec3::Y - target / 0.5).length() < 1e-5);
}

#[test]
fn solving_again_with_sized_buffers_allocates_nothing() {
    let joints: Vec<Xform> =
        (0..6).map(|i| Xform::from_translation(Vec3::new(0.1 * i as f32, 0.02 * i as f32, 0.0))).collect();
    let locals = vec![Quat::IDENTITY; 6];
    let limits: Vec<Option<JointLimit>> = (0..6)
        .map(|k| Some(JointLimit::cone(Quat::IDENTITY, Vec3::X, 0.8, -0.2, 0.2)).filter(|_| k % 2 == 0))
        .collect();
    for solve in [fabrik::solve as Solver, ccd::solve] {
        let mut scratch = ChainScratch::with_capacity(6);
        let mut warm = WarmStart::with_capacity(6);
        let mut corrections = vec![Quat::IDENTITY; 6];
        let before = ALLOCATIONS.with(Cell::get);
        for frame in 0..100 {
            let target = Vec3::new(0.3 + 0.1 * (frame as f32 * 0.1).cos(), 0.2 * (frame as f32 * 0.1).sin(), 0.05);
            let job = ChainJob::new(&joints, target);
            solve(&job, &mut scratch, Some(&mut warm), &mut corrections).unwrap();
            solve(&job.with_limits(&locals, &limits), &mut scratch, Some(&mut warm), &mut corrections).unwrap();
        }
        assert_eq!(ALLOCATIONS.with(Cell::get) - before, 0, "allocations during 200 solves");
    }
    // The counter does see allocations.
    let before = ALLOCATIONS.with(Cell::get);
    std::hint::black_box(Vec::<u8>::with_capacity(8));
    assert_eq!(ALLOCATIONS.with(Cell::get) - before, 1);
}

#[test]
fn the_job_weight_scales_every_correction_and_zero_is_the_input_pose() {
    let joints =
        [Xform::IDENTITY, Xform::from_translation(Vec3::Y * 0.4), Xform::from_translation(Vec3::new(0.0, 0.7, 0.0))];
    let target = Vec3::new(0.35, 0.4, 0.1);
    for solve in [fabrik::solve as Solver, ccd::solve] {
        let run = |weight: f32| {
            let mut corrections = [Quat::from_rotation_y(1.0); 3];
            let job = ChainJob { max_iterations: 100, weight, ..ChainJob::new(&joints, target) };
            solve(&job, &mut ChainScratch::default(), None, &mut corrections).map(|s| (s, corrections))
        };
        let (full, full_c) = run(1.0).unwrap();
        let (half, half_c) = run(0.5).unwrap();
        let (_, none_c) = run(0.0).unwrap();
        assert!(full.reached && half.reached, "error and reached describe the full solve");
        assert_eq!(none_c, [Quat::IDENTITY; 3]);
        for (f, h) in full_c.iter().zip(&half_c) {
            let (f, h) = (f.angle_between(Quat::IDENTITY), h.angle_between(Quat::IDENTITY));
            assert!((h - f / 2.0).abs() < 1e-4, "half weight turns half as far: {h} vs {f}");
        }
        assert!(full_c.iter().any(|c| c.angle_between(Quat::IDENTITY) > 0.1), "the solve turns something");
        assert_eq!(run(f32::NAN).err(), Some(IkError::NonFiniteInput));
    }
}
