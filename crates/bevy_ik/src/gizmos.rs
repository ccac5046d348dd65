//! Debug drawing (feature `gizmos`): chains and their targets and poles, foot rays, hit normals
//! and contact state per foot. Toggle parts with the [`IkGizmos`] resource.

use bevy::color::palettes::css;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

use crate::chain::{IkChain, IkChainState, Pole};
use crate::feet::FootPlacerState;
use crate::target::IkTarget;

/// Which debug drawings are on. A resource; live-editable.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource)]
pub struct IkGizmos {
    /// Chains: solved joints, target, pole.
    pub chains: bool,
    /// Feet: rays, hits, normals, contact/lock state.
    pub feet: bool,
}

impl Default for IkGizmos {
    fn default() -> Self {
        IkGizmos { chains: true, feet: true }
    }
}

/// Adds the gizmo systems (added by [`crate::IkPlugin`] when the feature is on). They run only
/// when Bevy's gizmo plugin is present.
pub struct IkGizmosPlugin;

impl Plugin for IkGizmosPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<IkGizmos>().register_type::<IkGizmos>().add_systems(
            PostUpdate,
            (draw_chains, draw_feet)
                .after(TransformSystems::Propagate)
                // Headless apps without Bevy's gizmo plugin simply draw nothing.
                .run_if(resource_exists::<bevy::gizmos::config::GizmoConfigStore>),
        );
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
    show: Res<IkGizmos>,
    chains: Query<(&IkChain, &IkChainState, Option<&Pole>)>,
    globals: Query<&GlobalTransform>,
    mut gizmos: Gizmos,
) {
    if !show.chains {
        return;
    }
    for (chain, state, pole) in &chains {
        let color = if state.reached { css::LIME } else { css::ORANGE };
        let joints: Vec<Vec3> = state.joint_positions().collect();
        for pair in joints.windows(2) {
            gizmos.line(pair[0], pair[1], color);
        }
        for joint in &joints {
            gizmos.sphere(Isometry3d::from_translation(*joint), 0.015, color);
        }
        if let Some(target) = target_position(&chain.target, &globals) {
            gizmos.cross(Isometry3d::from_translation(target), 0.05, css::RED);
        }
        if let (Some(pole), Some(mid)) = (pole.and_then(|p| target_position(&p.target, &globals)), joints.get(1)) {
            gizmos.sphere(Isometry3d::from_translation(pole), 0.03, css::DEEP_SKY_BLUE);
            gizmos.line(*mid, pole, css::DEEP_SKY_BLUE.with_alpha(0.4));
        }
    }
}

/// Draws each foot's ray and hit normal, and a marker at the toe: red when locked, yellow in
/// contact, grey in swing.
pub fn draw_feet(show: Res<IkGizmos>, placers: Query<&FootPlacerState>, mut gizmos: Gizmos) {
    if !show.feet {
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
