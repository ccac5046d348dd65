//! The clip sidecar (`<character>.ik.json`): per clip its nominal speed, duration, frame rate and
//! per-foot contact labels.
//!
//! Method: reads the JSON into `ik_core`'s typed [`Sidecar`] (the struct `ik_tool contacts
//! --json` writes) and keeps what the blend space needs as [`ClipInfo`]s; a character without a
//! sidecar gets the same from the plugin's runtime labeller ([`ClipTable::from_labels`]).
//! Input: the file text, or the labels. Output: a [`ClipTable`] keyed by clip name. Invariants: every clip has a positive finite
//! duration and `frame_count ≥ 1`; contact arrays hold one flag per frame (shorter arrays are
//! read as "no contact" past their end); [`ClipInfo::contact_at`] takes any phase (wrapped to
//! `[0, 1)`).

use bevy::math::Vec3;
use bevy_ik::clip_contacts::ClipContactLabels;
use ik_core::sidecar::Sidecar;

/// What the sidecar says about one clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipInfo {
    /// Clip name as in the glTF.
    pub name: String,
    /// Ground speed the clip was authored for, m/s (0 for idle).
    pub nominal_speed: f32,
    /// Cycle length, s.
    pub duration: f32,
    /// Frames in the clip including the closing one.
    pub frame_count: usize,
    /// Contact flags per frame, `[left, right]`.
    pub contacts: [Vec<bool>; 2],
    /// The way it travels, a unit vector in the character's space (runtime labels only:
    /// `None` from a sidecar).
    pub heading: Option<Vec3>,
}

impl ClipInfo {
    /// A clip with no contact labels (used when there is no sidecar).
    pub fn unlabelled(name: &str, nominal_speed: f32, duration: f32) -> Self {
        ClipInfo {
            name: name.into(),
            nominal_speed,
            duration: duration.max(1e-3),
            frame_count: 1,
            contacts: [vec![], vec![]],
            heading: None,
        }
    }

    /// Whether the clip has contact labels.
    pub fn has_contacts(&self) -> bool {
        !self.contacts[0].is_empty() && !self.contacts[1].is_empty()
    }

    /// Contact flag of `foot` (0 left, 1 right) at a normalized phase.
    pub fn contact_at(&self, foot: usize, phase: f32) -> bool {
        let labels = &self.contacts[foot.min(1)];
        if labels.is_empty() || !phase.is_finite() {
            return false;
        }
        let frames = self.frame_count.max(2) - 1;
        let index = (phase.rem_euclid(1.0) * frames as f32).round() as usize;
        labels.get(index.min(labels.len() - 1)).copied().unwrap_or(false)
    }

    /// Phase at the middle of `foot`'s longest contact span (spans may wrap around the cycle's
    /// end), or `None` without labels or when the foot is never (or always) in contact. At
    /// mid-stance the planted foot is under the body and the other one swings past it: where a
    /// walk can start from standing without moving the planted foot.
    pub fn mid_stance(&self, foot: usize) -> Option<f32> {
        let frames = self.frame_count.max(2) - 1;
        // The closing frame repeats the first: one cycle is `frames` labels.
        let labels = &self.contacts[foot.min(1)][..self.contacts[foot.min(1)].len().min(frames)];
        let n = labels.len();
        if n == 0 || labels.iter().all(|c| *c) || !labels.iter().any(|c| *c) {
            return None;
        }
        // Walk the cycle once starting just after a frame out of contact, so no span is split.
        let first_off = labels.iter().position(|c| !c)?;
        let (mut best, mut run_start, mut run) = ((0, 0), 0, 0);
        for k in 1..=n {
            let i = (first_off + k) % n;
            if labels[i] {
                if run == 0 {
                    run_start = first_off + k;
                }
                run += 1;
                if run > best.1 {
                    best = (run_start, run);
                }
            } else {
                run = 0;
            }
        }
        let middle = best.0 as f32 + (best.1 as f32 - 1.0) / 2.0;
        Some((middle / frames as f32).rem_euclid(1.0))
    }

    /// Whether the feet take turns, as in a walk or a run: each has a stance, and the
    /// stances' middles are 0.3–0.7 of a cycle apart. `None` without labels. A roll, a dance
    /// or a jump (feet together or never down) is `Some(false)`.
    pub fn feet_alternate(&self) -> Option<bool> {
        if !self.has_contacts() {
            return None;
        }
        let (Some(left), Some(right)) = (self.mid_stance(0), self.mid_stance(1)) else { return Some(false) };
        let apart = (left - right).rem_euclid(1.0);
        Some((0.3..=0.7).contains(&apart))
    }

    /// Stride length (distance travelled per cycle), m.
    pub fn stride(&self) -> f32 {
        self.nominal_speed * self.duration
    }
}

/// All clips of a sidecar (in name order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipTable {
    /// Clips, by name.
    pub clips: Vec<ClipInfo>,
}

