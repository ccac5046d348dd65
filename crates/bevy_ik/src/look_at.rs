//! [`LookAtSpread`]: a head that turns toward a target with the turn spread down the spine,
//! each joint taking its share up to its own limit (maths in [`ik_core::look_at`]).

use bevy::ecs::entity::MapEntities;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use ik_core::Xform;
use ik_core::look_at::{LookAtJob, LookAtTarget, field_of_view_weight, local_forward_axis};

use crate::IkSettings;
use crate::bones::{BoneSet, Hierarchy, apply_correction, restore_after_fault};
use crate::fade::{IkFade, effective_weight};
use crate::fault::{FaultLatch, FaultNotices, FaultSender, IkComponent, IkFault};
use crate::lod::IkLodState;
use crate::target::IkTarget;
use crate::write_back::GatheredBones;

/// One joint of a [`LookAtSpread`]: its bone, and its share of the turn and limit (ik_core's
/// [`ik_core::look_at::LookAtJoint`]).
#[derive(Reflect, MapEntities, Clone, Copy, Debug, PartialEq)]
pub struct LookAtJoint {
    /// The bone entity.
    #[entities]
    pub bone: Entity,
    /// Share of the turn (relative to the other joints' shares) and the most it turns.
    pub spread: ik_core::look_at::LookAtJoint,
}

impl LookAtJoint {
    /// A joint with a share and a limit in degrees.
    pub fn from_degrees(bone: Entity, share: f32, limit_degrees: f32) -> Self {
        LookAtJoint { bone, spread: ik_core::look_at::LookAtJoint::from_degrees(share, limit_degrees) }
    }
}

/// Put on a **character root** (an ancestor of the joints, whose +Z is the character's forward):
/// the last joint (the head) turns toward the target, the turn spread over the joints root
/// first (spine, chest, neck, head), each clamped to its limit with the remainder passed on.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, character: Entity, spine: Entity, chest: Entity, neck: Entity, head: Entity, camera: Entity) {
/// // The lesson's spread: shares 15/20/25/40 %, limits 15°/20°/35°/50° (120° in all).
/// commands.entity(character).insert(LookAtSpread::spine_chest_neck_head(
///     [spine, chest, neck, head],
///     IkTarget::Entity(camera),
/// ));
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default)]
#[require(LookAtState)]
#[component(on_remove = spread_removed)]
pub struct LookAtSpread {
    /// Joints, root first; the last one looks.
    #[entities]
    pub joints: Vec<LookAtJoint>,
    /// What to look at.
    #[entities]
    pub target: IkTarget,
    /// The head's forward axis in its own local frame. `Vec3::ZERO` captures it on the first
    /// frame as `character_forward` seen from the head (add the component while the character
    /// is in its rest pose, or fill it in from the rest pose yourself).
    pub forward: Vec3,
    /// The character's forward in its root's frame, used to capture `forward`: `+Z` (glTF's
    /// forward, the default) or `−Z` (Bevy's, e.g. a model loaded with the glTF loader's
    /// coordinate conversion). [`crate::humanoid::HumanoidIk`] measures it from the rest pose.
    pub character_forward: Vec3,
    /// The eye point in the head's local frame.
    pub eye_offset: Vec3,
    /// Half-life (s) of the spring that smooths the target, so the head does not snap.
    pub half_life: f32,
    /// Blend from the animated pose (0) to the full spread (1).
    pub weight: f32,
    /// A target further than this from `character_forward` (radians, seen from the eye) is
    /// let go of: the spread fades out over `fade_angle` beyond it
    /// ([`ik_core::look_at::field_of_view_weight`]), so a character does not twist round to
    /// stare behind itself. Default π: never (the spread follows the target anywhere).
    pub field_of_view: f32,
    /// Angle over which the spread fades out past `field_of_view`, radians. Default 30°.
    pub fade_angle: f32,
}

impl Default for LookAtSpread {
    fn default() -> Self {
        LookAtSpread {
            joints: Vec::new(),
            target: IkTarget::default(),
            forward: Vec3::ZERO,
            character_forward: Vec3::Z,
            eye_offset: Vec3::ZERO,
            half_life: 0.15,
            weight: 1.0,
            field_of_view: std::f32::consts::PI,
            fade_angle: 30f32.to_radians(),
        }
    }
}

