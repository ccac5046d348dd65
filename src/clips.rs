//! Choosing a character's idle, walk and run clips from whatever its file holds.
//!
//! Method: a clip's name is split into lower-case words (at separators, `|`, `.`, digits and
//! camel-case humps: `WalkJump` → `walk`, `jump`; `Armature|mixamo.com|Layer0` → `armature`,
//! `mixamo`, `com`, `layer`). A name that is exactly a role's word (`Walk`, `walking`, `Idle`,
//! `Run`, `Running`, `Jog`, …) after dropping exporter noise words (`armature`, `mixamo`,
//! `com`, `layer`, `anim`, `take`, `inplace` …) beats a name that also holds other action words
//! (`WalkJump`, `walk_back`), which beats a plain substring. Roles no name settles are then
//! taken by measured motion — the clip's ground speed per leg length from its planted feet:
//! still clips are idles, slow ones walks, fast ones runs. `--clips idle=…,walk=…,run=…` overrides
//! either (a name, or `#N` for the N-th clip of the file).
//! Inputs: the clips' names (empty for an unnamed clip) and measured speeds, the character's
//! leg length, the overrides. Output: [`ClipChoice`] (indices into the input) and one line per
//! role saying how it was chosen. Invariants: a clip plays at most one role; an override that
//! names no clip is an error listing the clips there are.
//! [`CharacterClips`] holds the clips a character chooses from (its file's, labelled, and any
//! retargeted onto it: see [`crate::clip_setup`]).

use bevy::prelude::*;

use crate::sidecar::{ClipInfo, ClipTable, clip_key};

/// Words that mark a role, per role.
const IDLE: &[&str] = &["idle", "idling", "stand", "standing", "breathing", "rest"];
const WALK: &[&str] = &["walk", "walking", "walks"];
const RUN: &[&str] = &["run", "running", "runs", "jog", "jogging", "sprint", "sprinting"];
/// Words exporters add that say nothing about the motion.
const NOISE: &[&str] = &[
    "armature",
    "mixamo",
    "com",
    "layer",
    "anim",
    "animation",
    "action",
    "take",
    "clip",
    "loop",
    "inplace",
    "in",
    "place",
    "root",
    "skeleton",
    "rig",
    "baked",
    "fwd",
    "forward",
    "cycle",
    "default",
];

/// A locomotion role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClipRole {
    /// Standing still.
    Idle,
    /// Walking.
    Walk,
    /// Running or jogging.
    Run,
}

impl ClipRole {
    /// All roles, in blend-space order.
    pub const ALL: [ClipRole; 3] = [ClipRole::Idle, ClipRole::Walk, ClipRole::Run];

    fn words(self) -> &'static [&'static str] {
        match self {
            ClipRole::Idle => IDLE,
            ClipRole::Walk => WALK,
            ClipRole::Run => RUN,
        }
    }

    /// The key used in `--clips`.
    pub fn key(self) -> &'static str {
        match self {
            ClipRole::Idle => "idle",
            ClipRole::Walk => "walk",
            ClipRole::Run => "run",
        }
    }
}

/// One clip of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipCandidate {
    /// Its name (empty when the file gives none).
    pub name: String,
    /// Ground speed measured from its planted feet, m/s, when known.
    pub speed: Option<f32>,
    /// Whether its feet take turns (see [`ClipInfo::feet_alternate`]), when
    /// known. Only a clip whose feet alternate is a walk or a run by speed: a roll moves fast
    /// too.
    pub alternates: Option<bool>,
}

/// `--clips` overrides: per role, a clip name or `#index`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipOverrides(pub Vec<(ClipRole, String)>);

impl ClipOverrides {
    /// Parses `idle=NAME,walk=NAME,run=NAME` (any subset; `jog` is `run`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, name)) = part.split_once('=') else {
                return Err(format!("--clips: expected role=clip, got `{part}` (roles: idle, walk, run)"));
            };
            let role = match key.trim().to_ascii_lowercase().as_str() {
                "idle" => ClipRole::Idle,
                "walk" => ClipRole::Walk,
                "run" | "jog" => ClipRole::Run,
                other => return Err(format!("--clips: unknown role `{other}` (roles: idle, walk, run)")),
            };
            out.push((role, name.trim().to_string()));
        }
        if out.is_empty() { Err("--clips: give at least one role=clip".into()) } else { Ok(ClipOverrides(out)) }
    }
}

/// The chosen clips, as indices into the candidates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipChoice {
    /// Idle (standing), if any.
    pub idle: Option<usize>,
    /// Walk, if any.
    pub walk: Option<usize>,
    /// Run or jog, if any.
    pub run: Option<usize>,
    /// How each role was chosen, one line each.
    pub report: Vec<String>,
}

