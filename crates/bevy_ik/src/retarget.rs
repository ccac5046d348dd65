//! Runtime retargeting: loaded [`AnimationClip`]s of one rigged humanoid, remade for another.
//!
//! **Method.** Put [`RetargetClips`] on a character, naming a *source* character (e.g. a
//! hidden instance of the file the clips come from, never animated) and the clips. Each
//! character's [`RestPose`] is taken as soon as its bones exist (before the frame's IK runs
//! on them); its rig comes from its [`RiggedHumanoid`] (when [`crate::humanoid::HumanoidIk`]
//! rigged it) or is detected the same way. Once both are measured and the clips are loaded,
//! each clip is sampled at 60 Hz on the source's bones ([`AnimationClip::sample_clamped`]),
//! every frame
//! goes through [`ik_core::retarget::retarget_clip`] (rotations per role from the rest poses,
//! paths scaled by leg length, feet put back where the source's stood by IK, pelvis drops
//! eased over the clip) and the result becomes a new clip keyed on the target's bones
//! (rotations and rest scales of the role bones, translations of the pelvis and of feet that
//! hang outside their shins). A character with no animation targets (a file without clips) gets an
//! [`AnimationPlayer`] on the top entity above its pelvis and a target on each bone, named
//! by the names on its path from there. The handles land in [`RetargetedClips`] and
//! [`ClipsRetargeted`] is
//! triggered on the character; a failure is one [`RetargetClipsFailed`] (component and
//! event) with a message naming the bone or role, logged once.
//!
//! Names, units, axes, facing, T- or A-pose rests and bone axes of either character do not
//! matter (the rigs' measured frames match them). Contact timing is the source's: play the
//! source clip's contact labels with the retargeted clip. Add [`RetargetClips`] when you spawn
//! the character: the rest pose is what its bones hold when they first exist (a character
//! already animated or corrected by IK would be measured in that pose).
//!
//! ```no_run
//! # use bevy::prelude::*;
//! # use bevy_ik::prelude::*;
//! // `mannequin`: the root of a spawned scene of the file the clips come from (hidden, never
//! // animated); `my_character`: the root of your character's scene; `walk`: the mannequin's
//! // Walk (e.g. `GltfAssetLabel::Animation(1).from_asset("mannequin.glb")`).
//! fn setup(mut commands: Commands, mannequin: Entity, my_character: Entity, walk: Handle<AnimationClip>) {
//!     commands.entity(my_character).insert((HumanoidIk::default(), RetargetClips::new(mannequin, vec![walk])));
//! }
//!
//! // Then play `RetargetedClips::clips[0]` on the character's `AnimationPlayer`, at the
//! // source's speed × `RetargetedClips::scale`.
//! fn play(retargeted: Query<&RetargetedClips, Added<RetargetedClips>>) {
//!     for clips in &retargeted {
//!         let _walk: &Handle<AnimationClip> = &clips.clips[0];
//!     }
//! }
//! ```

use bevy::animation::{AnimatedBy, AnimationTargetId, animated_field};
use bevy::ecs::entity::MapEntities;
use bevy::ecs::system::SystemParam;
use bevy::math::curve::UnevenSampleAutoCurve;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use ik_core::Xform;
use ik_core::retarget::{ClipRetargetReport, RetargetMap, RetargetRig, RetargetSettings, clip_loops, retarget_clip};
use ik_core::rig::{HumanoidRig, RigFrame};

use crate::bones::Hierarchy;
use crate::humanoid::{HumanoidBones, RigChoice, RiggedHumanoid};

/// Frames per second the clips are sampled and keyed at.
pub const RETARGET_RATE: f32 = 60.0;

