//! A clip in a world frame that travels: the frames the contact labels and the slide removal
//! see, and the contact labels themselves.
//!
//! Method: the clip is sampled at its [`Timeline`] into per-frame locals of every node (nodes
//! reordered parents first: "bones"). The character travels at a *root velocity*: for a clip
//! with root motion (the pelvis's mean horizontal velocity `m` over the clip is above
//! [`IN_PLACE_SPEED`]) that is `m`; for an in-place clip it is `nominal × forward`, where
//! forward is the horizontal direction the feet point in (foot joint → ball, both feet, rest
//! pose; glTF's +Z if that is degenerate), the nominal speed coming from `--root-speed`, the animation's `extras`, the `.ik.json`
//! sidecar, or else estimated from the planted toe's backward speed. Playing the clip while the
//! character travels at `scale ×` that velocity means adding `scale·V − m` (times the frame's
//! time) to the translation of the pelvis's top node, so world positions are those of the
//! travelling character. A looping clip (first and last frame the same pose) is tiled three
//! times so labels and solves see its neighbours across the seam; the middle copy is used.
//!
//! Contacts per foot: the ball's world positions are labelled with
//! [`ik_core::contact::label_contacts`] (speed and height thresholds, majority vote) over a
//! floor at the lowest ball height of the clip, then smoothed into a 0..1 signal with
//! [`ik_core::contact::smooth_contacts`].
//!
//! Invariants: the source locals are never modified (travel is added to copies); every output
//! is finite; labels always come from the travel at the clip's own speed (`scale` 1), because
//! that is where its planted feet stand still.

use glam::Vec3;
use ik_core::contact::{ContactSettings, label_contacts, smooth_contacts, toe_speed};
use ik_core::{IkError, Xform};

use crate::gltf_read::{Clip, Document};
use crate::json::Json;
use crate::legs::Legs;
use crate::sample::{Timeline, pose_at, timeline};

/// Mean horizontal pelvis speed below which a clip counts as in place, m/s.
pub const IN_PLACE_SPEED: f32 = 0.05;

/// A clip sampled into per-frame locals.
#[derive(Clone, Debug)]
pub struct Sampled {
    /// The frames.
    pub timeline: Timeline,
    /// Parent bone of each bone (bones are the file's nodes, parents first).
    pub parents: Vec<Option<usize>>,
    /// Node index of each bone.
    pub node_of_bone: Vec<usize>,
    /// Bone index of each node.
    pub bone_of_node: Vec<usize>,
    /// `frames × bones` locals, frame-major, without added travel.
    pub locals: Vec<Xform>,
    /// First and last frame hold the same pose (rotations within 0.5°, translations 1 mm).
    pub looping: bool,
}

impl Sampled {
    /// Number of bones.
    pub fn bones(&self) -> usize {
        self.parents.len()
    }

    /// The top bone (no parent) above `bone`.
    pub fn top_of(&self, mut bone: usize) -> usize {
        while let Some(p) = self.parents[bone] {
            bone = p;
        }
        bone
    }
}

/// Samples `clip` of `doc` at its timeline.
pub fn sample_clip(doc: &Document, clip: &Clip) -> Sampled {
    let timeline = timeline(clip);
    let node_of_bone = doc.order.clone();
    let mut bone_of_node = vec![0; doc.nodes.len()];
    for (b, &n) in node_of_bone.iter().enumerate() {
        bone_of_node[n] = b;
    }
    let parents = node_of_bone.iter().map(|&n| doc.nodes[n].parent.map(|p| bone_of_node[p])).collect();
    let rest: Vec<Xform> = doc.nodes.iter().map(|n| n.rest).collect();
    let mut by_node = rest.clone();
    let bones = node_of_bone.len();
    let mut locals = Vec::with_capacity(timeline.frames * bones);
    for f in 0..timeline.frames {
        pose_at(&rest, clip, timeline.time(f), timeline.resampled, &mut by_node);
        locals.extend(node_of_bone.iter().map(|&n| by_node[n]));
    }
    let last = (timeline.frames - 1) * bones;
    let looping = timeline.frames > 2
        && (0..bones).all(|b| {
            let (a, z) = (locals[b], locals[last + b]);
            a.rotation.dot(z.rotation).abs() >= (0.25f32.to_radians()).cos()
                && a.translation.distance(z.translation) <= 1e-3
                && a.scale.distance(z.scale) <= 1e-3
        });
    Sampled { timeline, parents, node_of_bone, bone_of_node, locals, looping }
}

