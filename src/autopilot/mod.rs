//! `--autopilot`: walk the fixed route over the whole course three times — foot IK off; foot IK
//! on without locking; foot IK on with locking — and print the metrics table.
//!
//! Method: each pass teleports the character to the route's start, lets it stand for 1 s (IK
//! settles), then steers it along the route polyline (pure pursuit, 1.2 m look-ahead) at walking
//! speed. Every frame the per-foot figures of [`crate::metrics`] are folded into maxima per pass,
//! section (from the character's position) and foot. Inputs: the course layout, `FootMetrics`,
//! the IK timer. Outputs: `MoveIntent`, `DemoIk` per pass, the printed table; `AppExit` at the
//! end (0 every `bar:` line met, 1 one not measured, 3 one NOT met, 2 no character;
//! [`BarCount`](figures::BarCount)). Invariants: the route is walked in order (progress never goes back); a pass
//! that takes longer than 4 minutes of game time is stopped and reported as such.

use std::collections::BTreeMap;

use bevy::app::AppExit;
use bevy::prelude::*;
use bevy_ik::prelude::{FootPlacerState, IkFade, LookAtSpread, LookAtState, PoseWarpingState, RiggedHumanoid};
use ik_core::spring::Spring;

use crate::course::CourseLayout;
use crate::course_pieces::Section;
use crate::game::GemRun;
use crate::lane_metrics::LaneMetrics;
use crate::locomotion::Locomotion;
use crate::marks::Avatar;
use crate::marks::{Motion, MoveIntent, Player};
use crate::metrics::{FootMetrics, IkTimer};
use crate::toggles::DemoIk;

mod figures;
pub(crate) mod headway;
mod lanes;
mod report;
mod swings;

pub use figures::{GOAL_STAIR_RISE, Gaze, Maxima, PASSES, SlopeFigures, StairPelvis};

use report::{print_stand, print_table};

/// How far round the pelvis the ground must be flat for its height to count as on flat
/// ground, m (a stride and a half).
const FLAT_MARGIN: f32 = 1.0;
/// Seconds standing still before each pass starts walking.
const SETTLE: f32 = 1.0;
/// Look-ahead along the route, m.
const LOOKAHEAD: f32 = 1.2;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    WaitForCharacter,
    Settle(f32),
    Walk {
        segment: usize,
        time: f32,
    },
    /// A character with no walk or run clip: it stands astride the 15 cm step's front edge
    /// (one foot on the floor, one on the step) and each foot's gap to its ground is measured.
    Stand {
        time: f32,
    },
    Done,
}

/// Where the standing check puts the character: astride the step's front edge (z = 3), facing
/// +X, so its left foot is on the floor and its right on the step.
const STAND_AT: Vec3 = Vec3::new(0.0, 0.2, 3.0);
/// Seconds the standing check settles, then measures.
const STAND_SETTLE: f32 = 1.5;
const STAND_MEASURE: f32 = 1.0;