/// Asks for clips of another humanoid remade for this one (see the module docs).
#[derive(Component, MapEntities, Clone, Debug)]
pub struct RetargetClips {
    /// The character the clips are made for (its root; humanoid bone names or shape, as
    /// [`crate::humanoid::HumanoidIk`] rigs them).
    #[entities]
    pub source: Entity,
    /// How to find this character's roles when no [`RiggedHumanoid`] says.
    pub profile: RigChoice,
    /// How to find the source's roles when no [`RiggedHumanoid`] says (a rig map of this
    /// character does not fit the source).
    pub source_profile: RigChoice,
    /// The clips, in the order [`RetargetedClips::clips`] gives them back.
    pub clips: Vec<Handle<AnimationClip>>,
    /// How the target is posed: feet put back by IK (default), hands optionally.
    pub settings: RetargetSettings,
}

impl RetargetClips {
    /// `clips` of `source`, with the default settings.
    pub fn new(source: Entity, clips: Vec<Handle<AnimationClip>>) -> Self {
        RetargetClips {
            source,
            clips,
            settings: RetargetSettings::default(),
            profile: RigChoice::Auto,
            source_profile: RigChoice::Auto,
        }
    }
}

/// The retargeted clips, in [`RetargetClips::clips`] order, and what the IK did on each.
#[derive(Component, Clone, Debug)]
pub struct RetargetedClips {
    /// The new clips, keyed on this character's bones.
    pub clips: Vec<Handle<AnimationClip>>,
    /// Per clip: frames a foot missed its goal, the legs' largest extension, the largest
    /// pelvis drop.
    pub reports: Vec<ClipRetargetReport>,
    /// How much longer this character's legs are than the source's: a clip the source walks at
    /// `v` m/s, this character walks at `scale × v` (the paths were scaled by it).
    pub scale: f32,
}

/// Inserted (and triggered) when the clips cannot be retargeted; it is not retried until
/// removed.
#[derive(Component, EntityEvent, Clone, Debug, PartialEq)]
pub struct RetargetClipsFailed {
    /// The character.
    pub entity: Entity,
    /// What is missing, naming the bone, role or clip.
    pub message: String,
}

/// The local transform of every bone of a character as it was when its bones first existed:
/// the pose retargeting measures it in (see the module docs).
#[derive(Component, Clone, Debug, Default)]
pub struct RestPose {
    /// Each descendant's `Transform` then.
    pub transforms: HashMap<Entity, Transform>,
}

/// Triggered on a character when its [`RetargetedClips`] are there.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq)]
pub struct ClipsRetargeted {
    /// The character.
    pub entity: Entity,
}

/// One rigged character as the retargeting sees it: its named bones in root space, parents
/// first.
#[derive(Clone, Debug)]
pub struct RetargetSkeleton {
    /// The bone entities.
    pub entities: Vec<Entity>,
    /// Bone names, for messages.
    pub names: Vec<String>,
    /// Nearest named ancestor of each bone.
    pub parents: Vec<Option<usize>>,
    /// Rest locals relative to those ancestors.
    pub rest: Vec<Xform>,
    /// Per bone, what lies between its named ancestor and its real parent (unnamed nodes),
    /// at rest: `skeleton local = offset · Transform`.
    pub offsets: Vec<Xform>,
    /// Each bone's `Transform` at rest.
    pub transforms: Vec<Xform>,
    /// Each bone's animation target, if it has one.
    pub targets: Vec<Option<AnimationTargetId>>,
    /// For a character with no animation targets (a file without clips): the node an
    /// [`AnimationPlayer`] goes on, and the targets given to the bones below it (named by their
    /// path from it, as Bevy's glTF loader names them).
    pub new_targets: Option<Entity>,
    /// The roles, as bone indices.
    pub rig: HumanoidRig<usize>,
    /// Up, forward and leg length in root space.
    pub frame: RigFrame,
}

