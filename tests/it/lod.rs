//! IK level of detail and the frame budget (issue 44), on procedurally walking bipeds with the
//! default stack (foot placement, foot lock, footstep prediction, a 4-joint look-at at a target
//! off to the side) on a 5° rapier slope: level changes blend (no joint's IK correction jumps
//! more than 5° in a frame; without the blend it would), reduced levels keep planted feet
//! within 2 cm of the slope and of a 10 cm step on it (`Minimal`, one ray per foot, not of the
//! step), distance chooses levels with hysteresis, and a frame budget
//! slows the farthest characters while the nearest are solved every frame.

use std::f32::consts::{PI, TAU};

use bevy::prelude::*;
use bevy_ik::prelude::*;
use bevy_rapier3d::prelude::*;

use crate::common::{DT, headless_app};

/// Pelvis height of the walk (the legs bent a little), m.
const PELVIS_Y: f32 = 0.91;
const ANKLE_HEIGHT: f32 = 0.08;
/// Stride (the stance foot travels this far back), gait cycle (s), stance share.
const STRIDE: f32 = 0.4;
const CYCLE: f32 = 1.0;
const STANCE: f32 = 0.6;
/// The root's speed: the stance foot stays put in the world.
const SPEED: f32 = STRIDE / (STANCE * CYCLE);
const SLOPE: f32 = 5.0 * PI / 180.0;
/// Thigh and shin offsets (rest rotations are identity; knees ahead).
const THIGH: Vec3 = Vec3::new(0.0, -0.415, 0.06);
const SHIN: Vec3 = Vec3::new(0.0, -0.42, -0.06);
const HIP_Y: f32 = -0.045;

fn ground_y(z: f32) -> f32 {
    z * SLOPE.tan()
}

/// One bone the walk drives, with the local rotation it wrote this frame.
#[derive(Component, Clone, Copy)]
struct Walked {
    role: Role,
    phase: f32,
    animated: Quat,
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Hip(f32),
    Knee(f32),
    Ankle(f32),
    Still,
}

/// A walker's bones.
struct Walker {
    root: Entity,
    ankles: [Entity; 2],
    balls: [Entity; 2],
    bones: Vec<Entity>,
}

/// Angle of a vector in the YZ plane from straight down, toward +Z.
fn down_angle(v: Vec3) -> f32 {
    v.z.atan2(-v.y)
}

/// Hip and knee turns (about X) putting the ankle at `d` from the hip (YZ plane).
fn leg_turns(d: Vec3) -> (f32, f32) {
    let (l1, l2) = (THIGH.length(), SHIN.length());
    let reach = d.length().clamp(0.05, (l1 + l2) * 0.999);
    let interior = ((l1 * l1 + l2 * l2 - reach * reach) / (2.0 * l1 * l2)).clamp(-1.0, 1.0).acos();
    let knee = down_angle(SHIN) - down_angle(THIGH) + PI - interior;
    let d0 = THIGH + Quat::from_rotation_x(knee) * SHIN;
    (down_angle(d0) - down_angle(d), knee)
}

/// Where the walk puts an ankle (character space, relative to its hip) at `phase` (0..1).
fn ankle_path(phase: f32) -> Vec3 {
    let (z, lift) = if phase < STANCE {
        (STRIDE * (0.5 - phase / STANCE), 0.0)
    } else {
        // Eased in and out: the foot leaves and meets the ground with no vertical speed.
        let u = (phase - STANCE) / (1.0 - STANCE);
        (STRIDE * (u * u * (3.0 - 2.0 * u) - 0.5), 0.04 * (1.0 - (TAU * u).cos()))
    };
    Vec3::new(0.0, ANKLE_HEIGHT + lift - (PELVIS_Y + HIP_Y), z)
}

/// Rewrites every walked bone (as an animation player would) and moves the roots up the slope.
fn walk(
    time: Res<Time>,
    mut bones: Query<(&mut Walked, &mut Transform)>,
    mut roots: Query<&mut Transform, (With<FootPlacer>, Without<Walked>)>,
) {
    let t = time.elapsed_secs();
    for (mut walked, mut transform) in &mut bones {
        let phase = (t / CYCLE + walked.phase).rem_euclid(1.0);
        let (hip, knee) = leg_turns(ankle_path(phase));
        walked.animated = match walked.role {
            Role::Hip(_) => Quat::from_rotation_x(hip),
            Role::Knee(_) => Quat::from_rotation_x(knee),
            Role::Ankle(_) => Quat::from_rotation_x(-(hip + knee)),
            Role::Still => Quat::from_rotation_y(0.05 * (TAU * phase).sin()),
        };
        transform.rotation = walked.animated;
    }
    for mut root in &mut roots {
        root.translation.z += SPEED * DT;
        root.translation.y = ground_y(root.translation.z);
    }
}

