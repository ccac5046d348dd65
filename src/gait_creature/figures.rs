//! What `--headless --creature spider|hexapod` prints: per section of the course (by where the
//! body bone is) and for the turn in place, the bars of issue 45 measured against the rapier
//! ground, not as the gait reports them: a planted foot's travel over one contact (over a
//! moving platform: in the platform's frame), its depth below and height above the ground
//! under it, the most legs in the air at once, the body bone's least height over the ground
//! under it and the longest hip–foot distance over the leg's length.

use std::collections::BTreeMap;

use bevy::prelude::*;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

use super::{Phase, Walker};
use crate::course::CourseLayout;
use crate::lane_metrics::PlatformSlide;
use crate::metrics::ground_height;
use crate::platforms::{Platform, on_platform, platform_at};

/// The figures' label for the turn in place at the end.
const TURN: &str = "turn in place";

/// One section's figures.
#[derive(Clone, Copy, Debug)]
pub struct SectionFigures {
    /// Frames measured and seconds walked, and the distance the creature's entity moved, m.
    frames: u32,
    time: f32,
    walked: f32,
    /// Planted foot-frames.
    planted: u32,
    /// Largest planted height above and depth below the ground, m.
    float: f32,
    sink: f32,
    /// Largest travel of a foot in one contact, m.
    slide: f32,
    /// Most legs in the air at once.
    in_air: u32,
    /// Least height of the body bone over the ground under it, m.
    clearance: f32,
    /// Longest hip–foot distance over the leg's length.
    reach: f32,
}

impl Default for SectionFigures {
    fn default() -> Self {
        SectionFigures {
            frames: 0,
            time: 0.0,
            walked: 0.0,
            planted: 0,
            float: 0.0,
            sink: 0.0,
            slide: 0.0,
            in_air: 0,
            clearance: f32::INFINITY,
            reach: 0.0,
        }
    }
}

/// The creature's feet over the run.
#[derive(Resource, Debug)]
pub struct GaitFigures {
    name: &'static str,
    speed: f32,
    legs: u32,
    /// Per section label (and "turn in place").
    sections: BTreeMap<&'static str, SectionFigures>,
    /// Per foot: where its contact began (world), its slide over a platform, the platform.
    feet: Vec<(Option<Vec3>, PlatformSlide, Option<Entity>)>,
    /// The creature's entity last frame.
    last: Option<Vec3>,
    /// It walked its whole pass and turned.
    finished: bool,
}

impl GaitFigures {
    /// Nothing measured yet for the creature `name` walking at `speed`.
    pub fn new(name: &'static str, speed: f32) -> Self {
        GaitFigures { name, speed, legs: 0, sections: BTreeMap::new(), feet: Vec::new(), last: None, finished: false }
    }

    /// It walked the player's whole pass and turned in place.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// One line per section, then one saying whether it walked the whole pass.
    pub fn report(&self) -> String {
        let (name, legs) = (self.name, self.legs);
        let line = |(section, f): (&&str, &SectionFigures)| {
            format!(
                "{name} (ProceduralGait, no clips, {:.1} m/s), {section}: {} frames at {:.2} m/s; {} planted \
                 foot-frames, largest slide in one contact {:.2} cm, penetration {:.2} cm, planted float {:.2} cm; \
                 at most {} of {legs} legs in the air; body at least {:.3} m over the ground; legs at most {:.2} \
                 of their length",
                self.speed,
                f.frames,
                f.walked / f.time.max(1e-6),
                f.planted,
                f.slide * 100.0,
                f.sink * 100.0,
                f.float * 100.0,
                f.in_air,
                f.clearance,
                f.reach,
            )
        };
        let mut lines: Vec<String> = self.sections.iter().map(line).collect();
        lines.push(if self.finished {
            format!("{name}: walked the player's whole first pass and turned 360° in place")
        } else {
            format!("{name}: did NOT walk the whole pass (the run ended first, or the player walked no whole pass)")
        });
        lines.join("\n")
    }
}

/// Measures the creature's feet and body each frame it walks or turns.
pub fn measure_feet(
    time: Res<Time>,
    mut figures: ResMut<GaitFigures>,
    layout: Res<CourseLayout>,
    rapier: ReadRapierContext,
    platforms: Query<(&Platform, &GlobalTransform)>,
    walkers: Query<(&Walker, &ProceduralGaitState, &GlobalTransform)>,
    bones: Query<&GlobalTransform>,
) {
    let Ok(context) = rapier.single() else { return };
    let Ok((walker, state, root)) = walkers.single() else { return };
    let figures = &mut *figures;
    figures.finished |= walker.phase == Phase::Done && figures.sections.contains_key(TURN);
    let turning = matches!(walker.phase, Phase::Turn(_));
    let (Phase::Walk | Phase::Turn(_)) = walker.phase else { return };
    let position = |e: Entity| bones.get(e).map(|g| g.translation()).unwrap_or(Vec3::NAN);
    let body = position(walker.body);
    let label = if turning { TURN } else { layout.section_at(body.xz()).label() };
    let at = figures.sections.entry(label).or_default();
    figures.legs = walker.legs.len() as u32;
    let moved = figures.last.map_or(0.0, |last| (root.translation() - last).with_y(0.0).length());
    // A jump between passes is not walking.
    if moved < 0.5 {
        at.walked += moved;
    }
    figures.last = Some(root.translation());
    (at.frames, at.time) = (at.frames + 1, at.time + time.delta_secs());
    at.in_air = at.in_air.max(state.in_air);
    if let Some(ground) = ground_height(&context, body) {
        at.clearance = at.clearance.min(body.y - ground);
    }
    let platform_under = |p: Vec3| platform_at(&context, &platforms, p);
    let on = |platform: Entity, p: Vec3| on_platform(&platforms, platform, p);
    figures.feet.resize(walker.legs.len(), default());
    for ((joints, foot), (held, riding, rides)) in walker.legs.iter().zip(state.feet()).zip(figures.feet.iter_mut()) {
        let (hip, toe) = (position(joints[0]), position(joints[joints.len() - 1]));
        at.reach = at.reach.max(hip.distance(toe) / walker.reach);
        *held = foot.planted.then(|| held.unwrap_or(toe));
        *rides = rides.or_else(|| platform_under(toe)).filter(|_| foot.planted);
        match (*held, riding.step(rides.and_then(|p| on(p, toe)))) {
            (_, Some(slide)) => at.slide = at.slide.max(slide),
            (Some(from), None) => at.slide = at.slide.max(toe.distance(from)),
            _ => {}
        }
        if foot.planted
            && let Some(ground) = ground_height(&context, toe)
        {
            at.planted += 1;
            (at.float, at.sink) = (at.float.max(toe.y - ground), at.sink.max(ground - toe.y));
        }
    }
}