impl RetargetSkeleton {
    fn retarget_rig(&self) -> RetargetRig<'_> {
        RetargetRig { parents: &self.parents, rest: &self.rest, names: &self.names, rig: &self.rig, frame: self.frame }
    }

    /// `clip` sampled on these bones at `times` ([`AnimationClip::sample_clamped`]; a channel
    /// the clip does not animate keeps its rest value): `times.len() × bones` locals, each
    /// relative to the bone's named ancestor (as [`Self::rest`]). The error says when the clip
    /// animates none of the bones.
    ///
    /// ```no_run
    /// # use bevy::prelude::*;
    /// # use bevy_ik::humanoid::RigChoice;
    /// # use bevy_ik::retarget::{RestPose, RetargetBones};
    /// // The pose of `walk` at 0.5 s on `character`'s bones.
    /// fn half_a_second_in(
    ///     bones: &RetargetBones,
    ///     character: Entity,
    ///     rest: &RestPose,
    ///     walk: &AnimationClip,
    /// ) -> Result<Vec<bevy_ik::ik_core::Xform>, String> {
    ///     bones.skeleton(character, rest, None, &RigChoice::Auto)?.sample(walk, &[0.5])
    /// }
    /// ```
    pub fn sample(&self, clip: &AnimationClip, times: &[f32]) -> Result<Vec<Xform>, String> {
        if !self.targets.iter().flatten().any(|id| clip.curves_for_target(*id).is_some()) {
            return Err("the clip animates none of the character's bones (is it this character's clip?)".into());
        }
        let mut sampled = Vec::with_capacity(times.len() * self.entities.len());
        for &t in times {
            for b in 0..self.entities.len() {
                let mut local = self.transforms[b];
                if let Some(id) = self.targets[b] {
                    local.translation = clip
                        .sample_clamped(animated_field!(Transform::translation), id, t)
                        .unwrap_or(local.translation);
                    local.rotation =
                        clip.sample_clamped(animated_field!(Transform::rotation), id, t).unwrap_or(local.rotation);
                    local.scale = clip.sample_clamped(animated_field!(Transform::scale), id, t).unwrap_or(local.scale);
                }
                sampled.push(self.offsets[b].mul_xform(&local));
            }
        }
        Ok(sampled)
    }
}

/// Reads rigged characters for retargeting.
#[derive(SystemParam)]
pub struct RetargetBones<'w, 's> {
    bones: HumanoidBones<'w, 's>,
    names: Query<'w, 's, &'static Name>,
    hierarchy: Hierarchy<'w, 's>,
    targets: Query<'w, 's, &'static AnimationTargetId>,
}

