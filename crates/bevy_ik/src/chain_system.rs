//! The `solve_chains` system: per [`IkChain`], gather its joints fresh from this frame's
//! locals, run the chain's solver (two-bone, FABRIK or CCD) and write the changed local
//! rotations back — in parallel over bones marked with their chain (`ChainBone`) where it can.

use bevy::prelude::*;
use bevy::utils::Parallel;

use crate::IkSettings;
use crate::bones::{Hierarchy, StopCache};
use crate::chain::*;
use crate::fade::IkFade;
use crate::fault::FaultSender;
use crate::limb::ChainOutput;

/// Fewer chains than this are solved on the system's own thread: waking the other threads
/// (tens of µs on an idle virtual machine) costs more than it saves.
const PARALLEL_MIN_CHAINS: usize = 256;

/// Fewer chains than this write their marked bones on the system's own thread. Writing is
/// cheap per bone (~10 ns while the bones stay in cache), so a second fork-join costs more than
/// it saves until the bones no longer fit in cache. Measured with the legs benchmark on a
/// 2-core VM: 4 000 chains write in 77 µs on one thread, 93 µs on two; 8 000 chains in 440 µs
/// on one, 290 µs on two. (Unit tests lower it so both branches run under `cargo test`.)
const PARALLEL_MIN_WRITES: usize = if cfg!(test) { PARALLEL_MIN_CHAINS } else { 6_000 };

