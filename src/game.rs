//! The gem run: a small game across the course that shows the IK off. Twelve gems hang beside
//! the route — on the flat, the step, each staircase, each ramp and the rough ground — at hand
//! height on the walker's right; walk past one and the right hand reaches out and takes it.
//! The clock starts with the first step and stops on the last gem; the best time is kept.
//!
//! Method: [`choose_focus`] picks what the character attends to each frame (before IK): the
//! nearest gem not yet taken that is ahead (within [`crate::toggles::REACH_DECIDE_CONE`]) and
//! within [`NOTICE_DISTANCE`], else the floating orb; the `focus` entity of
//! [`crate::orb::LookTargets`] moves there on a short spring, and the head looks at it and the
//! hand reaches for it ([`crate::toggles::decide_reach`]). [`collect_gems`] takes a gem when the
//! hand (as IK left it last frame) is within [`HAND_RADIUS`] of it, or when the body walks
//! through it. Inputs: the course layout, the body, the reaching arm, keys (R restarts).
//! Outputs: [`GemRun`] (shown by the HUD, read by the autopilot), gem visibility.
//! Invariants: a gem is taken once per run; the clock only runs between the first step and the
//! last gem.

use bevy::prelude::*;
use ik_core::spring::Spring;

use crate::course::CourseLayout;
use crate::marks::ReachArm;
use crate::marks::{MoveIntent, Player};
use crate::orb::LookTargets;

/// How far ahead a gem catches the character's eye, m (horizontal, from the body).
pub const NOTICE_DISTANCE: f32 = 2.5;
/// A gem is taken when the hand comes this close to it, m.
pub const HAND_RADIUS: f32 = 0.12;
/// … or when the body walks this close to it (horizontal), m.
pub const BODY_RADIUS: f32 = 0.25;
/// Gems hang this far to the right of the lane's centre line, m.
const SIDE_OFFSET: f32 = 0.35;
/// Gem height above the surface, as a fraction of the character's height (1.04 m for the
/// mannequin's 1.6 m: just below the shoulder, within the arm's reach as it passes).
const HEIGHT_FRACTION: f32 = 0.65;

/// One gem: its place on the course (x, surface height, z).
#[derive(Component, Clone, Copy, Debug)]
pub struct Gem {
    /// Index in [`GemRun::taken`].
    pub index: usize,
    /// The surface point it hangs over.
    pub ground: Vec3,
}

/// The state of the current run and the best time.
#[derive(Resource, Clone, Debug, Default)]
pub struct GemRun {
    /// Per gem: taken in this run.
    pub taken: Vec<bool>,
    /// Gems the hand took (the rest were walked through).
    pub by_hand: usize,
    /// Seconds since the first step (None before it).
    pub clock: Option<f32>,
    /// The run's time once every gem is taken.
    pub finished: Option<f32>,
    /// Best finished time so far, s.
    pub best: Option<f32>,
}

impl GemRun {
    /// Gems taken in this run.
    pub fn count(&self) -> usize {
        self.taken.iter().filter(|t| **t).count()
    }

    /// Starts a new run (the best time stays).
    pub fn restart(&mut self) {
        self.taken.iter_mut().for_each(|t| *t = false);
        (self.by_hand, self.clock, self.finished) = (0, None, None);
    }
}

/// The gems' surface points: beside each lane on the walker's right (lane A and C are walked
/// toward +Z, lane B toward −Z), at the height of the ground the walker crosses there (the
/// lane's centre: treads, ramps, the rough patch's bumps).
pub fn gem_places(layout: &CourseLayout) -> Vec<Vec3> {
    let lane = |x: f32, right: f32, zs: &[f32]| -> Vec<Vec3> {
        zs.iter().map(|&z| Vec3::new(x + right * SIDE_OFFSET, layout.feet_height(Vec2::new(x, z)), z)).collect()
    };
    let mut places = lane(0.0, -1.0, &[1.5, 5.0, 11.0, 17.5, 23.0]);
    places.extend(lane(5.0, 1.0, &[23.2, 12.1, 3.6]));
    places.extend(lane(10.0, -1.0, &[4.0, 8.5, 13.0, 17.5]));
    places
}

