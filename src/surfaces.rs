//! What the course's surfaces look like: a metre grid on every surface (so scale and speed read
//! at a glance), box meshes whose texture coordinates are in metres, and a sky dome.
//!
//! Method: [`grid_texture`] draws one metre of surface (a two-shade checker of 50 cm squares
//! with a darker line on the metre and fainter 10 cm ticks) and box-filters it down to a full mip
//! chain, so the grid neither shimmers nor blurs away in the distance; its sampler repeats.
//! [`metre_box`] is a cuboid whose UVs are its vertices' positions (m) projected on each face's
//! plane, offset by the box's place in the world, so the grid lines up across neighbouring
//! pieces. [`sky_dome`] is a large inverted sphere with a horizon-to-zenith colour gradient.
//! Invariants: textures are sRGB RGBA8, square, power-of-two; every mesh has positions,
//! normals and UVs.

use bevy::asset::RenderAssetUsages;
use bevy::image::{ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor};
use bevy::mesh::VertexAttributeValues;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

/// Texels per metre of [`grid_texture`].
const TEXELS: usize = 256;

/// The shades of one surface's grid (sRGB bytes).
#[derive(Clone, Copy, Debug)]
pub struct GridColors {
    /// The lighter checker square.
    pub light: [u8; 3],
    /// The darker checker square.
    pub dark: [u8; 3],
    /// The metre lines.
    pub line: [u8; 3],
}

impl GridColors {
    /// A grid in `base`'s hue: squares at 100 % and 90 %, lines at 65 %, ticks blended in.
    pub fn from_base(base: [u8; 3]) -> Self {
        let scale = |f: f32| base.map(|c| (c as f32 * f).round() as u8);
        GridColors { light: base, dark: scale(0.9), line: scale(0.65) }
    }
}

/// One metre of surface, `TEXELS` texels square, with its mip chain (see the module notes).
pub fn grid_texture(colors: GridColors) -> Image {
    let mut level: Vec<[f32; 4]> = Vec::with_capacity(TEXELS * TEXELS);
    let rgb = |c: [u8; 3]| [c[0] as f32, c[1] as f32, c[2] as f32, 255.0];
    let mix = |a: [f32; 4], b: [f32; 4], t: f32| std::array::from_fn(|i| a[i] + (b[i] - a[i]) * t);
    let tick_every = TEXELS / 10;
    for y in 0..TEXELS {
        for x in 0..TEXELS {
            let checker = (x < TEXELS / 2) ^ (y < TEXELS / 2);
            let mut c = rgb(if checker { colors.light } else { colors.dark });
            let on_tick = x % tick_every == 0 || y % tick_every == 0;
            if on_tick {
                c = mix(c, rgb(colors.line), 0.35);
            }
            let on_metre = x < 2 || y < 2 || x >= TEXELS - 2 || y >= TEXELS - 2;
            if on_metre {
                c = rgb(colors.line);
            }
            level.push(c);
        }
    }
    let mut data: Vec<u8> = Vec::new();
    let mut size = TEXELS;
    let mut levels = 0;
    loop {
        data.extend(level.iter().flat_map(|c| c.map(|v| v.round().clamp(0.0, 255.0) as u8)));
        levels += 1;
        if size == 1 {
            break;
        }
        let half = size / 2;
        level = (0..half * half)
            .map(|i| {
                let (x, y) = (2 * (i % half), 2 * (i / half));
                let at = |dx: usize, dy: usize| level[(y + dy) * size + x + dx];
                std::array::from_fn(|k| (at(0, 0)[k] + at(1, 0)[k] + at(0, 1)[k] + at(1, 1)[k]) * 0.25)
            })
            .collect();
        size = half;
    }
    let extent = Extent3d { width: TEXELS as u32, height: TEXELS as u32, depth_or_array_layers: 1 };
    let mut image =
        Image::new_uninit(extent, TextureDimension::D2, TextureFormat::Rgba8UnormSrgb, RenderAssetUsages::RENDER_WORLD);
    image.texture_descriptor.mip_level_count = levels;
    image.data = Some(data);
    image.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        address_mode_u: ImageAddressMode::Repeat,
        address_mode_v: ImageAddressMode::Repeat,
        mag_filter: ImageFilterMode::Linear,
        min_filter: ImageFilterMode::Linear,
        mipmap_filter: ImageFilterMode::Linear,
        anisotropy_clamp: 16,
        ..default()
    });
    image
}

