//! The body over the feet for [`CreatureGait`]: a least-squares plane through the planted
//! feet gives the body's height and tilt, springs smooth them, and the ground under the body
//! and its hips bounds its height from below. See [`super`] for the method.

use glam::{Quat, Vec2, Vec3};

use super::{CreatureBody, CreatureBodyPose, CreatureGait, CreatureGaitSettings};
use crate::footstep::FootprintGround;

/// Ridge on the plane's slopes toward the last ones, m² per point: with fewer than three feet,
/// or feet in a line, the fit keeps the last slope across the line (and along it, for one foot).
const RIDGE: f32 = 1e-4;

/// A plane `y = height + slope · (xz − origin.xz)` through `points` (least squares, world),
/// `origin` the body's origin, slopes drawn toward `prior` where the points leave them open;
/// `None` without points.
pub(super) fn fit_plane(origin: Vec3, points: impl Iterator<Item = Vec3>, prior: Vec2) -> Option<(f32, Vec2)> {
    let (mut n, mut sum, mut xx, mut xz, mut zz, mut xy, mut zy) = (0.0f32, Vec3::ZERO, 0.0, 0.0, 0.0, 0.0, 0.0);
    for p in points {
        let d = p - origin;
        n += 1.0;
        sum += d;
        (xx, xz, zz) = (xx + d.x * d.x, xz + d.x * d.z, zz + d.z * d.z);
        (xy, zy) = (xy + d.x * d.y, zy + d.z * d.y);
    }
    if n == 0.0 {
        return None;
    }
    let mean = sum / n;
    // Covariances about the mean, the slopes' ridged, solved for the two slopes.
    let a = xx - n * mean.x * mean.x + RIDGE * n;
    let b = xz - n * mean.x * mean.z;
    let c = zz - n * mean.z * mean.z + RIDGE * n;
    let (cxy, czy) = (xy - n * mean.x * mean.y + RIDGE * n * prior.x, zy - n * mean.z * mean.y + RIDGE * n * prior.y);
    let slope = Vec2::new(c * cxy - b * czy, a * czy - b * cxy) / (a * c - b * b);
    let height = mean.y - slope.x * mean.x - slope.y * mean.z;
    (height.is_finite() && slope.is_finite()).then_some((origin.y + height, slope))
}

/// The tilt that turns +Y onto the plane's normal, at most `max_tilt` rad.
fn tilt_of(slope: Vec2, max_tilt: f32) -> Quat {
    let normal = Vec3::new(-slope.x, 1.0, -slope.y).normalize_or(Vec3::Y);
    let tilt = Quat::from_rotation_arc(Vec3::Y, normal);
    let (axis, angle) = tilt.to_axis_angle();
    let max = if max_tilt.is_finite() { max_tilt.max(0.0) } else { 0.5 };
    if angle > max && axis.is_finite() { Quat::from_axis_angle(axis, max) } else { tilt }
}

impl CreatureGait {
    /// The suggested body pose: the springs carried toward the plane of the planted feet (kept
    /// toward the last one while none is planted), snapped onto it at the first frame, never
    /// below the ground under the body and its hips plus the clearance.
    pub(super) fn fit_body<G: FootprintGround + ?Sized>(
        &mut self,
        settings: &CreatureGaitSettings,
        body: &CreatureBody,
        ground: &mut G,
        dt: f32,
        snap: bool,
    ) -> CreatureBodyPose {
        let heading = body.heading();
        let planted = self.legs.iter().filter(|l| l.swing.is_none()).map(|l| l.foot);
        if let Some((height, slope)) = fit_plane(body.position, planted, self.goal.1) {
            self.goal = (height + self.ride_height, slope);
        }
        let half_life = if settings.body_half_life.is_nan() { 0.1 } else { settings.body_half_life };
        if snap {
            self.height.snap(self.goal.0);
            self.tilt.snap(tilt_of(self.goal.1, settings.max_tilt));
        } else {
            self.height.update(self.goal.0, half_life, dt);
            self.tilt.update(tilt_of(self.goal.1, settings.max_tilt), half_life, dt);
        }
        // Probed where the ground is expected (a ride height under the hips and the body), as
        // the feet are: what hangs over the body (a board it walks under) is not its floor.
        let down = Vec3::Y * self.ride_height;
        let probes = self.legs.iter().map(|l| heading.transform_point(l.leg.hip) - down).chain([body.position - down]);
        let floor = probes.filter_map(|p| ground.height(p).filter(|h| h.is_finite())).fold(f32::NEG_INFINITY, f32::max);
        let clearance = if settings.min_clearance.is_finite() { settings.min_clearance } else { 0.05 };
        if self.height.value < floor + clearance {
            self.height.value = floor + clearance;
            self.height.velocity = self.height.velocity.max(0.0);
        }
        if !(self.height.value.is_finite() && self.tilt.value.is_finite()) {
            self.height.snap(if self.goal.0.is_finite() { self.goal.0 } else { body.position.y });
            self.tilt.snap(Quat::IDENTITY);
        }
        let rotation = (self.tilt.value * heading.rotation).normalize();
        CreatureBodyPose { position: body.position.with_y(self.height.value), rotation }
    }
}