impl LookAtSpread {
    /// The lesson's spread over spine, chest, neck and head: shares 15/20/25/40 %, limits
    /// 15°, 20°, 35° and 50°.
    pub fn spine_chest_neck_head(bones: [Entity; 4], target: IkTarget) -> Self {
        let spread = ik_core::look_at::spine_chest_neck_head();
        LookAtSpread {
            joints: bones.iter().zip(spread).map(|(bone, spread)| LookAtJoint { bone: *bone, spread }).collect(),
            target,
            ..Default::default()
        }
    }
}

/// A [`LookAtSpread`] taken off takes its state with it (unless one is put back in the same
/// batch of commands).
fn spread_removed(mut world: DeferredWorld, context: HookContext) {
    let root = context.entity;
    world.commands().queue(move |world: &mut World| {
        if world.get::<LookAtSpread>(root).is_none()
            && let Ok(mut entity) = world.get_entity_mut(root)
        {
            entity.remove::<LookAtState>();
        }
    });
}

/// What a [`LookAtSpread`] keeps between frames and reports.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(Component, Default)]
pub struct LookAtState {
    /// Angle the head turned last frame, radians.
    pub turned: f32,
    /// True when the target was beyond the joints' combined limits.
    pub clamped: bool,
    /// How much of last frame's turn looked down, `[0, 1]` (the share the joints' down shares
    /// and limits were blended by).
    pub down: f32,
    /// How much of the spread the target's direction allowed last frame, 0..1 (1 inside
    /// [`LookAtSpread::field_of_view`], 0 past its fade).
    pub in_view: f32,
    /// Warnings logged so far (one per distinct fault).
    pub warnings: u32,
    #[reflect(ignore)]
    bones: Option<BoneSet>,
    #[reflect(ignore)]
    built_for: Vec<Entity>,
    #[reflect(ignore)]
    joint_model: Vec<Xform>,
    #[reflect(ignore)]
    spread: Vec<ik_core::look_at::LookAtJoint>,
    #[reflect(ignore)]
    corrections: Vec<Quat>,
    #[reflect(ignore)]
    captured_forward: Option<Vec3>,
    #[reflect(ignore)]
    smoothed: LookAtTarget,
    #[reflect(ignore)]
    faults: FaultLatch,
    #[reflect(ignore)]
    dirty: bool,
}

