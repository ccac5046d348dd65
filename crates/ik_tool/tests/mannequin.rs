//! Issue 5, part 1: the committed mannequin asset, read back from the file.
//!
//! Bars: the asset regenerates byte for byte; the `.glb` passes the `gltf` crate's validation
//! and names every rig bone; skin weights are valid; the Walk and Jog clips, read back from the
//! file and played through forward kinematics, keep the planted ball within 5 mm of the floor,
//! move it backward at the nominal speed within 2 %, loop seamlessly, and are phase-aligned.

use std::path::PathBuf;

use glam::{Quat, Vec3};
use ik_core::{Skeleton, Xform};
use ik_tool::mannequin::{self, skeleton::BONE_NAMES};

fn asset(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(name)
}

fn committed_glb() -> Vec<u8> {
    std::fs::read(asset("mannequin.glb")).expect("assets/mannequin.glb is committed (run `ik_tool mannequin`)")
}

fn load() -> gltf::Gltf {
    gltf::Gltf::from_slice(&committed_glb()).expect("the .glb parses and validates")
}

/// The skeleton stored in the file: bones are the skin's joints, in skin order.
fn file_skeleton(doc: &gltf::Gltf) -> (Skeleton, Vec<usize>) {
    let skin = doc.skins().next().expect("one skin");
    let joints: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    let mut parent_of = vec![None; doc.nodes().len()];
    for node in doc.nodes() {
        for child in node.children() {
            parent_of[child.index()] = Some(node.index());
        }
    }
    let mut parents = Vec::new();
    let mut names = Vec::new();
    let mut rest = Vec::new();
    for &node_index in &joints {
        let node = doc.nodes().nth(node_index).unwrap();
        parents.push(parent_of[node_index].and_then(|p| joints.iter().position(|&j| j == p)));
        names.push(node.name().unwrap_or("").to_string());
        let (t, r, s) = node.transform().decomposed();
        rest.push(Xform { translation: Vec3::from(t), rotation: Quat::from_array(r), scale: Vec3::from(s) });
    }
    (Skeleton::new(parents, names, rest).expect("joints come parents first"), joints)
}

/// One clip read back: key times, per-key locals, and the extras metadata.
struct FileClip {
    times: Vec<f32>,
    poses: Vec<Vec<Xform>>,
    meta: serde_json::Value,
}

fn read_clip(doc: &gltf::Gltf, skeleton: &Skeleton, joints: &[usize], name: &str) -> FileClip {
    let blob = doc.blob.as_deref();
    let animation = doc.animations().find(|a| a.name() == Some(name)).unwrap_or_else(|| panic!("clip {name}"));
    let meta: serde_json::Value = serde_json::from_str(animation.extras().as_ref().expect("extras").get()).unwrap();
    let mut times = Vec::new();
    let mut poses: Vec<Vec<Xform>> = Vec::new();
    for channel in animation.channels() {
        assert_eq!(channel.sampler().interpolation(), gltf::animation::Interpolation::Linear);
        let reader = channel.reader(|_| blob);
        let inputs: Vec<f32> = reader.read_inputs().unwrap().collect();
        if poses.is_empty() {
            poses = vec![skeleton.rest().to_vec(); inputs.len()];
            times = inputs.clone();
        }
        assert_eq!(inputs, times, "every channel of {name} shares the key times");
        let bone = joints.iter().position(|&j| j == channel.target().node().index()).expect("animated node is a bone");
        match reader.read_outputs().unwrap() {
            gltf::animation::util::ReadOutputs::Translations(values) => {
                for (pose, t) in poses.iter_mut().zip(values) {
                    pose[bone].translation = Vec3::from(t);
                }
            }
            gltf::animation::util::ReadOutputs::Rotations(values) => {
                for (pose, r) in poses.iter_mut().zip(values.into_f32()) {
                    pose[bone].rotation = Quat::from_array(r);
                }
            }
            _ => panic!("only translation and rotation channels"),
        }
    }
    FileClip { times, poses, meta }
}

#[test]
fn regenerating_the_mannequin_gives_the_committed_bytes() {
    let generated = mannequin::generate().unwrap();
    let committed = committed_glb();
    let first_difference = generated.glb.iter().zip(&committed).position(|(a, b)| a != b);
    assert!(
        generated.glb == committed,
        "assets/mannequin.glb is stale: {} bytes generated vs {} committed, first difference at {:?}",
        generated.glb.len(),
        committed.len(),
        first_difference
    );
    let sidecar = std::fs::read_to_string(asset("mannequin.ik.json")).unwrap();
    assert!(generated.sidecar == sidecar, "assets/mannequin.ik.json is stale");
    assert!(mannequin::generate().unwrap().glb == generated.glb, "two runs give the same bytes");
}

