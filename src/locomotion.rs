//! A 1D blend space Idle / Walk / Jog driven by speed, phase-synchronised, on Bevy's
//! `AnimationGraph`.
//!
//! Method: the clips sit on a line at their nominal speeds (0, 1.4, 3.2 m/s for the mannequin);
//! a speed `v` gives linear weights to the two nearest clips. The moving clips play at one
//! shared normalized phase: every frame each one's seek time is set to `phase × its duration`
//! (clip speeds are 0, so Bevy never advances them itself). The phase advances at
//! `v / Σ wᵢ·Sᵢ`, where `Sᵢ = nominal speedᵢ × durationᵢ` is a clip's stride: the blended
//! stance foot then travels backwards at exactly `v`, so a character moved at `v` does not
//! slide. The standing clip (idle) is not a cycle of steps and keeps its own clock at its own
//! length. While the moving clips weigh (almost) nothing, their phase waits at the walk's
//! mid-stance of the left foot (from the contact labels, [`ClipInfo::mid_stance`]): a start
//! from standing then begins with the left foot planted under the body and the right one
//! swinging past it, so the planted foot does not move while the walk blends in.
//! Inputs: [`Locomotion::speed`] (written by the movement system). Outputs: weights and seek
//! times on the `AnimationPlayer`, the phases, and per-foot contact flags read from the labels
//! of the dominant clip. A clip at weight 0 is stopped, not played at weight 0, so it poses no
//! bone (an idle that keys neither feet nor arms leaves them in the rest pose, not in the
//! walk's). Without an idle clip the phase advances only with travel (no walking on the spot):
//! the character stops in the stride it was in, its planted feet staying planted (moving the
//! phase while standing would slide them).
//! Invariants: weights are in [0, 1] and sum to 1; both phases stay in [0, 1).

use bevy::animation::graph::AnimationNodeIndex;
use bevy::prelude::*;

use crate::sidecar::ClipInfo;

/// One clip of the blend space.
#[derive(Clone, Debug)]
pub struct BlendClip {
    /// Node in the character's animation graph.
    pub node: AnimationNodeIndex,
    /// Nominal speed, duration and contacts.
    pub info: ClipInfo,
}

/// The blend space of one character (on its IK root, next to the glTF scene).
#[derive(Component, Clone, Debug)]
pub struct Locomotion {
    /// Entity holding the `AnimationPlayer`.
    pub player: Entity,
    /// Clips sorted by nominal speed (first = idle).
    pub clips: Vec<BlendClip>,
    /// Travel speed this frame, m/s (input).
    pub speed: f32,
    /// Shared normalized phase of the moving clips, in [0, 1).
    pub phase: f32,
    /// Normalized phase of the standing clip (its own clock), in [0, 1).
    pub idle_phase: f32,
    /// Phase the moving clips start from when the character sets off from standing.
    pub start_phase: f32,
    /// Current blend weights, one per clip.
    pub weights: Vec<f32>,
    /// Contact flags `[left, right]` at this phase (from the dominant clip's labels).
    pub contacts: [bool; 2],
    /// Whether the clips carry contact labels.
    pub labelled: bool,
    /// Contacts come from the moving clips (see [`STEPPING_FROM`]).
    pub stepping: bool,
    /// Slower than the walk, its steps are shortened by stride warping at the walk's cadence
    /// instead of blended toward the idle (`toggles::shortens_stride`; input).
    pub short_steps: bool,
}

impl Locomotion {
    /// A blend space over `clips` (sorted by nominal speed here).
    pub fn new(player: Entity, mut clips: Vec<BlendClip>) -> Self {
        clips.sort_by(|a, b| a.info.nominal_speed.total_cmp(&b.info.nominal_speed));
        let labelled = !clips.is_empty() && clips.iter().all(|c| c.info.has_contacts());
        let n = clips.len();
        let mut weights = vec![0.0; n];
        if let Some(w) = weights.first_mut() {
            *w = 1.0;
        }
        let mut loco = Locomotion {
            player,
            clips,
            speed: 0.0,
            phase: 0.0,
            idle_phase: 0.0,
            start_phase: 0.0,
            stepping: false,
            short_steps: false,
            weights,
            contacts: [true, true],
            labelled,
        };
        let walk = loco.clips.iter().find(|c| c.info.nominal_speed > 1e-3);
        loco.start_phase = walk.and_then(|c| c.info.mid_stance(0)).unwrap_or(0.0);
        if loco.has_idle() {
            loco.phase = loco.start_phase;
        }
        loco
    }

