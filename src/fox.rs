//! `--fox`: the Khronos Fox (`assets/characters/Fox.glb`, CC-BY 4.0, see its README) follows the
//! player over the course on its own Survey and Walk clips, its four paws found from its
//! skeleton, placed and locked by bevy_ik's [`CreatureIk`] — creature rigging exactly as a
//! game gets it. With `--headless` its planted paws' figures are printed at the end
//! ([`FoxFigures`]).
//!
//! The fox has no collider: a small controller here moves its root toward a point beside and
//! behind the player, turns it, and carries it halfway between the ground under its front and
//! hind hips (a ray under each), pitched along it; its Walk plays at the rate its speed asks
//! for.

use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::course::CourseLayout;
use crate::marks::Player;

/// The Walk's ground speed at 1× (m/s, the Fox scaled to metres): its planted paws' backward
/// speed under the root, as `cargo test --test it creature` measures it.
const WALK_SPEED: f32 = 1.06;
/// The fastest the fox follows (its Walk played at 1.8×), m/s.
const TOP_SPEED: f32 = 1.9;
/// Where the fox starts, in the player's frame (its left, behind it), m.
const HEEL: Vec3 = Vec3::new(0.9, 0.0, -1.2);
/// How far behind the player along its path the fox keeps, m.
const BEHIND: f32 = 1.5;
/// Half the distance between the fox's front and hind hips, m (its rays under them).
const HALF_BODY: f32 = 0.25;
/// The steepest the fox's body pitches along the ground, radians (35°).
const MAX_PITCH: f32 = 0.61;

/// Adds the fox, its controller and its figures.
pub struct FoxPlugin {
    /// Where it starts (x, z) and its yaw.
    pub start: (Vec2, f32),
}

impl Plugin for FoxPlugin {
    fn build(&self, app: &mut App) {
        let start = self.start;
        app.init_resource::<FoxFigures>()
            .add_systems(Startup, move |commands: Commands, assets: Res<AssetServer>| {
                spawn_fox(commands, assets, start)
            })
            .add_observer(start_walking)
            .add_systems(Update, follow_player.in_set(crate::marks::DemoSystems::Drive))
            .add_systems(PostUpdate, measure_paws.after(TransformSystems::Propagate));
    }
}

/// The fox's root: its speed and heading, its clips once rigged.
#[derive(Component, Default)]
struct Fox {
    speed: f32,
    yaw: f32,
    /// Nose up along the ground under its hips, radians.
    pitch: f32,
    /// The `AnimationPlayer` and the Survey and Walk nodes, once rigged.
    clips: Option<(Entity, AnimationNodeIndex, AnimationNodeIndex)>,
    /// The player's path.
    trail: Trail,
}

/// The player's path: its position every 10 cm, newest last, the last few metres of it.
#[derive(Default)]
struct Trail(std::collections::VecDeque<Vec3>);

impl Trail {
    /// Records the player at `at` and returns the point of its path [`BEHIND`] back from it
    /// (its oldest point while the path is shorter).
    fn follow(&mut self, at: Vec3) -> Vec3 {
        if self.0.back().is_none_or(|last| last.distance(at) >= 0.1) {
            self.0.push_back(at);
            if self.0.len() > 100 {
                self.0.pop_front();
            }
        }
        let mut left = BEHIND;
        let mut here = at;
        for &point in self.0.iter().rev() {
            let step = here.distance(point);
            if step >= left {
                return here.lerp(point, left / step);
            }
            (left, here) = (left - step, point);
        }
        here
    }
}

/// The Fox file.
#[derive(Resource)]
struct FoxGltf(Handle<Gltf>);

fn spawn_fox(mut commands: Commands, assets: Res<AssetServer>, (at, yaw): (Vec2, f32)) {
    const FILE: &str = "characters/Fox.glb";
    commands.insert_resource(FoxGltf(assets.load(FILE)));
    let start = Vec3::new(at.x, 0.0, at.y) + Quat::from_rotation_y(yaw) * HEEL;
    let scene = assets.load(GltfAssetLabel::Scene(0).from_asset(FILE));
    commands
        .spawn((
            Name::new("Fox"),
            Fox { yaw, ..default() },
            CreatureIk::default(),
            Transform::from_translation(start).with_rotation(Quat::from_rotation_y(yaw)),
            Visibility::default(),
        ))
        // Modelled about 100 units tall: its scene scaled to metres under the root.
        .with_child((WorldAssetRoot(scene), Transform::from_scale(Vec3::splat(0.01))));
}

/// Once bevy_ik rigged the fox: its Survey and Walk in a blend graph on its player.
fn start_walking(
    rigged: On<CreatureRigged>,
    mut foxes: Query<&mut Fox>,
    file: Option<Res<FoxGltf>>,
    gltfs: Res<Assets<Gltf>>,
    children: Query<&Children>,
    mut players: Query<&mut AnimationPlayer>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    mut commands: Commands,
) {
    let Ok(mut fox) = foxes.get_mut(rigged.entity) else { return };

    let Some(gltf) = file.and_then(|f| gltfs.get(&f.0)) else {
        warn!("the fox was rigged before its file was read: it stands");
        return;
    };
    let (Some(survey), Some(walk)) = (gltf.named_animations.get("Survey"), gltf.named_animations.get("Walk")) else {
        warn!("the fox has no Survey or Walk clip: it stands");
        return;
    };
    let Some(player) = children.iter_descendants(rigged.entity).find(|e| players.contains(*e)) else {
        warn!("the fox has no AnimationPlayer: it stands");
        return;
    };
    let (graph, nodes) = AnimationGraph::from_clips([survey.clone(), walk.clone()]);
    commands.entity(player).insert(AnimationGraphHandle(graphs.add(graph)));
    let Ok(mut animation) = players.get_mut(player) else { return };
    for node in &nodes {
        animation.play(*node).repeat();
    }
    fox.clips = Some((player, nodes[0], nodes[1]));
}