#[test]
fn glb_validates_and_names_every_rig_bone() {
    let doc = load();
    let (skeleton, _) = file_skeleton(&doc);
    for name in BONE_NAMES {
        assert!(skeleton.find(name).is_some(), "bone {name} missing");
    }
    assert_eq!(skeleton.len(), 23);
    assert_eq!(skeleton.parents().iter().filter(|p| p.is_none()).count(), 1, "root is the only top joint");
    let clips: Vec<&str> = doc.animations().filter_map(|a| a.name()).collect();
    assert_eq!(clips, ["Idle", "Walk", "Jog"]);
    assert_eq!(doc.materials().count(), 2);
    assert!(doc.extensions_used().next().is_none(), "core glTF only");
    let vertices: usize =
        doc.meshes().flat_map(|m| m.primitives()).map(|p| p.get(&gltf::Semantic::Positions).unwrap().count()).sum();
    assert!((2_000..=20_000).contains(&vertices), "{vertices} vertices");
}

#[test]
fn skin_weights_sum_to_one_with_at_most_four_influences() {
    let doc = load();
    let blob = doc.blob.as_deref();
    let joint_count = doc.skins().next().unwrap().joints().count();
    let (mut worst_sum, mut vertices) = (0.0f32, 0);
    for primitive in doc.meshes().flat_map(|m| m.primitives()) {
        let reader = primitive.reader(|_| blob);
        let joints: Vec<[u16; 4]> = reader.read_joints(0).expect("JOINTS_0").into_u16().collect();
        let weights: Vec<[f32; 4]> = reader.read_weights(0).expect("WEIGHTS_0").into_f32().collect();
        assert_eq!(joints.len(), weights.len());
        assert!(reader.read_normals().is_some(), "per-vertex normals");
        for (j, w) in joints.iter().zip(&weights) {
            let sum: f32 = w.iter().sum();
            worst_sum = worst_sum.max((sum - 1.0).abs());
            assert!(w.iter().all(|x| x.is_finite() && (0.0..=1.0).contains(x)));
            assert!(w.iter().filter(|x| **x > 0.0).count() <= 4);
            assert!(j.iter().all(|&i| (i as usize) < joint_count), "joint index out of range: {j:?}");
        }
        vertices += joints.len();
    }
    println!("skin: {vertices} vertices, worst |sum - 1| = {worst_sum:e}");
    assert!(worst_sum <= 1e-4, "weights sum to 1 within 1e-4, worst {worst_sum}");
}

#[test]
fn knees_and_elbows_blend_without_a_hard_crease() {
    use ik_tool::mannequin::{mesh, skeleton, skin};
    let rig = skeleton::rig().unwrap();
    let body = mesh::body(&rig);
    let weights = skin::bind(&rig, &body, &skin::BindParams::default());
    let weight = |v: usize, bone: usize| -> f32 {
        (0..4).filter(|&k| weights.joints[v][k] as usize == bone).map(|k| weights.weights[v][k]).sum()
    };
    for joint in ["calf_l", "calf_r", "lowerarm_l", "lowerarm_r"] {
        let child = rig.bone(joint);
        let parent = rig.skeleton.parent(child).unwrap();
        let at = rig.joint(child);
        let mut worst = 0.0f32;
        for t in &body.triangles {
            for k in 0..3 {
                let (a, b) = (t[k] as usize, t[(k + 1) % 3] as usize);
                if body.positions[a].distance(at) < 0.12 && body.positions[b].distance(at) < 0.12 {
                    worst = worst.max((weight(a, child) - weight(b, child)).abs());
                    worst = worst.max((weight(a, parent) - weight(b, parent)).abs());
                }
            }
        }
        println!("{joint}: largest weight step along an edge near the joint = {worst:.3}");
        assert!(worst < 0.3, "{joint}: weight jumps by {worst} across one edge (hard crease)");
    }
}

