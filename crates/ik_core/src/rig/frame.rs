//! The character's frame in model space, measured from a rig's rest positions: which way is
//! up, forward and left, how tall the character is and how long its legs are.

use glam::Vec3;

use super::HumanoidRig;
use super::tree::Tree;

/// What the forward direction of a [`RigFrame`] was measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForwardSource {
    /// The feet: ankle → ball of the foot, both feet summed (the most reliable cue).
    Toes,
    /// The knees' slight forward bend off the hip–ankle line (rigs without toe bones).
    Knees,
    /// The elbows' slight backward bend off the shoulder–hand line.
    Elbows,
    /// The side names: left is where the bones named left are (name matches only).
    Names,
    /// Nothing showed it; the convention was assumed: the model's +Z when up is mostly ±Y or
    /// ±X (glTF), −Y when up is mostly ±Z (Blender). Sides found by shape alone may be swapped.
    Assumed,
}

/// The character's frame: unit vectors in the given model space and sizes in its units.
///
/// `left = up × forward`, so for +Y up and +Z forward, left is +X.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigFrame {
    /// Up: the pelvis → head direction, snapped to the model axis within 45° of it (+Y when
    /// that is degenerate).
    pub up: Vec3,
    /// Forward, perpendicular to `up`.
    pub forward: Vec3,
    /// The character's left: `up × forward`.
    pub left: Vec3,
    /// What `forward` was measured from.
    pub forward_from: ForwardSource,
    /// Lowest bone of the legs to the highest bone of the head (the head-top end bone if the
    /// rig has one, else the head joint), along `up`.
    pub height: f32,
    /// Thigh → calf → foot bone lengths, the mean of both legs.
    pub leg_length: f32,
}

/// The forward direction the convention assumes for an up direction (see [`ForwardSource::Assumed`]).
pub(crate) fn assumed_forward(up: Vec3) -> Vec3 {
    let a = up.abs();
    let f = if a.z > a.y && a.z >= a.x { Vec3::NEG_Y } else { Vec3::Z };
    let f = f - up * f.dot(up);
    if f.length_squared() > 1e-6 { f.normalize() } else { up.any_orthonormal_vector() }
}

/// `dir` (unit) snapped to the model axis within 45° of it, if one is: a head leaning ahead of
/// the pelvis (a dinosaur's, a hunched rest pose) does not tilt the character's up off the
/// model's own (glTF's +Y, a Blender armature's +Z).
fn nearest_axis(dir: Vec3) -> Vec3 {
    let a = dir.abs();
    let (largest, axis) = if a.x >= a.y && a.x >= a.z {
        (a.x, Vec3::X * dir.x.signum())
    } else if a.y >= a.z {
        (a.y, Vec3::Y * dir.y.signum())
    } else {
        (a.z, Vec3::Z * dir.z.signum())
    };
    if largest > core::f32::consts::FRAC_1_SQRT_2 { axis } else { dir }
}

/// The part of `v` perpendicular to every unit vector in `axes` (applied in order).
fn reject(v: Vec3, axes: &[Vec3]) -> Vec3 {
    axes.iter().fold(v, |v, a| v - *a * v.dot(*a))
}

/// The offset of `mid` from the line `a → b`.
fn bend(tree: &Tree, a: usize, mid: usize, b: usize) -> Vec3 {
    let (pa, pm, pb) = (tree.pos[a], tree.pos[mid], tree.pos[b]);
    let ab = pb - pa;
    let t = if ab.length_squared() > 0.0 { (pm - pa).dot(ab) / ab.length_squared() } else { 0.0 };
    pm - (pa + ab * t)
}

/// Measures the frame of `rig` (bone indices into `tree`). `sided` says whether the rig's
/// `[left, right]` order is known (from names) and may give forward when nothing else does.
pub(crate) fn measure(tree: &Tree, rig: &HumanoidRig<usize>, sided: bool) -> RigFrame {
    let p = |b: usize| tree.pos[b];
    let up = nearest_axis((p(rig.head) - p(rig.pelvis)).try_normalize().unwrap_or(Vec3::Y));
    let leg_length = rig.legs.iter().map(|l| tree.seg(l.thigh, l.calf) + tree.seg(l.calf, l.foot)).sum::<f32>() / 2.0;
    let across = (p(rig.legs[0].thigh) - p(rig.legs[1].thigh)).try_normalize();
    let lateral = across.map(|a| reject(a, &[up]).try_normalize().unwrap_or(Vec3::ZERO)).unwrap_or(Vec3::ZERO);
    let small = leg_length.max(f32::MIN_POSITIVE);

    let toes: Vec3 = rig.legs.iter().filter_map(|l| l.ball.map(|b| reject(p(b) - p(l.foot), &[up]))).sum();
    let knees: Vec3 = rig.legs.iter().map(|l| reject(bend(tree, l.thigh, l.calf, l.foot), &[up, lateral])).sum();
    let elbows: Vec3 =
        rig.arms.iter().flatten().map(|a| reject(bend(tree, a.upper, a.lower, a.hand), &[up, lateral])).sum();
    let (forward, forward_from) = if toes.length() > 0.05 * small {
        (toes, ForwardSource::Toes)
    } else if knees.length() > 0.005 * small {
        (knees, ForwardSource::Knees)
    } else if elbows.length() > 0.005 * small {
        (-elbows, ForwardSource::Elbows)
    } else if sided && lateral != Vec3::ZERO {
        (lateral.cross(up), ForwardSource::Names)
    } else {
        (assumed_forward(up), ForwardSource::Assumed)
    };
    let forward = reject(forward, &[up]).try_normalize().unwrap_or_else(|| assumed_forward(up));
    let left = up.cross(forward).normalize_or_zero();

    let top = tree.subtree(rig.head).iter().map(|&b| p(b).dot(up)).fold(f32::MIN, f32::max);
    // The legs' subtrees, and the feet's own (an IK-control foot hangs outside the thigh's).
    let bottom = rig
        .legs
        .iter()
        .flat_map(|l| tree.subtree(l.thigh).into_iter().chain(tree.subtree(l.foot)))
        .map(|b| p(b).dot(up))
        .fold(f32::MAX, f32::min);
    RigFrame { up, forward, left, forward_from, height: (top - bottom).max(0.0), leg_length }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_leaning_ahead_of_the_pelvis_keeps_the_model_s_up() {
        // The Mesh2Motion kaiju: hips (0, 0.80, -0.39), head (0, 2.00, 0.46): 35° forward.
        let lean = (Vec3::new(0.0, 2.002, 0.461) - Vec3::new(0.0, 0.802, -0.386)).normalize();
        assert_eq!(nearest_axis(lean), Vec3::Y);
        // A Blender armature's +Z, and -Y, stay what they are; a direction 50° off every axis too.
        assert_eq!(nearest_axis(Vec3::new(0.1, 0.2, 0.97).normalize()), Vec3::Z);
        assert_eq!(nearest_axis(-Vec3::Y), -Vec3::Y);
        let between = Vec3::new(1.0, 1.0, 0.3).normalize();
        assert_eq!(nearest_axis(between), between);
    }
}
