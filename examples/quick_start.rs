//! The README's quick start, runnable: `cargo run --release --example quick_start`. The code
//! from `use` down to the line of dashes is shown in README.md byte for byte; the check at the
//! bottom stops this example from compiling when the two differ.

use bevy::prelude::*;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, RapierPhysicsPlugin::<NoUserData>::default(), IkPlugin::default()))
        .add_systems(Startup, setup)
        .run();
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    let eye = Transform::from_xyz(1.0, 1.6, 3.0).looking_at(Vec3::new(0.0, 1.0, 0.0), Vec3::Y);
    let camera = commands.spawn((Camera3d::default(), eye)).id();
    commands.spawn((DirectionalLight::default(), Transform::from_xyz(2.0, 4.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y)));
    // The ground the feet stand on: any rapier collider.
    commands.spawn((Collider::cuboid(10.0, 0.1, 10.0), Transform::from_xyz(0.0, -0.1, 0.0)));
    // Any humanoid glTF: bones found by name or shape, feet placed and locked, head turned to the camera.
    commands.spawn((
        WorldAssetRoot(assets.load(GltfAssetLabel::Scene(0).from_asset("mannequin.glb"))),
        HumanoidIk { look_target: Some(IkTarget::Entity(camera)), ..default() },
    ));
}

// ----------------------------------------------------------------------------------------------
// Not in the README: the check that README.md shows the code above, from `use` to the dashes.

/// The shown part of this file: from its first `use` line to the line of dashes.
const SHOWN: &[u8] = between(include_bytes!("quick_start.rs"), b"use bevy::", b"\n// ---");

/// `text` from the first `start` up to (without) the first `end` after it; empty if either is
/// missing.
const fn between<'a>(text: &'a [u8], start: &[u8], end: &[u8]) -> &'a [u8] {
    let Some(from) = find(text, start, 0) else { return &[] };
    let Some(to) = find(text, end, from) else { return &[] };
    text.split_at(to).0.split_at(from).1
}

/// The first index at or after `from` where `needle` starts in `text`.
const fn find(text: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while at + needle.len() <= text.len() {
        let mut i = 0;
        while i < needle.len() && text[at + i] == needle[i] {
            i += 1;
        }
        if i == needle.len() {
            return Some(at);
        }
        at += 1;
    }
    None
}

const _: () = assert!(
    !SHOWN.is_empty() && find(include_bytes!("../README.md"), SHOWN, 0).is_some(),
    "README.md's quick start differs from examples/quick_start.rs (`use` to the dashes): make them the same"
);
