//! The gem run's line at the top of the course view: gems taken, the clock, the best time.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use crate::game::GemRun;

/// Draws the gem run's line (course view only).
pub fn game_hud(mut contexts: EguiContexts, run: Option<Res<GemRun>>, view: Res<crate::labs::ActiveView>) -> Result {
    let Some(run) = run.filter(|_| view.0 == crate::cli::StartView::Course) else { return Ok(()) };
    let ctx = contexts.ctx_mut()?;
    let seconds = |t: Option<f32>| t.map_or("–".to_string(), |t| format!("{t:.1} s"));
    let line = match run.finished {
        Some(t) => format!(
            "All {} gems in {:.1} s{} · best {} · R: run again",
            run.taken.len(),
            t,
            if run.best == Some(t) { " — best!" } else { "" },
            seconds(run.best)
        ),
        None if run.clock.is_none() => format!(
            "Gem run: walk past the {} gems beside the path, the hand takes them · best {}",
            run.taken.len(),
            seconds(run.best)
        ),
        None => {
            format!("Gems {} / {} · {} · best {}", run.count(), run.taken.len(), seconds(run.clock), seconds(run.best))
        }
    };
    egui::Area::new(egui::Id::new("gem run")).anchor(egui::Align2::CENTER_TOP, [0.0, 10.0]).interactable(false).show(
        ctx,
        |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.label(egui::RichText::new(line).strong().size(16.0).color(egui::Color32::from_rgb(120, 240, 205)));
            });
        },
    );
    Ok(())
}
