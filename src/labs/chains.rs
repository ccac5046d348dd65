//! Lab: CCD and FABRIK side by side on the same six-bone chain and the same (relative) target,
//! with their iteration counts and total bend.
//!
//! Method: two identical chains of six 0.35 m bones stand upright; the left one carries
//! `IkChain { solver: Ccd }`, the right one `IkChain { solver: Fabrik }`, both with a 1 mm
//! tolerance and up to 100 iterations. With "solve from straight" on (the lesson's comparison)
//! both chains are reset to straight every frame before solving; off, each warm-starts from its
//! last answer. The right target mirrors the left one (same offset from its chain's base).
//! Inputs: the target handle. Outputs: poses; readouts (iterations, total bend = sum of the
//! angles between consecutive bones, error) for the UI. Invariants: no IK maths here.

use bevy::prelude::*;
use bevy_ik::prelude::*;

use super::build::lab_origin;
use super::build::{Paints, bone_chain, handle, plate};
use crate::cli::StartView;
use crate::marks::LabOnly;

/// Bones per chain.
pub const BONES: usize = 6;
const BONE: f32 = 0.35;
const SPREAD: f32 = 1.6;

/// One chain's entities.
#[derive(Clone, Debug)]
pub struct LabChain {
    /// Solver name for the UI.
    pub label: &'static str,
    /// Joints root first; the last is the tip (carries the `IkChain`).
    pub joints: Vec<Entity>,
    /// Its target (the left one is the draggable handle).
    pub target: Entity,
}

/// Lab state.
#[derive(Resource, Clone, Debug)]
pub struct ChainsLabState {
    /// CCD (left) and FABRIK (right).
    pub chains: [LabChain; 2],
    /// Reset both chains to straight every frame (the lesson's comparison).
    pub from_straight: bool,
}

/// Adds the lab.
pub struct ChainsLab;

impl Plugin for ChainsLab {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn).add_systems(Update, (mirror_target, straighten, configure).chain());
    }
}

fn base(side: usize) -> Vec3 {
    lab_origin(StartView::Chains) + Vec3::new(if side == 0 { -SPREAD } else { SPREAD }, 0.2, 0.0)
}

fn spawn(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>, mut materials: ResMut<Assets<StandardMaterial>>) {
    let mut paints = Paints { meshes: &mut meshes, materials: &mut materials };
    let origin = lab_origin(StartView::Chains);
    plate(&mut commands, &mut paints, origin, 3.6, Color::srgb(0.82, 0.82, 0.78));
    let offsets = vec![Vec3::Y * BONE; BONES];
    let bounds = (origin + Vec3::new(-4.0, 0.05, -2.5), origin + Vec3::new(4.0, 3.0, 2.5));
    let start_offset = Vec3::new(1.1, 0.9, 0.7);
    let left_target = handle(
        &mut commands,
        &mut paints,
        "chain target",
        base(0) + start_offset,
        Color::srgb(0.25, 0.85, 0.35),
        0.07,
        bounds,
    );
    let right_mat = paints.materials.add(StandardMaterial {
        base_color: Color::srgb(0.25, 0.85, 0.35),
        emissive: LinearRgba::rgb(0.1, 0.4, 0.15),
        ..default()
    });
    let right_target = commands
        .spawn((
            Name::new("chain target (mirror)"),
            Mesh3d(paints.meshes.add(Sphere::new(0.05).mesh().uv(16, 10))),
            MeshMaterial3d(right_mat),
            Transform::from_translation(base(1) + start_offset),
        ))
        .id();
    let mut chains = Vec::new();
    for (side, (label, solver, color, target)) in [
        ("CCD", IkSolver::Ccd, Color::srgb(0.85, 0.35, 0.3), left_target),
        ("FABRIK", IkSolver::Fabrik, Color::srgb(0.3, 0.55, 0.9), right_target),
    ]
    .into_iter()
    .enumerate()
    {
        let joints = bone_chain(&mut commands, &mut paints, label, base(side), &offsets, color, 0.035);
        let tip = *joints.last().unwrap_or(&joints[0]);
        commands.entity(tip).insert((
            IkChain {
                solver,
                bones: BONES,
                tolerance: 0.001,
                max_iterations: 100,
                warm_start: false,
                ..IkChain::new(IkTarget::Entity(target))
            },
            LabOnly,
        ));
        chains.push(LabChain { label, joints, target });
    }
    let [ccd, fabrik]: [LabChain; 2] = chains.try_into().unwrap_or_else(|_| unreachable!("two chains were pushed"));
    commands.insert_resource(ChainsLabState { chains: [ccd, fabrik], from_straight: true });
}

/// The right target sits where the left one is, relative to its own chain.
fn mirror_target(lab: Res<ChainsLabState>, mut transforms: Query<&mut Transform>) {
    let Ok(left) = transforms.get(lab.chains[0].target).map(|t| t.translation) else { return };
    if let Ok(mut right) = transforms.get_mut(lab.chains[1].target) {
        right.translation = left - base(0) + base(1);
    }
}

/// Straightens both chains before IK when solving from straight.
fn straighten(lab: Res<ChainsLabState>, mut transforms: Query<&mut Transform>) {
    if !lab.from_straight {
        return;
    }
    for chain in &lab.chains {
        for joint in &chain.joints {
            if let Ok(mut t) = transforms.get_mut(*joint)
                && t.rotation != Quat::IDENTITY
            {
                t.rotation = Quat::IDENTITY;
            }
        }
    }
}

/// Keeps the chains' warm start in step with the switch.
fn configure(lab: Res<ChainsLabState>, mut chains: Query<&mut IkChain>) {
    for chain in &lab.chains {
        if let Some(tip) = chain.joints.last()
            && let Ok(mut ik) = chains.get_mut(*tip)
        {
            let warm = !lab.from_straight;
            if ik.warm_start != warm {
                ik.warm_start = warm;
            }
        }
    }
}

/// Sum of the angles between consecutive bones, degrees (0 for a straight chain).
pub fn total_bend(points: &[Vec3]) -> f32 {
    points
        .windows(3)
        .map(|w| {
            let (a, b) = (w[1] - w[0], w[2] - w[1]);
            if a.length_squared() < 1e-12 || b.length_squared() < 1e-12 { 0.0 } else { a.angle_between(b) }
        })
        .sum::<f32>()
        .to_degrees()
}

#[cfg(test)]
mod tests {
    use super::total_bend;
    use bevy::math::Vec3;

    #[test]
    fn total_bend_sums_the_turns_between_bones() {
        let straight = [Vec3::ZERO, Vec3::Y, Vec3::Y * 2.0];
        assert!(total_bend(&straight).abs() < 1e-4);
        // Up, right, down: two right angles.
        let hook = [Vec3::ZERO, Vec3::Y, Vec3::new(1.0, 1.0, 0.0), Vec3::new(1.0, 0.0, 0.0)];
        assert!((total_bend(&hook) - 180.0).abs() < 1e-3);
    }
}