/// A cuboid of half extents `half` whose UVs are metres on each face's plane; `origin` is where
/// the box's centre sits in the texture's space (its world position, turned into the box's
/// frame), so neighbouring boxes' grids line up.
pub fn metre_box(half: Vec3, origin: Vec3) -> Mesh {
    let mut mesh = Mesh::from(Cuboid::from_size(half * 2.0));
    let positions: Vec<Vec3> = match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => p.iter().map(|p| Vec3::from_array(*p)).collect(),
        _ => return mesh,
    };
    let normals: Vec<Vec3> = match mesh.attribute(Mesh::ATTRIBUTE_NORMAL) {
        Some(VertexAttributeValues::Float32x3(n)) => n.iter().map(|n| Vec3::from_array(*n)).collect(),
        _ => return mesh,
    };
    let uvs: Vec<[f32; 2]> = positions.iter().zip(&normals).map(|(p, n)| plane_uv(*p + origin, *n)).collect();
    mesh.insert_attribute(Mesh::ATTRIBUTE_UV_0, uvs);
    mesh
}

/// The point `p` (m) projected onto the plane of a face with normal `n`: top and bottom faces
/// read (x, z), the others the horizontal axis along the face and height (up is −v).
fn plane_uv(p: Vec3, n: Vec3) -> [f32; 2] {
    let a = n.abs();
    if a.y >= a.x && a.y >= a.z {
        [p.x, p.z]
    } else if a.x >= a.z {
        [p.z, -p.y]
    } else {
        [p.x, -p.y]
    }
}

/// A ground plane `size` (m) whose UVs are world metres around `centre` (x, z).
pub fn metre_plane(size: Vec2, centre: Vec2) -> Mesh {
    metre_box(Vec3::new(size.x * 0.5, 0.0, size.y * 0.5), Vec3::new(centre.x, 0.0, centre.y))
}

/// Colour of the sky at height `y` on the unit sphere (−1 below the horizon … 1 zenith).
pub fn sky_color(y: f32) -> Color {
    let horizon = Vec3::new(0.80, 0.86, 0.92);
    let zenith = Vec3::new(0.30, 0.50, 0.80);
    let t = y.clamp(0.0, 1.0).powf(0.6);
    let c = horizon.lerp(zenith, t);
    Color::srgb(c.x, c.y, c.z)
}

/// The horizon's colour (for the fog, so distant ground fades into the sky).
pub fn horizon_color() -> Color {
    sky_color(0.0)
}

/// An inside-out sphere of `radius` (m) coloured by [`sky_color`].
pub fn sky_dome(radius: f32) -> Mesh {
    let mut mesh = Sphere::new(radius).mesh().uv(32, 16);
    let colors: Vec<[f32; 4]> = match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => {
            p.iter().map(|p| sky_color(p[1] / radius).to_linear().to_f32_array()).collect()
        }
        _ => Vec::new(),
    };
    mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, colors);
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_has_a_full_mip_chain_and_metre_lines() {
        let image = grid_texture(GridColors::from_base([200, 180, 160]));
        let levels = image.texture_descriptor.mip_level_count as usize;
        assert_eq!(levels, 9);
        let expected: usize = (0..levels).map(|l| (TEXELS >> l).pow(2) * 4).sum();
        let data = image.data.as_ref().unwrap();
        assert_eq!(data.len(), expected);
        // The metre line (corner texel) is darker than the middle of a square.
        let texel = |x: usize, y: usize| data[(y * TEXELS + x) * 4] as i32;
        assert!(texel(0, 0) < texel(TEXELS / 4 + 3, TEXELS / 4 + 3) - 40);
    }

    #[test]
    fn neighbouring_boxes_grids_line_up() {
        // Two 1 m boxes side by side along x: the shared top edge has the same u on both.
        let uv_at = |mesh: &Mesh, corner: Vec3| -> [f32; 2] {
            let Some(VertexAttributeValues::Float32x3(p)) = mesh.attribute(Mesh::ATTRIBUTE_POSITION) else { panic!() };
            let Some(VertexAttributeValues::Float32x2(uv)) = mesh.attribute(Mesh::ATTRIBUTE_UV_0) else { panic!() };
            let Some(VertexAttributeValues::Float32x3(n)) = mesh.attribute(Mesh::ATTRIBUTE_NORMAL) else { panic!() };
            let i = (0..p.len()).find(|&i| Vec3::from(p[i]).distance(corner) < 1e-6 && n[i][1] > 0.5).unwrap();
            uv[i]
        };
        let half = Vec3::splat(0.5);
        let a = metre_box(half, Vec3::new(0.0, 0.5, 0.0));
        let b = metre_box(half, Vec3::new(1.0, 0.5, 0.0));
        assert_eq!(uv_at(&a, Vec3::new(0.5, 0.5, 0.5)), uv_at(&b, Vec3::new(-0.5, 0.5, 0.5)));
    }
}
