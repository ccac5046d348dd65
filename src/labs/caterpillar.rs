//! Lab: a follow-the-leader caterpillar (the cookbook's recipe) chasing a target.
//!
//! Method: the head chases the target (a leaf that drifts along a figure eight, or is dragged)
//! with `follow::chase` — turn rate 2.5 rad/s, 1.6 m/s, slowing within 0.8 m; every frame
//! `follow::follow_the_leader` pulls the twelve segments to 0.42 m behind the one in front, and
//! `follow::bob` lifts them in a wave running down the body. Inputs: the target. Outputs:
//! segment transforms. Invariants: all maths comes from ik_core's `follow` module; a refused
//! input (non-finite) leaves the body where it was.

use bevy::prelude::*;
use ik_core::follow::{bob, chase, follow_the_leader};

use super::build::lab_origin;
use super::build::{Paints, handle, plate};
use crate::cli::StartView;

const SEGMENTS: usize = 12;
const GAP: f32 = 0.42;

/// Lab state.
#[derive(Resource, Clone, Debug)]
pub struct CaterpillarState {
    /// Segment entities, head first.
    pub segments: Vec<Entity>,
    /// Segment radii.
    pub radii: Vec<f32>,
    /// Path points (ground), head first.
    pub points: Vec<Vec3>,
    /// Head heading (unit, horizontal).
    pub heading: Vec3,
    /// The leaf it chases.
    pub target: Entity,
    /// Move the leaf along a figure eight by itself.
    pub animate: bool,
    /// Clock, s.
    pub clock: f32,
    /// Distance from head to leaf, m (readout).
    pub distance: f32,
}

/// Adds the lab.
pub struct CaterpillarLab;

impl Plugin for CaterpillarLab {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn).add_systems(Update, crawl);
    }
}

fn spawn(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>, mut materials: ResMut<Assets<StandardMaterial>>) {
    let mut paints = Paints { meshes: &mut meshes, materials: &mut materials };
    let origin = lab_origin(StartView::Caterpillar);
    plate(&mut commands, &mut paints, origin, 6.5, Color::srgb(0.55, 0.68, 0.45));
    let dark = paints.material(Color::srgb(0.35, 0.55, 0.25));
    let light = paints.material(Color::srgb(0.35, 0.90, 0.25));
    let eye = paints.material(Color::srgb(0.05, 0.05, 0.05));
    let eye_mesh = paints.meshes.add(Sphere::new(0.045).mesh().uv(12, 8));
    let mut segments = Vec::new();
    let mut radii = Vec::new();
    let mut points = Vec::new();
    for i in 0..SEGMENTS {
        let r = if i == 0 { 0.22 } else { 0.2 - i as f32 * 0.006 };
        let at = origin + Vec3::new(-(i as f32) * GAP, 0.0, 0.0);
        let mut seg = commands.spawn((
            Name::new(format!("caterpillar {i}")),
            Mesh3d(paints.meshes.add(Sphere::new(r).mesh().uv(20, 14))),
            MeshMaterial3d(if i % 2 == 0 { light.clone() } else { dark.clone() }),
            Transform::from_translation(at + Vec3::Y * r),
        ));
        if i == 0 {
            for side in [-1.0, 1.0] {
                seg.with_child((
                    Mesh3d(eye_mesh.clone()),
                    MeshMaterial3d(eye.clone()),
                    Transform::from_xyz(0.09 * side, 0.08, 0.17),
                ));
            }
        }
        segments.push(seg.id());
        radii.push(r);
        points.push(at);
    }
    let bounds = (origin + Vec3::new(-6.0, 0.1, -6.0), origin + Vec3::new(6.0, 1.5, 6.0));
    let target = handle(
        &mut commands,
        &mut paints,
        "leaf",
        origin + Vec3::new(3.0, 0.25, 1.5),
        Color::srgb(0.95, 0.85, 0.2),
        0.12,
        bounds,
    );
    commands.insert_resource(CaterpillarState {
        segments,
        radii,
        points,
        heading: Vec3::X,
        target,
        animate: true,
        clock: 0.0,
        distance: 0.0,
    });
}

fn crawl(
    time: Res<Time>,
    mut lab: ResMut<CaterpillarState>,
    dragging: Res<super::drag::Dragging>,
    mut transforms: Query<&mut Transform>,
) {
    let dt = time.delta_secs();
    lab.clock += dt;
    let t = lab.clock;
    let origin = lab_origin(StartView::Caterpillar);
    let dragged = dragging.0.is_some_and(|(e, ..)| e == lab.target);
    if lab.animate
        && !dragged
        && let Ok(mut leaf) = transforms.get_mut(lab.target)
    {
        // The cookbook's figure eight, 4 m by 2 m, slower than the caterpillar.
        leaf.translation = origin + Vec3::new((t * 0.35).sin() * 4.0, 0.25, (t * 0.7).sin() * 2.0);
    }
    let Ok(goal) = transforms.get(lab.target).map(|t| Vec3::new(t.translation.x, 0.0, t.translation.z)) else { return };
    let lab = &mut *lab;
    if let Ok((head, heading)) = chase(lab.points[0], lab.heading, goal, 1.6, 2.5, 0.8, dt) {
        lab.points[0] = head;
        lab.heading = heading;
    }
    let back = -lab.heading;
    if follow_the_leader(&mut lab.points, GAP, back).is_err() {
        return;
    }
    lab.distance = lab.points[0].distance(goal);
    for (i, (entity, point)) in lab.segments.iter().zip(&lab.points).enumerate() {
        let lift = bob(t, i, 8.0, 0.7, 0.08);
        if let Ok(mut seg) = transforms.get_mut(*entity) {
            seg.translation = *point + Vec3::Y * (lab.radii[i] + lift);
            let ahead = if i == 0 { lab.heading } else { (lab.points[i - 1] - *point).normalize_or(lab.heading) };
            seg.rotation = Quat::from_rotation_arc(Vec3::Z, Vec3::new(ahead.x, 0.0, ahead.z).normalize_or(Vec3::Z));
        }
    }
}
