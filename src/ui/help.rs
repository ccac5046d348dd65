//! The controls help window (F1).

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::UiState;

/// Every key, with what it does; the ones from [`EVERYWHERE`] on are also shown in the labs.
const KEYS: &[(&str, &str)] = &[
    ("W A S D", "move (relative to the camera)"),
    ("Shift", "jog"),
    ("Z / C", "slower / faster (0.5 - 3 m/s; past the ends: walk and jog again)"),
    ("X", "strafe: face the camera's aim, walk where you steer"),
    ("V", "orientation warping on/off (turns the legs toward the movement when strafing)"),
    ("B", "slope warping on/off (stride onto ramps, the spine leans into them)"),
    ("N", "stride warping on/off (slow walks: shorter steps at the walk's cadence)"),
    ("mouse drag", "orbit the camera"),
    ("wheel", "zoom"),
    ("F", "foot placement on/off"),
    ("L", "foot locking on/off"),
    ("K", "look-at on/off"),
    ("O", "look at the orb / the camera"),
    ("H", "right hand reaches for the orb"),
    ("P", "orb follows you / stays"),
    ("G", "IK gizmos"),
    ("I", "inspector"),
    ("M", "metrics"),
    ("T", "IK tuning: the character's settings in cm and degrees"),
    ("R", "game: restart the orb run"),
    ("1 - 5", "course, two-bone, CCD vs FABRIK, look-at, caterpillar"),
    ("drag a ball", "move a lab target or pole"),
    ("F1", "this help"),
];

/// The keys of [`KEYS`] that work in every scene (the lab ones too).
const EVERYWHERE: &[&str] = &["mouse drag", "wheel", "G", "I", "1 - 5", "drag a ball", "F1"];

/// Draws the help window: every key on the course, the ones that work there in the labs.
pub fn help_window(
    mut contexts: EguiContexts,
    mut ui_state: ResMut<UiState>,
    view: Res<crate::labs::ActiveView>,
) -> Result {
    if !ui_state.help {
        return Ok(());
    }
    let course = view.0 == crate::cli::StartView::Course;
    // Top left on the course; bottom left where the labs' window or the inspector has the top.
    let (corner, offset) = if course && !ui_state.inspector {
        (egui::Align2::LEFT_TOP, [10.0, 10.0])
    } else {
        (egui::Align2::LEFT_BOTTOM, [10.0, -10.0])
    };
    let ctx = contexts.ctx_mut()?;
    let mut open = true;
    egui::Window::new("Controls").anchor(corner, offset).resizable(false).collapsible(true).open(&mut open).show(
        ctx,
        |ui| {
            egui::Grid::new("keys").num_columns(2).spacing([12.0, 2.0]).show(ui, |ui| {
                for (key, what) in KEYS.iter().filter(|(key, _)| course || EVERYWHERE.contains(key)) {
                    ui.label(egui::RichText::new(*key).strong());
                    ui.label(*what);
                    ui.end_row();
                }
            });
        },
    );
    if !open {
        ui_state.help = false;
    }
    Ok(())
}