/// Spawns a walker with the default stack at `(x, z)` on the slope.
fn spawn_walker(world: &mut World, x: f32, z: f32, phase: f32) -> Walker {
    let root = world.spawn(Transform::from_xyz(x, ground_y(z), z)).id();
    let pelvis = world.spawn((Transform::from_xyz(0.0, PELVIS_Y, 0.0), ChildOf(root))).id();
    let mut bones = vec![pelvis];
    let mut legs = Vec::new();
    for (side, offset) in [(1.0f32, 0.0), (-1.0, 0.5)] {
        let walked = |role| Walked { role, phase: phase + offset, animated: Quat::IDENTITY };
        let hip =
            world.spawn((Transform::from_xyz(0.09 * side, HIP_Y, 0.0), ChildOf(pelvis), walked(Role::Hip(side)))).id();
        let knee = world.spawn((Transform::from_translation(THIGH), ChildOf(hip), walked(Role::Knee(side)))).id();
        let ankle = world.spawn((Transform::from_translation(SHIN), ChildOf(knee), walked(Role::Ankle(side)))).id();
        let ball = world.spawn((Transform::from_xyz(0.0, -ANKLE_HEIGHT, 0.13), ChildOf(ankle))).id();
        let rest = LegRest {
            ankle_height: ANKLE_HEIGHT,
            toe_height: 0.0,
            foot_up: Vec3::Y,
            toe_up: Vec3::Y,
            heel: Some(Vec3::new(0.0, -ANKLE_HEIGHT, -0.05)),
            toe_tip: Some(Vec3::new(0.0, 0.0, 0.06)),
        };
        legs.push(LegBones { rest: Some(rest), ..LegBones::new(hip, knee, ankle, Some(ball)) });
        bones.extend([hip, knee, ankle, ball]);
    }
    let mut spine = [Entity::PLACEHOLDER; 4];
    let mut parent = pelvis;
    for (i, height) in [0.1, 0.15, 0.2, 0.1].into_iter().enumerate() {
        let still = Walked { role: Role::Still, phase: phase + 0.1 * i as f32, animated: Quat::IDENTITY };
        parent = world.spawn((Transform::from_xyz(0.0, height, 0.0), ChildOf(parent), still)).id();
        spine[i] = parent;
    }
    bones.extend(spine);
    // Something 60° to the right, ahead: the look-at turns the spine well away from the clip.
    let target = IkTarget::Position(Vec3::new(x - 3.5, 1.6, z + 2.0));
    world.entity_mut(root).insert((
        FootPlacer::new(pelvis, legs.clone()),
        FootLock::default(),
        FootstepPrediction::default(),
        LookAtSpread { eye_offset: Vec3::new(0.0, 0.05, 0.1), ..LookAtSpread::spine_chest_neck_head(spine, target) },
    ));
    Walker { root, ankles: [legs[0].ankle, legs[1].ankle], balls: [legs[0].toe.unwrap(), legs[1].toe.unwrap()], bones }
}

/// An app on a 5° rapier slope (rising toward +Z) with the walk.
fn slope_app() -> App {
    let mut app = headless_app();
    app.add_plugins((IkLodPlugin, RapierPhysicsPlugin::<NoUserData>::default()));
    app.insert_resource(IkGround::Rapier);
    let tilt = Quat::from_rotation_x(-SLOPE);
    let half = Vec3::new(200.0, 0.5, 200.0);
    app.world_mut().spawn((
        Collider::cuboid(half.x, half.y, half.z),
        Transform::from_translation(tilt * -Vec3::Y * half.y).with_rotation(tilt),
    ));
    app.add_systems(Update, walk);
    app
}

/// Each bone's IK correction now: the turn from what the walk wrote to what IK left.
fn corrections(app: &App, walker: &Walker) -> Vec<(Quat, Vec3)> {
    walker
        .bones
        .iter()
        .map(|&bone| {
            let transform = app.world().get::<Transform>(bone).unwrap();
            let animated = app.world().get::<Walked>(bone).map_or(transform.rotation, |w| w.animated);
            (animated.inverse() * transform.rotation, transform.translation)
        })
        .collect()
}

