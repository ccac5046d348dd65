//! Bars for the procedural gait: planted balls move at exactly `speed`, the loop is seamless,
//! feet land at phase 0 (left) and 0.5 (right), swings lift by `step_height`.

use ik_core::gait::{GaitParams, GaitSample, sample_gait, sample_gait_at_time};

fn gaits() -> [(&'static str, GaitParams); 3] {
    [("walk", GaitParams::walk()), ("jog", GaitParams::jog()), ("idle", GaitParams::idle())]
}

fn positions(s: &GaitSample) -> [glam::Vec3; 3] {
    [s.pelvis, s.feet[0].position, s.feet[1].position]
}

#[test]
fn planted_ball_moves_backward_at_speed_within_1e_3_relative() {
    for (name, p) in [("walk", GaitParams::walk()), ("jog", GaitParams::jog())] {
        let dt = 1e-3;
        let mut checked = 0;
        let mut worst: f32 = 0.0;
        for i in 0..400 {
            let t = i as f32 / 400.0 * p.cycle_duration;
            let (a, b, c) =
                (sample_gait_at_time(&p, t - dt), sample_gait_at_time(&p, t), sample_gait_at_time(&p, t + dt));
            for f in 0..2 {
                if !(a.feet[f].contact && b.feet[f].contact && c.feet[f].contact) {
                    continue;
                }
                let v = (c.feet[f].position - a.feet[f].position) / (2.0 * dt);
                assert!(b.feet[f].position.y == 0.0, "{name}: planted ball off the floor");
                assert!(
                    (v.z + p.speed).abs() <= 1e-3 * p.speed && v.x.abs() < 1e-6 && v.y.abs() < 1e-6,
                    "{name} t={t}: planted ball velocity {v}, expected (0, 0, {})",
                    -p.speed
                );
                worst = worst.max((v.z + p.speed).abs() / p.speed);
                checked += 1;
            }
        }
        println!("{name}: planted ball speed off by at most {worst:.2e} relative over {checked} samples");
        assert!(checked > 200, "{name}: only {checked} planted samples");
    }
}

#[test]
fn loop_is_seamless_in_position_and_velocity() {
    for (name, p) in gaits() {
        // Phase 0 and 1 are the same sample.
        assert_eq!(sample_gait(&p, 0.0), sample_gait(&p, 1.0), "{name}");
        assert_eq!(sample_gait(&p, 0.25), sample_gait(&p, 2.25), "{name}");
        // Velocity just before the wrap equals velocity just after it (one-sided differences).
        let h = 1e-3;
        let before = positions(&sample_gait(&p, 1.0 - h));
        let at = positions(&sample_gait(&p, 0.0));
        let after = positions(&sample_gait(&p, h));
        for k in 0..3 {
            let v_in = (at[k] - before[k]) / h;
            let v_out = (after[k] - at[k]) / h;
            let scale = 1.0 + p.speed * p.cycle_duration;
            assert!((v_in - v_out).length() < 0.02 * scale, "{name} point {k}: {v_in} vs {v_out} across the wrap");
        }
    }
}

#[test]
fn velocities_are_continuous_at_toe_off_and_landing() {
    for (name, p) in [("walk", GaitParams::walk()), ("jog", GaitParams::jog())] {
        let h = 1e-4;
        for (f, land) in [(0usize, 0.0f32), (1, 0.5)] {
            for boundary in [land, land + p.stance_fraction] {
                let x = |ph: f32| sample_gait(&p, ph).feet[f].position;
                let v_in = (x(boundary) - x(boundary - h)) / h;
                let v_out = (x(boundary + h) - x(boundary)) / h;
                // Per unit phase; the stance velocity is speed * cycle_duration.
                let scale = p.speed * p.cycle_duration;
                assert!(
                    (v_in - v_out).length() < 0.01 * scale,
                    "{name} foot {f} at phase {boundary}: velocity {v_in} before, {v_out} after"
                );
            }
        }
    }
}

#[test]
fn left_lands_at_0_right_at_half_for_every_gait() {
    for (name, p) in [("walk", GaitParams::walk()), ("jog", GaitParams::jog())] {
        let s = sample_gait(&p, 0.0);
        assert!(s.feet[0].contact, "{name}: left not planted at phase 0");
        assert!(!sample_gait(&p, 0.999).feet[0].contact, "{name}: left planted just before landing");
        let s2 = sample_gait(&p, 0.5);
        assert!(s2.feet[1].contact, "{name}: right not planted at phase 0.5");
        assert!(!sample_gait(&p, 0.499).feet[1].contact, "{name}: right planted just before landing");
        // Mirror images: left at phase x matches right at x + 0.5, mirrored in X.
        for i in 0..20 {
            let ph = i as f32 / 20.0;
            let l = sample_gait(&p, ph).feet[0].position;
            let r = sample_gait(&p, ph + 0.5).feet[1].position;
            assert!((l - r * glam::Vec3::new(-1.0, 1.0, 1.0)).length() < 1e-5, "{name} phase {ph}: {l} vs {r}");
        }
    }
}

#[test]
fn each_foot_is_planted_for_stance_fraction_of_the_cycle() {
    for (name, p) in [("walk", GaitParams::walk()), ("jog", GaitParams::jog())] {
        let n = 10_000;
        for f in 0..2 {
            let planted = (0..n).filter(|i| sample_gait(&p, *i as f32 / n as f32).feet[f].contact).count();
            let fraction = planted as f32 / n as f32;
            assert!((fraction - p.stance_fraction).abs() < 2e-3, "{name} foot {f}: planted {fraction}");
        }
    }
    // Walk has double support, jog has flight.
    let walk = GaitParams::walk();
    assert!(sample_gait(&walk, 0.05).feet.iter().all(|f| f.contact));
    let jog = GaitParams::jog();
    assert!(sample_gait(&jog, 0.45).feet.iter().all(|f| !f.contact));
}

#[test]
fn swing_lifts_by_step_height_and_moves_forward() {
    for (name, p) in [("walk", GaitParams::walk()), ("jog", GaitParams::jog())] {
        let n = 2000;
        let mut peak: f32 = 0.0;
        for i in 0..n {
            let s = sample_gait(&p, i as f32 / n as f32).feet[0];
            peak = peak.max(s.position.y);
            assert!(s.position.y >= 0.0, "{name}: ball below the floor");
            assert!((s.forward.length() - 1.0).abs() < 1e-5);
        }
        assert!((peak - p.step_height).abs() < 1e-4, "{name}: peak lift {peak}, step height {}", p.step_height);
        let toe_off = sample_gait(&p, p.stance_fraction).feet[0].position.z;
        let landing = sample_gait(&p, 0.0).feet[0].position.z;
        assert!(landing - toe_off > 0.8 * p.stance_stride(), "{name}: swing moved {} m", landing - toe_off);
        // Toe down early in the swing, toe up late.
        let early = sample_gait(&p, p.stance_fraction + 0.2 * (1.0 - p.stance_fraction)).feet[0].forward;
        let late = sample_gait(&p, p.stance_fraction + 0.8 * (1.0 - p.stance_fraction)).feet[0].forward;
        assert!(early.y < -0.05 && late.y > 0.05, "{name}: pitch {early} then {late}");
    }
}

#[test]
fn idle_keeps_both_feet_planted_and_the_pelvis_breathes() {
    let p = GaitParams::idle();
    let first = sample_gait(&p, 0.0);
    let mut lowest = f32::MAX;
    let mut highest = f32::MIN;
    for i in 0..100 {
        let s = sample_gait(&p, i as f32 / 100.0);
        for f in 0..2 {
            assert!(s.feet[f].contact);
            assert_eq!(s.feet[f].position, first.feet[f].position);
        }
        lowest = lowest.min(s.pelvis.y);
        highest = highest.max(s.pelvis.y);
    }
    assert!((highest - lowest - 2.0 * p.pelvis_bob).abs() < 1e-4, "breath {}", highest - lowest);
    assert!((first.feet[0].position.x - first.feet[1].position.x - p.foot_spacing).abs() < 1e-6);
}

#[test]
fn walking_pelvis_is_highest_at_mid_stance_jogging_lowest() {
    let walk = GaitParams::walk();
    let mid = sample_gait(&walk, walk.stance_fraction * 0.5).pelvis.y;
    assert!((mid - walk.pelvis_height - walk.pelvis_bob).abs() < 1e-5);
    let jog = GaitParams::jog();
    let mid = sample_gait(&jog, jog.stance_fraction * 0.5).pelvis.y;
    assert!((mid - jog.pelvis_height + jog.pelvis_bob).abs() < 1e-5);
    // Sway toward the stance foot (left is +X).
    assert!(sample_gait(&walk, walk.stance_fraction * 0.5).pelvis.x > 0.0);
}