impl ClipChoice {
    /// The clip playing `role`.
    pub fn get(&self, role: ClipRole) -> Option<usize> {
        match role {
            ClipRole::Idle => self.idle,
            ClipRole::Walk => self.walk,
            ClipRole::Run => self.run,
        }
    }

    fn set(&mut self, role: ClipRole, index: usize) {
        match role {
            ClipRole::Idle => self.idle = Some(index),
            ClipRole::Walk => self.walk = Some(index),
            ClipRole::Run => self.run = Some(index),
        }
    }

    /// Whether any clip was chosen.
    pub fn is_empty(&self) -> bool {
        self.idle.is_none() && self.walk.is_none() && self.run.is_none()
    }
}

/// The clips a character chooses from: its file's, in file order, then those retargeted onto it.
#[derive(Component, Clone, Debug, Default)]
pub struct CharacterClips {
    /// Each clip's name (empty when the file gives none).
    pub names: Vec<String>,
    /// Each clip.
    pub handles: Vec<Handle<AnimationClip>>,
    /// Their labels and speeds (the sidecar's, or measured at run time), keyed by
    /// [`clip_key`]; `None` when not labelled.
    pub table: Option<ClipTable>,
    /// Names of the clips retargeted from the mannequin (`Idle`, `Walk`, `Jog`), in role order.
    pub retargeted: Vec<String>,
}

/// Set on the avatar once its [`CharacterClips`] are complete (labelled, retargeted).
#[derive(Component)]
pub struct ClipsReady;

impl CharacterClips {
    /// The table's entry for clip `index`.
    pub fn info(&self, index: usize) -> Option<&ClipInfo> {
        let key = clip_key(self.names.get(index)?, index);
        self.table.as_ref()?.clips.iter().find(|c| c.name == key)
    }

    /// The clips as [`choose`] reads them.
    pub fn candidates(&self) -> Vec<ClipCandidate> {
        (0..self.names.len())
            .map(|i| ClipCandidate {
                name: self.names[i].clone(),
                speed: self.info(i).map(|c| c.nominal_speed),
                alternates: self.info(i).and_then(ClipInfo::feet_alternate),
            })
            .collect()
    }
}

/// Lower-case words of a clip name (see the module docs).
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphabetic() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// How well `name` says `role`: 3 exactly the role's word, 2 the role's word with only noise
/// words beside it, 1 the word among other action words, 0 only a substring, `None` not at all.
pub fn name_score(name: &str, role: ClipRole) -> Option<u8> {
    let ws = words(name);
    let role_words = role.words();
    let meaningful: Vec<&String> = ws.iter().filter(|w| !NOISE.contains(&w.as_str())).collect();
    let has = |w: &String| role_words.contains(&w.as_str());
    if meaningful.len() == 1 && has(meaningful[0]) {
        return Some(if ws.len() == 1 { 3 } else { 2 });
    }
    if meaningful.iter().any(|w| has(w)) {
        return Some(1);
    }
    let lower = name.to_lowercase();
    role_words.iter().any(|w| lower.contains(w)).then_some(0)
}

/// Finds the clip an override names: an exact name, a case-insensitive one, or `#N`.
fn resolve(candidates: &[ClipCandidate], wanted: &str) -> Option<usize> {
    if let Some(n) = wanted.strip_prefix('#').and_then(|n| n.parse::<usize>().ok()) {
        return (n < candidates.len()).then_some(n);
    }
    candidates
        .iter()
        .position(|c| c.name == wanted)
        .or_else(|| candidates.iter().position(|c| c.name.eq_ignore_ascii_case(wanted)))
}

fn label(candidates: &[ClipCandidate], i: usize) -> String {
    match candidates[i].name.as_str() {
        "" => format!("#{i} (unnamed)"),
        n => format!("`{n}`"),
    }
}