/// The autopilot's state (present only with `--autopilot`).
#[derive(Resource, Debug)]
pub struct Autopilot {
    pub pass: usize,
    phase: Phase,
    /// Maxima per (pass, section, foot).
    pub stats: BTreeMap<(usize, Section, usize), Maxima>,
    /// IK time per frame while walking, ms (all passes).
    pub ik_ms: Vec<f32>,
    /// Game-time frame lengths while walking, s.
    pub frames: u32,
    /// Passes that did not reach the end of the route, each with where and why.
    pub timed_out: Vec<(usize, String)>,
    /// Where the body last made headway in this pass.
    headway: headway::Headway,
    /// Set when the table has been printed.
    pub finished: bool,
    /// Exit the app when done (false when a screenshot ends the run instead).
    pub exit_when_done: bool,
    /// The exit status once done, until [`exit_when_measured`] writes it.
    exit: Option<AppExit>,
    /// Tour mode: walk the route over and over with the IK switches as they are; no table.
    pub tour: bool,
    /// Standing check: worst gap above (float) and below (penetration) the ground per foot, m.
    pub stand: [(f32, f32); 2],
    /// Standing check: frames with both feet measured.
    pub stand_frames: u32,
    /// Where the head looked and the hand reached while walking (every pass).
    pub gaze: Gaze,
    /// The fixed game-time step, s.
    pub step: f32,
    /// Pelvis height above the ground on the flat section with foot IK on (pass 2): sum, count,
    /// lowest, m.
    pub flat_pelvis: (f64, u32, f32),
    /// Slope warping per (pass, ramp angle in degrees).
    pub slopes: BTreeMap<(usize, u32), SlopeFigures>,
    /// The gem run of each pass walked: (pass, run).
    pub games: Vec<(usize, GemRun)>,
    /// Stand here (x, z, yaw) and measure the feet instead of walking (`--at`).
    pub stand_at: Option<(Vec2, f32)>,
    /// The pelvis over the 20 cm stairs, per pass.
    pub stair_pelvis: BTreeMap<usize, StairPelvis>,
    /// Lane D: planted feet over the moving platforms and under the board, per pass.
    pub lanes: lanes::LaneFigures,
    /// How smoothly swinging feet go over the stairs, per pass.
    pub swings: swings::SwingFigures,
}

impl Autopilot {
    /// A fresh autopilot.
    pub fn new(exit_when_done: bool) -> Self {
        Autopilot {
            pass: 0,
            phase: Phase::WaitForCharacter,
            stats: BTreeMap::new(),
            ik_ms: Vec::new(),
            frames: 0,
            timed_out: Vec::new(),
            headway: headway::Headway::default(),
            finished: false,
            exit_when_done,
            exit: None,
            tour: false,
            stand: [(0.0, 0.0); 2],
            stand_frames: 0,
            gaze: Gaze::default(),
            step: 1.0 / 60.0,
            flat_pelvis: (0.0, 0, f32::INFINITY),
            slopes: BTreeMap::new(),
            games: Vec::new(),
            stand_at: None,
            stair_pelvis: BTreeMap::new(),
            lanes: lanes::LaneFigures::default(),
            swings: swings::SwingFigures::default(),
        }
    }

    /// The hands-free tour (`--tour`).
    pub fn tour() -> Self {
        Autopilot { tour: true, ..Autopilot::new(false) }
    }
}

/// Closest point on segment `a`–`b` to `p`, as a parameter in [0, 1].
fn project(a: Vec2, b: Vec2, p: Vec2) -> f32 {
    let ab = b - a;
    let len2 = ab.length_squared();
    if len2 < 1e-9 { 0.0 } else { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) }
}

/// The point `LOOKAHEAD` further along the route from the projection of `p` on `segment`.
fn pursuit(route: &[Vec2], segment: &mut usize, p: Vec2) -> Option<Vec2> {
    while *segment + 1 < route.len() {
        let (a, b) = (route[*segment], route[*segment + 1]);
        let t = project(a, b, p);
        if t >= 1.0 - 1e-4 && *segment + 2 < route.len() {
            *segment += 1;
            continue;
        }
        let mut left = LOOKAHEAD;
        let mut at = a.lerp(b, t);
        let mut i = *segment;
        loop {
            let end = route[i + 1];
            let d = at.distance(end);
            if d >= left || i + 2 >= route.len() {
                return Some(at + (end - at).normalize_or_zero() * left.min(d));
            }
            left -= d;
            at = end;
            i += 1;
        }
    }
    None
}

