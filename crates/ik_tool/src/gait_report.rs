//! `ik_tool gait`: how a clip walks, in the figures clinical gait data is given in.
//!
//! Method: each clip is sampled at its timeline ([`crate::motion::sample_clip`]) and posed in
//! the file's own space; the character's up and forward come from its rig
//! ([`ik_core::rig::RigFrame`]). Per foot, two points fixed to the foot bone are followed: the
//! ball (the ball bone, or the estimated sole point of an ankle-only foot,
//! [`crate::motion::contact_points`]) and the heel (at the ball's height, behind the ankle by half
//! the ankle → ball distance).
//! A foot is in **stance** while either point is within [`STANCE_BAND`] of its own lowest
//! height in the clip: the stance begins at heel strike (or at a forefoot landing) and ends at
//! toe-off. Per stance:
//! - knee flexion (180° less the hip–knee–ankle angle) at heel strike and at its least;
//! - the foot's pitch against its rest pitch (the ankle → ball line in the sagittal plane;
//!   positive = heel up): the share of the stance within [`FLAT_TOLERANCE`] of flat, the toes'
//!   rise at heel strike, and heel-off — where the last flat frame of the stance ends, as a share
//!   of the stance (0 when the foot is never flat);
//! - over the swing, the knee's peak flexion.
//!
//! Trunk lean is the pelvis → neck (else head) line's angle from its rest direction, forward
//! positive: its mean and its largest magnitude. Speed is the clip's travel
//! ([`crate::motion::root_motion`]: root motion, the animation's extras, the sidecar, else the
//! planted feet); the cycle is the clip's length over the number of stances of one foot;
//! cadence is two steps per cycle; stride is one cycle's travel.
//!
//! Invariants: every figure is finite or printed as `-` (a clip without a stance, a leg that
//! never swings); the input file is only read.

use std::path::{Path, PathBuf};

use glam::Vec3;
use ik_core::Xform;

use crate::ToolError;
use crate::gltf_read::{self, Document};
use crate::motion::{ContactPoint, contact_points, root_motion, sample_clip, world_frames};
use crate::retarget::Character;

/// Flags of `ik_tool gait`.
#[derive(Debug, clap::Args)]
pub struct GaitArgs {
    /// The character (.glb or .gltf).
    #[arg(value_name = "IN.glb")]
    pub input: PathBuf,
    /// Measure only this clip.
    #[arg(long, value_name = "NAME")]
    pub clip: Option<String>,
}

/// A foot point within this height of its lowest in the clip is on the floor, m (1 cm).
pub const STANCE_BAND: f32 = 0.01;
/// A foot within this angle of its rest pitch is flat, degrees.
pub const FLAT_TOLERANCE: f32 = 5.0;

/// The gait figures of one clip (degrees, shares in percent, m/s, steps/min, m). Per-stance
/// figures are means over the stances of both feet; `None` where there is nothing to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct GaitFigures {
    /// Clip name.
    pub clip: String,
    /// Stances found (both feet).
    pub stances: usize,
    /// Knee flexion at heel strike.
    pub knee_at_strike: Option<f32>,
    /// Knee flexion at its least in stance.
    pub knee_least_in_stance: Option<f32>,
    /// Knee flexion at its peak in the swing.
    pub knee_peak_in_swing: Option<f32>,
    /// Share of the stance with the foot within [`FLAT_TOLERANCE`] of flat, %.
    pub flat_share: Option<f32>,
    /// The toes' rise at heel strike (the foot's pitch below flat; negative: heel up).
    pub toe_up_at_strike: Option<f32>,
    /// Heel-off as a share of the stance, %.
    pub heel_off: Option<f32>,
    /// Mean trunk lean (forward positive).
    pub trunk_lean_mean: f32,
    /// Largest trunk lean either way.
    pub trunk_lean_max: f32,
    /// Travel speed, m/s.
    pub speed: f32,
    /// Steps per minute; `None` without a stance.
    pub cadence: Option<f32>,
    /// Distance per cycle (two steps), m.
    pub stride: Option<f32>,
}

