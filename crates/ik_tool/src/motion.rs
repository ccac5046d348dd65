//! A clip in a world frame that travels: the frames the contact labels and the slide removal
//! see, and the contact labels themselves.
//!
//! Method: the clip is sampled at its [`Timeline`] into per-frame locals of every node (nodes
//! reordered parents first: "bones"). The character travels at a *root velocity*: for a clip
//! whose root motion [`crate::travel::split`] took out, the travel's velocity (the sampled locals
//! are then the in-place remainder); for a clip with root motion left in (the pelvis's mean
//! horizontal velocity `m` over the clip is above [`IN_PLACE_SPEED`] leg lengths a second) that is `m`; for an
//! in-place clip it is `nominal × forward`, where
//! forward is the horizontal direction the feet point in (foot joint → ball, both feet, rest
//! pose; else the way the planted feet move backward; glTF's +Z if that is degenerate), the
//! nominal speed coming from `--root-speed`, the animation's `extras`, the `.ik.json` sidecar,
//! or else measured from the planted feet ([`ground_velocity`]). Playing the clip while the
//! character travels at `scale ×` that velocity means adding `scale·V − m` (times the frame's
//! time) to the translation of the pelvis's top node, so world positions are those of the
//! travelling character. A looping clip (first and last frame the same pose) is tiled three
//! times so labels and solves see its neighbours across the seam; the middle copy is used.
//!
//! Contact point of a foot ([`contact_points`], [`ik_core::clip_feet::ContactPoint`]): its
//! ball bone, or for an ankle-only foot an estimated sole point fixed to the foot bone.
//!
//! Contacts per foot: the contact point's world positions in the travelling frame (so speeds
//! are over the ground, which an in-place clip's planted foot moves backward at) are labelled
//! with [`ik_core::contact::label_contacts`] — the one labelling path: heights above the floor
//! this foot's stances define within a band fitted to their own height noise, speeds relative
//! to the clip's ground speed, hysteresis, loop-aware — with thresholds scaled to the leg length
//! and the ground speed unless given
//! ([`ContactOptions`]); then smoothed into a 0..1 signal with
//! [`ik_core::contact::smooth_contacts`].
//!
//! Invariants: the source locals are never modified (travel is added to copies); every output
//! is finite; labels always come from the travel at the clip's own speed (`scale` 1), because
//! that is where its planted feet stand still.

use glam::Vec3;
use ik_core::contact::{ContactSettings, ground_speeds, label_contacts, smooth_contacts};
use ik_core::{IkError, Xform};

use crate::gltf_read::{Clip, Document};
use crate::legs::Legs;
use crate::sample::{Timeline, pose_at, timeline};
use serde_json::Value;

pub use ik_core::clip_feet::{ContactPoint, IN_PLACE_SPEED, same_pose};

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
    /// The root motion taken out of `locals` ([`crate::travel::split`]); `None`: as sampled.
    pub travel: Option<crate::travel::Travelled>,
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
    let looping = same_pose(&locals, bones);
    Sampled { timeline, parents, node_of_bone, bone_of_node, locals, looping, travel: None }
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

fn rest_world(doc: &Document, sampled: &Sampled) -> Result<Vec<Xform>, IkError> {
    let rest: Vec<Xform> = sampled.node_of_bone.iter().map(|&n| doc.nodes[n].rest).collect();
    let mut world = vec![Xform::IDENTITY; rest.len()];
    ik_core::skeleton::forward_kinematics(&sampled.parents, &rest, &Xform::IDENTITY, &mut world)?;
    Ok(world)
}

/// The contact points of `[left, right]` ([`ContactPoint::from_rest`]).
pub fn contact_points(doc: &Document, sampled: &Sampled, legs: &Legs) -> Result<[ContactPoint; 2], IkError> {
    let world = rest_world(doc, sampled)?;
    let bone = |node: usize| sampled.bone_of_node[node];
    let fwd = rest_forward(doc, sampled, legs)?.unwrap_or(Vec3::Z);
    Ok(legs
        .legs
        .each_ref()
        .map(|l| ContactPoint::from_rest(&world, [l.thigh, l.calf, l.foot].map(bone), l.ball.map(bone), fwd)))
}

