//! One clip's travel on one character: the clip's curves sampled once at [`SAMPLE_RATE`] on
//! the bones from the character root down to the hips, and split into travel and in-place pose
//! by [`ik_core::root_motion`] (carrier, steady fit, per-frame query).

use bevy::animation::{AnimationClip, AnimationTargetId, animated_field};
use bevy::prelude::*;
use ik_core::Xform;
use ik_core::root_motion::{
    ClipTravel, RootMotionError, RootMotionSettings, Travel, carrier_track, extract_travel, find_carrier,
};

/// Samples a second at which a clip's carrier is read (the clip's end is always a sample).
pub const SAMPLE_RATE: f32 = 60.0;

/// One clip as read for one character, kept while the character lives.
#[derive(Clone, Debug)]
pub(crate) struct ClipEntry {
    /// The clip asset.
    pub clip: AssetId<AnimationClip>,
    /// Whether it was read as a loop (its player repeats it).
    pub looping: bool,
    /// Its travel (`None`: the clip is in place), or why it could not be read.
    pub read: Result<Option<CarriedTravel>, String>,
    /// Which bones of the chain it has curves for (bit `i`: chain bone `i`; bones past 63
    /// count as animated). Bevy blends a bone's local over the clips that animate it only.
    pub animates: u64,
}

impl ClipEntry {
    /// Whether the clip has curves for chain bone `bone`.
    pub fn animates(&self, bone: usize) -> bool {
        bone >= 64 || self.animates & (1 << bone) != 0
    }
}

/// The chain bones `clip` has curves for, as [`ClipEntry::animates`] keeps them.
pub(crate) fn animated_bones(clip: &AnimationClip, targets: &[Option<AnimationTargetId>]) -> u64 {
    let has = |t: &Option<AnimationTargetId>| t.is_some_and(|id| clip.curves_for_target(id).is_some());
    targets.iter().take(64).enumerate().filter(|(_, t)| has(t)).fold(0, |mask, (i, _)| mask | 1 << i)
}

/// A clip's travel and the bone that carries it.
#[derive(Clone, Debug)]
pub(crate) struct CarriedTravel {
    /// Index of the carrier in the chain (0: the bone under the character root).
    pub carrier: usize,
    /// The travel's figures and per-frame query.
    pub travel: ClipTravel,
    /// Per-sample travel for a clip that does not loop (empty for a loop: its travel is a
    /// steady motion, computed at any time).
    pub samples: Vec<Travel>,
}

impl CarriedTravel {
    /// The travel from clip time `previous` to `now` (both wrapped, as a player reports them)
    /// played at `speed`, in the character's frame at `previous`.
    pub fn delta(&self, previous: f32, now: f32, speed: f32) -> Travel {
        self.travel.delta_wrapped(&self.samples, previous, now, speed)
    }

    /// The travel the clip has made at clip time `time`: what its pose carries then.
    pub fn at(&self, time: f32) -> Travel {
        self.travel.at(&self.samples, time)
    }
}

/// The bones a clip's travel is looked for on: from the bone under the character root (first)
/// down to the hips (last), with their animation targets and their current locals (kept for a
/// bone or a property the clip does not animate).
pub(crate) struct Chain<'a> {
    /// One per bone (`None`: nothing animates it).
    pub targets: &'a [Option<AnimationTargetId>],
    /// One per bone.
    pub locals: &'a [Xform],
}

/// Reads a clip's travel on `chain`: samples every bone's local at [`SAMPLE_RATE`] over the
/// clip, finds the carrier (the highest bone above the hips that travels, else the hips) and
/// extracts its travel. `Ok(None)`: the clip is in place. Errors name the cause.
pub(crate) fn read_clip(
    clip: &AnimationClip,
    chain: Chain,
    settings: &RootMotionSettings,
) -> Result<Option<CarriedTravel>, String> {
    let duration = clip.duration();
    if !(duration.is_finite() && duration > 0.0) {
        return Err(format!("it lasts {duration} s; root motion needs a clip of positive, finite length"));
    }
    let bones = chain.locals.len();
    if bones == 0 || chain.targets.len() != bones {
        return Err("no bones between the character root and the hips".into());
    }
    let intervals = (duration * SAMPLE_RATE).ceil().clamp(1.0, 1e6) as usize;
    let frame_rate = intervals as f32 / duration;
    let mut locals = Vec::with_capacity((intervals + 1) * bones);
    for i in 0..=intervals {
        let t = (i as f32 / frame_rate).min(duration);
        locals.extend(chain.locals.iter().zip(chain.targets).map(|(rest, target)| match target {
            Some(id) => sample(clip, *id, t, rest),
            None => *rest,
        }));
    }
    let parents: Vec<Option<usize>> = (0..bones).map(|b| b.checked_sub(1)).collect();
    let why = |e: RootMotionError| e.to_string();
    let Some(carrier) = find_carrier(&parents, bones - 1, &locals, settings).map_err(why)?.bone() else {
        return Ok(None);
    };
    let mut track = vec![Xform::IDENTITY; intervals + 1];
    carrier_track(&parents, carrier, &locals, &mut track).map_err(why)?;
    let mut samples = vec![Travel::IDENTITY; intervals + 1];
    let travel = extract_travel(&track, frame_rate, settings, &mut samples).map_err(why)?;
    if !travel.travels {
        return Ok(None);
    }
    if travel.looping {
        samples = Vec::new();
    }
    Ok(Some(CarriedTravel { carrier, travel, samples }))
}

/// A bone's local at clip time `t`: the clip's translation, rotation and scale where it has a
/// curve for them, else `rest`'s.
fn sample(clip: &AnimationClip, id: AnimationTargetId, t: f32, rest: &Xform) -> Xform {
    Xform {
        translation: clip.sample_clamped(animated_field!(Transform::translation), id, t).unwrap_or(rest.translation),
        rotation: clip.sample_clamped(animated_field!(Transform::rotation), id, t).unwrap_or(rest.rotation),
        scale: clip.sample_clamped(animated_field!(Transform::scale), id, t).unwrap_or(rest.scale),
    }
}
