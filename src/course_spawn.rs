//! Spawning the course: [`spawn_course`] turns [`CourseLayout`] into rapier colliders, plus lit,
//! grid-textured meshes ([`CourseLook`]) when [`Visuals`] is on. Colliders and meshes come from
//! the same numbers, so what is drawn is what feet stand on.

use bevy::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::course::CourseLayout;
use crate::course_lanes::PlatformShape;
use crate::course_mesh::{RoughPatch, rough_collider, rough_mesh};
use crate::course_pieces::{Paint, Solidity};
use crate::marks::Visuals;
use crate::platforms::{controller_stand_in, platform_body};
use crate::surfaces::{GridColors, grid_texture, metre_box, metre_plane};

/// Marks course entities.
#[derive(Component)]
pub struct CoursePiece;

/// Spawns the course's colliders (and meshes and lights when [`Visuals`] is on).
pub fn spawn_course(
    mut commands: Commands,
    layout: Res<CourseLayout>,
    visuals: Res<Visuals>,
    mut meshes: Option<ResMut<Assets<Mesh>>>,
    mut materials: Option<ResMut<Assets<StandardMaterial>>>,
    mut images: Option<ResMut<Assets<Image>>>,
) {
    let (half, centre) = layout.ground;
    let mut ground = commands.spawn((
        Name::new("Ground"),
        CoursePiece,
        Transform::from_xyz(centre.x, 0.0, centre.y),
        Visibility::default(),
    ));
    ground.with_child((Collider::cuboid(half.x, 0.5, half.y), Transform::from_xyz(0.0, -0.5, 0.0)));
    let mut look = match (visuals.0, meshes.as_deref_mut(), materials.as_deref_mut(), images.as_deref_mut()) {
        (true, Some(meshes), Some(materials), Some(images)) => Some(CourseLook::new(meshes, materials, images)),
        _ => None,
    };
    if let Some(look) = &mut look {
        ground.insert(look.plane(half * 2.0, centre));
    }
    for (i, b) in layout.boxes.iter().enumerate() {
        let (groups, sensor) = b.solidity.components();
        let name = match (sensor, b.solidity) {
            (true, _) => "Stair landing (controller)",
            (_, Solidity::Overhang) => "Overhang (feet only)",
            _ => "Box",
        };
        let mut e = commands.spawn((
            Name::new(name),
            CoursePiece,
            Transform::from_translation(b.center),
            Collider::cuboid(b.half.x, b.half.y, b.half.z),
            groups,
        ));
        if sensor {
            e.insert(Sensor);
        } else if let Some(look) = &mut look {
            e.insert(look.piece(b.paint, i, b.half, b.center));
        }
    }
    if let Some(look) = &mut look {
        for (center, half) in layout.nosings() {
            commands.spawn((Name::new("Nosing"), CoursePiece, Transform::from_translation(center), look.nosing(half)));
        }
    }
    for (i, r) in layout.ramps.iter().enumerate() {
        let (center, rotation, half) = r.slab();
        let (groups, sensor) = r.solidity.components();
        let mut e = commands.spawn((
            Name::new(if sensor { "Stair ramp (controller)" } else { "Ramp" }),
            CoursePiece,
            Transform::from_translation(center).with_rotation(rotation),
            Collider::cuboid(half.x, half.y, half.z),
            groups,
        ));
        if sensor {
            e.insert(Sensor);
        } else if let Some(look) = &mut look {
            e.insert(look.piece(Paint::Ramp, i / 2 + 1, half, rotation.inverse() * center));
        }
    }
    for (i, piece) in layout.platforms.iter().enumerate() {
        commands.spawn((CoursePiece, controller_stand_in(piece)));
        let mut e = commands.spawn((CoursePiece, platform_body(i, piece)));
        if let Some(look) = &mut look {
            e.insert(look.platform(piece.shape));
        }
    }
    let rough = layout.rough;
    let mut e = commands.spawn((Name::new("Rough ground"), CoursePiece, Transform::IDENTITY, Visibility::default()));
    match rough_collider(&rough) {
        Some(collider) => {
            e.insert(collider);
        }
        None => error!("the rough ground collider could not be built; that patch is flat"),
    }
    if let Some(look) = &mut look {
        e.insert(look.rough(&rough));
    }
}

