//! Property tests: the gait, the leg chain, foot placement and slide removal never produce NaN
//! or infinity for finite input, degenerate cases included (horizontal or zero ground normals,
//! dt = 0, zero half-lives, no ground hit, unreachable targets, huge values).

mod common;

use common::*;
use glam::{Quat, Vec3};
use ik_core::foot_placement::{
    FootPlacement, FootPlacementSettings, FootPlacementState, FootReport, FootRig, GroundHit, KneePole,
};
use ik_core::gait::{GaitParams, sample_gait, sample_gait_at_time};
use ik_core::leg::{LegMinHeights, LegSettings, solve_leg};
use ik_core::slide_removal::{SlideFoot, SlideRemovalSettings, remove_foot_slide};
use ik_core::{Skeleton, Xform};
use proptest::prelude::*;

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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn gait_is_finite_for_any_finite_parameters(
        v in prop::collection::vec(finite(), 8),
        phase in finite(),
        time in finite(),
    ) {
        let p = GaitParams {
            speed: v[0], cycle_duration: v[1], stance_fraction: v[2], step_height: v[3],
            foot_spacing: v[4], pelvis_height: v[5], pelvis_bob: v[6], pelvis_sway: v[7],
        };
        for s in [sample_gait(&p, phase), sample_gait_at_time(&p, time)] {
            prop_assert!(s.pelvis.is_finite());
            for f in s.feet {
                prop_assert!(f.position.is_finite() && f.forward.is_finite());
                prop_assert!((f.forward.length() - 1.0).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn leg_is_finite_and_errors_leave_the_pose_untouched(
        target in vec3(finite()),
        near_target in vec3(-2.0f32..2.0),
        use_near in any::<bool>(),
        pelvis in vec3(moderate()),
        rots in prop::array::uniform6(rotation()),
        side in prop::option::of(vec3(finite())),
        max_extension in finite(),
        soften in finite(),
        heights in prop::option::of(vec3(moderate())),
        orient in any::<(bool, bool)>(),
    ) {
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
                prop_assert!(all_finite(&locals) && all_finite(&model));
                prop_assert!(solution.rotations.iter().chain(&solution.corrections).all(|q| q.is_finite()));
                prop_assert!(solution.toe_target.is_finite() && solution.heel_target.is_finite());
                prop_assert!(solution.toe_end_target.is_none_or(|t| t.is_finite()));
            }
            Err(_) => {
                prop_assert_eq!(&locals, &locals0);
                prop_assert_eq!(&model, &model0);
            }
        }
    }

    #[test]
    fn foot_placement_is_finite_for_degenerate_ground_dt_and_settings(
        normal in prop_oneof![vec3(-1.0f32..1.0), Just(Vec3::X), Just(Vec3::ZERO), Just(Vec3::NEG_Y), vec3(finite())],
        hit_height in prop_oneof![-2.0f32..2.0, finite()],
        hit_mode in 0u8..4,
        dts in prop::collection::vec(prop_oneof![Just(0.0f32), 0.0f32..0.1, finite()], 1..6),
        half_lives in vec3(prop_oneof![Just(0.0f32), -1.0f32..1.0, finite()]),
        lengths in prop::collection::vec(prop_oneof![-1.0f32..2.0, finite()], 8),
        pole in prop_oneof![Just(KneePole::CurrentPlane), vec3(finite()).prop_map(KneePole::Forward)],
        to_world in (vec3(moderate()), rotation(), prop_oneof![Just(1.0f32), 0.01f32..100.0, Just(0.0f32)]),
        pelvis in vec3(-0.5f32..0.5),
        rots in prop::array::uniform6(rotation()),
    ) {
        let skel = biped();
        let rest = skel.rest_model();
        let rigs = [FootRig::from_flat_pose(&rest, LEFT).unwrap(), FootRig::from_flat_pose(&rest, RIGHT).unwrap()];
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
        };
        let model_to_world = Xform { translation: to_world.0, rotation: to_world.1, scale: Vec3::splat(to_world.2) };
        let job = FootPlacement { parents: skel.parents(), pelvis: PELVIS, feet: &rigs, model_to_world, foot_shifts: &[], settings };
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
            prop_assert!(result.is_ok(), "{:?}", result);
            prop_assert!(result.unwrap().is_finite());
            prop_assert!(all_finite(&locals) && all_finite(&model));
            for r in &reports {
                prop_assert!(r.ground_height.is_finite() && r.ground_point.is_finite() && r.ground_normal.is_finite());
                prop_assert!(r.planted.is_finite() && r.target_offset.is_finite() && r.offset.is_finite());
                prop_assert!(r.ankle_target.is_finite() && r.float_before.is_finite() && r.float_after.is_finite());
            }
        }
    }

    #[test]
    fn slide_removal_is_finite(
        contacts in prop::collection::vec(any::<(bool, bool)>(), 2..12),
        jitter in prop::collection::vec(vec3(-0.3f32..0.3), 12),
        factors in (finite(), finite()),
        floor in prop::option::of(moderate()),
        side in prop::option::of(vec3(finite())),
    ) {
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
            prop_assert!(all_finite(&result.locals));
            prop_assert!(result.pelvis.iter().chain(result.toe_targets.iter().flatten()).all(|v| v.is_finite()));
            prop_assert!(result.toe_travel_before.iter().chain(&result.toe_travel_after).all(|v| v.is_finite()));
        }
    }
}

