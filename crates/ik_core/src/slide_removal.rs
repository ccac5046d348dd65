//! Offline foot-slide removal over a whole clip.
//!
//! **Method.** Pelvis and toe positions of every frame are particles, solved together by
//! position-based constraint projection (Gauss–Seidel sweeps over the frames):
//! - *soft* (factor `soft_factor`): the pelvis keeps its source frame-to-frame motion; a toe
//!   not in contact on two adjacent frames keeps its source motion (and stays above the floor);
//! - *hard* (factor `hard_factor`): a toe in contact on two adjacent frames is pulled to one
//!   shared point at floor height; each leg's heel point (toe + its source toe→heel offset) is
//!   kept within the leg chain's exact reach of the hip (pelvis + its source pelvis→hip offset),
//!   by moving pelvis and toe toward each other.
//!
//! After the sweeps, one last pass projects every reach constraint fully (so every target is
//! reachable), then each frame is re-posed: the pelvis is moved to its solved position and each
//! leg is re-solved with the heel/toe [`leg`](crate::leg) chain to its solved toe.
//!
//! **Inputs.** The clip's local poses (frame-major, one [`Xform`] per bone per frame), whose
//! model space is the space a planted foot stands still in (root motion included; floor at
//! y = 0), per-foot leg chains, contact labels and floor heights, [`SlideRemovalSettings`].
//!
//! **Outputs.** [`SlideRemovalResult`]: the corrected locals (only the pelvis translation and
//! the legs' rotations change), the solved trajectories and the toe travel during contacts
//! before and after.
//!
//! **Invariants.** Every solved heel point is within the leg's exact reach of its hip, so every
//! leg re-solve reaches its toe target. Bad input returns an [`IkError`]; nothing non-finite is
//! produced. Offline: allocates its outputs.

use glam::Vec3;

use crate::leg::{LegChain, LegMinHeights, LegSettings, solve_leg, validate_chain};
use crate::{IkError, Xform};

/// Tuning of the slide removal. Defaults follow the usual recipe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideRemovalSettings {
    /// Constraint sweeps over the whole clip. Default 25 000.
    pub iterations: usize,
    /// Fraction of a soft constraint's error removed per sweep, in `[0, 1]`. Default 0.05.
    pub soft_factor: f32,
    /// Fraction of a hard constraint's error removed per sweep, in `[0, 1]`. Default 0.9.
    pub hard_factor: f32,
    /// How the legs are re-solved (its `min_heights` is replaced by each foot's).
    pub leg: LegSettings,
}

impl Default for SlideRemovalSettings {
    fn default() -> Self {
        SlideRemovalSettings {
            iterations: 25_000,
            soft_factor: 0.05,
            hard_factor: 0.9,
            leg: LegSettings { knee_side: Some(Vec3::X), ..Default::default() },
        }
    }
}

/// One foot of the clip.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideFoot<'a> {
    /// The leg's bones (the toe is required).
    pub chain: LegChain,
    /// Contact label per frame.
    pub contacts: &'a [bool],
    /// Ground clamp heights; `toe` is the floor height planted toes are locked at.
    pub min_heights: LegMinHeights,
}

/// One foot's trajectories for [`solve_trajectories`], all per frame, model space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FootTrack<'a> {
    /// Source toe positions.
    pub toes: &'a [Vec3],
    /// Source hip minus source pelvis (the hip rides rigidly on the pelvis).
    pub hip_offsets: &'a [Vec3],
    /// Source heel (ankle) minus source toe.
    pub heel_offsets: &'a [Vec3],
    /// Contact label per frame.
    pub contacts: &'a [bool],
    /// Height planted toes are locked at.
    pub floor: f32,
    /// Longest allowed hip→heel distance.
    pub reach: f32,
}

