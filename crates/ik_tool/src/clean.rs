//! `ik_tool clean`: offline foot-slide removal of a clip, with before/after measures.
//!
//! Method: the clip is sampled ([`crate::motion::sample_clip`]); its contacts are labelled
//! while the character travels at the clip's own speed; then the character is made to travel
//! at `scale ×` that speed (`--root-speed-scale`), which makes planted balls slide, and
//! [`ik_core::slide_removal::remove_foot_slide`] solves pelvis and ball particles over the whole
//! sequence (soft: keep the source motion; hard: planted balls meet on the floor, heels within
//! the leg's reach) and re-solves both legs on every frame. A looping clip is solved over three
//! copies and the middle one kept, its last frame set equal to its first so the loop stays
//! seamless; any drift of pelvis or balls against the travel over the cycle is spread over it
//! and cleaned again by up to [`MAX_LOOP_PASSES`] passes. For an in-place clip the travel is
//! taken out again, so the output channels are the clip to play while the character's top node
//! moves at `scale ×` the speed; a clip with root motion gets that motion scaled in the clip
//! (on its top-most translated bone from the pelvis up), so it plays as it is.
//!
//! Changed channels: the pelvis, its ancestors and the leg bones, wherever the result differs
//! from what the file plays at the frame times (the solve's changes, and for a clip resampled
//! to 60 Hz, the cubic resampling of those bones).
//!
//! Measures per foot (on the frames, in the travelling frame, labelled contacts): ball travel
//! during contacts, largest hip→ball distance against the leg's reach (thigh + shin + foot),
//! largest change of any of its joints' local rotations.
//!
//! Invariants: the source is never changed; outputs are finite; no bone length changes.

use glam::{Quat, Vec3, Vec4};
use ik_core::leg::{LegChain, LegMinHeights, LegSettings, solve_leg};
use ik_core::slide_removal::{SlideFoot, SlideRemovalSettings, remove_foot_slide, toe_contact_travel};
use ik_core::{IkError, Xform};

use crate::ToolError;
use crate::gltf_patch::NewChannel;
use crate::gltf_read::{Clip, Document, Property};
use crate::json::Json;
use crate::legs::Legs;
use crate::motion::{
    ContactOptions, RootMotion, Sampled, add_travel, label_feet, root_motion, sample_clip, sequence, world_frames,
};
use crate::sample::pose_at;

/// Width of the legs' soft extension zone used by the tool, as a fraction of thigh + shin: narrow,
/// so legs animated close to straight are not pulled in where nothing slides.
pub const SOFTEN: f32 = 0.002;

/// Most solve passes for a looping clip (each removes most of the drift the last one left).
pub const MAX_LOOP_PASSES: usize = 4;
/// Loop drift, m, under which no further pass is run.
const LOOP_DRIFT_DONE: f32 = 1e-3;

/// Spreads the drift of a cycle (`frames × bones` locals whose last frame should equal the
/// first) linearly over it: the pelvis and each foot's ball move back by `drift × f / last` on
/// frame `f` (the legs re-solved onto the moved balls), then the last frame is set to the
/// first. Returns the largest drift, m.
fn close_loop(
    parents: &[Option<usize>],
    pelvis: usize,
    feet: &[SlideFoot<'_>],
    leg: &LegSettings,
    locals: &mut [Xform],
    frames: usize,
) -> Result<f32, IkError> {
    let bones = parents.len();
    let mut model = vec![Xform::IDENTITY; bones];
    let fk = ik_core::skeleton::forward_kinematics;
    let points = |model: &[Xform]| -> Vec<Vec3> {
        std::iter::once(pelvis).chain(feet.iter().filter_map(|f| f.chain.toe)).map(|b| model[b].translation).collect()
    };
    let last = frames - 1;
    fk(parents, &locals[last * bones..], &Xform::IDENTITY, &mut model)?;
    let end = points(&model);
    fk(parents, &locals[..bones], &Xform::IDENTITY, &mut model)?;
    let drift: Vec<Vec3> = end.iter().zip(points(&model)).map(|(e, s)| *e - s).collect();
    for f in 1..last {
        let share = f as f32 / last as f32;
        let frame = &mut locals[f * bones..(f + 1) * bones];
        fk(parents, frame, &Xform::IDENTITY, &mut model)?;
        let targets: Vec<Vec3> = points(&model).iter().zip(&drift).map(|(p, d)| *p - *d * share).collect();
        frame[pelvis].translation = match parents[pelvis] {
            Some(p) => model[p].inverse_transform_point(targets[0]),
            None => targets[0],
        };
        fk(parents, frame, &Xform::IDENTITY, &mut model)?;
        for (foot, target) in feet.iter().zip(&targets[1..]) {
            let settings = LegSettings { min_heights: Some(foot.min_heights), ..*leg };
            solve_leg(parents, frame, &mut model, &foot.chain, *target, &settings)?;
        }
    }
    let first = locals[..bones].to_vec();
    locals[last * bones..].copy_from_slice(&first);
    Ok(drift.iter().map(|d| d.length()).fold(0.0, f32::max))
}

/// What `clean` does to a clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CleanOptions {
    /// Travel speed as a multiple of the clip's own (`--root-speed-scale`). Default 1.
    pub scale: f32,
    /// The clip's nominal speed, m/s, when given (`--root-speed`).
    pub root_speed: Option<f32>,
    /// Iterations and constraint factors (`--iterations`, `--soft`, `--hard`).
    pub slide: SlideRemovalSettings,
    /// Contact labelling.
    pub contacts: ContactOptions,
}

