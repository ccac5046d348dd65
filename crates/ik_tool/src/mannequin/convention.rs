//! Character conventions: the mannequin re-authored the ways user characters come.
//!
//! Method: a [`Convention`] picks one value on each independent axis — bone names, whether
//! the `root` bone exists, the top node's transform (uniform armature scale, Z-up data under a
//! matrix node), facing, rest pose, where the feet hang, node order, clip set and sidecar;
//! [`super::convert::generate_convention`] builds the asset. [`conventions`] lists the named
//! presets that `ik_tool mannequin --convention NAME` accepts.
//!
//! Invariants: every preset describes the same ~1.8 m character standing on the floor in
//! world space (glTF: +Y up, metres), whatever its data's units, axes, names or node order;
//! names are unique within a preset; the presets are listed in a fixed order.

/// Bone-naming scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// Today's names (`root`, `pelvis`, `spine_01`, …, `thigh_l`, `calf_l`, `foot_l`, `ball_l`).
    Unreal,
    /// `mixamorig:Hips`, `mixamorig:Spine`, `…Spine1`, `…Spine2`, `…LeftArm`, `…LeftUpLeg`,
    /// `…LeftLeg`, `…LeftFoot`, `…LeftToeBase`.
    Mixamo,
    /// Blender metarig style: `hips`, `spine`, `spine.001`, `chest`, `upper_arm.L`, `thigh.L`,
    /// `shin.L`, `foot.L`, `toe.L`.
    Blender,
    /// Asset-store packs: `Hips`, `Spine`, `Chest`, `UpperChest`, `UpperArm.L`, `UpperLeg.L`,
    /// `LowerLeg.L`, `Foot.L`, `Toes.L`.
    AssetPack,
    /// VRM humanoid: `hips`, `spine`, `chest`, `upperChest`, `leftUpperArm`, `leftUpperLeg`,
    /// `leftLowerLeg`, `leftFoot`, `leftToes`.
    Vrm,
    /// Names that say nothing: `bone_000` … `bone_023`, numbered in a scrambled order.
    Arbitrary,
    /// Chain-numbered names: `body_joint_0` … `body_joint_5`, `arm_joint_L_0` …,
    /// `leg_joint_L_1` … `leg_joint_L_4`.
    Generic,
}

/// Which way the character faces in world space (up is always world +Y).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Facing {
    /// Forward +Z, left +X (the mannequin's).
    PlusZ,
    /// Forward −Z, left −X: the whole character and its clips turned 180° about +Y.
    MinusZ,
}

/// Rest (bind) pose of the arms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RestPose {
    /// The mannequin's own A-pose: arms 30° out from vertical (60° below horizontal).
    Mannequin,
    /// T-pose: upper arms and forearms horizontal.
    T,
    /// A-pose with the arms 45° below horizontal.
    A45,
}

/// Each bone's rest frame in the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoneAxes {
    /// Every bone's rest frame is the data's axes (rest locals are pure translations).
    Model,
    /// Each bone's +Y points down the bone to its tail (Blender's bone axes), so every bone's
    /// rest rotation differs and a clip's rotations read in each bone's own axes.
    AlongBone,
}

/// Parent of the foot bones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeetParent {
    /// The shins (calves), as usual.
    Shins,
    /// The root bone (an IK-control rig); needs [`Convention::root_bone`].
    Root,
    /// An extra unskinned `FootControl` bone at the origin, child of the root (or a top joint
    /// when there is no root bone).
    Control,
}

/// Which clips the file carries, and their names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClipSet {
    /// `Idle`, `Walk`, `Jog` (the mannequin's).
    Mannequin,
    /// No animations.
    None,
    /// One walk with no `name`.
    Unnamed,
    /// One walk named `Armature|mixamo.com|Layer0`.
    Mixamo,
    /// `Walking`, `WalkJump` (a jump in place, not a walk) and `Idle`.
    WalkingWalkJump,
    /// One in-place walk named `Walk` (no root motion).
    WalkOnly,
}

/// The source of an output clip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClipSource {
    /// The mannequin's `Idle`.
    Idle,
    /// The mannequin's `Walk` (1.4 m/s, in place).
    Walk,
    /// The mannequin's `Jog` (3.2 m/s, in place).
    Jog,
    /// A jump in place ([`super::jump`]).
    Jump,
}