/// Per-frame signals of one foot.
struct FootTrack {
    /// On the floor (heel or ball within the band).
    contact: Vec<bool>,
    /// Knee flexion, degrees.
    knee: Vec<f32>,
    /// Foot pitch against rest, degrees (heel up positive).
    pitch: Vec<f32>,
}

/// Measures every clip of the file at `path` (or only `clip`).
pub fn measure_file(path: &Path, clip: Option<&str>) -> Result<Vec<GaitFigures>, ToolError> {
    let doc = gltf_read::load(path)?;
    let sidecar = std::fs::read_to_string(crate::mannequin::sidecar_path(path))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
    let character = Character::rig(doc, None, "character")?;
    let names: Vec<String> = match clip {
        Some(name) => vec![character.doc.clip(name)?.name.clone()],
        None => character.doc.clips.iter().map(|c| c.name.clone()).collect(),
    };
    names.iter().map(|name| measure_clip(&character, name, sidecar.as_ref())).collect()
}

/// Measures one clip of a rigged character; `sidecar` is the parsed `.ik.json`, if any.
pub fn measure_clip(
    character: &Character,
    name: &str,
    sidecar: Option<&serde_json::Value>,
) -> Result<GaitFigures, ToolError> {
    let doc = &character.doc;
    let clip = doc.clip(name)?;
    let sampled = sample_clip(doc, clip);
    let legs = character.legs();
    let motion = root_motion(doc, clip, &sampled, &legs, None, sidecar)?;
    let bones = sampled.bones();
    let world = world_frames(&sampled.parents, &sampled.locals, 1.0 / sampled.timeline.rate, 0, Vec3::ZERO)?;
    // A looping clip's last frame repeats its first: measure the distinct frames only.
    let frames = if sampled.looping { sampled.timeline.frames - 1 } else { sampled.timeline.frames };
    let frame = character.report.frame;
    let (up, forward) = (frame.up, frame.forward);
    let rest = rest_world(doc, &sampled.node_of_bone, &sampled.parents)?;
    let points = contact_points(doc, &sampled, &legs)?;
    let bone = |node: usize| sampled.bone_of_node[node];
    let view = View { world: &world, bones, frames, up, forward };
    let chains = legs.legs.iter().map(|l| [bone(l.thigh), bone(l.calf), bone(l.foot)]);
    let feet: Vec<([usize; 3], &ContactPoint)> = chains.zip(&points).collect();
    let standing = stands_at_rest(&rest, &feet, up, forward);
    let tracks: Vec<FootTrack> =
        feet.iter().map(|(joints, point)| foot_track(&view, &rest, *joints, point, standing)).collect();
    let trunk_top = character.report.rig.neck.unwrap_or(character.report.rig.head);
    let (pelvis, top) = (bone(legs.pelvis), bone(trunk_top));
    let rest_trunk = sagittal_pitch(rest[top].translation - rest[pelvis].translation, up, forward);
    let lean: Vec<f32> = (0..frames)
        .map(|f| rest_trunk - sagittal_pitch(at_t(&world, bones, f, top) - at_t(&world, bones, f, pelvis), up, forward))
        .collect();
    let duration = frames as f32 / sampled.timeline.rate;
    Ok(figures(name, &tracks, &lean, motion.velocity.length(), duration))
}

fn at_t(world: &[Xform], bones: usize, f: usize, b: usize) -> Vec3 {
    world[f * bones + b].translation
}

/// The posed frames and the character's directions.
struct View<'a> {
    world: &'a [Xform],
    bones: usize,
    frames: usize,
    up: Vec3,
    forward: Vec3,
}

impl View<'_> {
    fn at(&self, f: usize, b: usize) -> Xform {
        self.world[f * self.bones + b]
    }
}