impl Default for CleanOptions {
    fn default() -> Self {
        let slide = SlideRemovalSettings::default();
        CleanOptions {
            scale: 1.0,
            root_speed: None,
            slide: SlideRemovalSettings { leg: LegSettings { soften: SOFTEN, ..slide.leg }, ..slide },
            contacts: ContactOptions::default(),
        }
    }
}

/// Before/after measures of one foot.
#[derive(Clone, Debug, PartialEq)]
pub struct FootReport {
    /// `"left"` / `"right"`.
    pub side: &'static str,
    /// The foot bone's name.
    pub key: String,
    /// Frames labelled in contact.
    pub contact_frames: usize,
    /// Ball travel during contacts before / after, m.
    pub travel: [f32; 2],
    /// Largest hip→ball distance before / after, m.
    pub stretch: [f32; 2],
    /// Thigh + shin + foot length, m.
    pub reach: f32,
    /// Largest change of a local rotation of thigh, calf, foot or ball, radians.
    pub max_joint_change: f32,
}

/// What cleaning one clip did.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipReport {
    /// Clip name.
    pub clip: String,
    /// Travel speed as a multiple of the clip's own.
    pub scale: f32,
    /// The clip's own speed, m/s, and where it came from.
    pub speed: f32,
    /// Where the speed came from.
    pub speed_source: String,
    /// Frames and their rate, Hz.
    pub frames: usize,
    /// Frame rate, Hz.
    pub rate: f32,
    /// Resampled from a coarser rate.
    pub resampled: bool,
    /// Solved as a loop.
    pub looping: bool,
    /// Constraint sweeps used.
    pub iterations: usize,
    /// Largest change of the pelvis position, m.
    pub pelvis_change: f32,
    /// `[left, right]`.
    pub feet: [FootReport; 2],
}

impl ClipReport {
    /// A Markdown table (also readable as plain text).
    pub fn table(&self) -> String {
        let mut out = format!(
            "{}: travelling at {} × {:.2} m/s = {:.2} m/s (speed from {}); {} frames at {:.0} Hz{}{}; {} iterations\n\n",
            self.clip,
            self.scale,
            self.speed,
            self.scale * self.speed,
            self.speed_source,
            self.frames,
            self.rate,
            if self.resampled { " (resampled, cubic)" } else { "" },
            if self.looping { ", looping" } else { "" },
            self.iterations,
        );
        out.push_str("| foot | contact frames | ball travel in contact, before (cm) | after (cm) | reduction | max hip–ball, before (cm) | after (cm) | leg reach (cm) | max joint change (°) |\n");
        out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for f in &self.feet {
            let reduction = if f.travel[0] > 1e-3 {
                format!("{:.1} %", 100.0 * (1.0 - f.travel[1] / f.travel[0]))
            } else {
                "–".into()
            };
            out.push_str(&format!(
                "| {} ({}) | {} | {:.2} | {:.2} | {} | {:.1} | {:.1} | {:.1} | {:.2} |\n",
                f.side,
                f.key,
                f.contact_frames,
                100.0 * f.travel[0],
                100.0 * f.travel[1],
                reduction,
                100.0 * f.stretch[0],
                100.0 * f.stretch[1],
                100.0 * f.reach,
                f.max_joint_change.to_degrees(),
            ));
        }
        out.push_str(&format!("\nThe pelvis moved by at most {:.1} cm.\n", 100.0 * self.pelvis_change));
        out
    }
}

