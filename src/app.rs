//! Building the demo's Bevy app, windowed or headless.
//!
//! Method: [`build_app`] picks the plugin set — `DefaultPlugins` with a window, or without winit
//! and with no render backend for `--headless` (assets, scenes, animation, rapier and bevy_ik
//! still run) — then adds [`DemoCore`] (course, character, locomotion, IK switches, metrics,
//! autopilot) and, with a window, [`crate::view::DemoView`] (camera, lights, screenshots),
//! [`crate::ui::DemoUi`] and [`crate::labs::LabsPlugin`]. Inputs: [`Args`]. Output: a ready-to-run `App`. Invariants: with `--autopilot`
//! or `--screenshot`, time advances exactly 1/60 s per frame (physics too), so runs are
//! repeatable and independent of how fast the machine renders.

use std::path::Path;
use std::time::Duration;

use bevy::asset::io::AssetSourceBuilder;
use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::render::settings::WgpuSettings;
use bevy::time::TimeUpdateStrategy;
use bevy::transform::TransformSystems;
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::autopilot::{Autopilot, exit_when_measured, record_final_pose, run_autopilot};
use crate::character::{CharacterSource, finish_character, read_rig_map, spawn_character, spawn_scene};
use crate::cli::{Args, RetargetMode};
use crate::clip_setup::{
    clips_labelled, clips_retargeted, label_clips, labelling_failed, retarget_failed, retarget_missing,
};
use crate::course::CourseLayout;
use crate::course_spawn::spawn_course;
use crate::follower::{Follower, FollowerPlugin};
use crate::game::{choose_focus, collect_gems, size_gems, spawn_gems};
use crate::lane_metrics::measure_lane_feet;
use crate::locomotion::drive_blend_spaces;
use crate::marks::CharacterError;
use crate::marks::DemoSystems;
use crate::marks::DriveMode;
use crate::marks::RigStatus;
use crate::marks::Visuals;
use crate::metrics::{IkTimer, ik_timer_end, ik_timer_start, measure_feet};
use crate::orb::{move_orb, spawn_orb};
use crate::platforms::{move_platforms, ride_platforms};
use crate::player::{drive_keys, keyboard_intent, move_characters, slow_on_stairs};
use crate::rigging::{on_rig_failed, on_rigged};
use crate::sidecar::ClipTable;
use crate::toggles::{DemoIk, apply_toggles, apply_warping, decide_reach, toggle_keys};

/// Course, character, locomotion, IK switches, metrics and the autopilot.
pub struct DemoCore {
    /// Run the autopilot.
    pub autopilot: bool,
    /// Walk the route in a loop instead (`--tour`).
    pub tour: bool,
    /// Take keyboard input.
    pub keyboard: bool,
    /// Exit when the autopilot is done.
    pub exit_when_done: bool,
    /// The autopilot's fixed game-time step, s.
    pub step: f32,
    /// `--autopilot --at X,Z[,YAW]`: stand there (x, z, yaw in radians) and measure the feet
    /// instead of walking the route.
    pub stand_at: Option<(Vec2, f32)>,
    /// `--skip-ik-off`: the autopilot starts at its first IK pass.
    pub skip_ik_off: bool,
}