/// The step of [`step_app`]: how high, and from and to where along the slope (m).
const STEP: f32 = 0.1;
const STEP_SPAN: std::ops::Range<f32> = 1.0..2.0;

/// Lowest point of a foot (sole under the ankle, heel, ball, toe tip) above the ground under
/// it (the slope, or the step's top over the step), m; negative: inside the ground.
fn foot_float(app: &App, ankle: Entity, ball: Entity) -> f32 {
    let to_slope = Quat::from_rotation_x(SLOPE);
    let (a, b) =
        (app.world().get::<GlobalTransform>(ankle).unwrap(), app.world().get::<GlobalTransform>(ball).unwrap());
    let step = app.world().contains_resource::<StepScene>();
    [
        a.transform_point(Vec3::new(0.0, -ANKLE_HEIGHT, 0.0)),
        a.transform_point(Vec3::new(0.0, -ANKLE_HEIGHT, -0.05)),
        b.translation(),
        b.transform_point(Vec3::new(0.0, 0.0, 0.06)),
    ]
    .iter()
    .map(|p| {
        let on_slope = to_slope * *p;
        on_slope.y - if step && STEP_SPAN.contains(&on_slope.z) { STEP } else { 0.0 }
    })
    .fold(f32::INFINITY, f32::min)
}

/// Marks an app with the step.
#[derive(Resource)]
struct StepScene;

/// [`slope_app`] with a 10 cm step on the slope, 1 m long, 1 to 2 m up it (the root keeps to the
/// slope: the feet step up onto it and down off it).
fn step_app() -> App {
    let mut app = slope_app();
    let tilt = Quat::from_rotation_x(-SLOPE);
    let centre = tilt * Vec3::new(0.0, STEP / 2.0, (STEP_SPAN.start + STEP_SPAN.end) / 2.0);
    let half = Vec3::new(1.0, STEP / 2.0, (STEP_SPAN.end - STEP_SPAN.start) / 2.0);
    app.world_mut()
        .spawn((Collider::cuboid(half.x, half.y, half.z), Transform::from_translation(centre).with_rotation(tilt)));
    app.insert_resource(StepScene);
    app
}

/// Whether the walk plants this ankle's foot now (its stance, less 3 frames at each end).
fn clip_planted(app: &App, ankle: Entity) -> bool {
    let t = app.world().resource::<Time>().elapsed_secs();
    let phase = (t / CYCLE + app.world().get::<Walked>(ankle).unwrap().phase).rem_euclid(1.0);
    (0.05..STANCE - 0.05).contains(&phase)
}

/// Runs a walker through `levels` (each held `frames`), returning the largest per-frame change
/// of any bone's IK correction (degrees) and of the pelvis translation (m) on the frames after
/// each change of level (while it blends: 30 frames, 0.5 s), and over the whole run.
fn level_changes(levels: &[IkLevel], frames: usize, blend_time: f32) -> ((f32, f32), (f32, f32)) {
    let mut app = slope_app();
    app.insert_resource(IkLodSettings { blend_time, ..Default::default() });
    let walker = spawn_walker(app.world_mut(), 0.0, 0.0, 0.0);
    app.world_mut().entity_mut(walker.root).insert(IkLod::Fixed(levels[0]));
    for _ in 0..60 {
        app.update();
    }
    let mut last = corrections(&app, &walker);
    let (mut after_change, mut overall) = ((0.0f32, 0.0f32), (0.0f32, 0.0f32));
    for &level in levels {
        app.world_mut().entity_mut(walker.root).insert(IkLod::Fixed(level));
        for frame in 0..frames {
            app.update();
            let now = corrections(&app, &walker);
            let turn = now.iter().zip(&last).map(|(a, b)| a.0.angle_between(b.0).to_degrees()).fold(0.0, f32::max);
            let shift = now[0].1.distance(last[0].1);
            overall = (overall.0.max(turn), overall.1.max(shift));
            if frame < 30 {
                after_change = (after_change.0.max(turn), after_change.1.max(shift));
            }
            last = now;
        }
        let state = app.world().get::<IkLodState>(walker.root).unwrap();
        assert_eq!(state.level, level);
        assert_eq!(app.world().get::<FootPlacerState>(walker.root).unwrap().warnings, 0);
    }
    (after_change, overall)
}