/// Walks the fox along the player's own path, [`BEHIND`] back, at the height of the ground under
/// its hips, its Walk played at the rate its speed asks for (Survey while it stands).
fn follow_player(
    time: Res<Time>,
    rapier: ReadRapierContext,
    players: Query<&Transform, (With<Player>, Without<Fox>)>,
    mut foxes: Query<(&mut Fox, &mut Transform)>,
    mut animations: Query<&mut AnimationPlayer>,
) {
    let dt = time.delta_secs();
    let (Ok(player), Ok(context)) = (players.single(), rapier.single()) else { return };
    for (mut fox, mut transform) in &mut foxes {
        let goal = fox.trail.follow(player.translation);
        let to = (goal - transform.translation).with_y(0.0);
        let wanted = if to.length() > 0.4 { (1.5 * to.length()).min(TOP_SPEED) } else { 0.0 };
        fox.speed += (wanted - fox.speed) * (1.0 - (-4.0 * dt).exp());
        if fox.speed > 0.05 && to.length() > 0.2 {
            let heading = to.x.atan2(to.z);
            let turn =
                (heading - fox.yaw + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
            fox.yaw += turn.clamp(-3.0 * dt, 3.0 * dt);
        }
        let forward = Quat::from_rotation_y(fox.yaw) * Vec3::Z;
        transform.translation += forward * fox.speed * dt;
        // Its hips over the ground under them: the root halfway between, pitched along it.
        let under = |p: Vec3| crate::metrics::ground_height(&context, p);
        let at = transform.translation;
        let (front, back) = (under(at + forward * HALF_BODY), under(at - forward * HALF_BODY));
        let (height, pitch) = match (front, back) {
            (Some(f), Some(b)) => (0.5 * (f + b), (f - b).atan2(2.0 * HALF_BODY).clamp(-MAX_PITCH, MAX_PITCH)),
            (Some(g), None) | (None, Some(g)) => (g, 0.0),
            (None, None) => (at.y, 0.0),
        };
        transform.translation.y += (height - at.y) * 0.5;
        fox.pitch += (pitch - fox.pitch) * 0.3;
        transform.rotation = Quat::from_rotation_y(fox.yaw) * Quat::from_rotation_x(-fox.pitch);
        let Some((player, survey, walk)) = fox.clips else { continue };
        let Ok(mut animation) = animations.get_mut(player) else { continue };
        let moving = (fox.speed / 0.3).clamp(0.0, 1.0);
        let rate = (fox.speed / WALK_SPEED).clamp(0.6, 1.8);
        if let Some(clip) = animation.animation_mut(walk) {
            clip.set_weight(moving).set_speed(rate);
        }
        if let Some(clip) = animation.animation_mut(survey) {
            clip.set_weight(1.0 - moving);
        }
    }
}

/// The fox's planted paws over the run, per section of the course, as bevy_ik reports them.
#[derive(Resource, Default, Debug)]
pub struct FoxFigures {
    /// Per section (its name): planted paw-frames, the largest planted sole float, the deepest
    /// planted sole, the largest travel of a paw in one contact (m).
    pub sections: std::collections::BTreeMap<&'static str, [f32; 4]>,
    /// Per paw, where its contact began (world).
    held: Vec<Option<Vec3>>,
}

impl FoxFigures {
    /// One line per section for the headless output.
    pub fn report(&self) -> String {
        let line = |(name, [planted, float, sink, slide]): (&&str, &[f32; 4])| {
            format!(
                "fox (CreatureIk, its own Walk, following the player, with locking), {name}: {planted} planted \
                 paw-frames; planted float {:.2} cm, penetration {:.2} cm, largest slide in one contact {:.2} cm",
                float * 100.0,
                sink * 100.0,
                slide * 100.0
            )
        };
        if self.sections.values().all(|[planted, ..]| *planted == 0.0) {
            // A run that measured nothing says so instead of printing nothing.
            return "fox: NOT measured (it was never rigged, or never planted a paw while moving with locking)".into();
        }
        self.sections.iter().map(line).collect::<Vec<_>>().join("\n")
    }
}

/// Measures the fox's paws while it moves with a [`FootLock`] (the demo's IK passes without
/// locking take it off every character): per contact, how far its ball travels from where the
/// contact began; planted, its sole's float and depth as bevy_ik reports them; each in the
/// section of the course the paw is in.
fn measure_paws(
    mut figures: ResMut<FoxFigures>,
    layout: Res<CourseLayout>,
    foxes: Query<(&Fox, &FootPlacerState), With<FootLock>>,
    unlocked: Query<(), (With<Fox>, Without<FootLock>)>,
) {
    if !unlocked.is_empty() {
        figures.held.clear();
    }
    for (fox, state) in &foxes {
        let figures = &mut *figures;
        figures.held.resize(state.feet.len(), None);
        for (foot, held) in state.feet.iter().zip(figures.held.iter_mut()) {
            *held = foot.contact.then(|| held.unwrap_or(foot.toe_world));
            if fox.speed < 0.05 {
                continue;
            }
            let at = figures.sections.entry(layout.section_at(foot.toe_world.xz()).label()).or_default();
            if let Some(from) = *held {
                at[3] = at[3].max((foot.toe_world - from).with_y(0.0).length());
            }
            if foot.contact {
                at[0] += 1.0;
                at[1] = at[1].max(foot.float_after);
                at[2] = at[2].max(-foot.float_after);
            }
        }
    }
}
