//! The IK frame budget: past [`IkBudget::micros`] of IK per frame, the characters farthest from
//! the [`crate::lod::IkLodViewer`] are solved every 2nd or every 4th frame; in between they
//! keep last frame's corrections on their new animated pose (`BoneSet::replay`). The nearest
//! ([`IkBudget::always_within`]) are solved every frame.
//!
//! **Method.** The IK window (from the level choice in [`crate::IkSystems::Prepare`] to the
//! end of [`crate::IkSystems::Chains`]) is timed every frame; its time divided by the characters solved
//! in it, smoothed, is the cost of one solve (fixed costs and ungoverned chains included, so the
//! estimate errs high and the window settles at the budget). Affordable solves per frame =
//! budget ÷ cost; the most characters solved every frame that this allows, nearest first, the
//! rest every 2nd frame, or if even that is too much every 4th. A character at rate `r` is
//! solved on the frames where `(frame + its entity index) % r == 0`, so the skipped ones
//! spread evenly over frames. The state is in [`IkBudgetReport`].

use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::lod::{IkLevel, IkLodState};

/// The IK time per frame to stay within (a live-editable resource). Only characters with an
/// [`crate::lod::IkLod`] are slowed down.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands) {
/// // 4 ms of IK per frame; characters within 10 m of the viewer are solved every frame.
/// commands.insert_resource(IkBudget { micros: 4000.0, always_within: 10.0 });
/// # }
/// ```
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default)]
pub struct IkBudget {
    /// IK time per frame aimed at, µs. 0 (default): no budget, every character every frame.
    pub micros: f32,
    /// Characters nearer the viewer than this are solved every frame whatever the budget, m.
    /// Default 10.
    pub always_within: f32,
}

impl Default for IkBudget {
    fn default() -> Self {
        IkBudget { micros: 0.0, always_within: 10.0 }
    }
}

/// What the frame budget measured and decided (a resource, read-only in practice).
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default)]
pub struct IkBudgetReport {
    /// Last frame's IK window, µs.
    pub last_micros: f32,
    /// The smoothed cost of solving one character, µs (0 before the first measurement).
    pub micros_per_solve: f32,
    /// Characters solved every frame, every 2nd and every 4th (those at [`IkLevel::Off`] with
    /// nothing left to fade are not counted).
    pub at_rate: [usize; 3],
    /// Characters solved this frame.
    pub solved: usize,
    /// Frames since the budget started counting.
    pub frame: u64,
    #[reflect(ignore)]
    started: Option<Instant>,
    #[reflect(ignore)]
    order: Vec<(f32, Entity)>,
}

/// How many characters of `n` (of which `near` must be every frame) to solve every frame and
/// every 2nd frame, the rest every 4th, for `affordable` solves per frame.
///
/// ```
/// # use bevy_ik::budget::split_rates;
/// assert_eq!(split_rates(100, 0, 1000.0), (100, 0)); // within budget: all every frame
/// assert_eq!(split_rates(100, 0, 75.0), (50, 50)); // 50 + 50 / 2 = 75
/// assert_eq!(split_rates(100, 10, 20.0), (10, 0)); // 10 + 90 / 4 = 32.5: over, but the floor
/// ```
pub fn split_rates(n: usize, near: usize, affordable: f32) -> (usize, usize) {
    let near = near.min(n);
    let (nf, nearf) = (n as f32, near as f32);
    if affordable.is_nan() || affordable >= nf {
        return (n, 0);
    }
    // k every frame, the rest every 2nd: k + (n − k) / 2 ≤ affordable.
    let every = (2.0 * affordable - nf).floor();
    if every >= nearf {
        return (every as usize, n - every as usize);
    }
    // `near` every frame, m every 2nd, the rest every 4th: near + m / 2 + (n − near − m) / 4.
    let second = (4.0 * (affordable - nearf) - (nf - nearf)).floor().max(0.0) as usize;
    (near, second.min(n - near))
}

