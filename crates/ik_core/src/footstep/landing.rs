//! Landing fitting for footstep prediction: whether a predicted footprint rests on one level
//! ([`landing_fits`]), and which shift along the stride makes it do so ([`choose_landing`]).
//! See [`super`] for the method.
//! Invariants: every shift returned lies within [`FootstepSettings::max_shift`]; a ground
//! query that finds nothing under a footprint point makes that footprint not fit.

use glam::Vec3;

use super::FootstepSettings;

/// The ground a landing is fitted on: the height under a world point, and, where the caller can
/// tell, whether anything stands up between those points under a sole. Any
/// `FnMut(Vec3) -> Option<f32>` (the height under a world point) is one that sees nothing
/// between its points.
///
/// ```
/// use glam::Vec3;
/// use ik_core::footstep::{FootprintGround, FootstepSettings, landing_fits};
///
/// /// Flat floor with a 2 cm wide rail 5 cm high across z = 1.04, between the samples.
/// struct Railed;
/// impl FootprintGround for Railed {
///     fn height(&mut self, _: Vec3) -> Option<f32> {
///         Some(0.0)
///     }
///     fn clear(&mut self, heel: Vec3, tip: Vec3, top: f32) -> bool {
///         let (from, to) = (heel.z.min(tip.z), heel.z.max(tip.z));
///         !(from <= 1.05 && to >= 1.03 && 0.05 > top)
///     }
/// }
/// let settings = FootstepSettings::default();
/// assert!(landing_fits(Vec3::new(0.0, 0.0, 1.1), Vec3::Z, (0.2, 0.08), 0.0, &mut |_: Vec3| Some(0.0), &settings));
/// assert!(!landing_fits(Vec3::new(0.0, 0.0, 1.1), Vec3::Z, (0.2, 0.08), 0.0, &mut Railed, &settings));
/// ```
pub trait FootprintGround {
    /// Height of the ground under the world point `p`, if any.
    fn height(&mut self, p: Vec3) -> Option<f32>;

    /// Whether a sole from `heel` to `tip` (world points on the ground, along the stride) is
    /// clear of anything higher than `top` that the height samples may have passed between (a
    /// rail, a lip, a nosing). Default: clear.
    fn clear(&mut self, heel: Vec3, tip: Vec3, top: f32) -> bool {
        let _ = (heel, tip, top);
        true
    }
}

impl<F: FnMut(Vec3) -> Option<f32>> FootprintGround for F {
    fn height(&mut self, p: Vec3) -> Option<f32> {
        self(p)
    }
}

/// Whether the footprint of a toe landing at `at` (world), shifted by `shift` along `forward`
/// (horizontal), from `back` behind the toe to `front` ahead of it, rests on one surface: the
/// ground heights sampled along it (`ground`: height under a world point) stay within
/// [`FootstepSettings::edge_height`] of the straight line between its ends (a ramp fits, a riser
/// or a kerb under it does not), and nothing stands higher between them
/// ([`FootprintGround::clear`]). A sample with no ground does not fit.
pub fn landing_fits<G: FootprintGround + ?Sized>(
    at: Vec3,
    forward: Vec3,
    (back, front): (f32, f32),
    shift: f32,
    ground: &mut G,
    settings: &FootstepSettings,
) -> bool {
    const SAMPLES: usize = 6;
    let Some(forward) = Vec3::new(forward.x, 0.0, forward.z).try_normalize() else { return true };
    let length = back + front;
    if !(at.is_finite() && length.is_finite() && shift.is_finite()) || length <= 0.0 {
        return true;
    }
    let mut heights = [0.0f32; SAMPLES];
    for (i, h) in heights.iter_mut().enumerate() {
        let along = -back + length * i as f32 / (SAMPLES - 1) as f32;
        let Some(g) = ground.height(at + forward * (shift + along)) else { return false };
        *h = g;
    }
    let (first, last) = (heights[0], heights[SAMPLES - 1]);
    let one_surface = heights.iter().enumerate().all(|(i, h)| {
        let line = first + (last - first) * i as f32 / (SAMPLES - 1) as f32;
        (h - line).abs() <= settings.edge_height
    });
    let end = |along: f32, height: f32| {
        let p = at + forward * (shift + along);
        Vec3::new(p.x, height, p.z)
    };
    one_surface && ground.clear(end(-back, first), end(front, last), first.max(last) + settings.edge_height)
}