impl ClipSet {
    /// The clips in file order: source and glTF name (`None` = the animation has no name).
    pub fn clips(self) -> Vec<(ClipSource, Option<&'static str>)> {
        use ClipSource::*;
        match self {
            ClipSet::Mannequin => vec![(Idle, Some("Idle")), (Walk, Some("Walk")), (Jog, Some("Jog"))],
            ClipSet::None => vec![],
            ClipSet::Unnamed => vec![(Walk, None)],
            ClipSet::Mixamo => vec![(Walk, Some("Armature|mixamo.com|Layer0"))],
            ClipSet::WalkingWalkJump => vec![(Walk, Some("Walking")), (Jump, Some("WalkJump")), (Idle, Some("Idle"))],
            ClipSet::WalkOnly => vec![(Walk, Some("Walk"))],
        }
    }
}

/// One way of authoring the character. See the module doc; [`Convention::default`] is the
/// mannequin's own convention without the sidecar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Convention {
    /// Bone names.
    pub names: Naming,
    /// Whether the `root` bone (on the floor under the pelvis, never animated) exists; without
    /// it the pelvis is the top joint.
    pub root_bone: bool,
    /// Name of the scene's top node, the parent of the bones and of the mesh node.
    pub top_node: &'static str,
    /// Uniform scale of the top node: bone and vertex data are authored × 1/scale (0.01 =
    /// data in centimetres, as FBX-via-Blender exports), so the world size stays the same.
    pub armature_scale: f32,
    /// Data authored Z-up (forward −Y, left +X in the data's axes) under a top node whose
    /// `matrix` turns it Y-up (and carries the armature scale).
    pub z_up: bool,
    /// World facing.
    pub facing: Facing,
    /// Rest (bind) pose; the clips look the same whatever it is.
    pub rest: RestPose,
    /// Parent of the feet.
    pub feet: FeetParent,
    /// Bone nodes (and skin joints) written in a scrambled order instead of parents first.
    pub shuffled: bool,
    /// The clips.
    pub clips: ClipSet,
    /// Write the `.ik.json` sidecar and each animation's `extras` (clip metadata and contacts,
    /// keyed by the convention's foot bone names).
    pub sidecar: bool,
    /// Bone rest frames.
    pub bone_axes: BoneAxes,
    /// Thigh and shin lengths × this (the pelvis raised so the rest pose stands on the floor;
    /// the clips keep their joint rotations, so their feet no longer land on the floor): other
    /// proportions for retargeting tests. 1 = the mannequin's.
    pub leg_scale: f32,
}

impl Default for Convention {
    fn default() -> Self {
        Convention {
            names: Naming::Unreal,
            root_bone: true,
            top_node: "Mannequin",
            armature_scale: 1.0,
            z_up: false,
            facing: Facing::PlusZ,
            rest: RestPose::Mannequin,
            feet: FeetParent::Shins,
            shuffled: false,
            clips: ClipSet::Mannequin,
            sidecar: false,
            bone_axes: BoneAxes::Model,
            leg_scale: 1.0,
        }
    }
}

/// Canonical name of the extra foot-control bone ([`FeetParent::Control`]).
pub const CONTROL: &str = "foot_control";

// Per canonical base name: [mixamo, blender, asset pack, vrm, generic]. Side bones get the
// scheme's side prefix or suffix; `{S}` in a generic name is the side letter.
const NAME_TABLE: [(&str, [&str; 5]); 16] = [
    ("root", ["Root", "root", "Root", "root", "base"]),
    ("pelvis", ["Hips", "hips", "Hips", "hips", "body_joint_0"]),
    ("spine_01", ["Spine", "spine", "Spine", "spine", "body_joint_1"]),
    ("spine_02", ["Spine1", "spine.001", "Chest", "chest", "body_joint_2"]),
    ("spine_03", ["Spine2", "chest", "UpperChest", "upperChest", "body_joint_3"]),
    ("neck_01", ["Neck", "neck", "Neck", "neck", "body_joint_4"]),
    ("head", ["Head", "head", "Head", "head", "body_joint_5"]),
    ("clavicle", ["Shoulder", "shoulder", "Shoulder", "Shoulder", "arm_joint_{S}_0"]),
    ("upperarm", ["Arm", "upper_arm", "UpperArm", "UpperArm", "arm_joint_{S}_1"]),
    ("lowerarm", ["ForeArm", "forearm", "LowerArm", "LowerArm", "arm_joint_{S}_2"]),
    ("hand", ["Hand", "hand", "Hand", "Hand", "arm_joint_{S}_3"]),
    ("thigh", ["UpLeg", "thigh", "UpperLeg", "UpperLeg", "leg_joint_{S}_1"]),
    ("calf", ["Leg", "shin", "LowerLeg", "LowerLeg", "leg_joint_{S}_2"]),
    ("foot", ["Foot", "foot", "Foot", "Foot", "leg_joint_{S}_3"]),
    ("ball", ["ToeBase", "toe", "Toes", "Toes", "leg_joint_{S}_4"]),
    ("foot_control", ["FootControl", "foot_control", "FootControl", "footControl", "leg_control"]),
];