/// Whether the rest pose stands: both feet's contact points level (within [`STANCE_BAND`]),
/// the feet pitched alike (within 2°) and the knees within 15° of straight. Its feet are then
/// flat by definition; otherwise each foot's flattest stance frame is.
fn stands_at_rest(rest: &[Xform], feet: &[([usize; 3], &ContactPoint)], up: Vec3, forward: Vec3) -> bool {
    let measure = |(joints, point): &([usize; 3], &ContactPoint)| {
        let ball = point.at(rest, rest.len(), 0);
        let ankle = rest[joints[2]].translation;
        let knee = knee_flexion(joints.map(|j| rest[j].translation));
        (ball.dot(up), sagittal_pitch(ball - ankle, up, forward), knee)
    };
    let [l, r] = [measure(&feet[0]), measure(&feet[1])];
    (l.0 - r.0).abs() <= STANCE_BAND && (l.1 - r.1).abs() <= 2.0 && l.2.max(r.2) <= 15.0
}

/// One foot's per-frame knee flexion, pitch and contact (see the module docs). The foot is flat
/// as at rest when the rest pose `standing`, else as in the frame its ball is down and its
/// ankle lowest.
fn foot_track(view: &View, rest: &[Xform], joints: [usize; 3], point: &ContactPoint, standing: bool) -> FootTrack {
    let (up, forward, foot) = (view.up, view.forward, joints[2]);
    let balls: Vec<f32> = (0..view.frames).map(|f| point.at(view.world, view.bones, f).dot(up)).collect();
    let ball_down = near_lowest(&balls);
    let flattest = (0..view.frames)
        .filter(|&f| ball_down[f])
        .min_by(|&a, &b| view.at(a, foot).translation.dot(up).total_cmp(&view.at(b, foot).translation.dot(up)));
    let (foot_ref, ball_ref) = match flattest.filter(|_| !standing) {
        Some(f) => (view.at(f, foot), point.at(view.world, view.bones, f)),
        None => (rest[foot], point.at(rest, rest.len(), 0)),
    };
    let ankle_ref = foot_ref.translation;
    // The back of the heel: at the ball's height, behind the ankle by half the ankle → ball
    // distance along the ground (a foot's proportions).
    let along = (ball_ref - ankle_ref) - up * (ball_ref - ankle_ref).dot(up);
    let heel_ref = ankle_ref - up * (ankle_ref - ball_ref).dot(up) - 0.5 * along;
    let heel_local = foot_ref.inverse_transform_point(heel_ref);
    let flat_pitch = sagittal_pitch(ball_ref - ankle_ref, up, forward);
    let heels: Vec<f32> = (0..view.frames).map(|f| view.at(f, foot).transform_point(heel_local).dot(up)).collect();
    let knee: Vec<f32> = (0..view.frames).map(|f| knee_flexion(joints.map(|j| view.at(f, j).translation))).collect();
    let pitch: Vec<f32> = (0..view.frames)
        .map(|f| {
            let ball = point.at(view.world, view.bones, f);
            sagittal_pitch(ball - view.at(f, foot).translation, up, forward) - flat_pitch
        })
        .collect();
    let contact: Vec<bool> = ball_down.iter().zip(near_lowest(&heels)).map(|(b, h)| *b || h).collect();
    FootTrack { contact, knee, pitch }
}

