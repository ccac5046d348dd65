//! Retargeting between small humanoids that differ in rest pose (A / T), bone axes, size,
//! facing and up axis, and where the feet hang.

use glam::{Quat, Vec3};

use super::*;
use crate::rig::{SkeletonBone, rig_humanoid};

/// How a test humanoid is authored.
#[derive(Clone, Copy)]
struct Style {
    /// Arms raised from the hanging A-pose (30° from vertical) by this, radians.
    raise: f32,
    /// Each bone's rest has its own model rotation (bone axes not along the model's).
    axes: bool,
    /// Uniform size.
    size: f32,
    /// The whole character turned (facing, up axis).
    turn: Quat,
    /// Feet hang from the root bone instead of the shins.
    external_feet: bool,
    /// How far the knees stand ahead of the hip–ankle line at rest (a rest on bent knees), m.
    knee_forward: f32,
}

const A_POSE: Style =
    Style { raise: 0.0, axes: false, size: 1.0, turn: Quat::IDENTITY, external_feet: false, knee_forward: 0.0 };

struct Human {
    parents: Vec<Option<usize>>,
    rest: Vec<Xform>,
    names: Vec<String>,
    rig: HumanoidRig<usize>,
    frame: RigFrame,
}

impl Human {
    fn rig(&self) -> RetargetRig<'_> {
        RetargetRig { parents: &self.parents, rest: &self.rest, names: &self.names, rig: &self.rig, frame: self.frame }
    }
}

/// A 22-bone humanoid, ~1.6 m, facing +Z with its left at +X before `style.turn`.
fn human(style: Style) -> Human {
    let hang = |side: f32| {
        let a = 30f32.to_radians();
        let raise = Quat::from_rotation_z(side * style.raise);
        (
            raise * Vec3::new(side * a.sin(), -a.cos(), -0.05).normalize(),
            raise * Vec3::new(side * a.sin(), -a.cos(), 0.1).normalize(),
        )
    };
    let o = |p: &str| Some(p.to_string());
    let mut joints: Vec<(String, Option<String>, Vec3)> = vec![
        ("root".into(), None, Vec3::ZERO),
        ("pelvis".into(), o("root"), Vec3::new(0.0, 1.0, 0.0)),
        ("spine_01".into(), o("pelvis"), Vec3::new(0.0, 1.1, 0.0)),
        ("spine_02".into(), o("spine_01"), Vec3::new(0.0, 1.25, -0.01)),
        ("neck_01".into(), o("spine_02"), Vec3::new(0.0, 1.45, 0.0)),
        ("head".into(), o("neck_01"), Vec3::new(0.0, 1.55, 0.01)),
    ];
    for (s, x) in [("l", 1.0f32), ("r", -1.0)] {
        let shoulder = Vec3::new(0.17 * x, 1.42, 0.0);
        let (upper, fore) = hang(x);
        let elbow = shoulder + upper * 0.28;
        let n = |stem: &str| format!("{stem}_{s}");
        let foot_parent = if style.external_feet { "root".to_string() } else { n("calf") };
        joints.extend([
            (n("upperarm"), o("spine_02"), shoulder),
            (n("lowerarm"), Some(n("upperarm")), elbow),
            (n("hand"), Some(n("lowerarm")), elbow + fore * 0.25),
            (n("thigh"), o("pelvis"), Vec3::new(0.09 * x, 0.95, 0.0)),
            (n("calf"), Some(n("thigh")), Vec3::new(0.09 * x, 0.52, 0.02 + style.knee_forward)),
            (n("foot"), Some(foot_parent), Vec3::new(0.09 * x, 0.08, -0.01)),
            (n("ball"), Some(n("foot")), Vec3::new(0.09 * x, 0.0, 0.12)),
        ]);
    }
    let names: Vec<String> = joints.iter().map(|j| j.0.clone()).collect();
    let parents: Vec<Option<usize>> =
        joints.iter().map(|j| j.1.as_ref().map(|p| names.iter().position(|n| n == p).unwrap())).collect();
    let model: Vec<Xform> = joints
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let axes = if style.axes {
                Quat::from_euler(glam::EulerRot::XYZ, 0.7 * i as f32, 1.3 - 0.4 * i as f32, 0.2 * i as f32)
            } else {
                Quat::IDENTITY
            };
            Xform::from_translation_rotation(style.turn * (j.2 * style.size), (style.turn * axes).normalize())
        })
        .collect();
    let rest: Vec<Xform> =
        (0..model.len()).map(|i| parents[i].map_or(model[i], |p| model[p].inverse() * model[i])).collect();
    let bones: Vec<SkeletonBone<usize>> = (0..names.len())
        .map(|i| SkeletonBone { handle: i, name: &names[i], parent: parents[i], rest: model[i].translation })
        .collect();
    let report = rig_humanoid(&bones, None).unwrap();
    Human { parents, rest, names: names.clone(), rig: report.indices, frame: report.frame }
}

