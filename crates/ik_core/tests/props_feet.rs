//! Property tests for the gait, the leg chain, foot placement and slide removal (256 cases
//! each): the properties and their generators are in `props/feet.rs`, shared with the soak
//! (`soak.rs`). Below them, named degenerate cases.

mod common;
mod props;

use common::*;
use glam::Vec3;
use ik_core::Xform;
use ik_core::foot_placement::{FootPlacement, FootPlacementSettings, FootPlacementState, FootReport, GroundHit};
use ik_core::leg::{LegSettings, solve_leg};
use proptest::prelude::*;

use props::feet::*;

fn all_finite(xs: &[Xform]) -> bool {
    xs.iter().all(Xform::is_finite)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn gait_is_finite_for_any_finite_parameters(input in gait_input()) {
        gait(input)?;
    }

    #[test]
    fn leg_is_finite_and_errors_leave_the_pose_untouched(input in leg_input()) {
        leg(input)?;
    }

    #[test]
    fn foot_placement_is_finite_for_degenerate_ground_dt_and_settings(input in placement_input()) {
        placement(input)?;
    }

    #[test]
    fn slide_removal_is_finite(input in slide_input()) {
        slide_removal(input)?;
    }
}

#[test]
fn named_degenerate_cases_are_finite() {
    let skel = biped();
    let rigs = biped_feet(&skel);
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
        let job = FootPlacement { settings, ..placement_job(skel.parents(), &rigs) };
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
