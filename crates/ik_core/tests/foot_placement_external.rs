//! Foot placement on IK-control rigs: the foot bone hangs from the root, from a control bone
//! under the root, or from a control bone under the pelvis, not from the shin; the animation
//! keys the foot in its parent's frame and the shin so that its end meets the foot. Each is run
//! next to the same skeleton with its feet under the shins (the same model-space animation) on
//! a 15 cm step and a 20° slope, standing and walking: the placed feet must match within 1 mm,
//! the shin's end must stay on the foot within 0.5 mm, and everything must stay finite.

mod common;

// The biped's proportions, grounds and placement helpers; this file's skeleton has its own
// bone indices (two control bones after the pelvis), so its legs are its own.
use common::{
    ANKLE_HEIGHT, BALL_FROM_ANKLE, PELVIS, PELVIS_HEIGHT, ROOT, SHIN, THIGH, foot_rigs_with_heel_and_tip, model_of,
    placement_job, pose_leg, slope_ground, step_ground,
};
use glam::{Quat, Vec3};
use ik_core::foot_placement::{FootPlacement, FootPlacementState, FootReport, FootRig, GroundHit};
use ik_core::leg::LegChain;
use ik_core::{IkError, Skeleton, Xform};

/// Control bones, one per foot (unused leaves in the ordinary skeleton).
const CONTROLS: [usize; 2] = [2, 3];
const LEFT: LegChain = LegChain { hip: 5, knee: 6, ankle: 7, toe: Some(8), toe_end: Some(9) };
const RIGHT: LegChain = LegChain { hip: 10, knee: 11, ankle: 12, toe: Some(13), toe_end: Some(14) };
const LEGS: [LegChain; 2] = [LEFT, RIGHT];

/// What each foot hangs from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum FootParent {
    /// The shin (an ordinary rig).
    Shin,
    /// The root bone.
    Root,
    /// A control bone under the root.
    Control,
    /// A control bone under the pelvis.
    PelvisControl,
}

/// A biped whose rest pose (model space) is the same whatever the feet hang from: root, pelvis,
/// two control bones, spine, and per leg hip, knee, ankle, toe (ball), toe end.
fn biped(feet: FootParent) -> Skeleton {
    let t = Xform::from_translation;
    let control_parent = if feet == FootParent::PelvisControl { PELVIS } else { ROOT };
    let mut parents = vec![None, Some(ROOT), Some(control_parent), Some(control_parent), Some(PELVIS)];
    let mut names: Vec<String> = ["root", "pelvis", "ctrl_l", "ctrl_r", "spine"].map(String::from).into();
    let mut rest_model = vec![
        Xform::IDENTITY,
        t(Vec3::Y * PELVIS_HEIGHT),
        Xform::from_translation_rotation(Vec3::new(0.1, 0.3, 0.05), Quat::from_rotation_y(0.4)),
        Xform::from_translation_rotation(Vec3::new(-0.1, 0.3, 0.05), Quat::from_rotation_x(-0.3)),
        t(Vec3::Y * (PELVIS_HEIGHT + 0.25)),
    ];
    for (k, (side, x)) in [("l", 0.1f32), ("r", -0.1)].into_iter().enumerate() {
        let hip = parents.len();
        let foot_parent = match feet {
            FootParent::Shin => hip + 1,
            FootParent::Root => ROOT,
            FootParent::Control | FootParent::PelvisControl => CONTROLS[k],
        };
        parents.extend([Some(PELVIS), Some(hip), Some(foot_parent), Some(hip + 2), Some(hip + 3)]);
        names.extend(["hip", "knee", "ankle", "toe", "toe_end"].map(|b| format!("{side}_{b}")));
        let hip_at = Vec3::new(x, ANKLE_HEIGHT + SHIN + THIGH, 0.0);
        let ankle_at = Vec3::new(x, ANKLE_HEIGHT, 0.0);
        rest_model.extend([
            t(hip_at),
            t(hip_at - Vec3::Y * THIGH),
            t(ankle_at),
            t(ankle_at + BALL_FROM_ANKLE),
            t(ankle_at + BALL_FROM_ANKLE + Vec3::Z * 0.06),
        ]);
    }
    let rest = locals_for(&parents, &rest_model);
    Skeleton::new(parents, names, rest).unwrap()
}

/// The locals that give `model` under `parents` (uniform unit scales: exact inverses).
fn locals_for(parents: &[Option<usize>], model: &[Xform]) -> Vec<Xform> {
    parents
        .iter()
        .zip(model)
        .map(|(p, m)| match p {
            Some(p) => model[*p].inverse().mul_xform(m),
            None => *m,
        })
        .collect()
}

