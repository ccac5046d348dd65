//! bevy_ik
