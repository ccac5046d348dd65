//! The properties of the solvers and their generators of random inputs, shared by the proptest
//! tests (`props_solvers.rs`, `props_feet.rs`, `props_procedural.rs`: 256 cases each in CI) and
//! the soak (`soak.rs`: a million cases per solver, run by hand, see the README).
//!
//! Each property is a generator (`…_input() -> impl Strategy`) and a check (`fn(Input) ->
//! Verdict`). A check says *how* it failed: a non-finite output ([`Failure::NonFinite`]) or
//! another broken invariant ([`Failure::Invariant`]), so the soak can count them apart; proptest
//! sees either as a test failure.
#![allow(dead_code, unused_macros)]

use proptest::test_runner::TestCaseError;

/// How a case failed its property.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// An output (or a value derived from the outputs) is NaN or infinite.
    NonFinite(String),
    /// Any other invariant is broken (wrong error, bone length changed, limit exceeded, …).
    Invariant(String),
    /// The input is outside what the property speaks about (proptest's `prop_assume`).
    Reject(&'static str),
}

/// The outcome of one case.
pub type Verdict = Result<(), Failure>;

impl From<Failure> for TestCaseError {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::NonFinite(m) => TestCaseError::fail(format!("non-finite output: {m}")),
            Failure::Invariant(m) => TestCaseError::fail(format!("invariant broken: {m}")),
            Failure::Reject(why) => TestCaseError::reject(why),
        }
    }
}

/// `check_finite!(cond)` / `check_finite!(cond, "fmt", args…)`: fails with [`Failure::NonFinite`].
macro_rules! check_finite {
    ($cond:expr) => {
        let holds: bool = $cond;
        if !holds {
            return Err($crate::props::Failure::NonFinite(stringify!($cond).to_string()));
        }
    };
    ($cond:expr, $($fmt:tt)+) => {
        let holds: bool = $cond;
        if !holds {
            return Err($crate::props::Failure::NonFinite(format!("{}: {}", stringify!($cond), format_args!($($fmt)+))));
        }
    };
}

/// `check!(cond)` / `check!(cond, "fmt", args…)`: fails with [`Failure::Invariant`].
macro_rules! check {
    ($cond:expr) => {
        let holds: bool = $cond;
        if !holds {
            return Err($crate::props::Failure::Invariant(stringify!($cond).to_string()));
        }
    };
    ($cond:expr, $($fmt:tt)+) => {
        let holds: bool = $cond;
        if !holds {
            return Err($crate::props::Failure::Invariant(format!("{}: {}", stringify!($cond), format_args!($($fmt)+))));
        }
    };
}

/// `check_eq!(a, b)`: fails with [`Failure::Invariant`] showing both sides.
macro_rules! check_eq {
    ($a:expr, $b:expr) => {{
        let (a, b) = (&$a, &$b);
        if a != b {
            return Err($crate::props::Failure::Invariant(format!(
                "{} == {}: {:?} != {:?}",
                stringify!($a),
                stringify!($b),
                a,
                b
            )));
        }
    }};
}

/// `assume!(cond)`: the case is rejected (not counted) unless `cond`.
macro_rules! assume {
    ($cond:expr) => {
        let holds: bool = $cond;
        if !holds {
            return Err($crate::props::Failure::Reject(stringify!($cond)));
        }
    };
}

pub mod feet;
pub mod procedural;
pub mod solvers;