/// Chooses idle, walk and run (see the module docs). `leg_length` (m) scales the speed bands.
pub fn choose(candidates: &[ClipCandidate], leg_length: f32, overrides: &ClipOverrides) -> Result<ClipChoice, String> {
    let mut choice = ClipChoice::default();
    let mut taken = vec![false; candidates.len()];
    for (role, wanted) in &overrides.0 {
        let Some(i) = resolve(candidates, wanted) else {
            let names: Vec<String> = (0..candidates.len()).map(|i| label(candidates, i)).collect();
            return Err(format!(
                "--clips {}={wanted}: no such clip; the file has {}",
                role.key(),
                if names.is_empty() { "no clips".to_string() } else { names.join(", ") }
            ));
        };
        choice.set(*role, i);
        taken[i] = true;
        choice.report.push(format!("{}: {} (--clips)", role.key(), label(candidates, i)));
    }
    // Only a clip whose feet take turns walks or runs (a roll travels fast too).
    let steps = |role: ClipRole, i: usize| role == ClipRole::Idle || candidates[i].alternates != Some(false);
    // By name: the best score per role, ties to the shorter name, then file order.
    for role in ClipRole::ALL {
        if choice.get(role).is_some() {
            continue;
        }
        let best = (0..candidates.len())
            .filter(|&i| !taken[i] && steps(role, i))
            .filter_map(|i| name_score(&candidates[i].name, role).map(|s| (s, i)))
            .max_by(|a, b| {
                a.0.cmp(&b.0).then(candidates[b.1].name.len().cmp(&candidates[a.1].name.len())).then(b.1.cmp(&a.1))
            });
        // A clip whose speed contradicts its name (a "walk" that stands still, an "idle" that
        // travels) is left to the speed pass; walk against run is the name's call (a cartoon
        // walk may stride three leg lengths a second).
        let still = |r: ClipRole| r == ClipRole::Idle;
        if let Some((score, i)) =
            best.filter(|(_, i)| speed_role(candidates[*i].speed, leg_length).is_none_or(|r| still(r) == still(role)))
        {
            choice.set(role, i);
            taken[i] = true;
            let how = ["a substring", "a word among others", "its name", "its name"][score as usize];
            choice.report.push(format!("{}: {} (by {how})", role.key(), label(candidates, i)));
        }
    }
    // By measured speed, for roles still open.
    for role in ClipRole::ALL {
        if choice.get(role).is_some() {
            continue;
        }
        let pick = (0..candidates.len())
            .filter(|&i| !taken[i] && speed_role(candidates[i].speed, leg_length) == Some(role) && steps(role, i))
            .min_by(|&a, &b| {
                let typical =
                    |i: usize| (candidates[i].speed.unwrap_or(0.0) / leg_length.max(1e-3) - typical_speed(role)).abs();
                typical(a).total_cmp(&typical(b))
            });
        if let Some(i) = pick {
            choice.set(role, i);
            taken[i] = true;
            let speed = candidates[i].speed.unwrap_or(0.0);
            choice.report.push(format!(
                "{}: {} (by its measured speed, {speed:.2} m/s)",
                role.key(),
                label(candidates, i)
            ));
        }
    }
    // A lone unlabelled clip of unknown speed: call it a walk.
    if choice.is_empty() && candidates.len() == 1 && candidates[0].speed.is_none() {
        choice.walk = Some(0);
        choice.report.push(format!("walk: {} (the only clip)", label(candidates, 0)));
    }
    let walks = choice.walk.is_some();
    for role in ClipRole::ALL {
        if choice.get(role).is_none() {
            let fallback = match role {
                ClipRole::Idle if walks => "none: stops in the walk's stride when still",
                ClipRole::Run if walks => "none: the walk is played faster",
                _ => "none",
            };
            choice.report.push(format!("{}: {fallback}", role.key()));
        }
    }
    Ok(choice)
}

/// Typical speed of a role, leg lengths per second (1.4 m/s walk and 3.2 m/s jog on 0.84 m legs).
fn typical_speed(role: ClipRole) -> f32 {
    match role {
        ClipRole::Idle => 0.0,
        ClipRole::Walk => 1.7,
        ClipRole::Run => 3.8,
    }
}

