//! The soak: the property tests' properties and generators (`props/`) run for a million random
//! cases each (not part of CI). Run it in release mode:
//!
//! ```sh
//! cargo test -p ik_core --release --test soak -- --ignored --nocapture
//! ```
//!
//! Environment: `IK_SOAK_CASES` (cases per property, default 1 000 000), `IK_SOAK_SEED` (the
//! base seed, default from the clock; printed, so a run can be repeated), `IK_SOAK_ONLY`
//! (comma-separated solver names, e.g. `fabrik,ccd`), `IK_SOAK_THREADS` (properties soaked at
//! once, default the available cores). Prints per property and per solver the cases run, the
//! rejected inputs, the non-finite outputs, the other invariant failures, the panics and the
//! seconds taken, then the first failing inputs; fails when any case failed.

mod common;
mod props;

use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use props::{Failure, Verdict, feet, procedural, solvers};

/// Failing inputs kept per property for the report.
const EXAMPLES: usize = 3;

/// What one property's soak counted.
#[derive(Default)]
struct Tally {
    solver: &'static str,
    property: &'static str,
    seed: u64,
    cases: u64,
    rejected: u64,
    non_finite: u64,
    invariant: u64,
    panics: u64,
    seconds: f64,
    examples: Vec<String>,
}

impl Tally {
    fn failures(&self) -> u64 {
        self.non_finite + self.invariant + self.panics
    }
}

/// Runs `check` on `cases` accepted inputs drawn from `strategy` with a ChaCha RNG seeded by
/// `seed` (rejected inputs are drawn again, up to ten times `cases` in all).
fn soak<S>(
    solver: &'static str,
    property: &'static str,
    seed: u64,
    cases: u64,
    strategy: S,
    check: fn(S::Value) -> Verdict,
) -> Tally
where
    S: Strategy,
    S::Value: Debug + Clone,
{
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config { failure_persistence: None, ..Config::default() }, rng);
    let mut tally = Tally { solver, property, seed, ..Tally::default() };
    let start = Instant::now();
    while tally.cases < cases && tally.rejected < 10 * cases {
        let input = strategy.new_tree(&mut runner).expect("the generators never give up").current();
        let kept = input.clone();
        let verdict = catch_unwind(AssertUnwindSafe(|| check(input)));
        let message = match verdict {
            Ok(Ok(())) => None,
            Ok(Err(Failure::Reject(_))) => {
                tally.rejected += 1;
                continue;
            }
            Ok(Err(Failure::NonFinite(m))) => {
                tally.non_finite += 1;
                Some(format!("non-finite output: {m}"))
            }
            Ok(Err(Failure::Invariant(m))) => {
                tally.invariant += 1;
                Some(format!("invariant broken: {m}"))
            }
            Err(panic) => {
                tally.panics += 1;
                let text = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Some(format!("panic: {text}"))
            }
        };
        tally.cases += 1;
        if let Some(message) = message
            && tally.examples.len() < EXAMPLES
        {
            tally.examples.push(format!("case {}: {message}\n      input: {kept:?}", tally.cases));
        }
    }
    tally.seconds = start.elapsed().as_secs_f64();
    tally
}

type Job = Box<dyn Fn(u64, u64) -> Tally + Send + Sync>;

/// Every soaked property: (solver, property, job(seed, cases)).
fn jobs() -> Vec<(&'static str, &'static str, Job)> {
    macro_rules! job {
        ($solver:literal, $property:literal, $strategy:expr, $check:path) => {
            (
                $solver,
                $property,
                Box::new(|seed, cases| soak($solver, $property, seed, cases, $strategy, $check)) as Job,
            )
        };
    }
    vec![
        job!("two-bone", "general", solvers::two_bone_input(), solvers::two_bone),
        job!("two-bone", "hair from the tip", solvers::hair_input(), solvers::two_bone_hair),
        job!("fabrik", "chains", solvers::chain_input(Just(false)), solvers::chain_solvers),
        job!("ccd", "chains", solvers::chain_input(Just(true)), solvers::chain_solvers),
        job!("look-at", "spread", procedural::look_at_input(), procedural::look_at),
        job!("look-at", "extreme input", procedural::extreme_look_at_input(), procedural::extreme_look_at),
        job!("foot placement", "frames", feet::placement_input(), feet::placement),
        job!("foot lock", "runs", procedural::foot_lock_input(), procedural::foot_lock),
        job!("slide removal", "clips", feet::slide_input(), feet::slide_removal),
        job!("leg", "solve", feet::leg_input(), feet::leg),
        job!("gait", "samples", feet::gait_input(), feet::gait),
        job!("spring", "finite", procedural::spring_input(), procedural::springs),
        job!("spring", "no overshoot", procedural::overshoot_input(), procedural::spring_overshoot),
        job!("spring", "turn towards", procedural::turn_input(), procedural::turn),
        job!("contact", "labels", procedural::contact_input(), procedural::contacts),
    ]
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    let text = std::env::var(name).ok()?;
    let text = text.replace('_', "");
    Some(text.parse().unwrap_or_else(|_| panic!("{name}={text} is not a number")))
}

