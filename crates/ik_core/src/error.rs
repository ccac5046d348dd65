//! Error values shared by every solver and procedure.

use core::fmt;

/// Why a solver refused its input. Solvers return this instead of panicking, and leave the
/// input pose untouched when they do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IkError {
    /// An input position, rotation, length or parameter was NaN or infinite.
    NonFiniteInput,
    /// A bone of the chain has (near) zero length, so it has no direction to turn.
    ZeroLengthBone {
        /// Index of the bone in the chain (0 = the chain's root bone).
        bone: usize,
    },
    /// The chain has fewer joints than the solver needs.
    ChainTooShort {
        /// Joints the solver needs at least.
        needed: usize,
        /// Joints it was given.
        got: usize,
    },
    /// A bone index is outside the skeleton, or a parent does not come before its child.
    BrokenHierarchy {
        /// The offending bone index.
        bone: usize,
    },
    /// Two buffers that must have the same length do not.
    LengthMismatch {
        /// Expected length.
        expected: usize,
        /// Length found.
        got: usize,
    },
}

impl fmt::Display for IkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IkError::NonFiniteInput => write!(f, "an input was NaN or infinite"),
            IkError::ZeroLengthBone { bone } => write!(f, "bone {bone} of the chain has zero length"),
            IkError::ChainTooShort { needed, got } => {
                write!(f, "the chain has {got} joints but the solver needs at least {needed}")
            }
            IkError::BrokenHierarchy { bone } => {
                write!(f, "bone {bone} is outside the skeleton or comes before its parent")
            }
            IkError::LengthMismatch { expected, got } => {
                write!(f, "a buffer has {got} entries where {expected} were expected")
            }
        }
    }
}

impl std::error::Error for IkError {}