/// The role a measured speed says, in leg lengths per second: under 0.25 idle, under 2.7 walk.
pub fn speed_role(speed: Option<f32>, leg_length: f32) -> Option<ClipRole> {
    let per_leg = speed.filter(|s| s.is_finite())? / leg_length.max(1e-3);
    Some(if per_leg < 0.25 {
        ClipRole::Idle
    } else if per_leg < 2.7 {
        ClipRole::Walk
    } else {
        ClipRole::Run
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clips(list: &[(&str, Option<f32>)]) -> Vec<ClipCandidate> {
        list.iter().map(|(n, s)| ClipCandidate { name: n.to_string(), speed: *s, alternates: None }).collect()
    }

    #[test]
    fn words_split_camel_case_and_separators() {
        assert_eq!(words("WalkJump"), ["walk", "jump"]);
        assert_eq!(words("Armature|mixamo.com|Layer0"), ["armature", "mixamo", "com", "layer"]);
        assert_eq!(words("walk_in_place"), ["walk", "in", "place"]);
    }

    #[test]
    fn exact_words_beat_compounds() {
        let c = clips(&[("WalkJump", None), ("Walking", None), ("Idle", None)]);
        let choice = choose(&c, 0.84, &ClipOverrides::default()).unwrap();
        assert_eq!((choice.idle, choice.walk, choice.run), (Some(2), Some(1), None));
        let c = clips(&[("Run_Fast_Turn", None), ("Jog", None), ("mixamo.com|Walk", None)]);
        let choice = choose(&c, 0.84, &ClipOverrides::default()).unwrap();
        assert_eq!((choice.walk, choice.run), (Some(2), Some(1)));
    }

    #[test]
    fn unnamed_and_mixamo_clips_go_by_measured_speed() {
        let c = clips(&[("Armature|mixamo.com|Layer0", Some(1.3)), ("", Some(0.0)), ("", Some(3.4))]);
        let choice = choose(&c, 0.84, &ClipOverrides::default()).unwrap();
        assert_eq!((choice.idle, choice.walk, choice.run), (Some(1), Some(0), Some(2)));
        assert!(choice.report[1].contains("measured speed"), "{:?}", choice.report);
        // Speeds scale with the legs: 2.6 m/s is a walk for 1.2 m legs, a run for 0.8 m legs.
        let c = clips(&[("", Some(2.6))]);
        assert_eq!(choose(&c, 1.2, &ClipOverrides::default()).unwrap().walk, Some(0));
        assert_eq!(choose(&c, 0.8, &ClipOverrides::default()).unwrap().run, Some(0));
    }

    #[test]
    fn a_lone_clip_is_a_walk_and_a_missing_idle_is_said() {
        let choice = choose(&clips(&[("", None)]), 0.84, &ClipOverrides::default()).unwrap();
        assert_eq!((choice.idle, choice.walk), (None, Some(0)));
        assert!(choice.report.iter().any(|l| l.starts_with("idle: none")));
        assert!(choose(&[], 0.84, &ClipOverrides::default()).unwrap().is_empty());
    }

    #[test]
    fn overrides_win_and_bad_ones_list_the_clips() {
        let c = clips(&[("Walking", None), ("WalkJump", None)]);
        let o = ClipOverrides::parse("walk=WalkJump").unwrap();
        assert_eq!(choose(&c, 0.84, &o).unwrap().walk, Some(1));
        let o = ClipOverrides::parse("walk=#0, jog = walkjump").unwrap();
        let choice = choose(&c, 0.84, &o).unwrap();
        assert_eq!((choice.walk, choice.run), (Some(0), Some(1)));
        let err = choose(&c, 0.84, &ClipOverrides::parse("idle=Stand").unwrap()).unwrap_err();
        assert!(err.contains("`Walking`") && err.contains("`WalkJump`"), "{err}");
        assert!(ClipOverrides::parse("fly=x").is_err() && ClipOverrides::parse("walk").is_err());
    }

    #[test]
    fn a_fast_clip_whose_feet_do_not_take_turns_is_no_run() {
        // An asset pack's `Run` beside a `Roll`: the roll travels faster, its feet together.
        let mut c = clips(&[("Roll", Some(4.09)), ("Sprint_Jump", Some(4.5)), ("", Some(3.1))]);
        c[0].alternates = Some(false);
        c[1].alternates = Some(false);
        c[2].alternates = Some(true);
        let choice = choose(&c, 0.84, &ClipOverrides::default()).unwrap();
        assert_eq!(choice.run, Some(2), "{:?}", choice.report);
        c[2].alternates = Some(false);
        assert_eq!(choose(&c, 0.84, &ClipOverrides::default()).unwrap().run, None);
    }

    #[test]
    fn a_fast_walk_is_still_the_walk_by_its_name() {
        // RobotExpressive: `Walking` at 4.62 m/s on 1.54 m legs (3.0 leg lengths a second).
        let c = clips(&[("Idle", Some(0.0)), ("Running", Some(6.09)), ("Walking", Some(4.62))]);
        let choice = choose(&c, 1.54, &ClipOverrides::default()).unwrap();
        assert_eq!((choice.idle, choice.walk, choice.run), (Some(0), Some(2), Some(1)), "{:?}", choice.report);
    }

    #[test]
    fn a_walk_name_that_stands_still_is_not_the_walk() {
        let c = clips(&[("Walk", Some(0.0)), ("", Some(1.4))]);
        let choice = choose(&c, 0.84, &ClipOverrides::default()).unwrap();
        assert_eq!((choice.idle, choice.walk), (Some(0), Some(1)));
    }
}