/// Sums up the per-frame tracks into the figures.
fn figures(name: &str, tracks: &[FootTrack], lean: &[f32], speed: f32, duration: f32) -> GaitFigures {
    let mut per_stance: Vec<[f32; 6]> = Vec::new();
    let mut swing_peaks = Vec::new();
    for track in tracks {
        let spans = spans_looped(&track.contact);
        for span in &spans {
            per_stance.push(stance_figures(track, span));
        }
        let swing = track.contact.iter().zip(&track.knee).filter(|(c, _)| !**c).map(|(_, k)| *k);
        if let Some(peak) = swing.reduce(f32::max) {
            swing_peaks.push(peak);
        }
    }
    let mean_of = |k: usize| mean(per_stance.iter().map(|s| s[k]));
    let stances_per_foot = tracks.iter().map(|t| spans_looped(&t.contact).len()).max().unwrap_or(0);
    let cycle = (stances_per_foot > 0).then(|| duration / stances_per_foot as f32);
    GaitFigures {
        clip: name.to_string(),
        stances: per_stance.len(),
        knee_at_strike: mean_of(0),
        knee_least_in_stance: mean_of(1),
        knee_peak_in_swing: mean(swing_peaks.into_iter()),
        flat_share: mean_of(2),
        toe_up_at_strike: mean_of(3),
        heel_off: mean_of(4),
        trunk_lean_mean: mean(lean.iter().copied()).unwrap_or(0.0),
        trunk_lean_max: lean.iter().fold(0.0f32, |m, l| m.max(l.abs())),
        speed,
        cadence: cycle.filter(|c| *c > 0.0 && speed > 0.05).map(|c| 120.0 / c),
        stride: cycle.filter(|_| speed > 0.05).map(|c| c * speed),
    }
}

/// `[knee at strike, least knee, flat %, toe-up at strike, heel-off %, stance frames]` of one
/// stance given as frame indices.
fn stance_figures(track: &FootTrack, span: &[usize]) -> [f32; 6] {
    let len = span.len() as f32;
    let flat = |f: usize| track.pitch[f].abs() <= FLAT_TOLERANCE;
    let flat_frames = span.iter().filter(|&&f| flat(f)).count() as f32;
    let last_flat = span.iter().rposition(|&f| flat(f)).map_or(0.0, |i| (i + 1) as f32);
    [
        track.knee[span[0]],
        span.iter().map(|&f| track.knee[f]).fold(f32::INFINITY, f32::min),
        100.0 * flat_frames / len,
        -track.pitch[span[0]],
        100.0 * last_flat / len,
        len,
    ]
}

fn mean(values: impl Iterator<Item = f32>) -> Option<f32> {
    let (sum, count) = values.fold((0.0f32, 0usize), |(s, n), v| (s + v, n + 1));
    (count > 0).then(|| sum / count as f32)
}

/// True where `heights` are within [`STANCE_BAND`] of their lowest.
fn near_lowest(heights: &[f32]) -> Vec<bool> {
    let lowest = heights.iter().copied().fold(f32::INFINITY, f32::min);
    heights.iter().map(|h| *h <= lowest + STANCE_BAND).collect()
}

/// The runs of `true` in a cyclic sequence, as frame indices (a run across the end continues at
/// the start); a sequence that is all `true` is one run.
pub fn spans_looped(labels: &[bool]) -> Vec<Vec<usize>> {
    let n = labels.len();
    if n == 0 || labels.iter().all(|l| !l) {
        return Vec::new();
    }
    if labels.iter().all(|l| *l) {
        return vec![(0..n).collect()];
    }
    let starts = (0..n).filter(|&i| labels[i] && !labels[(i + n - 1) % n]);
    starts.map(|s| (s..s + n).map(|i| i % n).take_while(|&i| labels[i]).collect()).collect()
}

/// 180° less the angle at the knee of `[hip, knee, ankle]`, degrees.
fn knee_flexion([hip, knee, ankle]: [Vec3; 3]) -> f32 {
    let (thigh, shin) = (knee - hip, ankle - knee);
    thigh.angle_between(shin).to_degrees()
}

/// Pitch of `v` below the forward direction in the plane of `up` and `forward`, degrees.
fn sagittal_pitch(v: Vec3, up: Vec3, forward: Vec3) -> f32 {
    (-v.dot(up)).atan2(v.dot(forward)).to_degrees()
}

/// Model-space rest transforms by bone.
fn rest_world(doc: &Document, node_of_bone: &[usize], parents: &[Option<usize>]) -> Result<Vec<Xform>, ToolError> {
    let rest: Vec<Xform> = node_of_bone.iter().map(|&n| doc.nodes[n].rest).collect();
    let mut world = vec![Xform::IDENTITY; rest.len()];
    ik_core::skeleton::forward_kinematics(parents, &rest, &Xform::IDENTITY, &mut world)?;
    Ok(world)
}