/// Plays a clip from the file and checks the planted balls; returns (max height error, mean
/// planted speed, worst relative speed error).
fn check_locomotion(name: &str, nominal: f32) -> (f32, f32, f32) {
    let doc = load();
    let (skeleton, joints) = file_skeleton(&doc);
    let clip = read_clip(&doc, &skeleton, &joints, name);
    let n = clip.times.len();
    assert_eq!(clip.meta["nominal_speed"].as_f64().unwrap() as f32, nominal);
    let duration = clip.meta["duration"].as_f64().unwrap() as f32;
    assert_eq!(*clip.times.last().unwrap(), duration, "{name}: the last key closes the loop");
    assert!(clip.times.windows(2).all(|w| ((w[1] - w[0]) - 1.0 / 60.0).abs() < 1e-5), "{name}: keys 1/60 s apart");
    let balls = [skeleton.find("ball_l").unwrap(), skeleton.find("ball_r").unwrap()];
    let rest_model = skeleton.rest_model();
    let mut model = vec![Xform::IDENTITY; skeleton.len()];
    let mut ball_positions = vec![[Vec3::ZERO; 2]; n];
    for (f, pose) in clip.poses.iter().enumerate() {
        skeleton.model_from_local(pose, &mut model).unwrap();
        assert_eq!(model[0], Xform::IDENTITY, "{name}: the root does not travel");
        ball_positions[f] = balls.map(|b| model[b].translation);
    }
    // Seamless loop: the last key repeats the first.
    for (a, b) in clip.poses[0].iter().zip(&clip.poses[n - 1]) {
        assert!(a.translation.distance(b.translation) < 1e-6 && a.rotation.angle_between(b.rotation) < 1e-5);
    }
    let (mut height_error, mut speed_sum, mut speed_count, mut worst_speed) = (0.0f32, 0.0f32, 0, 0.0f32);
    for (foot, key) in ["foot_l", "foot_r"].iter().enumerate() {
        let contacts: Vec<bool> =
            clip.meta["contacts"][key].as_array().unwrap().iter().map(|v| v.as_bool().unwrap()).collect();
        assert_eq!(contacts.len(), n);
        // Phase alignment: the left foot lands at phase 0, the right at 0.5; its ball is
        // planted from then, or once a heel strike has rolled the foot flat (the first key at
        // or after that phase is the first planted one).
        let intervals = n - 1;
        let landing = (0..intervals).find(|&f| contacts[f] && !contacts[(f + intervals - 1) % intervals]).unwrap();
        let phase = landing as f32 / intervals as f32;
        let spec = mannequin::clips::clip_specs().into_iter().find(|spec| spec.name == name).unwrap();
        let rolling = spec.legs.heel_strike.map_or(0.0, |strike| strike.flat_at * spec.gait.stance_fraction);
        let expected = [0.0, 0.5][foot] + rolling;
        assert!(phase >= expected && phase < expected + 1.0 / intervals as f32, "{name} {key} lands at phase {phase}");
        let rest_height = rest_model[balls[foot]].translation.y;
        for f in 0..n {
            if contacts[f] {
                height_error = height_error.max((ball_positions[f][foot].y - rest_height).abs());
            }
            if f + 1 < n && contacts[f] && contacts[f + 1] {
                let dt = clip.times[f + 1] - clip.times[f];
                let step = ball_positions[f + 1][foot] - ball_positions[f][foot];
                let speed = -step.z / dt;
                assert!(step.x.abs() < 1e-4, "{name} {key}: the planted ball slides sideways");
                speed_sum += speed;
                speed_count += 1;
                worst_speed = worst_speed.max((speed - nominal).abs() / nominal);
            }
        }
    }
    assert!(speed_count > 10, "{name}: planted keys found");
    let mean = speed_sum / speed_count as f32;
    println!(
        "{name}: planted ball height error max {:.4} mm, ground speed mean {mean:.4} m/s (nominal {nominal}), worst key-to-key error {:.3} %",
        height_error * 1000.0,
        worst_speed * 100.0
    );
    assert!(height_error <= 0.005, "{name}: planted ball {height_error} m off the floor");
    assert!(worst_speed <= 0.02, "{name}: planted ball speed off nominal by {} %", worst_speed * 100.0);
    (height_error, mean, worst_speed)
}

#[test]
fn walk_plants_the_ball_on_the_floor_at_1_4_m_per_s() {
    check_locomotion("Walk", 1.4);
}

#[test]
fn jog_plants_the_ball_on_the_floor_at_3_2_m_per_s() {
    check_locomotion("Jog", 3.2);
}

#[test]
fn idle_keeps_both_balls_still_on_the_floor() {
    let doc = load();
    let (skeleton, joints) = file_skeleton(&doc);
    let clip = read_clip(&doc, &skeleton, &joints, "Idle");
    let balls = [skeleton.find("ball_l").unwrap(), skeleton.find("ball_r").unwrap()];
    let mut model = vec![Xform::IDENTITY; skeleton.len()];
    skeleton.model_from_local(&clip.poses[0], &mut model).unwrap();
    let start = balls.map(|b| model[b].translation);
    let mut drift = 0.0f32;
    for pose in &clip.poses {
        skeleton.model_from_local(pose, &mut model).unwrap();
        for (k, &b) in balls.iter().enumerate() {
            drift = drift.max(model[b].translation.distance(start[k]));
        }
        assert!(balls.iter().all(|&b| model[b].translation.y.abs() < 0.005));
    }
    println!("Idle: largest ball drift {:.3} mm", drift * 1000.0);
    assert!(drift < 0.001, "idle balls drift {drift} m");
    let contacts = &clip.meta["contacts"];
    assert!(["foot_l", "foot_r"].iter().all(|k| contacts[k].as_array().unwrap().iter().all(|v| v == true)));
}

