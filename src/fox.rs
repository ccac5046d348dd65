//! `--creature fox`: the Khronos Fox (`assets/characters/Fox.glb`, CC-BY 4.0, see its README) follows the
//! player over the course on its own Survey and Walk clips, its four paws found from its
//! skeleton, placed and locked by bevy_ik's [`CreatureIk`] — creature rigging exactly as a
//! game gets it. With `--headless` its planted paws' figures are printed at the end
//! ([`FoxFigures`]).
//!
//! The fox has no collider: a small controller here moves its root toward a point beside and
//! behind the player along the player's own path, turns it (yaw only: the root stays upright),
//! walks it on broken ground and paces it on stairs by the plugin's [`StairsAhead`], and
//! carries it halfway between the ground under its front and hind hips (rays under them); bevy_ik's
//! [`BodyFit`] pitches and rolls its body to the ground under its paws. Its Walk plays at the
//! rate its speed asks for.

use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::course::CourseLayout;
use crate::lane_metrics::PlatformSlide;
use crate::marks::Player;
use crate::platforms::{Platform, on_platform, platform_at, ride_platforms};

/// The Walk's ground speed at 1× (m/s, the Fox scaled to metres): its planted paws' backward
/// speed under the root, as `cargo test --test it creature` measures it.
const WALK_SPEED: f32 = 1.06;
/// Half the Walk's stride at 1× (its 0.708 s cycle at [`WALK_SPEED`]), m: what
/// [`StairsAhead::walking_speed`] paces one tread per step from.
const WALK_STEP: f32 = 0.375;
/// The fastest the fox follows (its Walk played at 1.8×), m/s.
const TOP_SPEED: f32 = 1.9;
/// Where the fox starts, in the player's frame (its left, behind it), m.
const HEEL: Vec3 = Vec3::new(0.9, 0.0, -1.2);
/// How far behind the player along its path the fox keeps, m.
const BEHIND: f32 = 1.5;
/// The player moving further than this in one frame was moved, not walking, m.
const TELEPORT: f32 = 2.0;
/// How far ahead along the player's path from its nearest point the fox steers, m.
const LOOKAHEAD: f32 = 0.5;
/// Half the distance between the fox's front and hind hips, m (its rays under them).
const HALF_BODY: f32 = 0.25;
/// Half the distance between its left and right paws, m (its rays under them).
const HALF_WIDTH: f32 = 0.08;
/// Ground under the hips spanning more than this is broken ground (a step, a flight's side), m.
const UNEVEN: f32 = 0.03;

/// The fox's controller and its figures; [`spawn_fox`] adds a fox.
pub struct FoxPlugin;

impl Plugin for FoxPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FoxFigures>()
            .add_observer(start_walking)
            // After the player moved and rode its platform: the same each run.
            .add_systems(Update, follow_player.in_set(crate::marks::DemoSystems::Drive).after(ride_platforms))
            .add_systems(PostUpdate, measure_paws.after(TransformSystems::Propagate));
    }
}

/// The fox's root: its speed and heading, its clips once rigged.
#[derive(Component, Default)]
struct Fox {
    speed: f32,
    yaw: f32,
    /// The ground under its hips spanned more than [`UNEVEN`] last frame: it walks, no faster.
    uneven: bool,
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

    /// The point of the path [`LOOKAHEAD`] on from its point nearest `at`, never past `goal`:
    /// the fox keeps to the player's own path instead of cutting across what the player walked
    /// around (the side of a flight, a ramp's edge).
    fn steer(&self, at: Vec3, goal: Vec3) -> Vec3 {
        let nearest = |p: Vec3| {
            let distance = |i: &(usize, &Vec3)| i.1.distance_squared(p);
            self.0.iter().enumerate().min_by(|a, b| distance(a).total_cmp(&distance(b))).map(|(i, _)| i)
        };
        let (Some(from), Some(to)) = (nearest(at), nearest(goal)) else { return goal };
        let mut left = LOOKAHEAD;
        let mut here = self.0[from];
        for &point in self.0.range(from.min(to) + 1..=to) {
            let step = here.distance(point);
            if step >= left {
                return here.lerp(point, left / step);
            }
            (left, here) = (left - step, point);
        }
        goal
    }
}

