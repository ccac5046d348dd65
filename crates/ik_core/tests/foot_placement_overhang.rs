//! Bars for foot placement under overhangs: a log or table top hanging over a foot, inside the
//! rays' start height, must not pull the foot up onto it; a tread the animated foot is sunk
//! into, or a two-sided surface above it, must still lift it.

mod common;

use common::*;
use glam::{Quat, Vec3};
use ik_core::foot_placement::{FootPlacement, FootPlacementState, FootReport, GroundHit};
use ik_core::{Skeleton, Xform};

/// An axis-aligned solid box, as physics engines cast against it: a ray starting inside hits at
/// its origin (distance 0, no normal), else at the first face it crosses.
#[derive(Clone, Copy)]
struct Solid {
    min: Vec3,
    max: Vec3,
}

impl Solid {
    fn cast(&self, origin: Vec3, dir: Vec3, max: f32) -> Option<(f32, Vec3)> {
        if origin.cmpge(self.min).all() && origin.cmple(self.max).all() {
            return Some((0.0, Vec3::ZERO));
        }
        let (mut enter, mut exit, mut normal) = (0.0f32, max, Vec3::ZERO);
        for axis in 0..3 {
            let (o, d) = (origin[axis], dir[axis]);
            if d.abs() < 1e-9 {
                if o < self.min[axis] || o > self.max[axis] {
                    return None;
                }
                continue;
            }
            let (t0, t1) = ((self.min[axis] - o) / d, (self.max[axis] - o) / d);
            let (near, far) = (t0.min(t1), t0.max(t1));
            if near > enter {
                enter = near;
                normal = Vec3::ZERO;
                normal[axis] = -d.signum();
            }
            exit = exit.min(far);
        }
        (enter <= exit).then_some((enter, normal))
    }
}

/// The nearest hit among `solids` (world space), as a ground query answers.
fn cast_all(solids: &[Solid], origin: Vec3, dir: Vec3, max: f32) -> Option<GroundHit> {
    solids
        .iter()
        .filter_map(|s| s.cast(origin, dir, max))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(t, normal)| GroundHit { point: origin + dir * t, normal })
}

/// The floor: a thick slab whose top is y = 0.
const FLOOR: Solid = Solid { min: Vec3::new(-50.0, -1.0, -50.0), max: Vec3::new(50.0, 0.0, 50.0) };

/// Places the standing biped for 30 frames (world = model scaled by `scale`, turned and moved)
/// on `solids` (given in model space, moved to world here); returns the reports and the model.
fn place(skel: &Skeleton, solids: &[Solid], scale: f32) -> ([FootReport; 2], Vec<Xform>) {
    let to_world = Xform {
        translation: Vec3::new(3.0, 1.0, -2.0),
        rotation: Quat::from_rotation_y(0.7),
        scale: Vec3::splat(scale),
    };
    // World boxes: a turned box is no longer axis-aligned, so the world query undoes the
    // transform and casts in model space (the same ground, seen through `to_world`).
    let ground = |o: Vec3, d: Vec3, m: f32| {
        let (mo, md) = (to_world.inverse_transform_point(o), (to_world.rotation.inverse() * d) / scale);
        let len = md.length();
        let hit = cast_all(solids, mo, md / len, m / scale)?;
        Some(GroundHit { point: to_world.transform_point(hit.point), normal: to_world.rotation * hit.normal })
    };
    let rigs = foot_rigs_with_heel_and_tip(&skel.rest_model(), [LEFT, RIGHT]);
    let job = FootPlacement { model_to_world: to_world, ..placement_job(skel.parents(), &rigs) };
    let animated = standing(skel, 0.0);
    let mut state = FootPlacementState::new(2);
    let mut reports = [FootReport::default(); 2];
    let mut model = Vec::new();
    for _ in 0..30 {
        let mut locals = animated.clone();
        model = model_of(skel, &locals);
        job.run(&mut locals, &mut model, ground, 1.0 / 60.0, &mut state, &mut reports).unwrap();
    }
    (reports, model)
}