    /// Blend weights for a speed: linear between the two clips around it.
    pub fn weights_for(&self, speed: f32, out: &mut [f32]) {
        out.iter_mut().for_each(|w| *w = 0.0);
        let n = self.clips.len().min(out.len());
        if n == 0 {
            return;
        }
        let v = if speed.is_finite() { speed.max(0.0) } else { 0.0 };
        if v <= self.clips[0].info.nominal_speed || n == 1 {
            out[0] = 1.0;
            return;
        }
        for i in 0..n - 1 {
            let (a, b) = (self.clips[i].info.nominal_speed, self.clips[i + 1].info.nominal_speed);
            if v <= b {
                let t = if b > a { (v - a) / (b - a) } else { 1.0 };
                out[i] = 1.0 - t;
                out[i + 1] = t;
                return;
            }
        }
        out[n - 1] = 1.0;
    }

    /// Whether any clip travels (a walk or a run).
    pub fn walks(&self) -> bool {
        self.clips.iter().any(|c| c.info.nominal_speed > 1e-3)
    }

    /// Whether the blend space has a standing clip (its slowest clip does not travel).
    pub fn has_idle(&self) -> bool {
        self.clips.first().is_some_and(|c| c.info.nominal_speed <= 1e-3)
    }

    /// The slowest moving clip's nominal speed and step (half its stride), m/s and m; `None`
    /// without a moving clip.
    pub fn walk_step(&self) -> Option<(f32, f32)> {
        let walk = self.clips.iter().find(|c| c.info.nominal_speed > 1e-3)?;
        Some((walk.info.nominal_speed, 0.5 * walk.info.stride()))
    }

    /// Walk and run speeds for the controller: the clips' own, or the mannequin's defaults.
    pub fn walk_and_run_speeds(&self) -> (f32, f32) {
        let moving: Vec<f32> = self.clips.iter().map(|c| c.info.nominal_speed).filter(|s| *s > 1e-3).collect();
        match moving.as_slice() {
            [] => (crate::marks::WALK_SPEED, crate::marks::JOG_SPEED),
            [walk] => (*walk, *walk * 2.0),
            [walk, .., run] => (*walk, *run),
        }
    }

    /// Phase rate of the moving clips (cycles per second): `v / Σ wᵢ·strideᵢ`, so the blended
    /// stance foot moves back at exactly the travel speed; 0 when nothing moves.
    pub fn phase_rate(&self) -> f32 {
        let stride: f32 = self.clips.iter().zip(&self.weights).map(|(c, w)| w * c.info.stride()).sum();
        let v = if self.speed.is_finite() { self.speed.max(0.0) } else { 0.0 };
        if stride <= 1e-4 || v <= 1e-4 { 0.0 } else { v / stride }
    }

    /// Total weight of the moving clips.
    pub fn moving_weight(&self) -> f32 {
        self.weights.iter().skip(usize::from(self.has_idle())).sum()
    }

    /// Normalized phase clip `index` plays at: the idle's own clock for the standing clip, the
    /// shared phase for the others.
    pub fn clip_phase(&self, index: usize) -> f32 {
        if index == 0 && self.has_idle() { self.idle_phase } else { self.phase }
    }