/// Starts the IK window's clock (in [`crate::IkSystems::Prepare`], before the levels are chosen).
pub fn start_ik_clock(mut report: ResMut<IkBudgetReport>) {
    report.started = Some(Instant::now());
}

/// Stops the IK window's clock (at the end of [`crate::IkSystems::Chains`]) and updates the cost of one
/// solve.
pub fn stop_ik_clock(mut report: ResMut<IkBudgetReport>) {
    let Some(started) = report.started.take() else { return };
    let micros = started.elapsed().as_secs_f32() * 1e6;
    report.last_micros = micros;
    if report.solved > 0 && micros.is_finite() {
        let sample = micros / report.solved as f32;
        let cost = report.micros_per_solve;
        report.micros_per_solve = if cost > 0.0 { cost + 0.2 * (sample - cost) } else { sample };
    }
}

/// Gives each character its rate and says whether it is solved this frame (in
/// [`crate::IkSystems::Prepare`], after the levels are chosen).
pub fn assign_rates(
    budget: Res<IkBudget>,
    mut report: ResMut<IkBudgetReport>,
    mut characters: Query<(Entity, &mut IkLodState)>,
) {
    let report = &mut *report;
    report.frame = report.frame.wrapping_add(1);
    let frame = report.frame;
    let running = |s: &IkLodState| s.level != IkLevel::Off || s.fades.placement > 0.0 || s.fades.look_at > 0.0;
    let cost = report.micros_per_solve;
    let (n, (every, second)) = if budget.micros > 0.0 && cost > 0.0 && budget.micros.is_finite() {
        let (mut n, mut near) = (0, 0);
        for (_, state) in characters.iter().filter(|(_, s)| running(s)) {
            n += 1;
            near += usize::from(state.distance < budget.always_within);
        }
        (n, split_rates(n, near, budget.micros / cost))
    } else {
        (usize::MAX, (usize::MAX, 0))
    };
    if every >= n {
        // Within the budget (or none): everyone every frame, no sorting.
        let solved = core::sync::atomic::AtomicUsize::new(0);
        characters.par_iter_mut().for_each(|(_, mut state)| {
            let state = state.bypass_change_detection();
            (state.rate, state.update_now) = (1, true);
            if running(state) {
                solved.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
            }
        });
        report.solved = solved.into_inner();
        report.at_rate = [report.solved, 0, 0];
        return;
    }
    let mut order = std::mem::take(&mut report.order);
    order.clear();
    order.extend(characters.iter().filter(|(_, s)| running(s)).map(|(e, s)| (s.distance, e)));
    let by_distance = |a: &(f32, Entity), b: &(f32, Entity)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    order.select_nth_unstable_by(every, by_distance);
    let rest = &mut order[every..];
    if second < rest.len() {
        rest.select_nth_unstable_by(second, by_distance);
    }
    let mut solved = 0;
    for (i, (_, entity)) in order.iter().enumerate() {
        let rate: u8 = if i < every {
            1
        } else if i < every + second {
            2
        } else {
            4
        };
        if let Ok((_, mut state)) = characters.get_mut(*entity) {
            let state = state.bypass_change_detection();
            state.rate = rate;
            state.update_now = (frame + u64::from(entity.index_u32())).is_multiple_of(u64::from(rate));
            solved += usize::from(state.update_now);
        }
    }
    report.at_rate = [every, second, n - every - second];
    report.solved = solved;
    report.order = order;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_spends_at_most_the_affordable_solves_when_it_can() {
        for (n, near, affordable) in [(1000, 0, 600.0), (1000, 50, 300.0), (1000, 0, 250.0), (10, 3, 9.5)] {
            let (every, second) = split_rates(n, near, affordable);
            let rest = n - every - second;
            let cost = every as f32 + second as f32 / 2.0 + rest as f32 / 4.0;
            assert!(cost <= affordable, "{n} {near} {affordable}: {every} {second} {rest} cost {cost}");
            assert!(every >= near);
        }
        // Even every 4th frame is too much: the nearest stay every frame, the rest every 4th.
        assert_eq!(split_rates(1000, 100, 50.0), (100, 0));
    }
}
