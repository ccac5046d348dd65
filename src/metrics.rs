//! Foot metrics, measured on what is drawn: per-foot penetration, planted-foot float and toe
//! slide during contacts, plus the wall time the IK systems take each frame.
//!
//! Method: after transform propagation, each sole point (heel, mid-foot, ball, toe tip; see
//! [`crate::rigging::FootProbe`]) is placed by its bone's final `GlobalTransform`, and a rapier
//! ray from 1 m above it finds the ground height there. gap = point height − ground height;
//! penetration = max(0, −min gap); float = max(0, min gap), counted only while the sidecar says
//! the foot is in contact. Slide: at each contact's start the ball point's ground position is
//! remembered; the slide is the largest horizontal distance from it during the contact.
//! IK time: the wall time between a marker system just before `IkSystems::Prepare` and one just
//! after `IkSystems::Chains`. Invariants: all figures finite and ≥ 0, in metres (the UI shows cm).

use std::time::Instant;

use bevy::prelude::*;
use bevy_rapier3d::prelude::*;

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
}

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

/// Measures every probed character's feet.
pub fn measure_feet(
    mut commands: Commands,
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
            let mut ball = None;
            for (i, point) in points.iter().enumerate() {
                let Ok(bone) = globals.get(point.bone) else { continue };
                let p = bone.transform_point(point.local);
                if i == 2 {
                    ball = Some(Vec2::new(p.x, p.z));
                }
                let from = p + Vec3::Y;
                if let Some((_, toi)) = context.cast_ray(from, -Vec3::Y, 3.0, true, QueryFilter::default().exclude_sensors()) {
                    min_gap = min_gap.min(p.y - (from.y - toi));
                }
            }
            figures.measured = min_gap.is_finite();
            let contact = loco.is_some_and(|l| l.labelled && l.contacts[side]);
            if figures.measured {
                figures.gap = min_gap;
                figures.penetration = (-min_gap).max(0.0);
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