    /// Advances the phases by `dt` and refreshes weights and contacts.
    pub fn advance(&mut self, dt: f32) {
        let mut weights = std::mem::take(&mut self.weights);
        weights.resize(self.clips.len(), 0.0);
        self.weights_for(self.speed, &mut weights);
        self.weights = weights;
        let dt = if dt.is_finite() && dt > 0.0 { dt } else { 0.0 };
        if let Some(idle) = self.clips.first().filter(|_| self.has_idle()) {
            self.idle_phase = (self.idle_phase + dt / idle.info.duration.max(1e-3)).rem_euclid(1.0);
        }
        let rate = self.phase_rate();
        if self.has_idle() && self.moving_weight() < START_WEIGHT {
            self.phase = self.start_phase;
        } else if rate.is_finite() {
            self.phase = (self.phase + rate * dt).rem_euclid(1.0);
        }
        for phase in [&mut self.phase, &mut self.idle_phase] {
            if !phase.is_finite() {
                *phase = 0.0;
            }
        }
        // Contacts come from the heaviest clip; once the moving clips weigh more than
        // STEPPING_FROM, from the heaviest moving one (a blend of idle and walk steps like the
        // walk) until they weigh less than STEPPING_UNTIL: a dip in speed mid-swing (the body
        // meeting a stair's first riser) must not plant a swinging foot for a frame.
        let heaviest = |skip: usize| {
            self.weights.iter().enumerate().skip(skip).max_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |(i, _)| i)
        };
        let moving = self.moving_weight();
        self.stepping = self.has_idle() && moving > if self.stepping { STEPPING_UNTIL } else { STEPPING_FROM };
        let dominant = if self.stepping { heaviest(1) } else { heaviest(0) };
        if let Some(clip) = self.clips.get(dominant).filter(|c| c.info.has_contacts()) {
            let phase = self.clip_phase(dominant);
            self.contacts = [clip.info.contact_at(0, phase), clip.info.contact_at(1, phase)];
        }
    }
}

/// Above this total weight of the moving clips, contacts come from them.
pub const STEPPING_FROM: f32 = 0.25;
/// Once they do, until the moving clips weigh less than this.
pub const STEPPING_UNTIL: f32 = 0.1;

/// Below this total weight of the moving clips their phase waits at the start phase.
const START_WEIGHT: f32 = 0.01;

