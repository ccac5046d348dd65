//! Moving platforms: [`move_platforms`] puts each rapier kinematic platform where its
//! [`PlatformPiece`] says it is at this game time, and [`ride_platforms`] carries a character
//! standing on one with it.
//!
//! Method: each frame, before the character controller runs, a platform's pose is taken from
//! [`PlatformPiece::pose_at`] and its motion since last frame kept as a rigid step
//! ([`Platform::carry`]). The controller does not collide with the moving collider (it is in
//! [`PLATFORM_GROUP`]; rapier's own kinematic-platform friction would carry the body a second
//! time, a frame late, and keep dragging it along the platform's edge after it stepped off):
//! it walks on a still, invisible stand-in at the platform's height ([`controller_stand_in`],
//! a sensor only the controller sees, covering everywhere the platform goes), as it walks the
//! stairs' invisible ramps. A grounded character whose body stands on a platform has the
//! platform's step applied to its origin — added to the
//! controller's translation — and the step's turn added to its facing; [`Motion::carried`]
//! keeps the shift, so the speed the blend space plays at is the character's own over the
//! platform, not the platform's. The body stands on a platform when every planted foot stands
//! on it (or, with no foot planted, when its origin is over it): [`shared_support`]. Its planted
//! feet ride along through bevy_ik's foot locking
//! (`FootLockState::carry`), which reads the same `Transform`s.
//! Invariants: a platform's step is the identity on the frame it is spawned and whenever game
//! time stands still; only grounded characters are carried.

use bevy::prelude::*;
use bevy_ik::prelude::FootPlacerState;
use bevy_rapier3d::prelude::*;

use crate::course::CourseLayout;
use crate::course_lanes::{PlatformKind, PlatformMotion, PlatformPiece, PlatformShape};
use crate::marks::PLATFORM_GROUP;
use crate::marks::{Motion, Player};

/// A moving platform (on its rapier kinematic body): which piece of the layout, and its pose
/// last frame and this frame.
#[derive(Component, Clone, Copy, Debug)]
pub struct Platform {
    /// Index in [`CourseLayout::platforms`].
    pub index: usize,
    /// Which figure it feeds.
    pub kind: PlatformKind,
    /// Pose (centre, rotation) last frame.
    pub last: (Vec3, Quat),
    /// Pose this frame.
    pub now: (Vec3, Quat),
}

impl Platform {
    /// A platform resting at `pose`.
    pub fn new(index: usize, kind: PlatformKind, pose: (Vec3, Quat)) -> Self {
        Platform { index, kind, last: pose, now: pose }
    }

    /// Where the platform's motion since last frame takes the world point `p`.
    pub fn carry(&self, p: Vec3) -> Vec3 {
        let turn = self.now.1 * self.last.1.inverse();
        self.now.0 + turn * (p - self.last.0)
    }

    /// The turn about +Y since last frame, radians.
    pub fn yaw_step(&self) -> f32 {
        (self.now.1 * self.last.1.inverse()).to_euler(EulerRot::YXZ).0
    }
}

/// Moves every platform to its pose at this game time (in `Update`, before physics).
pub fn move_platforms(
    time: Res<Time>,
    layout: Res<CourseLayout>,
    mut platforms: Query<(&mut Platform, &mut Transform)>,
) {
    let t = time.elapsed_secs();
    for (mut platform, mut transform) in &mut platforms {
        let Some(piece) = layout.platforms.get(platform.index) else { continue };
        let pose = piece.pose_at(t);
        platform.last = platform.now;
        platform.now = pose;
        (transform.translation, transform.rotation) = pose;
    }
}

/// How far above the body's origin the ray looking for a platform under it starts, and how
/// long it is, m (it finds a top up to 20 cm below the origin).
const RIDE_RAY: (f32, f32) = (0.3, 0.5);
/// How far above a planted toe the ray looking for what it stands on starts, and how long it
/// is, m.
const FOOT_RAY: (f32, f32) = (0.3, 0.6);