impl LookAtState {
    /// Each joint's turn last frame, radians, root first (weight applied): how the head's
    /// [`LookAtState::turned`] was shared out.
    ///
    /// ```
    /// # use bevy_ik::prelude::LookAtState;
    /// let state = LookAtState::default();
    /// assert_eq!(state.joint_turns().count(), 0); // nothing solved yet
    /// ```
    pub fn joint_turns(&self) -> impl Iterator<Item = f32> + '_ {
        self.corrections.iter().map(|c| c.to_axis_angle().1)
    }

    /// Reports no turn (faded out, or a fault restored the animated pose).
    fn turned_nothing(&mut self) {
        (self.turned, self.down) = (0.0, 0.0);
        self.corrections.fill(Quat::IDENTITY);
    }

    fn solve(
        &mut self,
        (root, look, fade, lod): (Entity, &LookAtSpread, Option<&IkFade>, Option<&IkLodState>),
        hierarchy: &Hierarchy,
        dt: f32,
        notices: &FaultNotices,
    ) {
        self.dirty = false;
        // Level of detail: not run once faded out; last frame's corrections replayed on a
        // frame the budget skips.
        match lod {
            Some(lod) if lod.look_at_weight() <= 0.0 => {
                self.turned_nothing();
                return;
            }
            Some(lod) if !lod.update_now => {
                self.dirty = matches!(self.bones.as_mut().map(|b| b.replay(hierarchy)), Some(Ok(())));
                return;
            }
            _ => {}
        }
        let dt = lod.map_or(dt, |lod| lod.time_step(dt));
        let outcome = self.try_solve(root, look, (fade, lod), hierarchy, dt);
        if outcome.is_err() {
            self.turned_nothing();
            self.dirty = restore_after_fault(self.bones.as_mut(), &outcome);
        }
        if self.faults.report(root, IkComponent::LookAt, outcome.err(), notices) {
            self.warnings += 1;
        }
    }

    fn try_solve(
        &mut self,
        root: Entity,
        look: &LookAtSpread,
        (fade, lod): (Option<&IkFade>, Option<&IkLodState>),
        hierarchy: &Hierarchy,
        dt: f32,
    ) -> Result<(), IkFault> {
        let target_world = look.target.resolve(hierarchy)?;
        if self.bones.is_none() || !self.built_for.iter().copied().eq(look.joints.iter().map(|j| j.bone)) {
            let wanted: Vec<Entity> = look.joints.iter().map(|j| j.bone).collect();
            self.bones = None;
            self.captured_forward = None;
            let bones = BoneSet::build(&wanted, Some(root), hierarchy).map_err(IkFault::MissingBone)?;
            let n = wanted.len();
            self.joint_model = vec![Xform::IDENTITY; n];
            self.corrections = vec![Quat::IDENTITY; n];
            self.spread = Vec::with_capacity(n);
            self.bones = Some(bones);
            self.built_for = wanted;
        }
        let bones = self.bones.as_mut().ok_or_else(|| IkFault::MissingBone("look-at joints".into()))?;
        if let Err(e) = bones.refresh(hierarchy) {
            self.bones = None;
            return Err(IkFault::MissingBone(e));
        }
        for (out, &k) in self.joint_model.iter_mut().zip(&bones.keys) {
            *out = bones.model[k];
        }
        self.spread.clear();
        self.spread.extend(look.joints.iter().map(|j| j.spread));
        let head =
            self.joint_model.last().ok_or(IkFault::Solver(ik_core::IkError::ChainTooShort { needed: 1, got: 0 }))?;
        let forward = if look.forward != Vec3::ZERO {
            look.forward
        } else {
            *self
                .captured_forward
                .get_or_insert_with(|| local_forward_axis(head.rotation, look.character_forward.normalize_or(Vec3::Z)))
        };
        let smoothed_world = self.smoothed.update(target_world, look.half_life, dt);
        let target_model = bones.world_to_model(smoothed_world);
        let eye = head.transform_point(look.eye_offset);
        self.in_view =
            field_of_view_weight(look.character_forward, target_model - eye, look.field_of_view, look.fade_angle);
        // A level of detail below full turns only the last two joints, faded by its weight.
        let first = match lod {
            Some(lod) if lod.few_look_joints => self.spread.len().saturating_sub(2),
            _ => 0,
        };
        let lod_weight = lod.map_or(1.0, IkLodState::look_at_weight);
        let job = LookAtJob {
            eye_offset: look.eye_offset,
            weight: effective_weight(look.weight, fade) * self.in_view * lod_weight,
            ..LookAtJob::new(&self.spread[first..], &self.joint_model[first..], forward, target_model)
        };
        self.corrections[..first].fill(Quat::IDENTITY);
        let solution = job.run(&mut self.corrections[first..]).map_err(IkFault::Solver)?;
        for (&k, &c) in bones.keys.iter().zip(&self.corrections) {
            apply_correction(&mut bones.locals[k], c);
        }
        if !bones.changes_are_finite() {
            return Err(IkFault::NonFiniteResult);
        }
        self.turned = solution.turned;
        self.down = solution.down;
        self.clamped = solution.clamped;
        self.dirty = true;
        Ok(())
    }
}

/// Solves every [`LookAtSpread`] and writes the changed local rotations back.
#[allow(clippy::type_complexity)]
pub fn solve_look_at(
    settings: Res<IkSettings>,
    time: Res<Time>,
    mut looks: Query<(Entity, &LookAtSpread, Option<&IkFade>, Option<&IkLodState>, &mut LookAtState)>,
    mut transforms: ParamSet<(Hierarchy, Query<&mut Transform>)>,
    mut faults: FaultSender,
) {
    if !settings.enabled {
        return;
    }
    let dt = time.delta_secs();
    {
        let hierarchy = transforms.p0();
        let notices = faults.notices();
        type Item<'a> = (Entity, &'a LookAtSpread, Option<&'a IkFade>, Option<&'a IkLodState>, Mut<'a, LookAtState>);
        let solve = |(root, look, fade, lod, mut state): Item| {
            state.solve((root, look, fade, lod), &hierarchy, dt, notices);
        };
        if settings.parallel {
            looks.par_iter_mut().batching_strategy(crate::batching()).for_each(solve);
        } else {
            looks.iter_mut().for_each(solve);
        }
    }
    faults.send();
    let mut writer = transforms.p1();
    for (_, _, _, _, mut state) in &mut looks {
        let state = state.bypass_change_detection();
        if let (true, Some(bones)) = (state.dirty, &mut state.bones) {
            bones.write_back(&mut writer);
        }
    }
}
