//! A sampled clip's root motion: which bone carries it, how fast it travels, the clip in place.
//!
//! Method: the clip's frames in world space (every node, the top node's transform included: +Y
//! up, metres of the scene) go through [`ik_core::root_motion::find_carrier`] from the pelvis
//! (forward: the way the feet point at rest, else +Z; in-place tolerance from the leg length),
//! then the carrier's world track through [`ik_core::root_motion::extract_travel`] as a steady
//! travel (constant speed and turning rate from the first frame's ground frame to the last's),
//! for a clip that does not loop too, so its remainder keeps the body's surge and sway as an
//! in-place clip does; the clip loops when the remainder's first and last frames hold the same
//! pose. The remainder replaces the locals of the carrier, and of the bones hanging from above
//! the hips that travel with it (feet or IK controls under a root or control bone)
//! ([`ik_core::root_motion::Travel::remove_from_local`]), so every later step (labels, slide
//! removal, retargeting) sees an in-place clip travelling at the travel's velocity, as it sees
//! an in-place clip with a nominal speed; [`Travelled::restore`] puts the travel back. A clip
//! that turns is labelled on its straightened remainder (travel along its first heading).
//!
//! Inputs: a [`Sampled`] clip and its legs. Outputs: [`Travelled`] (carrier, [`ClipTravel`],
//! the travel per frame), the remainder in the sampled clip, and a one-line description.
//!
//! Invariants: a clip within the tolerances is left untouched (`None`); `restore` after the
//! split gives back the sampled locals to float precision; no NaN leaves this module (bad input
//! is an error naming the clip).

use glam::{Quat, Vec3};
use ik_core::Xform;
use ik_core::root_motion::{
    Carrier, ClipTravel, RootMotionSettings, Travel, carrier_track, extract_travel, find_carrier,
};

use crate::ToolError;
use crate::gltf_read::{Clip, Document};
use crate::legs::Legs;
use crate::motion::{Sampled, contact_points, rest_forward, same_pose, sample_clip};

/// The root motion taken out of a sampled clip.
#[derive(Clone, Debug, PartialEq)]
pub struct Travelled {
    /// The carrying bone (a bone index of [`Sampled`]).
    pub carrier: usize,
    /// The carrier and the bones outside it that travel with it (feet or IK controls hanging
    /// from a bone above the hips), bone indices.
    pub carried: Vec<usize>,
    /// Its node's name.
    pub carrier_name: String,
    /// True when the pelvis itself carries the travel (no ancestor moves); false for a root bone.
    pub hips: bool,
    /// The travel over the clip: speed (m/s), turning rate (rad/s), velocity, looping.
    pub clip: ClipTravel,
    /// `M(t)` per frame.
    pub travel: Vec<Travel>,
}

impl Travelled {
    /// Horizontal velocity of the travel at the clip's first frame, m/s (world).
    pub fn ground_velocity(&self) -> Vec3 {
        let v = self.clip.velocity;
        Vec3::new(v.x, 0.0, v.z)
    }

    /// The travel of frame `f` with its translation and turn scaled by `scale` (1: as it was).
    pub fn scaled(&self, f: usize, scale: f32) -> Travel {
        let t = self.travel[f];
        if scale == 1.0 {
            return t;
        }
        let yaw = t.yaw * scale;
        Travel { translation: t.translation * scale, rotation: Quat::from_axis_angle(self.clip.up, yaw), yaw }
    }

    /// Puts the travel (scaled by `scale`) back on the carrier of `locals` (`frames × bones`, the
    /// sampled clip's bone order and frames): `local = parent⁻¹ · M(t) · parent · local`.
    pub fn restore(&self, parents: &[Option<usize>], locals: &mut [Xform], scale: f32) -> Result<(), ToolError> {
        let bones = parents.len();
        let mut model = vec![Xform::IDENTITY; bones];
        for (f, frame) in locals.chunks_exact_mut(bones).enumerate() {
            let undo = self.scaled(f.min(self.travel.len() - 1), scale).inverse();
            for &bone in &self.carried {
                let parent = parent_model(parents, frame, bone, &mut model)?;
                frame[bone] = undo.remove_from_local(&frame[bone], &parent);
            }
        }
        Ok(())
    }

