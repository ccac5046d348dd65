//! ik_tool