/// Solves pelvis and toe trajectories (see the module docs). Returns the pelvis positions
/// and, per foot, the toe positions. `progress(done, total)` is called now and then with
/// `total = settings.iterations`.
pub fn solve_trajectories(
    pelvis: &[Vec3],
    feet: &[FootTrack<'_>],
    settings: &SlideRemovalSettings,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Vec<Vec3>, Vec<Vec<Vec3>>), IkError> {
    let n = pelvis.len();
    for f in feet {
        for len in [f.toes.len(), f.hip_offsets.len(), f.heel_offsets.len(), f.contacts.len()] {
            if len != n {
                return Err(IkError::LengthMismatch { expected: n, got: len });
            }
        }
        let finite = f.toes.iter().chain(f.hip_offsets).chain(f.heel_offsets).all(|v| v.is_finite());
        if !(finite && f.floor.is_finite() && f.reach.is_finite()) {
            return Err(IkError::NonFiniteInput);
        }
    }
    if !(pelvis.iter().all(|v| v.is_finite()) && settings.soft_factor.is_finite() && settings.hard_factor.is_finite()) {
        return Err(IkError::NonFiniteInput);
    }
    let soft = settings.soft_factor.clamp(0.0, 1.0);
    let hard = settings.hard_factor.clamp(0.0, 1.0);
    let mut solved_pelvis = pelvis.to_vec();
    let mut toes: Vec<Vec<Vec3>> = feet.iter().map(|f| f.toes.to_vec()).collect();
    let total = settings.iterations;
    let report_every = (total / 100).max(1);
    for iteration in 0..total {
        if iteration % report_every == 0 {
            progress(iteration, total);
        }
        for i in 0..n {
            if i > 0 {
                // Soft: the pelvis keeps its source motion between frames.
                let error = (solved_pelvis[i] - solved_pelvis[i - 1]) - (pelvis[i] - pelvis[i - 1]);
                solved_pelvis[i - 1] += error * soft;
                solved_pelvis[i] -= error * soft;
                for (f, toe) in feet.iter().zip(toes.iter_mut()) {
                    if f.contacts[i - 1] && f.contacts[i] {
                        // Hard: planted toes on adjacent frames meet, on the floor.
                        let mut meet = (toe[i - 1] + toe[i]) * 0.5;
                        meet.y = f.floor;
                        toe[i - 1] = toe[i - 1].lerp(meet, hard);
                        toe[i] = toe[i].lerp(meet, hard);
                    } else {
                        // Soft: a moving toe keeps its source motion, above the floor.
                        let source = f.toes[i] - f.toes[i - 1];
                        let mut prev_goal = toe[i] - source;
                        let mut curr_goal = toe[i - 1] + source;
                        prev_goal.y = prev_goal.y.max(f.floor);
                        curr_goal.y = curr_goal.y.max(f.floor);
                        toe[i - 1] = toe[i - 1].lerp(prev_goal, soft);
                        toe[i] = toe[i].lerp(curr_goal, soft);
                    }
                }
            }
            for (f, toe) in feet.iter().zip(toes.iter_mut()) {
                keep_in_reach(&mut solved_pelvis[i], &mut toe[i], f, i, hard);
            }
        }
    }
    // Final full projection: every heel target reachable.
    for i in 0..n {
        for _ in 0..4 {
            for (f, toe) in feet.iter().zip(toes.iter_mut()) {
                keep_in_reach(&mut solved_pelvis[i], &mut toe[i], f, i, 1.0);
            }
        }
    }
    progress(total, total);
    let finite = solved_pelvis.iter().chain(toes.iter().flatten()).all(|v| v.is_finite());
    if finite { Ok((solved_pelvis, toes)) } else { Err(IkError::NonFiniteInput) }
}

/// Hard reach constraint of one foot on one frame: pelvis and toe move toward each other until
/// the heel point is within reach of the hip.
fn keep_in_reach(pelvis: &mut Vec3, toe: &mut Vec3, foot: &FootTrack<'_>, frame: usize, factor: f32) {
    let hip = *pelvis + foot.hip_offsets[frame];
    let heel = *toe + foot.heel_offsets[frame];
    let span = heel - hip;
    let length = span.length();
    let reach = foot.reach.max(0.0);
    if length > reach && length > 0.0 {
        let shift = span * ((length - reach) / length * factor * 0.5);
        *pelvis += shift;
        *toe -= shift;
    }
}

/// What [`remove_foot_slide`] produced.
#[derive(Clone, Debug, PartialEq)]
pub struct SlideRemovalResult {
    /// Corrected locals, frame-major like the input.
    pub locals: Vec<Xform>,
    /// Solved pelvis model positions per frame.
    pub pelvis: Vec<Vec3>,
    /// Solved toe targets per foot per frame.
    pub toe_targets: Vec<Vec<Vec3>>,
    /// Toe travel during contacts per foot in the input, m.
    pub toe_travel_before: Vec<f32>,
    /// Toe travel during contacts per foot in the output (measured on the re-posed legs), m.
    pub toe_travel_after: Vec<f32>,
}

/// Total distance a toe moves between adjacent frames that are both labelled in contact.
pub fn toe_contact_travel(toes: &[Vec3], contacts: &[bool]) -> f32 {
    let n = toes.len().min(contacts.len());
    (1..n).filter(|&i| contacts[i - 1] && contacts[i]).map(|i| (toes[i] - toes[i - 1]).length()).sum()
}

/// Removes foot sliding from a clip (see the module docs). `locals` holds `frames × bones`
/// transforms, frame-major, with `bones = parents.len()`. `progress(done, total)` reports the
/// constraint sweeps, then the frames re-posed.
pub fn remove_foot_slide(
    parents: &[Option<usize>],
    pelvis: usize,
    feet: &[SlideFoot<'_>],
    locals: &[Xform],
    settings: &SlideRemovalSettings,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<SlideRemovalResult, IkError> {
    let bones = parents.len();
    if bones == 0 || pelvis >= bones {
        return Err(IkError::BrokenHierarchy { bone: pelvis });
    }
    if !locals.len().is_multiple_of(bones) {
        return Err(IkError::LengthMismatch { expected: locals.len() / bones * bones, got: locals.len() });
    }
    if !locals.iter().all(Xform::is_finite) {
        return Err(IkError::NonFiniteInput);
    }
    let frames = locals.len() / bones;
    let mut model = vec![Xform::IDENTITY; locals.len()];
    for (l, m) in locals.chunks_exact(bones).zip(model.chunks_exact_mut(bones)) {
        crate::skeleton::forward_kinematics(parents, l, &Xform::IDENTITY, m)?;
    }
    for foot in feet {
        if foot.contacts.len() != frames {
            return Err(IkError::LengthMismatch { expected: frames, got: foot.contacts.len() });
        }
        validate_chain(parents, &locals[..bones], &model[..bones], &foot.chain)?;
        if foot.chain.toe.is_none() {
            return Err(IkError::ChainTooShort { needed: 4, got: 3 });
        }
        if !crate::leg::descends_from(parents, foot.chain.hip, pelvis) {
            return Err(IkError::BrokenHierarchy { bone: foot.chain.hip });
        }
    }

    // Source trajectories.
    let at = |f: usize, b: usize| model[f * bones + b].translation;
    let source_pelvis: Vec<Vec3> = (0..frames).map(|f| at(f, pelvis)).collect();
    let mut source_toes = Vec::with_capacity(feet.len());
    let mut hip_offsets = Vec::with_capacity(feet.len());
    let mut heel_offsets = Vec::with_capacity(feet.len());
    let mut reaches = Vec::with_capacity(feet.len());
    for foot in feet {
        let c = foot.chain;
        let toe = c.toe.unwrap_or(c.ankle);
        source_toes.push((0..frames).map(|f| at(f, toe)).collect::<Vec<_>>());
        hip_offsets.push((0..frames).map(|f| at(f, c.hip) - at(f, pelvis)).collect::<Vec<_>>());
        heel_offsets.push((0..frames).map(|f| at(f, c.ankle) - at(f, toe)).collect::<Vec<_>>());
        let leg_length = if frames > 0 {
            (at(0, c.knee) - at(0, c.hip)).length() + (at(0, c.ankle) - at(0, c.knee)).length()
        } else {
            0.0
        };
        // A hair inside the exact reach, so rounding never lands in the soft zone.
        reaches.push(settings.leg.exact_reach(leg_length) * 0.9995);
    }
    let tracks: Vec<FootTrack<'_>> = feet
        .iter()
        .enumerate()
        .map(|(k, foot)| FootTrack {
            toes: &source_toes[k],
            hip_offsets: &hip_offsets[k],
            heel_offsets: &heel_offsets[k],
            contacts: foot.contacts,
            floor: foot.min_heights.toe,
            reach: reaches[k],
        })
        .collect();
    let total = settings.iterations + frames;
    let (solved_pelvis, toe_targets) =
        solve_trajectories(&source_pelvis, &tracks, settings, &mut |done, _| progress(done, total))?;

    // Re-pose every frame.
    let mut out = locals.to_vec();
    let mut frame_model = vec![Xform::IDENTITY; bones];
    let mut toes_after: Vec<Vec<Vec3>> = vec![Vec::with_capacity(frames); feet.len()];
    for f in 0..frames {
        let frame = &mut out[f * bones..(f + 1) * bones];
        crate::skeleton::forward_kinematics(parents, frame, &Xform::IDENTITY, &mut frame_model)?;
        frame[pelvis].translation = match parents[pelvis] {
            Some(p) => frame_model[p].inverse_transform_point(solved_pelvis[f]),
            None => solved_pelvis[f],
        };
        crate::skeleton::forward_kinematics(parents, frame, &Xform::IDENTITY, &mut frame_model)?;
        for (k, foot) in feet.iter().enumerate() {
            let leg = LegSettings { min_heights: Some(foot.min_heights), ..settings.leg };
            solve_leg(parents, frame, &mut frame_model, &foot.chain, toe_targets[k][f], &leg)?;
        }
        for (k, foot) in feet.iter().enumerate() {
            toes_after[k].push(frame_model[foot.chain.toe.unwrap_or(foot.chain.ankle)].translation);
        }
        progress(settings.iterations + f + 1, total);
    }
    let toe_travel_before =
        feet.iter().zip(&source_toes).map(|(foot, t)| toe_contact_travel(t, foot.contacts)).collect();
    let toe_travel_after = feet.iter().zip(&toes_after).map(|(foot, t)| toe_contact_travel(t, foot.contacts)).collect();
    Ok(SlideRemovalResult { locals: out, pelvis: solved_pelvis, toe_targets, toe_travel_before, toe_travel_after })
}