/// Solves every [`IkChain`] (in parallel when [`IkSettings::parallel`]) and writes the changed
/// local rotations back: bones marked with their chain (`ChainBone`) in one parallel pass
/// over the marked bones, the rest (a chain's first frame, bones two chains write) serially.
/// With fewer than 256 chains everything runs on the system's own thread, and with fewer than
/// 6 000 the marked bones are written there.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn solve_chains(
    settings: Res<IkSettings>,
    mut chains: ParamSet<(
        Query<(Entity, &IkChain, Option<&Pole>, Option<&IkFade>, &mut IkChainState, &mut ChainOutput)>,
        Query<(&IkChainState, &ChainOutput)>,
    )>,
    limits: Query<&'static JointLimit>,
    marks: Query<&'static ChainBone>,
    mut transforms: ParamSet<(Hierarchy, Query<&mut Transform>, Query<(Entity, &ChainBone, &mut Transform)>)>,
    mut serial: Local<Parallel<Vec<Entity>>>,
    mut serial_list: Local<Vec<Entity>>,
    pending: Option<ResMut<PendingChainMarks>>,
    mut faults: FaultSender,
) {
    if !settings.enabled {
        return;
    }
    // Below a few hundred chains, waking the other threads costs more than it saves.
    let count = chains.p0().count();
    let parallel = settings.parallel && count >= PARALLEL_MIN_CHAINS;
    {
        let hierarchy = transforms.p0();
        let world = ChainWorld { hierarchy: &hierarchy, limits: &limits, marks: &marks, notices: faults.notices() };
        let serial = &*serial;
        type Item<'a> =
            (Entity, &'a IkChain, Option<&'a Pole>, Option<&'a IkFade>, Mut<'a, IkChainState>, Mut<'a, ChainOutput>);
        let solve = |stops: &mut StopCache, (tip, chain, pole, fade, mut state, mut output): Item| {
            state.solve(tip, (chain, pole, fade), &world, stops);
            state.fill_output(&mut output);
            if state.dirty && state.ownership == Ownership::Serial {
                serial.borrow_local_mut().push(tip);
            }
        };
        let mut chains = chains.p0();
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

    // Parallel pass: every marked bone pulls its new local from its chain.
    {
        let states = chains.p1();
        let mut marked = transforms.p2();
        let write = |(bone, mark, mut transform): (Entity, &ChainBone, Mut<Transform>)| {
            let Ok((state, output)) = states.get(mark.owner) else { return };
            let slot = mark.slot as usize;
            // Two-bone chains: from their compact output, without touching the state.
            if output.limb {
                if let Some((rotation, translation)) = output.pending(slot, bone) {
                    transform.rotation = rotation;
                    transform.translation = translation;
                }
                return;
            }
            if !state.dirty || state.ownership != Ownership::Owned || state.bone_at(slot) != Some(bone) {
                return;
            }
            if let Some(new) = state.pending(slot) {
                transform.rotation = new.rotation;
                transform.translation = new.translation;
            }
        };
        if settings.parallel && count >= PARALLEL_MIN_WRITES {
            marked.par_iter_mut().for_each(write);
        } else {
            marked.iter_mut().for_each(write);
        }
    }

    // Serial pass: chains whose bones are not all marked for them; ask for the missing marks.
    serial_list.clear();
    serial.drain_into(&mut serial_list);
    if serial_list.is_empty() {
        return;
    }
    serial_list.sort_unstable();
    let mut pending = pending;
    for &tip in serial_list.iter() {
        let mut asked = false;
        let states = chains.p1();
        if let (Some(pending), Ok((state, _))) = (pending.as_mut(), states.get(tip)) {
            for (slot, bone) in state.written_bones() {
                let free = match marks.get(bone) {
                    Err(_) => true,
                    Ok(m) if m.owner == tip => m.slot != slot,
                    // Another chain's mark: free only when that chain no longer lists the bone.
                    Ok(m) => !states.get(m.owner).is_ok_and(|(other, _)| other.lists(bone, m.slot)),
                };
                if free {
                    pending.0.push((bone, ChainBone { owner: tip, slot }));
                    asked = true;
                }
            }
        }
        let mut writer = transforms.p1();
        if let Ok((.., mut state, _)) = chains.p0().get_mut(tip) {
            let state = state.bypass_change_detection();
            if asked {
                state.ownership = Ownership::Unknown;
            }
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
    fn marked_bones_are_written_by_the_parallel_pass_in_and_below_the_serial_threshold() {
        // 300 arms (above the serial threshold) and then 3 (below it), on and off `parallel`.
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
                }
            }
            // After the first frame the upper arm and forearm carry their chain's marks (the
            // hand, which never turns, does not), and the chain writes through them.
            for &(arm, _) in &arms {
                assert_eq!(app.world().get::<ChainBone>(arm[1]), Some(&ChainBone { owner: arm[3], slot: 0 }));
                assert_eq!(app.world().get::<ChainBone>(arm[2]), Some(&ChainBone { owner: arm[3], slot: 1 }));
                assert!(app.world().get::<ChainBone>(arm[3]).is_none());
                assert_eq!(app.world().get::<IkChainState>(arm[3]).unwrap().ownership, Ownership::Owned);
            }
        }
    }

    #[test]
    fn two_arms_under_one_moving_root_reach_every_frame_with_no_animation() {
        // The second arm's chain reuses the stop's world transform found for the first (the
        // same shoulder root); it must still be this frame's, as the root moves every frame.
        // Nothing animates the arms, so each frame starts from what IK wrote the frame before
        // (the marked pass must still see what the `Transform`s held).
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
    fn a_bone_two_chains_write_is_marked_once_and_the_other_chain_writes_serially() {
        let mut app = app(true);
        let [_, upper, fore, hand] = spawn_arm(app.world_mut(), Vec3::ZERO);
        let finger = app.world_mut().spawn((Transform::from_xyz(0.0, -0.1, 0.0), ChildOf(hand))).id();
        // The hand chain turns upper arm and forearm; the finger chain turns forearm and hand.
        app.world_mut().entity_mut(hand).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.3, 1.0, 0.3))));
        app.world_mut().entity_mut(finger).insert(IkChain::two_bone(IkTarget::Position(Vec3::new(0.25, 0.95, 0.35))));
        for _ in 0..4 {
            app.update();
            for e in [upper, fore, hand, finger] {
                assert!(app.world().get::<Transform>(e).unwrap().is_finite());
            }
        }
        let owners: Vec<Entity> =
            [upper, fore, hand].iter().filter_map(|&e| app.world().get::<ChainBone>(e)).map(|m| m.owner).collect();
        assert_eq!(owners.len(), 3, "every written bone carries one mark");
        let states: Vec<Ownership> =
            [hand, finger].iter().map(|&e| app.world().get::<IkChainState>(e).unwrap().ownership).collect();
        assert!(states.contains(&Ownership::Serial), "the chain that lost the shared bone writes serially: {states:?}");
        // (Where the two chains end up is not defined: both solve from the animated pose.)
    }
}