impl Naming {
    /// The file name of a canonical bone (a name of [`super::skeleton::BONE_NAMES`] or
    /// [`CONTROL`]); `index` is its position in that list (23 for the control bone), used by
    /// [`Naming::Arbitrary`]. `None` for a name this table does not know.
    pub fn name(self, canonical: &str, index: usize) -> Option<String> {
        let (base, side) = match canonical.rsplit_once('_') {
            Some((b, "l")) => (b, Some(0)),
            Some((b, "r")) => (b, Some(1)),
            _ => (canonical, None),
        };
        let column = match self {
            Naming::Unreal => return Some(canonical.to_string()),
            Naming::Arbitrary => return Some(format!("bone_{:03}", (index * 7 + 5) % 24)),
            Naming::Mixamo => 0,
            Naming::Blender => 1,
            Naming::AssetPack => 2,
            Naming::Vrm => 3,
            Naming::Generic => 4,
        };
        let stem = NAME_TABLE.iter().find(|(b, _)| *b == base)?.1[column];
        Some(match (self, side) {
            (Naming::Mixamo, None) => format!("mixamorig:{stem}"),
            (Naming::Mixamo, Some(s)) => format!("mixamorig:{}{stem}", ["Left", "Right"][s]),
            (Naming::Blender | Naming::AssetPack, Some(s)) => format!("{stem}.{}", ["L", "R"][s]),
            (Naming::Vrm, Some(s)) => format!("{}{stem}", ["left", "right"][s]),
            (Naming::Generic, Some(s)) => stem.replace("{S}", ["L", "R"][s]),
            (_, _) => stem.to_string(),
        })
    }
}

impl Convention {
    /// The file name of a canonical bone under this convention (see [`Naming::name`]), or
    /// `None` when the bone does not exist in it (`root` without [`Convention::root_bone`],
    /// [`CONTROL`] unless the feet hang from it).
    pub fn bone_name(&self, canonical: &str) -> Option<String> {
        let names = super::skeleton::BONE_NAMES;
        let index = names.iter().position(|n| *n == canonical).or((canonical == CONTROL).then_some(names.len()))?;
        let exists = match canonical {
            "root" => self.root_bone,
            CONTROL => self.feet == FeetParent::Control,
            _ => true,
        };
        if exists { self.names.name(canonical, index) } else { None }
    }

    /// Unit world forward direction (+Z or −Z).
    pub fn forward(&self) -> glam::Vec3 {
        match self.facing {
            Facing::PlusZ => glam::Vec3::Z,
            Facing::MinusZ => glam::Vec3::NEG_Z,
        }
    }
}

