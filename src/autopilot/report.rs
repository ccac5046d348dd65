//! The autopilot's printed figures: the table per section, foot and pass, the bars, the
//! slope-warping lines per ramp, and the standing check.

use super::Autopilot;
use super::figures::{BarCount, GOAL_STAIR_RISE, Maxima, PASSES, SlopeFigures};
use super::swings::Step;
use crate::course_pieces::Section;

/// Prints the standing check; returns its two bars' verdicts (each foot within 1 cm of its
/// ground).
pub(super) fn print_stand(pilot: &Autopilot) -> BarCount {
    println!();
    let names = match pilot.stand_at {
        Some((at, yaw)) => {
            println!(
                "Autopilot: the character stands where --at put it ({:.2}, {:.2}, facing {:.0} deg) with foot IK on;",
                at.x,
                at.y,
                yaw.to_degrees()
            );
            println!("each foot's gap to the ground under it (the tread on stairs), in cm.");
            ["left", "right"]
        }
        None => {
            println!("Autopilot: the character has no walk or run clip, so it stands astride the 15 cm step");
            println!("(left foot on the floor, right foot on the step) with foot IK on; figures in cm.");
            ["left (floor)", "right (step)"]
        }
    };
    let measured = pilot.stand_frames > 0;
    let mut bars = BarCount::default();
    for (foot, name) in names.iter().enumerate() {
        let (float, penetration) = pilot.stand[foot];
        let within = float <= 0.01 && penetration <= 0.01;
        let verdict =
            bars.verdict(measured, within, "NOT measured: the feet's sole points or the ground were not found");
        println!(
            "bar: standing, {name} foot: highest gap {:.2} cm, deepest penetration {:.2} cm over {} frames (<= 1 cm: {verdict})",
            float * 100.0,
            penetration * 100.0,
            pilot.stand_frames
        );
    }
    bars
}

/// The sections of the penetration and float bars: the step, every kind of stairs, the ramps.
fn bar_sections() -> Vec<Section> {
    [&[Section::Step][..], &Section::STAIRS, &[Section::Ramps]].concat()
}

/// The maxima of `foot` in `pass` over `sections`.
fn maxima(pilot: &Autopilot, pass: usize, sections: &[Section], foot: usize) -> Maxima {
    let mut out = Maxima::default();
    for s in sections {
        if let Some(m) = pilot.stats.get(&(pass, *s, foot)) {
            out.penetration = out.penetration.max(m.penetration);
            out.float = out.float.max(m.float);
            out.slide = out.slide.max(m.slide);
            out.swing_penetration = out.swing_penetration.max(m.swing_penetration);
            out.overhang = out.overhang.max(m.overhang);
            out.frames += m.frames;
            out.contacts += m.contacts;
        }
    }
    out
}

/// Prints the table: per section and foot, max penetration, max planted float and max toe slide
/// for each pass, then the bar summary over steps, stairs and ramps. Returns the bars' verdicts
/// (one is not measured when a section was not walked or no contact completed).
pub(super) fn print_table(pilot: &Autopilot) -> BarCount {
    let get = |pass: usize, sections: &[Section], foot: usize| maxima(pilot, pass, sections, foot);
    print_sections(pilot);
    let mut bars = BarCount::default();
    let measured = print_contact_bars(pilot, &mut bars);
    print_stairs(pilot, measured, &get, &mut bars);
    pilot.lanes.print(&mut bars);
    print_slopes(pilot, measured, &mut bars);
    print_timing(pilot);
    print_gaze(pilot, &mut bars);
    print_games(pilot);
    bars
}