/// A model-space pose of the ordinary biped: pelvis `crouch` below rest, each ankle at
/// `ankles[k]` with foot rotation `pitch[k]` about X (knees forward), control bones moved too.
fn pose(ankles: [Vec3; 2], pitch: [f32; 2], crouch: f32, time: f32) -> Vec<Xform> {
    let skel = biped(FootParent::Shin);
    let mut locals = skel.rest().to_vec();
    locals[PELVIS].translation.y -= crouch;
    // The animation keys the control bones too (they do not matter to the feet's model pose).
    locals[CONTROLS[0]].rotation = Quat::from_rotation_z(0.2 * time.sin()) * locals[CONTROLS[0]].rotation;
    locals[CONTROLS[1]].translation += Vec3::new(0.0, 0.02 * time.cos(), 0.03);
    for (k, leg) in LEGS.iter().enumerate() {
        pose_leg(&skel, &mut locals, leg, ankles[k], Quat::from_rotation_x(pitch[k]));
    }
    model_of(&skel, &locals)
}

/// Standing with the knees a little bent, feet flat where they stand at rest.
fn standing() -> Vec<Xform> {
    pose([Vec3::new(0.1, ANKLE_HEIGHT, 0.0), Vec3::new(-0.1, ANKLE_HEIGHT, 0.0)], [0.0; 2], 0.04, 0.0)
}

/// A walk-like cycle: ankles on ellipses in opposite phase, heels rolling, pelvis bobbing.
fn walking(frame: usize) -> Vec<Xform> {
    let time = frame as f32 / 60.0;
    let phase = time * std::f32::consts::TAU;
    let foot = |x: f32, p: f32| Vec3::new(x, ANKLE_HEIGHT + 0.07 * p.sin().max(0.0), 0.14 * p.cos());
    let ankles = [foot(0.1, phase), foot(-0.1, phase + std::f32::consts::PI)];
    let pitch = [-0.25 * phase.sin().max(0.0), -0.25 * (phase + std::f32::consts::PI).sin().max(0.0)];
    pose(ankles, pitch, 0.05 + 0.01 * (2.0 * phase).cos(), time)
}

/// One character being placed frame after frame.
struct Placer {
    skel: Skeleton,
    rigs: [FootRig; 2],
    state: FootPlacementState,
    locals: Vec<Xform>,
    model: Vec<Xform>,
    reports: [FootReport; 2],
}

impl Placer {
    fn new(feet: FootParent) -> Self {
        let skel = biped(feet);
        let rigs = foot_rigs_with_heel_and_tip(&skel.rest_model(), LEGS);
        let n = skel.len();
        Placer {
            skel,
            rigs,
            state: FootPlacementState::new(2),
            locals: vec![Xform::IDENTITY; n],
            model: vec![Xform::IDENTITY; n],
            reports: [FootReport::default(); 2],
        }
    }

    /// Places one frame of the model-space animation `animated`.
    fn frame<G>(&mut self, animated: &[Xform], shifts: &[Vec3], ground: G) -> Result<f32, IkError>
    where
        G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
    {
        self.locals = locals_for(self.skel.parents(), animated);
        self.model = model_of(&self.skel, &self.locals);
        let job = FootPlacement { foot_shifts: shifts, ..placement_job(self.skel.parents(), &self.rigs) };
        job.run(&mut self.locals, &mut self.model, ground, 1.0 / 60.0, &mut self.state, &mut self.reports)
    }
}

/// Largest differences seen over a run.
#[derive(Default, Debug)]
struct Worst {
    /// Placed ankle, toe and sole points (external vs ordinary), m.
    feet: f32,
    /// Float after placement (external vs ordinary), m.
    float: f32,
    /// Shin end to foot, m.
    shin_end: f32,
    /// Model buffer against FK of the locals, m.
    fk: f32,
    /// Largest |float after| of the external rig's planted feet, m.
    float_after: f32,
}

