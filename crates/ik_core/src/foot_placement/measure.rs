//! Step 1 of placing a foot: its sole points probed where last frame's tilt puts them, the
//! ground's slope under them smoothed, and the height correction the foot asks for, with its
//! say in the pelvis height.

use glam::{Quat, Vec3};

use super::lifts::{ALL_PROBES, SoleLifts};
use super::probe::{self, Rays};
use super::support::{SupportVote, front};
use super::{
    CONTACT_BAND, FootPlacement, FootReport, FootRig, FootState, GroundHit, MAX_LENGTH, SwingFloor, planted_weight,
    slope,
};
use crate::Xform;
use crate::sole::{Probe, SOLE_EDGES, SOLE_PROBES, find_edges, sole_float};

/// This frame's limits and inputs every foot shares: the settings clamped once.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    /// The probe rays' frame and extent.
    rays: Rays,
    /// Largest lift and drop of a foot, model units.
    pub max_up: f32,
    pub max_down: f32,
    /// Height under which a foot counts as planted, and the band it fades out over.
    planted_height: f32,
    planted_fade: f32,
    /// Cosine and sine of the steepest tilt a foot follows.
    cos_tilt: f32,
    sin_tilt: f32,
    /// Springs snap this frame (a fresh state).
    pub fresh: bool,
    /// Time step, s.
    pub dt: f32,
    /// The character's front (model space), for the support vote.
    forward: Vec3,
}

impl Frame {
    /// A ground normal turned toward +Y until it is within the tilt limit of it (the same as
    /// `turn_towards(Y, n, max_tilt) * Y`, without trigonometry per call).
    #[inline(always)]
    fn tilt_limit(&self, n: Vec3) -> Vec3 {
        let n = n.normalize_or(Vec3::Y);
        if n.y >= self.cos_tilt {
            return n;
        }
        let across = Vec3::new(n.x, 0.0, n.z).normalize_or(Vec3::X);
        Vec3::Y * self.cos_tilt + across * self.sin_tilt
    }
}

/// One foot's sole this frame: its points (shifted with the foot), what the rays found under
/// them, and how planted the clip holds it.
struct Sole {
    /// Each sole point (model space) and its flat-standing height.
    points: [Option<(Vec3, f32)>; SOLE_PROBES],
    /// The ground under each point: probed, or taken from a probed neighbour's plane.
    hits: [Option<(Vec3, Vec3)>; SOLE_PROBES],
    /// The probed points' own hits only.
    cast_hits: [Option<(Vec3, Vec3)>; SOLE_PROBES],
    /// The foot's horizontal shift (a lock's), and what it tilts about (its ankle, or the ball
    /// a lock holds).
    shift: Vec3,
    pivot: Vec3,
    /// This frame's tilt.
    turn: Quat,
    /// The animated floor under the foot (model y).
    floor: f32,
    /// The ground its swing is carried over.
    swing: SwingFloor,
    /// The clip's planted weight, and that less the swing floor's.
    animated_planted: f32,
    planted: f32,
}

impl Sole {
    #[inline(always)]
    fn about_pivot(&self, turn: Quat, p: Vec3) -> Vec3 {
        self.pivot + turn * (p - self.pivot)
    }
}

