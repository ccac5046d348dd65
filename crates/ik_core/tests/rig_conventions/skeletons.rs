//! The synthetic humanoids the rig tests name and turn: the canonical 1.8 m skeleton, the
//! asset generator's mannequin, and their IK-control variants (feet under the root or a
//! control bone).

use std::sync::OnceLock;

use ik_core::glam::{Quat, Vec3};

/// A canonical bone: key, parent key, rest position.
pub type Bone = (&'static str, Option<&'static str>, Vec3);

/// The sides: key suffix and the sign of X (left = +X).
const SIDES: [(&str, f32); 2] = [("l", 1.0), ("r", -1.0)];

/// `side_key("thigh", "l")` is `"thigh_l"`, as the `'static` key a [`Bone`] holds.
fn side_key(key: &str, side: &str) -> &'static str {
    Box::leak(format!("{key}_{side}").into_boxed_str())
}

/// Bone keys, parent keys and rest positions (metres, +Y up, facing +Z, left = +X). Arms in
/// T-pose; `a_pose` swings them 45° down about the shoulder.
pub fn skeleton(a_pose: bool, toes: bool) -> Vec<Bone> {
    let v = Vec3::new;
    let mut out = vec![
        ("root", None, v(0.0, 0.0, 0.0)),
        ("pelvis", Some("root"), v(0.0, 0.95, 0.0)),
        ("spine0", Some("pelvis"), v(0.0, 1.05, 0.0)),
        ("spine1", Some("spine0"), v(0.0, 1.17, 0.0)),
        ("spine2", Some("spine1"), v(0.0, 1.30, 0.0)),
        ("neck", Some("spine2"), v(0.0, 1.50, 0.0)),
        ("head", Some("neck"), v(0.0, 1.60, 0.0)),
        ("head_end", Some("head"), v(0.0, 1.80, 0.0)),
    ];
    for (s, x) in SIDES {
        let side = |k: &str| side_key(k, s);
        let shoulder = v(0.17 * x, 1.45, 0.0);
        let turn = Quat::from_rotation_z(if a_pose { -x * std::f32::consts::FRAC_PI_4 } else { 0.0 });
        let arm = |d: Vec3| shoulder + turn * v(d.x * x, d.y, d.z);
        out.extend([
            (side("clav"), Some("spine2"), v(0.04 * x, 1.44, 0.02)),
            (side("upper"), Some(side("clav")), arm(v(0.0, 0.0, 0.0))),
            (side("upper_twist"), Some(side("upper")), arm(v(0.14, 0.0, -0.005))),
            (side("lower"), Some(side("upper")), arm(v(0.28, 0.0, -0.01))),
            (side("hand"), Some(side("lower")), arm(v(0.54, 0.0, 0.0))),
            (side("index1"), Some(side("hand")), arm(v(0.625, 0.0, 0.025))),
            (side("index2"), Some(side("index1")), arm(v(0.66, 0.0, 0.025))),
            (side("middle1"), Some(side("hand")), arm(v(0.63, 0.0, 0.0))),
            (side("middle2"), Some(side("middle1")), arm(v(0.67, 0.0, 0.0))),
            (side("thumb1"), Some(side("hand")), arm(v(0.56, -0.01, 0.03))),
            (side("thigh"), Some("pelvis"), v(0.1 * x, 0.93, 0.0)),
            (side("thigh_twist"), Some(side("thigh")), v(0.1 * x, 0.72, 0.007)),
            (side("calf"), Some(side("thigh")), v(0.1 * x, 0.50, 0.015)),
            (side("foot"), Some(side("calf")), v(0.1 * x, 0.08, -0.01)),
        ]);
        if toes {
            out.push((side("ball"), Some(side("foot")), v(0.1 * x, 0.02, 0.13)));
            out.push((side("toe_end"), Some(side("ball")), v(0.1 * x, 0.02, 0.20)));
        }
    }
    out
}