/// Finds how fast the clip travels (see the module docs). `flag` is `--root-speed`; `sidecar`
/// the parsed `.ik.json` next to the file, if any.
pub fn root_motion(
    doc: &Document,
    clip: &Clip,
    sampled: &Sampled,
    legs: &Legs,
    flag: Option<f32>,
    sidecar: Option<&Value>,
) -> Result<RootMotion, IkError> {
    if let Some(travel) = &sampled.travel {
        // Taken out of the clip (crate::travel): the remainder is in place, travelling at it.
        let own = travel.ground_velocity();
        let direction = own.try_normalize().unwrap_or(Vec3::Z);
        let (speed, source) = match flag {
            Some(s) => (s, "--root-speed (the clip's root motion taken out)".to_string()),
            None => (travel.clip.speed, format!("the root motion in the clip, on {}", travel.carrier_name)),
        };
        return Ok(RootMotion { clip_velocity: Vec3::ZERO, velocity: direction * speed, source, in_place: true });
    }
    let bones = sampled.bones();
    let pelvis = sampled.bone_of_node[legs.pelvis];
    let world = world_frames(&sampled.parents, &sampled.locals, 1.0 / sampled.timeline.rate, 0, Vec3::ZERO)?;
    let at = |f: usize, b: usize| world[f * bones + b].translation;
    let last = sampled.timeline.frames - 1;
    let clip_velocity = ik_core::clip_feet::mean_travel(at(0, pelvis), at(last, pelvis), sampled.timeline.duration());
    let points = contact_points(doc, sampled, legs)?;
    if ik_core::clip_feet::carries_root_motion(clip_velocity, points.map(|p| p.leg_length)) {
        let velocity = match flag {
            Some(s) => clip_velocity.normalize() * s,
            None => clip_velocity,
        };
        return Ok(RootMotion { clip_velocity, velocity, source: "root motion in the clip".into(), in_place: false });
    }
    let extras = doc.animation_extras(clip.index);
    // A clip baked in place by `inplace` records its travel's speed; `clean` its root speed.
    let from_extras = extras
        .as_ref()
        .and_then(|e| e.get("ik_root_motion"))
        .and_then(|r| r.get("speed"))
        .or_else(|| extras.as_ref().and_then(|e| e.get("ik_clean")).and_then(|c| c.get("root_speed")))
        .or_else(|| extras.as_ref().and_then(|e| e.get("nominal_speed")))
        .and_then(Value::as_f64);
    let from_sidecar =
        sidecar.and_then(|s| s.get(&clip.name)).and_then(|c| c.get("nominal_speed")).and_then(Value::as_f64);
    let ground = ground_velocity(sampled, &world, &points);
    // Forward: the way the feet point at rest, else against the planted feet's motion, else +Z.
    let forward = ik_core::clip_feet::travel_forward(rest_forward(doc, sampled, legs)?, ground);
    let (speed, source) = if let Some(s) = flag {
        (s, "--root-speed".to_string())
    } else if let Some(s) = from_extras.filter(|s| s.is_finite()) {
        (s as f32, "the animation's extras".to_string())
    } else if let Some(s) = from_sidecar.filter(|s| s.is_finite()) {
        (s as f32, "the .ik.json sidecar".to_string())
    } else {
        (-ground.dot(forward), "the planted feet's backward speed".to_string())
    };
    Ok(RootMotion { clip_velocity, velocity: forward * speed, source, in_place: true })
}

/// The horizontal direction the feet point in in the rest pose
/// ([`ik_core::clip_feet::rest_forward`]); `None` without balls or when that is degenerate.
pub fn rest_forward(doc: &Document, sampled: &Sampled, legs: &Legs) -> Result<Option<Vec3>, IkError> {
    let world = rest_world(doc, sampled)?;
    let bone = |node: usize| sampled.bone_of_node[node];
    Ok(ik_core::clip_feet::rest_forward(&world, legs.legs.each_ref().map(|l| (bone(l.foot), l.ball.map(bone)))))
}

/// The ground's velocity under an in-place clip, measured from its planted feet
/// ([`ik_core::clip_feet::ground_velocity`] on the contact points of `world`).
pub fn ground_velocity(sampled: &Sampled, world: &[Xform], points: &[ContactPoint; 2]) -> Vec3 {
    let bones = sampled.bones();
    let n = sampled.timeline.frames;
    let tracks = points.each_ref().map(|p| (0..n).map(|f| p.at(world, bones, f)).collect::<Vec<Vec3>>());
    ik_core::clip_feet::ground_velocity([&tracks[0], &tracks[1]], points.map(|p| p.leg_length), sampled.timeline.rate)
}

/// Contact labelling options: thresholds (relative to the leg length and the clip's ground
/// speed unless given), vote, minimum span and the smoothing width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactOptions {
    /// Lift-off speed over the ground, m/s (`--velocity`); `None`:
    /// [`ik_core::contact::LEAVE_SPEED`] × the clip's ground speed. Landing needs
    /// [`ik_core::contact::ENTER_SPEED`] / `LEAVE_SPEED` of it.
    pub velocity: Option<f32>,
    /// Lift-off height above the foot's floor, m (`--height`), used as given; `None`: at most
    /// [`ik_core::contact::LEAVE_HEIGHT`] × leg length, fitted to the stance's own height noise
    /// ([`ContactSettings::fitted`]). Landing needs `ENTER_HEIGHT` / `LEAVE_HEIGHT` of it.
    pub height: Option<f32>,
    /// Majority-vote window over the hysteresis labels, frames (`--vote`).
    pub vote_window: usize,
    /// Shortest contact span kept, and longest gap closed, s (`--min-span`).
    pub min_span: f32,
    /// Standard deviation of the Gaussian that smooths labels into a signal, s.
    pub smooth: f32,
}