/// What carries the body: while feet are planted, the one surface all of them stand on (none
/// when they stand on different ones, or one on nothing); with no foot planted, what is under
/// the body (`body`, looked up only then). So a foot landing on a moving platform carries the
/// body as soon as the foot behind has lifted off the floor, not only once the body's origin is
/// over the platform (until then the platform would carry the locked foot away from the body,
/// further than the leg reaches).
pub fn shared_support<T: PartialEq + Copy>(
    planted: impl IntoIterator<Item = Option<T>>,
    body: impl FnOnce() -> Option<T>,
) -> Option<T> {
    let mut planted = planted.into_iter();
    match planted.next() {
        None => body(),
        Some(first) => first.filter(|f| planted.all(|r| r == Some(*f))),
    }
}

/// Carries grounded characters standing on a platform with its step this frame (after
/// [`crate::player::move_characters`] has set their own step); what stands on it is
/// [`shared_support`], from the feet as the plugin planted them last frame.
pub fn ride_platforms(
    rapier: ReadRapierContext,
    platforms: Query<&Platform>,
    placers: Query<&FootPlacerState>,
    mut bodies: Query<
        (
            Entity,
            &mut Motion,
            &mut Transform,
            &mut KinematicCharacterController,
            Option<&KinematicCharacterControllerOutput>,
        ),
        With<Player>,
    >,
) {
    let Ok(context) = rapier.single() else { return };
    for (entity, mut motion, mut transform, mut kcc, output) in &mut bodies {
        motion.carried = Vec3::ZERO;
        if output.is_some_and(|o| !o.grounded) {
            continue;
        }
        let filter = QueryFilter::default()
            .exclude_sensors()
            .exclude_rigid_body(entity)
            .groups(CollisionGroups::new(Group::ALL, Group::ALL ^ crate::marks::OVERHANG_GROUP));
        let under = |p: Vec3, (above, length): (f32, f32)| {
            context.cast_ray(p + Vec3::Y * above, -Vec3::Y, length, true, filter).map(|(hit, _)| hit)
        };
        let feet = motion.avatar.and_then(|a| placers.get(a).ok()).into_iter().flat_map(|state| &state.feet);
        let planted = feet.filter(|f| f.contact).map(|f| under(f.toe_world, FOOT_RAY));
        let support = shared_support(planted, || under(transform.translation, RIDE_RAY));
        let Some(platform) = support.and_then(|hit| platforms.get(hit).ok()) else { continue };
        let shift = platform.carry(transform.translation) - transform.translation;
        if !shift.is_finite() {
            continue;
        }
        kcc.translation = Some(kcc.translation.unwrap_or(Vec3::ZERO) + shift);
        motion.carried = shift;
        motion.yaw = (motion.yaw + platform.yaw_step()).rem_euclid(std::f32::consts::TAU);
        transform.rotation = Quat::from_rotation_y(motion.yaw);
    }
}

/// The moving platform a foot at `p` stands on: the first thing a ray down from half a metre
/// over it hits, or over a point 1 cm beside it (one ray can miss the rim of the disc a foot
/// stands on, and the disc's travel would count as the foot's slide) — never a platform whose
/// top is over the foot (the foot stands beside it).
pub fn platform_at(
    context: &RapierContext,
    platforms: &Query<(&Platform, &GlobalTransform)>,
    p: Vec3,
) -> Option<Entity> {
    const BESIDE: [Vec3; 5] = [Vec3::ZERO, Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z];
    BESIDE.iter().find_map(|offset| {
        let from = p + *offset * 0.01 + Vec3::Y * 0.5;
        let (hit, toi) = context.cast_ray(from, -Vec3::Y, 1.0, true, QueryFilter::default())?;
        (platforms.contains(hit) && from.y - toi <= p.y + 0.005).then_some(hit)
    })
}

/// `p` in the frame of the platform `entity` (x, z), with the platform's index.
pub fn on_platform(platforms: &Query<(&Platform, &GlobalTransform)>, entity: Entity, p: Vec3) -> Option<(usize, Vec2)> {
    let (platform, at) = platforms.get(entity).ok()?;
    Some((platform.index, at.affine().inverse().transform_point3(p).xz()))
}

