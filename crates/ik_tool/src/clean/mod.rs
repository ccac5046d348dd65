//! `ik_tool clean`: offline foot-slide removal of a clip, with before/after measures.
//!
//! Method: the clip is sampled with its root motion taken out ([`crate::travel::sample_in_place`]:
//! the slide is removed from the in-place remainder, and the travel is written back on its
//! carrier as it was, scaled by `--root-speed-scale`); its contacts are labelled
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
use crate::legs::Legs;
use crate::motion::{
    ContactOptions, RootMotion, Sampled, add_travel, contact_points, label_feet, root_motion, sequence, world_frames,
};
use crate::sample::pose_at;

mod report;
mod rig;
use report::measure;
pub use report::{ClipReport, FootReport, fixed};
use rig::SolveRig;

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

/// A cleaned clip: its report, the channels to write and the extras note for the file.
#[derive(Clone, Debug)]
pub struct CleanedClip {
    /// Measures.
    pub report: ClipReport,
    /// Changed channels.
    pub channels: Vec<NewChannel>,
    /// `extras.ik_clean` of the animation: what the output is for.
    pub note: Box<serde_json::value::RawValue>,
    /// The line saying the clip travels and how fast ([`crate::travel::Travelled::describe`]).
    pub travel: Option<String>,
}

/// `extras.ik_clean` of a cleaned animation: the speed the output is made for.
#[derive(serde::Serialize)]
struct CleanNote {
    /// The speed the character travels at, m/s.
    root_speed: f32,
    /// `--root-speed-scale`.
    root_speed_scale: f32,
    /// The clip's own speed, m/s.
    source_root_speed: f32,
    /// The character's velocity, m/s, world.
    root_velocity: [f32; 3],
    /// The velocity to move the clip's top node at on top of its root motion, m/s.
    node_velocity: [f32; 3],
    /// What the numbers mean.
    meaning: &'static str,
}

pub(crate) fn angle(a: Quat, b: Quat) -> f32 {
    2.0 * a.dot(b).abs().min(1.0).acos()
}

/// The knee's hinge axis in its local space, when both legs agree within 10° (else `None`: the
/// solve keeps each frame's bend plane). Taken on the most bent knee of the clip.
fn knee_side(bones: usize, world: &[Xform], chains: &[LegChain], frames: usize) -> Option<Vec3> {
    let mut sides = Vec::new();
    for chain in chains {
        let (bend, f, side) =
            (0..frames).map(|f| knee_bend(world, bones, chain, f)).max_by(|a, b| a.0.total_cmp(&b.0))?;
        if bend < 1e-3 {
            return None;
        }
        sides.push(world[f * bones + chain.knee].rotation.inverse() * side.try_normalize()?);
    }
    (sides[0].angle_between(sides[1]) < 10f32.to_radians()).then(|| (sides[0] + sides[1]).normalize())
}

/// How far the knee sits off the hip→ankle line on frame `f`, the frame and the (unnormalized)
/// hinge direction `offset × (ankle − hip)` in model space.
fn knee_bend(world: &[Xform], bones: usize, chain: &LegChain, f: usize) -> (f32, usize, Vec3) {
    let at = |b: usize| world[f * bones + b].translation;
    let (h, k, a) = (at(chain.hip), at(chain.knee), at(chain.ankle));
    let d = a - h;
    let offset = (k - h) - d * ((k - h).dot(d) / d.length_squared().max(1e-12));
    (offset.length(), f, offset.cross(d))
}