/// A walking-ish pose of `h` at phase `t` (radians): rotations about model axes, in the
/// character's own frame, on its rest.
fn pose(h: &Human, t: f32) -> Vec<Xform> {
    let basis = character_basis(&h.frame);
    let mut model = vec![Xform::IDENTITY; h.rest.len()];
    crate::skeleton::forward_kinematics(&h.parents, &h.rest, &Xform::IDENTITY, &mut model).unwrap();
    // Model-space turns per bone (character frame: x left, y up, z forward).
    let turn_of = |name: &str| -> Quat {
        let swing = t.sin();
        let q = match name {
            "thigh_l" => Quat::from_rotation_x(-0.5 * swing),
            "thigh_r" => Quat::from_rotation_x(0.5 * swing),
            "calf_l" | "calf_r" => Quat::from_rotation_x(0.6 + 0.3 * t.cos()),
            "upperarm_l" => Quat::from_rotation_x(0.4 * swing) * Quat::from_rotation_z(-0.2),
            "upperarm_r" => Quat::from_rotation_x(-0.4 * swing) * Quat::from_rotation_z(0.2),
            "lowerarm_l" | "lowerarm_r" => Quat::from_rotation_x(-0.5),
            "spine_01" => Quat::from_rotation_y(0.2 * swing),
            "pelvis" => Quat::from_rotation_y(-0.1 * swing),
            _ => Quat::IDENTITY,
        };
        basis * q * basis.inverse()
    };
    // Turns accumulate down the chain like a real pose: bone world = (turns of its chain) · rest.
    let mut world_turn = vec![Quat::IDENTITY; h.rest.len()];
    let mut out = h.rest.clone();
    for i in 0..h.rest.len() {
        let parent_turn = h.parents[i].map_or(Quat::IDENTITY, |p| world_turn[p]);
        world_turn[i] = parent_turn * turn_of(&h.names[i]);
        let world = world_turn[i] * model[i].rotation;
        let parent_world = h.parents[i].map_or(Quat::IDENTITY, |p| world_turn[p] * model[p].rotation);
        out[i].rotation = (parent_world.inverse() * world).normalize();
    }
    let pelvis = h.rig.pelvis;
    let lift = basis * Vec3::new(0.0, -0.04 + 0.02 * t.cos(), 0.05 * t.sin()) * h.frame.leg_length;
    let parent = h.parents[pelvis].map_or(Xform::IDENTITY, |p| model[p]);
    out[pelvis].translation = parent.inverse_transform_point(model[pelvis].translation + lift);
    out
}

/// Model transforms of a pose.
fn fk(h: &Human, locals: &[Xform]) -> Vec<Xform> {
    let mut model = vec![Xform::IDENTITY; locals.len()];
    crate::skeleton::forward_kinematics(&h.parents, locals, &Xform::IDENTITY, &mut model).unwrap();
    model
}

/// The limbs compared: (label, from, to) by role name.
const LIMBS: [(&str, &str, &str); 9] = [
    ("left thigh", "thigh_l", "calf_l"),
    ("left shin", "calf_l", "foot_l"),
    ("right thigh", "thigh_r", "calf_r"),
    ("right shin", "calf_r", "foot_r"),
    ("left upper arm", "upperarm_l", "lowerarm_l"),
    ("left forearm", "lowerarm_l", "hand_l"),
    ("right upper arm", "upperarm_r", "lowerarm_r"),
    ("right forearm", "lowerarm_r", "hand_r"),
    ("spine", "pelvis", "neck_01"),
];

