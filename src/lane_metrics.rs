//! Foot figures of lane D: how far a planted foot slides over the moving platform it stands
//! on, and whether a foot is under the board hanging over the floor.
//!
//! Method: after transform propagation, per foot, the ball point (the one the toe-slide figure
//! follows, [`crate::rigging::FootProbe`]) is placed by its bone's final `GlobalTransform` and a
//! rapier ray from 1 m above it finds what it stands on (things hanging over the floor left
//! out). While the clip labels the foot planted and that is a [`Platform`], the ball is taken
//! into the platform's own frame, and the horizontal distance it moved there since the previous
//! planted frame on the same platform is added up over the contact ([`PlatformSlide`]): a foot
//! riding the platform perfectly adds nothing, wherever the platform went. A foot is under the
//! overhang when any of its sole points is inside a footprint of
//! [`CourseLayout::overhangs`]; its height above the true floor there is `FootMetrics`' gap
//! (whose rays do not see the overhang). A contact that begins with the heel or the toe tip
//! off the platform is marked as landing across its edge.
//! Invariants: a slide is finite and ≥ 0, in metres, and restarts with every contact and
//! whenever the foot is not planted on the same platform.

use bevy::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::course::CourseLayout;
use crate::course_lanes::PlatformKind;
use crate::locomotion::Locomotion;
use crate::marks::OVERHANG_GROUP;
use crate::platforms::Platform;
use crate::rigging::FootProbe;

/// The slide of one planted foot over the platform it stands on, added up over one contact.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlatformSlide {
    /// The platform (its index) and the ball's position on it (its frame, x and z) last frame.
    on: Option<(usize, Vec2)>,
    /// Distance moved over the platform so far in this contact, m.
    pub total: f32,
}

impl PlatformSlide {
    /// One frame: `at` is the platform the planted foot's ball stands on and the ball's
    /// position in that platform's frame (x, z), or `None` when the foot is not planted on a
    /// platform. Returns the slide added up over this contact so far (0 on its first frame),
    /// or `None`.
    pub fn step(&mut self, at: Option<(usize, Vec2)>) -> Option<f32> {
        match (self.on, at) {
            (Some((was, last)), Some((platform, p))) if was == platform => {
                self.total += last.distance(p);
                self.on = at;
                Some(self.total)
            }
            (_, Some(_)) => {
                (self.on, self.total) = (at, 0.0);
                Some(0.0)
            }
            (_, None) => {
                (self.on, self.total) = (None, 0.0);
                None
            }
        }
    }
}

/// One foot's lane figures this frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaneFoot {
    /// The contact's slide over its platform so far.
    pub slide: PlatformSlide,
    /// The platform the foot is planted on this frame, and its slide over it so far, m.
    pub riding: Option<(PlatformKind, f32)>,
    /// Set on the first planted frame of a contact on a platform.
    pub contact_started: bool,
    /// The current contact on a platform began across the platform's edge: its heel or its
    /// toe tip was not over the platform.
    pub across_edge: bool,
    /// A sole point is under something hanging over the floor.
    pub under_overhang: bool,
}

/// Lane figures of a character (`[left, right]`), on its avatar.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct LaneMetrics {
    /// Left and right.
    pub feet: [LaneFoot; 2],
}

/// Measures every probed character's feet on lane D.
pub fn measure_lane_feet(
    mut commands: Commands,
    rapier: ReadRapierContext,
    layout: Res<CourseLayout>,
    mut avatars: Query<(Entity, &FootProbe, Option<&Locomotion>, Option<&mut LaneMetrics>)>,
    platforms: Query<(&Platform, &GlobalTransform)>,
    globals: Query<&GlobalTransform>,
) {
    let Ok(context) = rapier.single() else { return };
    let floor =
        QueryFilter::default().exclude_sensors().groups(CollisionGroups::new(Group::ALL, Group::ALL ^ OVERHANG_GROUP));
    for (entity, probe, loco, metrics) in &mut avatars {
        let mut current = metrics.as_deref().copied().unwrap_or_default();
        for (side, points) in probe.feet.iter().enumerate() {
            let foot = &mut current.feet[side];
            let world =
                |i: usize| points.get(i).and_then(|p| globals.get(p.bone).ok().map(|b| b.transform_point(p.local)));
            foot.under_overhang =
                (0..points.len()).filter_map(world).any(|p| layout.under_overhang(Vec2::new(p.x, p.z)));
            let planted = loco.is_some_and(|l| l.labelled && l.contacts[side]);
            let on_platform = world(probe.ball[side]).filter(|_| planted).and_then(|ball| {
                let (hit, _) = context.cast_ray(ball + Vec3::Y, -Vec3::Y, 3.0, true, floor)?;
                let (platform, at) = platforms.get(hit).ok()?;
                let local = at.affine().inverse().transform_point3(ball);
                Some((platform, Vec2::new(local.x, local.z)))
            });
            let was_riding = foot.riding.is_some();
            let slide = foot.slide.step(on_platform.map(|(p, at)| (p.index, at)));
            foot.riding = on_platform.zip(slide).map(|((p, _), s)| (p.kind, s));
            foot.contact_started = !was_riding && foot.riding.is_some();
            if foot.contact_started {
                let over = |i: usize| {
                    let hit = world(i).and_then(|p| context.cast_ray(p + Vec3::Y, -Vec3::Y, 3.0, true, floor));
                    hit.is_some_and(|(e, _)| platforms.get(e).is_ok())
                };
                foot.across_edge = !(over(0) && over(points.len().saturating_sub(1)));
            }
        }
        match metrics {
            Some(mut m) => *m = current,
            None => {
                commands.entity(entity).insert(current);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contact_adds_up_its_slide_over_one_platform_and_restarts() {
        let mut slide = PlatformSlide::default();
        assert_eq!(slide.step(None), None);
        // Planted on platform 0: 3 mm, then 4 mm over it (the platform itself may go anywhere).
        assert_eq!(slide.step(Some((0, Vec2::new(1.0, 2.0)))), Some(0.0));
        assert!((slide.step(Some((0, Vec2::new(1.003, 2.0)))).unwrap() - 0.003).abs() < 1e-6);
        assert!((slide.step(Some((0, Vec2::new(1.003, 2.004)))).unwrap() - 0.007).abs() < 1e-6);
        // Back and forth adds up (a slide that returns is still a slide).
        assert!((slide.step(Some((0, Vec2::new(1.003, 2.0)))).unwrap() - 0.011).abs() < 1e-6);
        // Another platform, or lifted off: a new contact.
        assert_eq!(slide.step(Some((1, Vec2::new(5.0, 5.0)))), Some(0.0));
        assert_eq!(slide.step(None), None);
        assert_eq!(slide.step(Some((1, Vec2::new(5.0, 6.0)))), Some(0.0));
        assert_eq!(slide.total, 0.0);
    }
}
