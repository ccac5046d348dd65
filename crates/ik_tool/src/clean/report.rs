//! Before/after measures of a cleaned clip: [`ClipReport`] per clip, [`FootReport`] per foot.

use glam::Vec3;
use ik_core::slide_removal::toe_contact_travel;
use ik_core::{IkError, Xform};

use super::{CleanOptions, angle, max_foot_turn};
use crate::legs::Legs;
use crate::motion::{ContactPoint, RootMotion, Sampled, world_frames};

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
    /// Largest turn of the foot bone between consecutive frames before / after, radians.
    pub max_foot_turn: [f32; 2],
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
    /// The clip had nothing to fix and was left as it is.
    pub nothing_to_fix: bool,
    /// The clean could not improve the clip, which was left exactly as it was: what it would
    /// have made worse (the `after` measures are the clip's own).
    pub kept: Option<String>,
    /// Limits hit, with frame numbers.
    pub warnings: Vec<String>,
}

/// Most a clean may add to a foot's largest per-frame turn before the clip is kept as it was.
pub const TURN_MARGIN: f32 = 1.0 * std::f32::consts::PI / 180.0;

impl ClipReport {
    /// What cleaning made worse: a foot whose contact travel grew, or whose largest per-frame
    /// turn grew by more than `TURN_MARGIN` (1°; empty when nothing did).
    pub fn worse(&self) -> Vec<String> {
        let mut out = Vec::new();
        for f in &self.feet {
            if f.travel[1] > f.travel[0] + 1e-5 {
                out.push(format!(
                    "{} foot's slide {:.2} -> {:.2} cm",
                    f.side,
                    100.0 * f.travel[0],
                    100.0 * f.travel[1]
                ));
            }
            if f.max_foot_turn[1] > f.max_foot_turn[0] + TURN_MARGIN {
                out.push(format!(
                    "{} foot's largest turn per frame {:.1} -> {:.1}°",
                    f.side,
                    f.max_foot_turn[0].to_degrees(),
                    f.max_foot_turn[1].to_degrees()
                ));
            }
        }
        out
    }

    /// Marks the clip as kept as it was because of `why`: every `after` measure becomes the
    /// clip's own.
    pub fn keep(&mut self, why: String) {
        for f in &mut self.feet {
            f.travel[1] = f.travel[0];
            f.stretch[1] = f.stretch[0];
            f.max_foot_turn[1] = f.max_foot_turn[0];
            f.max_joint_change = 0.0;
        }
        self.pelvis_change = 0.0;
        self.kept = Some(why);
    }

    /// A Markdown table (also readable as plain text).
    pub fn table(&self) -> String {
        let mut out = format!(
            "{}: travelling at {} × {} m/s = {} m/s (speed from {}); {} frames at {}{}{}; {} iterations\n\n",
            self.clip,
            self.scale,
            fixed(self.speed, 2),
            fixed(self.scale * self.speed, 2),
            self.speed_source,
            self.frames,
            crate::sample::rate_label(self.rate),
            if self.resampled { " (resampled, cubic)" } else { "" },
            if self.looping { ", looping" } else { "" },
            self.iterations,
        );
        if self.nothing_to_fix {
            out.push_str(
                "Nothing to fix: the planted feet stand still and every leg reaches; the clip is left as it is.\n\n",
            );
        }
        if let Some(why) = &self.kept {
            out.push_str(&format!(
                "Not improved: cleaning would make it worse ({why}); the clip is left exactly as it was.\n\n"
            ));
        }
        out.push_str("| foot | contact frames | contact travel, before (cm) | after (cm) | reduction | max hip–contact, before (cm) | after (cm) | leg reach (cm) | max joint change (°) | max foot turn per frame, before (°) | after (°) |\n");
        out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for f in &self.feet {
            let reduction = if f.travel[0] > 1e-3 {
                format!("{} %", fixed(100.0 * (1.0 - f.travel[1] / f.travel[0]), 1))
            } else {
                "–".into()
            };
            out.push_str(&format!(
                "| {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                f.side,
                f.key,
                f.contact_frames,
                fixed(100.0 * f.travel[0], 2),
                fixed(100.0 * f.travel[1], 2),
                reduction,
                fixed(100.0 * f.stretch[0], 1),
                fixed(100.0 * f.stretch[1], 1),
                fixed(100.0 * f.reach, 1),
                fixed(f.max_joint_change.to_degrees(), 2),
                fixed(f.max_foot_turn[0].to_degrees(), 1),
                fixed(f.max_foot_turn[1].to_degrees(), 1),
            ));
        }
        out.push_str(&format!("\nThe pelvis moved by at most {} cm.\n", fixed(100.0 * self.pelvis_change, 1)));
        for w in &self.warnings {
            out.push_str(w);
            out.push('\n');
        }
        out
    }
}

/// `x` with `decimals` decimals, never `-0.00`: a value that rounds to zero prints unsigned.
pub fn fixed(x: f32, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => text,
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn measure(
    sampled: &Sampled,
    legs: &Legs,
    points: &[ContactPoint; 2],
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
        let [hip, knee, ankle] = [leg.thigh, leg.calf, leg.foot].map(|x| sampled.bone_of_node[x]);
        let k = if leg.side == "left" { 0 } else { 1 };
        let (contacts, point) = (&feet[k], &points[k]);
        let at = |w: &[Xform], f: usize, b: usize| w[f * bones + b].translation;
        let track = |w: &[Xform]| (0..n).map(|f| point.at(w, bones, f)).collect::<Vec<_>>();
        let stretch = |w: &[Xform]| (0..n).map(|f| point.at(w, bones, f).distance(at(w, f, hip))).fold(0.0, f32::max);
        let reach = at(&before, 0, knee).distance(at(&before, 0, hip))
            + at(&before, 0, ankle).distance(at(&before, 0, knee))
            + point.at(&before, bones, 0).distance(at(&before, 0, ankle));
        let mut max_joint_change: f32 = 0.0;
        let joints: Vec<usize> = [hip, knee, ankle].into_iter().chain(point.ball).collect();
        for f in 0..n {
            for &b in &joints {
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
            max_foot_turn: [max_foot_turn(&before, bones, ankle), max_foot_turn(&after, bones, ankle)],
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
        nothing_to_fix: false,
        kept: None,
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::fixed;
    use crate::sample::rate_label;

    #[test]
    fn tables_print_no_negative_zero_and_real_rates() {
        assert_eq!(
            (fixed(-0.001, 2), fixed(-0.0, 1), fixed(-0.006, 2), fixed(1.234, 1)),
            ("0.00".into(), "0.0".into(), "-0.01".into(), "1.2".into())
        );
        // 44 intervals over 0.7302 s: 60.26 Hz, not "60 Hz" or "61 Hz".
        assert_eq!(
            (rate_label(60.0), rate_label(44.0 / 0.7302), rate_label(24.0)),
            ("60 Hz".into(), "60.26 Hz".into(), "24 Hz".into())
        );
    }
}