/// The table itself: per section (and the bar's sections, and all) and foot, each pass's
/// deepest penetration, highest planted float and largest slide.
fn print_sections(pilot: &Autopilot) {
    let labels: Vec<&str> = PASSES.iter().map(|p| p.label()).collect();
    println!();
    let walked_passes = (0..PASSES.len()).filter(|p| pilot.stats.keys().any(|k| k.0 == *p)).count();
    println!(
        "Autopilot: the course walked {walked_passes} times at 1.4 m/s, fixed {:.4} s steps ({:.0} fps); figures in cm.",
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
    rows.push(("step+stairs+ramps".into(), bar_sections()));
    rows.push(("all".into(), Section::ALL.to_vec()));
    for (name, sections) in &rows {
        for (foot, foot_name) in ["L", "R"].iter().enumerate() {
            let ms: Vec<Maxima> = (0..PASSES.len()).map(|p| maxima(pilot, p, sections, foot)).collect();
            if ms.iter().all(|m| m.frames == 0) {
                continue;
            }
            // A pass left out (`--skip-ik-off`) shows as "-".
            let col = |f: &dyn Fn(&Maxima) -> f32| {
                ms.iter()
                    .map(|m| if m.frames == 0 { format!("{:>7}", "-") } else { cm(f(m)) })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            println!(
                "{name:<18} {foot_name:>4} |             {} |       {} |       {}",
                col(&|m| m.penetration),
                col(&|m| m.float),
                col(&|m| m.slide)
            );
        }
    }
}

/// The bars on planted and grounded feet over steps, stairs and ramps (penetration, float) and
/// the whole course (slide), and the rough ground's line. Returns whether they were measured:
/// every section of the bar walked in both IK passes, and contacts completed with locking on.
fn print_contact_bars(pilot: &Autopilot, bars: &mut BarCount) -> bool {
    let get = |pass: usize, sections: &[Section], foot: usize| maxima(pilot, pass, sections, foot);
    let bar = bar_sections();
    let worst =
        |pass: usize, f: &dyn Fn(&Maxima) -> f32| (0..2).map(|foot| f(&get(pass, &bar, foot))).fold(0.0f32, f32::max);
    let (pen_on, float_on) = (
        worst(1, &|m| m.penetration).max(worst(2, &|m| m.penetration)),
        worst(1, &|m| m.float).max(worst(2, &|m| m.float)),
    );
    // On a moving platform a planted foot travels with it: its slide over the platform is lane
    // D's own figure ([`super::lanes`]), not this one.
    let grounded: Vec<Section> = Section::ALL.into_iter().filter(|s| *s != Section::Platforms).collect();
    let slide_lock = (0..2).map(|foot| get(2, &grounded, foot).slide).fold(0.0f32, f32::max);
    let slide_nolock = (0..2).map(|foot| get(1, &grounded, foot).slide).fold(0.0f32, f32::max);
    let rough_off = (0..2).map(|foot| get(0, &[Section::Rough], foot).penetration).fold(0.0f32, f32::max);
    let rough_on = (0..2).map(|foot| get(2, &[Section::Rough], foot).penetration).fold(0.0f32, f32::max);
    println!();
    // A bar is only judged on what was measured: every section of it walked in both IK passes,
    // and contacts completed with locking on.
    let walked = (1..PASSES.len()).all(|pass| bar.iter().all(|s| (0..2).all(|foot| get(pass, &[*s], foot).frames > 0)));
    let contacts = (0..2).map(|foot| get(2, &Section::ALL, foot).contacts).sum::<u32>();
    let mut section_verdict = |ok: bool| {
        bars.verdict(walked && contacts > 0, ok, "NOT measured: a section was not walked or no contact ended")
    };
    println!(
        "bar: steps/stairs/ramps, foot IK on: max penetration {:.2} cm (<= 1 cm: {})",
        pen_on * 100.0,
        section_verdict(pen_on <= 0.01)
    );
    println!(
        "bar: steps/stairs/ramps, foot IK on: max planted float {:.2} cm (<= 1 cm: {})",
        float_on * 100.0,
        section_verdict(float_on <= 0.01)
    );
    println!(
        "bar: toe slide during contacts, whole course (off the moving platforms): {:.2} cm locking off -> {:.2} cm \
         locking on (<= 1 cm: {})",
        slide_nolock * 100.0,
        slide_lock * 100.0,
        section_verdict(slide_lock <= 0.01)
    );
    let rough_off_walked = (0..2).any(|foot| get(0, &[Section::Rough], foot).frames > 0);
    let rough_off = if rough_off_walked { format!("{:.2} cm", rough_off * 100.0) } else { "(not walked)".into() };
    println!(
        "rough ground max penetration: {rough_off} IK off -> {:.2} cm IK+lock (seed lesson: 13.7 -> 2.6)",
        rough_on * 100.0
    );
    walked && contacts > 0
}

/// The IK systems' wall time and the pelvis height on flat ground.
fn print_timing(pilot: &Autopilot) {
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
            "pelvis height on flat ground (flat for 1 m round the pelvis), foot IK on: mean {:.2} cm, lowest {:.2} cm over {count} frames (step {:.4} s)",
            sum / f64::from(count) * 100.0,
            lowest * 100.0,
            pilot.step
        );
    }
}

