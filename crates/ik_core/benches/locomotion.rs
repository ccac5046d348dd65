//! Criterion benches of the locomotion procedures, on the test biped (1.8 m proportions, two
//! legs of hip, knee, ankle, ball, toe end) animated by the procedural walk:
//! - `foot_placement/biped_update`: one full per-frame update for the biped, as the plugin does
//!   it: copy this frame's animated locals, forward kinematics, then `FootPlacement::run` (two
//!   ground rays, pelvis drop, two leg re-solves, foot tilt, springs). The walk plays in place
//!   while the character moves forward over a 10° ramp with a 12 cm step, so the feet are
//!   corrected every frame; frames cycle through 64 frames of the clip.
//! - `warping/biped_update`: one per-frame pose warp of the biped, as the plugin does it (copy
//!   this frame's locals, forward kinematics, `PoseWarp::run`: springs, pelvis turn, spine
//!   counter-turn, stride scale, pelvis drop, two leg re-solves), walking at 2 m/s 45° to the
//!   left of the clip's 1.4 m/s straight ahead.
//! - `slide_removal/one_second_60fps`: offline foot-slide clean-up of one second of a walk clip
//!   at 60 fps whose root moves 1.25× too fast (the feet slide), default settings (25 000
//!   constraint sweeps), re-posing included.
//!
//! Run: `cargo bench -p ik_core --bench locomotion`. Under `cargo test` each routine runs once
//! (criterion's test mode).

// The tests' biped fixture (it allows its own dead code).
#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use common::{LEFT, PELVIS, RIGHT, SPINE, biped, gait_clip, min_heights};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use ik_core::Xform;
use ik_core::foot_placement::{
    FootPlacement, FootPlacementSettings, FootPlacementState, FootReport, FootRig, GroundHit,
};
use ik_core::gait::GaitParams;
use ik_core::skeleton::forward_kinematics;
use ik_core::slide_removal::{SlideFoot, SlideRemovalSettings, remove_foot_slide};
use ik_core::warping::{PoseWarp, WarpMotion, WarpSettings, WarpState};

const FPS: f32 = 60.0;

/// Uneven ground: a 10° ramp rising along +Z, with a 12 cm step down for x < 0. Rays are
/// treated as vertical (the characters stand upright), like a height-field query.
fn ground(origin: Vec3, _dir: Vec3, max: f32) -> Option<GroundHit> {
    let slope = 10f32.to_radians().tan();
    let height = origin.z * slope - if origin.x < 0.0 { 0.12 } else { 0.0 };
    (origin.y >= height && origin.y - height <= max).then(|| GroundHit {
        point: Vec3::new(origin.x, height, origin.z),
        normal: Vec3::new(0.0, 1.0, -slope).normalize(),
    })
}

fn foot_placement(c: &mut Criterion) {
    let skel = biped();
    let params = GaitParams::walk();
    let frames = 64;
    let (clip, _) = gait_clip(&skel, &params, frames, FPS, 0.0);
    let bones = skel.len();
    let rest = skel.rest_model();
    let feet = [
        FootRig::from_flat_pose(&rest, LEFT).expect("left leg"),
        FootRig::from_flat_pose(&rest, RIGHT).expect("right leg"),
    ];
    let mut locals = vec![Xform::IDENTITY; bones];
    let mut model = vec![Xform::IDENTITY; bones];
    let mut state = FootPlacementState::new(2);
    let mut reports = [FootReport::default(); 2];
    let mut frame = 0usize;
    c.bench_function("foot_placement/biped_update", |b| {
        b.iter(|| {
            let k = frame % frames;
            frame += 1;
            // The character walks up the ramp at the gait's speed (the clip plays in place).
            let travelled = params.speed * (frame as f32 / FPS) % 4.0;
            let job = FootPlacement {
                parents: skel.parents(),
                pelvis: PELVIS,
                feet: &feet,
                model_to_world: Xform::from_translation(Vec3::new(0.05, travelled * 0.176, travelled)),
                foot_shifts: &[],
                floor_heights: &[],
                swing_floors: &[],
                // Up the ramp (+z).
                travel: Vec3::Z,
                settings: FootPlacementSettings::default(),
                weight: 1.0,
            };
            locals.copy_from_slice(black_box(&clip[k * bones..(k + 1) * bones]));
            forward_kinematics(skel.parents(), &locals, &Xform::IDENTITY, &mut model).expect("valid biped");
            let pelvis =
                job.run(&mut locals, &mut model, ground, 1.0 / FPS, &mut state, &mut reports).expect("valid rig");
            black_box(&locals);
            pelvis
        })
    });
}

fn warping(c: &mut Criterion) {
    let skel = biped();
    let params = GaitParams::walk();
    let frames = 64;
    let (clip, _) = gait_clip(&skel, &params, frames, FPS, 0.0);
    let bones = skel.len();
    let legs = [LEFT, RIGHT];
    let job = PoseWarp {
        parents: skel.parents(),
        pelvis: PELVIS,
        legs: &legs,
        spine: &[(SPINE, 1.0)],
        settings: WarpSettings::default(),
    };
    let motion = WarpMotion::new(Vec3::new(1.0, 0.0, 1.0).normalize() * 2.0, params.speed);
    let mut locals = vec![Xform::IDENTITY; bones];
    let mut model = vec![Xform::IDENTITY; bones];
    let mut state = WarpState::default();
    let mut frame = 0usize;
    c.bench_function("warping/biped_update", |b| {
        b.iter(|| {
            let k = frame % frames;
            frame += 1;
            locals.copy_from_slice(black_box(&clip[k * bones..(k + 1) * bones]));
            forward_kinematics(skel.parents(), &locals, &Xform::IDENTITY, &mut model).expect("valid biped");
            let report = job.run(&mut locals, &mut model, &motion, 1.0 / FPS, &mut state).expect("valid rig");
            black_box(&locals);
            report.scale
        })
    });
}

fn slide_removal(c: &mut Criterion) {
    let skel = biped();
    let frames = FPS as usize;
    let (clip, contacts) = gait_clip(&skel, &GaitParams::walk(), frames, FPS, 1.25);
    let feet = [
        SlideFoot { chain: LEFT, contacts: &contacts[0], min_heights: min_heights(&skel, &LEFT) },
        SlideFoot { chain: RIGHT, contacts: &contacts[1], min_heights: min_heights(&skel, &RIGHT) },
    ];
    let settings = SlideRemovalSettings::default();
    let mut group = c.benchmark_group("slide_removal");
    group.sample_size(10);
    group.bench_function("one_second_60fps", |b| {
        b.iter(|| {
            let result = remove_foot_slide(skel.parents(), PELVIS, &feet, black_box(&clip), &settings, &mut |_, _| {})
                .expect("valid clip");
            black_box(result.toe_travel_after)
        })
    });
    group.finish();
}

criterion_group!(benches, foot_placement, warping, slide_removal);
criterion_main!(benches);