#[test]
fn named_degenerate_cases_are_finite() {
    let skel = biped();
    let rest = skel.rest_model();
    let rigs = [FootRig::from_flat_pose(&rest, LEFT).unwrap(), FootRig::from_flat_pose(&rest, RIGHT).unwrap()];
    let animated = standing(&skel, 0.04);
    let cases: [(&str, Vec3, f32, FootPlacementSettings); 5] = [
        ("hit at f32::MAX", Vec3::ONE, 1.0 / 60.0, FootPlacementSettings::default()),
        ("horizontal ground normal", Vec3::X, 1.0 / 60.0, FootPlacementSettings::default()),
        ("dt = 0", Vec3::Y, 0.0, FootPlacementSettings::default()),
        (
            "zero half-lives",
            Vec3::Y,
            1.0 / 60.0,
            FootPlacementSettings {
                pelvis_half_life: 0.0,
                foot_half_life: 0.0,
                tilt_half_life: 0.0,
                ..Default::default()
            },
        ),
        ("zero normal", Vec3::ZERO, 1.0 / 60.0, FootPlacementSettings::default()),
    ];
    for (name, normal, dt, settings) in cases {
        let job = FootPlacement {
            parents: skel.parents(),
            pelvis: PELVIS,
            feet: &rigs,
            model_to_world: Xform::IDENTITY,
            foot_shifts: &[],
            settings,
        };
        let mut state = FootPlacementState::new(2);
        let mut reports = [FootReport::default(); 2];
        for _ in 0..5 {
            let mut locals = animated.clone();
            let mut model = model_of(&skel, &locals);
            let point = if name == "hit at f32::MAX" { Vec3::splat(f32::MAX) } else { Vec3::new(0.0, -0.1, 0.0) };
            let ground = |o: Vec3, _: Vec3, _: f32| Some(GroundHit { point: point + Vec3::new(o.x, 0.0, o.z), normal });
            let offset = job.run(&mut locals, &mut model, ground, dt, &mut state, &mut reports).unwrap();
            assert!(offset.is_finite() && all_finite(&locals) && all_finite(&model), "{name}");
            assert!(reports.iter().all(|r| r.float_after.is_finite() && r.offset.is_finite()), "{name}");
        }
    }
    // A toe target far out of reach.
    let mut locals = animated.clone();
    let mut model = model_of(&skel, &locals);
    let s = LegSettings { knee_side: Some(Vec3::X), ..Default::default() };
    let solution = solve_leg(skel.parents(), &mut locals, &mut model, &LEFT, Vec3::new(50.0, -30.0, 80.0), &s).unwrap();
    assert!(!solution.reached && all_finite(&locals) && all_finite(&model));
}