/// The look-at's and the reaching hand's bars.
fn print_gaze(pilot: &Autopilot, bars: &mut BarCount) {
    let g = pilot.gaze;
    if g.look_frames > 0 {
        println!(
            "bar: look-at over the route: max total turn {:.1} deg (limit {:.1} deg: {}) over {} frames",
            g.max_turn.to_degrees(),
            g.limit.to_degrees(),
            bars.verdict(true, g.max_turn <= g.limit + 1e-3, "NOT measured"),
            g.look_frames
        );
        println!(
            "bar: look-at looking down (the orb below the eyes): the spine's own share (the joints below the neck) \
             at most {:.1} deg of the downward turn over {} frames (<= 10 deg: {})",
            g.spine_down.to_degrees(),
            g.down_frames,
            bars.verdict(
                g.down_frames > 0,
                g.spine_down.to_degrees() <= 10.0,
                "NOT measured: no rigged humanoid looked down"
            )
        );
    }
    println!(
        "bar: hand reach: widest bearing of the target while reaching {:.1} deg over {} frames, {} frames letting go \
         (never behind the character, <= 90 deg: {}; reach starts and holds within {:.0} deg)",
        g.widest_reach.to_degrees(),
        g.reach_frames,
        g.letting_go_frames,
        bars.verdict(true, g.widest_reach.to_degrees() <= 90.0, "NOT measured"),
        crate::toggles::REACH_DECIDE_CONE
    );
}

/// Each pass's gem run and the passes that did not finish.
fn print_games(pilot: &Autopilot) {
    for (pass, run) in &pilot.games {
        let label = PASSES.get(*pass).map_or("?", |p| p.label());
        println!(
            "game ({label} pass): {} of {} gems taken, {} by the hand, in {}",
            run.count(),
            run.taken.len(),
            run.by_hand,
            run.finished.map_or_else(
                || {
                    let missed: Vec<String> =
                        run.taken.iter().enumerate().filter(|(_, t)| !**t).map(|(i, _)| (i + 1).to_string()).collect();
                    format!("(not all taken: missed gem {})", missed.join(", "))
                },
                |t| format!("{t:.1} s")
            )
        );
    }
    for (p, why) in &pilot.timed_out {
        println!("warning: pass {} ({}) did not reach the end of the route: {why}", p + 1, PASSES[*p].label());
    }
}