/// How fast the character travels while the clip plays.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMotion {
    /// The clip's own mean horizontal pelvis velocity, m/s (about zero in place).
    pub clip_velocity: Vec3,
    /// The velocity the clip is authored for, m/s (`m` with root motion, else nominal × forward).
    pub velocity: Vec3,
    /// Where the speed came from, for the printout.
    pub source: String,
    /// True for an in-place clip (its travel comes from outside the clip).
    pub in_place: bool,
}

impl RootMotion {
    /// Velocity added to the top node so the character travels at `scale ×` [`Self::velocity`].
    pub fn added_velocity(&self, scale: f32) -> Vec3 {
        self.velocity * scale - self.clip_velocity
    }
}

/// World transforms of every frame of `locals` with `added` velocity on bone `top`.
pub fn world_frames(
    parents: &[Option<usize>],
    locals: &[Xform],
    dt: f32,
    top: usize,
    added: Vec3,
) -> Result<Vec<Xform>, IkError> {
    let bones = parents.len();
    let mut model = vec![Xform::IDENTITY; locals.len()];
    let mut frame = vec![Xform::IDENTITY; bones];
    for (f, (l, m)) in locals.chunks_exact(bones).zip(model.chunks_exact_mut(bones)).enumerate() {
        frame.copy_from_slice(l);
        frame[top].translation += added * (f as f32 * dt);
        ik_core::skeleton::forward_kinematics(parents, &frame, &Xform::IDENTITY, m)?;
    }
    Ok(model)
}

/// Adds `velocity × (frame time)` (world, m/s) to the position of `bone` on every frame of
/// `locals` (`frames × bones`), converted into its parent's frame.
pub fn add_travel(
    parents: &[Option<usize>],
    locals: &mut [Xform],
    bone: usize,
    velocity: Vec3,
    dt: f32,
) -> Result<(), IkError> {
    let bones = parents.len();
    let mut model = vec![Xform::IDENTITY; bones];
    for (f, frame) in locals.chunks_exact_mut(bones).enumerate() {
        let offset = velocity * (f as f32 * dt);
        match parents[bone] {
            None => frame[bone].translation += offset,
            Some(p) => {
                ik_core::skeleton::forward_kinematics(parents, frame, &Xform::IDENTITY, &mut model)?;
                let parent = model[p];
                frame[bone].translation += parent.inverse_transform_point(parent.translation + offset);
            }
        }
    }
    Ok(())
}

/// The sequence a solve or labelling runs over: `locals` (`frames × bones`) tiled three times
/// when `looping` (sequence frame `j` shows frame `j mod (frames − 1)`), else `locals` itself;
/// and the index of the sequence frame that is frame 0 of the copy to keep.
pub fn sequence(locals: &[Xform], bones: usize, looping: bool) -> (Vec<Xform>, usize) {
    let n = locals.len() / bones.max(1);
    if !looping || n < 2 {
        return (locals.to_vec(), 0);
    }
    let intervals = n - 1;
    let mut out = Vec::with_capacity((3 * intervals + 1) * bones);
    for j in 0..=3 * intervals {
        let f = j % intervals;
        out.extend_from_slice(&locals[f * bones..(f + 1) * bones]);
    }
    (out, intervals)
}