impl ClipTable {
    /// Parses sidecar text (`ik_core`'s typed [`Sidecar`]: only `duration` is required).
    pub fn parse(text: &str) -> Result<ClipTable, String> {
        Ok(ClipTable::from_sidecar(Sidecar::parse(text)?))
    }

    /// The clips of a sidecar, as the blend space reads them.
    pub fn from_sidecar(sidecar: Sidecar) -> ClipTable {
        let clips = sidecar
            .clips
            .into_iter()
            .map(|clip| ClipInfo {
                name: clip.name,
                nominal_speed: clip.nominal_speed,
                duration: clip.duration,
                frame_count: clip.frame_count.max(1),
                contacts: [clip.contacts.foot_l, clip.contacts.foot_r],
                heading: None,
            })
            .collect();
        ClipTable { clips }
    }

    /// The runtime labels of the clips named `names` (file order; an unnamed clip is keyed
    /// `clip<index>`), as the blend space reads them.
    pub fn from_labels(names: &[String], labels: &ClipContactLabels) -> ClipTable {
        let clips = names
            .iter()
            .enumerate()
            .zip(&labels.clips)
            .map(|((i, name), clip)| ClipInfo {
                name: clip_key(name, i),
                nominal_speed: clip.nominal_speed,
                duration: clip.duration,
                frame_count: clip.frame_count.max(1),
                contacts: clip.contacts.clone(),
                heading: Some(clip.heading),
            })
            .collect();
        ClipTable { clips }
    }
}

/// The sidecar key of the file's clip `index` named `name` (empty: unnamed), as
/// `ik_tool::sidecar::clip_name` writes it.
pub fn clip_key(name: &str, index: usize) -> String {
    if name.is_empty() { format!("clip{index}") } else { name.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_mannequin_sidecar() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/mannequin.ik.json")).unwrap();
        let table = ClipTable::parse(&text).unwrap();
        let walk = table.clips.iter().find(|c| c.name == "Walk").unwrap();
        assert!((walk.nominal_speed - 1.4).abs() < 1e-4);
        assert!((walk.duration - 1.05).abs() < 1e-4);
        // Left foot lands at phase 0, right at 0.5, heel first: their balls are planted once the
        // feet have rolled flat, 15 % of the stance (0.09 of the cycle) later; at 0.75 the left
        // foot is in the air and the right one planted.
        assert!(!walk.contact_at(0, 0.0) && !walk.contact_at(1, 0.5));
        assert!(walk.contact_at(0, 0.1) && walk.contact_at(1, 0.6));
        assert!(!walk.contact_at(0, 0.75) && walk.contact_at(1, 0.75));
        assert!((walk.stride() - 1.47).abs() < 1e-3);
        // Mid-stance of the left foot: planted a while either side, the right foot swinging.
        let mid = walk.mid_stance(0).unwrap();
        for phase in [mid - 0.1, mid, mid + 0.1] {
            assert!(walk.contact_at(0, phase), "left planted at {phase} (mid-stance {mid})");
        }
        assert!(!walk.contact_at(1, mid), "right swings at the left's mid-stance {mid}");
    }

    #[test]
    fn feet_alternate_in_a_walk_not_in_a_hop() {
        let labels = |on: &[usize]| (0..20).map(|i| on.contains(&i)).collect::<Vec<bool>>();
        let clip = |l: Vec<bool>, r: Vec<bool>| ClipInfo {
            name: "c".into(),
            nominal_speed: 1.0,
            duration: 1.0,
            frame_count: 21,
            contacts: [l, r],
            heading: None,
        };
        let walk = clip(
            labels(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
            labels(&[10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 0, 1]),
        );
        assert_eq!(walk.feet_alternate(), Some(true));
        let hop = clip(labels(&[0, 1, 2, 3]), labels(&[0, 1, 2, 3]));
        assert_eq!(hop.feet_alternate(), Some(false));
        let one_foot_never_down = clip(labels(&[0, 1, 2]), labels(&[]));
        assert_eq!(one_foot_never_down.feet_alternate(), Some(false));
        assert_eq!(ClipInfo::unlabelled("x", 1.0, 1.0).feet_alternate(), None);
    }

    #[test]
    fn bad_sidecars_are_errors_not_panics() {
        assert!(ClipTable::parse("[]").is_err());
        assert!(ClipTable::parse(r#"{"Walk": {"duration": 0}}"#).is_err());
        assert!(ClipTable::parse(r#"{"Walk": {"duration": 1, "nominal_speed": -1}}"#).is_err());
        let t = ClipTable::parse(r#"{"Walk": {"duration": 1}}"#).unwrap();
        assert_eq!((t.clips[0].nominal_speed, t.clips[0].frame_count), (0.0, 1), "defaults of a minimal sidecar");
        assert!(!t.clips[0].has_contacts() && !t.clips[0].contact_at(0, f32::NAN));
        assert_eq!(t.clips[0].mid_stance(0), None);
    }
}