/// The smallest shift (in [`FootstepSettings::search_step`]s, back before forward, at most
/// [`FootstepSettings::max_shift`], 0 excluded) along `forward` that makes the landing
/// [`landing_fits`]; `None` when none does.
///
/// ```
/// use glam::Vec3;
/// use ik_core::footstep::{FootstepSettings, landing_fits, search_landing};
///
/// // A riser at z = 1: the tread beyond is 20 cm higher. A toe landing at z = 0.95 (footprint
/// // 0.2 m back, 0.08 m ahead) straddles it; the search moves it back until the tip is clear.
/// let mut ground = |p: Vec3| Some(if p.z > 1.0 { 0.2 } else { 0.0 });
/// let (at, settings) = (Vec3::new(0.0, 0.0, 0.95), FootstepSettings::default());
/// assert!(!landing_fits(at, Vec3::Z, (0.2, 0.08), 0.0, &mut ground, &settings));
/// let shift = search_landing(at, Vec3::Z, (0.2, 0.08), &mut ground, &settings).unwrap();
/// assert!(0.95 + shift + 0.08 <= 1.0 && shift >= -0.15, "{shift}");
/// ```
pub fn search_landing<G: FootprintGround + ?Sized>(
    at: Vec3,
    forward: Vec3,
    footprint: (f32, f32),
    ground: &mut G,
    settings: &FootstepSettings,
) -> Option<f32> {
    let (max, step) = (settings.max_shift.max(0.0), settings.search_step.max(1e-3));
    let mut k = 1.0f32;
    while k * step <= max + 1e-6 {
        for shift in [-k * step, k * step] {
            if landing_fits(at, forward, footprint, shift, ground, settings) {
                return Some(shift);
            }
        }
        k += 1.0;
    }
    None
}

/// Whether a landing `shift` chosen by [`choose_landing`] still fits where the foot is now
/// predicted to land, with the least room of [`choose_landing`]'s tight tiers (a landing its
/// last, going-up tier chose reads as not fitting, so the caller searches again). Cheap (a
/// footprint of rays, two more and one [`FootprintGround::clear`]), so a caller between
/// searches can tell that its shift no longer does.
pub fn landing_still_fits<G: FootprintGround + ?Sized>(
    at: Vec3,
    forward: Vec3,
    (back, front): (f32, f32),
    shift: f32,
    ground: &mut G,
    settings: &FootstepSettings,
) -> bool {
    let up = rises_ahead(at, forward, (back, front), ground, settings);
    let [_, (behind, ahead)] = tight_tiers((back, front), up, settings);
    landing_fits(at, forward, (back + behind, front + ahead), shift, ground, settings)
}

/// The footprint of [`choose_landing`]'s last tier, where any overhang is allowed: going up,
/// the ball and the tip with the tip's margin (the heel hangs as far as it must); going down,
/// the heel with its margin and the arch up to [`FootstepSettings::tight_overhang`] of the
/// foot behind the ball (the ball at the nosing, the toes hanging over it); else none.
fn big_foot_print((back, front): (f32, f32), up: bool, settings: &FootstepSettings) -> Option<(f32, f32)> {
    let (margin, hang) = (settings.edge_margin.max(0.0), settings.tight_overhang.min(1.0));
    (hang > 0.0).then_some(if up { (0.0, front + margin) } else { (back + margin, -hang * (back + front)) })
}

/// Whether the ground rises ahead of a landing at `at` rather than behind it, compared
/// [`FootstepSettings::max_shift`] beyond the footprint's ends (`(back, front)`): up a flight
/// the toe tip faces the next riser, down one the heel faces the nosing it stepped off. Level
/// ground, or ground not found at either end, counts as rising ahead.
///
/// ```
/// use glam::Vec3;
/// use ik_core::footstep::{FootstepSettings, rises_ahead};
///
/// let mut down = |p: Vec3| Some(-(p.z / 0.3).floor() * 0.17); // 30 cm treads, each 17 cm lower
/// let settings = FootstepSettings::default();
/// assert!(!rises_ahead(Vec3::new(0.0, 0.0, 0.5), Vec3::Z, (0.2, 0.07), &mut down, &settings));
/// assert!(rises_ahead(Vec3::new(0.0, 0.0, 0.5), Vec3::NEG_Z, (0.2, 0.07), &mut down, &settings));
/// ```
pub fn rises_ahead<G: FootprintGround + ?Sized>(
    at: Vec3,
    forward: Vec3,
    (back, front): (f32, f32),
    ground: &mut G,
    settings: &FootstepSettings,
) -> bool {
    let reach = settings.max_shift.max(0.0);
    let behind = ground.height(at - forward * (back + reach));
    let ahead = ground.height(at + forward * (front + reach));
    !matches!((behind, ahead), (Some(b), Some(a)) if b > a + settings.edge_height)
}

