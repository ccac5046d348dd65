//! The controls help window (F1).

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::UiState;

/// Where a key works.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// On the course only.
    Course,
    /// In every scene (the labs too).
    Everywhere,
}
use Scope::{Course, Everywhere};

/// Every key, what it does, and where it works.
const KEYS: &[(&str, &str, Scope)] = &[
    ("W A S D", "move (relative to the camera)", Course),
    ("Shift", "jog", Course),
    ("Z / C", "slower / faster (0.5 - 3 m/s; past the ends: walk and jog again)", Course),
    ("X", "strafe: face the camera's aim, walk where you steer", Course),
    ("V", "orientation warping on/off (turns the legs toward the movement when strafing)", Course),
    ("B", "slope warping on/off (stride onto ramps, the spine leans into them)", Course),
    ("N", "stride warping on/off (slow walks: shorter steps at the walk's cadence)", Course),
    ("J", "root motion drives on/off (clips that carry the body forward set its pace)", Course),
    ("mouse drag", "orbit the camera", Everywhere),
    ("wheel", "zoom", Everywhere),
    ("F", "foot placement on/off", Course),
    ("L", "foot locking on/off", Course),
    ("K", "look-at on/off", Course),
    ("O", "look at the orb / the camera", Course),
    ("H", "right hand reaches for the orb", Course),
    ("P", "orb follows you / stays", Course),
    ("G", "IK gizmos", Everywhere),
    ("I", "inspector", Everywhere),
    ("M", "metrics", Course),
    ("T", "IK tuning: the character's settings in cm and degrees", Course),
    ("R", "gem run: start again", Course),
    ("1 - 5", "course, two-bone, CCD vs FABRIK, look-at, caterpillar", Everywhere),
    ("drag a ball", "move a lab target or pole", Everywhere),
    ("F1", "this help", Everywhere),
];

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
                for (key, what, _) in KEYS.iter().filter(|(_, _, scope)| course || *scope == Everywhere) {
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
