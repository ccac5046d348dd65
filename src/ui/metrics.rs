//! The metrics panel (bottom left): per-foot penetration / float in cm, contact and lock state,
//! pelvis offset, blend weights, pose warping (legs' turn, stride scale) and IK time per frame.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use bevy_ik::prelude::{FootPlacerState, PoseWarpingState};

use super::UiState;
use crate::labs::ActiveView;
use crate::locomotion::Locomotion;
use crate::marks::Avatar;
use crate::marks::{Motion, Player};
use crate::metrics::{FootMetrics, IkTimer};

/// Draws the metrics panel.
pub fn metrics_window(
    mut contexts: EguiContexts,
    ui_state: Res<UiState>,
    view: Res<ActiveView>,
    time: Res<Time>,
    timer: Res<IkTimer>,
    avatars: Query<
        (Option<&FootMetrics>, Option<&FootPlacerState>, Option<&Locomotion>, Option<&PoseWarpingState>),
        With<Avatar>,
    >,
    drive: Option<Res<crate::marks::DriveMode>>,
    bodies: Query<&Motion, With<Player>>,
    mut fps: Local<f32>,
    mut last_frame: Local<Option<std::time::Instant>>,
) -> Result {
    // Wall-clock frame time: game time runs at a fixed step in screenshot and autopilot runs,
    // so it would always say 60 fps.
    let now = std::time::Instant::now();
    let dt = last_frame.replace(now).map_or(time.delta_secs(), |last| now.duration_since(last).as_secs_f32());
    if dt > 0.0 {
        *fps = if *fps == 0.0 { 1.0 / dt } else { *fps * 0.95 + 0.05 / dt };
    }
    if !ui_state.metrics || ui_state.inspector || view.0 != crate::cli::StartView::Course {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    egui::Window::new("Metrics").anchor(egui::Align2::LEFT_BOTTOM, [10.0, -10.0]).resizable(false).show(ctx, |ui| {
        let Some((metrics, placer, loco, warp)) = avatars.iter().next() else {
            ui.label("character loading…");
            return;
        };
        egui::Grid::new("feet").num_columns(3).spacing([14.0, 2.0]).show(ui, |ui| {
            ui.label("");
            ui.label(egui::RichText::new("left").strong());
            ui.label(egui::RichText::new("right").strong());
            ui.end_row();
            let cm = |v: f32| format!("{:.1} cm", v * 100.0);
            let mut row = |name: &str, f: &dyn Fn(usize) -> String| {
                ui.label(name);
                ui.monospace(f(0));
                ui.monospace(f(1));
                ui.end_row();
            };
            row("penetration", &|i| metrics.map_or("-".into(), |m| cm(m.feet[i].penetration)));
            row("float (planted)", &|i| metrics.map_or("-".into(), |m| cm(m.feet[i].float)));
            row("sole gap", &|i| metrics.map_or("-".into(), |m| cm(m.feet[i].gap)));
            row("contact", &|i| {
                metrics.map_or("-".into(), |m| if m.feet[i].contact { "planted".into() } else { "swing".into() })
            });
            row("lock", &|i| {
                placer
                    .and_then(|p| p.feet.get(i))
                    .map_or("-".into(), |f| if f.locked { "LOCKED".into() } else { "free".into() })
            });
            row("slide (contact)", &|i| metrics.map_or("-".into(), |m| cm(m.feet[i].slide)));
            row("IK offset", &|i| placer.and_then(|p| p.feet.get(i)).map_or("-".into(), |f| cm(f.offset)));
        });
        ui.separator();
        if let Some(p) = placer {
            ui.monospace(format!("pelvis offset {:>7.1} cm", p.pelvis_offset * 100.0));
        }
        if let Some(l) = loco {
            let w: Vec<String> =
                l.clips.iter().zip(&l.weights).map(|(c, w)| format!("{} {:.2}", c.info.name, w)).collect();
            ui.monospace(format!("clips at {:.2} m/s  phase {:.2}", l.speed, l.phase));
            ui.monospace(w.join("  "));
        } else if let Some(m) = bodies.iter().next() {
            ui.monospace(format!("speed {:.2} m/s", m.speed.value));
        }
        if let Some(w) = warp {
            let mode = drive.as_ref().map_or("", |d| if d.strafe { "  (strafing)" } else { "" });
            ui.monospace(format!("warp: legs {:>5.1}°  stride ×{:.2}{mode}", w.angle.to_degrees(), w.scale));
            ui.monospace(format!("      slope {:>5.1}°  lean {:>4.1}°", w.slope.to_degrees(), w.lean.to_degrees()));
        }
        if let Some(speed) = drive.as_ref().and_then(|d| d.speed) {
            ui.monospace(format!("chosen speed {speed:.2} m/s (Z / C)"));
        }
        ui.monospace(format!("IK time {:.3} ms (avg {:.3})  {:.0} fps", timer.last_ms, timer.average_ms, *fps));
    });
    Ok(())
}
