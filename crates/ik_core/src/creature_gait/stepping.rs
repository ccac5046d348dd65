//! Stepping for [`CreatureGait`]: the legs' groups, the pace (stride, swing time, cycle) at the
//! present speed, the phase, which planted feet lift, and the swing arcs. See [`super`] for the
//! method.

use glam::Vec3;

use super::{CreatureBody, CreatureGait, CreatureGaitSettings, CreatureLeg, LegSlot, Swing, landing};
use crate::footstep::FootprintGround;

/// Most of a half cycle a swing may take: the rest is slack for a late lift-off.
const SWING_SHARE: f32 = 0.8;
/// Shortest stride, m, and swing, s: below them the gait would divide by zero.
const MIN_STRIDE: f32 = 0.01;
const MIN_SWING: f32 = 1e-3;
/// A step in turn shorter than this is skipped, m.
const MIN_STEP: f32 = 0.01;
/// A planted foot this many reaches from its hip was left behind (a teleport): put back home.
const LOST: f32 = 3.0;

impl LegSlot {
    /// A leg with its fields made finite and its reach positive.
    pub(super) fn new(leg: CreatureLeg) -> LegSlot {
        let finite = |v: Vec3| if v.is_finite() { v } else { Vec3::ZERO };
        let (hip, home) = (finite(leg.hip), finite(leg.home));
        let reach = if leg.reach.is_finite() && leg.reach > 0.0 { leg.reach } else { hip.distance(home) }.max(1e-3);
        // The reach's circle at the home point's depth, around the hip.
        let circle = (reach * reach - (hip.y - home.y).powi(2)).max(0.0).sqrt();
        let room = (circle - hip.with_y(0.0).distance(home.with_y(0.0))).max(0.01);
        LegSlot {
            leg: CreatureLeg { hip, home, reach },
            group: 0,
            room,
            foot: home,
            normal: Vec3::Y,
            swing: None,
            stepped: 0,
        }
    }

    /// Horizontal distance a planted foot may drift from its home point before it steps.
    fn comfort(&self, settings: &CreatureGaitSettings) -> f32 {
        settings.comfort_radius.min(0.8 * self.room).max(0.01)
    }
}

/// Groups that take turns: legs ordered front to back on each side (+X, then −X), group =
/// (index along the side + side) mod 2.
pub(super) fn assign_groups(legs: &mut [LegSlot]) {
    for i in 0..legs.len() {
        let home = legs[i].leg.home;
        let side = |p: Vec3| p.x < 0.0;
        let ahead = legs
            .iter()
            .enumerate()
            .filter(|(j, o)| {
                let h = o.leg.home;
                side(h) == side(home) && (h.z > home.z || (h.z == home.z && *j < i))
            })
            .count();
        legs[i].group = ((ahead + usize::from(side(home))) % 2) as u8;
    }
}

/// The gait's pace at the present speed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pace {
    /// Fastest a foot's home point moves, m/s: speed plus yaw rate times the widest radius.
    pub rate: f32,
    /// Body travel per cycle, m.
    pub stride: f32,
    /// Time in the air of a step lifting now, s.
    pub swing: f32,
    /// Time of a cycle, s (long when barely moving).
    pub cycle: f32,
}

impl Pace {
    /// The pace for `body` of a creature whose widest leg is `radius` from its origin.
    pub fn new(settings: &CreatureGaitSettings, body: &CreatureBody, radius: f32, legs: &[LegSlot]) -> Pace {
        let positive = |v: f32, fallback: f32| if v.is_finite() && v > 0.0 { v } else { fallback };
        let rate = body.velocity.with_y(0.0).length() + body.yaw_rate.abs() * radius;
        let comfort = legs.iter().map(|l| l.comfort(settings)).fold(f32::INFINITY, f32::min);
        let longest = positive(settings.max_stride, 0.8).min(1.8 * comfort).max(MIN_STRIDE);
        let swing = positive(settings.swing_duration, 0.25).max(MIN_SWING);
        let shortest = positive(settings.stride, 0.3).clamp(MIN_STRIDE, longest);
        let stride = (2.0 * rate * swing / SWING_SHARE).clamp(shortest, longest);
        let swing = swing.min(SWING_SHARE * stride / (2.0 * rate).max(1e-6)).max(MIN_SWING);
        Pace { rate, stride, swing, cycle: stride / rate.max(1e-3) }
    }

    /// How far ahead the body is foreseen for a foot landing in `remaining` seconds whose next
    /// turn to step begins in `until_turn` of a cycle: to the middle of its stance.
    pub fn lead(&self, remaining: f32, until_turn: f32) -> f32 {
        0.5 * (remaining + until_turn * self.cycle)
    }
}

impl CreatureGait {
    /// Advances the phase by the distance travelled over the stride.
    pub(super) fn advance_phase(&mut self, pace: &Pace, dt: f32) {
        let phase = self.phase + pace.rate * dt / pace.stride;
        if !phase.is_finite() {
            return;
        }
        let crossed = (phase / 0.5).floor();
        self.half_cycle = self.half_cycle.wrapping_add(crossed.min(1e6) as u32);
        self.phase = phase - 0.5 * crossed;
        self.phase = self.phase.clamp(0.0, 0.5 - f32::EPSILON);
    }

