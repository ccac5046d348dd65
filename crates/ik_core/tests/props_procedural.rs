//! Property tests for springs, look-at, contact labels and foot locking (256 cases each): the
//! properties and their generators are in `props/procedural.rs`, shared with the soak
//! (`soak.rs`).

mod common;
mod props;

use proptest::prelude::*;

use props::procedural::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn springs_stay_finite(input in spring_input()) {
        springs(input)?;
    }

    #[test]
    fn spring_from_rest_never_overshoots(input in overshoot_input()) {
        spring_overshoot(input)?;
    }

    #[test]
    fn turn_towards_is_a_finite_unit_turn_within_its_limit(input in turn_input()) {
        turn(input)?;
    }

    #[test]
    fn look_at_never_nan_and_never_past_a_limit(input in look_at_input()) {
        look_at(input)?;
    }

    #[test]
    fn look_at_with_extreme_finite_input_never_nan(input in extreme_look_at_input()) {
        extreme_look_at(input)?;
    }

    #[test]
    fn contact_labels_and_signal_are_sane(input in contact_input()) {
        contacts(input)?;
    }

    #[test]
    fn foot_lock_never_nan(input in foot_lock_input()) {
        foot_lock(input)?;
    }
}
