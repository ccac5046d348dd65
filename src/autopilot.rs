//! `--autopilot`: walk the fixed route over the whole course three times — foot IK off; foot IK
//! on without locking; foot IK on with locking — and print the metrics table.
//!
//! Method: each pass teleports the character to the route's start, lets it stand for 1 s (IK
//! settles), then steers it along the route polyline (pure pursuit, 1.2 m look-ahead) at walking
//! speed. Every frame the per-foot figures of [`crate::metrics`] are folded into maxima per pass,
//! section (from the character's position) and foot. Inputs: the course layout, `FootMetrics`,
//! the IK timer. Outputs: `MoveIntent`, `DemoIk` per pass, the printed table; `AppExit` at the
//! end. Invariants: the route is walked in order (progress never goes back); a pass that takes
//! longer than 4 minutes of game time is stopped and reported as such.

use std::collections::BTreeMap;

use bevy::app::AppExit;
use bevy::prelude::*;
use bevy_ik::prelude::{IkFade, LookAtSpread, LookAtState, PoseWarpingState, RiggedHumanoid};
use ik_core::spring::Spring;

use crate::character::Avatar;
use crate::course::{CourseLayout, Section};
use crate::locomotion::Locomotion;
use crate::metrics::{FootMetrics, IkTimer};
use crate::player::{Motion, MoveIntent, Player};
use crate::toggles::DemoIk;

/// Seconds standing still before each pass starts walking.
const SETTLE: f32 = 1.0;
/// Look-ahead along the route, m.
const LOOKAHEAD: f32 = 1.2;
/// Game time after which a pass is abandoned, s.
const PASS_LIMIT: f32 = 240.0;

/// One pass's IK configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassConfig {
    /// Foot placement on.
    pub foot_ik: bool,
    /// Foot locking on.
    pub foot_lock: bool,
}

impl PassConfig {
    /// Column label.
    pub fn label(self) -> &'static str {
        match (self.foot_ik, self.foot_lock) {
            (false, _) => "IK off",
            (true, false) => "IK on",
            (true, true) => "IK+lock",
        }
    }
}

/// The three passes, in order.
pub const PASSES: [PassConfig; 3] = [
    PassConfig { foot_ik: false, foot_lock: false },
    PassConfig { foot_ik: true, foot_lock: false },
    PassConfig { foot_ik: true, foot_lock: true },
];

/// Maxima for one (pass, section, foot).
#[derive(Clone, Copy, Debug, Default)]
pub struct Maxima {
    /// Deepest penetration, m.
    pub penetration: f32,
    /// Highest planted float, m.
    pub float: f32,
    /// Largest toe slide in one contact, m.
    pub slide: f32,
    /// Frames measured.
    pub frames: u32,
    /// Contacts ended here.
    pub contacts: u32,
}

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
    pass: usize,
    phase: Phase,
    /// Maxima per (pass, section, foot).
    pub stats: BTreeMap<(usize, Section, usize), Maxima>,
    /// IK time per frame while walking, ms (all passes).
    pub ik_ms: Vec<f32>,
    /// Game-time frame lengths while walking, s.
    pub frames: u32,
    /// Passes that hit the time limit.
    pub timed_out: Vec<usize>,
    /// Set when the table has been printed.
    pub finished: bool,
    /// Exit the app when done (false when a screenshot ends the run instead).
    pub exit_when_done: bool,
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
}

/// Slope warping on one ramp in one pass: the worst feet and the lean going up and down.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlopeFigures {
    /// Deepest penetration, m.
    pub penetration: f32,
    /// Highest planted float, m.
    pub float: f32,
    /// Most forward lean (going up), radians.
    pub lean_up: f32,
    /// Most backward lean (going down), radians (≤ 0).
    pub lean_down: f32,
    /// Steepest slope seen along the movement, up and down, radians.
    pub slope: (f32, f32),
    /// Frames measured.
    pub frames: u32,
}

