//! Runtime contact labels: which frames of a character's loaded clips have a foot planted, and
//! how fast each clip travels — what `ik_tool contacts --json` writes into a sidecar, made in
//! the game from the [`AnimationClip`]s Bevy loaded.
//!
//! **Method.** Put [`LabelClipContacts`] on a rigged humanoid's root (the entity its scene is
//! spawned under: its space must have +Y up, as a glTF scene's) naming the clips. Its
//! [`RestPose`] is taken as soon as its bones exist; its rig comes from its
//! [`RiggedHumanoid`] or is detected as [`crate::humanoid::HumanoidIk`] detects it. Once the
//! clips are loaded, each is sampled on the bones at evenly spaced frames about
//! [`LABEL_RATE`] Hz apart ([`RetargetSkeleton::sample`], the sampling retargeting uses; see
//! below for coarse clips) and
//! posed in the root's space. Then the steps `ik_tool contacts` runs, in `ik_core`: each foot's
//! contact point (its ball, else an estimated sole point) and the way the feet face
//! ([`ik_core::clip_feet`]); the clip's own travel (a pelvis moving faster than
//! [`IN_PLACE_SPEED`](ik_core::clip_feet::IN_PLACE_SPEED) leg lengths a second on average
//! carries root motion, and that is its speed), else the ground's
//! speed under its planted feet ([`ground_velocity`]); the feet's paths with that travel added
//! labelled by [`label_contacts`] with [`ContactSettings::for_gait`] (the defaults of
//! `ik_tool contacts`). The labels land in [`ClipContactLabels`] and [`ClipContactsLabelled`]
//! is triggered on the character; a failure is one [`ClipContactsFailed`] (component and event)
//! naming the clip and what is missing, logged once. Each frame, write the flags at the time
//! the clip plays into the character's [`FootContacts`](crate::feet::FootContacts) (before
//! `IkSystems::Feet`): foot locking and footstep prediction both follow them.
//!
//! Add [`LabelClipContacts`] when you spawn the character, as [`crate::retarget::RetargetClips`]:
//! the rest pose is what its bones hold when they first exist, not the skin's bind pose, so a
//! character a clip has already moved is measured in that clip's frame.
//!
//! A clip keyed linearly coarser than 60 Hz is resampled with cubics through its keys, as
//! `ik_tool` does ([`ik_core::resample`]; the key rate is found from the clip: the coarsest usual
//! rate on whose grid it moves linearly). Unlike `ik_tool`, a clip's root motion is not taken
//! out first (a clip that travels straight at a steady speed labels the same) and no speed is
//! read from the file's `extras`.
//!
//! ```no_run
//! # use bevy::prelude::*;
//! # use bevy_ik::prelude::*;
//! // `character`: the entity your character's scene is spawned under; `walk`: one of its clips.
//! fn setup(mut commands: Commands, character: Entity, walk: Handle<AnimationClip>) {
//!     commands.entity(character).insert(LabelClipContacts::new(vec![walk]));
//! }
//!
//! fn labelled(done: On<ClipContactsLabelled>, labels: Query<&ClipContactLabels>) {
//!     if let Ok(labels) = labels.get(done.entity) {
//!         let walk = &labels.clips[0];
//!         info!("walk: {:.2} m/s, left foot planted at frame 0: {}", walk.nominal_speed, walk.contacts[0][0]);
//!     }
//! }
//! ```

use bevy::prelude::*;
use ik_core::Xform;
use ik_core::clip_feet::{
    ContactPoint, carries_root_motion, ground_velocity, mean_travel, rest_forward, same_pose, travel_forward,
};
use ik_core::contact::{ContactSettings, label_contacts};
use ik_core::resample::{TARGET_RATE, resample_locals};

use crate::humanoid::{RigChoice, RiggedHumanoid};
use crate::retarget::{RestPose, RetargetBones, RetargetSkeleton};

/// Frame rate the clips are labelled at, Hz (the frames split each clip evenly, so they are
/// rarely exactly 1/60 s apart).
pub const LABEL_RATE: f32 = TARGET_RATE;

