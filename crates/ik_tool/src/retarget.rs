//! `ik_tool retarget`: the clips of one rigged humanoid written onto another, with contacts.
//!
//! Method: both files are loaded (the target may have no animation) and rigged with
//! [`ik_core::rig::rig_humanoid`] over every node's rest position in world space (names of
//! any convention, else the skeleton's shape, or a user map). Each chosen source clip is
//! sampled with its root motion taken out ([`crate::travel::sample_in_place`]; the travel is
//! put back on the target afterwards, turned into its frame and scaled by the legs' ratio, on
//! the bones the map translates: [`crate::travel::Travelled::carry`]) and every frame goes through
//! [`ik_core::retarget::RetargetMap::run`] in world space, so units, axes, facing, rest pose
//! and bone axes of either file do not matter; paths scale by the legs' length ratio. The
//! pelvis drops the frames need (legs of other proportions) are then eased over the clip
//! ([`ik_core::envelope::slew_limited_above`]) and the frames retargeted again with them
//! ([`ik_core::retarget::RetargetMap::run_lowered`]). The
//! target's file is rewritten with one new animation per clip (the target's own clip of the
//! same name is kept and the source's skipped, or with `--replace` replaced, each such clip
//! named in the summary; other clips are kept): a rotation and a scale channel (its rest scale, so
//! a clip of the target's own that scales it does not bleed in when blended) per role bone and a
//! translation channel for the pelvis (and for feet hanging outside the shins), keyed at the source's frame times,
//! and `extras` holding `nominal_speed` (the source's ground speed × the scale) and
//! `ik_retarget` (source file, clip, scale). The written file is read back and its new clips
//! labelled like `contacts --json` does ([`crate::motion::label_feet`]) into the sidecar
//! `OUT.ik.json`.
//!
//! Inputs: source and target paths, the output path, a clip name or all, [`RetargetOptions`].
//! Outputs: `OUT.glb` and `OUT.ik.json`, and a summary per clip.
//!
//! Invariants: nothing is written unless everything succeeded; bad input (a file that is not
//! a skinned glTF, a rig that cannot be matched, `--out` naming an input) is a
//! [`ToolError::Input`] naming the file and what is missing (exit status 2); every key written
//! is finite.

use std::path::Path;

use glam::Vec4;
use ik_core::Xform;
use ik_core::retarget::{RetargetMap, RetargetRig, RetargetSettings};
use ik_core::rig::{RigProfile, RigReport, SkeletonBone, rig_humanoid};
use serde_json::Value;

use crate::ToolError;
use crate::contacts::ClipContacts;
use crate::gltf_patch::{NewAnimation, NewChannel, add_animations};
use crate::gltf_read::{self, Clip, Document, Property};
use crate::legs::{Leg, Legs};
use crate::motion::{ContactOptions, label_feet, root_motion};

/// How `retarget` runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RetargetOptions {
    /// The source's rig map (rig-map text), when its bones need naming.
    pub source_map: Option<RigProfile>,
    /// The target's rig map.
    pub target_map: Option<RigProfile>,
    /// Keep the hands at the source's positions relative to the chest (IK).
    pub hands: bool,
    /// Replace the target's own clips of the same name (else they are kept and the source's
    /// clip of that name is skipped).
    pub replace: bool,
    /// Contact labelling of the output.
    pub contacts: ContactOptions,
}

/// A loaded, rigged character: bones are its nodes, parents first.
pub struct Character {
    /// The file.
    pub doc: Document,
    /// Node of each bone.
    pub node_of_bone: Vec<usize>,
    /// Parent bone of each bone.
    pub parents: Vec<Option<usize>>,
    /// Rest locals, by bone.
    pub rest: Vec<Xform>,
    /// Node names, by bone.
    pub names: Vec<String>,
    /// The rig: `rig` in node indices, `indices` in bone indices.
    pub report: RigReport<usize>,
}

