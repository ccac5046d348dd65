//! ECS benchmark of bevy_ik (see `crates/ik_bench/README.md` for results).
//!
//! `cargo bench -p ik_bench` (cargo passes `--bench`): N = 1, 100, 1 000 and 10 000 characters,
//! 60 warm-up frames, then at least 200 measured frames (60 at N = 10 000) and at least one
//! second of them, for every scenario of [`ik_bench::scenario`]; prints the results table and
//! the figures for the bars.
//! `cargo test` runs the same binary without `--bench`: a smoke run (N = 1 and 100, 2 + 3
//! frames, no timing claims) that checks the runs are sound: no bevy_ik warnings, finite
//! errors, bevy_ik's legs and hands on their targets.
//!
//! Options: words after `--` keep only scenarios whose label contains one of them (e.g.
//! `cargo bench -p ik_bench -- legs`); `IK_BENCH_N=100,1000` picks the character counts.

use std::time::Duration;

use bevy_ik::lod::IkLevel;
use ik_bench::scenario::{Ground, Measurement, Scenario, measure, median_ns};

const SCENARIOS: [Scenario; 21] = [
    Scenario::Floor,
    Scenario::FloorGather,
    Scenario::Full { ground: Ground::Plane, parallel: true },
    Scenario::Full { ground: Ground::Plane, parallel: false },
    Scenario::Full { ground: Ground::Rapier, parallel: true },
    Scenario::FullWarped,
    Scenario::FullRootMotion,
    Scenario::FullWalking { prediction: false },
    Scenario::FullWalking { prediction: true },
    Scenario::FullWalkingStairs,
    Scenario::DefaultStack { lod: None },
    Scenario::DefaultStack { lod: Some(IkLevel::Full) },
    Scenario::DefaultStack { lod: Some(IkLevel::Reduced) },
    Scenario::DefaultStack { lod: Some(IkLevel::Minimal) },
    Scenario::Crowd { budget: false },
    Scenario::Crowd { budget: true },
    Scenario::OurLegs { parallel: true },
    Scenario::OurLegs { parallel: false },
    Scenario::PeerLegs,
    Scenario::Spiders { ground: Ground::Plane },
    Scenario::Spiders { ground: Ground::Rapier },
];

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn ms(ns: f64) -> f64 {
    ns / 1e6
}

fn find(results: &[Measurement], scenario: Scenario, n: usize) -> Option<&Measurement> {
    results.iter().find(|m| m.scenario == scenario && m.characters == n)
}