/// Worst angle (degrees) per limb between the source's and the target's directions, each in
/// its own character frame, over a walk cycle.
fn limb_errors(source: &Human, target: &Human, settings: RetargetSettings) -> Vec<(&'static str, f32)> {
    let map = RetargetMap::new(&source.rig(), &target.rig(), settings).unwrap();
    let (bs, bt) = (character_basis(&source.frame), character_basis(&target.frame));
    let mut out = vec![0.0f32; LIMBS.len()];
    let mut scratch = RetargetScratch::default();
    let mut locals = vec![Xform::IDENTITY; target.rest.len()];
    for step in 0..24 {
        let src = pose(source, step as f32 * std::f32::consts::TAU / 24.0);
        map.run(&src, &mut locals, &mut scratch).unwrap();
        let (ms, mt) = (fk(source, &src), fk(target, &locals));
        for (k, (_, a, b)) in LIMBS.iter().enumerate() {
            let at = |h: &Human, m: &[Xform], n: &str| m[h.names.iter().position(|x| x == n).unwrap()].translation;
            let ds = bs.inverse() * (at(source, &ms, b) - at(source, &ms, a));
            let dt = bt.inverse() * (at(target, &mt, b) - at(target, &mt, a));
            out[k] = out[k].max(ds.angle_between(dt).to_degrees());
        }
    }
    LIMBS.iter().map(|l| l.0).zip(out).collect()
}

#[test]
fn a_rig_retargeted_onto_itself_is_unchanged() {
    let h = human(A_POSE);
    let map = RetargetMap::new(&h.rig(), &h.rig(), RetargetSettings::default()).unwrap();
    assert!((map.scale() - 1.0).abs() < 1e-6 && map.turn().angle_between(Quat::IDENTITY) < 1e-5);
    let mut out = vec![Xform::IDENTITY; h.rest.len()];
    let mut scratch = RetargetScratch::default();
    for step in 0..12 {
        let src = pose(&h, step as f32 * 0.5);
        let frame = map.run(&src, &mut out, &mut scratch).unwrap();
        assert_eq!(frame.feet_reached, [true, true]);
        let (a, b) = (fk(&h, &src), fk(&h, &out));
        let worst = a.iter().zip(&b).map(|(x, y)| x.translation.distance(y.translation)).fold(0.0, f32::max);
        assert!(worst < 1e-4, "step {step}: a joint moved {worst} m");
    }
}

#[test]
fn t_pose_and_a_pose_with_other_bone_axes_keep_every_limb_direction() {
    let a_pose = human(A_POSE);
    let t_pose_axes = human(Style { raise: 60f32.to_radians(), axes: true, ..A_POSE });
    for (source, target, what) in [(&a_pose, &t_pose_axes, "A → T + axes"), (&t_pose_axes, &a_pose, "T + axes → A")]
    {
        let errors = limb_errors(source, target, RetargetSettings { hands: true, ..Default::default() });
        println!("{what}: {errors:?}");
        for (limb, degrees) in errors {
            assert!(degrees < 0.5, "{what}: {limb} off by {degrees:.2}°");
        }
    }
}

#[test]
fn size_facing_and_up_axis_are_matched_and_paths_scaled() {
    let source = human(A_POSE);
    // Half size, Z-up data facing -Y (Blender's), bone axes scrambled, T-pose.
    let turn = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let target = human(Style { raise: 60f32.to_radians(), axes: true, size: 0.5, turn, ..A_POSE });
    let errors = limb_errors(&source, &target, RetargetSettings::default());
    for (limb, degrees) in &errors {
        assert!(*degrees < 0.5, "{limb} off by {degrees:.2}°");
    }
    let map = RetargetMap::new(&source.rig(), &target.rig(), RetargetSettings::default()).unwrap();
    assert!((map.scale() - 0.5).abs() < 1e-4, "scale {}", map.scale());
    // The pelvis moves half as far, along the target's own axes.
    let src = pose(&source, 1.0);
    let mut out = vec![Xform::IDENTITY; target.rest.len()];
    map.run(&src, &mut out, &mut RetargetScratch::default()).unwrap();
    let (ms, mt) = (fk(&source, &src), fk(&target, &out));
    let (rs, rt) = (fk(&source, &source.rest), fk(&target, &target.rest));
    let p = source.rig.pelvis;
    let moved_s = character_basis(&source.frame).inverse() * (ms[p].translation - rs[p].translation);
    let moved_t = character_basis(&target.frame).inverse() * (mt[p].translation - rt[p].translation);
    assert!((moved_t - moved_s * 0.5).length() < 1e-4, "{moved_s} vs {moved_t}");
}

/// Knee flexion (degrees) of the left leg in model transforms `m` of `h`.
fn left_knee(h: &Human, m: &[Xform]) -> f32 {
    let [hip, knee, ankle] = [h.rig.legs[0].thigh, h.rig.legs[0].calf, h.rig.legs[0].foot].map(|b| m[b].translation);
    (knee - hip).angle_between(ankle - knee).to_degrees()
}