fn row(solver: &str, property: &str, t: &Tally) -> String {
    format!(
        "{solver:<15} {property:<18} {:>10} {:>9} {:>10} {:>9} {:>7} {:>9.1}",
        t.cases, t.rejected, t.non_finite, t.invariant, t.panics, t.seconds
    )
}

#[test]
#[ignore = "the soak: a million cases per solver; cargo test -p ik_core --release --test soak -- --ignored --nocapture"]
fn soak_every_solver() {
    let cases: u64 = env("IK_SOAK_CASES").unwrap_or(1_000_000);
    let base_seed: u64 =
        env("IK_SOAK_SEED").unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64);
    let only: Option<Vec<String>> =
        std::env::var("IK_SOAK_ONLY").ok().map(|s| s.split(',').map(|w| w.trim().to_lowercase()).collect());
    let threads: usize =
        env("IK_SOAK_THREADS").unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let jobs: Vec<_> = jobs()
        .into_iter()
        .enumerate()
        .filter(|(_, (solver, _, _))| only.as_ref().is_none_or(|o| o.iter().any(|w| w == solver)))
        .collect();
    assert!(!jobs.is_empty(), "IK_SOAK_ONLY={only:?} names no solver");
    println!("soak: {cases} cases per property, seed {base_seed}, {threads} threads");
    // Panics are counted, not printed (each would print a backtrace note).
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Tally)>> = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len()) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some((index, (_, _, job))) = jobs.get(k) else { break };
                    let seed = base_seed.wrapping_add(*index as u64 * 0x9e37_79b9_7f4a_7c15);
                    let tally = job(seed, cases);
                    println!("  done: {}", row(tally.solver, tally.property, &tally));
                    done.lock().unwrap().push((*index, tally));
                }
            });
        }
    });
    std::panic::set_hook(hook);
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|(index, _)| *index);
    let header = format!(
        "{:<15} {:<18} {:>10} {:>9} {:>10} {:>9} {:>7} {:>9}",
        "solver", "property", "cases", "rejected", "non-finite", "invariant", "panics", "seconds"
    );
    println!("\n{header}\n{}", "-".repeat(header.len()));
    let mut failed = 0;
    for (_, t) in &done {
        println!("{}", row(t.solver, t.property, t));
    }
    println!("{}", "-".repeat(header.len()));
    let mut solvers: Vec<&str> = done.iter().map(|(_, t)| t.solver).collect();
    solvers.dedup();
    for solver in solvers {
        let mut total = Tally::default();
        for (_, t) in done.iter().filter(|(_, t)| t.solver == solver) {
            total.cases += t.cases;
            total.rejected += t.rejected;
            total.non_finite += t.non_finite;
            total.invariant += t.invariant;
            total.panics += t.panics;
            total.seconds += t.seconds;
        }
        println!("{}", row(solver, "(all)", &total));
        failed += total.failures();
    }
    println!("wall time {:.1} s", start.elapsed().as_secs_f64());
    for (_, t) in done.iter().filter(|(_, t)| t.failures() > 0) {
        println!("\n{} / {} (seed {}): {} failures, first ones:", t.solver, t.property, t.seed, t.failures());
        for example in &t.examples {
            println!("  {example}");
        }
    }
    let short: Vec<String> = done
        .iter()
        .filter(|(_, t)| t.cases < cases)
        .map(|(_, t)| format!("{} / {}: {} cases", t.solver, t.property, t.cases))
        .collect();
    assert!(short.is_empty(), "too many rejected inputs: {short:?}");
    assert_eq!(failed, 0, "{failed} failing cases (listed above)");
}