impl Plugin for DemoCore {
    fn build(&self, app: &mut App) {
        app.init_resource::<CourseLayout>()
            .init_resource::<DemoIk>()
            .register_type::<DemoIk>()
            .init_resource::<IkTimer>()
            .init_resource::<RigStatus>()
            .configure_sets(Update, (DemoSystems::Setup, DemoSystems::Intent, DemoSystems::Drive).chain())
            .add_systems(Startup, (spawn_course, spawn_orb, spawn_gems, spawn_character).chain())
            .add_systems(PreUpdate, crate::registry::report_unregistered)
            .add_systems(
                Update,
                (spawn_scene, label_clips, retarget_missing, finish_character).chain().in_set(DemoSystems::Setup),
            )
            .add_observer(on_rigged)
            .add_observer(on_rig_failed)
            .add_observer(clips_labelled)
            .add_observer(labelling_failed)
            .add_observer(clips_retargeted)
            .add_observer(retarget_failed)
            .add_systems(
                Update,
                (
                    move_platforms,
                    slow_on_stairs,
                    move_characters,
                    ride_platforms,
                    drive_blend_spaces,
                    move_orb,
                    apply_toggles,
                    apply_warping,
                    collect_gems,
                    size_gems,
                )
                    .chain()
                    .in_set(DemoSystems::Drive),
            )
            .add_systems(
                PostUpdate,
                (
                    ik_timer_start
                        .after(PhysicsSet::Writeback)
                        .after(bevy::app::AnimationSystems)
                        .before(IkSystems::Prepare),
                    ik_timer_end.after(IkSystems::Chains).before(TransformSystems::Propagate),
                    measure_feet.after(TransformSystems::Propagate),
                    measure_lane_feet.after(TransformSystems::Propagate),
                    (choose_focus, decide_reach).chain().after(PhysicsSet::Writeback).before(IkSystems::Prepare),
                ),
            );
        if self.keyboard {
            app.init_resource::<DriveMode>()
                .add_systems(Update, (drive_keys, keyboard_intent).chain().in_set(DemoSystems::Intent))
                .add_systems(Update, toggle_keys.in_set(DemoSystems::Intent));
        }
        if self.autopilot || self.tour {
            let mut pilot = if self.autopilot { Autopilot::new(self.exit_when_done) } else { Autopilot::tour() };
            pilot.step = self.step;
            pilot.stand_at = self.stand_at;
            pilot.pass = usize::from(self.skip_ik_off && self.autopilot);
            app.insert_resource(pilot)
                .add_systems(Startup, hold_clock)
                .add_systems(Update, release_clock.in_set(DemoSystems::Setup).after(finish_character))
                .add_systems(Update, run_autopilot.in_set(DemoSystems::Intent).after(keyboard_intent))
                .add_systems(Last, exit_when_measured)
                .add_systems(
                    PostUpdate,
                    record_final_pose.after(TransformSystems::Propagate).after(measure_feet).after(measure_lane_feet),
                );
        }
    }
}

/// Autopilot: the game clock stands still until the character is ready, so however many frames
/// its loading takes, the run from there is the same (same figures every run).
fn hold_clock(mut time: ResMut<Time<Virtual>>) {
    time.pause();
}

/// Autopilot: starts the game clock once the character is ready (or failed to load).
fn release_clock(
    mut time: ResMut<Time<Virtual>>,
    avatars: Query<(), (With<crate::marks::Avatar>, With<crate::locomotion::Locomotion>)>,
    failure: Option<Res<CharacterError>>,
) {
    if time.is_paused() && (!avatars.is_empty() || failure.is_some()) {
        time.unpause();
    }
}