impl Character {
    /// Rigs `doc` (with `map` when given); `who` names it in messages (`source`, `target`).
    pub fn rig(doc: Document, map: Option<&RigProfile>, who: &str) -> Result<Character, ToolError> {
        let node_of_bone = doc.order.clone();
        let mut bone_of_node = vec![0; doc.nodes.len()];
        for (b, &n) in node_of_bone.iter().enumerate() {
            bone_of_node[n] = b;
        }
        let parents: Vec<Option<usize>> =
            node_of_bone.iter().map(|&n| doc.nodes[n].parent.map(|p| bone_of_node[p])).collect();
        let rest: Vec<Xform> = node_of_bone.iter().map(|&n| doc.nodes[n].rest).collect();
        let names: Vec<String> = node_of_bone.iter().map(|&n| doc.nodes[n].name.clone()).collect();
        let mut world = vec![Xform::IDENTITY; rest.len()];
        ik_core::skeleton::forward_kinematics(&parents, &rest, &Xform::IDENTITY, &mut world)
            .map_err(|e| doc.bad(format!("{who}: {e}")))?;
        // The skeleton's names first (a mesh named like a bone is not taken for one), else every
        // node's.
        let skeleton = crate::legs::skeleton_named(&doc);
        let rig = |names: Vec<&str>| {
            let bones: Vec<SkeletonBone<usize>> = (0..rest.len())
                .map(|b| SkeletonBone {
                    handle: node_of_bone[b],
                    name: names[b],
                    parent: parents[b],
                    rest: world[b].translation,
                })
                .collect();
            rig_humanoid(&bones, map)
        };
        let report = rig(node_of_bone.iter().map(|&n| skeleton[n].name.as_str()).collect())
            .or_else(|e| rig(names.iter().map(String::as_str).collect()).map_err(|_| e))
            .map_err(|e| doc.bad(format!("the {who} cannot be rigged: {e}")))?;
        Ok(Character { doc, node_of_bone, parents, rest, names, report })
    }

    /// The view [`RetargetMap::new`] takes.
    pub fn retarget_rig(&self) -> RetargetRig<'_> {
        RetargetRig {
            parents: &self.parents,
            rest: &self.rest,
            names: &self.names,
            rig: &self.report.indices,
            frame: self.report.frame,
        }
    }

    /// Pelvis and legs, as node indices, for the contact tools.
    pub fn legs(&self) -> Legs {
        let rig = &self.report.rig;
        let nodes = &self.doc.nodes;
        let leg = |side: &'static str, l: &ik_core::rig::LegBones<usize>| Leg {
            side,
            thigh: l.thigh,
            calf: l.calf,
            foot: l.foot,
            ball: l.ball,
            toe_end: l.ball.and_then(|ball| nodes.iter().position(|n| n.parent == Some(ball))),
        };
        Legs {
            profile: self.report.found_by.clone(),
            pelvis: rig.pelvis,
            legs: [leg("left", &rig.legs[0]), leg("right", &rig.legs[1])],
        }
    }
}

/// One retargeted clip.
#[derive(Clone, Debug)]
pub struct RetargetedClip {
    /// The clip's name.
    pub name: String,
    /// Key times, s (the source's frames).
    pub times: Vec<f32>,
    /// `frames × target bones` locals.
    pub locals: Vec<Xform>,
    /// The source's ground speed, m/s.
    pub source_speed: f32,
    /// The target's: source × scale.
    pub nominal_speed: f32,
    /// Frames on which a foot missed its goal (out of reach), per foot.
    pub missed: [usize; 2],
    /// Largest hip–ankle distance over the leg's reach, per foot.
    pub extension: [f32; 2],
    /// The source's contact labels, per foot and frame.
    pub source_contacts: [Vec<bool>; 2],
    /// How the source's own planted feet stand during its stances (to compare with the target's).
    pub source_stances: [crate::stance::StanceCheck; 2],
    /// The line saying the source clip travels and how fast the target does, if it travels.
    pub travel: Option<String>,
}