/// The Fox file.
#[derive(Resource)]
struct FoxGltf(Handle<Gltf>);

/// A fox beside and behind a player standing at `at` facing `yaw`; returns its root.
pub fn spawn_fox(commands: &mut Commands, assets: &AssetServer, at: Vec3, yaw: f32) -> Entity {
    const FILE: &str = "characters/Fox.glb";
    commands.insert_resource(FoxGltf(assets.load(FILE)));
    let start = at + Quat::from_rotation_y(yaw) * HEEL;
    let scene = assets.load(GltfAssetLabel::Scene(0).from_asset(FILE));
    commands
        .spawn((
            Name::new("Fox"),
            Fox { yaw, ..default() },
            CreatureIk::default(),
            // Stairs found by the plugin's probes: the fox slows to one tread per step on them.
            StairFinder::default(),
            Transform::from_translation(start).with_rotation(Quat::from_rotation_y(yaw)),
            Visibility::default(),
        ))
        // Modelled about 100 units tall: its scene scaled to metres under the root.
        .with_child((WorldAssetRoot(scene), Transform::from_scale(Vec3::splat(0.01))))
        .id()
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
    mut foxes: Query<(&mut Fox, &mut Transform, &StairFinder, Option<&StairsAhead>)>,
    mut animations: Query<&mut AnimationPlayer>,
) {
    let dt = time.delta_secs();
    let (Ok(player), Ok(context)) = (players.single(), rapier.single()) else { return };
    for (mut fox, mut transform, finder, stairs) in &mut foxes {
        // The player was moved (a new pass starts where the route does): so is the fox.
        if fox.trail.0.back().is_some_and(|last| last.distance(player.translation) > TELEPORT) {
            let start = player.translation + player.rotation * HEEL;
            *transform = Transform::from_translation(start).with_rotation(player.rotation);
            (fox.trail, fox.speed, fox.yaw) = (Trail::default(), 0.0, player.rotation.to_euler(EulerRot::YXZ).0);
        }
        let goal = fox.trail.follow(player.translation);
        let left = (goal - transform.translation).with_y(0.0).length();
        let on_stairs =
            stairs.and_then(|s| s.walking_speed(finder, transform.translation, (WALK_SPEED, WALK_STEP), None));
        let top = if fox.uneven { WALK_SPEED } else { TOP_SPEED };
        let wanted = if left > 0.4 { (1.5 * left).min(on_stairs.unwrap_or(top)) } else { 0.0 };
        fox.speed += (wanted - fox.speed) * (1.0 - (-4.0 * dt).exp());
        let to = (fox.trail.steer(transform.translation, goal) - transform.translation).with_y(0.0);
        if fox.speed > 0.05 && left > 0.2 && to.length() > 0.05 {
            let heading = to.x.atan2(to.z);
            let turn =
                (heading - fox.yaw + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
            fox.yaw += turn.clamp(-3.0 * dt, 3.0 * dt);
        }
        let forward = Quat::from_rotation_y(fox.yaw) * Vec3::Z;
        transform.translation += forward * fox.speed * dt;
        // Its hips over the ground under them: the root halfway between.
        let rotation = Quat::from_rotation_y(fox.yaw);
        let under = |x: f32, z: f32| {
            crate::metrics::ground_height(&context, transform.translation + rotation * Vec3::new(x, 0.0, z))
        };
        let [front, back] = [HALF_BODY, -HALF_BODY].map(|z| [under(HALF_WIDTH, z), under(-HALF_WIDTH, z)]);
        let mean =
            |pair: [Option<f32>; 2]| pair.iter().flatten().sum::<f32>() / pair.iter().flatten().count().max(1) as f32;
        let heights = front.iter().chain(&back).flatten();
        let span = heights.clone().fold(f32::MIN, |a, &b| a.max(b)) - heights.fold(f32::MAX, |a, &b| a.min(b));
        fox.uneven = span > UNEVEN;
        let at = transform.translation;
        let height = match (front.iter().any(Option::is_some), back.iter().any(Option::is_some)) {
            (true, true) => 0.5 * (mean(front) + mean(back)),
            (true, false) => mean(front),
            (false, true) => mean(back),
            (false, false) => at.y,
        };
        transform.translation.y += (height - at.y) * 0.5;
        transform.rotation = rotation;
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
    /// planted sole, the largest travel of a paw in one contact (m; on a moving platform, over
    /// the platform).
    pub sections: std::collections::BTreeMap<&'static str, [f32; 4]>,
    /// Per paw, where its contact began (world), its slide over a platform it stands on, and
    /// the platform this contact rides.
    paws: Vec<(Option<Vec3>, PlatformSlide, Option<Entity>)>,
}

impl FoxFigures {
    /// Some planted paw was measured while the fox moved.
    pub fn measured(&self) -> bool {
        self.sections.values().any(|[planted, ..]| *planted > 0.0)
    }

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
        if !self.measured() {
            // A run that measured nothing says so instead of printing nothing.
            return "fox: NOT measured (it was never rigged, or never planted a paw while moving with locking)".into();
        }
        self.sections.iter().map(line).collect::<Vec<_>>().join("\n")
    }
}

/// Measures the fox's paws while it moves with a [`FootLock`] (the demo's IK passes without
/// locking take it off every character): per contact, how far its ball travels from where the
/// contact began (over a moving platform it stands on: in the platform's own frame, like the
/// player's platform figure, [`PlatformSlide`]); planted, its sole's float and depth as bevy_ik
/// reports them; each in the section of the course the paw is in.
fn measure_paws(
    mut figures: ResMut<FoxFigures>,
    layout: Res<CourseLayout>,
    rapier: ReadRapierContext,
    platforms: Query<(&Platform, &GlobalTransform)>,
    foxes: Query<(&Fox, &FootPlacerState), With<FootLock>>,
    unlocked: Query<(), (With<Fox>, Without<FootLock>)>,
) {
    if !unlocked.is_empty() {
        figures.paws.clear();
    }
    let Ok(context) = rapier.single() else { return };
    let platform_under = |p: Vec3| platform_at(&context, &platforms, p);
    let on = |platform: Entity, p: Vec3| on_platform(&platforms, platform, p);
    for (fox, state) in &foxes {
        let figures = &mut *figures;
        figures.paws.resize(state.feet.len(), default());
        for (foot, (held, riding, rides)) in state.feet.iter().zip(figures.paws.iter_mut()) {
            *held = foot.contact.then(|| held.unwrap_or(foot.toe_world));
            // A contact that began on a platform is measured over it to its end, even where the
            // paw's own ray misses its edge (its world travel is the platform's).
            let under = || platform_under(foot.toe_world).or_else(|| platform_under(foot.ground_point));
            *rides = rides.or_else(under).filter(|_| foot.contact);
            let over_platform = riding.step(rides.and_then(|p| on(p, foot.toe_world)));
            if fox.speed < 0.05 {
                continue;
            }
            let at = figures.sections.entry(layout.section_at(foot.toe_world.xz()).label()).or_default();
            match (*held, over_platform) {
                (_, Some(slide)) => at[3] = at[3].max(slide),
                (Some(from), None) => at[3] = at[3].max((foot.toe_world - from).with_y(0.0).length()),
                _ => {}
            }
            if foot.contact {
                at[0] += 1.0;
                at[1] = at[1].max(foot.float_after);
                at[2] = at[2].max(-foot.float_after);
            }
        }
    }
}