#[test]
fn level_changes_blend_with_no_joint_jumping_more_than_5_degrees_in_a_frame() {
    use IkLevel::*;
    let levels = [Full, Reduced, Minimal, Off, Minimal, Reduced, Full, Off, Full, Minimal, Full];
    let ((turn, shift), (turn_all, shift_all)) = level_changes(&levels, 45, IkLodSettings::default().blend_time);
    println!(
        "level changes (blend {} s): largest IK correction change in a frame after a change {turn:.2}° (pelvis \
         {:.2} cm); over the whole walk {turn_all:.2}° ({:.2} cm)",
        IkLodSettings::default().blend_time,
        shift * 100.0,
        shift_all * 100.0
    );
    let ((base, base_shift), (base_all, _)) = level_changes(&[Full; 11], 45, 0.5);
    println!(
        "the same walk at Full throughout: {base:.2}° ({:.2} cm) on the same frames, {base_all:.2}° over the whole walk",
        base_shift * 100.0
    );
    let ((snap, snap_shift), _) = level_changes(&levels, 45, 0.0);
    println!("the same level changes without a blend: {snap:.2}° ({:.2} cm)", snap_shift * 100.0);
    assert!(turn <= 5.0, "a joint jumped {turn:.2}° on a level change");
    assert!(shift <= 0.02, "the pelvis jumped {:.2} cm on a level change", shift * 100.0);
    // The measure sees a pop when there is one.
    assert!(snap > 5.0, "without a blend the largest jump is only {snap:.2}°");
}

/// A walker at `level` over 4 s (the last 3 s measured) in `app`: the worst float and sink of a
/// foot the walk plants, and how many planted foot-frames.
fn planted_feet(mut app: App, level: IkLevel) -> (f32, f32, usize) {
    let walker = spawn_walker(app.world_mut(), 0.0, 0.0, 0.0);
    app.world_mut().entity_mut(walker.root).insert(IkLod::Fixed(level));
    for _ in 0..60 {
        app.update();
    }
    let (mut worst_float, mut worst_sink, mut planted) = (0.0f32, 0.0f32, 0);
    for _ in 0..180 {
        app.update();
        for side in (0..2).filter(|&side| clip_planted(&app, walker.ankles[side])) {
            let float = foot_float(&app, walker.ankles[side], walker.balls[side]);
            worst_float = worst_float.max(float);
            worst_sink = worst_sink.max(-float);
            planted += 1;
        }
    }
    assert_eq!(app.world().get::<FootPlacerState>(walker.root).unwrap().warnings, 0);
    (worst_float, worst_sink, planted)
}

#[test]
fn reduced_levels_keep_planted_feet_within_2_cm_of_the_ground_minimal_only_off_steps() {
    for level in [IkLevel::Full, IkLevel::Reduced, IkLevel::Minimal] {
        for (scene, app) in [("5° slope", slope_app as fn() -> App), ("10 cm step on it", step_app)] {
            let (float, sink, planted) = planted_feet(app(), level);
            println!(
                "{level:?}, {scene}: planted feet float at most {:.2} cm, sink at most {:.2} cm ({planted} planted \
                 foot-frames)",
                float * 100.0,
                sink * 100.0
            );
            assert!(planted >= 150, "{level:?}: only {planted} planted foot-frames");
            if level == IkLevel::Minimal && scene.contains("step") {
                // One ray under the ankle cannot see a step under the toes: the known limit of
                // `Minimal` (the toes of a foot whose ankle is before the riser end in the step).
                assert!(float <= 0.02 && sink <= STEP + 0.001, "{level:?}, {scene}: float {float} m, sink {sink} m");
            } else {
                assert!(float <= 0.02 && sink <= 0.02, "{level:?}, {scene}: float {float} m, sink {sink} m");
            }
        }
    }
}