/// Retargets one clip of `source` onto `target` through `map` (see the module docs); a clip
/// with root motion is retargeted in place and its travel carried onto the target, scaled and
/// turned by the map; `progress(done)` is called after each frame.
pub fn retarget_clip(
    source: &Character,
    target: &Character,
    map: &RetargetMap,
    clip: &Clip,
    sidecar: Option<&Value>,
    contacts: &ContactOptions,
    progress: &mut dyn FnMut(usize),
) -> Result<RetargetedClip, ToolError> {
    let legs = source.legs();
    let sampled = crate::travel::sample_in_place(&source.doc, clip, &legs)?;
    let ik = |e: ik_core::IkError| source.doc.bad(format!("animation \"{}\": {e}", clip.name));
    let motion = root_motion(&source.doc, clip, &sampled, &legs, None, sidecar).map_err(ik)?;
    let feet = label_feet(&source.doc, &sampled, &legs, &motion, contacts).map_err(ik)?;
    let source_contacts = feet.each_ref().map(|f| f.contacts.clone());
    let own = ClipContacts { clip: clip.name.clone(), index: clip.index, sampled, motion, feet };
    let source_stances = crate::stance::check(&source.doc, &legs, &own, &source_contacts).map_err(ik)?;
    let ClipContacts { sampled, motion, .. } = own;
    let (ns, nt) = (sampled.bones(), map.target_bones());
    let frames = sampled.timeline.frames;
    let mut locals = vec![Xform::IDENTITY; frames * nt];
    let looping = ik_core::retarget::clip_loops(&sampled.locals, ns, source.retarget_rig().frame.leg_length);
    let report =
        ik_core::retarget::retarget_clip(map, &sampled.locals, sampled.timeline.rate, looping, &mut locals, progress)
            .map_err(|e| source.doc.bad(format!("animation \"{}\", frame {}: {}", clip.name, e.frame, e.error)))?;
    let (missed, extension) = (report.missed, report.extension);
    let source_speed = motion.velocity.length();
    let travel = match &sampled.travel {
        Some(t) => {
            let anchors =
                (pelvis_rest(source, source.report.rig.pelvis)?, pelvis_rest(target, target.report.rig.pelvis)?);
            let carriers = top_moved(&target.parents, map);
            t.carry(&target.parents, &mut locals, &carriers, (map.turn(), map.scale(), anchors))?;
            Some(format!("{}; carried onto the target at {:.3} m/s", t.describe(), t.clip.speed * map.scale()))
        }
        None => None,
    };
    Ok(RetargetedClip {
        name: clip.name.clone(),
        times: (0..frames).map(|f| sampled.timeline.time(f)).collect(),
        locals,
        source_speed,
        nominal_speed: source_speed * map.scale(),
        missed,
        extension,
        source_contacts,
        source_stances,
        travel,
    })
}

/// The rest position of `character`'s node `pelvis` in world space.
fn pelvis_rest(character: &Character, pelvis: usize) -> Result<glam::Vec3, ToolError> {
    let mut world = vec![Xform::IDENTITY; character.rest.len()];
    ik_core::skeleton::forward_kinematics(&character.parents, &character.rest, &Xform::IDENTITY, &mut world)
        .map_err(|e| character.doc.bad(format!("rest pose: {e}")))?;
    let bone = character.node_of_bone.iter().position(|&n| n == pelvis).unwrap_or(0);
    Ok(world[bone].translation)
}

/// The target bones the map translates none of whose ancestors it also translates: where a
/// travel goes (the pelvis, and feet that hang outside it).
fn top_moved(parents: &[Option<usize>], map: &RetargetMap) -> Vec<usize> {
    let moved: Vec<usize> = map.translated_bones().collect();
    let under_moved = |b: usize| {
        let mut at = parents[b];
        while let Some(p) = at {
            if moved.contains(&p) {
                return true;
            }
            at = parents[p];
        }
        false
    };
    moved.iter().copied().filter(|&b| !under_moved(b)).collect()
}

