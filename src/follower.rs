//! Which creature follows the player: `--creature` at the start, the panel's "Follower" choice
//! in the windowed demo. Changing [`Follower::kind`] takes the old creature away and puts the new
//! one beside and behind the player: the Fox ([`crate::fox`]) or a spider or hexapod walked by
//! `ProceduralGait` ([`crate::gait_creature`]).

use bevy::prelude::*;

use crate::autopilot::ExitHeld;
use crate::cli::CreatureKind;
use crate::fox::{FoxPlugin, spawn_fox};
use crate::gait_creature::{GaitCreaturePlugin, GaitFigures, HEXAPOD, SPIDER, spawn_creature};
use crate::marks::Avatar;

/// The creature following the player, and the pace of a spider or hexapod (m/s).
#[derive(Resource, Clone, Copy, Debug)]
pub struct Follower {
    pub kind: Option<CreatureKind>,
    pub speed: f32,
}

/// Marks the root of the creature following the player.
#[derive(Component)]
struct FollowerRoot;

/// The follower's choice, both kinds' controllers, and the swap.
pub struct FollowerPlugin {
    pub follower: Follower,
    /// Where the player starts (x, z) and its yaw: the first creature is put beside it.
    pub start: (Vec2, f32),
    /// Headless: the app's exit waits for a spider or hexapod to walk its pass.
    pub headless: bool,
}

impl Plugin for FollowerPlugin {
    fn build(&self, app: &mut App) {
        let (start, headless) = (self.start, self.headless);
        // The first at startup, beside the start; then whenever the choice changes, beside the
        // character.
        let swap = move |first: bool| {
            move |commands: Commands, follower: Res<Follower>, swap: Swap| {
                swap_follower(commands, follower, swap, (start, headless, first))
            }
        };
        let changed = resource_changed::<Follower>.and_then(not(resource_added::<Follower>));
        app.insert_resource(self.follower)
            .add_plugins((FoxPlugin, GaitCreaturePlugin))
            .add_systems(Startup, swap(true))
            .add_systems(Update, swap(false).run_if(changed).in_set(crate::marks::DemoSystems::Setup));
    }
}

/// What a swap reads and writes besides the choice.
#[derive(bevy::ecs::system::SystemParam)]
struct Swap<'w, 's> {
    assets: Res<'w, AssetServer>,
    meshes: Option<ResMut<'w, Assets<Mesh>>>,
    materials: Option<ResMut<'w, Assets<StandardMaterial>>>,
    visuals: Res<'w, crate::marks::Visuals>,
    /// The player's character (its IK root, at its feet).
    avatars: Query<'w, 's, &'static GlobalTransform, With<Avatar>>,
    followers: Query<'w, 's, Entity, With<FollowerRoot>>,
}

/// Takes the old follower away and puts the chosen one beside the player.
fn swap_follower(
    mut commands: Commands,
    follower: Res<Follower>,
    mut swap: Swap,
    (start, headless, first): ((Vec2, f32), bool, bool),
) {
    for old in &swap.followers {
        commands.entity(old).despawn();
    }
    // The first beside the start, on the floor; a later one beside the character's feet (a
    // creature's rest pose is measured where it is put: on the ground, not in the air).
    let (at, yaw) = match swap.avatars.iter().next().filter(|_| !first) {
        Some(feet) => (feet.translation(), feet.rotation().to_euler(EulerRot::YXZ).0),
        None => (Vec3::new(start.0.x, 0.0, start.0.y), start.1),
    };
    let root = match follower.kind {
        None => return,
        Some(CreatureKind::Fox) => spawn_fox(&mut commands, &swap.assets, at, yaw),
        Some(kind) => {
            let shape = if kind == CreatureKind::Spider { &SPIDER } else { &HEXAPOD };
            let looks = match (swap.meshes.as_deref_mut(), swap.materials.as_deref_mut()) {
                (Some(meshes), Some(materials)) if swap.visuals.0 => Some((meshes, materials)),
                _ => None,
            };
            commands.insert_resource(GaitFigures::new(shape.name, follower.speed));
            commands.insert_resource(ExitHeld(headless));
            spawn_creature(&mut commands, looks, shape, (at, yaw), (follower.speed, headless))
        }
    };
    commands.entity(root).insert(FollowerRoot);
}