    /// The travel of frame `f` carried onto another character by a similarity map
    /// (`x' = anchors.1 + turn · scale · (x − anchors.0)`: the retarget's map of the pelvis, with
    /// `anchors` the source's and target's rest pelvis positions in world space):
    /// `M' = S · M · S⁻¹`, a turn `turn · R · turn⁻¹` and a translation
    /// `c − R'·c + turn · scale · (R·c_s + T − c_s)`.
    pub fn mapped(&self, f: usize, turn: Quat, scale: f32, anchors: (Vec3, Vec3)) -> Travel {
        let (c_s, c) = anchors;
        let t = self.travel[f.min(self.travel.len() - 1)];
        let rotation = (turn * t.rotation * turn.inverse()).normalize();
        let translation = c - rotation * c + turn * ((t.rotation * c_s + t.translation - c_s) * scale);
        Travel { translation, rotation, yaw: t.yaw }
    }

    /// Puts this travel on a retargeted clip: on every frame of `locals` (`frames × bones` of a
    /// character with `parents`), each bone of `carriers` (bones none of whose ancestors is in
    /// the list) gets `parent⁻¹ · M'(t) · parent · local`, `M'` from [`Self::mapped`].
    pub fn carry(
        &self,
        parents: &[Option<usize>],
        locals: &mut [Xform],
        carriers: &[usize],
        map: (Quat, f32, (Vec3, Vec3)),
    ) -> Result<(), ToolError> {
        let bones = parents.len();
        let mut model = vec![Xform::IDENTITY; bones];
        for (f, frame) in locals.chunks_exact_mut(bones).enumerate() {
            ik_core::skeleton::forward_kinematics(parents, frame, &Xform::IDENTITY, &mut model)
                .map_err(|e| ToolError::Format(format!("root motion: {e}")))?;
            let undo = self.mapped(f, map.0, map.1, map.2).inverse();
            for &b in carriers {
                let parent = parents[b].map_or(Xform::IDENTITY, |p| model[p]);
                frame[b] = undo.remove_from_local(&frame[b], &parent);
            }
        }
        Ok(())
    }

    /// One line: which bone travels, how fast, turning how fast.
    pub fn describe(&self) -> String {
        let turn = if self.clip.turn_rate.abs() > 1e-3 {
            format!(", turning {:.1}°/s", self.clip.turn_rate.to_degrees())
        } else {
            String::new()
        };
        format!(
            "travels: {} `{}` carries root motion at {:.3} m/s{turn} (taken out: labelled in place at that speed)",
            if self.hips { "the hips bone" } else { "root bone" },
            self.carrier_name,
            self.clip.speed,
        )
    }
}

/// The model transform of `bone`'s parent in one frame (identity for a top bone).
fn parent_model(
    parents: &[Option<usize>],
    frame: &[Xform],
    bone: usize,
    model: &mut [Xform],
) -> Result<Xform, ToolError> {
    let Some(p) = parents[bone] else { return Ok(Xform::IDENTITY) };
    ik_core::skeleton::forward_kinematics(parents, frame, &Xform::IDENTITY, model)
        .map_err(|e| ToolError::Format(format!("root motion: {e}")))?;
    Ok(model[p])
}

/// Samples `clip` ([`sample_clip`]) and takes its root motion out ([`split`]): what `contacts`,
/// `clean`, `retarget` and `inplace` work on.
pub fn sample_in_place(doc: &Document, clip: &Clip, legs: &Legs) -> Result<Sampled, ToolError> {
    let mut sampled = sample_clip(doc, clip);
    split(doc, &mut sampled, legs).map_err(|e| doc.bad(format!("animation \"{}\": root motion: {e}", clip.name)))?;
    Ok(sampled)
}

