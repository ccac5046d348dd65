//! Criterion benches of the per-frame solvers, one call each, on inputs that change every call
//! (a ring of precomputed targets, so branch predictors and caches see a realistic mix):
//! - `two_bone/posed_3d_pole`: a two-bone limb posed in 3D (rotated root, bent, off-axis),
//!   `TwoBoneJob::from_model` + `run` + `apply` to the locals, with a pole.
//! - `fabrik|ccd/6_bones_{cold,warm}`: a 6-bone (7-joint) chain reaching for a target that
//!   moves a few centimetres per call (a 60 Hz frame's worth). Cold starts every solve from the
//!   animated pose; warm keeps a `WarmStart` between calls, as `IkChain` does.
//! - `look_at/spread_4_joints`: spine, chest, neck, head (the lesson's shares and limits) turned
//!   toward a target wandering around the character, eyes 10 cm ahead of the head.
//!
//! Run: `cargo bench -p ik_core --bench solvers`. Under `cargo test` each routine runs once
//! (criterion's test mode): a smoke check, not a measurement. Mean iteration counts of the
//! iterative solvers are printed once per bench (outside the timed loop).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use ik_core::fabrik::{ChainJob, ChainScratch, WarmStart};
use ik_core::look_at::{LookAtJob, local_forward_axis, spine_chest_neck_head};
use ik_core::skeleton::forward_kinematics;
use ik_core::{TwoBoneJob, Xform};

/// Targets in each ring; a power of two so the index wraps with a mask.
const RING: usize = 256;

/// A cheap deterministic generator (xorshift), so every run benches the same inputs.
struct Rng(u32);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

/// A limb of three joints (upper 0.30 m, lower 0.27 m) hanging from a rotated parent, bent at
/// the middle joint and twisted: model transforms of `[root, mid, tip]`.
fn posed_limb() -> [Xform; 3] {
    let parents = [None, Some(0), Some(1), Some(2)];
    let locals = [
        Xform::from_translation_rotation(
            Vec3::new(0.2, 1.4, 0.1),
            Quat::from_euler(glam::EulerRot::YXZ, 0.7, -0.3, 0.2),
        ),
        Xform::from_translation_rotation(Vec3::new(0.18, 0.0, 0.0), Quat::from_rotation_z(-1.1)),
        Xform::from_translation_rotation(Vec3::new(0.0, -0.30, 0.0), Quat::from_rotation_x(0.9)),
        Xform::from_translation(Vec3::new(0.0, -0.27, 0.0)),
    ];
    let mut model = [Xform::IDENTITY; 4];
    forward_kinematics(&parents, &locals, &Xform::IDENTITY, &mut model).expect("valid limb");
    [model[1], model[2], model[3]]
}

fn two_bone(c: &mut Criterion) {
    let [root, mid, tip] = posed_limb();
    let reach = (mid.translation - root.translation).length() + (tip.translation - mid.translation).length();
    let mut rng = Rng(0x2545_f491);
    // Targets inside 95 % of the reach, all around the root; poles roughly "out and back".
    let cases: Vec<(Vec3, Vec3)> = (0..RING)
        .map(|_| {
            let dir = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)).normalize_or(Vec3::Y);
            let target = root.translation + dir * reach * rng.range(0.3, 0.95);
            let pole = root.translation + Vec3::new(rng.range(0.2, 0.6), rng.range(-0.3, 0.3), rng.range(-0.6, -0.2));
            (target, pole)
        })
        .collect();
    let model = [root, mid, tip];
    let mut locals = [Xform::IDENTITY; 2];
    let mut i = 0;
    c.bench_function("two_bone/posed_3d_pole", |b| {
        b.iter(|| {
            let (target, pole) = cases[i & (RING - 1)];
            i += 1;
            let job = TwoBoneJob::from_model(black_box(&model), [0, 1, 2], target, Some(pole)).expect("three joints");
            let solution = job.run().expect("valid limb");
            let [upper, lower] = &mut locals;
            solution.apply(upper, lower);
            black_box(&locals);
            solution.tip
        })
    });
}

/// A 6-bone chain (7 joints, 0.15 m bones) rising from (0, 1, 0) with a gentle curl.
fn chain_6_bones() -> Vec<Xform> {
    let n: usize = 7;
    let parents: Vec<Option<usize>> = (0..n).map(|i| i.checked_sub(1)).collect();
    let locals: Vec<Xform> = (0..n)
        .map(|i| {
            let offset = if i == 0 { Vec3::Y } else { Vec3::Y * 0.15 };
            Xform::from_translation_rotation(offset, Quat::from_rotation_x(0.12) * Quat::from_rotation_z(0.05))
        })
        .collect();
    let mut model = vec![Xform::IDENTITY; n];
    forward_kinematics(&parents, &locals, &Xform::IDENTITY, &mut model).expect("valid chain");
    model
}