/// The room (behind the heel, ahead of the tip; negative: hanging over) of
/// [`choose_landing`]'s two tight tiers: all of [`FootstepSettings::edge_margin`] at the end
/// facing higher ground ([`rises_ahead`]), half of it at the other; then all of it and up to
/// [`FootstepSettings::tight_overhang`] of the foot over the lower level.
fn tight_tiers((back, front): (f32, f32), up: bool, settings: &FootstepSettings) -> [(f32, f32); 2] {
    let margin = settings.edge_margin.max(0.0);
    let hang = -settings.tight_overhang.clamp(0.0, 1.0) * (back + front);
    // (higher end, lower end) as (behind, ahead).
    let orient = |high: f32, low: f32| if up { (low, high) } else { (high, low) };
    [orient(margin, 0.5 * margin), orient(margin, hang)]
}

/// What [`choose_landing`] decided for a swing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LandingChoice {
    /// The shift along the stride, m (0: the animation's own landing).
    pub shift: f32,
    /// The footprint fits there with [`FootstepSettings::edge_margin`] to spare beyond its heel
    /// and its toe tip.
    pub roomy: bool,
    /// It fits there at all; false when nothing within [`FootstepSettings::max_shift`] does
    /// (the shift is then 0: the animation's landing).
    pub fits: bool,
}

/// Chooses where a swing lands along the stride (see [`landing_fits`] for the arguments):
/// `current` (the shift chosen so far) while it fits with room to spare, else the animation's
/// own landing if that does, else the nearest shift that does ([`search_landing`]); when
/// nothing fits with room, with [`FootstepSettings::tight_fit`] the middle of the run of shifts
/// nearest `current` that fit with the room of a tight tier (a tread barely longer than the
/// foot: see [`FootstepSettings::tight_fit`]), else for a tread shorter than the foot (see
/// [`FootstepSettings::tight_overhang`]) going up the last of those shifts where the ball and
/// the tip fit with the tip's margin, going down the first where the heel with its margin and
/// the arch do, else the animation's landing.
///
/// ```
/// use glam::Vec3;
/// use ik_core::footstep::{FootstepSettings, choose_landing};
///
/// // A riser at z = 1. A toe landing at z = 0.93 with a footprint 0.2 m back, 0.08 m ahead
/// // would put its tip 1 cm onto the upper tread; with 2 cm to spare, it moves back 4 cm (the
/// // search's 2 cm steps).
/// let mut ground = |p: Vec3| Some(if p.z > 1.0 { 0.2 } else { 0.0 });
/// let at = Vec3::new(0.0, 0.0, 0.93);
/// let choice = choose_landing(at, Vec3::Z, (0.2, 0.08), 0.0, &mut ground, &FootstepSettings::default());
/// assert!(choice.roomy && choice.fits && (choice.shift + 0.04).abs() < 1e-5, "{choice:?}");
/// ```
pub fn choose_landing<G: FootprintGround + ?Sized>(
    at: Vec3,
    forward: Vec3,
    (back, front): (f32, f32),
    current: f32,
    ground: &mut G,
    settings: &FootstepSettings,
) -> LandingChoice {
    let margin = settings.edge_margin.max(0.0);
    let roomy = (back + margin, front + margin);
    let found = |shift: f32, roomy: bool| LandingChoice { shift, roomy, fits: true };
    if landing_fits(at, forward, roomy, current, ground, settings) {
        return found(current, true);
    }
    if current != 0.0 && landing_fits(at, forward, roomy, 0.0, ground, settings) {
        return found(0.0, true);
    }
    if let Some(shift) = search_landing(at, forward, roomy, ground, settings) {
        return found(shift, true);
    }
    if !settings.tight_fit {
        return LandingChoice { shift: 0.0, roomy: false, fits: false };
    }
    // No room to spare at both ends: the middle of the run of fits with the room of a tight
    // tier (unreal's heel, 1 cm short of the middle of a 30 cm tread with half a centimetre
    // to spare, caught the nosing going down and stood the foot on it). The run nearest the
    // shift the swing already has, so a prediction moving by a centimetre does not flip the
    // landing to the other side of an edge late in the swing.
    let up = rises_ahead(at, forward, (back, front), ground, settings);
    for (behind, ahead) in tight_tiers((back, front), up, settings) {
        let print = (back + behind, front + ahead);
        if let Some((first, last)) = run_of_fits(at, forward, print, current, ground, settings) {
            return found((first + last) * 0.5, false);
        }
    }
    match big_foot_landing(at, forward, (back, front), up, current, ground, settings) {
        Some(shift) => found(shift, false),
        None => LandingChoice { shift: 0.0, roomy: false, fits: false },
    }
}