/// Drives the character and collects the figures.
#[allow(clippy::too_many_arguments)]
pub fn run_autopilot(
    time: Res<Time>,
    layout: Res<CourseLayout>,
    mut pilot: ResMut<Autopilot>,
    mut ik: ResMut<DemoIk>,
    timer: Res<IkTimer>,
    mut bodies: Query<(&mut Transform, &mut Motion, &mut MoveIntent), With<Player>>,
    mut avatars: Query<(
        &Avatar,
        Option<&mut FootMetrics>,
        &Locomotion,
        Option<&PoseWarpingState>,
        Option<&FootPlacerState>,
    )>,
    failure: Option<Res<crate::marks::CharacterError>>,
    mut game: Option<ResMut<GemRun>>,
) {
    let dt = time.delta_secs();
    if let Some(failure) = failure
        && !pilot.finished
    {
        pilot.finished = true;
        eprintln!("error: {}", failure.0);
        if pilot.exit_when_done {
            pilot.exit = Some(AppExit::from_code(2));
        }
        return;
    }
    let Ok((mut transform, mut motion, mut intent)) = bodies.single_mut() else { return };
    // Every pass (and every lap of the tour) is a new gem run.
    let restart_game = |game: &mut Option<ResMut<GemRun>>| {
        if let Some(game) = game.as_mut() {
            game.restart();
        }
    };
    let route = &layout.route;
    let pilot = &mut *pilot;
    match pilot.phase {
        Phase::WaitForCharacter => {
            let standing_only = avatars.iter().next().is_some_and(|(_, _, loco, _, _)| !loco.walks());
            if (standing_only || pilot.stand_at.is_some()) && !pilot.tour && !avatars.is_empty() {
                ik.foot_ik = true;
                ik.foot_lock = true;
                ik.snap = true;
                // `--at`: on what the controller stands on there, like the windowed start.
                let (at, yaw) = match pilot.stand_at {
                    Some((p, yaw)) => (Vec3::new(p.x, layout.start_height(p), p.y), yaw),
                    None => (STAND_AT, std::f32::consts::FRAC_PI_2),
                };
                transform.translation = at;
                motion.yaw = yaw;
                transform.rotation = Quat::from_rotation_y(motion.yaw);
                motion.speed = Spring::new(0.0);
                motion.achieved = Spring::new(0.0);
                motion.kept = 1.0;
                motion.teleported = true;
                pilot.phase = Phase::Stand { time: 0.0 };
            } else if !avatars.is_empty() {
                pilot.phase = Phase::Settle(0.0);
                start_pass(pilot.pass, route, &mut transform, &mut motion, (!pilot.tour).then_some(&mut *ik));
                restart_game(&mut game);
            }
            *intent = MoveIntent::default();
        }
        Phase::Settle(t) => {
            *intent = MoveIntent::default();
            pilot.phase = if t + dt >= SETTLE { Phase::Walk { segment: 0, time: 0.0 } } else { Phase::Settle(t + dt) };
        }
        Phase::Walk { mut segment, time } => {
            let p = Vec2::new(transform.translation.x, transform.translation.z);
            let goal = pursuit(route, &mut segment, p);
            let end = route[route.len() - 1];
            let arrived = segment + 2 >= route.len() && p.distance(end) < 0.3;
            let stuck = pilot.headway.check(route, motion.speeds.0, (time, p), || layout.section_at(p).label());
            if pilot.tour && (arrived || stuck.is_some() || goal.is_none()) {
                start_pass(0, route, &mut transform, &mut motion, None);
                restart_game(&mut game);
                pilot.headway = headway::Headway::default();
                pilot.phase = Phase::Settle(0.0);
                return;
            }
            if arrived || stuck.is_some() || goal.is_none() {
                if !arrived {
                    let why = stuck.unwrap_or_else(|| format!("lost the route at ({:.2}, {:.2})", p.x, p.y));
                    pilot.timed_out.push((pilot.pass, why));
                }
                pilot.headway = headway::Headway::default();
                if let Some(game) = game.as_deref() {
                    pilot.games.push((pilot.pass, game.clone()));
                }
                restart_game(&mut game);
                pilot.pass += 1;
                *intent = MoveIntent::default();
                if pilot.pass < PASSES.len() {
                    start_pass(pilot.pass, route, &mut transform, &mut motion, Some(&mut *ik));
                    // Contacts in progress at the old place must not count as slide.
                    for (_, metrics, _, _, _) in &mut avatars {
                        if let Some(mut m) = metrics {
                            *m = FootMetrics::default();
                        }
                    }
                    pilot.phase = Phase::Settle(0.0);
                } else {
                    pilot.phase = Phase::Done;
                    let bars = print_table(pilot);
                    pilot.finished = true;
                    if pilot.exit_when_done {
                        pilot.exit = Some(bars.exit());
                    }
                }
                return;
            }
            let dir = goal.map_or(Vec2::ZERO, |g| (g - p).normalize_or_zero());
            *intent = MoveIntent { direction: dir, ..default() };
            pilot.phase = Phase::Walk { segment, time: time + dt };
            if pilot.tour {
                return;
            }
            let section = layout.section_at(p);
            let ramp = layout.ramp_at(p);
            pilot.frames += 1;
            pilot.ik_ms.push(timer.last_ms);
            for (_, metrics, _, warp, placer) in &avatars {
                let Some(metrics) = metrics else { continue };
                if let (Some(degrees), Some(warp)) = (ramp, warp) {
                    let s = pilot.slopes.entry((pilot.pass, degrees)).or_default();
                    s.frames += 1;
                    for f in &metrics.feet {
                        (s.penetration, s.float) = (s.penetration.max(f.penetration), s.float.max(f.float));
                    }
                    (s.lean_up, s.lean_down) = (s.lean_up.max(warp.lean), s.lean_down.min(warp.lean));
                    s.slope = (s.slope.0.max(warp.slope), s.slope.1.min(warp.slope));
                }
                for (foot, f) in metrics.feet.iter().enumerate() {
                    let m = pilot.stats.entry((pilot.pass, section, foot)).or_default();
                    m.frames += 1;
                    m.penetration = m.penetration.max(f.penetration);
                    m.float = m.float.max(f.float);
                    m.slide = m.slide.max(f.slide);
                    if f.contact {
                        m.overhang = m.overhang.max(f.overhang);
                    } else {
                        m.swing_penetration = m.swing_penetration.max(f.penetration);
                    }
                    if f.finished_slide.is_some() {
                        m.contacts += 1;
                    }
                    if let Some(status) = placer.and_then(|p| p.feet.get(foot)) {
                        let on_stairs = Section::STAIRS.contains(&section);
                        let ground = status.hit.then_some(status.ground_point.y);
                        pilot.swings.record(pilot.pass, foot, (f.contact, status.offset, ground, on_stairs));
                    }
                }
            }
        }
        Phase::Stand { time } => {
            *intent = MoveIntent::default();
            if time >= STAND_SETTLE {
                for (_, metrics, _, _, _) in &avatars {
                    let Some(metrics) = metrics.filter(|m| m.feet.iter().all(|f| f.measured)) else { continue };
                    pilot.stand_frames += 1;
                    for (foot, f) in metrics.feet.iter().enumerate() {
                        let worst = &mut pilot.stand[foot];
                        *worst = (worst.0.max(f.gap.max(0.0)), worst.1.max(f.penetration));
                    }
                }
            }
            if time >= STAND_SETTLE + STAND_MEASURE {
                let bars = print_stand(pilot);
                pilot.phase = Phase::Done;
                pilot.finished = true;
                if pilot.exit_when_done {
                    pilot.exit = Some(bars.exit());
                }
            } else {
                pilot.phase = Phase::Stand { time: time + dt };
            }
        }
        Phase::Done => *intent = MoveIntent::default(),
    }
}

