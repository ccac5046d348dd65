//! A `--character` without a walk clip gets the mannequin's locomotion clips, retargeted.
//!
//! Method: before the app loads the user's file, [`missing_roles`] reads it with ik_tool's glTF
//! reader, rigs it as the demo will (the rig profiles, the shape, or `--rig-map`) and chooses
//! its clips as [`crate::character::finish_character`] will ([`crate::clips::choose`] over the
//! file's clip names and the sidecar's speeds, and `--clips`). When no clip plays the walk,
//! [`retarget_onto`] retargets the mannequin's clips for the roles still open (`Walk`, and
//! `Idle` / `Jog` when the file has none) onto it through [`ik_tool::retarget::run_clips`]
//! (`ik_core::retarget`: rotations per role from the rest poses, paths scaled by leg length,
//! feet put back where the mannequin's stood by IK), writes the result to a cache file and
//! returns it, with the new clips' contact labels merged into the character's clip table. The
//! demo loads that file instead of the user's.
//! Inputs: the user's file, its rig map, its clip table, the `--clips` overrides. Outputs:
//! [`Retargeted`]: the file to load, the merged table, the clip names retargeted.
//! Invariants: the user's file is never written; the cache file (in the temp directory, or
//! next to the user's file when it refers to images by relative path) is named by a hash of
//! every input and of the demo binary, and is complete or absent (written under a temporary
//! name, its sidecar renamed first, the `.glb` last); a failure is one message naming the file
//! and what is missing.

use std::path::{Path, PathBuf};

use ik_tool::gltf_read;
use ik_tool::retarget::{Character, RetargetOptions, run_clips};

use crate::clips::{ClipCandidate, ClipOverrides, ClipRole};
use crate::sidecar::{ClipTable, clip_key};

/// The character the clips come from.
pub const MANNEQUIN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/mannequin.glb");

/// The mannequin's clip for a role.
pub fn mannequin_clip(role: ClipRole) -> &'static str {
    match role {
        ClipRole::Idle => "Idle",
        ClipRole::Walk => "Walk",
        ClipRole::Run => "Jog",
    }
}

/// The mannequin's clips retargeted onto a character.
#[derive(Clone, Debug)]
pub struct Retargeted {
    /// The file to load: the user's character with the retargeted clips added.
    pub glb: PathBuf,
    /// Every clip's info: the user's clips as labelled before, the retargeted ones from the
    /// cache's sidecar.
    pub table: ClipTable,
    /// The mannequin's clips written, in role order (`Idle`, `Walk`, `Jog`).
    pub clips: Vec<String>,
    /// Whether the cache file was there already.
    pub reused: bool,
}

impl Retargeted {
    /// "Idle, Walk, Jog retargeted from the mannequin", for the UI and the output.
    pub fn describe(&self) -> String {
        format!("{} retargeted from the mannequin", self.clips.join(", "))
    }
}

/// The roles to fill from the mannequin: none when a clip of the file plays the walk, else
/// `Walk` and whichever of idle and run no clip plays. `None` as well when the file cannot be
/// read or rigged here, or `--clips` names no clip of it: the demo's own loading then says why.
pub fn missing_roles(
    path: &Path,
    rig_map: Option<&[(String, String)]>,
    table: Option<&ClipTable>,
    overrides: &ClipOverrides,
) -> Option<Vec<ClipRole>> {
    let doc = gltf_read::load_character(path).ok()?;
    let names: Vec<String> =
        (0..doc.root.animations.len()).map(|i| doc.animation_name(i).unwrap_or("").to_string()).collect();
    let map = rig_map.map(map_text).map(|m| ik_tool::legs::parse_map(&m)).transpose().ok()?;
    let leg_length = Character::rig(doc, map.as_ref(), "character").ok()?.report.frame.leg_length;
    let candidates: Vec<ClipCandidate> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let key = clip_key(name, i);
            let info = table.and_then(|t| t.clips.iter().find(|c| c.name == key));
            ClipCandidate {
                name: name.clone(),
                speed: info.map(|c| c.nominal_speed),
                alternates: info.and_then(crate::sidecar::ClipInfo::feet_alternate),
            }
        })
        .collect();
    let choice = crate::clips::choose(&candidates, leg_length, overrides).ok()?;
    if choice.walk.is_some() {
        return Some(Vec::new());
    }
    Some(ClipRole::ALL.into_iter().filter(|r| choice.get(*r).is_none()).collect())
}