fn per_character(m: &Measurement) -> f64 {
    median_ns(&m.window) / m.characters as f64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let counts: Vec<usize> = match std::env::var("IK_BENCH_N") {
        Ok(list) => list.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
        Err(_) if bench => vec![1, 100, 1_000, 10_000],
        Err(_) => vec![1, 100],
    };
    let scenarios: Vec<Scenario> = SCENARIOS
        .into_iter()
        .filter(|s| filters.is_empty() || filters.iter().any(|f| s.label().contains(f.as_str())))
        .collect();

    println!("# ik_bench: {}", if bench { "measurement" } else { "smoke run (cargo test; timings meaningless)" });
    println!(
        "machine: {} hardware threads, CPU \"{}\"; build: {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model(),
        if cfg!(debug_assertions) { "debug assertions on (NOT a measurement)" } else { "optimized" },
    );
    println!();
    println!(
        "| scenario | N | IK window ms/frame (median) | ns/character | ns/chain | × floor | whole frame ms | max error m | mean error m | other load |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut results: Vec<Measurement> = Vec::new();
    for &n in &counts {
        let (warmup, frames) = match (bench, n) {
            (false, _) => (2, 3),
            (true, n) if n >= 10_000 => (60, 60),
            (true, _) => (60, 200),
        };
        for &scenario in &scenarios {
            let min_time = if bench { Duration::from_secs(1) } else { Duration::ZERO };
            let m = measure(scenario, n, warmup, frames, min_time);
            let window = median_ns(&m.window);
            let floor = find(&results, Scenario::Floor, n).map(per_character);
            let chains = scenario.chains_per_character();
            println!(
                "| {} | {} | {:.3} | {:.0} | {} | {} | {:.2} | {:.2e} | {:.2e} | {} |",
                scenario.label(),
                n,
                ms(window),
                window / n as f64,
                if chains > 0 { format!("{:.0}", window / (n * chains) as f64) } else { "".into() },
                match (floor, scenario) {
                    (
                        Some(f),
                        Scenario::Full { .. }
                        | Scenario::FullWarped
                        | Scenario::FullRootMotion
                        | Scenario::FullWalking { .. }
                        | Scenario::FullWalkingStairs
                        | Scenario::DefaultStack { .. }
                        | Scenario::Crowd { .. }
                        | Scenario::FloorGather,
                    ) => format!("{:.1}", window / n as f64 / f),
                    _ => String::new(),
                },
                ms(median_ns(&m.update)),
                m.max_error,
                m.mean_error,
                m.foreign_load.map_or("–".into(), |l| format!("{:.0} %", l * 100.0)),
            );
            check(&m, bench);
            results.push(m);
        }
    }
    summary(&results, &counts);
    lod_summary(&results, &counts);
    println!(
        "compute task pool: {} threads",
        bevy::tasks::ComputeTaskPool::try_get().map_or(0, |pool| pool.thread_num())
    );
}

/// Soundness checks (never about speed): they hold in the smoke run and in the measurement;
/// `bench`: a measurement (enough frames for footstep prediction to have learned a step).
fn check(m: &Measurement, bench: bool) {
    assert_eq!(m.warnings, 0, "{}: bevy_ik logged warnings", m.scenario.label());
    assert!(m.max_error.is_finite() && m.mean_error.is_finite(), "{}: non-finite error", m.scenario.label());
    assert!(
        !m.window.is_empty() && m.window.iter().all(|d| *d > Duration::ZERO),
        "{}: window not timed",
        m.scenario.label()
    );
    match m.scenario {
        // Exact two-bone solves on reachable targets: on target to well under a millimetre.
        Scenario::OurLegs { .. } => assert!(m.max_error < 1e-3, "bevy_ik legs miss by {} m", m.max_error),
        // FABRIK legs to within a few millimetres of the gait's targets.
        Scenario::Spiders { .. } => assert!(m.max_error < 0.01, "spider feet miss their targets by {} m", m.max_error),
        Scenario::Full { .. } | Scenario::FullWarped => {
            assert!(m.max_error < 1e-3, "bevy_ik hands miss by {} m", m.max_error)
        }
        // The clip's pelvis travels at rig::WALK_SPEED; the reported travel must be it.
        Scenario::FullRootMotion => {
            assert!(m.max_error < 1e-3, "bevy_ik hands miss by {} m", m.max_error);
            let walk = ik_bench::rig::WALK_SPEED;
            let speed = m.root_speed;
            assert!(
                (speed - walk).abs() < 0.02 * walk,
                "root motion reported {speed} m/s for a clip travelling {walk} m/s"
            );
        }
        // Half the feet swing at any time; a measurement that steered none measured nothing.
        Scenario::FullWalking { prediction: true }
        | Scenario::FullWalkingStairs
        | Scenario::DefaultStack { lod: None | Some(IkLevel::Full) }
            if bench =>
        {
            assert!(m.predicted_landings > 0, "footstep prediction steered no foot on the last frame")
        }
        _ => {}
    }
}

/// Level of detail and frame budget (issue 44): cost per level, the crowd, the feet's float.
fn lod_summary(results: &[Measurement], counts: &[usize]) {
    let rows: Vec<&Measurement> = results.iter().filter(|m| m.lod.is_some()).collect();
    if rows.is_empty() {
        return;
    }
    println!();
    println!(
        "| LOD scenario | N | IK window ms | ns/character | Full / Reduced / Minimal / Off | every 1 / 2 / 4 frames | budget's own window ms | planted feet: float / sink cm (feet) at Full; Reduced; Minimal |"
    );
    println!("|---|---:|---:|---:|---|---|---:|---|");
    for m in &rows {
        let Some(f) = &m.lod else { continue };
        let window = median_ns(&m.window);
        let feet = f.feet.map(|l| match l.planted {
            0 => "–".to_string(),
            n => format!("{:.2} / {:.2} ({n})", l.max_float * 100.0, l.max_sink * 100.0),
        });
        println!(
            "| {} | {} | {:.3} | {:.0} | {} | {} | {:.3} | {} |",
            m.scenario.label(),
            m.characters,
            ms(window),
            window / m.characters as f64,
            f.levels.map(|n| n.to_string()).join(" / "),
            f.at_rate.map(|n| n.to_string()).join(" / "),
            f.budget_window_micros / 1000.0,
            feet.join("; "),
        );
    }
    let stack: Vec<(usize, f64)> = counts
        .iter()
        .filter(|&&n| n >= 100)
        .filter_map(|&n| find(results, Scenario::DefaultStack { lod: None }, n).map(|m| (n, per_character(m))))
        .collect();
    if stack.len() >= 2 {
        let mean = stack.iter().map(|f| f.1).sum::<f64>() / stack.len() as f64;
        let lo = stack.iter().map(|f| f.1).fold(f64::INFINITY, f64::min);
        let hi = stack.iter().map(|f| f.1).fold(0.0, f64::max);
        println!(
            "flatness (default stack walking, rapier, N ≥ 100): {:+.0} % / {:+.0} % around the mean",
            (lo / mean - 1.0) * 100.0,
            (hi / mean - 1.0) * 100.0
        );
    }
}

/// The figures the bars ask for.
fn summary(results: &[Measurement], counts: &[usize]) {
    println!();
    let full = Scenario::Full { ground: Ground::Plane, parallel: true };
    let full_serial = Scenario::Full { ground: Ground::Plane, parallel: false };
    let rapier = Scenario::Full { ground: Ground::Rapier, parallel: true };
    let ours = Scenario::OurLegs { parallel: true };
    let ours_serial = Scenario::OurLegs { parallel: false };
    for &n in counts {
        let get = |s: Scenario| find(results, s, n).map(per_character);
        if let (Some(f), Some(floor)) = (get(full), get(Scenario::Floor)) {
            println!("N = {n}: full character {f:.0} ns = {:.1} × floor ({floor:.0} ns)", f / floor);
        }
        if let (Some(r), Some(f)) = (get(rapier), get(full)) {
            println!("N = {n}: rapier ground {r:.0} ns/character ({:.2} × the plane probe)", r / f);
        }
        if let (Some(w), Some(f)) = (get(Scenario::FullWarped), get(full)) {
            println!("N = {n}: full character with pose warping {w:.0} ns ({:+.0} ns for the warping)", w - f);
        }
        if let (Some(r), Some(f)) = (get(Scenario::FullRootMotion), get(full)) {
            println!("N = {n}: full character with root motion {r:.0} ns ({:+.0} ns for the root motion)", r - f);
        }
        let walking = |prediction| get(Scenario::FullWalking { prediction });
        if let (Some(p), Some(r)) = (walking(true), walking(false)) {
            let steered =
                find(results, Scenario::FullWalking { prediction: true }, n).map_or(0, |m| m.predicted_landings);
            println!(
                "N = {n}: full character with footstep prediction {p:.0} ns ({:+.0} ns for the prediction, walking on rapier ground); {steered} of {} feet had a predicted landing on the last frame",
                p - r,
                2 * n
            );
        }
        if let (Some(s), Some(p)) = (get(Scenario::FullWalkingStairs), walking(true)) {
            println!(
                "N = {n}: full walking character with the stair finder {s:.0} ns ({:+.0} ns for the finder)",
                s - p
            );
        }
        for ground in [Ground::Plane, Ground::Rapier] {
            if let Some(s) = get(Scenario::Spiders { ground }) {
                let label = Scenario::Spiders { ground }.label();
                println!("N = {n}: {label}: {s:.0} ns per spider ({:.0} ns per leg)", s / 8.0);
            }
        }
        if let (Some(one), Some(two)) = (get(full_serial), get(full)) {
            println!("N = {n}: full character 1 thread / all threads = {:.2}", one / two);
        }
        if let (Some(one), Some(two)) = (get(ours_serial), get(ours)) {
            println!("N = {n}: legs 1 thread / all threads = {:.2}", one / two);
        }
        if let (Some(p), Some(o), Some(os)) = (get(Scenario::PeerLegs), get(ours), get(ours_serial)) {
            let errors = |s| find(results, s, n).map_or((f32::NAN, f32::NAN), |m| (m.max_error, m.mean_error));
            let (pe, oe) = (errors(Scenario::PeerLegs), errors(ours));
            println!(
                "N = {n}: legs per chain: peer {:.0} ns, bevy_ik {:.0} ns (speed-up over the peer {:.2}×, 1 thread {:.2}×); max error peer {:.2e} m, bevy_ik {:.2e} m",
                p / 2.0,
                o / 2.0,
                p / o,
                p / os,
                pe.0,
                oe.0
            );
        }
    }
    let flat: Vec<(usize, f64)> = counts
        .iter()
        .filter(|&&n| n >= 100)
        .filter_map(|&n| find(results, full, n).map(|m| (n, per_character(m))))
        .collect();
    if flat.len() >= 2 {
        let lo = flat.iter().map(|f| f.1).fold(f64::INFINITY, f64::min);
        let hi = flat.iter().map(|f| f.1).fold(0.0, f64::max);
        let mean = flat.iter().map(|f| f.1).sum::<f64>() / flat.len() as f64;
        println!(
            "flatness (full, plane, N ≥ 100): {} ns/character; spread {:+.0} % / {:+.0} % around the mean",
            flat.iter().map(|(n, v)| format!("{n}: {v:.0}")).collect::<Vec<_>>().join(", "),
            (lo / mean - 1.0) * 100.0,
            (hi / mean - 1.0) * 100.0
        );
    }
}