/// A target path: a slow Lissajous loop inside the chain's reach, sampled at 60 Hz.
fn moving_targets(root: Vec3, reach: f32) -> Vec<Vec3> {
    (0..RING)
        .map(|k| {
            let t = k as f32 / 60.0;
            let r = reach * 0.7;
            root + Vec3::new(r * (1.3 * t).sin(), r * (0.6 + 0.3 * (0.9 * t).cos()), r * 0.5 * (1.7 * t).sin())
        })
        .collect()
}

fn iterative(c: &mut Criterion) {
    let joints = chain_6_bones();
    let reach = 0.15 * 6.0;
    let targets = moving_targets(joints[0].translation, reach);
    type Solve = fn(
        &ChainJob,
        &mut ChainScratch,
        Option<&mut WarmStart>,
        &mut [Quat],
    ) -> Result<ik_core::fabrik::ChainSolution, ik_core::IkError>;
    let solvers: [(&str, Solve); 2] = [("fabrik", ik_core::fabrik::solve), ("ccd", ik_core::ccd::solve)];
    for (name, solve) in solvers {
        for warm in [false, true] {
            let mut scratch = ChainScratch::with_capacity(joints.len());
            let mut memory = WarmStart::with_capacity(joints.len());
            let mut corrections = vec![Quat::IDENTITY; joints.len()];
            let label = format!("{name}/6_bones_{}", if warm { "warm" } else { "cold" });
            // Mean iterations over one pass of the ring (reported, not timed).
            let mut total = 0u32;
            for &target in &targets {
                let job = ChainJob::new(&joints, target);
                let w = if warm { Some(&mut memory) } else { None };
                total += solve(&job, &mut scratch, w, &mut corrections).expect("valid chain").iterations;
            }
            eprintln!("{label}: {:.2} iterations per solve (tolerance 1 mm, cap 10)", total as f32 / RING as f32);
            memory.clear();
            let mut i = 0;
            c.bench_function(&label, |b| {
                b.iter(|| {
                    let job = ChainJob::new(black_box(&joints), targets[i & (RING - 1)]);
                    i += 1;
                    let w = if warm { Some(&mut memory) } else { None };
                    let solution = solve(&job, &mut scratch, w, &mut corrections).expect("valid chain");
                    black_box(&corrections);
                    solution.error
                })
            });
        }
    }
}

fn look_at(c: &mut Criterion) {
    // Spine, chest, neck, head stacked above a pelvis at 1 m, all facing +Z.
    let parents = [None, Some(0), Some(1), Some(2), Some(3)];
    let offsets = [Vec3::Y, Vec3::Y * 0.12, Vec3::Y * 0.15, Vec3::Y * 0.2, Vec3::Y * 0.1];
    let locals: Vec<Xform> =
        offsets.iter().map(|&o| Xform::from_translation_rotation(o, Quat::from_rotation_y(0.03))).collect();
    let mut model = [Xform::IDENTITY; 5];
    forward_kinematics(&parents, &locals, &Xform::IDENTITY, &mut model).expect("valid spine");
    let joints_model = [model[1], model[2], model[3], model[4]];
    let spread = spine_chest_neck_head();
    let forward = local_forward_axis(joints_model[3].rotation, Vec3::Z);
    let mut rng = Rng(0x9e37_79b9);
    let targets: Vec<Vec3> = (0..RING)
        .map(|_| {
            let yaw = rng.range(-2.5, 2.5);
            let distance = rng.range(0.6, 4.0);
            Vec3::new(distance * yaw.sin(), rng.range(0.8, 2.2), distance * yaw.cos())
        })
        .collect();
    let mut corrections = [Quat::IDENTITY; 4];
    let mut i = 0;
    c.bench_function("look_at/spread_4_joints", |b| {
        b.iter(|| {
            let job = LookAtJob {
                eye_offset: Vec3::new(0.0, 0.08, 0.1),
                ..LookAtJob::new(&spread, black_box(&joints_model), forward, targets[i & (RING - 1)])
            };
            i += 1;
            let solution = job.run(&mut corrections).expect("valid spine");
            black_box(&corrections);
            solution.turned
        })
    });
}

criterion_group!(benches, two_bone, iterative, look_at);
criterion_main!(benches);