/// Whether the file has animations of its own (false too when it cannot be read).
pub fn has_clips(path: &Path) -> bool {
    gltf_read::load_character(path).is_ok_and(|doc| !doc.root.animations.is_empty())
}

/// Retargets the mannequin's clips for `roles` onto the character at `path` (see the module
/// docs); `table` is the character's own clip table, kept for its other clips.
pub fn retarget_onto(
    path: &Path,
    rig_map: Option<&[(String, String)]>,
    table: Option<&ClipTable>,
    roles: &[ClipRole],
) -> Result<Retargeted, String> {
    let clips: Vec<&str> = roles.iter().map(|r| mannequin_clip(*r)).collect();
    let glb = cache_path(path, rig_map, &clips)?;
    let sidecar = ik_tool::mannequin::sidecar_path(&glb);
    let cached = glb.is_file().then(|| std::fs::read_to_string(&sidecar).ok()).flatten();
    let (written, reused) = match cached.and_then(|text| ClipTable::parse(&text).ok()) {
        Some(written) if clips.iter().all(|c| written.clips.iter().any(|w| w.name == *c)) => (written, true),
        _ => (write(path, rig_map, &clips, &glb)?, false),
    };
    let mut merged: Vec<_> =
        table.map_or(Vec::new(), |t| t.clips.iter().filter(|c| !clips.contains(&c.name.as_str())).cloned().collect());
    merged.extend(written.clips.into_iter().filter(|c| clips.contains(&c.name.as_str())));
    Ok(Retargeted {
        glb,
        table: ClipTable { clips: merged },
        clips: clips.iter().map(|c| c.to_string()).collect(),
        reused,
    })
}

/// Runs the retarget into a temporary name next to `glb`, then renames sidecar and file into
/// place; returns the clips' labels as written.
fn write(path: &Path, rig_map: Option<&[(String, String)]>, clips: &[&str], glb: &Path) -> Result<ClipTable, String> {
    let map = match rig_map {
        Some(m) => Some(ik_tool::legs::parse_map(&map_text(m)).map_err(|e| format!("--rig-map: {e}"))?),
        None => None,
    };
    let options = RetargetOptions { target_map: map, ..Default::default() };
    let partial = glb.with_extension(format!("partial{}.glb", std::process::id()));
    let partial_sidecar = ik_tool::mannequin::sidecar_path(&partial);
    let result = run_clips(Path::new(MANNEQUIN), path, &partial, Some(clips), &options).map_err(|e| e.to_string());
    let table = result.and_then(|_| {
        let text =
            std::fs::read_to_string(&partial_sidecar).map_err(|e| format!("{}: {e}", partial_sidecar.display()))?;
        let table = ClipTable::parse(&text).map_err(|e| format!("{}: {e}", partial_sidecar.display()))?;
        let sidecar = ik_tool::mannequin::sidecar_path(glb);
        std::fs::rename(&partial_sidecar, &sidecar).map_err(|e| format!("{}: {e}", sidecar.display()))?;
        std::fs::rename(&partial, glb).map_err(|e| format!("{}: {e}", glb.display()))?;
        Ok(table)
    });
    if table.is_err() {
        std::fs::remove_file(&partial).ok();
        std::fs::remove_file(&partial_sidecar).ok();
    }
    table
}

/// `role=bone` pairs as the rig-map text ik_tool reads.
fn map_text(map: &[(String, String)]) -> String {
    map.iter().map(|(r, b)| format!("{r}={b}")).collect::<Vec<_>>().join("\n")
}