/// Asks for the contact labels of clips of this character (see the module docs).
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// // Your character's clips (e.g. a loaded `Gltf`'s `animations`), labelled on the entity its
/// // scene is spawned under.
/// fn ask(mut commands: Commands, character: Entity, clips: Vec<Handle<AnimationClip>>) {
///     commands.entity(character).insert(LabelClipContacts::new(clips));
/// }
/// ```
#[derive(Component, Clone, Debug)]
pub struct LabelClipContacts {
    /// The clips, in the order [`ClipContactLabels::clips`] gives them back.
    pub clips: Vec<Handle<AnimationClip>>,
    /// How to find the character's roles when no [`RiggedHumanoid`] says.
    pub profile: RigChoice,
}

impl LabelClipContacts {
    /// Labels for `clips`, the rig found by name or shape.
    pub fn new(clips: Vec<Handle<AnimationClip>>) -> Self {
        LabelClipContacts { clips, profile: RigChoice::Auto }
    }
}

/// One clip's labels: the fields of a sidecar's clip (`ik_core::sidecar::ClipSidecar`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipContacts {
    /// Ground speed the clip is made for, m/s, in the character's units: an in-place clip's
    /// ground speed under its planted feet, or the clip's own mean horizontal speed.
    pub nominal_speed: f32,
    /// Length of the clip, s (at least one frame).
    pub duration: f32,
    /// Frames per second of the labels, Hz.
    pub frame_rate: f32,
    /// Number of frames (labels per foot), including the closing frame of a loop.
    pub frame_count: usize,
    /// Contact label per frame, `[left, right]`.
    pub contacts: [Vec<bool>; 2],
    /// Whether the clip carries its own root motion (else it is in place).
    pub root_motion: bool,
    /// Whether its first and last frames hold the same pose.
    pub looping: bool,
    /// The horizontal way the clip travels at [`Self::nominal_speed`], a unit vector in the
    /// character's space (its own travel, or against the ground's motion under its planted
    /// feet); zero for a clip that goes nowhere. A clip may travel away from the way the rest
    /// pose faces (a conversion whose bind pose faces the other way from its clips): turn the
    /// character by its walk's heading, and give it to [`crate::humanoid::HumanoidIk::facing`].
    pub heading: Vec3,
}

/// The labels, in [`LabelClipContacts::clips`] order.
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct ClipContactLabels {
    /// One per clip.
    pub clips: Vec<ClipContacts>,
}

/// Triggered on a character when its [`ClipContactLabels`] are there.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq)]
pub struct ClipContactsLabelled {
    /// The character.
    pub entity: Entity,
}

/// Inserted (and triggered) when the clips cannot be labelled; it is not retried until removed.
#[derive(Component, EntityEvent, Clone, Debug, PartialEq)]
pub struct ClipContactsFailed {
    /// The character.
    pub entity: Entity,
    /// What is missing, naming the clip, bone or role.
    pub message: String,
}

/// A request not yet answered.
type Unanswered = (With<LabelClipContacts>, Without<ClipContactLabels>, Without<ClipContactsFailed>);

/// Takes the [`RestPose`] of every character asking for labels as soon as it has named bones,
/// in `PreUpdate`: before this frame's animation and IK.
pub(crate) fn capture_rest_poses(
    mut commands: Commands,
    requests: Query<Entity, (Unanswered, Without<RestPose>)>,
    children: Query<&Children>,
    names: Query<(), With<Name>>,
    transforms: Query<&Transform>,
) {
    for root in &requests {
        if let Some(pose) = RestPose::of(root, &children, &names, &transforms) {
            commands.entity(root).insert(pose);
        }
    }
}