/// A cleaned clip: its report, the channels to write and the extras note for the file.
#[derive(Clone, Debug, PartialEq)]
pub struct CleanedClip {
    /// Measures.
    pub report: ClipReport,
    /// Changed channels.
    pub channels: Vec<NewChannel>,
    /// `extras.ik_clean` of the animation: what the output is for.
    pub note: Json,
}

fn angle(a: Quat, b: Quat) -> f32 {
    2.0 * a.dot(b).abs().min(1.0).acos()
}

/// The knee's hinge axis in its local space, when both legs agree within 10° (else `None`: the
/// solve keeps each frame's bend plane). Taken on the most bent knee of the clip.
fn knee_side(sampled: &Sampled, world: &[Xform], legs: &Legs, frames: usize) -> Option<Vec3> {
    let bones = sampled.bones();
    let mut sides = Vec::new();
    for leg in &legs.legs {
        let [hip, knee, ankle] = [leg.thigh, leg.calf, leg.foot].map(|n| sampled.bone_of_node[n]);
        let best = (0..frames).map(|f| {
            let (h, k, a) = (
                world[f * bones + hip].translation,
                world[f * bones + knee].translation,
                world[f * bones + ankle].translation,
            );
            let d = a - h;
            let offset = (k - h) - d * ((k - h).dot(d) / d.length_squared().max(1e-12));
            (offset.length(), f, offset.cross(d))
        });
        let (bend, f, side) = best.max_by(|a, b| a.0.total_cmp(&b.0))?;
        if bend < 1e-3 {
            return None;
        }
        sides.push(world[f * bones + knee].rotation.inverse() * side.try_normalize()?);
    }
    (sides[0].angle_between(sides[1]) < 10f32.to_radians()).then(|| (sides[0] + sides[1]).normalize())
}