/// Per frame, the knee's hinge axis of the source pose in the knee's local space (the pole the
/// re-solve keeps the knee on): frames where the source leg is nearly straight take the nearest
/// bent frame's, or `fallback` when no frame is bent.
fn source_poles(
    world: &[Xform],
    bones: usize,
    chain: &LegChain,
    frames: usize,
    fallback: Option<Vec3>,
) -> Vec<Option<Vec3>> {
    let reach = |f: usize| {
        let at = |b: usize| world[f * bones + b].translation;
        (at(chain.knee) - at(chain.hip)).length() + (at(chain.ankle) - at(chain.knee)).length()
    };
    let own: Vec<Option<Vec3>> = (0..frames)
        .map(|f| {
            let (bend, _, side) = knee_bend(world, bones, chain, f);
            (bend > 0.005 * reach(f))
                .then(|| world[f * bones + chain.knee].rotation.inverse() * side)
                .and_then(Vec3::try_normalize)
        })
        .collect();
    (0..frames)
        .map(|f| {
            (0..frames)
                .flat_map(|d| [f.checked_sub(d), Some(f + d)])
                .flatten()
                .filter(|&g| g < frames)
                .find_map(|g| own[g])
                .or(fallback)
        })
        .collect()
}

/// Largest turn of a foot between consecutive frames, radians, for which a re-solved frame is
/// accepted without a fall back (unless the source itself turns more).
pub const MAX_FOOT_TURN: f32 = 15.0 * std::f32::consts::PI / 180.0;
/// A contact point moving less than this in total during contacts, and a pelvis needing no
/// move, leave the clip as it is ("nothing to fix"), m.
pub const NOTHING_TO_FIX: f32 = 2e-3;
/// A frame whose solved pelvis and contact point are this close to the source's keeps the
/// source leg, m.
const KEEP_SOURCE: f32 = 1e-4;