fn compare<G>(
    feet: FootParent,
    frames: usize,
    animation: &dyn Fn(usize) -> Vec<Xform>,
    shifts: &[Vec3],
    ground: G,
) -> Worst
where
    G: Fn(Vec3, Vec3, f32) -> Option<GroundHit> + Copy,
{
    let mut ordinary = Placer::new(FootParent::Shin);
    let mut external = Placer::new(feet);
    assert!(ordinary.rigs.iter().all(|r| !r.is_external(ordinary.skel.parents())));
    assert!(external.rigs.iter().all(|r| r.is_external(external.skel.parents())));
    let mut worst = Worst::default();
    for frame in 0..frames {
        let animated = animation(frame);
        let offset_a = ordinary.frame(&animated, shifts, ground).unwrap();
        let offset_b = external.frame(&animated, shifts, ground).unwrap();
        assert!((offset_a - offset_b).abs() < 1e-4, "frame {frame}: pelvis {offset_a} vs {offset_b}");
        for (k, leg) in LEGS.iter().enumerate() {
            let (a, b) = (&ordinary.model, &external.model);
            for bone in [leg.ankle, leg.toe.unwrap(), leg.toe_end.unwrap()] {
                worst.feet = worst.feet.max(a[bone].translation.distance(b[bone].translation));
            }
            worst.feet = worst.feet.max(a[leg.ankle].rotation.angle_between(b[leg.ankle].rotation) * 0.1);
            let (ra, rb) = (ordinary.reports[k], external.reports[k]);
            worst.float = worst.float.max((ra.float_after - rb.float_after).abs());
            assert!(!ra.ankle_translated, "an ordinary foot's translation is never written");
            assert_eq!(rb.ankle_translated, rb.offset != 0.0 || offset_b != 0.0, "frame {frame} foot {k}");
            if rb.planted == 1.0 {
                worst.float_after = worst.float_after.max(rb.float_after.abs());
            }
            // The shin's end, as animated in the knee's frame, is still where the foot is.
            let in_knee = animated[leg.knee].inverse_transform_point(animated[leg.ankle].translation);
            let shin_end = b[leg.knee].transform_point(in_knee);
            worst.shin_end = worst.shin_end.max(shin_end.distance(b[leg.ankle].translation));
        }
        assert!(external.locals.iter().chain(&external.model).all(Xform::is_finite), "frame {frame}");
        let fk = model_of(&external.skel, &external.locals);
        for (x, y) in fk.iter().zip(&external.model) {
            worst.fk = worst.fk.max(x.translation.distance(y.translation));
        }
    }
    worst
}

const EXTERNAL: [FootParent; 3] = [FootParent::Root, FootParent::Control, FootParent::PelvisControl];

#[test]
fn external_feet_on_a_step_and_a_slope_land_where_ordinary_feet_do() {
    type Ground = fn(Vec3, Vec3, f32) -> Option<GroundHit>;
    let grounds: [(&str, Ground); 2] = [("15 cm step", step_ground), ("20° slope", slope_ground)];
    let shifted = [Vec3::new(0.03, 0.0, -0.05), Vec3::ZERO];
    for feet in EXTERNAL {
        for (name, ground) in grounds {
            for (what, shifts) in [("standing", &[][..]), ("standing, locked", &shifted[..])] {
                let w = compare(feet, 60, &|_| standing(), shifts, ground);
                println!(
                    "{feet:?} {name} {what}: feet {:.4} mm, float {:.4} mm, shin end {:.4} mm, fk {:.4} mm, \
                     float after {:.2} mm",
                    w.feet * 1e3,
                    w.float * 1e3,
                    w.shin_end * 1e3,
                    w.fk * 1e3,
                    w.float_after * 1e3
                );
                assert!(w.feet < 1e-3 && w.float < 1e-3, "{feet:?} {name} {what}: {w:?}");
                assert!(w.shin_end < 5e-4 && w.fk < 1e-4, "{feet:?} {name} {what}: {w:?}");
                assert!(w.float_after < 5e-3, "{feet:?} {name} {what}: planted feet on the ground: {w:?}");
            }
            let w = compare(feet, 120, &walking, &[], ground);
            println!(
                "{feet:?} {name} walking: feet {:.4} mm, float {:.4} mm, shin end {:.4} mm, fk {:.4} mm",
                w.feet * 1e3,
                w.float * 1e3,
                w.shin_end * 1e3,
                w.fk * 1e3
            );
            assert!(w.feet < 1e-3 && w.float < 1e-3, "{feet:?} {name} walking: {w:?}");
            assert!(w.shin_end < 5e-4 && w.fk < 1e-4, "{feet:?} {name} walking: {w:?}");
        }
    }
}

#[test]
fn on_the_step_the_low_external_foot_goes_down_15_cm_with_the_pelvis() {
    let mut placer = Placer::new(FootParent::Root);
    let animated = standing();
    let mut offset = 0.0;
    for _ in 0..60 {
        offset = placer.frame(&animated, &[], step_ground).unwrap();
    }
    let [left, right] = placer.reports;
    assert!((offset + 0.15).abs() < 1e-3, "pelvis {offset}");
    assert!(left.float_after.abs() < 5e-3 && right.float_after.abs() < 5e-3, "{left:?} {right:?}");
    let drop = animated[LEFT.ankle].translation.y - placer.model[LEFT.ankle].translation.y;
    assert!((drop - 0.15).abs() < 2e-3, "left ankle went down {drop}");
    // The foot's local translation (under the root) is the new position: it was written.
    assert!(left.ankle_translated && right.ankle_translated);
    assert!(placer.locals[LEFT.ankle].translation.distance(placer.model[LEFT.ankle].translation) < 1e-6);
}