/// The figures as a table, one clip a row.
pub fn table(label: &str, rows: &[GaitFigures]) -> String {
    let f = |v: Option<f32>| v.map_or("-".to_string(), |v| crate::clean::fixed(v, 1));
    let mut out = format!(
        "gait of {label} (stance: heel or ball within {:.0} cm of its lowest; flat: within {FLAT_TOLERANCE:.0} deg of the rest pitch)\n",
        STANCE_BAND * 100.0
    );
    out.push_str("clip         stances | knee deg: strike  least-stance  peak-swing | foot: flat %  toe-up deg  heel-off % | trunk lean deg mean/max | speed m/s  steps/min  stride m\n");
    for r in rows {
        out.push_str(&format!(
            "{:<12} {:>7} | {:>16} {:>13} {:>11} | {:>12} {:>11} {:>11} | {:>11} / {:<9} | {:>9} {:>10} {:>9}\n",
            r.clip,
            r.stances,
            f(r.knee_at_strike),
            f(r.knee_least_in_stance),
            f(r.knee_peak_in_swing),
            f(r.flat_share),
            f(r.toe_up_at_strike),
            f(r.heel_off),
            crate::clean::fixed(r.trunk_lean_mean, 1),
            crate::clean::fixed(r.trunk_lean_max, 1),
            crate::clean::fixed(r.speed, 2),
            f(r.cadence),
            r.stride.map_or("-".to_string(), |v| crate::clean::fixed(v, 2)),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_prints_no_negative_zero() {
        let row = GaitFigures {
            clip: "Idle".into(),
            stances: 2,
            knee_at_strike: Some(9.0),
            knee_least_in_stance: Some(8.9),
            knee_peak_in_swing: None,
            flat_share: Some(100.0),
            toe_up_at_strike: Some(-0.01),
            heel_off: Some(100.0),
            trunk_lean_mean: -0.04,
            trunk_lean_max: 0.4,
            speed: -0.001,
            cadence: None,
            stride: None,
        };
        let text = table("x.glb", &[row]);
        assert!(!text.contains("-0.0"), "{text}");
        assert!(text.contains(" 0.0 / 0.4 ") && text.contains(" 0.00 "), "{text}");
    }

    #[test]
    fn spans_wrap_around_the_loop() {
        let labels = [true, true, false, false, true];
        assert_eq!(spans_looped(&labels), vec![vec![4, 0, 1]]);
        assert_eq!(spans_looped(&[false; 3]), Vec::<Vec<usize>>::new());
        assert_eq!(spans_looped(&[true; 2]), vec![vec![0, 1]]);
    }

    #[test]
    fn a_straight_leg_has_no_flexion_and_a_right_angle_has_ninety() {
        let straight = [Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.5, 0.0), Vec3::ZERO];
        assert!(knee_flexion(straight).abs() < 1e-3);
        let bent = [Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.0, 0.5, -0.5)];
        assert!((knee_flexion(bent) - 90.0).abs() < 1e-3);
    }

    #[test]
    fn a_foot_flat_then_rolling_off_gives_its_heel_off_share() {
        // Ten stance frames: toes up 10° at strike, flat for frames 1–5, then the heel rises.
        let pitch = vec![-10.0, 0.0, 0.0, 2.0, -1.0, 3.0, 10.0, 20.0, 30.0, 40.0, 30.0, 10.0];
        let contact = (0..12).map(|i| i < 10).collect();
        let knee = (0..12).map(|i| 5.0 + i as f32).collect();
        let track = FootTrack { contact, knee, pitch };
        let spans = spans_looped(&track.contact);
        let [strike, least, flat, toe_up, heel_off, len] = stance_figures(&track, &spans[0]);
        assert_eq!((strike, least, len), (5.0, 5.0, 10.0));
        assert_eq!((flat, toe_up, heel_off), (50.0, 10.0, 60.0));
    }
}
