//! Foot metrics, measured on what is drawn: per-foot penetration, planted-foot float and toe
//! slide during contacts, plus the wall time the IK systems take each frame.
//!
//! Method: after transform propagation, each sole point (every ~1 cm from the back of the heel
//! through the ball to the toe tip; see [`crate::rigging::FootProbe`]) is placed by its bone's
//! final `GlobalTransform`, and a rapier ray from 1 m above it finds the ground height there.
//! Where the ground under two neighbouring points differs by more than 5 mm (a nosing, a kerb,
//! a crest), the sole is also measured right at the edge between them (bisection), so a sole
//! resting on a nosing reads as touching and one cut by it as penetrating.
//! gap = point height − ground height. Float = max(0, min gap), counted only while the sidecar
//! says the foot is in contact. Penetration = the deepest point's depth inside the ground: the
//! shorter way out, straight up or sideways (see [`penetration_depth`]), so a toe touching a
//! riser's face is not read as the riser's height. Slide: at each contact's start the ball
//! point's ground position is remembered (the sole under the toe joint, carried by the toe bone
//! where there is one: the toe a lock holds, which stays down while the heel rolls off); the slide is the largest horizontal distance from it
//! during the contact.
//! IK time: the wall time between a marker system just before `IkSystems::Prepare` and one just
//! after `IkSystems::Chains`. Invariants: all figures finite and ≥ 0, in metres (the UI shows cm).

use std::time::Instant;

use bevy::prelude::*;
use bevy_rapier3d::prelude::*;
use ik_core::sole::bracket_edge;

use crate::locomotion::Locomotion;
use crate::rigging::FootProbe;

/// One foot's figures this frame and over the current contact.
#[derive(Clone, Copy, Debug, Default)]
pub struct FootFigures {
    /// Lowest sole point's height above the ground (negative: inside it), m.
    pub gap: f32,
    /// Deepest sole point inside the ground, m (≥ 0).
    pub penetration: f32,
    /// Planted float: the sole's height above the ground while in contact, m (0 otherwise).
    pub float: f32,
    /// In contact this frame (sidecar labels).
    pub contact: bool,
    /// Ball point on the ground where the current contact started.
    pub contact_start: Option<Vec2>,
    /// Largest horizontal drift of the ball point from `contact_start` so far, m.
    pub slide: f32,
    /// Slide of the contact that just ended (set on the frame it ends).
    pub finished_slide: Option<f32>,
    /// The ground was found under the foot.
    pub measured: bool,
    /// The ground the foot rests on this frame: under its support point, the sole point
    /// lowest above its ground (or least inside it; points more than [`RISER_DEPTH`] inside are
    /// at a riser's face, not on what the foot stands on), m. On stairs, the tread it is on.
    pub ground: f32,
    /// Share of the sole over a drop: sole points (heel to toe tip, ~1 cm apart) whose ground is
    /// more than [`OVERHANG_DROP`] below [`Self::ground`], over all sole points with ground
    /// found, 0–1. Read while the foot is planted, it is how much of the foot hangs off a
    /// tread's edge (a heel lifting off flat ground does not count: its ground is the same).
    pub overhang: f32,
}

/// How far below the support's ground the ground under a sole point must be for that point to
/// count as hanging over an edge, m (less than any riser, more than the rough ground's bumps
/// between neighbouring points).
pub const OVERHANG_DROP: f32 = 0.03;
/// A sole point deeper than this inside the ground is taken to be at a riser's face, not on
/// the ground the foot stands on, m (the penetration bar's depth).
pub const RISER_DEPTH: f32 = 0.01;

/// Per-foot figures of a character (`[left, right]`), on its avatar.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct FootMetrics {
    /// Left and right.
    pub feet: [FootFigures; 2],
}

/// Wall time of the IK systems.
#[derive(Resource, Default, Debug)]
pub struct IkTimer {
    started: Option<Instant>,
    /// Last frame, ms.
    pub last_ms: f32,
    /// Exponential average, ms.
    pub average_ms: f32,
    /// Every frame's time since the last reset, ms (the autopilot reads it).
    pub samples: Vec<f32>,
}

