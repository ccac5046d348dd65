//! The inspector (I): every IK setting and component, live, through bevy-inspector-egui.
//!
//! Method: an exclusive system lists the global settings resources, then every entity holding
//! an IK component — the character's first, then the labs' — each in a collapsible section
//! showing all its reflected components. Edits apply immediately.

use bevy::prelude::*;
use bevy_egui::{EguiContext, PrimaryEguiContext, egui};
use bevy_ik::prelude::*;
use bevy_inspector_egui::bevy_inspector::{ui_for_entity, ui_for_resource};

use super::UiState;
use crate::marks::LabOnly;
use crate::toggles::DemoIk;

type IkEntities =
    Or<(With<FootPlacer>, With<FootLock>, With<LookAtSpread>, With<IkChain>, With<HumanoidIk>, With<IkFade>)>;

/// Draws the inspector window.
pub fn inspector_window(world: &mut World) {
    if !world.resource::<UiState>().inspector {
        return;
    }
    let Ok(ctx) = world.query_filtered::<&mut EguiContext, With<PrimaryEguiContext>>().single(world) else { return };
    let mut ctx = ctx.clone();
    let mut ik_entities: Vec<(Entity, String, bool)> = world
        .query_filtered::<(Entity, Option<&Name>, Has<LabOnly>), IkEntities>()
        .iter(world)
        .map(|(e, n, lab)| (e, n.map_or_else(|| format!("{e}"), |n| n.to_string()), lab))
        .collect();
    ik_entities.sort_by(|a, b| a.2.cmp(&b.2).then(a.1.cmp(&b.1)));
    let mut open = true;
    egui::Window::new("Inspector")
        .anchor(egui::Align2::LEFT_TOP, [10.0, 10.0])
        .default_width(440.0)
        .default_height(660.0)
        .max_height(680.0)
        .open(&mut open)
        .show(ctx.get_mut(), |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                egui::CollapsingHeader::new("Settings (IkSettings, demo switches, IkGizmos, IkGround)")
                    .default_open(false)
                    .show(ui, |ui| {
                        ui.push_id("IkSettings", |ui| {
                            ui.label(egui::RichText::new("IkSettings").italics());
                            ui_for_resource::<IkSettings>(world, ui);
                        });
                        ui.push_id("DemoIk", |ui| {
                            ui.label(egui::RichText::new("demo switches").italics());
                            ui_for_resource::<DemoIk>(world, ui);
                        });
                        ui.push_id("IkGizmos", |ui| {
                            ui.label(egui::RichText::new("IkGizmos").italics());
                            world.resource_scope(|world, mut store: Mut<GizmoConfigStore>| {
                                let (config, ik) = store.config_mut::<IkGizmos>();
                                ui.checkbox(&mut config.enabled, "enabled");
                                bevy_inspector_egui::bevy_inspector::ui_for_value(ik, ui, world);
                            });
                        });
                        ui.push_id("IkGround", |ui| {
                            ui.label(egui::RichText::new("IkGround").italics());
                            ui_for_resource::<IkGround>(world, ui);
                        });
                    });
                let mut lab_header = false;
                for (i, (entity, name, lab)) in ik_entities.iter().enumerate() {
                    if *lab && !lab_header {
                        ui.separator();
                        ui.label(egui::RichText::new("Lab scenes").strong());
                        lab_header = true;
                    }
                    egui::CollapsingHeader::new(name.as_str())
                        .id_salt(("ik entity", *entity))
                        .default_open(i == 0 && !*lab)
                        .show(ui, |ui| ui_for_entity(world, *entity, ui));
                }
            });
        });
    if !open {
        world.resource_mut::<UiState>().inspector = false;
    }
}