/// Labels every request whose rest pose is taken and clips loaded; one whose clip failed to load
/// fails instead of waiting for ever.
pub(crate) fn label_clip_contacts(
    mut commands: Commands,
    pending: Query<(Entity, &LabelClipContacts, &RestPose, Option<&RiggedHumanoid>), Unanswered>,
    bones: RetargetBones,
    clips: Res<Assets<AnimationClip>>,
    assets: Res<AssetServer>,
) {
    for (entity, request, pose, rigged) in &pending {
        let outcome = if let Some(i) = request.clips.iter().position(|h| assets.load_state(h).is_failed()) {
            Err(format!("clip {i} failed to load"))
        } else if request.clips.iter().all(|h| clips.contains(h)) {
            bones.skeleton(entity, pose, rigged, &request.profile).and_then(|skeleton| {
                let label = |(i, h): (usize, &Handle<AnimationClip>)| {
                    let clip = clips.get(h).ok_or(format!("clip {i} was unloaded"))?;
                    label_clip(&skeleton, clip).map_err(|e| format!("clip {i}: {e}"))
                };
                request.clips.iter().enumerate().map(label).collect::<Result<Vec<_>, String>>()
            })
        } else {
            continue; // the clips are still loading
        };
        match outcome {
            Ok(clips) => {
                commands.entity(entity).insert(ClipContactLabels { clips });
                commands.trigger(ClipContactsLabelled { entity });
            }
            Err(reason) => {
                let message = format!("cannot label the clips' contacts of {entity}: {reason}");
                warn!("{message}");
                let failed = ClipContactsFailed { entity, message };
                commands.entity(entity).insert(failed.clone());
                commands.trigger(failed);
            }
        }
    }
}

/// Key rates a clip coarser than [`TARGET_RATE`] may be keyed at, Hz, coarsest first.
const KEY_RATES: [f32; 15] = [1.0, 2.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 24.0, 25.0, 30.0, 48.0, 50.0];

/// The rate `clip` is keyed at when that is coarser than [`TARGET_RATE`] and its keys are
/// linear: the coarsest of [`KEY_RATES`] whose grid spans the clip and between whose points
/// every bone moves linearly (checked at each interval's quarter points). `None` otherwise
/// (finer keys, another interpolation, keys off any grid): the clip is then sampled as Bevy
/// plays it. This is `ik_tool`'s resampling, made from what the loaded clip shows.
fn coarse_key_rate(
    skeleton: &RetargetSkeleton,
    clip: &AnimationClip,
    (start, end): (f32, f32),
) -> Result<Option<f32>, String> {
    let bones = skeleton.entities.len();
    let span = end - start;
    for rate in KEY_RATES {
        let intervals = (span * rate).round() as usize;
        if intervals == 0 || (intervals as f32 / rate - span).abs() > 1e-3 {
            continue;
        }
        // Interval by interval: a rate that does not fit usually fails at the first one.
        let linear_at = |k: usize| -> Result<bool, String> {
            let times: Vec<f32> = (0..5).map(|q| (start + (4 * k + q) as f32 / (4.0 * rate)).min(end)).collect();
            let pose = skeleton.sample(clip, &times)?;
            Ok((0..bones).all(|b| {
                let (a, z) = (pose[b], pose[4 * bones + b]);
                (1..4).all(|q| {
                    let (s, x) = (q as f32 / 4.0, pose[q * bones + b]);
                    let size = 1.0 + a.translation.length() + z.translation.length();
                    x.translation.distance(a.translation.lerp(z.translation, s)) <= 1e-4 * size
                        && quat_distance(x.rotation, a.rotation.slerp(z.rotation, s)) <= 1e-4
                        && x.scale.distance(a.scale.lerp(z.scale, s)) <= 1e-4
                })
            }))
        };
        let mut linear = true;
        for k in 0..intervals {
            if !linear_at(k)? {
                linear = false;
                break;
            }
        }
        if linear {
            return Ok(Some(rate));
        }
    }
    Ok(None)
}

/// How far apart two rotations are as unit quaternions (either sign): about half the angle
/// between them, without `acos`'s noise near zero.
fn quat_distance(a: Quat, b: Quat) -> f32 {
    if a.dot(b) < 0.0 { (a + b).length() } else { (a - b).length() }
}

