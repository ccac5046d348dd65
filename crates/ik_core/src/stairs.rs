//! Stairs ahead: a flight found from ground heights along a line, and the walking pace that
//! puts one step on each of its treads.
//!
//! **Method** ([`find_flight`]). The ground is sampled along the line every
//! [`StairSettings::spacing`] from [`StairSettings::behind`] behind the start to
//! [`StairSettings::ahead`] past it. Where two neighbouring samples differ by at least half of
//! [`StairSettings::min_rise`], the edge between them is found by bisection
//! ([`StairSettings::bisections`]); it is a riser when the height still jumps by at least
//! `min_rise` across the last bracket (a ramp's slope does not, however steep). A flight is the
//! first run of at least two risers, nearest first, that rise the same way by about the same
//! height ([`StairSettings::rise_tolerance`]) and stand one tread apart, each tread about as
//! deep as the first ([`StairSettings::tread_tolerance`], within
//! `min_tread..=max_tread`). A single step or kerb is not a flight; neither are bumps (their
//! edges alternate up and down).
//!
//! **Pace** ([`stair_speed`], [`step_alignment`]). People take one tread per step: the walk's
//! step shortens to the tread at its cadence, so its speed scales by tread ÷ step. On the
//! approach the speed is nudged so the landing before the first riser lines up with it.
//!
//! **Inputs**: a ground query (distance along the line → ground height, `None` where nothing
//! is hit). **Outputs**: [`Flight`] (distances along the line from its start, heights in the
//! query's units). **Invariants**: at most [`StairSettings::max_samples`] samples plus
//! `bisections` per edge queried; non-finite heights count as no ground; no allocation beyond a
//! fixed-size edge list.
//!
//! ```
//! use ik_core::stairs::{StairSettings, find_flight};
//!
//! // Five 17 cm risers 30 cm apart, the first 1.03 m ahead.
//! let ground = |s: f32| Some(17.0_f32.min(((s - 1.03) / 0.3).floor() + 1.0).max(0.0) * 0.17);
//! let flight = find_flight(ground, &StairSettings::default()).unwrap();
//! assert!((flight.rise - 0.17).abs() < 1e-3 && (flight.tread - 0.3).abs() < 2e-3);
//! assert!((flight.first - 1.03).abs() < 2e-3 && flight.risers >= 3);
//! ```

/// Tuning of [`find_flight`]: lengths in the ground query's units (metres for a human).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct StairSettings {
    /// How far along the line the ground is sampled. Default 2.6: a flight of treads up to
    /// 54 cm is seen (two risers) by the time its first riser is 2 m ahead.
    pub ahead: f32,
    /// How far behind the start the ground is sampled (the flight a body is already on).
    /// Default 0.8.
    pub behind: f32,
    /// Distance between samples; an edge is found between two of them. Default 0.06.
    pub spacing: f32,
    /// Bisections per edge (each halves the bracket). Default 6.
    pub bisections: u32,
    /// Smallest riser. Default 0.05.
    pub min_rise: f32,
    /// Largest riser. Default 0.35.
    pub max_rise: f32,
    /// Shallowest tread. Default 0.15.
    pub min_tread: f32,
    /// Deepest tread. Default 0.8.
    pub max_tread: f32,
    /// How far a riser's height may differ from the first's in one flight. Default 0.03.
    pub rise_tolerance: f32,
    /// How far a tread's depth may differ from the first's in one flight. Default 0.05.
    pub tread_tolerance: f32,
}

impl Default for StairSettings {
    fn default() -> Self {
        StairSettings {
            ahead: 2.6,
            behind: 0.8,
            spacing: 0.06,
            bisections: 6,
            min_rise: 0.05,
            max_rise: 0.35,
            min_tread: 0.15,
            max_tread: 0.8,
            rise_tolerance: 0.03,
            tread_tolerance: 0.05,
        }
    }
}

impl StairSettings {
    /// The most ground samples one [`find_flight`] takes before bisecting (at most 256).
    pub fn max_samples(&self) -> usize {
        let span = (self.ahead.max(0.0) + self.behind.max(0.0)) / self.spacing.max(1e-3);
        if span.is_finite() { (span as usize + 1).min(256) } else { 1 }
    }
}

/// A flight of stairs along a line (see [`find_flight`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
pub struct Flight {
    /// Mean height of its risers: positive going up the line, negative going down.
    pub rise: f32,
    /// Mean depth of its treads along the line.
    pub tread: f32,
    /// Distance along the line of its first riser seen (negative: behind the start).
    pub first: f32,
    /// Distance along the line of its last riser seen.
    pub last: f32,
    /// Risers seen.
    pub risers: usize,
}

/// Most edges [`find_flight`] keeps.
const MAX_EDGES: usize = 32;