/// Advances every blend space and writes weights and seek times into its `AnimationPlayer`.
pub fn drive_blend_spaces(
    time: Res<Time>,
    mut spaces: Query<&mut Locomotion>,
    mut players: Query<&mut AnimationPlayer>,
) {
    let dt = time.delta_secs();
    for mut loco in &mut spaces {
        loco.advance(dt);
        let Ok(mut player) = players.get_mut(loco.player) else { continue };
        for (index, (clip, &w)) in loco.clips.iter().zip(&loco.weights).enumerate() {
            if w <= 0.0 {
                // Stopped, not weighted 0: a zero-weight clip must pose no bone.
                if player.is_playing_animation(clip.node) {
                    player.stop(clip.node);
                }
                continue;
            }
            let seek = (loco.clip_phase(index) * clip.info.duration).clamp(0.0, clip.info.duration * 0.9999);
            let active = if player.is_playing_animation(clip.node) {
                player.animation_mut(clip.node)
            } else {
                Some(player.play(clip.node))
            };
            if let Some(active) = active {
                active.repeat().set_speed(0.0).set_weight(w).set_seek_time(seek);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> Locomotion {
        let clip = |i: u32, name: &str, speed: f32, duration: f32| BlendClip {
            node: AnimationNodeIndex::new(i as usize),
            info: ClipInfo::unlabelled(name, speed, duration),
        };
        Locomotion::new(
            Entity::PLACEHOLDER,
            vec![clip(2, "Jog", 3.2, 0.7333), clip(0, "Idle", 0.0, 6.0), clip(1, "Walk", 1.4, 1.05)],
        )
    }

    #[test]
    fn weights_follow_speed_and_sum_to_one() {
        let l = space();
        let mut w = [0.0; 3];
        for (v, expected) in [
            (0.0, [1.0, 0.0, 0.0]),
            (0.7, [0.5, 0.5, 0.0]),
            (1.4, [0.0, 1.0, 0.0]),
            (2.3, [0.0, 0.5, 0.5]),
            (9.0, [0.0, 0.0, 1.0]),
        ] {
            l.weights_for(v, &mut w);
            for (a, b) in w.iter().zip(expected) {
                assert!((a - b).abs() < 1e-5, "v {v}: {w:?}");
            }
        }
    }

    #[test]
    fn blended_feet_move_at_the_travel_speed() {
        // At any speed between walk and jog, the blended stance foot speed
        // Σ w_i · stride_i · rate equals the travel speed (no foot slide).
        let mut l = space();
        for v in [0.2f32, 0.7, 1.4, 1.8, 2.3, 3.0, 3.2] {
            l.speed = v;
            l.advance(0.0);
            let rate = l.phase_rate();
            let foot: f32 = l.clips.iter().zip(&l.weights).map(|(c, w)| w * c.info.stride() * rate).sum();
            assert!((foot - v).abs() < 1e-3, "v {v}: feet {foot}");
        }
        // Standing still the idle clip plays at its own length, the walk waits.
        l.speed = 0.0;
        let idle_before = l.idle_phase;
        l.advance(1.5);
        assert!((l.idle_phase - idle_before - 0.25).abs() < 1e-5, "{} -> {}", idle_before, l.idle_phase);
        assert_eq!(l.phase_rate(), 0.0);
    }

    #[test]
    fn a_start_from_standing_begins_at_the_walks_mid_stance() {
        // Walk labels: left planted for the first 60 % of the cycle, right from 50 % on.
        let frames = 20;
        let mut walk = ClipInfo::unlabelled("Walk", 1.4, 1.0);
        walk.frame_count = frames + 1;
        walk.contacts = [(0..=frames).map(|i| i < 12).collect(), (0..=frames).map(|i| i >= 10).collect()];
        let mut idle = ClipInfo::unlabelled("Idle", 0.0, 4.0);
        idle.frame_count = frames + 1;
        idle.contacts = [vec![true; frames + 1], vec![true; frames + 1]];
        let node = |i| AnimationNodeIndex::new(i);
        let mut l = Locomotion::new(
            Entity::PLACEHOLDER,
            vec![BlendClip { node: node(1), info: walk }, BlendClip { node: node(0), info: idle }],
        );
        assert!((l.start_phase - 0.275).abs() < 1e-5, "mid-stance of frames 0..=11: {}", l.start_phase);
        // Standing: the walk's phase waits there while the idle's clock runs.
        for _ in 0..90 {
            l.advance(1.0 / 60.0);
        }
        assert_eq!(l.phase, l.start_phase);
        assert!(l.idle_phase > 0.3);
        assert_eq!(l.contacts, [true, true]);
        // Setting off: once the walk dominates, the left foot is planted and the right swings.
        l.speed = 1.0;
        l.advance(1.0 / 60.0);
        assert_eq!(l.contacts, [true, false]);
        assert!((l.phase - l.start_phase).abs() < 0.05);
        // Walking slowly, a dip below a quarter of the walk's weight (the body meeting a
        // stair's first riser) keeps the walk's labels: the right foot still swings.
        l.speed = 0.3;
        l.advance(1.0 / 60.0);
        assert!(l.moving_weight() < STEPPING_FROM && l.moving_weight() > STEPPING_UNTIL);
        assert_eq!(l.contacts, [true, false]);
        // Stopping: the idle's labels again.
        l.speed = 0.05;
        l.advance(1.0 / 60.0);
        assert_eq!(l.contacts, [true, true]);
    }

    #[test]
    fn without_an_idle_standing_still_does_not_walk_on_the_spot() {
        let walk = BlendClip { node: AnimationNodeIndex::new(0), info: ClipInfo::unlabelled("Walk", 1.4, 1.05) };
        let mut l = Locomotion::new(Entity::PLACEHOLDER, vec![walk]);
        assert!(!l.has_idle());
        l.speed = 1.4;
        l.advance(0.3);
        assert!(l.phase > 0.2, "walking advances the phase: {}", l.phase);
        l.speed = 0.0;
        for _ in 0..120 {
            l.advance(1.0 / 60.0);
        }
        assert_eq!(l.phase_rate(), 0.0);
        let stopped_at = l.phase;
        l.advance(1.0);
        assert_eq!(l.phase, stopped_at, "standing still keeps the stride where it stopped");
        assert_eq!(l.walk_and_run_speeds(), (1.4, 2.8));
    }
}