/// The cache file for these inputs (its directory created).
fn cache_path(path: &Path, rig_map: Option<&[(String, String)]>, clips: &[&str]) -> Result<PathBuf, String> {
    let target = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut hash = Fnv::default();
    hash.write(b"bevy_ik_demo retarget 1");
    hash.write(&target);
    for file in [PathBuf::from(MANNEQUIN), ik_tool::mannequin::sidecar_path(Path::new(MANNEQUIN))] {
        hash.write(&std::fs::read(&file).map_err(|e| format!("{}: cannot read: {e}", file.display()))?);
    }
    hash.write(map_text(rig_map.unwrap_or_default()).as_bytes());
    hash.write(clips.join(",").as_bytes());
    // A rebuilt demo may retarget differently: its size and time are part of the key.
    if let Some(meta) = std::env::current_exe().ok().and_then(|e| std::fs::metadata(e).ok()) {
        hash.write(&meta.len().to_le_bytes());
        let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        hash.write(&modified.unwrap_or_default().as_nanos().to_le_bytes());
    }
    let stem: String = path
        .file_stem()
        .map_or("character".into(), |s| s.to_string_lossy().into_owned())
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .collect();
    let external_images = gltf_read::load_character(path)
        .map(|doc| doc.root.images.iter().any(|i| i.uri.as_deref().is_some_and(|u| !u.starts_with("data:"))))
        .unwrap_or(false);
    let (dir, name) = if external_images {
        // Images found by relative path must stay findable: next to the user's file.
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
        (dir, format!(".{stem}.retargeted-{:016x}.glb", hash.0))
    } else {
        (std::env::temp_dir().join("bevy_ik_demo_retarget"), format!("{stem}-{:016x}.glb", hash.0))
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: cannot create the retarget cache: {e}", dir.display()))?;
    Ok(dir.join(name))
}

/// FNV-1a, 64 bits: a hash that is the same on every build and platform.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        // Length-terminated, so concatenations of different splits differ.
        for b in (bytes.len() as u64).to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ik_tool::mannequin::{conventions, generate_convention};

    fn write_convention(name: &str, dir: &Path) -> PathBuf {
        let convention = conventions().into_iter().find(|(n, _)| *n == name).unwrap().1;
        let file = dir.join(format!("{name}.glb"));
        std::fs::write(&file, generate_convention(&convention).unwrap().glb).unwrap();
        file
    }

    #[test]
    fn a_character_without_a_walk_gets_the_mannequins_clips_and_one_with_a_walk_none() {
        let dir = std::env::temp_dir().join(format!("bevy_ik_demo_retarget_unit_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let robot = write_convention("robot_100", &dir);
        let original = std::fs::read(&robot).unwrap();
        let roles = missing_roles(&robot, None, None, &ClipOverrides::default()).unwrap();
        assert_eq!(roles, ClipRole::ALL.to_vec(), "no clips: every role is open");
        let retargeted = retarget_onto(&robot, None, None, &roles).unwrap();
        assert_eq!(retargeted.describe(), "Idle, Walk, Jog retargeted from the mannequin");
        assert_eq!(std::fs::read(&robot).unwrap(), original, "the user's file is not written");
        assert_ne!(retargeted.glb.parent(), robot.parent(), "the cache is not next to the file");
        // The cache holds the clips, labelled: the walk at the mannequin's speed per leg length.
        let again = missing_roles(&retargeted.glb, None, Some(&retargeted.table), &ClipOverrides::default());
        assert_eq!(again, Some(Vec::new()), "the retargeted file has a walk");
        let walk = retargeted.table.clips.iter().find(|c| c.name == "Walk").unwrap();
        assert!(walk.has_contacts() && walk.nominal_speed > 1.0 && walk.nominal_speed < 2.0, "{walk:?}");
        // A second run reuses the cache.
        assert!(retarget_onto(&robot, None, None, &roles).unwrap().reused);

        let vrm = write_convention("vrm_minus_z", &dir);
        assert_eq!(missing_roles(&vrm, None, None, &ClipOverrides::default()), Some(Vec::new()));
        std::fs::remove_file(&retargeted.glb).ok();
        std::fs::remove_file(ik_tool::mannequin::sidecar_path(&retargeted.glb)).ok();
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_file_that_cannot_be_retargeted_onto_is_one_message() {
        let dir = std::env::temp_dir().join(format!("bevy_ik_demo_retarget_bad_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let robot = write_convention("robot_100", &dir);
        let bad_map = [("thigh_l".to_string(), "no_such_bone".to_string())];
        let err = retarget_onto(&robot, Some(&bad_map), None, &[ClipRole::Walk]).unwrap_err();
        assert!(err.contains("no_such_bone") && !err.contains('\n'), "{err}");
        let not_gltf = dir.join("junk.glb");
        std::fs::write(&not_gltf, b"not a glb").unwrap();
        assert_eq!(missing_roles(&not_gltf, None, None, &ClipOverrides::default()), None);
        assert!(retarget_onto(&not_gltf, None, None, &[ClipRole::Walk]).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
