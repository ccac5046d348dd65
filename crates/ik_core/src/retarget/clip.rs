//! A whole clip through a [`RetargetMap`]: every frame retargeted, the pelvis drops eased.

use super::{RetargetMap, RetargetScratch};
use crate::{IkError, Xform};

/// How fast a retargeted clip's pelvis drop may change, in target leg lengths per second.
/// Where a leg of other proportions cannot reach its goal the pelvis is lowered; followed
/// frame by frame the drop can come and go within five frames (2 cm on 15 % longer legs),
/// snapping the knees 15° in a frame. Eased at this rate the pelvis lowers a little earlier
/// and rises a little later instead. Not slower: a drop needed at each double support then
/// never rose between them (0.12 kept CesiumMan's knee ≥ 20° bent through every stance); a
/// lifted foot goes down with it ([`RetargetMap::run_lowered`]), so the knees of the corpus's
/// retargeted walks turn at most 8.6° a frame, as with no easing of the feet.
pub const PELVIS_DROP_EASE: f32 = 0.3;

/// What [`retarget_clip`] did over the clip.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClipRetargetReport {
    /// Frames on which a foot missed its goal (out of reach), per foot.
    pub missed: [usize; 2],
    /// Largest hip–ankle distance over the leg's reach, per foot.
    pub extension: [f32; 2],
    /// Largest pelvis drop used, target units.
    pub largest_drop: f32,
}

/// A frame that failed, and why.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameError {
    /// The frame's index.
    pub frame: usize,
    /// What went wrong.
    pub error: IkError,
}

/// Whether a clip of `bones` locals per frame loops: its last frame is its first (within
/// 1e-3 rad and `1e-4 × scale`).
pub fn clip_loops(frames: &[Xform], bones: usize, scale: f32) -> bool {
    let count = frames.len().checked_div(bones).unwrap_or(0);
    count > 2
        && frames[..bones].iter().zip(&frames[(count - 1) * bones..count * bones]).all(|(a, b)| {
            a.rotation.angle_between(b.rotation) <= 1e-3 && a.translation.distance(b.translation) <= 1e-4 * scale
        })
}

/// Retargets a clip sampled at `frame_rate` Hz: `source` holds `frames × source bones`
/// locals, `target` receives `frames × target bones`. Two passes: each frame's own pelvis
/// drop, then the drops eased at [`PELVIS_DROP_EASE`] ([`crate::envelope::slew_limited_above`],
/// round the seam when `looping`) and every frame retargeted again with its eased drop
/// ([`RetargetMap::run_lowered`]). `progress(done)` is called after each frame of the second
/// pass.
///
/// Errors: a source or target buffer that is not a whole number of frames of the rigs'
/// bones, or the first frame that fails (`target` then holds partial output).
pub fn retarget_clip(
    map: &RetargetMap,
    source: &[Xform],
    frame_rate: f32,
    looping: bool,
    target: &mut [Xform],
    progress: &mut dyn FnMut(usize),
) -> Result<ClipRetargetReport, FrameError> {
    let (ns, nt) = (map.source_bones(), map.target_bones());
    let frames = source.len() / ns.max(1);
    let whole = |frame: usize| FrameError {
        frame,
        error: IkError::LengthMismatch { expected: frames * nt, got: target.len() },
    };
    if source.len() != frames * ns || target.len() != frames * nt {
        return Err(whole(0));
    }
    let mut scratch = RetargetScratch::default();
    let mut run = |f: usize, at_least: f32, target: &mut [Xform]| {
        map.run_lowered(&source[f * ns..(f + 1) * ns], &mut target[f * nt..(f + 1) * nt], &mut scratch, at_least)
            .map_err(|error| FrameError { frame: f, error })
    };
    let mut drops = Vec::with_capacity(frames);
    for f in 0..frames {
        drops.push(run(f, 0.0, target)?.pelvis_drop);
    }
    let step = PELVIS_DROP_EASE * map.target_leg_length() / frame_rate.max(1.0);
    // A loop's last frame repeats its first: the cycle is the frames before it, and the last
    // frame takes the first's eased drop, so the output loops as the input does.
    let cycle = if looping && frames > 2 { frames - 1 } else { frames };
    let mut drops = crate::envelope::slew_limited_above(&drops[..cycle], step, looping);
    if cycle < frames {
        drops.push(drops[0]);
    }
    let mut report = ClipRetargetReport::default();
    for (f, &drop) in drops.iter().enumerate() {
        let frame = run(f, drop, target)?;
        for k in 0..2 {
            report.missed[k] += usize::from(!frame.feet_reached[k]);
            report.extension[k] = report.extension[k].max(frame.leg_extension[k]);
        }
        report.largest_drop = report.largest_drop.max(frame.pelvis_drop);
        progress(f + 1);
    }
    Ok(report)
}