/// Finds how fast the clip travels (see the module docs). `flag` is `--root-speed`; `sidecar`
/// the parsed `.ik.json` next to the file, if any.
pub fn root_motion(
    doc: &Document,
    clip: &Clip,
    sampled: &Sampled,
    legs: &Legs,
    flag: Option<f32>,
    sidecar: Option<&Json>,
) -> Result<RootMotion, IkError> {
    let bones = sampled.bones();
    let pelvis = sampled.bone_of_node[legs.pelvis];
    let world = world_frames(&sampled.parents, &sampled.locals, 1.0 / sampled.timeline.rate, 0, Vec3::ZERO)?;
    let at = |f: usize, b: usize| world[f * bones + b].translation;
    let last = sampled.timeline.frames - 1;
    let duration = sampled.timeline.duration().max(1e-6);
    let mut clip_velocity = (at(last, pelvis) - at(0, pelvis)) / duration;
    clip_velocity.y = 0.0;
    if clip_velocity.length() > IN_PLACE_SPEED {
        let velocity = match flag {
            Some(s) => clip_velocity.normalize() * s,
            None => clip_velocity,
        };
        return Ok(RootMotion { clip_velocity, velocity, source: "root motion in the clip".into(), in_place: false });
    }
    let animation = doc.json.get("animations").and_then(|a| a.as_array()).and_then(|a| a.get(clip.index));
    let extras = animation.and_then(|a| a.get("extras"));
    let from_extras = extras
        .and_then(|e| e.get("ik_clean"))
        .and_then(|c| c.get("root_speed"))
        .or_else(|| extras.and_then(|e| e.get("nominal_speed")))
        .and_then(Json::as_f64);
    let from_sidecar =
        sidecar.and_then(|s| s.get(&clip.name)).and_then(|c| c.get("nominal_speed")).and_then(Json::as_f64);
    let forward = forward(doc, sampled, legs)?;
    let (speed, source) = if let Some(s) = flag {
        (s, "--root-speed".to_string())
    } else if let Some(s) = from_extras.filter(|s| s.is_finite()) {
        (s as f32, "the animation's extras".to_string())
    } else if let Some(s) = from_sidecar.filter(|s| s.is_finite()) {
        (s as f32, "the .ik.json sidecar".to_string())
    } else {
        (planted_toe_speed(sampled, &world, legs, forward), "the planted toes' backward speed".to_string())
    };
    Ok(RootMotion { clip_velocity, velocity: forward * speed, source, in_place: true })
}

/// The horizontal direction the feet point in in the rest pose (foot joint → ball, summed over
/// both feet); +Z when that is degenerate.
fn forward(doc: &Document, sampled: &Sampled, legs: &Legs) -> Result<Vec3, IkError> {
    let rest: Vec<Xform> = sampled.node_of_bone.iter().map(|&n| doc.nodes[n].rest).collect();
    let mut world = vec![Xform::IDENTITY; rest.len()];
    ik_core::skeleton::forward_kinematics(&sampled.parents, &rest, &Xform::IDENTITY, &mut world)?;
    let at = |node: usize| world[sampled.bone_of_node[node]].translation;
    let sum: Vec3 = legs.legs.iter().map(|l| at(l.ball) - at(l.foot)).sum();
    Ok(Vec3::new(sum.x, 0.0, sum.z).try_normalize().unwrap_or(Vec3::Z))
}

/// Estimate for an in-place clip: the median forward speed at which the lower ball moves
/// backward while it is within 5 cm of the lowest ball height (0 when that is under 5 cm/s).
fn planted_toe_speed(sampled: &Sampled, world: &[Xform], legs: &Legs, forward: Vec3) -> f32 {
    let bones = sampled.bones();
    let balls = legs.legs.each_ref().map(|l| sampled.bone_of_node[l.ball]);
    let tracks: Vec<Vec<Vec3>> = balls
        .iter()
        .map(|&b| (0..sampled.timeline.frames).map(|f| world[f * bones + b].translation).collect())
        .collect();
    let floor = tracks.iter().flatten().map(|p| p.y).fold(f32::INFINITY, f32::min);
    let rate = sampled.timeline.rate;
    let mut speeds: Vec<f32> = (0..sampled.timeline.frames)
        .filter_map(|f| {
            let lower = if tracks[0][f].y <= tracks[1][f].y { &tracks[0] } else { &tracks[1] };
            (lower[f].y - floor < 0.05).then(|| {
                let (a, b) = (f.saturating_sub(1), (f + 1).min(lower.len() - 1));
                -(lower[b] - lower[a]).dot(forward) * rate / (b - a).max(1) as f32
            })
        })
        .collect();
    if speeds.is_empty() {
        return 0.0;
    }
    speeds.sort_by(f32::total_cmp);
    let median = speeds[speeds.len() / 2];
    if median.abs() < 0.05 { 0.0 } else { median }
}