#[test]
fn distance_to_the_viewer_chooses_levels_with_hysteresis() {
    let mut app = slope_app();
    let walkers: Vec<Walker> =
        [5.0, 20.0, 60.0, 200.0].iter().map(|&x| spawn_walker(app.world_mut(), x, 0.0, 0.0)).collect();
    for w in &walkers {
        app.world_mut().entity_mut(w.root).insert(IkLod::ByDistance);
    }
    let viewer = app.world_mut().spawn((Transform::from_xyz(0.0, 1.6, 0.0), IkLodViewer)).id();
    let level_of = |app: &App, w: &Walker| app.world().get::<IkLodState>(w.root).unwrap().level;
    for _ in 0..3 {
        app.update();
    }
    let levels: Vec<IkLevel> = walkers.iter().map(|w| level_of(&app, w)).collect();
    assert_eq!(levels, [IkLevel::Full, IkLevel::Reduced, IkLevel::Minimal, IkLevel::Off]);
    // The viewer moves 4 m toward the second: 16 m away, past 15 m but within the 2 m margin.
    app.world_mut().get_mut::<Transform>(viewer).unwrap().translation.x = 4.0;
    app.update();
    app.update();
    assert_eq!(level_of(&app, &walkers[1]), IkLevel::Reduced, "within the hysteresis");
    app.world_mut().get_mut::<Transform>(viewer).unwrap().translation.x = 8.0;
    app.update();
    app.update();
    assert_eq!(level_of(&app, &walkers[1]), IkLevel::Full, "12 m: back to full");
    for _ in 0..30 {
        app.update();
    }
    // The character at `Off` faded out: its pose is the walk's.
    let far = &walkers[3];
    let unchanged = far.bones.iter().all(|&bone| {
        let transform = app.world().get::<Transform>(bone).unwrap();
        app.world().get::<Walked>(bone).is_none_or(|w| transform.rotation == w.animated)
    });
    let pelvis = app.world().get::<Transform>(far.bones[0]).unwrap().translation;
    assert!(unchanged && pelvis == Vec3::Y * PELVIS_Y, "an Off character keeps its animated pose");
}

/// Walkers on a line 3 m apart from the viewer, `budget` µs, after `shift` empty entities (the
/// budget staggers update frames by entity index: each shift is another stagger phase); returns
/// the report after 100 frames, each walker's rate and the worst planted foot's distance from
/// the ground over the last 40.
fn run_budget(budget: f32, shift: usize) -> (IkBudgetReport, Vec<u8>, f32) {
    let mut app = slope_app();
    for _ in 0..shift {
        app.world_mut().spawn_empty();
    }
    let walkers: Vec<Walker> =
        (0..12).map(|i| spawn_walker(app.world_mut(), 3.0 * i as f32, 0.0, 0.1 * i as f32)).collect();
    for w in &walkers {
        app.world_mut().entity_mut(w.root).insert(IkLod::Fixed(IkLevel::Full));
    }
    app.world_mut().spawn((Transform::from_xyz(0.0, 1.6, 0.0), IkLodViewer));
    app.insert_resource(IkBudget { micros: budget, always_within: 7.0 });
    let mut worst = 0.0f32;
    for frame in 0..100 {
        app.update();
        // Skipped frames keep the IK: feet the walk plants stay on the ground (the placer's
        // own report is as old as the last solve, so the walk's phase says which are planted).
        for w in walkers.iter().filter(|_| frame >= 60) {
            for side in (0..2).filter(|&side| clip_planted(&app, w.ankles[side])) {
                worst = worst.max(foot_float(&app, w.ankles[side], w.balls[side]).abs());
            }
        }
    }
    let rates = walkers.iter().map(|w| app.world().get::<IkLodState>(w.root).unwrap().rate).collect();
    (app.world().resource::<IkBudgetReport>().clone(), rates, worst)
}

#[test]
fn past_the_budget_the_farthest_update_every_4th_frame_and_the_nearest_every_frame() {
    let (report, rates, _) = run_budget(1.0, 0);
    // Every stagger phase: a skipped frame keeps the IK, and a solve after skipped frames steps
    // its springs by the time since the last (3.10 cm at the worst phase when it stepped one frame).
    let worst = (0..4).map(|shift| run_budget(1.0, shift).2).fold(0.0, f32::max);
    println!(
        "1 µs budget: rates {rates:?}, at rate 1/2/4: {:?}, last IK window {:.0} µs, {:.1} µs per solve; planted \
         feet within {:.2} cm of the ground at every stagger phase",
        report.at_rate,
        report.last_micros,
        report.micros_per_solve,
        worst * 100.0
    );
    // Within 7 m: the first three (0, 3 and 6 m).
    assert_eq!(rates, [1, 1, 1, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
    assert_eq!(report.at_rate, [3, 0, 9]);
    assert!(report.last_micros > 0.0 && report.micros_per_solve > 0.0);
    assert!(worst <= 0.02, "a planted foot {:.2} cm off the ground", worst * 100.0);
    let (report, rates, _) = run_budget(0.0, 0);
    assert_eq!(report.at_rate, [12, 0, 0], "no budget: every frame");
    assert!(rates.iter().all(|&r| r == 1));
}