/// Finds the nearest flight along a line (see the module docs): `ground(s)` is the ground
/// height at distance `s` along it. `None` when no run of two or more risers is seen that
/// ends ahead of the start.
pub fn find_flight(mut ground: impl FnMut(f32) -> Option<f32>, settings: &StairSettings) -> Option<Flight> {
    let mut ground = |s: f32| ground(s).filter(|h| h.is_finite());
    let (spacing, min_rise) = (settings.spacing.max(1e-3), settings.min_rise.max(1e-4));
    let mut edges = [(0.0f32, 0.0f32); MAX_EDGES];
    let mut count = 0;
    let mut previous: Option<(f32, f32)> = None;
    for i in 0..settings.max_samples() {
        let s = -settings.behind.max(0.0) + i as f32 * spacing;
        let here = ground(s).map(|h| (s, h));
        if let (Some(a), Some(b)) = (previous, here)
            && (b.1 - a.1).abs() >= 0.5 * min_rise
            && let Some(edge) = riser_between(&mut ground, a, b, settings)
            && count < MAX_EDGES
        {
            edges[count] = edge;
            count += 1;
        }
        previous = here;
    }
    first_run(&edges[..count], settings)
}

/// The riser between samples `a` and `b` (`(distance, height)`), bisected: `(distance, rise)`
/// when the height still jumps by `min_rise` (and at most `max_rise`) across the last bracket.
fn riser_between(
    ground: &mut impl FnMut(f32) -> Option<f32>,
    mut a: (f32, f32),
    mut b: (f32, f32),
    settings: &StairSettings,
) -> Option<(f32, f32)> {
    for _ in 0..settings.bisections {
        let s = 0.5 * (a.0 + b.0);
        let h = ground(s)?;
        if (h - a.1).abs() <= (h - b.1).abs() {
            a = (s, h);
        } else {
            b = (s, h);
        }
    }
    let rise = b.1 - a.1;
    (rise.abs() >= settings.min_rise && rise.abs() <= settings.max_rise).then_some((0.5 * (a.0 + b.0), rise))
}

/// The first run of two or more risers of one flight among `edges` (nearest first).
fn first_run(edges: &[(f32, f32)], settings: &StairSettings) -> Option<Flight> {
    let treads = settings.min_tread..=settings.max_tread;
    for start in 0..edges.len().saturating_sub(1) {
        let (s0, r0) = edges[start];
        let tread0 = edges[start + 1].0 - s0;
        let same = |(s, r): (f32, f32), before: f32| {
            r.signum() == r0.signum()
                && (r - r0).abs() <= settings.rise_tolerance
                && treads.contains(&(s - before))
                && (s - before - tread0).abs() <= settings.tread_tolerance
        };
        let mut end = start;
        while end + 1 < edges.len() && same(edges[end + 1], edges[end].0) {
            end += 1;
        }
        // A run that ends behind the start is left behind (the flight up to a landing, seen
        // from the landing): the next one is the one ahead.
        if end > start && edges[end].0 >= 0.0 {
            let run = &edges[start..=end];
            let n = run.len() as f32;
            return Some(Flight {
                rise: run.iter().map(|e| e.1).sum::<f32>() / n,
                tread: (run[run.len() - 1].0 - s0) / (n - 1.0),
                first: s0,
                last: run[run.len() - 1].0,
                risers: run.len(),
            });
        }
    }
    None
}

/// Walking speed on stairs: one tread per step. The walk's step (half its stride, `walk_step`)
/// shortens to `tread` at the walk's cadence, so `walk_speed` scales by their ratio, never
/// faster than the walk.
///
/// ```
/// use ik_core::stairs::stair_speed;
/// assert!((stair_speed(1.4, 0.7, 0.3) - 0.6).abs() < 1e-6);
/// assert_eq!(stair_speed(1.4, 0.25, 0.3), 1.4); // a short step already fits
/// ```
pub fn stair_speed(walk_speed: f32, walk_step: f32, tread: f32) -> f32 {
    if walk_step > 1e-3 && tread > 0.0 { walk_speed * (tread / walk_step).min(1.0) } else { walk_speed }
}