/// Spawns the gems (glowing when meshes are drawn) and the run.
pub fn spawn_gems(
    mut commands: Commands,
    layout: Res<CourseLayout>,
    visuals: Res<crate::marks::Visuals>,
    mut meshes: Option<ResMut<Assets<Mesh>>>,
    mut materials: Option<ResMut<Assets<StandardMaterial>>>,
) {
    let places = gem_places(&layout);
    let look = match (visuals.0, meshes.as_deref_mut(), materials.as_deref_mut()) {
        (true, Some(meshes), Some(materials)) => Some((
            Mesh3d(meshes.add(Sphere::new(0.06).mesh().ico(2).unwrap_or_else(|_| Sphere::new(0.06).mesh().uv(16, 8)))),
            MeshMaterial3d(materials.add(StandardMaterial {
                base_color: Color::srgb(0.3, 0.95, 0.8),
                emissive: LinearRgba::rgb(0.4, 3.0, 2.2),
                ..default()
            })),
        )),
        _ => None,
    };
    for (index, ground) in places.iter().enumerate() {
        let at = *ground + Vec3::Y * HEIGHT_FRACTION * 1.6;
        let mut gem = commands.spawn((Name::new(format!("Gem {}", index + 1)), Gem { index, ground: *ground }));
        gem.insert((Transform::from_translation(at), Visibility::default()));
        if let Some(look) = look.clone() {
            gem.insert(look);
        }
    }
    commands.insert_resource(GemRun { taken: vec![false; places.len()], ..default() });
}

/// Hangs the gems at the loaded character's hand height once its size is known.
pub fn size_gems(
    models: Query<&crate::character::ModelInfo, Added<crate::character::ModelInfo>>,
    mut gems: Query<(&Gem, &mut Transform)>,
) {
    let Some(model) = models.iter().next() else { return };
    let height = if model.height.is_finite() && model.height > 0.1 { model.height } else { 1.6 };
    for (gem, mut transform) in &mut gems {
        transform.translation = gem.ground + Vec3::Y * HEIGHT_FRACTION * height;
    }
}

/// Moves the focus to the nearest untaken gem ahead, else to the orb (see the module notes).
/// Runs in `PostUpdate` after physics and before IK, like [`crate::toggles::decide_reach`].
pub fn choose_focus(
    time: Res<Time>,
    run: Option<Res<GemRun>>,
    targets: Option<Res<LookTargets>>,
    arms: Query<(Entity, &ReachArm)>,
    gems: Query<(&Gem, &Transform), Without<crate::orb::Focus>>,
    mut transforms: ParamSet<(bevy_ik::bones::Hierarchy, Query<&mut Transform, With<crate::orb::Focus>>)>,
    mut spring: Local<Option<Spring<Vec3>>>,
) {
    let (Some(targets), Some(run)) = (targets, run) else { return };
    let hierarchy = transforms.p0();
    let Some(orb) = bevy_ik::bones::world_of(targets.orb, &hierarchy).map(|w| w.translation) else { return };
    let mut goal = orb;
    if let Some((avatar, arm)) = arms.iter().next()
        && let Some(body) = bevy_ik::bones::world_of(avatar, &hierarchy)
    {
        let forward = body.rotation * arm.forward;
        let flat = |v: Vec3| Vec2::new(v.x, v.z);
        let nearest = gems
            .iter()
            .filter(|(gem, _)| !run.taken.get(gem.index).copied().unwrap_or(true))
            .map(|(_, t)| t.translation)
            .filter(|p| crate::toggles::in_front(forward, *p - body.translation))
            .map(|p| (flat(p).distance(flat(body.translation)), p))
            .filter(|(d, _)| *d <= NOTICE_DISTANCE)
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((_, p)) = nearest {
            goal = p;
        }
    }
    let mut focus = transforms.p1();
    let Ok(mut transform) = focus.single_mut() else { return };
    let spring = spring.get_or_insert_with(|| Spring::new(goal));
    let at = spring.update(goal, 0.08, time.delta_secs());
    transform.translation = if at.is_finite() { at } else { goal };
}

