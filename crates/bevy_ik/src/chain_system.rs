//! The `solve_chains` system: per [`IkChain`], gather its joints fresh from this frame's
//! locals, run the chain's solver (two-bone, FABRIK or CCD) and write the changed local
//! rotations back through the crate's one write-back (`GatheredBones::write_back`).

use bevy::prelude::*;

use crate::IkSettings;
use crate::bones::{Hierarchy, StopCache};
use crate::chain::*;
use crate::fade::IkFade;
use crate::fault::FaultSender;

/// Fewer chains than this are solved on the system's own thread: waking the other threads
/// (tens of µs on an idle virtual machine) costs more than it saves.
const PARALLEL_MIN_CHAINS: usize = 256;

/// Solves every [`IkChain`] (in parallel when [`IkSettings::parallel`] and there are at least
/// 256 of them), then writes the changed local rotations of the chains that solved, one chain
/// after another.
#[allow(clippy::type_complexity)]
pub(crate) fn solve_chains(
    settings: Res<IkSettings>,
    mut chains: Query<(Entity, &IkChain, Option<&Pole>, Option<&IkFade>, &mut IkChainState)>,
    limits: Query<&'static JointLimit>,
    mut transforms: ParamSet<(Hierarchy, Query<&mut Transform>)>,
    mut faults: FaultSender,
) {
    if !settings.enabled {
        return;
    }
    // Below a few hundred chains, waking the other threads costs more than it saves.
    let parallel = settings.parallel && chains.count() >= PARALLEL_MIN_CHAINS;
    {
        let hierarchy = transforms.p0();
        let world = ChainWorld { hierarchy: &hierarchy, limits: &limits, notices: faults.notices() };
        type Item<'a> = (Entity, &'a IkChain, Option<&'a Pole>, Option<&'a IkFade>, Mut<'a, IkChainState>);
        let solve = |stops: &mut StopCache, (tip, chain, pole, fade, mut state): Item| {
            state.solve(tip, (chain, pole, fade), &world, stops);
        };
        // Transforms do not change during this pass, so a stop's world transform found for one
        // chain holds for the next under the same stop (a character's two legs).
        if parallel {
            chains.par_iter_mut().batching_strategy(crate::batching()).for_each_init(StopCache::default, solve);
        } else {
            let mut stops = StopCache::default();
            chains.iter_mut().for_each(|item| solve(&mut stops, item));
        }
    }
    faults.send();
    let mut writer = transforms.p1();
    for (.., mut state) in &mut chains {
        let state = state.bypass_change_detection();
        if state.dirty {
            state.write_back(&mut writer);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use bevy::time::TimeUpdateStrategy;

    use super::*;
    use crate::IkPlugin;
    use crate::target::IkTarget;

    /// An arm (shoulder → upper arm → forearm → hand) under a turned root.
    fn spawn_arm(world: &mut World, at: Vec3) -> [Entity; 4] {
        let root = world.spawn(Transform::from_translation(at).with_rotation(Quat::from_rotation_y(0.4))).id();
        let upper = world
            .spawn((Transform::from_xyz(0.2, 1.4, 0.0).with_rotation(Quat::from_rotation_z(-0.3)), ChildOf(root)))
            .id();
        let fore = world
            .spawn((Transform::from_xyz(0.0, -0.3, 0.0).with_rotation(Quat::from_rotation_x(0.5)), ChildOf(upper)))
            .id();
        let hand = world.spawn((Transform::from_xyz(0.0, -0.27, 0.0), ChildOf(fore))).id();
        [root, upper, fore, hand]
    }

    fn app(parallel: bool) -> App {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            TransformPlugin,
            IkPlugin { settings: IkSettings { enabled: true, parallel } },
        ));
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(1.0 / 60.0)));
        app
    }

    fn hand_error(app: &App, hand: Entity, target: Vec3) -> f32 {
        app.world().get::<GlobalTransform>(hand).unwrap().translation().distance(target)
    }

    #[test]
    fn chains_reach_on_one_thread_and_in_parallel_and_leave_their_tips_alone() {
        // 300 arms (solved in parallel) and then 3 (on the system's thread), on and off `parallel`.
        for (count, parallel) in [(300, true), (3, true), (3, false)] {
            let mut app = app(parallel);
            let mut arms = Vec::new();
            for i in 0..count {
                let arm = spawn_arm(app.world_mut(), Vec3::new(i as f32 * 1.5, 0.0, 0.0));
                let target = Vec3::new(i as f32 * 1.5 + 0.35, 1.1, 0.25);
                let pole = Vec3::new(i as f32 * 1.5 + 0.3, 1.2, -1.0);
                app.world_mut()
                    .entity_mut(arm[3])
                    .insert((IkChain::two_bone(IkTarget::Position(target)), Pole::new(IkTarget::Position(pole))));
                arms.push((arm, target));
            }
            for frame in 0..4 {
                app.update();
                for &(arm, target) in &arms {
                    let error = hand_error(&app, arm[3], target);
                    assert!(error < 1e-4, "{count} arms, frame {frame}: hand misses by {error} m");
                    // Only the upper arm and the forearm turn: the hand's local is never written.
                    let hand = app.world().get::<Transform>(arm[3]).unwrap();
                    assert_eq!(*hand, Transform::from_xyz(0.0, -0.27, 0.0), "{count} arms, frame {frame}");
                }
            }
        }
    }

    #[test]
    fn two_arms_under_one_moving_root_reach_every_frame_with_no_animation() {
        // The second arm's chain reuses the stop's world transform found for the first (the
        // same shoulder root); it must still be this frame's, as the root moves every frame.
        // Nothing animates the arms, so each frame starts from what IK wrote the frame before
        // (the write-back must still see what the `Transform`s held).
        let mut app = app(false);
        let world = app.world_mut();
        let root = world.spawn(Transform::from_xyz(1.0, 0.0, 2.0).with_rotation(Quat::from_rotation_y(0.4))).id();
        let mut hands = Vec::new();
        for side in [-1.0f32, 1.0] {
            let upper = world.spawn((Transform::from_xyz(0.2 * side, 1.4, 0.0), ChildOf(root))).id();
            let fore = world
                .spawn((Transform::from_xyz(0.0, -0.3, 0.0).with_rotation(Quat::from_rotation_x(0.5)), ChildOf(upper)))
                .id();
            let hand = world.spawn((Transform::from_xyz(0.0, -0.27, 0.0), ChildOf(fore))).id();
            let target = Vec3::new(1.0 + 0.3 * side, 1.1, 2.3);
            world.entity_mut(hand).insert(IkChain::two_bone(IkTarget::Position(target)));
            hands.push((hand, target));
        }
        for frame in 0..5 {
            app.world_mut().get_mut::<Transform>(root).unwrap().translation.y = 0.02 * frame as f32;
            app.update();
            for &(hand, target) in &hands {
                let error = hand_error(&app, hand, target);
                assert!(error < 1e-4, "frame {frame}: hand misses by {error} m");
            }
        }
    }

    #[test]
    fn two_chains_sharing_a_bone_both_write_and_stay_finite() {
        let mut app = app(true);
        let [_, upper, fore, hand] = spawn_arm(app.world_mut(), Vec3::ZERO);
        let finger = app.world_mut().spawn((Transform::from_xyz(0.0, -0.1, 0.0), ChildOf(hand))).id();
        let animated = |app: &App, e: Entity| app.world().get::<Transform>(e).copied().unwrap();
        let (upper_before, hand_before) = (animated(&app, upper), animated(&app, hand));
        // The hand chain turns upper arm and forearm; the finger chain turns forearm and hand.
        app.world_mut().entity_mut(hand).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.3, 1.0, 0.3))));
        app.world_mut().entity_mut(finger).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.25, 0.95, 0.35))));
        for _ in 0..4 {
            app.update();
            for e in [upper, fore, hand, finger] {
                assert!(app.world().get::<Transform>(e).unwrap().is_finite());
            }
            for tip in [hand, finger] {
                assert!(app.world().get::<IkChainState>(tip).unwrap().fault().is_none());
            }
        }
        // Each chain wrote the bone only it turns (the shared forearm holds whichever chain
        // wrote last: where the two chains end up is not defined, both solve from the animated
        // pose).
        assert_ne!(animated(&app, upper).rotation, upper_before.rotation, "the hand chain wrote its upper arm");
        assert_ne!(animated(&app, hand).rotation, hand_before.rotation, "the finger chain wrote its hand");
    }
}