/// Contact labelling options: the thresholds and the smoothing width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactOptions {
    /// Thresholds and vote window.
    pub settings: ContactSettings,
    /// Standard deviation of the Gaussian that smooths labels into a signal, s.
    pub smooth: f32,
}

impl Default for ContactOptions {
    fn default() -> Self {
        ContactOptions { settings: ContactSettings::default(), smooth: 0.02 }
    }
}

/// One foot's labels over the clip's frames.
#[derive(Clone, Debug, PartialEq)]
pub struct FootContacts {
    /// `"left"` / `"right"`.
    pub side: &'static str,
    /// The foot bone's name (the key of the labels in JSON).
    pub key: String,
    /// Floor height the heights are measured from (lowest ball height of the clip), m.
    pub floor: f32,
    /// Ball height above the floor per frame, m.
    pub toe_height: Vec<f32>,
    /// Ball speed per frame in the travelling frame, m/s.
    pub toe_speed: Vec<f32>,
    /// Contact label per frame.
    pub contacts: Vec<bool>,
    /// Smoothed 0..1 contact signal per frame.
    pub signal: Vec<f32>,
}

/// Labels both feet of the clip travelling at its own speed (see the module docs).
pub fn label_feet(
    doc: &Document,
    sampled: &Sampled,
    legs: &Legs,
    motion: &RootMotion,
    options: &ContactOptions,
) -> Result<[FootContacts; 2], IkError> {
    let bones = sampled.bones();
    let (seq, keep) = sequence(&sampled.locals, bones, sampled.looping);
    let rate = sampled.timeline.rate;
    let top = sampled.top_of(sampled.bone_of_node[legs.pelvis]);
    let world = world_frames(&sampled.parents, &seq, 1.0 / rate, top, motion.added_velocity(1.0))?;
    let frames = seq.len() / bones;
    let n = sampled.timeline.frames;
    let tracks: Vec<Vec<Vec3>> = legs
        .legs
        .iter()
        .map(|l| (0..frames).map(|f| world[f * bones + sampled.bone_of_node[l.ball]].translation).collect())
        .collect();
    let floor = tracks.iter().flat_map(|t| &t[keep..keep + n]).map(|p| p.y).fold(f32::INFINITY, f32::min);
    let mut out = Vec::with_capacity(2);
    for (leg, track) in legs.legs.iter().zip(&tracks) {
        let mut labels = vec![false; frames];
        label_contacts(track, rate, floor, &options.settings, &mut labels)?;
        let mut signal = vec![0.0; frames];
        smooth_contacts(&labels, rate, options.smooth, &mut signal)?;
        out.push(FootContacts {
            side: leg.side,
            key: doc.nodes[leg.foot].name.clone(),
            floor,
            toe_height: track[keep..keep + n].iter().map(|p| p.y - floor).collect(),
            toe_speed: (keep..keep + n).map(|i| toe_speed(track, rate, i)).collect(),
            contacts: labels[keep..keep + n].to_vec(),
            signal: signal[keep..keep + n].to_vec(),
        });
    }
    let [left, right]: [FootContacts; 2] =
        out.try_into().map_err(|_| IkError::LengthMismatch { expected: 2, got: 0 })?;
    Ok([left, right])
}
