//! The lab window (top left in a lab): what the lab shows, its readouts and switches.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use bevy_ik::prelude::{IkChainState, LookAtState};

use crate::cli::StartView;
use crate::labs::ActiveView;
use crate::labs::caterpillar::CaterpillarState;
use crate::labs::chains::{ChainsLabState, total_bend};
use crate::labs::look_at::LookAtLabState;
use crate::labs::two_bone::TwoBoneLabState;

/// Draws the window of the active lab.
#[allow(clippy::too_many_arguments)]
pub fn lab_window(
    mut contexts: EguiContexts,
    view: Res<ActiveView>,
    mut two_bone: Option<ResMut<TwoBoneLabState>>,
    mut chains: Option<ResMut<ChainsLabState>>,
    mut look: Option<ResMut<LookAtLabState>>,
    mut caterpillar: Option<ResMut<CaterpillarState>>,
    chain_states: Query<&IkChainState>,
    look_states: Query<&LookAtState>,
) -> Result {
    if view.0 == StartView::Course {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let title = crate::labs::ActiveView::ALL.iter().find(|(v, _)| *v == view.0).map_or("Lab", |(_, l)| *l);
    egui::Window::new(title).anchor(egui::Align2::LEFT_TOP, [10.0, 10.0]).resizable(false).default_width(300.0).show(ctx, |ui| {
        match view.0 {
            StartView::TwoBone => {
                let Some(lab) = two_bone.as_deref_mut() else { return };
                ui.label("IkChain::two_bone on the hand, Pole on the elbow. Drag the green target and the blue pole.");
                if let Ok(state) = chain_states.get(lab.joints[2]) {
                    ui.monospace(format!("reached {}   error {:.1} mm", state.reached, state.error * 1000.0));
                }
                ui.checkbox(&mut lab.animate, "target moves by itself");
            }
            StartView::Chains => {
                let Some(lab) = chains.as_deref_mut() else { return };
                ui.label("The same 6-bone chain and target: CCD (left, red) and FABRIK (right, blue), 1 mm tolerance. Drag the green target.");
                egui::Grid::new("chains").num_columns(5).spacing([12.0, 2.0]).show(ui, |ui| {
                    for h in ["solver", "iterations", "total bend", "error", "reached"] {
                        ui.label(egui::RichText::new(h).strong());
                    }
                    ui.end_row();
                    for chain in &lab.chains {
                        let Some(state) = chain.joints.last().and_then(|t| chain_states.get(*t).ok()) else { continue };
                        let points: Vec<Vec3> = state.joint_positions().collect();
                        ui.label(chain.label);
                        ui.monospace(format!("{}", state.iterations));
                        ui.monospace(format!("{:.0}°", total_bend(&points)));
                        ui.monospace(format!("{:.1} mm", state.error * 1000.0));
                        ui.monospace(format!("{}", state.reached));
                        ui.end_row();
                    }
                });
                ui.checkbox(&mut lab.from_straight, "solve from the straight chain each frame (off: warm start)");
            }
            StartView::LookAt => {
                let Some(lab) = look.as_deref_mut() else { return };
                ui.label("Left: LookAtSpread over spine, chest, neck, head (15/20/25/40 %, up to 120°). Right: head only (50°).");
                for (root, label) in lab.mannequins.iter().zip(["spread", "head only"]) {
                    if let Ok(state) = look_states.get(*root) {
                        ui.monospace(format!("{label:>9}: turned {:>5.1}°{}", state.turned.to_degrees(), if state.clamped { "  (at its limit)" } else { "" }));
                    }
                }
                ui.checkbox(&mut lab.animate, "target sweeps by itself (or drag it)");
            }
            StartView::Caterpillar => {
                let Some(lab) = caterpillar.as_deref_mut() else { return };
                ui.label("Follow the leader: the head chases the leaf; each segment stays 0.42 m behind the one in front.");
                ui.monospace(format!("head to leaf {:.2} m", lab.distance));
                ui.checkbox(&mut lab.animate, "leaf moves on a figure eight (or drag it)");
            }
            StartView::Course => {}
        }
    });
    Ok(())
}