/// Refuses a `--character` that is not glTF before Bevy's loader does with a JSON parse error,
/// showing what the file starts with (an FBX's "Kaydara FBX Binary", a saved web page's
/// "<!DOCTYPE html>", a Git LFS pointer's "version https://git-lfs…").
fn check_gltf_start(path: &Path) -> Result<(), String> {
    use std::io::Read;
    let mut head = [0u8; 40];
    let read = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| format!("--character: {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&head[..read]);
    let start = text.trim_start();
    if head.starts_with(b"glTF") || start.starts_with('{') {
        return Ok(());
    }
    let shown: String = start.chars().take_while(|c| !c.is_control() && *c != char::REPLACEMENT_CHARACTER).collect();
    Err(format!(
        "--character: {} is not a glTF file: it starts with \"{}\" where a .glb starts with \"glTF\" and a .gltf with \"{{\"; convert it to glTF 2.0 first (Blender: import it, then File > Export > glTF 2.0)",
        path.display(),
        shown.trim_end()
    ))
}

/// Where the character comes from, from the flags: the file, its sidecar when it has one (its
/// clips are labelled at run time otherwise), the rig map and, for a `--character` that may
/// lack a walk, the mannequin's sidecar (see [`crate::clip_setup`]).
fn character_source(args: &Args) -> Result<CharacterSource, String> {
    let start = args.at.map_or((Vec2::new(0.0, -2.0), 0.0), |(x, z, yaw)| (Vec2::new(x, z), yaw.to_radians()));
    let rig_map = match &args.rig_map {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            Some(read_rig_map(&text).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let mannequin_sidecar = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.ik.json");
    let (asset_path, sidecar_path, custom, name) = match &args.character {
        Some(path) => {
            if !path.is_file() {
                return Err(format!("--character: {} is not a file", path.display()));
            }
            check_gltf_start(path)?;
            let name = path.file_name().and_then(|n| n.to_str()).ok_or("--character needs a file name")?;
            (format!("user://{name}"), path.with_extension("ik.json"), true, name.to_string())
        }
        None => ("mannequin.glb".to_string(), mannequin_sidecar.clone(), false, "mannequin".to_string()),
    };
    let read = |path: &Path| -> Result<ClipTable, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        ClipTable::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let (sidecar, labels_from) = if custom && !sidecar_path.is_file() {
        (None, "labelled from the clips (no sidecar)".to_string())
    } else {
        let file = sidecar_path.file_name().and_then(|n| n.to_str()).unwrap_or("the sidecar");
        (Some(read(&sidecar_path)?), format!("from {file}"))
    };
    let retarget_from = match args.retarget {
        RetargetMode::Auto if custom => Some(read(&mannequin_sidecar)?),
        _ => None,
    };
    let user_dir = match &args.character {
        Some(path) => {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            Some(dir.canonicalize().map_err(|e| format!("{}: {e}", dir.display()))?)
        }
        None => None,
    };
    Ok(CharacterSource {
        asset_path,
        sidecar,
        labels_from,
        rig_map,
        clips: args.clips.clone(),
        custom,
        name,
        user_dir,
        retarget_from,
        retargeted: Vec::new(),
        start,
        keep_scale: args.keep_scale,
    })
}

/// The app for these flags.
pub fn build_app(args: &Args) -> Result<App, String> {
    let source = character_source(args)?;
    let mut app = App::new();
    if let Some(dir) = &source.user_dir {
        app.register_asset_source("user", AssetSourceBuilder::platform_default(&dir.to_string_lossy(), None));
    }
    let assets = AssetPlugin { file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").to_string(), ..default() };
    if args.headless {
        app.add_plugins(
            DefaultPlugins
                .set(assets)
                .set(WindowPlugin { primary_window: None, exit_condition: ExitCondition::DontExit, ..default() })
                .set(RenderPlugin { render_creation: WgpuSettings { backends: None, ..default() }.into(), ..default() })
                .disable::<WinitPlugin>(),
        );
    } else {
        app.add_plugins(DefaultPlugins.set(assets).set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_ik demo".into(),
                resolution: (1280u32, 720u32).into(),
                ..default()
            }),
            ..default()
        }));
    }
    let start = source.start;
    app.add_plugins((RapierPhysicsPlugin::<NoUserData>::default(), IkPlugin::default()))
        .insert_resource(Visuals(!args.headless))
        .insert_resource(source);
    if args.autopilot || args.screenshot.is_some() {
        // Physics steps at most 1/60 s: a longer frame is split into equal substeps.
        let substeps = (args.step * 60.0).ceil().max(1.0) as usize;
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(args.step)))
            .insert_resource(TimestepMode::Fixed { dt: args.step, substeps });
    }
    app.add_plugins(DemoCore {
        autopilot: args.autopilot,
        tour: args.tour && !args.autopilot,
        keyboard: !args.headless && !args.autopilot,
        exit_when_done: args.screenshot.is_none(),
        step: args.step,
        stand_at: args.at.map(|(x, z, yaw)| (Vec2::new(x, z), yaw.to_radians())),
        skip_ik_off: args.skip_ik_off,
    });
    app.world_mut().resource_mut::<DemoIk>().clip_drives = args.clip_drives;
    // The windowed demo can pick a follower in its panel; a headless run has one only when asked.
    if args.creature.is_some() || !args.headless {
        let follower = Follower { kind: args.creature, speed: args.creature_speed };
        app.add_plugins(FollowerPlugin { follower, start, headless: args.headless });
    }
    if !args.headless {
        app.add_plugins((
            crate::view::DemoView { args: args.clone() },
            crate::ui::DemoUi { args: args.clone() },
            crate::labs::LabsPlugin { start: args.view, orbit: args.orbit },
        ));
    }
    Ok(app)
}

#[cfg(test)]
mod tests {
    use super::check_gltf_start;

    #[test]
    fn a_character_that_is_not_gltf_is_refused_showing_how_it_starts() {
        let dir = std::env::temp_dir().join(format!("bevy_ik_gltf_start_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let refusal = |name: &str, bytes: &[u8]| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            check_gltf_start(&path).err()
        };
        let fbx = refusal("walk.fbx", b"Kaydara FBX Binary  \0\x1a\0\xe8\x1c\0\0").unwrap();
        assert!(fbx.contains("starts with \"Kaydara FBX Binary\" where a .glb"), "{fbx}");
        let page = refusal("saved.glb", b"\n<!DOCTYPE html>\n<html lang=\"en\">").unwrap();
        assert!(page.contains("starts with \"<!DOCTYPE html>\""), "{page}");
        assert_eq!(refusal("ok.glb", b"glTF\x02\0\0\0"), None);
        assert_eq!(refusal("ok.gltf", b"  {\"asset\":{}}"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