#[test]
fn a_rest_on_bent_knees_walks_on_the_sources_knees() {
    // The target's rest stands with its knees 8 cm ahead (about 19° bent); the source's knees
    // are nearly straight at rest. Carried from the target's own rest, its feet goals lay out of
    // the reach of the legs the rotations give, the pelvis dropped and the knees bent further.
    let (source, target) = (human(A_POSE), human(Style { knee_forward: 0.08, ..A_POSE }));
    let map = RetargetMap::new(&source.rig(), &target.rig(), RetargetSettings::default()).unwrap();
    let (mut out, mut scratch) = (vec![Xform::IDENTITY; target.rest.len()], RetargetScratch::default());
    let rest_bend = left_knee(&target, &fk(&target, &target.rest));
    assert!(rest_bend > 15.0, "the target's rest knee {rest_bend:.1}°");
    for step in 0..24 {
        let src = pose(&source, step as f32 * std::f32::consts::TAU / 24.0);
        let frame = map.run(&src, &mut out, &mut scratch).unwrap();
        let (knee_s, knee_t) = (left_knee(&source, &fk(&source, &src)), left_knee(&target, &fk(&target, &out)));
        assert!((knee_s - knee_t).abs() < 1.0, "step {step}: knee {knee_t:.1}° against the source's {knee_s:.1}°");
        assert!(frame.feet_reached == [true, true] && frame.pelvis_drop < 0.002, "step {step}: {frame:?}");
    }
}

#[test]
fn feet_hanging_outside_the_shins_are_put_at_the_shins_end() {
    let source = human(A_POSE);
    let target = human(Style { external_feet: true, ..A_POSE });
    let map = RetargetMap::new(&source.rig(), &target.rig(), RetargetSettings::default()).unwrap();
    let mut out = vec![Xform::IDENTITY; target.rest.len()];
    let mut scratch = RetargetScratch::default();
    for step in 0..8 {
        let src = pose(&source, step as f32 * 0.8);
        map.run(&src, &mut out, &mut scratch).unwrap();
        let (ms, mt) = (fk(&source, &src), fk(&target, &out));
        for leg in 0..2 {
            let (ball_s, ball_t) = (source.rig.legs[leg].ball.unwrap(), target.rig.legs[leg].ball.unwrap());
            let (calf, foot) = (target.rig.legs[leg].calf, target.rig.legs[leg].foot);
            let shin = mt[calf].translation.distance(mt[foot].translation);
            let rest_shin = fk(&target, &target.rest);
            let rest_shin = rest_shin[calf].translation.distance(rest_shin[foot].translation);
            assert!((shin - rest_shin).abs() < 1e-4, "shin {shin} vs {rest_shin}");
            assert!(ms[ball_s].translation.distance(mt[ball_t].translation) < 1e-4);
        }
    }
}

#[test]
fn out_of_reach_goals_lower_the_pelvis_or_straighten_the_leg_but_never_stretch_it() {
    // The source's feet hang from its root: moving its pelvis leaves its feet where they were,
    // farther than any leg reaches.
    let source = human(Style { external_feet: true, ..A_POSE });
    let target = human(A_POSE);
    let map = RetargetMap::new(&source.rig(), &target.rig(), RetargetSettings::default()).unwrap();
    let rest = fk(&target, &target.rest);
    let pelvis = target.rig.pelvis;
    for (lift, reachable) in [(Vec3::Y * 0.2, true), (Vec3::Z * 1.5, false)] {
        let mut out = vec![Xform::IDENTITY; target.rest.len()];
        let mut src = source.rest.clone();
        src[source.rig.pelvis].translation += lift;
        let frame = map.run(&src, &mut out, &mut RetargetScratch::default()).unwrap();
        assert!(out.iter().all(Xform::is_finite));
        let model = fk(&target, &out);
        for k in 0..2 {
            let leg = &target.rig.legs[k];
            let [hip, knee, ankle] = [leg.thigh, leg.calf, leg.foot].map(|b| model[b].translation);
            let reach = hip.distance(knee) + knee.distance(ankle);
            assert!((hip.distance(ankle) / reach - frame.leg_extension[k]).abs() < 1e-5);
            assert!(frame.leg_extension[k] <= 1.0 && frame.leg_extension[k] > 0.99, "{lift}: {frame:?}");
            assert_eq!(frame.feet_reached[k], reachable, "{lift}: {frame:?}");
        }
        let moved = model[pelvis].translation - rest[pelvis].translation;
        if reachable {
            // Lowered back to where the straight legs reach the feet: about the rest height.
            assert!(moved.y < 0.01 && moved.y > -0.01, "pelvis moved {moved}");
        } else {
            assert!(moved.z > 1.4, "the pelvis still goes where the source's went: {moved}");
        }
    }
}

