//! Properties of the gait, the leg chain, foot placement and slide removal: never NaN or
//! infinity for finite input, degenerate cases included (horizontal or zero ground normals,
//! dt = 0, zero half-lives, no ground hit, unreachable targets, huge values); a leg solve that
//! fails leaves the pose untouched.

use glam::{Quat, Vec3};
use ik_core::foot_placement::{
    FootPlacement, FootPlacementSettings, FootPlacementState, FootReport, GroundHit, KneePole, PelvisSupport,
};
use ik_core::gait::{GaitParams, sample_gait, sample_gait_at_time};
use ik_core::leg::{LegMinHeights, LegSettings, solve_leg};
use ik_core::slide_removal::{SlideFoot, SlideRemovalSettings, remove_foot_slide};
use ik_core::{Skeleton, Xform};
use proptest::prelude::*;

use super::Verdict;
use crate::common::*;

/// Any finite f32, from subnormal to f32::MAX, either sign.
fn finite() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![prop::num::f32::NORMAL, prop::num::f32::ZERO | prop::num::f32::SUBNORMAL, -10.0f32..10.0, Just(0.0f32),]
}

/// Finite values of a size a pose can hold without its own arithmetic overflowing.
fn moderate() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![-1e6f32..1e6, -2.0f32..2.0, Just(0.0f32)]
}