/// The natural-default bars: how far the look-at turned against its limit, and where the
/// hand reached, over the autopilot route.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gaze {
    /// Largest total turn of the look-at (the last joint's), radians.
    pub max_turn: f32,
    /// The look-at's configured total limit (sum of its joints' limits), radians.
    pub limit: f32,
    /// Frames the look-at was solved on.
    pub look_frames: u32,
    /// Widest bearing (about the vertical, from the character's root) of the orb from the
    /// character's forward while the hand reached for it (its fade on), radians.
    pub widest_reach: f32,
    /// Frames the hand reached.
    pub reach_frames: u32,
    /// Frames the hand was fading out (letting go of a target that left the cone).
    pub letting_go_frames: u32,
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
            finished: false,
            exit_when_done,
            tour: false,
            stand: [(0.0, 0.0); 2],
            stand_frames: 0,
            gaze: Gaze::default(),
            step: 1.0 / 60.0,
            flat_pelvis: (0.0, 0, f32::INFINITY),
            slopes: BTreeMap::new(),
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
    mut avatars: Query<(&Avatar, Option<&mut FootMetrics>, &Locomotion, Option<&PoseWarpingState>)>,
    mut exit: MessageWriter<AppExit>,
    failure: Option<Res<crate::character::CharacterError>>,
) {
    let dt = time.delta_secs();
    if let Some(failure) = failure
        && !pilot.finished
    {
        pilot.finished = true;
        eprintln!("error: {}", failure.0);
        if pilot.exit_when_done {
            exit.write(AppExit::from_code(2));
        }
        return;
    }
    let Ok((mut transform, mut motion, mut intent)) = bodies.single_mut() else { return };
    let route = &layout.route;
    let pilot = &mut *pilot;
    match pilot.phase {
        Phase::WaitForCharacter => {
            let standing_only = avatars.iter().next().is_some_and(|(_, _, loco, _)| !loco.walks());
            if standing_only && !pilot.tour {
                ik.foot_ik = true;
                ik.foot_lock = true;
                ik.snap = true;
                transform.translation = STAND_AT;
                motion.yaw = std::f32::consts::FRAC_PI_2;
                transform.rotation = Quat::from_rotation_y(motion.yaw);
                motion.speed = Spring::new(0.0);
                motion.achieved = Spring::new(0.0);
                motion.gain = 1.0;
                motion.teleported = true;
                pilot.phase = Phase::Stand { time: 0.0 };
            } else if !avatars.is_empty() {
                pilot.phase = Phase::Settle(0.0);
                start_pass(pilot.pass, route, &mut transform, &mut motion, (!pilot.tour).then_some(&mut *ik));
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
            if pilot.tour && (arrived || time > PASS_LIMIT || goal.is_none()) {
                start_pass(0, route, &mut transform, &mut motion, None);
                pilot.phase = Phase::Settle(0.0);
                return;
            }
            if arrived || time > PASS_LIMIT || goal.is_none() {
                if !arrived {
                    pilot.timed_out.push(pilot.pass);
                }
                pilot.pass += 1;
                *intent = MoveIntent::default();
                if pilot.pass < PASSES.len() {
                    start_pass(pilot.pass, route, &mut transform, &mut motion, Some(&mut *ik));
                    // Contacts in progress at the old place must not count as slide.
                    for (_, metrics, _, _) in &mut avatars {
                        if let Some(mut m) = metrics {
                            *m = FootMetrics::default();
                        }
                    }
                    pilot.phase = Phase::Settle(0.0);
                } else {
                    pilot.phase = Phase::Done;
                    let measured = print_table(pilot);
                    pilot.finished = true;
                    if pilot.exit_when_done {
                        exit.write(if measured { AppExit::Success } else { AppExit::from_code(1) });
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
            for (_, metrics, _, warp) in &avatars {
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
                    if f.finished_slide.is_some() {
                        m.contacts += 1;
                    }
                }
            }
        }
        Phase::Stand { time } => {
            *intent = MoveIntent::default();
            if time >= STAND_SETTLE {
                for (_, metrics, _, _) in &avatars {
                    let Some(metrics) = metrics.filter(|m| m.feet.iter().all(|f| f.measured)) else { continue };
                    pilot.stand_frames += 1;
                    for (foot, f) in metrics.feet.iter().enumerate() {
                        let worst = &mut pilot.stand[foot];
                        *worst = (worst.0.max(f.gap.max(0.0)), worst.1.max(f.penetration));
                    }
                }
            }
            if time >= STAND_SETTLE + STAND_MEASURE {
                let ok = print_stand(pilot);
                pilot.phase = Phase::Done;
                pilot.finished = true;
                if pilot.exit_when_done {
                    exit.write(if ok { AppExit::Success } else { AppExit::from_code(1) });
                }
            } else {
                pilot.phase = Phase::Stand { time: time + dt };
            }
        }
        Phase::Done => *intent = MoveIntent::default(),
    }
}

/// Prints the standing check; returns whether both feet are within 1 cm of their ground.
fn print_stand(pilot: &Autopilot) -> bool {
    println!();
    println!("Autopilot: the character has no walk or run clip, so it stands astride the 15 cm step");
    println!("(left foot on the floor, right foot on the step) with foot IK on; figures in cm.");
    let measured = pilot.stand_frames > 0;
    let mut ok = measured;
    for (foot, name) in ["left (floor)", "right (step)"].iter().enumerate() {
        let (float, penetration) = pilot.stand[foot];
        let within = float <= 0.01 && penetration <= 0.01;
        ok &= within;
        let verdict = match (measured, within) {
            (false, _) => "NOT measured: the feet's sole points or the ground were not found",
            (true, true) => "met",
            (true, false) => "NOT met",
        };
        println!(
            "bar: standing, {name} foot: highest gap {:.2} cm, deepest penetration {:.2} cm over {} frames (<= 1 cm: {verdict})",
            float * 100.0,
            penetration * 100.0,
            pilot.stand_frames
        );
    }
    ok
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
    motion.gain = 1.0;
    motion.vertical = 0.0;
    motion.teleported = true;
}

fn cm(v: f32) -> String {
    format!("{:7.2}", v * 100.0)
}

/// Records [`Gaze`] and the pelvis height on the flat section while the autopilot walks (after
/// IK, on the final pose).
#[allow(clippy::too_many_arguments)]
pub fn record_gaze(
    mut pilot: ResMut<Autopilot>,
    layout: Res<CourseLayout>,
    rigged: Query<&RiggedHumanoid>,
    looks: Query<(&LookAtSpread, &LookAtState)>,
    arms: Query<(Entity, &crate::rigging::ReachArm)>,
    fades: Query<&IkFade>,
    globals: Query<&GlobalTransform>,
    targets: Option<Res<crate::orb::LookTargets>>,
) {
    if pilot.tour || !matches!(pilot.phase, Phase::Walk { .. }) {
        return;
    }
    if pilot.pass == 1 {
        for humanoid in &rigged {
            let Ok(pelvis) = globals.get(humanoid.rig.pelvis).map(|g| g.translation()) else { continue };
            if layout.section_at(Vec2::new(pelvis.x, pelvis.z)) == Section::Flat {
                let (sum, count, lowest) = &mut pilot.flat_pelvis;
                *sum += f64::from(pelvis.y);
                *count += 1;
                *lowest = lowest.min(pelvis.y);
            }
        }
    }
    let gaze = &mut pilot.gaze;
    for (look, state) in &looks {
        gaze.limit = look.joints.iter().map(|j| j.spread.limit.max(0.0)).sum();
        gaze.max_turn = gaze.max_turn.max(state.turned);
        gaze.look_frames += 1;
    }
    let Some(orb) = targets.and_then(|t| globals.get(t.orb).ok()).map(|g| g.translation()) else { return };
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

/// Prints the table: per section and foot, max penetration, max planted float and max toe slide
/// for each pass, then the bar summary over steps, stairs and ramps. Returns whether the bars
/// could be measured (every section walked, contacts completed).
pub fn print_table(pilot: &Autopilot) -> bool {
    let get = |pass: usize, sections: &[Section], foot: usize| -> Maxima {
        let mut out = Maxima::default();
        for s in sections {
            if let Some(m) = pilot.stats.get(&(pass, *s, foot)) {
                out.penetration = out.penetration.max(m.penetration);
                out.float = out.float.max(m.float);
                out.slide = out.slide.max(m.slide);
                out.frames += m.frames;
                out.contacts += m.contacts;
            }
        }
        out
    };
    let labels: Vec<&str> = PASSES.iter().map(|p| p.label()).collect();
    println!();
    println!(
        "Autopilot: the course walked 3 times at 1.4 m/s, fixed {:.4} s steps ({:.0} fps); figures in cm.",
        pilot.step,
        1.0 / pilot.step
    );
    println!("penetration: deepest sole point (every 1 cm, heel to toe tip) below the ground, any time;");
    println!("float: lowest sole point above the ground while the clip labels the foot planted;");
    println!("slide: largest horizontal drift of the ball point during one contact.");
    println!();
    let head = labels.iter().map(|l| format!("{l:>7}")).collect::<Vec<_>>().join(" ");
    println!("{:<18} {:>4} | penetration {head} | float {head} | slide {head}", "section", "foot", head = head);
    let mut rows: Vec<(String, Vec<Section>)> =
        Section::ALL.iter().map(|s| (s.label().to_string(), vec![*s])).collect();
    rows.push(("step+stairs+ramps".into(), vec![Section::Step, Section::Stairs, Section::Ramps]));
    rows.push(("all".into(), Section::ALL.to_vec()));
    for (name, sections) in &rows {
        for (foot, foot_name) in ["L", "R"].iter().enumerate() {
            let ms: Vec<Maxima> = (0..PASSES.len()).map(|p| get(p, sections, foot)).collect();
            if ms.iter().all(|m| m.frames == 0) {
                continue;
            }
            let col = |f: &dyn Fn(&Maxima) -> f32| ms.iter().map(|m| cm(f(m))).collect::<Vec<_>>().join(" ");
            println!(
                "{name:<18} {foot_name:>4} |             {} |       {} |       {}",
                col(&|m| m.penetration),
                col(&|m| m.float),
                col(&|m| m.slide)
            );
        }
    }
    let bar = [Section::Step, Section::Stairs, Section::Ramps];
    let worst =
        |pass: usize, f: &dyn Fn(&Maxima) -> f32| (0..2).map(|foot| f(&get(pass, &bar, foot))).fold(0.0f32, f32::max);
    let (pen_on, float_on) = (
        worst(1, &|m| m.penetration).max(worst(2, &|m| m.penetration)),
        worst(1, &|m| m.float).max(worst(2, &|m| m.float)),
    );
    let slide_lock = (0..2).map(|foot| get(2, &Section::ALL, foot).slide).fold(0.0f32, f32::max);
    let slide_nolock = (0..2).map(|foot| get(1, &Section::ALL, foot).slide).fold(0.0f32, f32::max);
    let rough_off = (0..2).map(|foot| get(0, &[Section::Rough], foot).penetration).fold(0.0f32, f32::max);
    let rough_on = (0..2).map(|foot| get(2, &[Section::Rough], foot).penetration).fold(0.0f32, f32::max);
    println!();
    // A bar is only judged on what was measured: every section of it walked in both IK passes,
    // and contacts completed with locking on.
    let walked = (1..PASSES.len()).all(|pass| bar.iter().all(|s| (0..2).all(|foot| get(pass, &[*s], foot).frames > 0)));
    let contacts = (0..2).map(|foot| get(2, &Section::ALL, foot).contacts).sum::<u32>();
    let verdict = |ok: bool| match (walked && contacts > 0, ok) {
        (false, _) => "NOT measured: a section was not walked or no contact ended",
        (true, true) => "met",
        (true, false) => "NOT met",
    };
    println!(
        "bar: steps/stairs/ramps, foot IK on: max penetration {:.2} cm (<= 1 cm: {})",
        pen_on * 100.0,
        verdict(pen_on <= 0.01)
    );
    println!(
        "bar: steps/stairs/ramps, foot IK on: max planted float {:.2} cm (<= 1 cm: {})",
        float_on * 100.0,
        verdict(float_on <= 0.01)
    );
    println!(
        "bar: toe slide during contacts, whole course: {:.2} cm locking off -> {:.2} cm locking on (<= 1 cm: {})",
        slide_nolock * 100.0,
        slide_lock * 100.0,
        verdict(slide_lock <= 0.01)
    );
    println!(
        "rough ground max penetration: {:.2} cm IK off -> {:.2} cm IK+lock (seed lesson: 13.7 -> 2.6)",
        rough_off * 100.0,
        rough_on * 100.0
    );
    print_slopes(pilot, walked && contacts > 0);
    let mut ik = pilot.ik_ms.clone();
    ik.sort_by(f32::total_cmp);
    if !ik.is_empty() {
        let mean = ik.iter().sum::<f32>() / ik.len() as f32;
        println!(
            "IK systems wall time per frame: mean {mean:.3} ms, p95 {:.3} ms, max {:.3} ms ({} frames)",
            ik[ik.len() * 95 / 100],
            ik[ik.len() - 1],
            ik.len()
        );
    }
    let (sum, count, lowest) = pilot.flat_pelvis;
    if count > 0 {
        println!(
            "pelvis height on flat ground, foot IK on: mean {:.2} cm, lowest {:.2} cm over {count} frames (step {:.4} s)",
            sum / f64::from(count) * 100.0,
            lowest * 100.0,
            pilot.step
        );
    }
    let g = pilot.gaze;
    if g.look_frames > 0 {
        println!(
            "bar: look-at over the route: max total turn {:.1} deg (limit {:.1} deg: {}) over {} frames",
            g.max_turn.to_degrees(),
            g.limit.to_degrees(),
            if g.max_turn <= g.limit + 1e-3 { "met" } else { "NOT met" },
            g.look_frames
        );
    }
    println!(
        "bar: hand reach: widest bearing of the target while reaching {:.1} deg over {} frames, {} frames letting go \
         (never behind the character, <= 90 deg: {}; reach starts and holds within {:.0} deg)",
        g.widest_reach.to_degrees(),
        g.reach_frames,
        g.letting_go_frames,
        if g.widest_reach.to_degrees() <= 90.0 { "met" } else { "NOT met" },
        crate::toggles::REACH_DECIDE_CONE
    );
    for p in &pilot.timed_out {
        println!("warning: pass {} ({}) did not reach the end of the route", p + 1, PASSES[*p].label());
    }
    walked && contacts > 0
}

/// Slope warping per ramp: the lean going up and down, and the feet with foot IK on (both IK
/// passes). Nothing for a character without pose warping.
fn print_slopes(pilot: &Autopilot, measured: bool) {
    let mut angles: Vec<u32> = pilot.slopes.keys().map(|(_, degrees)| *degrees).collect();
    angles.sort_unstable();
    angles.dedup();
    for degrees in angles {
        let passes: Vec<SlopeFigures> =
            (1..PASSES.len()).filter_map(|pass| pilot.slopes.get(&(pass, degrees)).copied()).collect();
        let Some(first) = passes.first() else { continue };
        let worst = |f: &dyn Fn(&SlopeFigures) -> f32| passes.iter().map(f).fold(0.0f32, f32::max);
        let (penetration, float) = (worst(&|s| s.penetration), worst(&|s| s.float));
        let verdict = match (measured && passes.len() == PASSES.len() - 1, penetration <= 0.01 && float <= 0.01) {
            (false, _) => "NOT measured",
            (true, true) => "met",
            (true, false) => "NOT met",
        };
        println!(
            "bar: slope warping on the {degrees} deg ramp, foot IK on: lean {:+.1} deg going up, {:+.1} deg going down \
             (slope seen {:+.1} / {:+.1} deg); deepest penetration {:.2} cm, highest planted float {:.2} cm (<= 1 cm: \
             {verdict})",
            first.lean_up.to_degrees(),
            first.lean_down.to_degrees(),
            first.slope.0.to_degrees(),
            first.slope.1.to_degrees(),
            penetration * 100.0,
            float * 100.0,
        );
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
}
