//! Lab: look-at spread down the spine vs head only, on two idling mannequins watching the same
//! target.
//!
//! Method: the left mannequin gets `LookAtSpread::spine_chest_neck_head` (shares 15/20/25/40 %,
//! limits 15°/20°/35°/50°: up to 120° in all), the right one a `LookAtSpread` with the head alone
//! (limit 50°). The target sweeps from side to side around them (or is dragged). Inputs: the
//! target. Outputs: poses; [`LookAtLabState`] for the readouts (`LookAtState::turned`, clamped).
//! Invariants: no IK maths here.

use bevy::prelude::*;
use bevy::world_serialization::WorldInstanceReady;
use bevy_ik::prelude::*;

use super::build::lab_origin;
use super::build::{Paints, handle, plate};
use crate::cli::StartView;
use crate::marks::LabOnly;

/// Lab state.
#[derive(Resource, Clone, Debug)]
pub struct LookAtLabState {
    /// Spread (left) and head-only (right) mannequin roots.
    pub mannequins: [Entity; 2],
    /// The target handle.
    pub target: Entity,
    /// Sweep the target by itself.
    pub animate: bool,
    /// Sweep clock, s.
    pub clock: f32,
}

/// Which variant a lab mannequin shows.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Spread,
    HeadOnly,
}

/// Idle clip graph for the lab mannequins.
#[derive(Resource, Clone)]
struct IdleGraph(Handle<AnimationGraph>, AnimationNodeIndex);

use bevy::animation::graph::AnimationNodeIndex;

/// Adds the lab.
pub struct LookAtLab;

impl Plugin for LookAtLab {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn).add_systems(Update, (sweep_target, draw));
    }
}

fn spawn(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let mut paints = Paints { meshes: &mut meshes, materials: &mut materials };
    let origin = lab_origin(StartView::LookAt);
    plate(&mut commands, &mut paints, origin, 2.6, Color::srgb(0.82, 0.82, 0.78));
    let (graph, node) =
        AnimationGraph::from_clip(assets.load(GltfAssetLabel::Animation(0).from_asset("mannequin.glb")));
    commands.insert_resource(IdleGraph(graphs.add(graph), node));
    let bounds = (origin + Vec3::new(-3.0, 0.3, -3.0), origin + Vec3::new(3.0, 3.0, 3.0));
    let target = handle(
        &mut commands,
        &mut paints,
        "look target",
        origin + Vec3::new(1.2, 1.6, 1.4),
        Color::srgb(1.0, 0.75, 0.2),
        0.08,
        bounds,
    );
    let mut mannequins = [Entity::PLACEHOLDER; 2];
    for (i, (variant, x)) in [(Variant::Spread, -0.8), (Variant::HeadOnly, 0.8)].into_iter().enumerate() {
        mannequins[i] = commands
            .spawn((
                Name::new(if variant == Variant::Spread { "Look-at spread mannequin" } else { "Head-only mannequin" }),
                variant,
                WorldAssetRoot(assets.load(GltfAssetLabel::Scene(0).from_asset("mannequin.glb"))),
                Transform::from_translation(origin + Vec3::new(x, 0.0, 0.0)),
                Visibility::default(),
            ))
            .observe(ready)
            .id();
    }
    commands.insert_resource(LookAtLabState { mannequins, target, animate: true, clock: 0.0 });
}

/// When a lab mannequin's scene is in: play Idle and add its look-at.
#[allow(clippy::too_many_arguments)]
fn ready(
    event: On<WorldInstanceReady>,
    mut commands: Commands,
    graph: Res<IdleGraph>,
    lab: Res<LookAtLabState>,
    variants: Query<&Variant>,
    names: Query<&Name>,
    children: Query<&Children>,
    mut players: Query<(Entity, &mut AnimationPlayer)>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let root = event.entity;
    for entity in children.iter_descendants(root) {
        if let Ok((player, mut anim)) = players.get_mut(entity) {
            anim.play(graph.1).repeat();
            commands.entity(player).insert(AnimationGraphHandle(graph.0.clone()));
        }
    }
    if let Ok(head) = bevy_ik::rig::find_chain(root, &["head"], &names, &children) {
        crate::rigging::add_eyes(&mut commands, head[0], &mut meshes, &mut materials);
    }
    let target = IkTarget::Entity(lab.target);
    let look = match variants.get(root) {
        Ok(Variant::Spread) => {
            bevy_ik::rig::find_chain(root, &["spine_02", "spine_03", "neck_01", "head"], &names, &children)
                .map(|b| LookAtSpread::spine_chest_neck_head([b[0], b[1], b[2], b[3]], target))
        }
        _ => bevy_ik::rig::find_chain(root, &["head"], &names, &children).map(|b| LookAtSpread {
            joints: vec![LookAtJoint::from_degrees(b[0], 1.0, 50.0)],
            target,
            ..default()
        }),
    };
    match look {
        Ok(look) => {
            commands.entity(root).insert((look, LabOnly));
        }
        Err(e) => error!("look-at lab: {e}"),
    }
}

fn sweep_target(
    time: Res<Time>,
    mut lab: ResMut<LookAtLabState>,
    dragging: Res<super::drag::Dragging>,
    mut transforms: Query<&mut Transform>,
) {
    if !lab.animate || dragging.0.is_some_and(|(e, ..)| e == lab.target) {
        return;
    }
    lab.clock += time.delta_secs();
    let angle = 1.0 + 1.3 * (0.35 * lab.clock).sin();
    if let Ok(mut t) = transforms.get_mut(lab.target) {
        t.translation = lab_origin(StartView::LookAt)
            + Vec3::new(1.8 * angle.sin(), 1.55 + 0.2 * (0.6 * lab.clock).sin(), 1.8 * angle.cos());
    }
}

fn draw(
    mut gizmos: Gizmos,
    lab: Res<LookAtLabState>,
    view: Res<super::build::ActiveView>,
    globals: Query<&GlobalTransform>,
    names: Query<(Entity, &Name)>,
    children: Query<&Children>,
) {
    if view.0 != StartView::LookAt {
        return;
    }
    let Ok(target) = globals.get(lab.target).map(|g| g.translation()) else { return };
    for root in lab.mannequins {
        let head = children.iter_descendants(root).find(|e| names.get(*e).is_ok_and(|(_, n)| n.as_str() == "head"));
        if let Some(head) = head.and_then(|h| globals.get(h).ok()) {
            gizmos.line(head.translation() + head.up() * 0.08, target, Color::srgba(1.0, 0.75, 0.2, 0.5));
        }
    }
}
