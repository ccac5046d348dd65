//! [`rig_creature`]: a creature's legs, body, spine, head and tail from its skeleton's shape
//! alone, whatever the bones are called (the Khronos Fox names its front legs as arms).
//!
//! **Method.** Up is the model's +Y or +Z (glTF's and Blender's): the one that finds two chains
//! or more of two segments or more reaching the ground, and of those the one that makes them
//! hang most (their descents below their highest bones, summed), +Y on a tie. A Blender biped's
//! toes reach the "ground" ahead along +Y, but only by a foot's length; a dinosaur's tail lies
//! on the ground behind along +Z, but alone; an IK control off the root is a single segment.
//! The legs are the chains that descend from the body to the lowest end bones (see
//! `creature_legs.rs`); the body is the bone all of them hang from; sides, forward, the legs'
//! order and the spine, head and tail come from the rest pose (see `creature_frame.rs`). Every
//! threshold is relative to the skeleton.
//!
//! Inputs: every bone as a [`SkeletonBone`] (the input of [`rig_humanoid`](super::rig_humanoid)).
//! Outputs: a [`CreatureReport`] — or one [`RigError`] naming what was found and the remedy.
//! Invariants: legs come in pairs, front to back, left before right; no bone is in two legs;
//! never panics on any input. A biped is a creature of one pair (birds, robots, humanoids:
//! [`rig_humanoid`](super::rig_humanoid) gives a humanoid its arms and head as well).

use core::fmt::Write as _;

use glam::Vec3;

use super::Side;
use super::creature_frame::{layout, leg_front, trunk};
use super::creature_legs::{LegChain, find_legs};
use super::error::RigError;
use super::report::SkeletonBone;
use super::tree::Tree;

/// One leg of a creature, hip first.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatureLeg<T> {
    /// The body side it is on.
    pub side: Side,
    /// Its pair, front to back (0 = the front legs).
    pub pair: usize,
    /// The bone the hip hangs from: a pelvis, a chest, a spider's anchor.
    pub carrier: T,
    /// The leg's bones from the hip (first) to the end bone at the ground (last).
    pub bones: Vec<T>,
    /// The foot: where the last long link that runs steeply down ends (the hoof, paw or ankle).
    pub foot: T,
    /// The bone after the foot, if any (a toe, a toe's end bone).
    pub toe: Option<T>,
    /// Links from the hip to the foot of at least a tenth of the leg's length: 2 for a fox's
    /// front legs, 3 for its hind legs, 4 for a horse's.
    pub segments: usize,
    /// Length along the bones from the hip to the end bone, in model units.
    pub length: f32,
}

/// What the forward direction of a [`CreatureFrame`] was measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CreatureForward {
    /// The hierarchy: the head's chain passes the front legs' carrier, or the tail hangs from
    /// above the body.
    HeadChain,
    /// The feet's end bones, ahead of the foot bones.
    Toes,
    /// The head's end is higher than the tail's.
    HeadHigher,
    /// Nothing showed it: glTF's +Z (−Y for a Z-up skeleton) was assumed.
    Assumed,
}

/// A creature's body frame and size: unit vectors in the given model space, lengths in its units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreatureFrame {
    /// Up: the model's +Y or +Z.
    pub up: Vec3,
    /// Forward, perpendicular to `up`.
    pub forward: Vec3,
    /// The creature's left: `up × forward`.
    pub left: Vec3,
    /// What `forward` was measured from.
    pub forward_from: CreatureForward,
    /// The height along `up` of the lowest leg end (the ground in the rest pose).
    pub ground: f32,
    /// The body bone's height above `ground`.
    pub body_height: f32,
    /// The legs' mean length along their bones.
    pub leg_length: f32,
}

/// The bones of a creature rig.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatureRig<T> {
    /// The bone every leg hangs from (a pelvis, the spine's root).
    pub body: T,
    /// The body to the bone that carries the front pair (the body alone when it carries them).
    pub spine: Vec<T>,
    /// The legs, pair by pair from the front, left before right: `legs.chunks(2)` are the pairs.
    pub legs: Vec<CreatureLeg<T>>,
    /// The neck and head, from the spine out, the head last (empty when none was told).
    pub head: Vec<T>,
    /// The tail, from the body out (empty when none reaches behind the rear legs).
    pub tail: Vec<T>,
}

impl<T: Copy> CreatureRig<T> {
    /// The number of leg pairs.
    pub fn pairs(&self) -> usize {
        self.legs.len() / 2
    }