/// Marks the start of the IK systems.
pub fn ik_timer_start(mut timer: ResMut<IkTimer>) {
    timer.started = Some(Instant::now());
}

/// Marks the end of the IK systems.
pub fn ik_timer_end(mut timer: ResMut<IkTimer>) {
    if let Some(start) = timer.started.take() {
        let ms = start.elapsed().as_secs_f32() * 1000.0;
        timer.last_ms = ms;
        timer.average_ms = if timer.average_ms == 0.0 { ms } else { timer.average_ms * 0.95 + ms * 0.05 };
        if timer.samples.len() < 1_000_000 {
            timer.samples.push(ms);
        }
    }
}

/// Measures every probed character's feet. `sole`: each sole point's (gap, ground) for the foot
/// being measured, kept between frames so measuring allocates nothing.
pub fn measure_feet(
    mut commands: Commands,
    mut sole: Local<Vec<(f32, f32)>>,
    rapier: ReadRapierContext,
    mut avatars: Query<(Entity, &FootProbe, Option<&Locomotion>, Option<&mut FootMetrics>)>,
    globals: Query<&GlobalTransform>,
) {
    let Ok(context) = rapier.single() else { return };
    for (entity, probe, loco, metrics) in &mut avatars {
        let mut current = metrics.as_deref().copied().unwrap_or_default();
        for (side, points) in probe.feet.iter().enumerate() {
            let figures = &mut current.feet[side];
            figures.finished_slide = None;
            let mut min_gap = f32::INFINITY;
            let mut depth: f32 = 0.0;
            let mut ball = None;
            let mut previous: Option<(Vec3, f32)> = None;
            sole.clear();
            for (i, point) in points.iter().enumerate() {
                let Ok(bone) = globals.get(point.bone) else { continue };
                let p = bone.transform_point(point.local);
                if i == probe.ball[side] {
                    ball = Some(Vec2::new(p.x, p.z));
                }
                let Some(ground) = ground_height(&context, p) else { continue };
                sole.push((p.y - ground, ground));
                let mut measure = |p: Vec3, ground: f32| {
                    min_gap = min_gap.min(p.y - ground);
                    if p.y < ground {
                        depth = depth.max(penetration_depth(&context, p, ground - p.y));
                    }
                };
                measure(p, ground);
                // A ground edge between two neighbouring points (a nosing, a crest): measure
                // the sole right at it too.
                if let Some((q, q_ground)) = previous.filter(|(_, g)| (g - ground).abs() > EDGE_STEP) {
                    for (at, g) in edge_samples(&context, (q, q_ground), (p, ground)) {
                        measure(at, g);
                    }
                }
                previous = Some((p, ground));
            }
            figures.measured = min_gap.is_finite();
            let contact = loco.is_some_and(|l| l.labelled && l.contacts[side]);
            if figures.measured {
                if let Some((ground, overhang)) = support(&sole) {
                    (figures.ground, figures.overhang) = (ground, overhang);
                }
                figures.gap = min_gap;
                figures.penetration = depth;
                figures.float = if contact { min_gap.max(0.0) } else { 0.0 };
            }
            match (contact, figures.contact_start, ball) {
                (true, None, Some(b)) => {
                    figures.contact_start = Some(b);
                    figures.slide = 0.0;
                }
                (true, Some(start), Some(b)) => figures.slide = figures.slide.max(start.distance(b)),
                (false, Some(_), _) => {
                    figures.finished_slide = Some(figures.slide);
                    figures.contact_start = None;
                }
                _ => {}
            }
            figures.contact = contact;
        }
        match metrics {
            Some(mut m) => *m = current,
            None => {
                commands.entity(entity).insert(current);
            }
        }
    }
}

