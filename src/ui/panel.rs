//! The main panel (top right): views, IK switches, gizmos, windows and the rig status.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use bevy_ik::prelude::IkSettings;

use super::UiState;
use crate::character::CharacterSource;
use crate::labs::ActiveView;
use crate::rigging::RigStatus;
use crate::toggles::{DemoIk, LookAim};

/// Draws the main panel.
#[allow(clippy::too_many_arguments)]
pub fn main_panel(
    mut contexts: EguiContexts,
    mut view: ResMut<ActiveView>,
    mut ik: ResMut<DemoIk>,
    mut settings: ResMut<IkSettings>,
    mut ui_state: ResMut<UiState>,
    status: Res<RigStatus>,
    source: Res<CharacterSource>,
    models: Query<&crate::character::ModelInfo>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("bevy_ik demo")
        .anchor(egui::Align2::RIGHT_TOP, [-10.0, 10.0])
        .default_width(230.0)
        .resizable(false)
        .show(ctx, |ui| {
            ui.label(egui::RichText::new("Scene").strong());
            for (i, (v, label)) in ActiveView::ALL.iter().enumerate() {
                ui.selectable_value(&mut view.0, *v, format!("{}  {label}", i + 1));
            }
            ui.separator();
            ui.label(egui::RichText::new("IK on the character").strong());
            ui.checkbox(&mut settings.enabled, "IK enabled (all)");
            ui.checkbox(&mut ik.foot_ik, "F  foot placement");
            ui.add_enabled(ik.foot_ik, egui::Checkbox::new(&mut ik.foot_lock, "L  foot locking"));
            ui.checkbox(&mut ik.look_at, "K  look-at (spine spread)");
            ui.horizontal(|ui| {
                ui.label("   look at:");
                ui.radio_value(&mut ik.aim, LookAim::Camera, "camera");
                ui.radio_value(&mut ik.aim, LookAim::Orb, "orb");
            });
            ui.checkbox(&mut ik.hand_reach, "H  hand reaches for the orb");
            ui.checkbox(&mut ik.orb_follows, "P  orb follows the character");
            ui.separator();
            ui.checkbox(&mut ui_state.gizmos, "G  IK gizmos");
            ui.checkbox(&mut ui_state.inspector, "I  inspector");
            ui.checkbox(&mut ui_state.metrics, "M  metrics");
            ui.checkbox(&mut ui_state.help, "F1 controls");
            ui.separator();
            let who = if source.custom {
                source.asset_path.trim_start_matches("user://").to_string()
            } else {
                "mannequin".into()
            };
            if let Some(model) = models.iter().next().filter(|_| source.custom) {
                ui.label(format!(
                    "{who}: {:.2} m tall, legs {:.2} m; contacts {}",
                    model.height, model.leg_length, source.labels_from
                ));
                for line in &model.clips {
                    ui.label(format!("   clip {line}"));
                }
            }
            match &*status {
                RigStatus::Loading => ui.label(format!("{who}: loading…")),
                RigStatus::Rigged(profile) => ui.label(format!("{who}: rigged (found by {profile})")),
                RigStatus::Failed(message) => {
                    ui.colored_label(egui::Color32::from_rgb(230, 80, 60), format!("{who} cannot be rigged: {message}"))
                }
            };
        });
    Ok(())
}