/// Something besides the autopilot is still being measured (a `--creature` walking the
/// player's path): the app's exit waits for it.
#[derive(Resource, Default)]
pub struct ExitHeld(pub bool);

/// Writes the autopilot's exit status once it is done and nothing holds the exit.
pub fn exit_when_measured(mut pilot: ResMut<Autopilot>, held: Option<Res<ExitHeld>>, mut exit: MessageWriter<AppExit>) {
    if held.is_none_or(|held| !held.0)
        && let Some(status) = pilot.exit.take()
    {
        exit.write(status);
    }
}

fn start_pass(pass: usize, route: &[Vec2], transform: &mut Transform, motion: &mut Motion, ik: Option<&mut DemoIk>) {
    if let Some(ik) = ik {
        let config = PASSES[pass.min(PASSES.len() - 1)];
        ik.foot_ik = config.foot_ik;
        ik.foot_lock = config.foot_lock;
        // The IK-off pass is the animation as it is: no slope warping either.
        ik.slope_warping = config.foot_ik;
        ik.snap = true;
    }
    let (a, b) = (route[0], route[1]);
    let yaw = (b.x - a.x).atan2(b.y - a.y);
    transform.translation = Vec3::new(a.x, 0.05, a.y);
    transform.rotation = Quat::from_rotation_y(yaw);
    motion.yaw = yaw;
    motion.speed = Spring::new(0.0);
    motion.achieved = Spring::new(0.0);
    motion.kept = 1.0;
    motion.vertical = 0.0;
    motion.teleported = true;
}

