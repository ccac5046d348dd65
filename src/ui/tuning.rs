//! The IK tuning panel (T): the character's IK settings a user tunes, grouped by component, in
//! the units people think in (cm, degrees, seconds, %), with the engine's own components left
//! out; the full reflection inspector (I) is one click away.
//!
//! Method: one window over the player's avatar, editing its `FootPlacer`, `FootLock` and
//! `LookAtSpread` in place (through `Mut`, so change detection sees only real edits) and the
//! demo's hand-reach switch. Angles are stored in radians and lengths in metres; the sliders
//! convert. Inputs: the avatar's components. Outputs: edited settings. Invariants: every value
//! stays within its slider's range (finite, non-negative).

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use bevy_ik::ik_core::foot_placement::PelvisSupport;
use bevy_ik::prelude::*;

use super::UiState;
use crate::marks::Avatar;
use crate::toggles::DemoIk;

/// A slider over a value shown as `value × scale` (metres as cm: 100; radians as degrees:
/// [`DEGREES`]), within `range` in shown units. Returns whether it was edited.
fn scaled(ui: &mut egui::Ui, value: &mut f32, scale: f32, range: std::ops::RangeInclusive<f32>, label: &str) -> bool {
    let mut shown = *value * scale;
    let changed = ui.add(egui::Slider::new(&mut shown, range).text(label)).changed();
    if changed && shown.is_finite() {
        *value = shown / scale;
    }
    changed
}

/// A choice of which planted feet carry the pelvis. Returns whether it was changed.
fn pelvis_support_choice(ui: &mut egui::Ui, support: &mut PelvisSupport) -> bool {
    let before = *support;
    let name = |s: PelvisSupport| match s {
        PelvisSupport::LowestFoot => "lowest foot",
        PelvisSupport::FrontFoot => "front foot uphill",
        PelvisSupport::HighestFoot => "highest foot",
    };
    egui::ComboBox::from_label("pelvis follows").selected_text(name(*support)).show_ui(ui, |ui| {
        for choice in [PelvisSupport::LowestFoot, PelvisSupport::FrontFoot, PelvisSupport::HighestFoot] {
            ui.selectable_value(support, choice, name(choice));
        }
    });
    *support != before
}

/// Radians to degrees, for [`scaled`].
const DEGREES: f32 = 180.0 / std::f32::consts::PI;

/// Draws the tuning panel.
#[allow(clippy::type_complexity)]
pub fn tuning_window(
    mut contexts: EguiContexts,
    mut ui_state: ResMut<UiState>,
    mut ik: ResMut<DemoIk>,
    mut avatars: Query<(Option<&mut FootPlacer>, Option<&mut FootLock>, Option<&mut LookAtSpread>), With<Avatar>>,
) -> Result {
    if !ui_state.tuning || ui_state.inspector {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let Some((placer, lock, look)) = avatars.iter_mut().next() else { return Ok(()) };
    let mut open = true;
    let mut full_inspector = false;
    egui::Window::new("IK tuning")
        .anchor(egui::Align2::RIGHT_BOTTOM, [-10.0, -10.0])
        .default_width(300.0)
        .resizable(false)
        .collapsible(true)
        .open(&mut open)
        .show(ctx, |ui| {
            if let Some(mut placer) = placer {
                egui::CollapsingHeader::new("Foot placement (F)").default_open(true).show(ui, |ui| {
                    let p = placer.bypass_change_detection();
                    let s = &mut p.settings;
                    let changed = [
                        scaled(ui, &mut p.weight, 100.0, 0.0..=100.0, "weight, %"),
                        scaled(ui, &mut s.max_step_up, 100.0, 0.0..=80.0, "step up, cm"),
                        scaled(ui, &mut s.max_step_down, 100.0, 0.0..=80.0, "step down, cm"),
                        scaled(ui, &mut s.max_tilt, DEGREES, 0.0..=60.0, "max tilt, °"),
                        scaled(ui, &mut s.pelvis_half_life, 1.0, 0.0..=0.5, "pelvis half-life, s"),
                        scaled(ui, &mut s.tilt_half_life, 1.0, 0.0..=0.5, "tilt half-life, s"),
                        scaled(ui, &mut s.soften, 100.0, 0.0..=10.0, "knee soft zone, % of reach"),
                        pelvis_support_choice(ui, &mut s.pelvis_support),
                        scaled(ui, &mut s.heel_lift, 100.0, 0.0..=100.0, "heel lift before pelvis drop, %"),
                        scaled(ui, &mut s.max_heel_lift, DEGREES, 0.0..=60.0, "max heel lift, °"),
                    ];
                    if changed.contains(&true) {
                        placer.set_changed();
                    }
                });
            }
            if let Some(mut lock) = lock {
                egui::CollapsingHeader::new("Foot locking (L)").default_open(true).show(ui, |ui| {
                    let s = &mut lock.bypass_change_detection().settings;
                    let changed = [
                        scaled(ui, &mut s.lock_distance, 100.0, 0.0..=50.0, "lock within, cm"),
                        scaled(ui, &mut s.unlock_distance, 100.0, 0.0..=80.0, "unlock beyond, cm"),
                        scaled(ui, &mut s.blend_time, 1.0, 0.0..=0.5, "unlock blend, s"),
                        scaled(ui, &mut s.lock_blend_time, 1.0, 0.0..=0.5, "lock blend, s"),
                    ];
                    if changed.contains(&true) {
                        lock.set_changed();
                    }
                });
            }
            if let Some(mut look) = look {
                egui::CollapsingHeader::new("Look-at (K)").default_open(true).show(ui, |ui| {
                    let l = look.bypass_change_detection();
                    let mut total: f32 = l.joints.iter().map(|j| j.spread.limit).sum();
                    let limit_changed = scaled(ui, &mut total, DEGREES, 0.0..=180.0, "total turn limit, °");
                    if limit_changed {
                        let mut spread: Vec<_> = l.joints.iter().map(|j| j.spread).collect();
                        bevy_ik::ik_core::look_at::scale_limits(&mut spread, total);
                        for (joint, spread) in l.joints.iter_mut().zip(spread) {
                            joint.spread = spread;
                        }
                    }
                    let changed = [
                        limit_changed,
                        scaled(ui, &mut l.weight, 100.0, 0.0..=100.0, "weight, %"),
                        scaled(ui, &mut l.field_of_view, DEGREES, 0.0..=180.0, "let go past, °"),
                        scaled(ui, &mut l.fade_angle, DEGREES, 0.0..=90.0, "fade over, °"),
                        scaled(ui, &mut l.half_life, 1.0, 0.0..=1.0, "target smoothing, s"),
                    ];
                    if changed.contains(&true) {
                        look.set_changed();
                    }
                });
            }
            egui::CollapsingHeader::new("Hand reach (H)").default_open(true).show(ui, |ui| {
                ui.checkbox(&mut ik.hand_reach, "reach for the orb when near and in front");
                scaled(ui, &mut ik.reach_fraction, 100.0, 50.0..=150.0, "reach, % of arm length");
            });
            ui.separator();
            if ui.button("Full inspector (I): every component, reflected").clicked() {
                full_inspector = true;
            }
        });
    ui_state.tuning = open;
    if full_inspector {
        ui_state.inspector = true;
    }
    Ok(())
}