/// Cleans one clip (see the module docs). `sidecar` is the `.ik.json` next to the file.
pub fn clean_clip(
    doc: &Document,
    clip: &Clip,
    legs: &Legs,
    sidecar: Option<&Json>,
    options: &CleanOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<CleanedClip, ToolError> {
    let ik = |e: IkError| doc.bad(format!("animation \"{}\": {e}", clip.name));
    if !(options.scale.is_finite() && options.scale >= 0.0) {
        return Err(ToolError::Input("--root-speed-scale must be a finite number ≥ 0".into()));
    }
    let sampled = sample_clip(doc, clip);
    let motion: RootMotion = root_motion(doc, clip, &sampled, legs, options.root_speed, sidecar).map_err(ik)?;
    let feet = label_feet(doc, &sampled, legs, &motion, &options.contacts).map_err(ik)?;
    let (bones, n, dt) = (sampled.bones(), sampled.timeline.frames, 1.0 / sampled.timeline.rate);
    let bone = |node: usize| sampled.bone_of_node[node];
    let pelvis = bone(legs.pelvis);
    let top = sampled.top_of(pelvis);
    let added = motion.added_velocity(options.scale);
    // An in-place clip travels from outside (its top node moves; taken out again after the
    // solve); a clip with root motion gets it scaled inside, on its top-most translated bone.
    let carrier = if motion.in_place { top } else { root_motion_bone(&sampled, clip, pelvis) };
    let (first_seq, keep) = sequence(&sampled.locals, bones, sampled.looping);
    let seq_frames = first_seq.len() / bones;
    let cycle = if sampled.looping { n - 1 } else { seq_frames };
    let labels: Vec<Vec<bool>> =
        feet.iter().map(|f| (0..seq_frames).map(|j| f.contacts[j % cycle]).collect()).collect();
    let mut travelling = first_seq.clone();
    add_travel(&sampled.parents, &mut travelling, carrier, added, dt).map_err(ik)?;
    let world = world_frames(&sampled.parents, &travelling, dt, top, Vec3::ZERO).map_err(ik)?;
    let lowest = |b: usize| (0..seq_frames).map(|f| world[f * bones + b].translation.y).fold(f32::INFINITY, f32::min);
    let chains: Vec<LegChain> = legs
        .legs
        .iter()
        .map(|l| LegChain {
            hip: bone(l.thigh),
            knee: bone(l.calf),
            ankle: bone(l.foot),
            toe: Some(bone(l.ball)),
            toe_end: l.toe_end.map(bone),
        })
        .collect();
    let slide_feet: Vec<SlideFoot<'_>> = chains
        .iter()
        .zip(&labels)
        .zip(&feet)
        .map(|((chain, contacts), f)| SlideFoot {
            chain: *chain,
            contacts,
            min_heights: LegMinHeights {
                heel: lowest(chain.ankle),
                toe: f.floor,
                toe_end: chain.toe_end.map_or(f.floor, lowest),
            },
        })
        .collect();
    let mut settings = options.slide;
    settings.leg.knee_side = knee_side(&sampled, &world, legs, seq_frames);

    // Passes: solve the travelling sequence, keep one copy with the travel taken out. For a
    // loop, the copy's drift against the travel (its last frame's pelvis minus its first's) is
    // spread linearly over the cycle so the copy closes, and the next pass cleans the slide
    // that spreading left; the last frame is then set to the first.
    let passes = if sampled.looping { MAX_LOOP_PASSES } else { 1 };
    let per_pass = settings.iterations + seq_frames;
    let mut source = sampled.locals.clone();
    let mut out = source.clone();
    for pass in 0..passes {
        let (mut seq, _) = sequence(&source, bones, sampled.looping);
        add_travel(&sampled.parents, &mut seq, carrier, added, dt).map_err(ik)?;
        let mut report = |done: usize, _: usize| progress(pass * per_pass + done, passes * per_pass);
        let result =
            remove_foot_slide(&sampled.parents, pelvis, &slide_feet, &seq, &settings, &mut report).map_err(ik)?;
        out = result.locals[keep * bones..(keep + n) * bones].to_vec();
        if motion.in_place {
            for (f, frame) in out.chunks_exact_mut(bones).enumerate() {
                frame[top].translation -= added * ((keep + f) as f32 * dt);
            }
        }
        if !sampled.looping {
            break;
        }
        let drift = close_loop(&sampled.parents, pelvis, &slide_feet, &settings.leg, &mut out, n).map_err(ik)?;
        source.clone_from(&out);
        if drift < LOOP_DRIFT_DONE {
            break;
        }
    }
    progress(passes * per_pass, passes * per_pass);
    if !out.iter().all(Xform::is_finite) {
        return Err(ik(IkError::NonFiniteInput));
    }

    let channels = changed_channels(doc, clip, &sampled, legs, &out);
    let after_added = if motion.in_place { added } else { Vec3::ZERO };
    let report = measure(&sampled, legs, &feet, &motion, options, &out, top, [added, after_added]).map_err(ik)?;
    let note = Json::obj()
        .with("root_speed", motion.velocity.length() * options.scale)
        .with("root_speed_scale", options.scale)
        .with("source_root_speed", motion.velocity.length())
        .with("root_velocity", (motion.velocity * options.scale).to_array().to_vec())
        .with("node_velocity", after_added.to_array().to_vec())
        .with(
            "meaning",
            "the character travels at root_velocity (m/s, world): move the clip's top node at node_velocity \
             on top of the root motion the clip carries, and the feet stay planted",
        );
    Ok(CleanedClip { report, channels, note })
}

/// The top-most bone from the pelvis up that the clip translates (the pelvis when none is).
fn root_motion_bone(sampled: &Sampled, clip: &Clip, pelvis: usize) -> usize {
    let translated = |bone: usize| {
        let node = sampled.node_of_bone[bone];
        clip.channels.iter().any(|c| c.node == node && c.property == Property::Translation)
    };
    let mut best = pelvis;
    let mut bone = Some(pelvis);
    while let Some(b) = bone {
        if translated(b) {
            best = b;
        }
        bone = sampled.parents[b];
    }
    best
}

/// Channels of the pelvis, its ancestors and the leg bones whose frames differ from what the
/// file plays at the frame times.
fn changed_channels(doc: &Document, clip: &Clip, sampled: &Sampled, legs: &Legs, out: &[Xform]) -> Vec<NewChannel> {
    let bones = sampled.bones();
    let n = sampled.timeline.frames;
    let rest: Vec<Xform> = doc.nodes.iter().map(|x| x.rest).collect();
    let mut played = rest.clone();
    let mut file_frames = Vec::with_capacity(n * bones);
    for f in 0..n {
        pose_at(&rest, clip, sampled.timeline.time(f), false, &mut played);
        file_frames.extend(sampled.node_of_bone.iter().map(|&node| played[node]));
    }
    let mut nodes = vec![legs.pelvis];
    let mut up = doc.nodes[legs.pelvis].parent;
    while let Some(p) = up {
        nodes.push(p);
        up = doc.nodes[p].parent;
    }
    for leg in &legs.legs {
        nodes.extend([leg.thigh, leg.calf, leg.foot, leg.ball]);
        nodes.extend(leg.toe_end);
    }
    let times: Vec<f32> = (0..n).map(|f| sampled.timeline.time(f)).collect();
    let mut channels = Vec::new();
    for node in nodes {
        let b = sampled.bone_of_node[node];
        let frames = || (0..n).map(|f| (file_frames[f * bones + b], out[f * bones + b]));
        if frames().any(|(a, z)| a.translation.distance(z.translation) > 1e-5) {
            let values = (0..n).map(|f| out[f * bones + b].translation.extend(0.0)).collect();
            channels.push(NewChannel { node, property: Property::Translation, times: times.clone(), values });
        }
        if frames().any(|(a, z)| angle(a.rotation, z.rotation) > 1e-4) {
            let mut values: Vec<Vec4> = Vec::with_capacity(n);
            for f in 0..n {
                let q = Vec4::from(out[f * bones + b].rotation);
                let flip = values.last().is_some_and(|p: &Vec4| p.dot(q) < 0.0);
                values.push(if flip { -q } else { q });
            }
            channels.push(NewChannel { node, property: Property::Rotation, times: times.clone(), values });
        }
        if frames().any(|(a, z)| a.scale.distance(z.scale) > 1e-5) {
            let values = (0..n).map(|f| out[f * bones + b].scale.extend(0.0)).collect();
            channels.push(NewChannel { node, property: Property::Scale, times: times.clone(), values });
        }
    }
    channels
}

#[allow(clippy::too_many_arguments)]
fn measure(
    sampled: &Sampled,
    legs: &Legs,
    feet: &[crate::motion::FootContacts; 2],
    motion: &RootMotion,
    options: &CleanOptions,
    out: &[Xform],
    top: usize,
    [added_before, added_after]: [Vec3; 2],
) -> Result<ClipReport, IkError> {
    let bones = sampled.bones();
    let n = sampled.timeline.frames;
    let dt = 1.0 / sampled.timeline.rate;
    let before = world_frames(&sampled.parents, &sampled.locals, dt, top, added_before)?;
    let after = world_frames(&sampled.parents, out, dt, top, added_after)?;
    let pelvis = sampled.bone_of_node[legs.pelvis];
    let pelvis_change = (0..n)
        .map(|f| before[f * bones + pelvis].translation.distance(after[f * bones + pelvis].translation))
        .fold(0.0, f32::max);
    let reports = legs.legs.each_ref().map(|leg| {
        let [hip, knee, ankle, ball] = [leg.thigh, leg.calf, leg.foot, leg.ball].map(|x| sampled.bone_of_node[x]);
        let contacts = &feet[if leg.side == "left" { 0 } else { 1 }];
        let at = |w: &[Xform], f: usize, b: usize| w[f * bones + b].translation;
        let track = |w: &[Xform]| (0..n).map(|f| at(w, f, ball)).collect::<Vec<_>>();
        let stretch = |w: &[Xform]| (0..n).map(|f| at(w, f, ball).distance(at(w, f, hip))).fold(0.0, f32::max);
        let reach = at(&before, 0, knee).distance(at(&before, 0, hip))
            + at(&before, 0, ankle).distance(at(&before, 0, knee))
            + at(&before, 0, ball).distance(at(&before, 0, ankle));
        let mut max_joint_change: f32 = 0.0;
        for f in 0..n {
            for b in [hip, knee, ankle, ball] {
                max_joint_change =
                    max_joint_change.max(angle(sampled.locals[f * bones + b].rotation, out[f * bones + b].rotation));
            }
        }
        FootReport {
            side: leg.side,
            key: contacts.key.clone(),
            contact_frames: contacts.contacts.iter().filter(|&&c| c).count(),
            travel: [
                toe_contact_travel(&track(&before), &contacts.contacts),
                toe_contact_travel(&track(&after), &contacts.contacts),
            ],
            stretch: [stretch(&before), stretch(&after)],
            reach,
            max_joint_change,
        }
    });
    Ok(ClipReport {
        clip: String::new(),
        scale: options.scale,
        speed: motion.velocity.length(),
        speed_source: motion.source.clone(),
        frames: n,
        rate: sampled.timeline.rate,
        resampled: sampled.timeline.resampled,
        looping: sampled.looping,
        iterations: options.slide.iterations,
        pelvis_change,
        feet: reports,
    })
}