    fn map<U>(&self, f: impl Fn(T) -> U) -> CreatureRig<U> {
        let all = |v: &[T]| v.iter().map(|&b| f(b)).collect::<Vec<U>>();
        CreatureRig {
            body: f(self.body),
            spine: all(&self.spine),
            legs: self
                .legs
                .iter()
                .map(|l| CreatureLeg {
                    side: l.side,
                    pair: l.pair,
                    carrier: f(l.carrier),
                    bones: all(&l.bones),
                    foot: f(l.foot),
                    toe: l.toe.map(&f),
                    segments: l.segments,
                    length: l.length,
                })
                .collect(),
            head: all(&self.head),
            tail: all(&self.tail),
        }
    }
}

/// A rig found by [`rig_creature`], with the creature's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatureReport<T> {
    /// The rig, in the caller's handles.
    pub rig: CreatureRig<T>,
    /// The same rig as indices into the bone slice.
    pub indices: CreatureRig<usize>,
    /// Up, forward, left, ground and sizes in the given model space.
    pub frame: CreatureFrame,
    /// Every bone's name, by index (for [`CreatureReport::summary`]).
    pub names: Vec<String>,
}

impl<T> CreatureReport<T> {
    /// What was found, one line per part: body and frame, spine, each leg (pair, side, bones
    /// hip to ground, segments, foot, carrier), head and tail.
    ///
    /// ```
    /// # use ik_core::rig::*;
    /// # fn show(report: &CreatureReport<usize>) {
    /// println!("{}", report.summary());
    /// # }
    /// ```
    pub fn summary(&self) -> String {
        let (rig, f) = (&self.indices, &self.frame);
        let name = |b: usize| self.names.get(b).map_or("?", String::as_str);
        let list = |v: &[usize]| {
            if v.is_empty() { "none".into() } else { v.iter().map(|&b| name(b)).collect::<Vec<_>>().join(" > ") }
        };
        let v = |v: Vec3| format!("({:.2}, {:.2}, {:.2})", v.x, v.y, v.z);
        let mut out = format!(
            "body {}: {} pairs of legs {:.3} long, body {:.3} above the ground; up {}, forward {} (from {:?}), \
             left {}\n",
            name(rig.body),
            rig.pairs(),
            f.leg_length,
            f.body_height,
            v(f.up),
            v(f.forward),
            f.forward_from,
            v(f.left)
        );
        let _ = writeln!(out, "spine: {}", list(&rig.spine));
        for l in &rig.legs {
            let side = if l.side == Side::Left { "left " } else { "right" };
            let toe = l.toe.map_or(String::new(), |t| format!(", toe {}", name(t)));
            let _ = writeln!(
                out,
                "pair {} {side}: {} ({} segments, foot {}{toe}; on {})",
                l.pair,
                list(&l.bones),
                l.segments,
                name(l.foot),
                name(l.carrier)
            );
        }
        let _ = writeln!(out, "head: {}", list(&rig.head));
        let _ = write!(out, "tail: {}", list(&rig.tail));
        out
    }
}