/// Speed factor that lines a walk's landings up with a flight's treads on the approach:
/// `ahead` is how far the first riser lies past the next landing, `tread` the step the walk
/// takes there, `toe_at` how far past a riser a toe lands well (the foot in the middle of the
/// tread: 22 cm into a 32 cm tread for a toe joint about 20 cm ahead of the heel). Landings one
/// tread apart reach the riser off by `e` (wrapped to ±half a tread) from `toe_at`; the steps
/// left before it take that up, so the speed changes by `e` over `ahead` (at most 25 %). 1 once
/// the next landing is the stairs' (within half a tread of the riser).
///
/// ```
/// use ik_core::stairs::step_alignment;
/// assert_eq!(step_alignment(0.1, 0.3, 0.22), 1.0); // the next landing is on the stairs
/// let f = step_alignment(1.2, 0.3, 0.22);
/// assert!(f > 0.75 && f < 1.25);
/// ```
pub fn step_alignment(ahead: f32, tread: f32, toe_at: f32) -> f32 {
    if ahead < 0.5 * tread || tread <= 0.0 || !ahead.is_finite() {
        return 1.0;
    }
    let off = (-ahead - toe_at).rem_euclid(tread);
    let e = if off > 0.5 * tread { off - tread } else { off };
    (1.0 - e / ahead).clamp(0.75, 1.25)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ground with `steps` risers of `rise` every `tread` from `start` along the line.
    fn stairs(start: f32, rise: f32, tread: f32, steps: usize) -> impl Fn(f32) -> Option<f32> {
        move |s: f32| {
            let k = if s < start { 0.0 } else { (((s - start) / tread).floor() + 1.0).min(steps as f32) };
            Some(k * rise)
        }
    }

    #[test]
    fn seeded_random_flights_are_found_up_and_down() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f32 / (1u64 << 53) as f32
        };
        let settings = StairSettings::default();
        for case in 0..200 {
            let rise = 0.10 + 0.12 * random();
            let tread = 0.24 + 0.16 * random();
            let start = -0.5 + 2.0 * random();
            let down = case % 2 == 1;
            let steps = 3 + (6.0 * random()) as usize;
            let up = stairs(start, rise, tread, steps);
            let ground = |s: f32| up(s).map(|h| if down { -h } else { h });
            let visible = (0..steps)
                .map(|k| start + k as f32 * tread)
                .filter(|s| (-settings.behind..settings.ahead - settings.spacing).contains(s))
                .count();
            let found = find_flight(ground, &settings);
            let what = format!("case {case}: rise {rise:.3}, tread {tread:.3}, start {start:.3}, {steps} steps");
            if visible < 2 {
                continue;
            }
            let f = found.unwrap_or_else(|| panic!("{what}: not found"));
            let expected_rise = if down { -rise } else { rise };
            assert!((f.rise - expected_rise).abs() < 2e-3, "{what}: {f:?}");
            assert!((f.tread - tread).abs() < 3e-3, "{what}: {f:?}");
            let first = (0..steps).map(|k| start + k as f32 * tread).find(|s| *s >= -settings.behind).unwrap();
            assert!((f.first - first).abs() < 3e-3, "{what}: {f:?}");
        }
    }

    #[test]
    fn stairs_are_walked_one_tread_per_step_and_the_approach_lines_landings_up() {
        // The mannequin's walk: 1.4 m/s, 0.735 m steps; 32 cm treads.
        let speed = stair_speed(1.4, 0.735, 0.32);
        assert!((speed / 1.4 * 0.735 - 0.32).abs() < 1e-5, "{speed}");
        assert_eq!(stair_speed(1.4, 0.0, 0.32), 1.4, "no step known: the walk's speed");
        // A landing 1.0 m before the riser, 32 cm steps: 1.0 = 3 steps + 4 cm, so the 4th
        // landing would be 28 cm past the riser where 22 cm lands well: 6 cm long, so slow down
        // by 6 % over the metre.
        let factor = step_alignment(1.0, 0.32, 0.22);
        assert!(factor < 1.0 && ((1.0 - factor) - 0.06).abs() < 1e-4, "{factor}");
        // Exactly in line: unchanged; off by half a tread: at most a quarter.
        assert!((step_alignment(0.64 - 0.22, 0.32, 0.22) - 1.0).abs() < 1e-4);
        assert!((0.75..=1.25).contains(&step_alignment(0.5, 0.32, 0.22)));
        assert_eq!(step_alignment(0.1, 0.32, 0.22), 1.0);
    }

    #[test]
    fn a_single_step_a_ramp_and_bumps_are_not_a_flight() {
        let settings = StairSettings::default();
        let step = |s: f32| Some(if s > 0.7 { 0.15 } else { 0.0 });
        assert_eq!(find_flight(step, &settings), None);
        let ramp = |s: f32| Some(s.max(0.0) * 30f32.to_radians().tan());
        assert_eq!(find_flight(ramp, &settings), None);
        let bumps = |s: f32| Some(if (s * 3.0).floor() as i32 % 2 == 0 { 0.0 } else { 0.08 });
        assert_eq!(find_flight(bumps, &settings), None);
        let nothing = |_: f32| None;
        assert_eq!(find_flight(nothing, &settings), None);
    }

    #[test]
    fn the_flight_under_or_ahead_is_reported_not_one_left_behind() {
        let settings = StairSettings::default();
        // Going down: risers behind the start (already on the flight) and ahead.
        let on = stairs(-0.65, -0.17, 0.3, 8);
        let f = find_flight(on, &settings).unwrap();
        assert!(f.first < 0.0 && f.last > 0.0 && f.rise < 0.0, "{f:?}");
        // On a landing: the flight up behind, the flight down 0.4 m ahead.
        let up = stairs(-1.3, 0.17, 0.3, 4);
        let landing = |s: f32| up(s).map(|h| if s < 0.4 { h } else { h - stairs(0.4, 0.17, 0.3, 4)(s).unwrap_or(0.0) });
        let f = find_flight(landing, &settings).unwrap();
        assert!((f.first - 0.4).abs() < 2e-3 && f.rise < 0.0, "{f:?}");
        // Past the end of a flight: none.
        assert_eq!(find_flight(stairs(-0.75, 0.17, 0.3, 3), &settings), None);
    }
}
