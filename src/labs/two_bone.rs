//! Lab: a two-bone arm reaching for a draggable target, its elbow bending toward a draggable
//! pole — `IkChain::two_bone` + `Pole` on three plain entities.
//!
//! Method: shoulder → elbow → hand joints (0.6 m and 0.55 m bones, straight along +X at rest);
//! bevy_ik turns shoulder and elbow each frame. With "animate" on, the target circles in front
//! of the shoulder and now and then leaves the arm's reach (the arm then points straight at it).
//! Inputs: the handles. Outputs: the arm's pose; [`TwoBoneLabState`] for the UI (reached, error).
//! Invariants: nothing here computes IK; the readouts come from `IkChainState`.

use bevy::prelude::*;
use bevy_ik::prelude::*;

use super::build::lab_origin;
use super::build::{Paints, bone_chain, handle, plate};
use crate::cli::StartView;
use crate::marks::LabOnly;

/// Entities and switches of the two-bone lab.
#[derive(Resource, Clone, Debug)]
pub struct TwoBoneLabState {
    /// Shoulder, elbow, hand.
    pub joints: [Entity; 3],
    /// Target handle.
    pub target: Entity,
    /// Pole handle.
    pub pole: Entity,
    /// Move the target on a loop by itself.
    pub animate: bool,
    /// Loop clock, s.
    pub clock: f32,
}

/// Adds the lab.
pub struct TwoBoneLab;

impl Plugin for TwoBoneLab {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn).add_systems(Update, (animate_target, draw));
    }
}

const UPPER: f32 = 0.6;
const LOWER: f32 = 0.55;

fn shoulder() -> Vec3 {
    lab_origin(StartView::TwoBone) + Vec3::new(0.0, 1.6, 0.0)
}

fn spawn(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>, mut materials: ResMut<Assets<StandardMaterial>>) {
    let mut paints = Paints { meshes: &mut meshes, materials: &mut materials };
    let origin = lab_origin(StartView::TwoBone);
    plate(&mut commands, &mut paints, origin, 2.2, Color::srgb(0.82, 0.82, 0.78));
    let post = paints.meshes.add(Cylinder::new(0.06, 1.6));
    let post_mat = paints.material(Color::srgb(0.3, 0.3, 0.32));
    commands.spawn((
        Name::new("Arm post"),
        Mesh3d(post),
        MeshMaterial3d(post_mat),
        Transform::from_translation(origin + Vec3::Y * 0.8),
    ));
    let joints = bone_chain(
        &mut commands,
        &mut paints,
        "arm",
        shoulder(),
        &[Vec3::new(UPPER, 0.0, 0.0), Vec3::new(LOWER, 0.0, 0.0)],
        Color::srgb(0.95, 0.55, 0.2),
        0.045,
    );
    let bounds = (origin + Vec3::new(-2.0, 0.1, -2.0), origin + Vec3::new(2.5, 3.2, 2.0));
    let target = handle(
        &mut commands,
        &mut paints,
        "arm target",
        shoulder() + Vec3::new(0.75, -0.45, 0.45),
        Color::srgb(0.25, 0.85, 0.35),
        0.07,
        bounds,
    );
    let pole = handle(
        &mut commands,
        &mut paints,
        "elbow pole",
        shoulder() + Vec3::new(0.4, 0.9, -0.6),
        Color::srgb(0.3, 0.5, 1.0),
        0.06,
        bounds,
    );
    commands.entity(joints[2]).insert((
        IkChain::two_bone(IkTarget::Entity(target)),
        Pole::new(IkTarget::Entity(pole)),
        LabOnly,
    ));
    commands.insert_resource(TwoBoneLabState {
        joints: [joints[0], joints[1], joints[2]],
        target,
        pole,
        animate: false,
        clock: 0.0,
    });
}

fn animate_target(
    time: Res<Time>,
    mut lab: ResMut<TwoBoneLabState>,
    dragging: Res<super::drag::Dragging>,
    mut transforms: Query<&mut Transform>,
) {
    if !lab.animate || dragging.0.is_some_and(|(e, ..)| e == lab.target) {
        return;
    }
    lab.clock += time.delta_secs();
    let t = lab.clock;
    if let Ok(mut target) = transforms.get_mut(lab.target) {
        // A loop in front of the shoulder, sometimes out of reach (1.15 m).
        target.translation =
            shoulder() + Vec3::new(0.55 + 0.75 * t.cos(), -0.3 + 0.7 * (1.3 * t).sin(), 0.5 + 0.45 * (0.7 * t).sin());
    }
}

fn draw(
    mut gizmos: Gizmos,
    lab: Res<TwoBoneLabState>,
    view: Res<super::build::ActiveView>,
    globals: Query<&GlobalTransform>,
) {
    if view.0 != StartView::TwoBone {
        return;
    }
    let at = |e: Entity| globals.get(e).map(|g| g.translation()).ok();
    if let (Some(elbow), Some(pole), Some(hand), Some(target)) =
        (at(lab.joints[1]), at(lab.pole), at(lab.joints[2]), at(lab.target))
    {
        gizmos.line(elbow, pole, Color::srgba(0.3, 0.5, 1.0, 0.8));
        gizmos.line(hand, target, Color::srgba(0.25, 0.85, 0.35, 0.9));
        gizmos.sphere(Isometry3d::from_translation(shoulder()), UPPER + LOWER, Color::srgba(1.0, 1.0, 1.0, 0.15));
    }
}