/// Re-poses every frame of `source` (`frames × bones`, travelling) onto the solved pelvis and
/// toe targets: each leg re-solved with its source pole; a leg whose foot would turn more than
/// [`MAX_FOOT_TURN`] (beyond the source's own turn) from the previous frame, or whose knee
/// would swap sides, is solved again toward a blend of source and target that does not, or
/// left as in the source. Returns the locals and the frames where a limit was hit, per foot.
#[allow(clippy::too_many_arguments)]
fn repose(
    parents: &[Option<usize>],
    pelvis: usize,
    feet: &[SlideFoot<'_>],
    poles: &[Vec<Option<Vec3>>],
    source: &[Xform],
    solved_pelvis: &[Vec3],
    toe_targets: &[Vec<Vec3>],
    leg: &LegSettings,
) -> Result<(Vec<Xform>, Vec<Vec<usize>>), IkError> {
    let bones = parents.len();
    let frames = source.len() / bones;
    let fk = ik_core::skeleton::forward_kinematics;
    let mut out = source.to_vec();
    let mut src_model = vec![Xform::IDENTITY; bones];
    let mut model = vec![Xform::IDENTITY; bones];
    let mut hits = vec![Vec::new(); feet.len()];
    let mut previous: Vec<Option<(Quat, Quat)>> = vec![None; feet.len()];
    for f in 0..frames {
        let range = f * bones..(f + 1) * bones;
        fk(parents, &source[range.clone()], &Xform::IDENTITY, &mut src_model)?;
        let frame = &mut out[range];
        frame[pelvis].translation = match parents[pelvis] {
            Some(p) => src_model[p].inverse_transform_point(solved_pelvis[f]),
            None => solved_pelvis[f],
        };
        fk(parents, frame, &Xform::IDENTITY, &mut model)?;
        let pelvis_kept = solved_pelvis[f].distance(src_model[pelvis].translation) < KEEP_SOURCE;
        for (k, foot) in feet.iter().enumerate() {
            let c = foot.chain;
            let toe = c.toe.unwrap_or(c.ankle);
            let source_toe = src_model[toe].translation;
            let target = toe_targets[k][f];
            let src_foot = src_model[c.ankle].rotation;
            let src_bend = knee_bend(&src_model, bones, &c, 0).2;
            if pelvis_kept && target.distance(source_toe) < KEEP_SOURCE {
                previous[k] = Some((src_foot, model[c.ankle].rotation));
                continue;
            }
            let settings = LegSettings { min_heights: Some(foot.min_heights), knee_side: poles[k][f], ..*leg };
            let saved: Vec<Xform> = frame.to_vec();
            let acceptable = |frame: &[Xform], model: &[Xform]| -> bool {
                let new_foot = model[c.ankle].rotation;
                let turn_ok = previous[k].is_none_or(|(src_prev, out_prev)| {
                    angle(new_foot, out_prev) <= MAX_FOOT_TURN.max(angle(src_foot, src_prev) + 5f32.to_radians())
                });
                let bend = knee_bend(model, bones, &c, 0).2;
                let side_ok = bend.length() < 1e-6 || src_bend.length() < 1e-6 || bend.dot(src_bend) > 0.0;
                turn_ok && side_ok && frame.iter().all(Xform::is_finite)
            };
            let solve = |frame: &mut [Xform], model: &mut [Xform], w: f32| -> bool {
                frame.copy_from_slice(&saved);
                if fk(parents, frame, &Xform::IDENTITY, model).is_err() {
                    return false;
                }
                solve_leg(parents, frame, model, &c, source_toe.lerp(target, w), &settings).is_ok()
                    && acceptable(frame, model)
            };
            if !solve(frame, &mut model, 1.0) {
                hits[k].push(f);
                // The largest blend toward the target that is acceptable (bisection), else the
                // source leg.
                let (mut good, mut bad) = (None, 1.0f32);
                let mut w = 0.5;
                for _ in 0..12 {
                    if solve(frame, &mut model, w) {
                        good = Some(w);
                        w = 0.5 * (w + bad);
                    } else {
                        bad = w;
                        w = 0.5 * (good.unwrap_or(0.0) + w);
                    }
                }
                match good {
                    Some(w) => {
                        solve(frame, &mut model, w);
                    }
                    None => {
                        frame.copy_from_slice(&saved);
                        fk(parents, frame, &Xform::IDENTITY, &mut model)?;
                    }
                }
            }
            previous[k] = Some((src_foot, model[c.ankle].rotation));
        }
    }
    Ok((out, hits))
}

/// Largest turn of the foot bone between consecutive frames of `world`, radians.
pub(crate) fn max_foot_turn(world: &[Xform], bones: usize, foot: usize) -> f32 {
    let frames = world.len() / bones.max(1);
    (1..frames)
        .map(|f| angle(world[f * bones + foot].rotation, world[(f - 1) * bones + foot].rotation))
        .fold(0.0, f32::max)
}

/// Cleans one clip (see the module docs). `sidecar` is the `.ik.json` next to the file.
pub fn clean_clip(
    doc: &Document,
    clip: &Clip,
    legs: &Legs,
    sidecar: Option<&serde_json::Value>,
    options: &CleanOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<CleanedClip, ToolError> {
    let ik = |e: IkError| doc.bad(format!("animation \"{}\": {e}", clip.name));
    if !(options.scale.is_finite() && options.scale >= 0.0) {
        return Err(ToolError::Input("--root-speed-scale must be a finite number ≥ 0".into()));
    }
    let sampled = crate::travel::sample_in_place(doc, clip, legs)?;
    let motion: RootMotion = root_motion(doc, clip, &sampled, legs, options.root_speed, sidecar).map_err(ik)?;
    let feet = label_feet(doc, &sampled, legs, &motion, &options.contacts).map_err(ik)?;
    let points = contact_points(doc, &sampled, legs).map_err(ik)?;
    let (n, dt) = (sampled.timeline.frames, 1.0 / sampled.timeline.rate);
    let file_bone = |node: usize| sampled.bone_of_node[node];
    let file_top = sampled.top_of(file_bone(legs.pelvis));
    let added = motion.added_velocity(options.scale);
    // An in-place clip travels from outside (its top node moves; taken out again after the
    // solve); a clip with root motion gets it scaled inside, on its top-most translated bone.
    let file_carrier =
        if motion.in_place { file_top } else { root_motion_bone(&sampled, clip, file_bone(legs.pelvis)) };
    let shins_feet = legs.legs.each_ref().map(|l| (file_bone(l.calf), file_bone(l.foot)));
    let (rig, toes) = SolveRig::new(&sampled.parents, shins_feet, &points).map_err(|_| {
        let names = legs.legs.iter().map(|l| format!("{} / {}", doc.nodes[l.calf].name, doc.nodes[l.foot].name));
        doc.bad(format!(
            "animation \"{}\": a shin hangs below its own foot ({}): name the legs with --map",
            clip.name,
            names.collect::<Vec<_>>().join(", ")
        ))
    })?;
    // From here on, errors name the solve's bones by their node names.
    let bone_name = |b: usize| rig.file_of(b).map(|f| doc.nodes[sampled.node_of_bone[f]].name.clone());
    let ik = |e: IkError| {
        let message = match e {
            IkError::BrokenHierarchy { bone } => match bone_name(bone) {
                Some(name) => format!(
                    "bone {name} is not below the bone its leg needs it under: name the legs with --map role=bone,..."
                ),
                None => e.to_string(),
            },
            _ => e.to_string(),
        };
        doc.bad(format!("animation \"{}\": {message}", clip.name))
    };
    let bone = |node: usize| rig.solve_of[file_bone(node)];
    let (pelvis, top, carrier) = (bone(legs.pelvis), rig.solve_of[file_top], rig.solve_of[file_carrier]);
    let parents = &rig.parents;
    let bones = rig.total();
    let source_locals = rig.extend(&sampled.locals).map_err(ik)?;
    let (first_seq, keep) = sequence(&source_locals, bones, sampled.looping);
    let seq_frames = first_seq.len() / bones;
    let cycle = if sampled.looping { n - 1 } else { seq_frames };
    let labels: Vec<Vec<bool>> =
        feet.iter().map(|f| (0..seq_frames).map(|j| f.contacts[j % cycle]).collect()).collect();
    let mut travelling = first_seq.clone();
    add_travel(parents, &mut travelling, carrier, added, dt).map_err(ik)?;
    let world = world_frames(parents, &travelling, dt, top, Vec3::ZERO).map_err(ik)?;
    let lowest = |b: usize| (0..seq_frames).map(|f| world[f * bones + b].translation.y).fold(f32::INFINITY, f32::min);
    let chains: Vec<LegChain> = legs
        .legs
        .iter()
        .zip(toes)
        .map(|(l, toe)| LegChain {
            hip: bone(l.thigh),
            knee: bone(l.calf),
            ankle: bone(l.foot),
            toe: Some(toe),
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
    let clip_side = knee_side(bones, &world, &chains, seq_frames);
    settings.leg.knee_side = clip_side;
    // Poles per frame from the source pose (the sequence's frames repeat the clip's).
    let poles: Vec<Vec<Option<Vec3>>> =
        chains.iter().map(|c| source_poles(&world, bones, c, seq_frames, clip_side)).collect();

    // Nothing to fix: the contact points stand still during contacts (travelling at the scaled
    // speed): the clip is left exactly as it is.
    let track = |b: usize| (0..seq_frames).map(|f| world[f * bones + b].translation).collect::<Vec<_>>();
    let still = chains.iter().zip(&labels).all(|(c, l)| {
        toe_contact_travel(&track(c.toe.unwrap_or(c.ankle)), l)
            < NOTHING_TO_FIX * if sampled.looping { 3.0 } else { 1.0 }
    });
    let mut warnings = Vec::new();
    let mut out = sampled.locals.clone();
    let passes = if sampled.looping { MAX_LOOP_PASSES } else { 1 };
    let per_pass = settings.iterations + seq_frames;
    let nothing_to_fix = still;
    if !nothing_to_fix {
        // Passes: solve the travelling sequence, keep one copy with the travel taken out. For a
        // loop, the copy's drift against the travel (its last frame's pelvis minus its first's)
        // is spread linearly over the cycle so the copy closes, and the next pass cleans the
        // slide that spreading left; the last frame is then set to the first.
        let mut source = source_locals.clone();
        let mut ext_out = source.clone();
        let mut hit_frames: Vec<std::collections::BTreeSet<usize>> = vec![Default::default(); 2];
        for pass in 0..passes {
            let (mut seq, _) = sequence(&source, bones, sampled.looping);
            add_travel(parents, &mut seq, carrier, added, dt).map_err(ik)?;
            let mut report = |done: usize, _: usize| progress(pass * per_pass + done, passes * per_pass);
            let result = remove_foot_slide(parents, pelvis, &slide_feet, &seq, &settings, &mut report).map_err(ik)?;
            let (posed, hits) =
                repose(parents, pelvis, &slide_feet, &poles, &seq, &result.pelvis, &result.toe_targets, &settings.leg)
                    .map_err(ik)?;
            for (k, list) in hits.iter().enumerate() {
                hit_frames[k].extend(list.iter().filter(|&&f| f >= keep && f < keep + n).map(|&f| f - keep));
            }
            ext_out = posed[keep * bones..(keep + n) * bones].to_vec();
            if motion.in_place {
                for (f, frame) in ext_out.chunks_exact_mut(bones).enumerate() {
                    frame[top].translation -= added * ((keep + f) as f32 * dt);
                }
            }
            if !sampled.looping {
                break;
            }
            let loop_leg = LegSettings { knee_side: None, ..settings.leg };
            let drift = close_loop(parents, pelvis, &slide_feet, &loop_leg, &mut ext_out, n).map_err(ik)?;
            source.clone_from(&ext_out);
            if drift < LOOP_DRIFT_DONE {
                break;
            }
        }
        out = rig.strip(&ext_out).map_err(ik)?;
        for (k, frames) in hit_frames.iter().enumerate() {
            if !frames.is_empty() {
                let list: Vec<String> = frames.iter().map(usize::to_string).collect();
                warnings.push(format!(
                    "warning: {} foot: the re-solve would turn the foot more than {:.0}° in one frame or swap the knee's side on frame(s) {}; those frames are blended toward the source pose",
                    legs.legs[k].side,
                    MAX_FOOT_TURN.to_degrees(),
                    list.join(", ")
                ));
            }
        }
    }
    progress(passes * per_pass, passes * per_pass);
    if !out.iter().all(Xform::is_finite) {
        return Err(ik(IkError::NonFiniteInput));
    }

    // A clip whose root motion was taken out gets it back on its carrier, as it was (scaled).
    let mut written = out.clone();
    if let Some(travel) = &sampled.travel {
        travel.restore(&sampled.parents, &mut written, options.scale)?;
    }
    let mut channels = if nothing_to_fix { Vec::new() } else { changed_channels(doc, clip, &sampled, legs, &written) };
    let after_added = if motion.in_place { added } else { Vec3::ZERO };
    let mut report =
        measure(&sampled, legs, &points, &feet, &motion, options, &out, file_top, [added, after_added]).map_err(ik)?;
    report.nothing_to_fix = nothing_to_fix;
    report.warnings = warnings;
    // A clip the clean cannot improve is left exactly as it was.
    let worse = report.worse();
    if !nothing_to_fix && !worse.is_empty() {
        report.keep(worse.join(", "));
        report.warnings.clear();
        channels.clear();
    }
    let note = CleanNote {
        root_speed: motion.velocity.length() * options.scale,
        root_speed_scale: options.scale,
        source_root_speed: motion.velocity.length(),
        root_velocity: (motion.velocity * options.scale).to_array(),
        node_velocity: if sampled.travel.is_some() { [0.0; 3] } else { after_added.to_array() },
        meaning: "the character travels at root_velocity (m/s, world): move the clip's top node at node_velocity \
             on top of the root motion the clip carries, and the feet stay planted",
    };
    let note = serde_json::value::to_raw_value(&note).map_err(|e| ToolError::Format(format!("ik_clean note: {e}")))?;
    Ok(CleanedClip { report, channels, note, travel: sampled.travel.as_ref().map(|t| t.describe()) })
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
        nodes.extend([leg.thigh, leg.calf, leg.foot].into_iter().chain(leg.ball));
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