    /// The landing foreseen for leg `i` touching down in `remaining` seconds (before the ground
    /// search), and its hip then.
    fn foreseen(&self, i: usize, body: &CreatureBody, pace: &Pace, remaining: f32) -> (Vec3, Vec3) {
        let in_turn = u32::from(self.legs[i].group) == self.half_cycle % 2;
        let until_turn = if in_turn { 1.0 - self.phase } else { 0.5 - self.phase };
        let then = body.predicted(pace.lead(remaining, until_turn));
        let leg = &self.legs[i].leg;
        (then.transform_point(leg.home), then.transform_point(leg.hip))
    }

    /// Moves every swinging foot along its arc (steering its landing when the prediction moves)
    /// and sets down those whose swing is over.
    pub(super) fn advance_swings<G: FootprintGround + ?Sized>(
        &mut self,
        settings: &CreatureGaitSettings,
        body: &CreatureBody,
        pace: &Pace,
        ground: &mut G,
        dt: f32,
    ) {
        for i in 0..self.legs.len() {
            let Some(mut swing) = self.legs[i].swing else { continue };
            swing.elapsed += dt;
            let remaining = (swing.duration - swing.elapsed).max(0.0);
            let (predicted, hip) = self.foreseen(i, body, pace, remaining);
            let moved = predicted.with_y(0.0).distance(swing.predicted.with_y(0.0));
            if moved > settings.replan_distance.max(0.0) && predicted.is_finite() {
                let choice = landing::choose(predicted, hip, self.legs[i].leg.reach, settings, ground);
                (swing.to, swing.predicted, self.legs[i].normal) = (choice.point, predicted, choice.normal);
            }
            let slot = &mut self.legs[i];
            if remaining <= 0.0 {
                (slot.foot, slot.swing) = (swing.to, None);
            } else {
                (slot.foot, slot.swing) = (arc(&swing, settings.lift), Some(swing));
            }
        }
    }

    /// Lifts the planted feet that should step and may: the group whose turn it is first.
    pub(super) fn lift_legs<G: FootprintGround + ?Sized>(
        &mut self,
        settings: &CreatureGaitSettings,
        body: &CreatureBody,
        pace: &Pace,
        ground: &mut G,
    ) {
        let most = (self.legs.len() / 2).max(1);
        let turn = (self.half_cycle % 2) as u8;
        let heading = body.heading();
        let full = crate::Xform::from_translation_rotation(body.position, body.rotation);
        for group in [turn, 1 - turn] {
            for i in 0..self.legs.len() {
                let slot = self.legs[i];
                if slot.group != group || slot.swing.is_some() {
                    continue;
                }
                let hip = full.transform_point(slot.leg.hip);
                let home = heading.transform_point(slot.leg.home);
                let from_hip = slot.foot.distance(hip);
                if !(from_hip.is_finite() && from_hip <= LOST * slot.leg.reach) {
                    let choice = landing::choose(home, hip, slot.leg.reach, settings, ground);
                    (self.legs[i].foot, self.legs[i].normal) = (choice.point, choice.normal);
                    continue;
                }
                let forced = from_hip > slot.leg.reach;
                let drifted = slot.foot.with_y(0.0).distance(home.with_y(0.0)) > slot.comfort(settings);
                let in_turn = group == turn && slot.stepped != self.half_cycle;
                if !(forced || drifted || in_turn) {
                    continue;
                }
                let swinging = self.legs.iter().filter(|l| l.swing.is_some()).count();
                let opponent = self.legs.iter().any(|l| l.group != group && l.swing.is_some());
                if swinging >= most || (opponent && !forced) {
                    continue;
                }
                self.lift(i, settings, body, pace, ground, !(forced || drifted));
            }
        }
    }

    /// Lifts leg `i` toward its predicted landing (a step in turn that would move it less than a
    /// centimetre is skipped).
    fn lift<G: FootprintGround + ?Sized>(
        &mut self,
        i: usize,
        settings: &CreatureGaitSettings,
        body: &CreatureBody,
        pace: &Pace,
        ground: &mut G,
        only_in_turn: bool,
    ) {
        let (predicted, hip) = self.foreseen(i, body, pace, pace.swing);
        let slot = &mut self.legs[i];
        if slot.group == (self.half_cycle % 2) as u8 {
            slot.stepped = self.half_cycle;
        }
        let short = predicted.with_y(0.0).distance(slot.foot.with_y(0.0)) < MIN_STEP;
        if !predicted.is_finite() || (only_in_turn && short) {
            return;
        }
        let choice = landing::choose(predicted, hip, slot.leg.reach, settings, ground);
        slot.normal = choice.normal;
        slot.swing = Some(Swing { from: slot.foot, to: choice.point, predicted, elapsed: 0.0, duration: pace.swing });
    }
}

/// Where a swinging foot is: eased from lift-off to landing, lifted by `lift` at mid-swing; it
/// rises early when stepping up and comes down late when stepping down.
pub(super) fn arc(swing: &Swing, lift: f32) -> Vec3 {
    let t = (swing.elapsed / swing.duration).clamp(0.0, 1.0);
    let ease = t * t * (3.0 - 2.0 * t);
    let (from, to) = (swing.from, swing.to);
    let vertical = if to.y > from.y { 1.0 - (1.0 - t) * (1.0 - t) } else { t * t };
    let lift = if lift.is_finite() { lift.max(0.0) } else { 0.0 };
    let y = from.y + (to.y - from.y) * vertical + lift * 4.0 * t * (1.0 - t);
    let p = from.lerp(to, ease).with_y(y);
    if p.is_finite() { p } else { to }
}