/// Records [`Gaze`], the pelvis height on the flat section, the pelvis over the 20 cm stairs
/// and lane D's figures while the autopilot walks (after IK, on the final pose).
#[allow(clippy::too_many_arguments)]
pub fn record_final_pose(
    mut pilot: ResMut<Autopilot>,
    layout: Res<CourseLayout>,
    rigged: Query<(&RiggedHumanoid, Option<&FootMetrics>, Option<&LaneMetrics>)>,
    looks: Query<(&LookAtSpread, &LookAtState, Option<&RiggedHumanoid>)>,
    arms: Query<(Entity, &crate::marks::ReachArm)>,
    fades: Query<&IkFade>,
    globals: Query<&GlobalTransform>,
    targets: Option<Res<crate::orb::LookTargets>>,
) {
    if pilot.tour || !matches!(pilot.phase, Phase::Walk { .. }) {
        return;
    }
    for (humanoid, metrics, lane) in &rigged {
        if let (Some(metrics), Some(lane)) = (metrics, lane) {
            let pass = pilot.pass;
            pilot.lanes.record(pass, metrics, lane);
        }
        let Ok(pelvis) = globals.get(humanoid.rig.pelvis).map(|g| g.translation()) else { continue };
        let at = Vec2::new(pelvis.x, pelvis.z);
        // The stance ground: the lowest tread a planted foot stands on (what the legs must
        // reach). Frames with no foot planted are not measured.
        let stance =
            metrics.and_then(|m| m.feet.iter().filter(|f| f.contact && f.measured).map(|f| f.ground).reduce(f32::min));
        if pilot.pass > 0
            && let (Some(ground), Some(rise)) = (stance, layout.stair_rise_at(at))
            && (rise - GOAL_STAIR_RISE).abs() < 1e-3
        {
            let pass = pilot.pass;
            let s = pilot.stair_pelvis.entry(pass).or_default();
            s.frames += 1;
            if pelvis.y - ground < s.lowest {
                (s.lowest, s.at) = (pelvis.y - ground, at);
            }
        }
        if pilot.pass == 1 {
            // Flat ground under both feet: a stride's length of flat all round the pelvis (at
            // the foot of a ramp the pelvis is over flat ground while a foot is still on it).
            let around = [Vec2::ZERO, Vec2::X, -Vec2::X, Vec2::Y, -Vec2::Y].map(|d| at + d * FLAT_MARGIN);
            if around.iter().all(|p| layout.section_at(*p) == Section::Flat) {
                let (sum, count, lowest) = &mut pilot.flat_pelvis;
                *sum += f64::from(pelvis.y);
                *count += 1;
                *lowest = lowest.min(pelvis.y);
            }
        }
    }
    let gaze = &mut pilot.gaze;
    for (look, state, humanoid) in &looks {
        gaze.limit = look.joints.iter().map(|j| j.spread.limit.max(0.0)).sum();
        gaze.max_turn = gaze.max_turn.max(state.turned);
        gaze.look_frames += 1;
        // The downward part of the turn taken by the rig's spine bones (not its neck or head;
        // a rig without a neck spreads over spine, chest and head). Without a rig nothing is
        // measured, and the bar says so.
        if let (Some(rig), true) = (humanoid.map(|h| &h.rig), state.down > 0.0 && state.turned > 0.0) {
            gaze.down_frames += 1;
            let turns = look.joints.iter().zip(state.joint_turns());
            let spine: f32 = turns.filter(|(j, _)| rig.spine.contains(&j.bone)).map(|(_, t)| t).sum();
            gaze.spine_down = gaze.spine_down.max(spine * state.down);
        }
    }
    let Some(orb) = targets.and_then(|t| globals.get(t.focus).ok()).map(|g| g.translation()) else { return };
    for (avatar, arm) in &arms {
        // Reaching: the fade is on (a hand letting go fades out over 0.25 s from wherever the
        // target went, e.g. behind after a teleport; that is counted apart).
        let Ok(fade) = fades.get(arm.hand) else { continue };
        let reaching = fade.active;
        let Ok(root) = globals.get(avatar) else { continue };
        if reaching {
            let forward = root.affine().transform_vector3(arm.forward);
            let angle = crate::toggles::bearing(forward, orb - root.translation());
            gaze.widest_reach = gaze.widest_reach.max(angle);
            gaze.reach_frames += 1;
        } else if fade.factor() > 0.0 {
            gaze.letting_go_frames += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pursuit_walks_the_route_in_order() {
        let route = [Vec2::new(0.0, 0.0), Vec2::new(0.0, 10.0), Vec2::new(5.0, 10.0)];
        let mut seg = 0;
        let g = pursuit(&route, &mut seg, Vec2::new(0.0, 2.0)).unwrap();
        assert!((g - Vec2::new(0.0, 3.2)).length() < 1e-4);
        // Near the corner the goal wraps onto the next segment.
        let g = pursuit(&route, &mut seg, Vec2::new(0.0, 9.5)).unwrap();
        assert!((g - Vec2::new(0.7, 10.0)).length() < 1e-4, "{g:?}");
        let g = pursuit(&route, &mut seg, Vec2::new(4.9, 10.0)).unwrap();
        assert!((g - Vec2::new(5.0, 10.0)).length() < 1e-4);
        assert_eq!(seg, 1);
    }

    #[test]
    fn the_path_the_autopilot_steers_over_the_stairs_has_no_lip_for_the_controller() {
        // The path pure pursuit takes (cutting the corners, e.g. on the turning stair's
        // landings), 1 cm at a time: on every kind of stairs the controller's ground never
        // changes by more than 1 cm per cm (no slope past 45°, no edge to step) and stays
        // within half a rise of the tread under it.
        let layout = CourseLayout::new();
        let route = &layout.route;
        let end = route[route.len() - 1];
        let (mut p, mut segment, mut last) = (route[0], 0, None::<f32>);
        let mut walked = BTreeMap::new();
        for _ in 0..100_000 {
            let Some(goal) = pursuit(route, &mut segment, p) else { break };
            if p.distance(end) < 0.05 {
                break;
            }
            p += (goal - p).normalize_or_zero() * 0.01;
            let section = layout.section_at(p);
            if !Section::STAIRS.contains(&section) {
                last = None;
                continue;
            }
            let body = layout.controller_height(p);
            if let Some(last) = last {
                assert!((body - last).abs() <= 0.01 + 1e-4, "controller {last} -> {body} at {p}");
            }
            if let Some(rise) = layout.stair_rise_at(p) {
                let tread = layout.feet_height(p);
                assert!((body - tread).abs() <= 0.5 * rise + 1e-4, "controller {body}, tread {tread} at {p}");
            }
            *walked.entry(section).or_insert(0) += 1;
            last = Some(body);
        }
        assert!(p.distance(end) < 0.05, "the path ends at {p}, not {end}");
        for section in Section::STAIRS {
            assert!(walked.get(&section).is_some_and(|cm| *cm > 500), "{section:?}: {walked:?}");
        }
    }
}