fn vec3(s: impl Strategy<Value = f32> + Clone) -> impl Strategy<Value = Vec3> {
    (s.clone(), s.clone(), s).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn rotation() -> impl Strategy<Value = Quat> {
    (vec3(-1.0f32..1.0), -7.0f32..7.0)
        .prop_map(|(axis, angle)| Quat::from_axis_angle(axis.normalize_or(Vec3::Y), angle))
}

fn all_finite(xs: &[Xform]) -> bool {
    xs.iter().all(Xform::is_finite)
}

/// A biped pose with random leg rotations and pelvis position.
fn pose(skel: &Skeleton, pelvis: Vec3, rots: &[Quat; 6]) -> Vec<Xform> {
    let mut locals = skel.rest().to_vec();
    locals[PELVIS].translation = pelvis;
    for (k, bone) in [3usize, 4, 5, 8, 9, 10].into_iter().enumerate() {
        locals[bone].rotation = rots[k];
    }
    locals
}

/// Gait parameters (any finite values), a phase and a time.
#[derive(Clone, Debug)]
pub struct GaitInput {
    pub v: Vec<f32>,
    pub phase: f32,
    pub time: f32,
}

pub fn gait_input() -> impl Strategy<Value = GaitInput> {
    (prop::collection::vec(finite(), 8), finite(), finite()).prop_map(|(v, phase, time)| GaitInput { v, phase, time })
}

/// The gait is finite, with unit foot forwards, for any finite parameters.
pub fn gait(input: GaitInput) -> Verdict {
    let GaitInput { v, phase, time } = input;
    let p = GaitParams {
        speed: v[0],
        cycle_duration: v[1],
        stance_fraction: v[2],
        step_height: v[3],
        foot_spacing: v[4],
        pelvis_height: v[5],
        pelvis_bob: v[6],
        pelvis_sway: v[7],
    };
    for s in [sample_gait(&p, phase), sample_gait_at_time(&p, time)] {
        check_finite!(s.pelvis.is_finite());
        for f in s.feet {
            check_finite!(f.position.is_finite() && f.forward.is_finite());
            check!((f.forward.length() - 1.0).abs() < 1e-4);
        }
    }
    Ok(())
}

/// One leg solve on a random pose of the biped.
#[derive(Clone, Debug)]
pub struct LegInput {
    pub target: Vec3,
    pub near_target: Vec3,
    pub use_near: bool,
    pub pelvis: Vec3,
    pub rots: [Quat; 6],
    pub side: Option<Vec3>,
    pub max_extension: f32,
    pub soften: f32,
    pub heights: Option<Vec3>,
    pub orient: (bool, bool),
}

pub fn leg_input() -> impl Strategy<Value = LegInput> {
    (
        (vec3(finite()), vec3(-2.0f32..2.0), any::<bool>(), vec3(moderate())),
        (prop::array::uniform6(rotation()), prop::option::of(vec3(finite())), finite(), finite()),
        (prop::option::of(vec3(moderate())), any::<(bool, bool)>()),
    )
        .prop_map(
            |((target, near_target, use_near, pelvis), (rots, side, max_extension, soften), (heights, orient))| {
                LegInput { target, near_target, use_near, pelvis, rots, side, max_extension, soften, heights, orient }
            },
        )
}

/// The leg solve is finite, and an error leaves the pose untouched.
pub fn leg(input: LegInput) -> Verdict {
    let LegInput { target, near_target, use_near, pelvis, rots, side, max_extension, soften, heights, orient } = input;
    let skel = biped();
    let mut locals = pose(&skel, pelvis, &rots);
    let mut model = model_of(&skel, &locals);
    let (locals0, model0) = (locals.clone(), model.clone());
    let settings = LegSettings {
        knee_side: side,
        max_extension,
        soften,
        min_heights: heights.map(|h| LegMinHeights { heel: h.x, toe: h.y, toe_end: h.z }),
        orient_heel: orient.0,
        orient_toe: orient.1,
    };
    let target = if use_near { pelvis + near_target } else { target };
    match solve_leg(skel.parents(), &mut locals, &mut model, &LEFT, target, &settings) {
        Ok(solution) => {
            check_finite!(all_finite(&locals) && all_finite(&model));
            check_finite!(solution.rotations.iter().chain(&solution.corrections).all(|q| q.is_finite()));
            check_finite!(solution.toe_target.is_finite() && solution.heel_target.is_finite());
            check_finite!(solution.toe_end_target.is_none_or(|t| t.is_finite()));
        }
        Err(_) => {
            check_eq!(locals, locals0);
            check_eq!(model, model0);
        }
    }
    Ok(())
}

/// A few frames of foot placement on degenerate ground, time steps and settings.
#[derive(Clone, Debug)]
pub struct PlacementInput {
    pub normal: Vec3,
    pub hit_height: f32,
    pub hit_mode: u8,
    pub dts: Vec<f32>,
    pub half_lives: Vec3,
    pub lengths: Vec<f32>,
    pub pole: KneePole,
    pub support: PelvisSupport,
    pub travel: Vec3,
    pub to_world: (Vec3, Quat, f32),
    pub pelvis: Vec3,
    pub rots: [Quat; 6],
}

pub fn placement_input() -> impl Strategy<Value = PlacementInput> {
    (
        (
            prop_oneof![vec3(-1.0f32..1.0), Just(Vec3::X), Just(Vec3::ZERO), Just(Vec3::NEG_Y), vec3(finite())],
            prop_oneof![-2.0f32..2.0, finite()],
            0u8..4,
            prop::collection::vec(prop_oneof![Just(0.0f32), 0.0f32..0.1, finite()], 1..6),
            vec3(prop_oneof![Just(0.0f32), -1.0f32..1.0, finite()]),
        ),
        (
            prop::collection::vec(prop_oneof![-1.0f32..2.0, finite()], 10),
            (
                prop_oneof![Just(KneePole::CurrentPlane), vec3(finite()).prop_map(KneePole::Forward)],
                prop_oneof![
                    Just(PelvisSupport::LowestFoot),
                    Just(PelvisSupport::FrontFoot),
                    Just(PelvisSupport::HighestFoot)
                ],
                prop_oneof![Just(Vec3::ZERO), Just(Vec3::Y), vec3(finite())],
            ),
            (vec3(moderate()), rotation(), prop_oneof![Just(1.0f32), 0.01f32..100.0, Just(0.0f32)]),
            vec3(-0.5f32..0.5),
            prop::array::uniform6(rotation()),
        ),
    )
        .prop_map(
            |(
                (normal, hit_height, hit_mode, dts, half_lives),
                (lengths, (pole, support, travel), to_world, pelvis, rots),
            )| {
                PlacementInput {
                    normal,
                    hit_height,
                    hit_mode,
                    dts,
                    half_lives,
                    lengths,
                    pole,
                    support,
                    travel,
                    to_world,
                    pelvis,
                    rots,
                }
            },
        )
}

/// Foot placement succeeds and every output and report field is finite, frame after frame.
pub fn placement(input: PlacementInput) -> Verdict {
    let PlacementInput {
        normal,
        hit_height,
        hit_mode,
        dts,
        half_lives,
        lengths,
        pole,
        support,
        travel,
        to_world,
        pelvis,
        rots,
    } = input;
    let skel = biped();
    let rigs = biped_feet(&skel);
    let settings = FootPlacementSettings {
        ray_start_height: lengths[0],
        ray_length: lengths[1],
        max_step_up: lengths[2],
        max_step_down: lengths[3],
        planted_height: lengths[4],
        planted_fade: lengths[5],
        max_tilt: lengths[6],
        pelvis_half_life: half_lives.x,
        foot_half_life: half_lives.y,
        tilt_half_life: half_lives.z,
        soften: lengths[7],
        knee_pole: pole,
        pelvis_support: support,
        heel_lift: lengths[8],
        max_heel_lift: lengths[9],
        ..FootPlacementSettings::default()
    };
    let model_to_world = Xform { translation: to_world.0, rotation: to_world.1, scale: Vec3::splat(to_world.2) };
    let job = FootPlacement {
        parents: skel.parents(),
        pelvis: PELVIS,
        feet: &rigs,
        model_to_world,
        foot_shifts: &[],
        floor_heights: &[],
        swing_floors: &[],
        travel,
        settings,
        weight: 1.0,
    };
    let mut state = FootPlacementState::new(2);
    let mut reports = [FootReport::default(); 2];
    let animated = pose(&skel, Vec3::Y * PELVIS_HEIGHT + pelvis, &rots);
    for dt in dts {
        let mut locals = animated.clone();
        let mut model = model_of(&skel, &locals);
        let ground = |origin: Vec3, dir: Vec3, max: f32| -> Option<GroundHit> {
            match hit_mode {
                0 => None,
                // Straight below the origin, at any height.
                1 => Some(GroundHit { point: Vec3::new(origin.x, hit_height, origin.z), normal }),
                // Along the ray, within its length.
                2 => Some(GroundHit { point: origin + dir * (max * 0.5), normal }),
                _ => Some(GroundHit { point: Vec3::splat(hit_height), normal }),
            }
        };
        let result = job.run(&mut locals, &mut model, ground, dt, &mut state, &mut reports);
        check!(result.is_ok(), "{:?}", result);
        check_finite!(result.unwrap().is_finite());
        check_finite!(all_finite(&locals) && all_finite(&model));
        for r in &reports {
            check_finite!(r.ground_height.is_finite() && r.ground_point.is_finite() && r.ground_normal.is_finite());
            check_finite!(r.planted.is_finite() && r.target_offset.is_finite() && r.offset.is_finite());
            check_finite!(r.ankle_target.is_finite() && r.float_before.is_finite() && r.float_after.is_finite());
        }
    }
    Ok(())
}

/// Slide removal over a short gait clip (2–11 frames) with a jittered pelvis, random contacts,
/// factors, floors and knee sides.
#[derive(Clone, Debug)]
pub struct SlideInput {
    pub contacts: Vec<(bool, bool)>,
    pub jitter: Vec<Vec3>,
    pub factors: (f32, f32),
    pub floor: Option<f32>,
    pub side: Option<Vec3>,
}

pub fn slide_input() -> impl Strategy<Value = SlideInput> {
    (
        prop::collection::vec(any::<(bool, bool)>(), 2..12),
        prop::collection::vec(vec3(-0.3f32..0.3), 12),
        (finite(), finite()),
        prop::option::of(moderate()),
        prop::option::of(vec3(finite())),
    )
        .prop_map(|(contacts, jitter, factors, floor, side)| SlideInput { contacts, jitter, factors, floor, side })
}

/// Slide removal, when it answers, answers finite poses, targets and travels.
pub fn slide_removal(input: SlideInput) -> Verdict {
    let SlideInput { contacts, jitter, factors, floor, side } = input;
    let skel = biped();
    let frames = contacts.len();
    let (mut clip, _) = gait_clip(&skel, &GaitParams::walk(), frames, 60.0, 1.3);
    for f in 0..frames {
        clip[f * skel.len() + PELVIS].translation += jitter[f];
    }
    let left: Vec<bool> = contacts.iter().map(|c| c.0).collect();
    let right: Vec<bool> = contacts.iter().map(|c| c.1).collect();
    let mut mins_l = min_heights(&skel, &LEFT);
    let mut mins_r = min_heights(&skel, &RIGHT);
    if let Some(h) = floor {
        mins_l.toe = h;
        mins_r.heel = h;
    }
    let feet = [
        SlideFoot { chain: LEFT, contacts: &left, min_heights: mins_l },
        SlideFoot { chain: RIGHT, contacts: &right, min_heights: mins_r },
    ];
    let settings = SlideRemovalSettings {
        iterations: 60,
        soft_factor: factors.0,
        hard_factor: factors.1,
        leg: LegSettings { knee_side: side, ..Default::default() },
    };
    if let Ok(result) = remove_foot_slide(skel.parents(), PELVIS, &feet, &clip, &settings, &mut |_, _| {}) {
        check_finite!(all_finite(&result.locals));
        check_finite!(result.pelvis.iter().chain(result.toe_targets.iter().flatten()).all(|v| v.is_finite()));
        check_finite!(result.toe_travel_before.iter().chain(&result.toe_travel_after).all(|v| v.is_finite()));
    }
    Ok(())
}