#[test]
fn a_lowered_run_drops_the_pelvis_at_least_as_asked_and_lifted_feet_go_down_with_it() {
    let (source, target) = (human(A_POSE), human(A_POSE));
    let map = RetargetMap::new(&source.rig(), &target.rig(), RetargetSettings::default()).unwrap();
    let src = pose(&source, 0.3);
    let mut scratch = RetargetScratch::default();
    let (mut free, mut lowered) = (vec![Xform::IDENTITY; target.rest.len()], vec![Xform::IDENTITY; target.rest.len()]);
    let own = map.run(&src, &mut free, &mut scratch).unwrap();
    let asked = own.pelvis_drop + 0.03;
    let frame = map.run_lowered(&src, &mut lowered, &mut scratch, asked).unwrap();
    assert_eq!(frame.pelvis_drop, asked, "{frame:?}");
    let (a, b) = (fk(&target, &free), fk(&target, &lowered));
    let pelvis = target.rig.pelvis;
    assert!((a[pelvis].translation.y - b[pelvis].translation.y - 0.03).abs() < 1e-4, "lowered 3 cm further");
    assert_eq!(frame.feet_reached, [true; 2], "the bent legs still reach: {frame:?}");
    // A lifted foot goes down with the pelvis, no further than it, and no lower than its floor
    // (its ball at rest height); a foot on its floor stays put.
    let rest = fk(&target, &target.rest);
    for leg in &target.rig.legs {
        let ball = leg.ball.unwrap();
        let down = a[leg.foot].translation - b[leg.foot].translation;
        let above_floor = a[ball].translation.y - rest[ball].translation.y;
        println!("foot {}: {:.2} cm above its floor, lowered {down}", leg.foot, 100.0 * above_floor);
        assert!(down.x.abs() < 1e-3 && down.z.abs() < 1e-3, "only lowered: {down}");
        assert!(down.y > -1e-3 && down.y < 0.03 + 1e-3, "no further than the pelvis: {down}");
        assert!(b[ball].translation.y > rest[ball].translation.y - 1e-3, "not under its floor");
        assert!(above_floor > 0.0 || down.y.abs() < 1e-3, "a foot on its floor stays put: {down}");
    }
    assert!(map.run_lowered(&src, &mut lowered, &mut scratch, f32::NAN).is_err());
}

#[test]
fn bad_rigs_and_poses_are_errors_naming_the_bone() {
    let h = human(A_POSE);
    let mut broken = h.rig.clone();
    broken.legs[0].calf = 99;
    let rig = RetargetRig { rig: &broken, ..h.rig() };
    let err = RetargetMap::new(&h.rig(), &rig, RetargetSettings::default()).unwrap_err();
    assert_eq!(err.character, Character::Target);
    assert!(err.to_string().contains("calf_l") && err.to_string().contains("99"), "{err}");

    let mut swapped = h.rig.clone();
    swapped.legs[1].calf = h.rig.legs[0].calf;
    let rig = RetargetRig { rig: &swapped, ..h.rig() };
    let err = RetargetMap::new(&rig, &h.rig(), RetargetSettings::default()).unwrap_err();
    assert!(err.to_string().starts_with("source rig: right calf `calf_l` is not below thigh `thigh_r`"), "{err}");

    let mut flat = h.rest.clone();
    let calf = h.rig.legs[0].calf;
    flat[calf].translation = Vec3::ZERO;
    let rig = RetargetRig { rest: &flat, ..h.rig() };
    let err = RetargetMap::new(&h.rig(), &rig, RetargetSettings::default()).unwrap_err();
    assert!(err.to_string().contains("`thigh_l` has no length"), "{err}");

    let map = RetargetMap::new(&h.rig(), &h.rig(), RetargetSettings::default()).unwrap();
    let mut out = vec![Xform::IDENTITY; h.rest.len()];
    let mut pose = h.rest.clone();
    pose[3].rotation = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
    assert_eq!(map.run(&pose, &mut out, &mut RetargetScratch::default()), Err(IkError::NonFiniteInput));
    assert!(out.iter().all(|x| *x == Xform::IDENTITY), "output untouched");
    let short = &h.rest[..4];
    assert!(matches!(map.run(short, &mut out, &mut RetargetScratch::default()), Err(IkError::LengthMismatch { .. })));
}