/// The animation to write for a retargeted clip: rotations and scales of the driven bones,
/// translations of the moved ones, and its `extras`.
pub fn animation(target: &Character, map: &RetargetMap, clip: &RetargetedClip, source: &str) -> NewAnimation {
    let nt = map.target_bones();
    let frames = clip.times.len();
    let mut channels = Vec::new();
    for b in map.driven_bones() {
        let mut values: Vec<Vec4> = Vec::with_capacity(frames);
        for f in 0..frames {
            let q = Vec4::from(clip.locals[f * nt + b].rotation);
            let flip = values.last().is_some_and(|p: &Vec4| p.dot(q) < 0.0);
            values.push(if flip { -q } else { q });
        }
        let node = target.node_of_bone[b];
        channels.push(NewChannel { node, property: Property::Rotation, times: clip.times.clone(), values });
        // Their scale too: blended with one of the target's own clips that scales them (a
        // stretchy rig's idle), an unkeyed scale would take that clip's whole.
        let values = (0..frames).map(|f| clip.locals[f * nt + b].scale.extend(0.0)).collect();
        channels.push(NewChannel { node, property: Property::Scale, times: clip.times.clone(), values });
    }
    for b in map.translated_bones() {
        let values = (0..frames).map(|f| clip.locals[f * nt + b].translation.extend(0.0)).collect();
        let node = target.node_of_bone[b];
        channels.push(NewChannel { node, property: Property::Translation, times: clip.times.clone(), values });
    }
    let extras = serde_json::json!({
        "nominal_speed": clip.nominal_speed,
        "ik_retarget": { "source": source, "clip": clip.name, "scale": map.scale() },
    });
    NewAnimation { name: clip.name.clone(), channels, extras: serde_json::value::to_raw_value(&extras).ok() }
}

/// Runs `ik_tool retarget` (see the module docs) for one clip, or all with `None`; returns the
/// summary to print.
pub fn run(
    source_path: &Path,
    target_path: &Path,
    out: &Path,
    clip: Option<&str>,
    options: &RetargetOptions,
) -> Result<String, ToolError> {
    let names: Vec<&str> = clip.into_iter().collect();
    run_clips(source_path, target_path, out, clip.map(|_| &names[..]), options)
}