/// Rigs a creature of any number of leg pairs from its skeleton's shape (see the module doc).
///
/// ```
/// use ik_core::glam::Vec3;
/// use ik_core::rig::{SkeletonBone, rig_creature};
///
/// // A table-like creature: a body with four two-segment legs whose feet point ahead (+Z), and
/// // a neck and head in front.
/// let mut bones = vec![SkeletonBone { handle: 0, name: "body", parent: None, rest: Vec3::new(0.0, 1.0, 0.0) }];
/// for (x, z) in [(0.3, 0.5), (-0.3, 0.5), (0.3, -0.5), (-0.3, -0.5)] {
///     let top = bones.len();
///     for (k, (y, ahead)) in [(1.0, 0.0), (0.5, 0.1), (0.0, 0.15)].into_iter().enumerate() {
///         let parent = Some(if k == 0 { 0 } else { top + k - 1 });
///         bones.push(SkeletonBone { handle: top + k, name: "", parent, rest: Vec3::new(x, y, z + ahead) });
///     }
/// }
/// bones.push(SkeletonBone { handle: 13, name: "neck", parent: Some(0), rest: Vec3::new(0.0, 1.2, 0.6) });
/// bones.push(SkeletonBone { handle: 14, name: "head", parent: Some(13), rest: Vec3::new(0.0, 1.5, 0.8) });
/// let report = rig_creature(&bones).unwrap();
/// assert_eq!(report.rig.pairs(), 2);
/// assert_eq!(report.frame.forward, Vec3::Z);
/// assert_eq!(report.rig.legs[0].bones, vec![1, 2, 3]); // front left (+X), hip to foot
/// assert_eq!(report.rig.legs[0].segments, 2);
/// ```
pub fn rig_creature<T: Copy>(bones: &[SkeletonBone<'_, T>]) -> Result<CreatureReport<T>, RigError> {
    let tree = Tree::new(
        bones.iter().map(|b| b.parent).collect(),
        bones.iter().map(|b| b.rest).collect(),
        bones.iter().map(|b| b.name.to_string()).collect(),
    )
    .map_err(|reason| RigError::BadSkeleton { reason })?;
    let (up, legs) = [Vec3::Y, Vec3::Z]
        .into_iter()
        .map(|up| (up, find_legs(&tree, up)))
        .reduce(|best, next| if hang(&next.1) > hang(&best.1) { next } else { best })
        .unwrap_or((Vec3::Y, Vec::new()));
    let (indices, frame) = assemble(&tree, up, legs)?;
    let rig = indices.map(|b| bones[b].handle);
    Ok(CreatureReport { rig, indices, frame, names: tree.names })
}

/// How well the chains found for an up are legs: whether two or more of them have two
/// segments or more, then their descents summed.
fn hang(legs: &[LegChain]) -> (bool, f32) {
    let usable = legs.iter().filter(|l| l.segments >= 2);
    (usable.clone().count() >= 2, usable.map(|l| l.descent).sum())
}

/// How a bone is named in messages.
fn label(tree: &Tree, b: usize) -> String {
    if tree.names[b].is_empty() { format!("#{b} (unnamed)") } else { tree.names[b].clone() }
}

/// The rig from the legs found for `up`, or why they are no creature's.
fn assemble(tree: &Tree, up: Vec3, legs: Vec<LegChain>) -> Result<(CreatureRig<usize>, CreatureFrame), RigError> {
    let ends = |legs: &[&LegChain]| legs.iter().map(|l| label(tree, l.end())).collect::<Vec<_>>();
    if legs.len() < 2 {
        let unsided = ends(&legs.iter().collect::<Vec<_>>());
        return Err(RigError::UnpairedLegs { left: Vec::new(), right: Vec::new(), unsided });
    }
    let body = legs.iter().try_fold(None, |acc: Option<usize>, l| {
        let c = l.carrier?;
        match acc {
            None => Some(Some(c)),
            Some(a) => tree.lca(a, c).map(Some),
        }
    });
    let Some(Some(body)) = body else {
        let all = ends(&legs.iter().collect::<Vec<_>>()).join(", ");
        return Err(RigError::BadSkeleton {
            reason: format!("the legs ending at {all} hang from separate root bones: no body bone carries them all"),
        });
    };
    let plan = layout(tree, up, body, &legs);
    let mut sided: [Vec<&LegChain>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for (l, s) in legs.iter().zip(&plan.sides) {
        sided[match s {
            Some(Side::Left) => 0,
            Some(Side::Right) => 1,
            None => 2,
        }]
        .push(l);
    }
    for side in &mut sided {
        side.sort_by(|a, b| leg_front(tree, plan.forward, b).total_cmp(&leg_front(tree, plan.forward, a)));
    }
    let [left, right, middle] = &sided;
    if !middle.is_empty() || left.len() != right.len() {
        return Err(RigError::UnpairedLegs { left: ends(left), right: ends(right), unsided: ends(middle) });
    }
    let ordered: Vec<LegChain> = left.iter().zip(right).flat_map(|(a, b)| [(*a).clone(), (*b).clone()]).collect();
    let stiff: Vec<&LegChain> = ordered.iter().filter(|l| l.segments < 2).collect();
    if !stiff.is_empty() {
        return Err(RigError::StiffLegs { legs: ends(&stiff) });
    }
    let [spine, head, tail] = trunk(tree, up, plan.forward, body, &ordered);
    let leg_length = ordered.iter().map(|l| l.length).sum::<f32>() / ordered.len() as f32;
    let ground = ordered.iter().map(|l| tree.pos[l.end()].dot(up)).fold(f32::MAX, f32::min);
    let body_height = tree.pos[body].dot(up) - ground;
    let out_legs = ordered
        .iter()
        .enumerate()
        .map(|(i, l)| CreatureLeg {
            side: if i % 2 == 0 { Side::Left } else { Side::Right },
            pair: i / 2,
            carrier: l.carrier.unwrap_or(body),
            bones: l.bones.clone(),
            foot: l.bones[l.foot],
            toe: l.bones.get(l.foot + 1).copied(),
            segments: l.segments,
            length: l.length,
        })
        .collect();
    let frame = CreatureFrame {
        up,
        forward: plan.forward,
        left: plan.left,
        forward_from: plan.forward_from,
        ground,
        body_height,
        leg_length,
    };
    Ok((CreatureRig { body, spine, legs: out_legs, head, tail }, frame))
}
