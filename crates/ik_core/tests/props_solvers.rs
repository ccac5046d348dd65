//! Property tests for two-bone, FABRIK and CCD (256 cases each): the properties and their
//! generators are in `props/solvers.rs`, shared with the soak (`soak.rs`).

mod common;
mod props;

use proptest::prelude::*;

use props::solvers::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn chain_solvers_never_output_nan_and_refuse_non_finite_input(input in chain_input(any::<bool>())) {
        chain_solvers(input)?;
    }

    #[test]
    fn two_bone_never_outputs_nan_and_refuses_non_finite_input(input in two_bone_input()) {
        two_bone(input)?;
    }

    #[test]
    fn two_bone_reaches_a_target_a_hair_from_the_current_tip_within_1e5_of_the_limb(input in hair_input()) {
        two_bone_hair(input)?;
    }
}