/// The ground a foot rests on and the share of its sole hanging over a drop from it (see
/// [`FootFigures::ground`], [`FootFigures::overhang`]), from each sole point's (gap, ground).
fn support(sole: &[(f32, f32)]) -> Option<(f32, f32)> {
    // The lowest gap, points at a riser's face last.
    let at_riser = |gap: f32| gap <= -RISER_DEPTH;
    let (_, ground) = sole.iter().min_by(|a, b| at_riser(a.0).cmp(&at_riser(b.0)).then(a.0.total_cmp(&b.0)))?;
    let hanging = sole.iter().filter(|(_, g)| *g < *ground - OVERHANG_DROP).count();
    Some((*ground, hanging as f32 / sole.len() as f32))
}

/// Height of the ground under `p` (a rapier ray from 1 m above it), if any. What hangs over
/// the floor (a board to walk under) is not ground: the ray passes through it.
pub fn ground_height(context: &RapierContext, p: Vec3) -> Option<f32> {
    let from = p + Vec3::Y;
    let filter = QueryFilter::default()
        .exclude_sensors()
        .groups(CollisionGroups::new(Group::ALL, Group::ALL ^ crate::marks::OVERHANG_GROUP));
    context.cast_ray(from, -Vec3::Y, 3.0, true, filter).map(|(_, toi)| from.y - toi)
}

/// Horizontal steps (m) tried when looking for the nearest way out of the ground sideways.
const ESCAPES: [f32; 12] = [0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2];

/// How deep a point `vertical` below the ground surface is inside the ground: the shorter of
/// the way out straight up and the way out sideways (along ±x or ±z, the first tried step at
/// which the ground there is below the point). Never less than the true distance to free
/// space along those directions; a toe touching a stair riser reads as millimetres, not as the
/// riser's height.
fn penetration_depth(context: &RapierContext, p: Vec3, vertical: f32) -> f32 {
    let sideways = [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z]
        .iter()
        .filter_map(|dir| {
            ESCAPES
                .iter()
                .take_while(|s| **s < vertical)
                .find(|s| ground_height(context, p + *dir * **s).is_none_or(|g| g <= p.y))
        })
        .fold(f32::INFINITY, |a, s| a.min(*s));
    vertical.min(sideways)
}

/// Ground height difference between neighbouring sole points that is searched for an edge, m.
const EDGE_STEP: f32 = 0.005;

/// The two sole points, 1/256 of the way apart, that bracket the ground edge between sole
/// points `a` and `b` (each with its ground height), with the ground under each: a bisection
/// ([`ik_core::sole::bracket_edge`]) keeping whichever side's ground height a sample is nearer to.
fn edge_samples(context: &RapierContext, a: (Vec3, f32), b: (Vec3, f32)) -> impl Iterator<Item = (Vec3, f32)> {
    let sample = |t: f32| {
        let p = a.0.lerp(b.0, t);
        ground_height(context, p).map(|g| (p, g))
    };
    let (near_a, near_b) = bracket_edge(8, sample, |&(_, g): &(Vec3, f32)| (g - a.1).abs() <= (g - b.1).abs());
    near_a.into_iter().chain(near_b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foot_hangs_over_an_edge_only_where_its_ground_drops_away() {
        // Heel lifting off flat ground: one ground, nothing hangs.
        let heel_off: Vec<(f32, f32)> = (0..10).map(|i| (0.08 - 0.008 * i as f32, 0.0)).collect();
        assert_eq!(support(&heel_off), Some((0.0, 0.0)));
        // Ball and toe on the upper tread (0.2), the heel's 4 points over the lower one.
        let across: Vec<(f32, f32)> = (0..10).map(|i| if i < 4 { (0.2, 0.0) } else { (0.001, 0.2) }).collect();
        assert_eq!(support(&across), Some((0.2, 0.4)));
        // Standing on the lower tread with the toe tip 1 mm into the riser's face: the upper
        // tread above the toe is not what the foot stands on.
        let toe_in_riser: Vec<(f32, f32)> =
            (0..10).map(|i| if i == 9 { (-0.199, 0.2) } else { (0.002, 0.0) }).collect();
        assert_eq!(support(&toe_in_riser), Some((0.0, 0.0)));
        assert_eq!(support(&[]), None);
    }
}