/// [`choose_landing`]'s last tier: a foot longer than the tread, as a big foot takes stairs
/// (where any overhang is allowed): going up the ball on the tread and the tip with its margin
/// to spare, the heel hanging over the lower level; going down the heel with its margin and the
/// arch on the tread, the toes hanging over the nosing. The best end (going up the last shift,
/// going down the first) of the run of shifts where that fits nearest `current`, passing over a
/// run whose best end is at [`FootstepSettings::max_shift`] while another fits: that run goes
/// on past the limit, so the foot cannot reach its best landing there (going up, a 32 cm sole
/// stood half over the nosing of a 30 cm tread where the tread behind held all but 4 cm of
/// it). `None` unless the hanging end is over a lower level (a tread, not a ramp or rough
/// ground).
fn big_foot_landing<G: FootprintGround + ?Sized>(
    at: Vec3,
    forward: Vec3,
    (back, front): (f32, f32),
    up: bool,
    current: f32,
    ground: &mut G,
    settings: &FootstepSettings,
) -> Option<f32> {
    let print = big_foot_print((back, front), up, settings)?;
    let end = |(first, last): (f32, f32)| if up { last } else { first };
    let limit = settings.max_shift.max(0.0) - 1e-4;
    // A run cut short ranks behind every run that is not (distances are at most 2 max_shift).
    let cut_short = |run: (f32, f32)| if end(run).abs() >= limit { 1e3 } else { 0.0 };
    let rank = |run: (f32, f32)| cut_short(run) + distance(run, current);
    let shift = end(best_run_of_fits(at, forward, print, ground, settings, rank)?);
    let along_stride = Vec3::new(forward.x, 0.0, forward.z).normalize_or_zero();
    let height = |along: f32, g: &mut G| g.height(at + along_stride * (shift + along));
    let (hanging_end, standing_end) = if up { (-back, front) } else { (front, -back) };
    let (hanging, standing) = (height(hanging_end, ground), height(standing_end, ground));
    matches!((hanging, standing), (Some(h), Some(s)) if h < s - settings.edge_height).then_some(shift)
}

/// Of the runs of shifts (first, last; half a search step apart, within
/// [`FootstepSettings::max_shift`]) at which `print` [`landing_fits`], the one `rank` ranks
/// lowest (ties: the first); `None` when none fits.
fn best_run_of_fits<G: FootprintGround + ?Sized>(
    at: Vec3,
    forward: Vec3,
    print: (f32, f32),
    ground: &mut G,
    settings: &FootstepSettings,
    rank: impl Fn((f32, f32)) -> f32,
) -> Option<(f32, f32)> {
    let half_step = 0.5 * settings.search_step.max(1e-3);
    let steps = (settings.max_shift.max(0.0) / half_step + 1e-3) as i32;
    let mut best: Option<((f32, f32), f32)> = None;
    let mut run: Option<i32> = None;
    for k in -steps..=steps + 1 {
        let fit = k <= steps && landing_fits(at, forward, print, k as f32 * half_step, ground, settings);
        match (fit, run) {
            (true, None) => run = Some(k),
            (false, Some(start)) => {
                let shifts = (start as f32 * half_step, (k - 1) as f32 * half_step);
                let score = rank(shifts);
                if best.is_none_or(|(_, b)| score < b) {
                    best = Some((shifts, score));
                }
                run = None;
            }
            _ => {}
        }
    }
    best.map(|(shifts, _)| shifts)
}

/// The run of fits (see [`best_run_of_fits`]) nearest the shift `near`.
fn run_of_fits<G: FootprintGround + ?Sized>(
    at: Vec3,
    forward: Vec3,
    print: (f32, f32),
    near: f32,
    ground: &mut G,
    settings: &FootstepSettings,
) -> Option<(f32, f32)> {
    best_run_of_fits(at, forward, print, ground, settings, |run| distance(run, near))
}

/// How far the shift `near` (0 if not finite) lies outside the run of shifts `(first, last)`.
fn distance((first, last): (f32, f32), near: f32) -> f32 {
    let near = if near.is_finite() { near } else { 0.0 };
    (first - near).max(near - last).max(0.0)
}