/// [`run`] for the source clips named in `clips` (in that order; each must exist), or every
/// clip of the source with `None`. This is the library entry point the demo calls.
pub fn run_clips(
    source_path: &Path,
    target_path: &Path,
    out: &Path,
    clips: Option<&[&str]>,
    options: &RetargetOptions,
) -> Result<String, ToolError> {
    for (input, what) in [(source_path, "SOURCE"), (target_path, "TARGET")] {
        if crate::cli::same_file(input, out) {
            return Err(ToolError::Input(format!(
                "{}: --out is the {what} file; write the retargeted character to another file",
                input.display()
            )));
        }
    }
    let source = Character::rig(gltf_read::load(source_path)?, options.source_map.as_ref(), "source")?;
    let target = Character::rig(gltf_read::load_character(target_path)?, options.target_map.as_ref(), "target")?;
    let settings = RetargetSettings { hands: options.hands, ..Default::default() };
    let map = RetargetMap::new(&source.retarget_rig(), &target.retarget_rig(), settings).map_err(|e| {
        let file = if e.character == ik_core::retarget::Character::Source { &source.doc } else { &target.doc };
        file.bad(format!("cannot retarget: {e}"))
    })?;
    let chosen: Vec<&Clip> = match clips {
        Some(names) => names.iter().map(|name| source.doc.clip(name)).collect::<Result<_, _>>()?,
        None => source.doc.clips.iter().collect(),
    };
    let (clips, same_name) = same_named(&target.doc, chosen, options.replace)?;
    let sidecar_text = std::fs::read_to_string(crate::mannequin::sidecar_path(source_path)).ok();
    let sidecar: Option<Value> = sidecar_text.and_then(|t| serde_json::from_str(&t).ok());

    let total: usize = clips.iter().map(|c| crate::sample::timeline(c).frames).sum();
    let bar = crate::cli::progress_bar(total as u64, "retarget");
    let mut done = 0;
    let mut retargeted = Vec::new();
    for c in &clips {
        bar.set_message(c.name.clone());
        let mut progress = |f: usize| bar.set_position((done + f) as u64);
        let result = retarget_clip(&source, &target, &map, c, sidecar.as_ref(), &options.contacts, &mut progress);
        let result = match result {
            Ok(r) => r,
            Err(e) => {
                bar.finish_and_clear();
                return Err(e);
            }
        };
        done += result.times.len();
        retargeted.push(result);
    }
    bar.finish_and_clear();

    let source_name = source_path.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let animations: Vec<NewAnimation> = retargeted.iter().map(|c| animation(&target, &map, c, &source_name)).collect();
    let bytes = add_animations(&target.doc, &animations)?;
    let label = out.display().to_string();
    let written =
        gltf_read::parse(&label, &bytes).map_err(|e| ToolError::Format(format!("output check failed: {e}")))?;
    let legs = target.legs();
    let mut labelled = Vec::new();
    for c in &retargeted {
        let clip = written.clip(&c.name)?;
        let sampled = crate::travel::sample_in_place(&written, clip, &legs)?;
        let ik = |e: ik_core::IkError| ToolError::Format(format!("labelling \"{}\": {e}", c.name));
        let motion = root_motion(&written, clip, &sampled, &legs, None, None).map_err(ik)?;
        let feet = label_feet(&written, &sampled, &legs, &motion, &options.contacts).map_err(ik)?;
        labelled.push(ClipContacts { clip: c.name.clone(), index: clip.index, sampled, motion, feet });
    }
    let sidecar_out = crate::sidecar::from_contacts(&written, &labelled, &options.contacts).to_json_text();

    let mut text = same_name;
    text.push_str(&format!(
        "{}: rigged by {}; {}: rigged by {}; scale {:.3} (leg {:.3} m -> {:.3} m)\n",
        source.doc.label,
        source.report.found_by,
        target.doc.label,
        target.report.found_by,
        map.scale(),
        source.report.frame.leg_length,
        target.report.frame.leg_length,
    ));
    for (c, l) in retargeted.iter().zip(&labelled) {
        let count = |k: usize| l.feet[k].contacts.iter().filter(|&&x| x).count();
        text.push_str(&format!(
            "{}: {} frames, {:.2} m/s -> {:.2} m/s; feet off their goal on {}/{} frames; longest legs {:.1} % / {:.1} % of reach; contact frames {} / {}\n",
            c.name,
            c.times.len(),
            c.source_speed,
            c.nominal_speed,
            c.missed[0].max(c.missed[1]),
            c.times.len(),
            100.0 * c.extension[0],
            100.0 * c.extension[1],
            count(0),
            count(1),
        ));
        if let Some(line) = &c.travel {
            text.push_str(&format!("  {line}\n"));
        }
        let check = crate::stance::check(&written, &legs, l, &c.source_contacts)
            .map_err(|e| ToolError::Format(format!("checking \"{}\": {e}", c.name)))?;
        text.push_str(&crate::stance::describe(&check, &c.source_stances));
    }
    let sidecar_path = crate::mannequin::sidecar_path(out);
    crate::cli::write_output(out, bytes)?;
    crate::cli::write_output(&sidecar_path, sidecar_out)?;
    text.push_str(&format!("wrote {}\nwrote {}", out.display(), sidecar_path.display()));
    Ok(text)
}

/// Splits the chosen source clips by whether the target has its own clip of the same name: with
/// `replace` every clip is retargeted and each replaced one is named; without it the target's
/// are kept and named, and the source's skipped. Returns the clips to retarget and the lines
/// that say so; an error when none is left.
fn same_named<'a>(
    target: &Document,
    chosen: Vec<&'a Clip>,
    replace: bool,
) -> Result<(Vec<&'a Clip>, String), ToolError> {
    let mut text = String::new();
    let mut kept = Vec::new();
    let mut clips = Vec::new();
    for c in chosen {
        let Some(own) = target.clips.iter().find(|t| t.name == c.name) else {
            clips.push(c);
            continue;
        };
        let (first, last) = own.span();
        if replace {
            text.push_str(&format!(
                "replaced the target's own clip \"{}\" ({:.2} s) with the retargeted one\n",
                own.name,
                last - first
            ));
            clips.push(c);
        } else {
            text.push_str(&format!(
                "kept the target's own clip \"{}\" ({:.2} s); the source's was not retargeted (--replace replaces it)\n",
                own.name,
                last - first
            ));
            kept.push(c.name.as_str());
        }
    }
    if clips.is_empty() {
        let why = if kept.is_empty() {
            "the source has no animation".to_string()
        } else {
            format!("the target already has {}; give --replace to replace them", kept.join(", "))
        };
        return Err(target.bad(format!("no clip to retarget: {why}")));
    }
    Ok((clips, text))
}