impl Default for ContactOptions {
    fn default() -> Self {
        ContactOptions { velocity: None, height: None, vote_window: 3, min_span: 0.05, smooth: 0.02 }
    }
}

impl ContactOptions {
    /// The thresholds for a leg of `leg_length` (m) on a clip travelling at `ground_speed`
    /// (m/s), sampled at `rate` Hz ([`ContactSettings::for_gait`], with the options given).
    pub fn thresholds(&self, leg_length: f32, ground_speed: f32, rate: f32) -> ContactSettings {
        use ik_core::contact::{ENTER_HEIGHT, ENTER_SPEED, LEAVE_HEIGHT, LEAVE_SPEED};
        let mut s = ContactSettings::for_gait(leg_length, ground_speed, rate);
        if let Some(h) = self.height {
            // A height given is used as given (no band fitted to the stance's noise).
            (s.enter_height, s.leave_height) = (h * ENTER_HEIGHT / LEAVE_HEIGHT, h);
            s.least_height = s.enter_height;
        }
        if let Some(v) = self.velocity {
            (s.enter_speed, s.leave_speed) = (v * ENTER_SPEED / LEAVE_SPEED, v);
        }
        let frames = ((self.min_span * rate).round() as usize).max(1);
        (s.min_span, s.min_gap, s.vote_window) = (frames, frames, self.vote_window);
        s
    }
}

/// One foot's labels over the clip's frames.
#[derive(Clone, Debug, PartialEq)]
pub struct FootContacts {
    /// `"left"` / `"right"`.
    pub side: &'static str,
    /// The foot bone's name.
    pub key: String,
    /// Floor height the heights are measured from (the one this foot's stances define), m.
    pub floor: f32,
    /// Contact point (ball, or estimated sole) height above the floor per frame, m.
    pub toe_height: Vec<f32>,
    /// Contact point horizontal speed over the ground per frame (central difference), m/s.
    pub toe_speed: Vec<f32>,
    /// Contact label per frame.
    pub contacts: Vec<bool>,
    /// Smoothed 0..1 contact signal per frame.
    pub signal: Vec<f32>,
    /// The thresholds used (the height band fitted to this foot's stance).
    pub thresholds: ContactSettings,
    /// Whether the contact point is the ball bone (else an estimated sole point).
    pub ball: bool,
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
    let rate = sampled.timeline.rate;
    let top = sampled.top_of(sampled.bone_of_node[legs.pelvis]);
    let world = world_frames(&sampled.parents, &sampled.locals, 1.0 / rate, top, motion.added_velocity(1.0))?;
    let n = sampled.timeline.frames;
    let points = contact_points(doc, sampled, legs)?;
    let ground_speed = Vec3::new(motion.velocity.x, 0.0, motion.velocity.z).length();
    let foot = |(leg, point): (&crate::legs::Leg, &ContactPoint)| -> Result<FootContacts, IkError> {
        let track: Vec<Vec3> = (0..n).map(|f| point.at(&world, bones, f)).collect();
        let thresholds = options.thresholds(point.leg_length, ground_speed, rate);
        let mut contacts = vec![false; n];
        let labelled = label_contacts(&track, rate, sampled.looping, &thresholds, &mut contacts)?;
        let floor = labelled.floor;
        let mut toe_speed = vec![0.0; n];
        ground_speeds(&track, rate, sampled.looping, &mut toe_speed)?;
        let mut signal = vec![0.0; n];
        smooth_contacts(&contacts, rate, options.smooth, &mut signal)?;
        Ok(FootContacts {
            side: leg.side,
            key: doc.nodes[leg.foot].name.clone(),
            floor,
            toe_height: track.iter().map(|p| p.y - floor).collect(),
            toe_speed,
            contacts,
            signal,
            thresholds: labelled.settings,
            ball: point.ball.is_some(),
        })
    };
    Ok([foot((&legs.legs[0], &points[0]))?, foot((&legs.legs[1], &points[1]))?])
}

/// Number of contact spans; for a looping clip a span across the seam counts once.
pub fn span_count(labels: &[bool], looping: bool) -> usize {
    let n = labels.len();
    let starts = labels.iter().enumerate().filter(|&(i, &c)| c && (i == 0 || !labels[i - 1])).count();
    if looping && n > 2 && labels[0] && labels[n - 1] && labels.iter().any(|&c| !c) { starts - 1 } else { starts }
}
