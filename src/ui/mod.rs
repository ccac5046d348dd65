//! egui panels: controls help, the main panel (views, IK switches, gizmos), metrics, lab
//! readouts, the curated IK tuning panel and the full inspector.
//!
//! Method: bevy_egui draws on the main camera; every panel is its own system in
//! `EguiPrimaryContextPass` reading the demo's resources and components; the inspector is an
//! exclusive system using bevy-inspector-egui's reflection UI. After drawing, whether egui wants
//! the pointer is recorded so the camera and lab handles leave it alone. Inputs: the flags
//! (`--inspector`, `--gizmos`), keys F1 (help), I (inspector), M (metrics), T (IK tuning), G (gizmos).
//! Invariants: panels never change IK state except through the switches they show.

mod help;
mod hud;
mod inspector;
mod labs;
mod metrics;
mod panel;
mod tuning;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass};
use bevy_ik::prelude::IkGizmos;
use bevy_inspector_egui::DefaultInspectorConfigPlugin;

use crate::camera::PointerCaptured;
use crate::cli::Args;

/// Which windows are open.
#[derive(Resource, Clone, Debug)]
pub struct UiState {
    /// Controls help.
    pub help: bool,
    /// The inspector.
    pub inspector: bool,
    /// The metrics panel.
    pub metrics: bool,
    /// IK gizmos drawn.
    pub gizmos: bool,
    /// The IK tuning panel.
    pub tuning: bool,
}

/// The demo's egui panels.
pub struct DemoUi {
    /// Flags.
    pub args: Args,
}

impl Plugin for DemoUi {
    fn build(&self, app: &mut App) {
        app.add_plugins((EguiPlugin::default(), DefaultInspectorConfigPlugin))
            .insert_resource(UiState {
                // Compact at start: the main panel's hint line says where the keys are.
                help: false,
                inspector: self.args.inspector,
                metrics: true,
                gizmos: self.args.gizmos,
                tuning: false,
            })
            .add_systems(Update, (ui_keys, apply_gizmos).chain())
            .add_systems(
                EguiPrimaryContextPass,
                (
                    panel::main_panel,
                    help::help_window,
                    metrics::metrics_window,
                    hud::game_hud,
                    tuning::tuning_window,
                    labs::lab_window,
                    inspector::inspector_window,
                    record_pointer,
                )
                    .chain(),
            );
    }
}

fn ui_keys(keys: Res<ButtonInput<KeyCode>>, mut ui: ResMut<UiState>) {
    let panels: [(KeyCode, fn(&mut UiState) -> &mut bool); 5] = [
        (KeyCode::F1, |ui| &mut ui.help),
        (KeyCode::KeyI, |ui| &mut ui.inspector),
        (KeyCode::KeyM, |ui| &mut ui.metrics),
        (KeyCode::KeyT, |ui| &mut ui.tuning),
        (KeyCode::KeyG, |ui| &mut ui.gizmos),
    ];
    for (key, panel) in panels {
        if keys.just_pressed(key) {
            let open = panel(&mut ui);
            *open = !*open;
        }
    }
}

/// The gizmo switch drives bevy_ik's gizmo config group.
fn apply_gizmos(ui: Res<UiState>, store: Option<ResMut<GizmoConfigStore>>) {
    let Some(mut store) = store else { return };
    if !ui.is_changed() {
        return;
    }
    // The whole group on or off; which parts it draws stays as set in the inspector.
    let (config, _) = store.config_mut::<IkGizmos>();
    if config.enabled != ui.gizmos {
        config.enabled = ui.gizmos;
    }
}

fn record_pointer(mut contexts: EguiContexts, mut captured: ResMut<PointerCaptured>) -> Result {
    let ctx = contexts.ctx_mut()?;
    captured.egui = ctx.egui_wants_pointer_input() || ctx.is_pointer_over_egui();
    Ok(())
}
