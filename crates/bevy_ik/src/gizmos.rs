//! Debug drawing (feature `gizmos`): chains and their targets and poles, the placed legs' bones,
//! foot rays, hit normals and contact state per foot, procedural gaits' foot targets, in their own gizmo config group
//! [`IkGizmos`]: switch parts on and off, or change line width and depth bias for all of them,
//! through Bevy's `GizmoConfigStore`. By default the lines are 3 px wide and drawn over the
//! meshes (depth bias −1), so a chain inside a character's arm is still seen.
//!
//! ```no_run
//! # use bevy::prelude::*;
//! # use bevy_ik::prelude::*;
//! fn only_feet(mut store: ResMut<GizmoConfigStore>) {
//!     let (config, ik) = store.config_mut::<IkGizmos>();
//!     config.line.width = 3.0;
//!     ik.chains = false;
//! }
//! # let _ = only_feet;
//! ```

use bevy::color::palettes::css;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

use crate::chain::{IkChain, IkChainState, Pole};
use crate::feet::FootPlacerState;
use crate::procedural_gait::ProceduralGaitState;
use crate::target::IkTarget;

/// bevy_ik's gizmo config group: which debug drawings are on (its `GizmoConfig` switches all
/// of them and styles their lines). Live-editable.
#[derive(GizmoConfigGroup, Reflect, Clone, Debug, PartialEq)]
pub struct IkGizmos {
    /// Chains: solved joints, target, pole.
    pub chains: bool,
    /// Feet: rays, hits, normals, contact/lock state; procedural gaits' foot targets.
    pub feet: bool,
    /// Legs: each placed leg's hip → knee → ankle → toe bones.
    pub legs: bool,
}

impl Default for IkGizmos {
    fn default() -> Self {
        IkGizmos { chains: true, feet: true, legs: true }
    }
}

/// Line width of bevy_ik's gizmos by default, px.
pub const LINE_WIDTH: f32 = 3.0;

/// Adds the gizmo systems (added by [`crate::IkPlugin`] when the feature is on). They run only
/// when Bevy's gizmo plugin is present.
pub struct IkGizmosPlugin;

impl Plugin for IkGizmosPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<IkGizmos>();
    }

    /// The group is registered once every plugin is in, and only when Bevy's gizmo plugin is
    /// one of them (headless apps without it simply draw nothing).
    fn finish(&self, app: &mut App) {
        if !app.world().contains_resource::<bevy::gizmos::config::GizmoConfigStore>() {
            return;
        }
        app.init_gizmo_group::<IkGizmos>()
            .add_systems(PostUpdate, (draw_chains, draw_feet, draw_gaits).after(TransformSystems::Propagate));
        let mut store = app.world_mut().resource_mut::<bevy::gizmos::config::GizmoConfigStore>();
        let (config, _) = store.config_mut::<IkGizmos>();
        config.line.width = LINE_WIDTH;
        config.depth_bias = -1.0;
    }
}

fn target_position(target: &IkTarget, globals: &Query<&GlobalTransform>) -> Option<Vec3> {
    match *target {
        IkTarget::Position(p) => Some(p),
        IkTarget::Entity(e) => globals.get(e).ok().map(GlobalTransform::translation),
    }
}

/// Draws each chain's solved joints (green when the target was reached, orange otherwise), its
/// target and its pole.
pub fn draw_chains(
    chains: Query<(&IkChain, &IkChainState, Option<&Pole>)>,
    globals: Query<&GlobalTransform>,
    mut gizmos: Gizmos<IkGizmos>,
) {
    if !gizmos.config_ext.chains {
        return;
    }
    for (chain, state, pole) in &chains {
        let color = if state.reached { css::LIME } else { css::ORANGE };
        let mut previous = None;
        for joint in state.joint_positions() {
            if let Some(previous) = previous {
                gizmos.line(previous, joint, color);
            }
            gizmos.sphere(Isometry3d::from_translation(joint), 0.015, color);
            previous = Some(joint);
        }
        if let Some(target) = target_position(&chain.target, &globals) {
            gizmos.cross(Isometry3d::from_translation(target), 0.05, css::RED);
        }
        let mid = state.joint_positions().nth(1);
        if let (Some(pole), Some(mid)) = (pole.and_then(|p| target_position(&p.target, &globals)), mid) {
            gizmos.sphere(Isometry3d::from_translation(pole), 0.03, css::DEEP_SKY_BLUE);
            gizmos.line(mid, pole, css::DEEP_SKY_BLUE.with_alpha(0.4));
        }
    }
}

/// Draws each placed leg's bones, each foot's ray and hit normal, and a marker at the toe: red
/// when locked, yellow in contact, grey in swing.
pub fn draw_feet(placers: Query<&FootPlacerState>, mut gizmos: Gizmos<IkGizmos>) {
    if gizmos.config_ext.legs {
        for state in &placers {
            for joints in state.leg_joints() {
                let mut previous: Option<Vec3> = None;
                for joint in joints.into_iter().flatten() {
                    if let Some(previous) = previous {
                        gizmos.line(previous, joint, css::MEDIUM_PURPLE);
                    }
                    gizmos.sphere(Isometry3d::from_translation(joint), 0.02, css::MEDIUM_PURPLE);
                    previous = Some(joint);
                }
            }
        }
    }
    if !gizmos.config_ext.feet {
        return;
    }
    for state in &placers {
        for foot in &state.feet {
            if foot.hit {
                gizmos.line(foot.ray_start, foot.ground_point, css::LIGHT_GRAY.with_alpha(0.5));
                gizmos.arrow(foot.ground_point, foot.ground_point + foot.ground_normal * 0.2, css::AQUA);
            }
            let color = if foot.locked {
                css::RED
            } else if foot.contact {
                css::YELLOW
            } else {
                css::GRAY
            };
            gizmos.sphere(Isometry3d::from_translation(foot.toe_world), 0.025, color);
        }
    }
}

/// Draws each [`ProceduralGaitState`]'s foot targets — yellow while planted (with the ground's
/// normal there), grey in swing — and a cross at the body's suggested origin.
pub fn draw_gaits(gaits: Query<&ProceduralGaitState>, mut gizmos: Gizmos<IkGizmos>) {
    if !gizmos.config_ext.feet {
        return;
    }
    for state in &gaits {
        for foot in state.feet() {
            let color = if foot.planted { css::YELLOW } else { css::GRAY };
            gizmos.sphere(Isometry3d::from_translation(foot.target), 0.025, color);
            if foot.planted {
                gizmos.arrow(foot.target, foot.target + foot.normal * 0.1, css::AQUA);
            }
        }
        if let Some(pose) = state.body_pose() {
            gizmos.cross(Isometry3d::new(pose.position, pose.rotation), 0.08, css::ORANGE);
        }
    }
}