/// The course's meshes and materials: a metre grid in each piece's colour
/// ([`crate::surfaces`]), alternate pieces a shade darker, stair nosings in a contrasting yellow.
struct CourseLook<'a> {
    meshes: &'a mut Assets<Mesh>,
    materials: &'a mut Assets<StandardMaterial>,
    ground: Handle<Image>,
    step: Handle<Image>,
    stairs: Handle<Image>,
    ramp: Handle<Image>,
    rough: Handle<Image>,
    kerb: Handle<Image>,
    platform: Handle<Image>,
    overhang: Handle<Image>,
    nosing: Handle<StandardMaterial>,
}

impl<'a> CourseLook<'a> {
    fn new(
        meshes: &'a mut Assets<Mesh>,
        materials: &'a mut Assets<StandardMaterial>,
        images: &mut Assets<Image>,
    ) -> Self {
        let mut grid = |base: [u8; 3]| images.add(grid_texture(GridColors::from_base(base)));
        let (ground, step, stairs, ramp, rough) = (
            grid([150, 166, 140]),
            grid([214, 146, 84]),
            grid([196, 196, 206]),
            grid([104, 150, 206]),
            grid([160, 128, 92]),
        );
        let (kerb, platform, overhang) = (grid([176, 176, 170]), grid([150, 120, 200]), grid([140, 96, 60]));
        let nosing = materials.add(StandardMaterial {
            base_color: Color::srgb(0.95, 0.76, 0.16),
            perceptual_roughness: 0.6,
            ..default()
        });
        CourseLook { meshes, materials, ground, step, stairs, ramp, rough, kerb, platform, overhang, nosing }
    }

    fn material(&mut self, texture: Handle<Image>, shade: f32, roughness: f32) -> MeshMaterial3d<StandardMaterial> {
        MeshMaterial3d(self.materials.add(StandardMaterial {
            base_color: Color::srgb(shade, shade, shade),
            base_color_texture: Some(texture),
            perceptual_roughness: roughness,
            ..default()
        }))
    }

    fn plane(&mut self, size: Vec2, centre: Vec2) -> (Mesh3d, MeshMaterial3d<StandardMaterial>) {
        let mesh = Mesh3d(self.meshes.add(metre_plane(size, centre)));
        (mesh, self.material(self.ground.clone(), 1.0, 0.95))
    }

    /// A box of `paint` (the `index`-th of the course: every other one a shade darker), its
    /// centre at `origin` in the texture's space.
    fn piece(
        &mut self,
        paint: Paint,
        index: usize,
        half: Vec3,
        origin: Vec3,
    ) -> (Mesh3d, MeshMaterial3d<StandardMaterial>) {
        let texture = match paint {
            Paint::Step => self.step.clone(),
            Paint::Stairs => self.stairs.clone(),
            Paint::Ramp => self.ramp.clone(),
            Paint::Kerb => self.kerb.clone(),
            Paint::Overhang => self.overhang.clone(),
        };
        let shade = if index.is_multiple_of(2) { 1.0 } else { 0.9 };
        let mesh = Mesh3d(self.meshes.add(metre_box(half, origin)));
        (mesh, self.material(texture, shade, 0.8))
    }

    /// A moving platform's mesh (it moves with its body, so its grid moves with it).
    fn platform(&mut self, shape: PlatformShape) -> (Mesh3d, MeshMaterial3d<StandardMaterial>) {
        let mesh = match shape {
            PlatformShape::Box(half) => metre_box(half, Vec3::ZERO),
            PlatformShape::Disc { radius, half_height } => {
                Cylinder::new(radius, half_height * 2.0).mesh().resolution(64).build()
            }
        };
        (Mesh3d(self.meshes.add(mesh)), self.material(self.platform.clone(), 1.0, 0.8))
    }

    fn nosing(&mut self, half: Vec3) -> (Mesh3d, MeshMaterial3d<StandardMaterial>) {
        (Mesh3d(self.meshes.add(Cuboid::from_size(half * 2.0))), MeshMaterial3d(self.nosing.clone()))
    }

    fn rough(&mut self, patch: &RoughPatch) -> (Mesh3d, MeshMaterial3d<StandardMaterial>) {
        let mesh = Mesh3d(self.meshes.add(rough_mesh(patch)));
        (mesh, self.material(self.rough.clone(), 1.0, 1.0))
    }
}