impl RetargetBones<'_, '_> {
    /// The skeleton under `root` in its rest pose, with the roles of its [`RiggedHumanoid`]
    /// (else detected by `profile`); the error names what is missing.
    pub fn skeleton(
        &self,
        root: Entity,
        rest_pose: &RestPose,
        rigged: Option<&RiggedHumanoid>,
        profile: &RigChoice,
    ) -> Result<RetargetSkeleton, String> {
        let detected;
        let (rig, frame) = match rigged {
            Some(r) => (&r.rig, r.frame),
            None => {
                detected = self.bones.detect(root, profile)?;
                (&detected.rig, detected.frame)
            }
        };
        let bones = self.bones.skeleton(root);
        // Root space at rest: each bone's rest transforms composed up to (not including) the
        // root. Where the skin's joints hold no rest of their own (babylon2gltf keeps it in the
        // inverse bind matrices alone), they rest as bound.
        let bind = self.bones.bind_pose(root);
        let local = |e: Entity| {
            let bound = bind.empty_node_rest(e, &self.hierarchy);
            bound
                .map(|x| Transform { translation: x.translation, rotation: x.rotation, scale: x.scale })
                .or_else(|| rest_pose.transforms.get(&e).copied())
                .or_else(|| self.hierarchy.get(e).ok().map(|t| *t.0))
        };
        let model = |e: Entity| -> Option<Xform> {
            let mut at = e;
            let mut out = Xform::IDENTITY;
            for _ in 0..512 {
                if at == root {
                    return Some(out);
                }
                out = crate::bones::xform_of(&local(at)?).mul_xform(&out);
                at = self.hierarchy.get(at).ok()?.1?.parent();
            }
            None
        };
        let n = bones.len();
        let (mut rest, mut offsets, mut transforms, mut targets) =
            (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let mut models: Vec<Xform> = Vec::with_capacity(n);
        for (entity, name, parent, _) in &bones {
            let child_of = self.hierarchy.get(*entity).map_err(|_| format!("bone {name} has no transform"))?.1;
            let transform = local(*entity).ok_or_else(|| format!("bone {name} has no transform"))?;
            let here = model(*entity).ok_or_else(|| format!("bone {name}: broken hierarchy"))?;
            let above = parent.map_or(Xform::IDENTITY, |p| models[p]);
            let real_parent = match child_of.map(ChildOf::parent) {
                Some(p) if p != root => model(p).ok_or_else(|| format!("bone {name}: broken hierarchy"))?,
                _ => Xform::IDENTITY,
            };
            rest.push(above.inverse().mul_xform(&here));
            offsets.push(above.inverse().mul_xform(&real_parent));
            transforms.push(crate::bones::xform_of(&transform));
            targets.push(self.targets.get(*entity).ok().copied());
            models.push(here);
        }
        let entities: Vec<Entity> = bones.iter().map(|b| b.0).collect();
        let mut new_targets = None;
        if targets.iter().all(Option::is_none) {
            let (player, ids) = self.name_targets(root, rig.pelvis, &entities)?;
            (new_targets, targets) = (Some(player), ids);
        }
        let rig = rig
            .try_map(|e| entities.iter().position(|b| b == e))
            .ok_or("a rigged bone is not among the character's named bones")?;
        Ok(RetargetSkeleton {
            names: bones.iter().map(|b| b.1.clone()).collect(),
            parents: bones.iter().map(|b| b.2).collect(),
            entities,
            rest,
            offsets,
            transforms,
            targets,
            new_targets,
            rig,
            frame,
        })
    }

    /// Animation targets for a character that has none: the animation root is the top node
    /// above the pelvis (under `root`); each bone below it is named by the names on its path
    /// from it.
    fn name_targets(
        &self,
        root: Entity,
        pelvis: Entity,
        bones: &[Entity],
    ) -> Result<(Entity, Vec<Option<AnimationTargetId>>), String> {
        let parent = |e: Entity| self.hierarchy.get(e).ok().and_then(|(_, c)| c.map(ChildOf::parent));
        let mut top = pelvis;
        while let Some(p) = parent(top).filter(|&p| p != root) {
            top = p;
        }
        let ids = bones
            .iter()
            .map(|&bone| {
                let mut path = Vec::new();
                let mut at = bone;
                loop {
                    path.push(self.names.get(at).map_err(|_| format!("node {at} above a bone has no name"))?);
                    if at == top {
                        break;
                    }
                    match parent(at) {
                        Some(p) if p != root => at = p,
                        _ => return Ok(None), // not below the animation root
                    }
                }
                Ok(Some(AnimationTargetId::from_names(path.into_iter().rev())))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok((top, ids))
    }
}

/// The map between two skeletons (checks both rigs once); the error names the bone or role.
pub fn retarget_map(
    source: &RetargetSkeleton,
    target: &RetargetSkeleton,
    settings: RetargetSettings,
) -> Result<RetargetMap, String> {
    RetargetMap::new(&source.retarget_rig(), &target.retarget_rig(), settings).map_err(|e| e.to_string())
}

/// `clip`, made for `source`, remade for `target`; see the module docs. The error names the
/// clip's missing curves or the rig that cannot be matched.
pub fn retarget_animation(
    source: &RetargetSkeleton,
    target: &RetargetSkeleton,
    clip: &AnimationClip,
    settings: RetargetSettings,
) -> Result<(AnimationClip, ClipRetargetReport), String> {
    let map = retarget_map(source, target, settings)?;
    let nt = target.entities.len();
    let duration = clip.duration();
    if !(duration.is_finite() && duration >= 0.0) {
        return Err("the clip has no finite duration".into());
    }
    let frames = (duration * RETARGET_RATE).round() as usize + 1;
    let times: Vec<f32> = (0..frames).map(|f| (f as f32 / RETARGET_RATE).min(duration)).collect();
    let sampled = source.sample(clip, &times)?;
    let mut locals = vec![Xform::IDENTITY; frames * nt];
    let looping = clip_loops(&sampled, source.entities.len(), source.frame.leg_length);
    let report = retarget_clip(&map, &sampled, RETARGET_RATE, looping, &mut locals, &mut |_| {})
        .map_err(|e| format!("frame {}: {}", e.frame, e.error))?;
    let mut out = AnimationClip::default();
    let key = |b: usize| {
        target.targets[b].ok_or_else(|| {
            format!("bone {} has no animation target (is it under the character's AnimationPlayer?)", target.names[b])
        })
    };
    let transform_local = |f: usize, b: usize| target.offsets[b].inverse().mul_xform(&locals[f * nt + b]);
    for b in map.driven_bones() {
        let mut previous = Quat::IDENTITY;
        let keys = (0..frames).map(|f| {
            let q = transform_local(f, b).rotation.normalize();
            previous = if previous.dot(q) < 0.0 { -q } else { q };
            (times[f], previous)
        });
        let curve = UnevenSampleAutoCurve::new(keys).map_err(|e| format!("bone {}: {e}", target.names[b]))?;
        out.add_curve_to_target(key(b)?, AnimatableCurve::new(animated_field!(Transform::rotation), curve));
        // Their scale too (the target's rest): blended with a clip of the target's own that
        // scales them (a stretchy rig's idle), an unkeyed scale would take that clip's whole.
        let keys = (0..frames).map(|f| (times[f], transform_local(f, b).scale));
        let curve = UnevenSampleAutoCurve::new(keys).map_err(|e| format!("bone {}: {e}", target.names[b]))?;
        out.add_curve_to_target(key(b)?, AnimatableCurve::new(animated_field!(Transform::scale), curve));
    }
    for b in map.translated_bones() {
        let keys = (0..frames).map(|f| (times[f], transform_local(f, b).translation));
        let curve = UnevenSampleAutoCurve::new(keys).map_err(|e| format!("bone {}: {e}", target.names[b]))?;
        out.add_curve_to_target(key(b)?, AnimatableCurve::new(animated_field!(Transform::translation), curve));
    }
    Ok((out, report))
}

/// A request not yet answered (neither retargeted nor failed).
type Unfinished = (Without<RetargetedClips>, Without<RetargetClipsFailed>);

/// Takes the [`RestPose`] of every character a [`RetargetClips`] names (the target and the
/// source) as soon as it has named bones, in `PreUpdate`: before this frame's animation and IK.
pub(crate) fn capture_rest_poses(
    mut commands: Commands,
    requests: Query<(Entity, &RetargetClips), Unfinished>,
    poses: Query<(), With<RestPose>>,
    children: Query<&Children>,
    names: Query<(), With<Name>>,
    transforms: Query<&Transform>,
) {
    for (target, request) in &requests {
        for root in [target, request.source] {
            if !poses.contains(root)
                && let Some(pose) = RestPose::of(root, &children, &names, &transforms)
            {
                commands.entity(root).insert(pose);
            }
        }
    }
}

impl RestPose {
    /// The pose `root`'s descendants hold now; `None` while it has no named descendant (its
    /// scene not spawned yet).
    pub(crate) fn of(
        root: Entity,
        children: &Query<&Children>,
        names: &Query<(), With<Name>>,
        transforms: &Query<&Transform>,
    ) -> Option<RestPose> {
        if !children.iter_descendants(root).any(|e| names.contains(e)) {
            return None;
        }
        let transforms = children.iter_descendants(root).filter_map(|e| Some((e, *transforms.get(e).ok()?))).collect();
        Some(RestPose { transforms })
    }
}

/// A character as the retargeting reads it: its rest pose and, if rigged, its rig.
type Measured<'a> = (&'a RestPose, Option<&'a RiggedHumanoid>);

/// Retargets every [`RetargetClips`] whose characters are measured and clips loaded; one whose
/// source is gone or whose clip failed to load fails instead of waiting for ever.
pub(crate) fn retarget_clips(
    mut commands: Commands,
    pending: Query<(Entity, &RetargetClips), Unfinished>,
    characters: Query<(&RestPose, Option<&RiggedHumanoid>)>,
    bones: RetargetBones,
    mut clips: ResMut<Assets<AnimationClip>>,
    assets: Res<AssetServer>,
    exists: Query<()>,
) {
    for (entity, request) in &pending {
        let unloadable = request.clips.iter().position(|h| assets.load_state(h).is_failed());
        let outcome = if !exists.contains(request.source) {
            Err(format!("the source {} does not exist", request.source))
        } else if let Some(i) = unloadable {
            Err(format!("clip {i} failed to load"))
        } else if let (Ok(target), Ok(source)) = (characters.get(entity), characters.get(request.source))
            && request.clips.iter().all(|h| clips.contains(h))
        {
            retarget_request((entity, target), (request, source), &bones, &clips)
        } else {
            continue; // the bones or the clips are still loading
        };
        match outcome {
            Ok((made, scale, target)) => {
                if let Some(player) = target.new_targets {
                    commands.entity(player).insert(AnimationPlayer::default());
                    for (&bone, id) in target.entities.iter().zip(&target.targets) {
                        if let Some(id) = id {
                            commands.entity(bone).insert((*id, AnimatedBy(player)));
                        }
                    }
                }
                let (new, reports): (Vec<AnimationClip>, Vec<ClipRetargetReport>) = made.into_iter().unzip();
                let handles = new.into_iter().map(|clip| clips.add(clip)).collect();
                commands.entity(entity).insert(RetargetedClips { clips: handles, reports, scale });
                commands.trigger(ClipsRetargeted { entity });
            }
            Err(reason) => {
                let message = format!("cannot retarget the clips onto {entity}: {reason}");
                warn!("{message}");
                let failed = RetargetClipsFailed { entity, message };
                commands.entity(entity).insert(failed.clone());
                commands.trigger(failed);
            }
        }
    }
}

/// One retargeted clip and what the IK did on it.
type MadeClip = (AnimationClip, ClipRetargetReport);

/// The clips of one request remade for its character, the scale and the target's skeleton.
fn retarget_request(
    (entity, target): (Entity, Measured),
    (request, source): (&RetargetClips, Measured),
    bones: &RetargetBones,
    clips: &Assets<AnimationClip>,
) -> Result<(Vec<MadeClip>, f32, RetargetSkeleton), String> {
    let source = bones
        .skeleton(request.source, source.0, source.1, &request.source_profile)
        .map_err(|e| format!("the source: {e}"))?;
    let target =
        bones.skeleton(entity, target.0, target.1, &request.profile).map_err(|e| format!("the target: {e}"))?;
    let scale = retarget_map(&source, &target, request.settings)?.scale();
    let mut made = Vec::with_capacity(request.clips.len());
    for (i, handle) in request.clips.iter().enumerate() {
        let clip = clips.get(handle).ok_or("a clip was unloaded")?;
        made.push(retarget_animation(&source, &target, clip, request.settings).map_err(|e| format!("clip {i}: {e}"))?);
    }
    Ok((made, scale, target))
}