/// The mannequin of the asset generator (`ik_tool mannequin`), reproduced: 23 bones, no end,
/// twist or finger bones, knees 2 cm forward, the balls on the floor; `raise` lifts the upper
/// arms about the model's Z axis from its 30° A-pose (60° = T-pose, 15° = 45° A-pose).
pub fn mannequin(raise_deg: f32) -> Vec<Bone> {
    let v = Vec3::new;
    let mut out: Vec<Bone> = vec![
        ("root", None, Vec3::ZERO),
        ("pelvis", Some("root"), v(0.0, 0.96, 0.0)),
        ("spine0", Some("pelvis"), v(0.0, 1.05, -0.005)),
        ("spine1", Some("spine0"), v(0.0, 1.17, -0.01)),
        ("spine2", Some("spine1"), v(0.0, 1.30, -0.005)),
        ("neck", Some("spine2"), v(0.0, 1.49, -0.02)),
        ("head", Some("neck"), v(0.0, 1.60, 0.0)),
    ];
    let angle = 30f32.to_radians();
    let upper_dir = v(angle.sin(), -angle.cos(), -0.06).normalize();
    let fore_dir = v(angle.sin(), -angle.cos(), 0.14).normalize();
    let raise = Quat::from_rotation_z(raise_deg.to_radians());
    let mirror = |p: Vec3, x: f32| v(p.x * x, p.y, p.z);
    // The generator's order: both arms, then both legs.
    for (s, x) in SIDES {
        let side = |k: &str| side_key(k, s);
        let shoulder = v(0.175, 1.445, -0.02);
        let elbow = shoulder + raise * upper_dir * 0.285;
        let wrist = elbow + raise * fore_dir * 0.265;
        out.extend([
            (side("clav"), Some("spine2"), mirror(v(0.025, 1.44, 0.015), x)),
            (side("upper"), Some(side("clav")), mirror(shoulder, x)),
            (side("lower"), Some(side("upper")), mirror(elbow, x)),
            (side("hand"), Some(side("lower")), mirror(wrist, x)),
        ]);
    }
    for (s, x) in SIDES {
        let side = |k: &str| side_key(k, s);
        out.extend([
            (side("thigh"), Some("pelvis"), mirror(v(0.09, 0.915, 0.0), x)),
            (side("calf"), Some(side("thigh")), mirror(v(0.09, 0.50, 0.02), x)),
            (side("foot"), Some(side("calf")), mirror(v(0.09, 0.08, -0.01), x)),
            (side("ball"), Some(side("foot")), mirror(v(0.09, 0.0, 0.125), x)),
        ]);
    }
    out
}

/// The mannequin's bone keys in the generator's skeleton order, then its control bone
/// (`foot_control`, 23rd).
pub fn mannequin_keys() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| mannequin(0.0).into_iter().map(|b| b.0).chain(["foot_control"]).collect())
}

/// Where the feet hang in an IK-control variant of a skeleton.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Feet {
    /// Under the shins, as usual.
    Shins,
    /// Under the root bone.
    Root,
    /// Under an extra `foot_control` bone at the origin, child of the root (a root itself
    /// when there is no root bone).
    Control,
    /// The left foot under a `foot_control` bone at the foot's rest position, the right one
    /// under the root (or the same control bone without a root).
    ControlAtFoot,
}

/// `canon` with its feet hung as `feet` says, and without the root bone unless `root`.
pub fn rehang(canon: Vec<Bone>, feet: Feet, root: bool) -> Vec<Bone> {
    let top = if root { Some("root") } else { None };
    let at = |k: &str| canon.iter().find(|c| c.0 == k).map_or(Vec3::ZERO, |c| c.2);
    let control = match feet {
        Feet::Shins | Feet::Root => None,
        Feet::Control => Some(Vec3::ZERO),
        Feet::ControlAtFoot => Some(at("foot_l")),
    };
    let mut out: Vec<Bone> = canon
        .iter()
        .filter(|c| root || c.0 != "root")
        .map(|&(k, parent, p)| {
            let parent = match (k, feet) {
                ("foot_l" | "foot_r", Feet::Root) => top,
                ("foot_l" | "foot_r", Feet::Control) | ("foot_l", Feet::ControlAtFoot) => Some("foot_control"),
                ("foot_r", Feet::ControlAtFoot) => top.or(Some("foot_control")),
                _ => parent,
            };
            (k, parent, p)
        })
        .collect();
    if let Some(p) = control {
        out.push(("foot_control", top, p));
    }
    out
}