/// The named presets, in a fixed order; each axis takes each of its values at least once.
///
/// - `unreal`: today's names and layout, every clip and the sidecar (the baseline).
/// - `mixamo`: Mixamo names, no root bone, an `Armature` top node, one Mixamo-named walk.
/// - `mixamo_cm`: as `mixamo` with the armature at scale 0.01 (data in centimetres).
/// - `blender_zup`: Blender names, data Z-up under a matrix `Armature` node, Idle/Walk/Jog.
/// - `asset_pack`: asset-pack names, T-pose, `Walking` + `WalkJump` (a jump) + `Idle`.
/// - `asset_pack_feet_under_root`: as `asset_pack` with the feet children of `Root`.
/// - `vrm_minus_z`: VRM names, no root bone, T-pose, facing −Z, one in-place `Walk`.
/// - `arbitrary_shuffled_a_pose`: scrambled `bone_NNN` names, nodes shuffled, 45° A-pose, one
///   unnamed walk.
/// - `robot_100`: chain-numbered names, armature scale 100 (data × 0.01), feet under a
///   `leg_control` bone, no clips.
/// - `everything`: scrambled names, no root, Z-up matrix with scale 0.01, facing −Z, T-pose,
///   feet under a control bone, shuffled nodes, `Walking` + `WalkJump` + `Idle`.
pub fn conventions() -> Vec<(&'static str, Convention)> {
    let d = Convention::default();
    let mixamo =
        Convention { names: Naming::Mixamo, root_bone: false, top_node: "Armature", clips: ClipSet::Mixamo, ..d };
    let asset_pack = Convention { names: Naming::AssetPack, rest: RestPose::T, clips: ClipSet::WalkingWalkJump, ..d };
    vec![
        ("unreal", Convention { sidecar: true, ..d }),
        ("mixamo", mixamo),
        ("mixamo_cm", Convention { armature_scale: 0.01, ..mixamo }),
        ("blender_zup", Convention { names: Naming::Blender, root_bone: false, top_node: "Armature", z_up: true, ..d }),
        ("asset_pack", asset_pack),
        ("asset_pack_feet_under_root", Convention { feet: FeetParent::Root, ..asset_pack }),
        (
            "vrm_minus_z",
            Convention {
                names: Naming::Vrm,
                root_bone: false,
                top_node: "Root",
                facing: Facing::MinusZ,
                rest: RestPose::T,
                clips: ClipSet::WalkOnly,
                ..d
            },
        ),
        (
            "arbitrary_shuffled_a_pose",
            Convention {
                names: Naming::Arbitrary,
                top_node: "Scene",
                rest: RestPose::A45,
                shuffled: true,
                clips: ClipSet::Unnamed,
                ..d
            },
        ),
        (
            "robot_100",
            Convention {
                names: Naming::Generic,
                top_node: "Robot",
                armature_scale: 100.0,
                feet: FeetParent::Control,
                clips: ClipSet::None,
                ..d
            },
        ),
        (
            "everything",
            Convention {
                names: Naming::Arbitrary,
                root_bone: false,
                top_node: "Armature",
                armature_scale: 0.01,
                z_up: true,
                facing: Facing::MinusZ,
                rest: RestPose::T,
                feet: FeetParent::Control,
                shuffled: true,
                clips: ClipSet::WalkingWalkJump,
                sidecar: false,
                ..d
            },
        ),
    ]
}

/// The preset of that name.
pub fn find(name: &str) -> Option<Convention> {
    conventions().into_iter().find(|(n, _)| *n == name).map(|(_, c)| c)
}

/// The preset names, comma-separated, in list order.
pub fn names() -> String {
    conventions().iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

impl Convention {
    /// One line naming this convention's value on every axis.
    pub fn summary(&self) -> String {
        let clips: Vec<String> =
            self.clips.clips().iter().map(|(_, n)| n.map_or("(unnamed)".to_string(), |n| format!("`{n}`"))).collect();
        format!(
            "names {:?}, {}, top node `{}` (scale {}{}), facing {}, rest {:?}, feet under {:?}, {} nodes, clips: {}, {}",
            self.names,
            if self.root_bone { "root bone" } else { "no root bone" },
            self.top_node,
            self.armature_scale,
            if self.z_up { ", Z-up data under a matrix" } else { "" },
            if self.facing == Facing::PlusZ { "+Z" } else { "-Z" },
            self.rest,
            self.feet,
            if self.shuffled { "shuffled" } else { "parents-first" },
            if clips.is_empty() { "none".to_string() } else { clips.join(" ") },
            if self.sidecar { "sidecar" } else { "no sidecar" },
        ) + &self.shape_summary()
    }

    /// The bone axes and leg scale when they are not the mannequin's (empty otherwise).
    fn shape_summary(&self) -> String {
        let mut out = String::new();
        if self.bone_axes != BoneAxes::Model {
            out.push_str(&format!(", bone axes {:?}", self.bone_axes));
        }
        if self.leg_scale != 1.0 {
            out.push_str(&format!(", legs x {}", self.leg_scale));
        }
        out
    }
}

/// The preset list as text: one `name: summary` line per preset.
pub fn describe() -> String {
    conventions().iter().map(|(n, c)| format!("{n}: {}", c.summary())).collect::<Vec<_>>().join("\n")
}