/// Finds the clip's root motion and replaces the carrier's locals by the in-place remainder
/// (see the module docs); sets `sampled.travel` and `sampled.looping`. A clip with one frame,
/// or already split, is left alone.
pub fn split(doc: &Document, sampled: &mut Sampled, legs: &Legs) -> Result<(), String> {
    if sampled.travel.is_some() || sampled.timeline.frames < 2 {
        return Ok(());
    }
    let leg = contact_points(doc, sampled, legs).map_err(|e| e.to_string())?[0].leg_length;
    let forward = rest_forward(doc, sampled, legs).map_err(|e| e.to_string())?.unwrap_or(Vec3::Z);
    let mut settings = RootMotionSettings::new(Vec3::Y, forward, leg);
    let pelvis = sampled.bone_of_node[legs.pelvis];
    let carrier = find_carrier(&sampled.parents, pelvis, &sampled.locals, &settings).map_err(|e| e.to_string())?;
    let Some(bone) = carrier.bone() else { return Ok(()) };
    let bones = sampled.bones();
    let mut track = vec![Xform::IDENTITY; sampled.timeline.frames];
    carrier_track(&sampled.parents, bone, &sampled.locals, &mut track).map_err(|e| e.to_string())?;
    let mut travel = vec![Travel::IDENTITY; track.len()];
    // The steady travel (as a loop's), for a clip that does not loop too: its remainder keeps
    // the body's surge and sway, as an in-place clip does.
    settings.looping = true;
    let clip = extract_travel(&track, sampled.timeline.rate, &settings, &mut travel).map_err(|e| e.to_string())?;
    let carried = carried_with(sampled, bone, &settings)?;
    let mut model = vec![Xform::IDENTITY; bones];
    for (f, frame) in sampled.locals.chunks_exact_mut(bones).enumerate() {
        for &b in &carried {
            let parent = parent_model(&sampled.parents, frame, b, &mut model).map_err(|e| e.to_string())?;
            frame[b] = travel[f].remove_from_local(&frame[b], &parent);
        }
    }
    if !sampled.locals.iter().all(Xform::is_finite) {
        return Err("the travel gives a non-finite pose; re-export the clip".into());
    }
    sampled.looping = same_pose(&sampled.locals, bones);
    sampled.travel = Some(Travelled {
        carrier: bone,
        carried,
        carrier_name: doc.nodes[sampled.node_of_bone[bone]].name.clone(),
        hips: matches!(carrier, Carrier::Hips(_)),
        clip,
        travel,
    });
    Ok(())
}

/// The carrier, then the top-most bones outside its subtree and off its ancestor chain that
/// travel too (their net ground motion over the clip is beyond the settings' tolerance): feet or
/// IK controls hanging from a root or control bone.
fn carried_with(sampled: &Sampled, carrier: usize, settings: &RootMotionSettings) -> Result<Vec<usize>, String> {
    let parents = &sampled.parents;
    let ancestors: Vec<usize> = core::iter::successors(parents[carrier], |&b| parents[b]).collect();
    let under = |b: usize, set: &[usize]| core::iter::successors(Some(b), |&x| parents[x]).any(|x| set.contains(&x));
    let mut carried = vec![carrier];
    let mut track = vec![Xform::IDENTITY; sampled.timeline.frames];
    for b in 0..parents.len() {
        if ancestors.contains(&b) || under(b, &carried) {
            continue;
        }
        carrier_track(parents, b, &sampled.locals, &mut track).map_err(|e| e.to_string())?;
        let (first, last) = (track[0].translation, track[track.len() - 1].translation);
        if (last - first).reject_from(settings.up).length() > settings.still_distance {
            carried.push(b);
        }
    }
    Ok(carried)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_travel_scales_translation_and_turn() {
        let clip = ClipTravel {
            travels: true,
            looping: true,
            duration: 1.0,
            speed: 1.0,
            turn_rate: 0.0,
            velocity: Vec3::Z,
            cycle: Travel::IDENTITY,
            up: Vec3::Y,
            forward: Vec3::Z,
            pivot: Vec3::ZERO,
            frame_rate: 1.0,
        };
        let t = Travel { translation: Vec3::Z, rotation: Quat::from_rotation_y(0.2), yaw: 0.2 };
        let travelled = Travelled {
            carrier: 0,
            carried: vec![0],
            carrier_name: "root".into(),
            hips: false,
            clip,
            travel: vec![Travel::IDENTITY, t],
        };
        let half = travelled.scaled(1, 0.5);
        assert!((half.translation - Vec3::Z * 0.5).length() < 1e-6);
        assert!((half.yaw - 0.1).abs() < 1e-6 && half.rotation.angle_between(Quat::from_rotation_y(0.1)) < 1e-5);
        assert_eq!(travelled.scaled(1, 1.0), t);
    }
}