#[test]
fn with_nothing_to_do_an_external_leg_is_left_bit_for_bit() {
    // No ground under the feet: no correction, no tilt.
    let mut placer = Placer::new(FootParent::Control);
    let animated = standing();
    placer.frame(&animated, &[], |_, _, _| None).unwrap();
    let input = locals_for(placer.skel.parents(), &animated);
    for leg in LEGS {
        for bone in [leg.hip, leg.knee, leg.ankle, leg.toe.unwrap()] {
            assert_eq!(placer.locals[bone], input[bone], "bone {bone}");
        }
    }
    assert!(placer.reports.iter().all(|r| !r.ankle_translated));
}

#[test]
fn bad_input_on_an_external_leg_is_an_error_with_the_pose_untouched() {
    let animated = standing();
    let check = |placer: &mut Placer, locals: Vec<Xform>| -> IkError {
        let model = model_of(&placer.skel, &locals);
        let (mut l, mut m) = (locals.clone(), model.clone());
        let job = placement_job(placer.skel.parents(), &placer.rigs);
        let err = job.run(&mut l, &mut m, step_ground, 1.0 / 60.0, &mut placer.state, &mut placer.reports).unwrap_err();
        // (Compared as text: a NaN put in on purpose is not equal to itself.)
        assert_eq!(format!("{l:?}"), format!("{locals:?}"), "locals untouched");
        assert_eq!(format!("{m:?}"), format!("{model:?}"), "model untouched");
        err
    };
    for feet in EXTERNAL {
        let mut placer = Placer::new(feet);
        let good = locals_for(placer.skel.parents(), &animated);
        // NaN in the foot's own local, and in its control bone's.
        let mut nan = good.clone();
        nan[LEFT.ankle].translation.x = f32::NAN;
        assert_eq!(check(&mut placer, nan), IkError::NonFiniteInput, "{feet:?}");
        if feet != FootParent::Root {
            let mut nan = good.clone();
            nan[CONTROLS[1]].rotation = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
            assert_eq!(check(&mut placer, nan), IkError::NonFiniteInput, "{feet:?}");
            let mut zero = good.clone();
            zero[CONTROLS[1]].scale = Vec3::ZERO;
            assert_eq!(check(&mut placer, zero), IkError::NonFiniteInput, "{feet:?} zero-scale control");
        }
        // A zero-length shin: the knee animated onto the foot.
        let mut model = animated.clone();
        model[LEFT.knee].translation = model[LEFT.ankle].translation;
        let short = locals_for(placer.skel.parents(), &model);
        let err = check(&mut placer, short);
        assert!(matches!(err, IkError::ZeroLengthBone { .. }), "{feet:?}: {err:?}");
        // NaN in the ground query's answer is ignored (no hit), not written.
        let nan_ground = |_: Vec3, _: Vec3, _: f32| Some(GroundHit { point: Vec3::NAN, normal: Vec3::Y });
        placer.frame(&animated, &[], nan_ground).unwrap();
        assert!(placer.locals.iter().all(Xform::is_finite));
    }
    // A foot that is an ancestor of its own hip cannot be moved with the shin.
    let skel = biped(FootParent::Root);
    let mut parents = skel.parents().to_vec();
    parents[LEFT.ankle] = Some(ROOT);
    let rigs = foot_rigs_with_heel_and_tip(&skel.rest_model(), LEGS);
    let bad = [FootRig {
        leg: LegChain { hip: LEFT.hip, knee: LEFT.knee, ankle: PELVIS, toe: None, toe_end: None },
        ..rigs[0]
    }];
    let job = placement_job(&parents, &bad);
    let locals = locals_for(&parents, &animated);
    let (mut l, mut m) = (locals.clone(), animated.clone());
    let err = job.run(&mut l, &mut m, step_ground, 0.0, &mut FootPlacementState::new(1), &mut [FootReport::default()]);
    assert_eq!(err, Err(IkError::BrokenHierarchy { bone: PELVIS }));
    assert_eq!(job.bone_role(PELVIS).as_deref(), Some("pelvis"));
    assert_eq!(job.bone_role(LEFT.knee).as_deref(), Some("foot 0 knee"));
    assert_eq!(job.bone_role(ROOT), None);
    assert_eq!(l, locals);
}