/// The bars of walking like a person over the course with foot IK on (both IK passes): the
/// swing foot's clearance, planted feet across tread edges, the pelvis on the 20 cm stairs
/// (`bar:` lines: the tests that run other characters require every one met), counted in `bars`.
fn print_stairs(
    pilot: &Autopilot,
    measured: bool,
    get: &dyn Fn(usize, &[Section], usize) -> Maxima,
    bars: &mut BarCount,
) {
    let worst = |sections: &[Section], f: &dyn Fn(&Maxima) -> f32| {
        (1..PASSES.len())
            .flat_map(|pass| (0..2).map(move |foot| (pass, foot)))
            .fold(0.0f32, |w, (pass, foot)| w.max(f(&get(pass, sections, foot))))
    };
    let swing = [bar_sections(), vec![Section::Rough, Section::Kerbs]].concat();
    let clearance = worst(&swing, &|m| m.swing_penetration);
    println!(
        "bar: swing-foot clearance on steps/stairs/ramps/rough/kerbs, foot IK on: deepest sole point inside geometry \
         while the foot swings {:.2} cm (<= 0.5 cm: {})",
        clearance * 100.0,
        bars.verdict(measured, clearance <= 0.005, "NOT measured: a section was not walked or no contact ended")
    );
    let swings: Vec<String> = (1..PASSES.len())
        .filter_map(|pass| {
            let (largest, median, n) = pilot.swings.summary(pass, None)?;
            let way = |step: Step, name: &str| {
                pilot.swings.summary(pass, Some(step)).map_or(format!("{name} none"), |(l, m, n)| {
                    format!("{name} {:.2}/{:.2} cm over {n}", l * 100.0, m * 100.0)
                })
            };
            Some(format!(
                "{:.2} cm (median {:.2} cm over {n} swings; stepping {}, {})",
                largest * 100.0,
                median * 100.0,
                way(Step::Up, "up"),
                way(Step::Down, "down")
            ))
        })
        .collect();
    println!(
        "swinging feet over the stairs, foot IK on: largest change of a swinging foot's height correction in one frame \
         (IK on, IK+lock): {}",
        if swings.is_empty() { "not measured".to_string() } else { swings.join(", ") }
    );
    // Without a lock a planted foot slides with the animation (the toe-slide bar), off its
    // tread as well; the bar is the full stack's: foot IK with locking and footstep prediction.
    let in_pass =
        |pass: usize, sections: &[Section]| (0..2).fold(0.0f32, |w, foot| w.max(get(pass, sections, foot).overhang));
    let (unlocked, locked) = (in_pass(1, &Section::STAIRS), in_pass(2, &Section::STAIRS));
    let kinds: Vec<String> =
        Section::STAIRS.iter().map(|s| format!("{} {:.0} %", s.label(), in_pass(2, &[*s]) * 100.0)).collect();
    println!(
        "bar: planted feet on stairs, foot IK on: largest share of a planted sole over a tread edge {:.0} % locking off \
         -> {:.0} % locking on ({}) (<= 20 % locking on: {})",
        unlocked * 100.0,
        locked * 100.0,
        kinds.join(", "),
        bars.verdict(measured, locked <= 0.2, "NOT measured: a section was not walked or no contact ended")
    );
    let (sum, count, _) = pilot.flat_pelvis;
    let stairs: Vec<_> = (1..PASSES.len()).filter_map(|pass| pilot.stair_pelvis.get(&pass)).collect();
    let pelvis_measured = count > 0 && stairs.len() == PASSES.len() - 1 && stairs.iter().all(|s| s.frames > 0);
    let Some(lowest) = stairs.iter().min_by(|a, b| a.lowest.total_cmp(&b.lowest)).filter(|_| pelvis_measured) else {
        println!(
            "bar: pelvis on the {:.0} cm stairs: NOT measured (the flat section or the stairs were not walked with foot IK on and a foot planted)",
            GOAL_STAIR_RISE * 100.0
        );
        bars.not_measured();
        return;
    };
    let flat = (sum / f64::from(count)) as f32;
    // The geometry needs up to one rise: a swing foot reaching the next tread down (or a
    // stance foot just landed one tread up) has the pelvis a rise lower over the stance tread.
    let drop = flat - lowest.lowest;
    let beyond = drop - GOAL_STAIR_RISE;
    println!(
        "bar: pelvis on the {:.0} cm stairs, foot IK on: lowest {:.2} cm above the stance tread (the lowest a planted foot \
         is on) at z = {:.2} against {:.2} cm on flat ground: largest drop {:.2} cm, {:.2} cm beyond the rise (<= 5 cm: {})",
        GOAL_STAIR_RISE * 100.0,
        lowest.lowest * 100.0,
        lowest.at.y,
        flat * 100.0,
        drop * 100.0,
        beyond * 100.0,
        bars.verdict(measured, beyond <= 0.05, "NOT measured")
    );
}

/// Slope warping per ramp: the lean going up and down, and the feet with foot IK on (both IK
/// passes), counted in `bars`. Nothing for a character without pose warping. A ramp walked in
/// only one IK pass is not measured.
fn print_slopes(pilot: &Autopilot, measured: bool, bars: &mut BarCount) {
    let mut angles: Vec<u32> = pilot.slopes.keys().map(|(_, degrees)| *degrees).collect();
    angles.sort_unstable();
    angles.dedup();
    for degrees in angles {
        let passes: Vec<SlopeFigures> =
            (1..PASSES.len()).filter_map(|pass| pilot.slopes.get(&(pass, degrees)).copied()).collect();
        let Some(first) = passes.first() else {
            bars.not_measured();
            println!("bar: slope warping on the {degrees} deg ramp: NOT measured (not walked with foot IK on)");
            continue;
        };
        let worst = |f: &dyn Fn(&SlopeFigures) -> f32| passes.iter().map(f).fold(0.0f32, f32::max);
        let (penetration, float) = (worst(&|s| s.penetration), worst(&|s| s.float));
        let ramp_measured = measured && passes.len() == PASSES.len() - 1;
        let verdict = bars.verdict(ramp_measured, penetration <= 0.01 && float <= 0.01, "NOT measured");
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

fn cm(v: f32) -> String {
    format!("{:7.2}", v * 100.0)
}
