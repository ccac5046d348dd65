//! The main panel (top right): views, IK switches, gizmos, windows and the rig status.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use bevy_ik::prelude::IkSettings;

use super::UiState;
use crate::character::CharacterSource;
use crate::cli::StartView;
use crate::labs::ActiveView;
use crate::marks::RigStatus;
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
    failure: Option<Res<crate::marks::CharacterError>>,
    mut follower: Option<ResMut<crate::follower::Follower>>,
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
            let course = view.0 == StartView::Course;
            if course {
                egui::CollapsingHeader::new(egui::RichText::new("IK on the character").strong())
                    .default_open(true)
                    .show(ui, |ui| {
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
                    });
                if let Some(follower) = follower.as_mut() {
                    follower_choice(ui, follower);
                }
                egui::CollapsingHeader::new(egui::RichText::new("Pose warping").strong()).default_open(false).show(
                    ui,
                    |ui| {
                        ui.checkbox(&mut ik.orientation_warping, "V  orientation (legs turn when strafing)");
                        ui.checkbox(&mut ik.slope_warping, "B  slope (stride onto ramps, lean)");
                        ui.checkbox(&mut ik.stride_warping, "N  stride (slow walks: shorter steps)");
                        ui.checkbox(&mut ik.clip_drives, "J  root motion drives (else: in place)");
                    },
                );
            }
            ui.separator();
            ui.checkbox(&mut ui_state.gizmos, "G  IK gizmos");
            ui.checkbox(&mut ui_state.inspector, "I  inspector");
            if course {
                ui.checkbox(&mut ui_state.tuning, "T  IK tuning");
                // The inspector takes the left side: say so rather than untick the box.
                let metrics = if ui_state.inspector { "M  metrics (behind the inspector)" } else { "M  metrics" };
                ui.add_enabled(!ui_state.inspector, egui::Checkbox::new(&mut ui_state.metrics, metrics));
            }
            ui.checkbox(&mut ui_state.help, "F1 controls");
            if course {
                ui.weak("WASD move · Shift jog · drag: orbit · F1 all keys");
            } else {
                ui.weak("drag a ball · drag elsewhere: orbit · F1 keys");
            }
            ui.separator();
            let who = &source.name;
            if !source.retargeted.is_empty() {
                ui.label(format!("{who}: {} retargeted from the mannequin", source.retargeted.join(", ")));
            }
            if let Some(model) = models.iter().next().filter(|_| source.custom) {
                ui.label(format!(
                    "{who}: {:.2} m tall, legs {:.2} m; contacts {}",
                    model.height, model.leg_length, source.labels_from
                ));
                for line in &model.clips {
                    ui.label(format!("   clip {line}"));
                }
            }
            let red = egui::Color32::from_rgb(230, 80, 60);
            match (&*status, failure) {
                (RigStatus::Failed(message), _) => ui.colored_label(red, format!("{who} cannot be rigged: {message}")),
                // A character that cannot be used before it is rigged (a retarget that failed).
                (_, Some(failure)) => ui.colored_label(red, &failure.0),
                (RigStatus::Loading, None) => ui.label(format!("{who}: loading…")),
                (RigStatus::Rigged(profile), None) => ui.label(format!("{who}: rigged (found by {profile})")),
            };
        });
    Ok(())
}

/// The creature following the player: none, the Fox on its clips, or a spider or hexapod
/// walked with no clips (written only when another is picked, so the swap runs once).
fn follower_choice(ui: &mut egui::Ui, follower: &mut ResMut<crate::follower::Follower>) {
    use crate::cli::CreatureKind;
    ui.horizontal(|ui| {
        ui.label("Follower:");
        let kinds = [(None, "none"), (Some(CreatureKind::Fox), "fox"), (Some(CreatureKind::Spider), "spider")];
        for (kind, label) in kinds.into_iter().chain([(Some(CreatureKind::Hexapod), "hexapod")]) {
            if ui.selectable_label(follower.kind == kind, label).clicked() && follower.kind != kind {
                follower.kind = kind;
            }
        }
    });
}