#[test]
fn sidecar_matches_the_animation_extras() {
    let doc = load();
    let sidecar: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(asset("mannequin.ik.json")).unwrap()).unwrap();
    for animation in doc.animations() {
        let name = animation.name().unwrap();
        let extras: serde_json::Value = serde_json::from_str(animation.extras().as_ref().unwrap().get()).unwrap();
        assert_eq!(sidecar[name], extras, "{name}");
        assert_eq!(extras["frame_rate"].as_f64(), Some(60.0), "{name}: keys at 60 Hz");
    }
}

#[test]
fn cli_rejects_bad_arguments_with_usage_and_status_2() {
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_ik_tool")).args(["mannequin", "--bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: ik_tool"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ik_tool")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn cli_writes_the_committed_asset() {
    let dir = std::env::temp_dir().join(format!("ik_tool_cli_{}", std::process::id()));
    let out_path = dir.join("m.glb");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ik_tool"))
        .args(["mannequin", "--out", out_path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read(&out_path).unwrap() == committed_glb());
    assert!(
        std::fs::read_to_string(dir.join("m.ik.json")).unwrap()
            == std::fs::read_to_string(asset("mannequin.ik.json")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn skinned_mesh_stays_above_the_floor_in_every_clip() {
    use glam::Mat4;
    use ik_tool::mannequin::{clips, mesh, skeleton, skin};
    let rig = skeleton::rig().unwrap();
    let body = mesh::body(&rig);
    let weights = skin::bind(&rig, &body, &skin::BindParams::default());
    let inverse_binds = skin::inverse_bind_matrices(&rig);
    let pelvis = rig.bone("pelvis");
    let mut locals = rig.skeleton.rest().to_vec();
    let mut model = vec![Xform::IDENTITY; locals.len()];
    for spec in clips::clip_specs() {
        let clip = clips::build_clip(&rig, &spec).unwrap();
        let mut lowest = f32::INFINITY;
        for f in 0..clip.times.len() {
            for (bone, local) in locals.iter_mut().enumerate() {
                local.rotation = clip.rotations[bone][f];
            }
            locals[pelvis].translation = clip.pelvis_translation[f];
            rig.skeleton.model_from_local(&locals, &mut model).unwrap();
            let skinning: Vec<Mat4> = model
                .iter()
                .zip(&inverse_binds)
                .map(|(x, ibm)| Mat4::from_scale_rotation_translation(x.scale, x.rotation, x.translation) * *ibm)
                .collect();
            for (v, p) in body.positions.iter().enumerate() {
                let y: f32 = (0..4)
                    .map(|k| weights.weights[v][k] * skinning[weights.joints[v][k] as usize].transform_point3(*p).y)
                    .sum();
                lowest = lowest.min(y);
            }
        }
        println!("{}: lowest skinned vertex {:.2} mm", clip.name, lowest * 1000.0);
        assert!(lowest > -0.005, "{}: the mesh sinks {} m into the floor", clip.name, -lowest);
    }
}

/// The largest rotation of any bone from one key to the next (60 Hz), degrees, and the bone.
fn largest_key_step(clip: &ik_tool::mannequin::clips::Clip) -> (f32, usize) {
    let mut worst = (0.0f32, 0);
    for (bone, keys) in clip.rotations.iter().enumerate() {
        for pair in keys.windows(2) {
            let step = pair[0].angle_between(pair[1]).to_degrees();
            if step > worst.0 {
                worst = (step, bone);
            }
        }
    }
    worst
}

/// The walk's bar is 6° a key: played 1.43 × as fast with its stride 1.25 × as long (pose
/// warping at 2.5 m/s), a joint then turns at most ~10° a frame (issue 18's bar).
#[test]
fn the_walk_turns_no_joint_more_than_6_degrees_a_key_and_the_idle_10() {
    use ik_tool::mannequin::{clips, skeleton};
    let rig = skeleton::rig().unwrap();
    for spec in clips::clip_specs() {
        let clip = clips::build_clip(&rig, &spec).unwrap();
        let (step, bone) = largest_key_step(&clip);
        let name = &rig.skeleton.names()[bone];
        println!("{}: largest joint step {step:.1}° a key ({name})", clip.name);
        // The jog's knee swings at ~1200°/s, as a runner's does: the bars are on the walk and
        // the idle.
        let bar = match clip.name.as_str() {
            "Walk" => 6.0,
            "Idle" => 10.0,
            _ => continue,
        };
        assert!(step <= bar, "{}: {name} turns {step:.1}° from one key to the next (bar {bar}°)", clip.name);
    }
}