impl FootPlacement<'_> {
    /// This frame's [`Frame`] from the settings.
    #[inline(always)]
    pub(super) fn frame(&self, fresh: bool, dt: f32) -> Frame {
        let s = &self.settings;
        let max_tilt = s.max_tilt.clamp(0.0, 80f32.to_radians());
        let start = s.ray_start_height.clamp(-MAX_LENGTH, MAX_LENGTH);
        let length = s.ray_length.clamp(0.0, MAX_LENGTH);
        Frame {
            rays: Rays { to_world: self.model_to_world, start, length },
            max_up: s.max_step_up.clamp(0.0, MAX_LENGTH),
            max_down: s.max_step_down.clamp(0.0, MAX_LENGTH),
            planted_height: s.planted_height.clamp(-MAX_LENGTH, MAX_LENGTH),
            planted_fade: s.planted_fade.clamp(0.0, MAX_LENGTH),
            cos_tilt: max_tilt.cos(),
            sin_tilt: max_tilt.sin(),
            fresh,
            dt,
            forward: front(self.travel, self.feet.iter().map(|f| f.knee_forward)),
        }
    }

    /// Step 1 for foot `i`: probes its sole, smooths its tilt and height correction into `st`
    /// and fills `report`. Returns its planted offset (its say in the lowest correction any
    /// foot asks for; 0 without ground).
    #[inline(always)]
    pub(super) fn measure_foot<G>(
        &self,
        (i, foot): (usize, &FootRig),
        (st, report): (&mut FootState, &mut FootReport),
        model: &[Xform],
        ground: &mut G,
        frame: &Frame,
    ) -> f32
    where
        G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
    {
        let s = &self.settings;
        let (mut sole, ankle) = self.probe_sole((i, foot), st, model, ground, frame);
        st.target = None;
        st.toes_down = 0.0;
        st.vote = SupportVote::default();
        *report = FootReport {
            ground_normal: Vec3::Y,
            planted: sole.planted,
            clip_planted: sole.animated_planted,
            ankle_target: ankle.translation,
            ..Default::default()
        };
        // The ground's slope under the sole (tilt-limited; [`sole_slope`]) as far as the clip
        // plants the foot, smoothed first, so heights below use the tilt actually applied.
        let goal_normal = match slope::sole_slope(&sole.hits) {
            Some(normal) => Vec3::Y.lerp(frame.tilt_limit(normal), sole.animated_planted).normalize_or(Vec3::Y),
            None => Vec3::Y,
        };
        if frame.fresh {
            st.normal.snap(goal_normal);
        } else {
            st.normal.update(goal_normal, s.tilt_half_life, frame.dt);
        }
        sole.turn = Quat::from_rotation_arc(Vec3::Y, st.normal.value.normalize_or(Vec3::Y));
        let (goal_offset, lowest, vote) = if sole.hits.iter().any(Option::is_some) {
            self.rest_on_ground((foot, &sole, ankle), (st, report), model, ground, frame)
        } else {
            (0.0, f32::NEG_INFINITY, 0.0)
        };
        report.target_offset = goal_offset;
        if frame.fresh {
            st.offset.snap(goal_offset);
        } else {
            st.offset.update(goal_offset, s.foot_half_life, frame.dt);
        }
        // Smoothing never lets a point sink into its ground.
        if st.offset.value < lowest {
            st.offset.value = lowest;
            st.offset.velocity = st.offset.velocity.max(0.0);
        }
        report.offset = st.offset.value;
        report.ankle_target = sole.about_pivot(sole.turn, ankle.translation) + Vec3::Y * st.offset.value;
        vote
    }

    /// The sole of foot `i` this frame (shifted with the foot, tilted as last frame) and what
    /// the rays find under it (kept in `st.probes`); the shifted ankle.
    #[inline(always)]
    fn probe_sole<G>(
        &self,
        (i, foot): (usize, &FootRig),
        st: &mut FootState,
        model: &[Xform],
        ground: &mut G,
        frame: &Frame,
    ) -> (Sole, Xform)
    where
        G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
    {
        let s = &self.settings;
        let shift = self.foot_shifts.get(i).map_or(Vec3::ZERO, |s| Vec3::new(s.x, 0.0, s.z));
        let mut ankle = model[foot.leg.ankle];
        ankle.translation += shift;
        st.animated_rotation = ankle.rotation;
        st.ankle_in_knee = super::external::is_external(self.parents, &foot.leg)
            .then(|| model[foot.leg.knee].inverse_transform_point(model[foot.leg.ankle].translation));
        let points = foot.sole_points(model).map(|p| p.map(|(at, rest)| (at + shift, rest)));
        // The foot tilts about its ankle, or, when shifts are given (locking), about the
        // ball the lock holds (the sole under its toe joint, else its sole's ball point), so tilting to the
        // slope does not drag a locked foot along.
        let ball = foot.ball(model).filter(|_| !self.foot_shifts.is_empty());
        let pivot = ball.map_or(ankle.translation, |b| b + shift);
        let floor = self.floor_heights.get(i).copied().unwrap_or(0.0);
        let mut sole_height = ankle.translation.y - floor - foot.ankle_height;
        if let Some((t, h)) = points[1] {
            sole_height = sole_height.min(t.y - floor - h);
        }
        let swing = self.swing_floors.get(i).copied().unwrap_or_default();
        let animated_planted = planted_weight(sole_height, frame.planted_height, frame.planted_fade);
        // How planted it stands (squash, report): the clip's planted weight, less the swing floor's.
        let planted = animated_planted * (1.0 - swing.weight.clamp(0.0, 1.0));
        let mut sole = Sole {
            points,
            hits: [None; SOLE_PROBES],
            cast_hits: [None; SOLE_PROBES],
            shift,
            pivot,
            turn: Quat::IDENTITY,
            floor,
            swing,
            animated_planted,
            planted,
        };
        // Rays straight down from above each probe point (ankle, toe, heel, toe tip), past
        // anything hanging over the foot.
        let ends = points[2].is_some() || points[3].is_some();
        // Each point is probed where last frame's tilt puts it: a foot pitched down a slope
        // about its ball brings its heel forward, past the crest it stood behind.
        let last_turn = Quat::from_rotation_arc(Vec3::Y, st.normal.value.normalize_or(Vec3::Y));
        let tilted = points.map(|p| p.map(|(at, rest)| (sole.about_pivot(last_turn, at), rest)));
        sole.cast_hits = core::array::from_fn(|k| {
            tilted[k].filter(|_| s.probes.probes(k, ends)).and_then(|(at, _)| frame.rays.under(ground, at))
        });
        // Points left unprobed take the ground of their nearest probed neighbour's plane.
        sole.hits = probe::fill_unprobed(&tilted, sole.cast_hits, |k| s.probes.probes(k, ends));
        st.probes = sole.hits;
        (sole, ankle)
    }

    /// A foot with ground under it: the lift that rests it on its ground as far as the clip
    /// plants it (raised by its swing floor), its ankle and toe targets and its support vote.
    /// Returns (goal offset, the least offset that keeps it out of the ground, planted offset).
    #[inline(always)]
    fn rest_on_ground<G>(
        &self,
        (foot, sole, ankle): (&FootRig, &Sole, Xform),
        (st, report): (&mut FootState, &mut FootReport),
        model: &[Xform],
        ground: &mut G,
        frame: &Frame,
    ) -> (f32, f32, f32)
    where
        G: FnMut(Vec3, Vec3, f32) -> Option<GroundHit>,
    {
        let (max_up, max_down) = (frame.max_up, frame.max_down);
        let (points, hits) = (&sole.points, &sole.hits);
        // Per probe: the point once the foot is tilted (about its pivot), its animated
        // height above the floor, its flat-standing height, and the ground under it.
        let placed: [Option<Probe>; SOLE_PROBES] = core::array::from_fn(|i| {
            let ((at, rest), hit) = (points[i]?, hits[i]?);
            Some((sole.about_pivot(sole.turn, at), at.y - sole.floor, rest, hit))
        });
        let mut cast = |point: Vec3| frame.rays.under(ground, point);
        let edges = if self.settings.edge_search { find_edges(&placed, &mut cast) } else { [None; SOLE_EDGES] };
        let probes: [Option<Probe>; ALL_PROBES] =
            core::array::from_fn(|i| if i < SOLE_PROBES { placed[i] } else { edges[i - SOLE_PROBES] });
        // The lift that puts a point `height` above its (tilt-limited) ground plane.
        // Any foot, planted or swinging, is lifted at least so that no point ends below
        // its ground (`clearance`). `n.y ≥ cos 80°`, so the division is safe.
        let lift_to = |point: Vec3, height: f32, (hit, n): (Vec3, Vec3)| {
            let n = frame.tilt_limit(n);
            (height - (point - hit).dot(n)) / n.y.max(0.1)
        };
        let lifts = SoleLifts::measure(&probes, sole.planted, lift_to);
        let (planted_lift, clearance) = (lifts.planted, lifts.clearance);
        // The foot rests on its ground as far as the clip plants it, raised by its swing
        // floor's weight to keep its animated height above that floor (never lowered by
        // it). The pelvis hears the planted part; a foot the floor raises counts that much
        // less planted (eased over CONTACT_BAND of raise), one it does not raise counts.
        let lift = planted_lift.clamp(-max_down, max_up);
        let offset = (lift * sole.animated_planted).max(clearance.min(max_up));
        st.toes_down = lifts.toes_down(offset);
        let swinging = sole.swing.weight.clamp(0.0, 1.0);
        let raise = ((sole.swing.height - sole.floor).min(max_up) - offset).max(0.0);
        let voting = sole.animated_planted * (1.0 - swinging * (raise / CONTACT_BAND).min(1.0));
        let planted_offset = (lift * voting).max(clearance.min(max_up));
        let offset = offset + swinging * raise;
        if let Some((point, normal)) = hits[0].or(hits[1]).or(hits[2]).or(hits[3]) {
            report.hit = true;
            report.ground_height = point.y;
            report.ground_point = point;
            report.ground_normal = normal;
        }
        if let Some((point, normal)) = sole.cast_hits[1] {
            report.toe_hit = true;
            report.toe_ground_point = point;
            report.toe_ground_normal = normal;
        }
        report.float_before = sole_float(points, hits);
        let target = sole.about_pivot(sole.turn, ankle.translation) + Vec3::Y * offset;
        st.target = Some(target);
        st.toe =
            foot.leg.toe.map(|t| sole.about_pivot(sole.turn, model[t].translation + sole.shift) + Vec3::Y * offset);
        let leg_length = model[foot.leg.hip].translation.distance(model[foot.leg.knee].translation)
            + model[foot.leg.knee].translation.distance(model[foot.leg.ankle].translation);
        st.vote = SupportVote { offset: planted_offset, planted: voting, ahead: target.dot(frame.forward), leg_length };
        (offset, clearance.min(max_up), planted_offset)
    }
}