/// `clip` on `skeleton`'s bones at evenly spaced frames from its first key to its end, about
/// [`LABEL_RATE`] Hz apart (resampled through its keys when it is keyed linearly coarser): the
/// locals, `frames × bones`, and the frame rate.
fn sample_frames(skeleton: &RetargetSkeleton, clip: &AnimationClip) -> Result<(Vec<Xform>, f32), String> {
    let end = clip.duration();
    if !(end.is_finite() && end >= 0.0) {
        return Err("the clip has no finite duration".into());
    }
    let first_key = clip.curves().values().flatten().map(|c| c.0.domain().start()).fold(f32::INFINITY, f32::min);
    let start = if first_key.is_finite() { first_key.clamp(0.0, end) } else { 0.0 };
    let span = end - start;
    let (frames, rate) = if span <= 1e-6 {
        (1, LABEL_RATE)
    } else {
        let intervals = (span * LABEL_RATE).round().max(1.0);
        (intervals as usize + 1, intervals / span)
    };
    let times: Vec<f32> = (0..frames).map(|f| (start + f as f32 / rate).min(end)).collect();
    let locals = match coarse_key_rate(skeleton, clip, (start, end))? {
        Some(key_rate) => {
            let keys: Vec<f32> =
                (0..=(span * key_rate).round() as usize).map(|k| (start + k as f32 / key_rate).min(end)).collect();
            resample_locals(&keys, &skeleton.sample(clip, &keys)?, skeleton.entities.len(), &times)
        }
        None => skeleton.sample(clip, &times)?,
    };
    Ok((locals, rate))
}

/// The labels of one clip on `skeleton` (see the module docs); the error names what failed.
pub(crate) fn label_clip(skeleton: &RetargetSkeleton, clip: &AnimationClip) -> Result<ClipContacts, String> {
    let (locals, rate) = sample_frames(skeleton, clip)?;
    let bones = skeleton.entities.len();
    let frames = locals.len() / bones.max(1);
    if frames == 0 {
        return Err("the character has no bones to sample".into());
    }
    let duration = (frames - 1) as f32 / rate;
    let fk = |locals: &[Xform], out: &mut [Xform]| {
        ik_core::skeleton::forward_kinematics(&skeleton.parents, locals, &Xform::IDENTITY, out)
            .map_err(|e| e.to_string())
    };
    let mut world = vec![Xform::IDENTITY; locals.len()];
    for (l, m) in locals.chunks_exact(bones).zip(world.chunks_exact_mut(bones)) {
        fk(l, m)?;
    }
    let mut rest = vec![Xform::IDENTITY; bones];
    fk(&skeleton.rest, &mut rest)?;
    let legs = &skeleton.rig.legs;
    let facing = rest_forward(&rest, legs.each_ref().map(|l| (l.foot, l.ball)));
    let points = legs
        .each_ref()
        .map(|l| ContactPoint::from_rest(&rest, [l.thigh, l.calf, l.foot], l.ball, facing.unwrap_or(Vec3::Z)));
    let mut tracks = points.map(|p| (0..frames).map(|f| p.at(&world, bones, f)).collect::<Vec<Vec3>>());
    // The clip's own travel: the pelvis's mean horizontal velocity.
    let pelvis = |f: usize| world[f * bones + skeleton.rig.pelvis].translation;
    let own = mean_travel(pelvis(0), pelvis(frames - 1), duration);
    let root_motion = carries_root_motion(own, points.map(|p| p.leg_length));
    let velocity = if root_motion {
        own
    } else {
        let ground = ground_velocity([&tracks[0], &tracks[1]], points.map(|p| p.leg_length), rate);
        let forward = travel_forward(facing, ground);
        forward * -ground.dot(forward)
    };
    // The feet in the ground's frame: the character travelling at `velocity`.
    for track in &mut tracks {
        for (f, p) in track.iter_mut().enumerate() {
            *p += (velocity - own) * (f as f32 / rate);
        }
    }
    let looping = same_pose(&locals, bones);
    let ground_speed = Vec3::new(velocity.x, 0.0, velocity.z).length();
    let mut contacts = [vec![false; frames], vec![false; frames]];
    for ((track, point), labels) in tracks.iter().zip(&points).zip(&mut contacts) {
        let settings = ContactSettings::for_gait(point.leg_length, ground_speed, rate);
        label_contacts(track, rate, looping, &settings, labels).map_err(|e| e.to_string())?;
    }
    let finite = |x: f32| if x.is_finite() { x } else { 0.0 };
    Ok(ClipContacts {
        nominal_speed: finite(velocity.length()),
        duration: finite(duration.max(1.0 / rate)),
        frame_rate: finite(rate),
        frame_count: frames,
        contacts,
        root_motion,
        looping,
        heading: velocity.try_normalize().unwrap_or(Vec3::ZERO),
    })
}

#[cfg(test)]
mod tests;