/// Takes gems the hand or the body reaches, runs the clock, and restarts on R.
#[allow(clippy::type_complexity)]
pub fn collect_gems(
    time: Res<Time>,
    keys: Option<Res<ButtonInput<KeyCode>>>,
    mut run: ResMut<GemRun>,
    bodies: Query<(&GlobalTransform, &MoveIntent), With<Player>>,
    arms: Query<&ReachArm>,
    globals: Query<&GlobalTransform>,
    mut gems: Query<(&Gem, &Transform, &mut Visibility)>,
    mut last: Local<Option<(Option<Vec3>, Vec3)>>,
) {
    if keys.is_some_and(|k| k.just_pressed(KeyCode::KeyR)) {
        run.restart();
    }
    let Ok((body, intent)) = bodies.single() else { return };
    if run.clock.is_none() && intent.direction.length() > 0.1 {
        run.clock = Some(0.0);
    }
    if run.finished.is_none()
        && let Some(clock) = &mut run.clock
    {
        *clock += time.delta_secs();
    }
    let hand = arms.iter().next().and_then(|arm| globals.get(arm.hand).ok()).map(|g| g.translation());
    let flat = |v: Vec3| v * Vec3::new(1.0, 0.0, 1.0);
    // What the hand and the body swept since last frame (a long frame moves the hand further
    // than a gem is wide); a jump longer than a stride is a teleport, not a sweep.
    let (hand_from, body_from) = last.replace((hand, body.translation())).unwrap_or((hand, body.translation()));
    let swept = |from: Option<Vec3>, to: Vec3| match from {
        Some(from) if from.distance(to) <= MAX_SWEEP => (from, to),
        _ => (to, to),
    };
    let hand_path = hand.map(|h| swept(hand_from, h));
    let body_path = swept(Some(flat(body_from)), flat(body.translation()));
    for (gem, transform, mut visibility) in &mut gems {
        let Some(taken) = run.taken.get(gem.index).copied() else { continue };
        let p = transform.translation;
        if !taken && run.clock.is_some() {
            let by_hand = hand_path.is_some_and(|(a, b)| distance_to_segment(p, a, b) <= HAND_RADIUS);
            if by_hand || distance_to_segment(flat(p), body_path.0, body_path.1) <= BODY_RADIUS {
                run.taken[gem.index] = true;
                run.by_hand += usize::from(by_hand);
            }
        }
        let shown = if run.taken[gem.index] { Visibility::Hidden } else { Visibility::Inherited };
        if *visibility != shown {
            *visibility = shown;
        }
    }
    if run.finished.is_none() && !run.taken.is_empty() && run.count() == run.taken.len() {
        let t = run.clock.unwrap_or(0.0);
        run.finished = Some(t);
        run.best = Some(run.best.map_or(t, |b| b.min(t)));
    }
}

/// Longest hand or body move between two frames still swept for gems, m.
const MAX_SWEEP: f32 = 1.0;

/// Distance from `p` to the segment `a`–`b`.
fn distance_to_segment(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 1e-12 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    p.distance(a + ab * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_section_has_a_gem_on_the_walker_s_right_standing_on_its_surface() {
        let layout = CourseLayout::new();
        let places = gem_places(&layout);
        assert_eq!(places.len(), 12);
        let mut sections: Vec<_> = places.iter().map(|p| layout.section_at(Vec2::new(p.x, p.z))).collect();
        sections.dedup();
        // The gem run spans lanes A–C (lane D and the kerbs have none).
        use crate::course_pieces::Section;
        for section in [Section::Flat, Section::Step, Section::Stairs, Section::Ramps, Section::Rough] {
            assert!(sections.contains(&section), "no gem on {section:?}");
        }
        // The stairs' and ramps' gems hang over raised ground.
        assert!(places.iter().filter(|p| p.y > 0.1).count() >= 5, "{places:?}");
    }

    #[test]
    fn a_fast_hand_takes_a_gem_it_passes_between_frames() {
        let gem = Vec3::new(0.0, 1.0, 0.0);
        // 14 cm a frame (1.4 m/s at 10 fps), straight through the gem: neither end is near it.
        let (a, b) = (gem - Vec3::X * 0.07 + Vec3::Y * 0.02, gem + Vec3::X * 0.07 + Vec3::Y * 0.02);
        assert!(a.distance(gem) > HAND_RADIUS * 0.5 && b.distance(gem) > HAND_RADIUS * 0.5);
        assert!((distance_to_segment(gem, a, b) - 0.02).abs() < 1e-6);
        assert!((distance_to_segment(gem, b, b) - b.distance(gem)).abs() < 1e-6);
    }

    #[test]
    fn a_run_finishes_once_and_keeps_the_best_time() {
        let mut run =
            GemRun { taken: vec![true, true], clock: Some(30.0), finished: Some(30.0), best: Some(30.0), by_hand: 2 };
        run.restart();
        assert_eq!((run.count(), run.clock, run.finished, run.best), (0, None, None, Some(30.0)));
    }
}