fn collider(shape: PlatformShape) -> Collider {
    match shape {
        PlatformShape::Box(half) => Collider::cuboid(half.x, half.y, half.z),
        PlatformShape::Disc { radius, half_height } => Collider::cylinder(half_height, radius),
    }
}

/// A platform's body and collider at its pose at time 0 (the course adds the mesh): seen by
/// the feet and the metrics, not by the character controller.
pub fn platform_body(index: usize, piece: &PlatformPiece) -> impl Bundle {
    let pose = piece.pose_at(0.0);
    (
        Name::new(format!("Platform ({})", piece.kind.label())),
        Platform::new(index, piece.kind, pose),
        RigidBody::KinematicPositionBased,
        collider(piece.shape),
        CollisionGroups::new(PLATFORM_GROUP, Group::ALL),
        Transform::from_translation(pose.0).with_rotation(pose.1),
    )
}

/// What the character controller walks on instead of a platform: a still sensor at the
/// platform's height over everywhere it goes (a slide's whole sweep; a disc turning in place is
/// its own).
pub fn controller_stand_in(piece: &PlatformPiece) -> impl Bundle {
    let shape = match (piece.shape, piece.motion) {
        (PlatformShape::Box(half), PlatformMotion::Slide { axis, amplitude, .. }) => {
            PlatformShape::Box(half + axis.abs() * amplitude)
        }
        (shape, _) => shape,
    };
    (
        Name::new(format!("Platform stand-in (controller) for the {}", piece.kind.label())),
        collider(shape),
        Sensor,
        Transform::from_translation(piece.center),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_rides_what_all_its_planted_feet_stand_on() {
        // Both feet on platform 1, or the only planted foot on it: carried by it.
        assert_eq!(shared_support([Some(1), Some(1)], || Some(0)), Some(1));
        assert_eq!(shared_support([Some(1)], || None), Some(1));
        // One on the floor (0), one on the platform: neither carries the body.
        assert_eq!(shared_support([Some(0), Some(1)], || Some(1)), None);
        assert_eq!(shared_support([Some(1), None], || Some(1)), None);
        assert_eq!(shared_support([None], || Some(1)), None);
        // No foot planted (both swinging, or no feet at all): what is under the body.
        assert_eq!(shared_support::<u8>([], || Some(2)), Some(2));
        assert_eq!(shared_support::<u8>([], || None), None);
    }

    #[test]
    fn a_point_on_a_platform_moves_with_its_step() {
        // A slide of 2 cm along +X.
        let mut slide = Platform::new(0, PlatformKind::Sliding, (Vec3::new(1.0, 0.0, 0.0), Quat::IDENTITY));
        slide.now = (Vec3::new(1.02, 0.0, 0.0), Quat::IDENTITY);
        let p = Vec3::new(3.0, 0.05, -1.0);
        assert!((slide.carry(p) - (p + Vec3::new(0.02, 0.0, 0.0))).length() < 1e-6);
        assert_eq!(slide.yaw_step(), 0.0);
        // A disc centred at (5, 0, 5) turning by 0.5° about +Y: a point 1 m out along +X moves
        // 8.7 mm on a circle about the centre, keeping its distance and height.
        let turn = Quat::from_rotation_y(0.5f32.to_radians());
        let mut disc = Platform::new(1, PlatformKind::Turning, (Vec3::new(5.0, 0.0, 5.0), Quat::from_rotation_y(1.0)));
        disc.now = (disc.last.0, turn * disc.last.1);
        let p = Vec3::new(6.0, 0.05, 5.0);
        let q = disc.carry(p);
        assert!((q.distance(p) - 0.5f32.to_radians()).abs() < 1e-5, "{}", q.distance(p));
        assert!((Vec2::new(q.x - 5.0, q.z - 5.0).length() - 1.0).abs() < 1e-5 && (q.y - 0.05).abs() < 1e-6);
        assert!((disc.yaw_step() - 0.5f32.to_radians()).abs() < 1e-6);
        // Standing still, nothing moves.
        let still = Platform::new(2, PlatformKind::Sliding, (Vec3::ONE, Quat::from_rotation_y(0.3)));
        assert!(still.carry(p).distance(p) < 1e-6 && still.yaw_step().abs() < 1e-6);
    }
}
