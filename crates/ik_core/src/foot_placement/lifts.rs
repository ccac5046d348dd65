//! Step 1 of placing a foot, once its probes are placed: the lift each asks for
//! ([`SoleLifts`]), the lift that carries the foot, and the least that keeps it out of the
//! ground.

use glam::Vec3;

use super::CONTACT_BAND;
use crate::sole::{Probe, SOLE_EDGES, SOLE_PROBES};

/// How far over their ground the toes may hang and still carry a lifted heel, m: no more than
/// a planted sole may float.
const TOES_DOWN_BAND: f32 = 0.01;

/// Every probe of a foot: its sole points, then the edges found between them.
pub(super) const ALL_PROBES: usize = SOLE_PROBES + SOLE_EDGES;

/// The lifts a foot's probes ask for, once the foot is tilted.
#[derive(Clone, Copy, Debug)]
pub(super) struct SoleLifts {
    /// Per probe, how much the animation has it in contact, `[0, 1]`.
    pub contact: [f32; ALL_PROBES],
    /// Per probe, the lift that puts it on its ground at its flat-standing height.
    pub grounds: [Option<f32>; ALL_PROBES],
    /// The highest of the lifts that put each probe where it belongs: the animation's contact
    /// points (those at the lowest animated height above their flat height) on their ground,
    /// points the animation raises clear of theirs, blended over [`CONTACT_BAND`]. It carries
    /// the foot.
    pub planted: f32,
    /// The least lift that keeps every probe out of its ground.
    pub clearance: f32,
}

impl SoleLifts {
    /// Measures the probes of a foot planted by `planted` (its weight, `[0, 1]`); `lift_to` is
    /// the lift that puts a point a height above its ground (tilt-limited).
    ///
    /// A planted foot's lowest point goes onto the ground: the animation's small hover over its
    /// floor is taken out (in proportion to the planted weight), the other points keep their
    /// height relative to it. A rolling foot pivots on its ball over a lower tread instead of
    /// hovering at the heel's level.
    pub fn measure(
        probes: &[Option<Probe>; ALL_PROBES],
        planted: f32,
        lift_to: impl Fn(Vec3, f32, (Vec3, Vec3)) -> f32,
    ) -> Self {
        let highest = |lifts: &mut dyn Iterator<Item = f32>| lifts.fold(f32::NEG_INFINITY, f32::max);
        let lowest = probes.iter().flatten().map(|&(_, keep, rest, _)| keep - rest).fold(f32::INFINITY, f32::min);
        let squash = lowest.max(0.0) * planted;
        let contact = probes.map(|probe| {
            probe.map_or(0.0, |(_, keep, rest, _)| (1.0 - (keep - rest - lowest) / CONTACT_BAND).clamp(0.0, 1.0))
        });
        let needs: [Option<f32>; ALL_PROBES] = core::array::from_fn(|k| {
            let (p, keep, rest, hit) = probes[k]?;
            let (w, keep) = (contact[k], keep - squash);
            Some(w * lift_to(p, keep, hit) + (1.0 - w) * lift_to(p, rest.min(keep), hit))
        });
        let grounds = probes.map(|probe| probe.map(|(p, _, rest, hit)| lift_to(p, rest, hit)));
        let planted = highest(&mut needs.iter().flatten().copied());
        let clearance = highest(&mut grounds.iter().flatten().copied());
        SoleLifts { contact, grounds, planted, clearance }
    }

    /// How much the toes carry the foot once it is raised by `lift` (1 when the ball or the tip
    /// is among the animation's contact points and ends on its ground, falling to 0 as it hangs
    /// [`TOES_DOWN_BAND`] over it): a heel lifts about the toes only when they are down, not at a
    /// heel strike, with the toes over a lower tread, or held up by a heel at the foot of a ramp
    /// (lifting it there would leave the whole sole hanging as high as the toes).
    pub fn toes_down(&self, lift: f32) -> f32 {
        let down = |k: usize| Some(self.contact[k].min(1.0 - (lift - self.grounds[k]?) / TOES_DOWN_BAND));
        [down(1), down(3)].map(|d| d.unwrap_or(0.0)).into_iter().fold(0.0, f32::max).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lift_to(point: Vec3, height: f32, (hit, n): (Vec3, Vec3)) -> f32 {
        (height - (point - hit).dot(n)) / n.y
    }

    /// A foot along +Z whose heel (z −0.1) and ankle (z 0, 8 cm over the sole) are raised
    /// `heel_up` in the animation, its ball (z 0.15) on the sole. The ground under the heel and
    /// ankle is at y 0, under the ball at `ball_ground`.
    fn foot(heel_up: f32, ball_ground: f32) -> [Option<Probe>; ALL_PROBES] {
        let mut probes = [None; ALL_PROBES];
        probes[2] = Some((Vec3::new(0.0, heel_up, -0.1), heel_up, 0.0, (Vec3::new(0.0, 0.0, -0.1), Vec3::Y)));
        let ankle = 0.08 + heel_up;
        probes[0] = Some((Vec3::new(0.0, ankle, 0.0), ankle, 0.08, (Vec3::ZERO, Vec3::Y)));
        probes[1] = Some((Vec3::new(0.0, 0.0, 0.15), 0.0, 0.0, (Vec3::new(0.0, ball_ground, 0.15), Vec3::Y)));
        probes
    }

    #[test]
    fn the_contact_points_carry_and_a_raised_heel_only_keeps_clear() {
        // Flat foot, level ground: nothing to lift; the toes are down.
        let flat = SoleLifts::measure(&foot(0.0, 0.0), 1.0, lift_to);
        assert!(flat.planted.abs() < 1e-6 && flat.clearance.abs() < 1e-6);
        assert_eq!(flat.contact[2], 1.0);
        assert_eq!(flat.toes_down(flat.planted.max(flat.clearance)), 1.0);
        // The ball over ground 3 cm lower, the heel on the animation's contact: the heel holds
        // the foot up and the toes are not down.
        let held = SoleLifts::measure(&foot(0.0, -0.03), 1.0, lift_to);
        assert!(held.planted.abs() < 1e-6, "{}", held.planted);
        assert_eq!(held.toes_down(held.planted.max(held.clearance)), 0.0);
        // The ball 1.4 cm over its ground (the foot of a ramp, the heel holding the foot up):
        // the toes have left the ground and carry no heel lift; 3 mm over it they still do.
        let hanging = SoleLifts::measure(&foot(0.0, -0.014), 1.0, lift_to);
        assert_eq!(hanging.toes_down(hanging.planted.max(hanging.clearance)), 0.0);
        let near = SoleLifts::measure(&foot(0.0, -0.003), 1.0, lift_to);
        assert!((near.toes_down(near.planted.max(near.clearance)) - 0.7).abs() < 1e-4);
        // The heel raised 3 cm in the animation: off its contact, it only keeps clear of its
        // ground, and the ball carries the foot down onto its lower ground.
        let rolled = SoleLifts::measure(&foot(0.03, -0.03), 1.0, lift_to);
        assert_eq!(rolled.contact[2], 0.0);
        assert!((rolled.planted + 0.03).abs() < 1e-6, "{}", rolled.planted);
        assert!((rolled.clearance + 0.03).abs() < 1e-6, "{}", rolled.clearance);
        assert_eq!(rolled.toes_down(rolled.planted.max(rolled.clearance)), 1.0);
    }
}
