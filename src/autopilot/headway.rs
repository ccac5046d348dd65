//! When the autopilot gives up a pass, and why: the body made no headway (moved under
//! [`STALL_DISTANCE`] in [`STALL_SECONDS`]), or the pass ran past a limit that follows the
//! character's walking speed (a slow, small character gets longer). The reason names where
//! the body stands, on which section, and for how long, so a run never just runs out of time.

use bevy::prelude::Vec2;

/// A pass may take this many times the route's length walked at the character's walking speed,
/// never less than [`PASS_LIMIT_FLOOR`] and never more than [`PASS_LIMIT_CEILING`] seconds.
const PASS_LIMIT_FACTOR: f32 = 3.0;
/// The shortest pass limit, s.
const PASS_LIMIT_FLOOR: f32 = 120.0;
/// The longest pass limit, s: a walk measured at a crawl still gets a reason, not the
/// headless run's safety limit ([`crate::headless::MAX_FRAMES`]).
pub const PASS_LIMIT_CEILING: f32 = 900.0;
/// A pass whose body has not moved [`STALL_DISTANCE`] m in this many seconds has stopped.
const STALL_SECONDS: f32 = 20.0;
/// How far the body must move to count as making headway, m.
const STALL_DISTANCE: f32 = 0.5;

/// Where the body last made headway in the pass walked now, and the pass time then.
#[derive(Clone, Copy, Debug)]
pub struct Headway {
    since: Vec2,
    at: f32,
}

impl Default for Headway {
    fn default() -> Self {
        Headway { since: Vec2::NAN, at: 0.0 }
    }
}

impl Headway {
    /// Records the body at `p` after `time` s of the pass over `route`; why to give the pass up
    /// (`section` names where `p` is), or `None` to walk on.
    pub fn check(
        &mut self,
        route: &[Vec2],
        walk_speed: f32,
        (time, p): (f32, Vec2),
        section: impl Fn() -> &'static str,
    ) -> Option<String> {
        let moved = p.distance(self.since);
        if moved.is_nan() || moved >= STALL_DISTANCE {
            (self.since, self.at) = (p, time);
        }
        let stalled_for = time - self.at;
        if stalled_for > STALL_SECONDS {
            return Some(format!(
                "stopped at ({:.2}, {:.2}) on {} for {stalled_for:.0} s (moved under {STALL_DISTANCE} m from ({:.2}, {:.2}))",
                p.x,
                p.y,
                section(),
                self.since.x,
                self.since.y
            ));
        }
        let length: f32 = route.windows(2).map(|w| w[0].distance(w[1])).sum();
        let limit = (PASS_LIMIT_FACTOR * length / walk_speed.max(0.05)).clamp(PASS_LIMIT_FLOOR, PASS_LIMIT_CEILING);
        (time > limit).then(|| {
            format!(
                "ran out of time at ({:.2}, {:.2}) on {} after {time:.0} s (limit {limit:.0} s: {PASS_LIMIT_FACTOR} × \
                 the {length:.0} m route at the walk's {walk_speed:.2} m/s)",
                p.x,
                p.y,
                section()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_that_stops_is_given_up_after_twenty_seconds_saying_where() {
        let route = [Vec2::ZERO, Vec2::new(0.0, 100.0)];
        let mut headway = Headway::default();
        // Walking at 1 m/s: never given up in the first 60 s.
        for f in 0..600 {
            let t = f as f32 * 0.1;
            assert_eq!(headway.check(&route, 1.4, (t, Vec2::new(0.0, t)), || "flat"), None, "at {t} s");
        }
        // Stuck at z = 59.9 from 60 s on: still walking at 79 s, given up past 80 s.
        assert_eq!(headway.check(&route, 1.4, (79.0, Vec2::new(0.0, 59.9)), || "stairs"), None);
        let why = headway.check(&route, 1.4, (80.5, Vec2::new(0.0, 59.95)), || "stairs").unwrap();
        assert!(why.starts_with("stopped at (0.00, 59.95) on stairs for 21 s"), "{why}");
    }

    #[test]
    fn the_limit_follows_the_walking_speed() {
        // 100 m: 3 × 100 / 1.4 = 214 s for a person; 3 × 100 / 0.5 = 600 s for a slow walker.
        let route = [Vec2::ZERO, Vec2::new(0.0, 100.0)];
        let walking = |speed: f32, t: f32| {
            let mut headway = Headway::default();
            headway.check(&route, speed, (t - 1.0, Vec2::ZERO), || "flat");
            headway.check(&route, speed, (t, Vec2::new(0.0, 1.0)), || "flat")
        };
        assert!(walking(1.4, 210.0).is_none() && walking(1.4, 220.0).is_some_and(|w| w.contains("limit 214 s")));
        assert!(walking(0.5, 590.0).is_none() && walking(0.5, 610.0).is_some());
        // A crawl (0.1 m/s: 3 000 s) is given up at the ceiling.
        assert!(walking(0.1, 890.0).is_none() && walking(0.1, 910.0).is_some_and(|w| w.contains("limit 900 s")));
    }
}