#[test]
fn a_log_over_the_feet_does_not_pull_them_up_onto_it() {
    // A log 15 to 30 cm up, across both feet's toes (from 5 cm in front of the ankle): the rays
    // start 50 cm above each sole point, above the log, and find its top first.
    let skel = biped();
    let log = Solid { min: Vec3::new(-1.0, 0.15, 0.05), max: Vec3::new(1.0, 0.30, 0.4) };
    for scale in [1.0, 0.01, 100.0] {
        let (reports, model) = place(&skel, &[FLOOR, log], scale);
        for (foot, report) in reports.iter().enumerate() {
            let ankle = model[[LEFT, RIGHT][foot].ankle].translation.y;
            println!(
                "scale {scale}: under a log, foot {foot}: sole float {:.2} mm, ankle at {:.2} cm, ground {:.3}",
                report.float_after * 1e3,
                ankle * 100.0,
                report.ground_height
            );
            assert!(report.float_after.abs() < 1e-3, "scale {scale} foot {foot}: {report:?}");
            assert!((ankle - ANKLE_HEIGHT).abs() < 1e-3, "scale {scale} foot {foot} lifted to {ankle}");
        }
    }
}

#[test]
fn a_table_top_over_a_whole_foot_leaves_it_on_the_floor() {
    let skel = biped();
    // A 3 cm table top 40 cm up over the left foot only.
    let table = Solid { min: Vec3::new(0.0, 0.40, -0.5), max: Vec3::new(1.0, 0.43, 0.5) };
    let (reports, _) = place(&skel, &[FLOOR, table], 1.0);
    for report in reports {
        assert!(report.float_after.abs() < 1e-3 && report.ground_height.abs() < 1e-4, "{report:?}");
    }
}

#[test]
fn a_tread_the_animated_foot_is_sunk_into_still_lifts_it() {
    // Going up stairs the animated foot is at floor level, inside the next tread's box: the ray
    // up starts inside it, which is no overhang.
    let skel = biped();
    let tread = Solid { min: Vec3::new(0.0, 0.0, -0.5), max: Vec3::new(1.0, 0.2, 0.5) };
    let (reports, model) = place(&skel, &[FLOOR, tread], 1.0);
    let ankle = model[LEFT.ankle].translation.y;
    println!(
        "sunk into a 20 cm tread: left ankle at {:.2} cm, float {:.2} mm",
        ankle * 100.0,
        reports[0].float_after * 1e3
    );
    assert!((ankle - 0.2 - ANKLE_HEIGHT).abs() < 2e-3, "the left foot stands on the tread: ankle {ankle}");
    assert!(reports[0].float_after.abs() < 1e-3 && reports[1].float_after.abs() < 1e-3, "{reports:?}");
}

#[test]
fn a_two_sided_surface_above_the_foot_still_lifts_it() {
    // A height field or a mesh has no inside: seen from below it answers with the same
    // surface, which is no overhang either.
    let skel = biped();
    let rigs = foot_rigs_with_heel_and_tip(&skel.rest_model(), [LEFT, RIGHT]);
    let job = placement_job(skel.parents(), &rigs);
    let sheet = |o: Vec3, d: Vec3, m: f32| {
        let t = (0.1 - o.y) / d.y;
        (d.y.abs() > 1e-6 && t >= 0.0 && t <= m).then(|| GroundHit { point: o + d * t, normal: Vec3::Y })
    };
    let mut locals = standing(&skel, 0.0);
    let mut model = model_of(&skel, &locals);
    let mut state = FootPlacementState::new(2);
    let mut reports = [FootReport::default(); 2];
    job.run(&mut locals, &mut model, sheet, 0.0, &mut state, &mut reports).unwrap();
    for report in reports {
        assert!(report.float_after.abs() < 1e-3 && (report.ground_height - 0.1).abs() < 1e-4, "{report:?}");
    }
}
