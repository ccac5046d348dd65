//! Finds the pelvis and the two legs of a character in a glTF node list.
//!
//! Method: each rig profile ([`RigProfile::builtin`], or one user map) lists candidate bone
//! names per role; a node matches a candidate when the names are equal ignoring ASCII case and
//! any namespace prefix ([`ik_core::rig::find_role`]). Only the roles the foot tools need
//! are looked up — pelvis, and thigh, calf, foot and (optionally) ball on each side — so rigs
//! without arms, a head or toe bones still work. The chain must follow the hierarchy (pelvis →
//! thigh → calf → foot → ball). The first child of the ball, if any, is the toe end. Feet
//! without a ball bone ("ankle-only" feet) are labelled and cleaned at an estimated sole point
//! ([`crate::motion::contact_points`]).
//!
//! Inputs: node names and parents, and an optional user map (the rig-map syntax of
//! [`ik_core::rig::parse_map`]: `role = bone` entries, comma- or line-separated; role names as
//! [`ik_core::rig::parse_role`]). Outputs: [`Legs`] of node indices, or a message naming the
//! closest profile and the roles it misses.

use ik_core::rig::{RigProfile, Role, Side, find_role};

use crate::gltf_read::{Document, Node};

/// One leg, as node indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leg {
    /// `"left"` or `"right"`.
    pub side: &'static str,
    /// Thigh (hip joint).
    pub thigh: usize,
    /// Calf (knee joint).
    pub calf: usize,
    /// Foot (ankle joint); its name keys the contact labels.
    pub foot: usize,
    /// Ball of the foot (the toe particle of the solve), when the rig has one.
    pub ball: Option<usize>,
    /// Tip of the toes, when the ball has a child.
    pub toe_end: Option<usize>,
}

/// Pelvis and `[left, right]` legs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Legs {
    /// The profile that matched.
    pub profile: String,
    /// The pelvis node.
    pub pelvis: usize,
    /// `[left, right]`.
    pub legs: [Leg; 2],
}

/// Parses a user map in the rig-map syntax of [`ik_core::rig::parse_map`] (`role = bone`
/// entries separated by new lines or commas, `#` comments).
pub fn parse_map(text: &str) -> Result<RigProfile, String> {
    let pairs = ik_core::rig::parse_map(text).map_err(|e| format!("bone map: {e}"))?;
    RigProfile::from_map("user map", pairs.iter().map(|(r, b)| (r.as_str(), b.as_str())))
        .map_err(|unknown| format!("bone map: unknown roles: {}", unknown.join(", ")))
}

fn descends(nodes: &[Node], mut node: usize, ancestor: usize) -> bool {
    for _ in 0..nodes.len() {
        match nodes[node].parent {
            Some(p) if p == ancestor => return true,
            Some(p) => node = p,
            None => return false,
        }
    }
    false
}

/// Matches one profile; `Err` lists what is missing or out of hierarchy.
fn match_legs(nodes: &[Node], profile: &RigProfile) -> Result<Legs, Vec<String>> {
    let names: Vec<(usize, &str)> = nodes.iter().enumerate().map(|(i, n)| (i, n.name.as_str())).collect();
    let mut missing = Vec::new();
    let mut need = |role: Role| {
        let found = find_role(&names, profile, role);
        if found.is_none() {
            missing.push(role.to_string());
        }
        found
    };
    let pelvis = need(Role::Pelvis);
    let sides = [Side::Left, Side::Right].map(|s| (need(Role::Thigh(s)), need(Role::Calf(s)), need(Role::Foot(s))));
    let balls = [Side::Left, Side::Right].map(|s| find_role(&names, profile, Role::Ball(s)));
    let (Some(pelvis), [(Some(t0), Some(c0), Some(f0)), (Some(t1), Some(c1), Some(f1))]) = (pelvis, sides) else {
        return Err(missing);
    };
    let mut legs = Vec::new();
    for (side, [thigh, calf, foot], ball) in [("left", [t0, c0, f0], balls[0]), ("right", [t1, c1, f1], balls[1])] {
        let chain: Vec<usize> = [pelvis, thigh, calf, foot].into_iter().chain(ball).collect();
        if let Some(w) = chain.windows(2).find(|w| !descends(nodes, w[1], w[0])) {
            return Err(vec![format!("{side} leg: \"{}\" is not below \"{}\"", nodes[w[1]].name, nodes[w[0]].name)]);
        }
        let toe_end = ball.and_then(|ball| nodes.iter().position(|n| n.parent == Some(ball)));
        legs.push(Leg { side, thigh, calf, foot, ball, toe_end });
    }
    let [left, right]: [Leg; 2] = legs.try_into().map_err(|_| vec!["legs".to_string()])?;
    Ok(Legs { profile: profile.name.clone(), pelvis, legs: [left, right] })
}

/// Finds the legs with the user map if given (legs only: a map need not name arms or a head);
/// else with the built-in profiles (the first that fits wins, legs only); else with the rig
/// detector the plugin and the demo use ([`ik_core::rig::rig_humanoid`]: every naming
/// convention, then the skeleton's shape, from the nodes' rest positions). The error is the
/// detector's one message (missing roles, candidate bones, the map syntax).
pub fn find_legs(nodes: &[Node], map: Option<&RigProfile>) -> Result<Legs, String> {
    if let Some(profile) = map {
        return match_legs(nodes, profile).map_err(|missing| {
            format!(
                "no legs found: the map is missing {} (name the bones with --map role=bone,...)",
                missing.join(", ")
            )
        });
    }
    for profile in &RigProfile::builtin() {
        if let Ok(legs) = match_legs(nodes, profile) {
            return Ok(legs);
        }
    }
    detect_legs(nodes).map_err(|e| format!("no legs found: {e}"))
}

/// The file's nodes with those outside its skeleton (neither a skin joint nor above one: meshes,
/// cameras, helpers hung on bones) renamed `node N`, so no name matcher takes a mesh called
/// `LegL` or `HandL` for a bone.
pub fn skeleton_named(doc: &Document) -> Vec<Node> {
    let mut skeleton = vec![false; doc.nodes.len()];
    for &joint in &doc.joints {
        let mut node = Some(joint);
        while let Some(n) = node.filter(|&n| n < skeleton.len() && !skeleton[n]) {
            skeleton[n] = true;
            node = doc.nodes[n].parent;
        }
    }
    let mut nodes = doc.nodes.clone();
    for (i, node) in nodes.iter_mut().enumerate() {
        if !skeleton[i] {
            node.name = format!("node {i}");
        }
    }
    nodes
}

/// [`find_legs`] over the file's skeleton ([`skeleton_named`]), else over every node (a file
/// whose skin leaves out bones); the skeleton's error when both fail.
pub fn find_file_legs(doc: &Document, map: Option<&RigProfile>) -> Result<Legs, String> {
    find_legs(&skeleton_named(doc), map).or_else(|e| find_legs(&doc.nodes, map).map_err(|_| e))
}

/// Model-space rest positions of every node (parents composed, in any node order).
fn rest_positions(nodes: &[Node]) -> Vec<glam::Vec3> {
    let mut world: Vec<Option<ik_core::Xform>> = vec![None; nodes.len()];
    for start in 0..nodes.len() {
        // Walk up to the first node already known (or a root), then back down.
        let mut path = vec![start];
        while let Some(p) = nodes[*path.last().unwrap_or(&start)].parent {
            if p >= nodes.len() || world[p].is_some() || path.len() > nodes.len() {
                break;
            }
            path.push(p);
        }
        for &n in path.iter().rev() {
            if world[n].is_some() {
                continue;
            }
            let parent = nodes[n].parent.and_then(|p| world.get(p).copied().flatten());
            world[n] = Some(parent.map_or(nodes[n].rest, |p| p.mul_xform(&nodes[n].rest)));
        }
    }
    world.into_iter().map(|w| w.map_or(glam::Vec3::ZERO, |w| w.translation)).collect()
}

/// The legs as [`ik_core::rig::rig_humanoid`] finds them in the whole skeleton.
fn detect_legs(nodes: &[Node]) -> Result<Legs, String> {
    let rest = rest_positions(nodes);
    let bones: Vec<ik_core::rig::SkeletonBone<usize>> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| ik_core::rig::SkeletonBone {
            handle: i,
            name: n.name.as_str(),
            parent: n.parent.filter(|p| *p < nodes.len()),
            rest: rest[i],
        })
        .collect();
    let report = ik_core::rig::rig_humanoid(&bones, None).map_err(|e| e.to_string())?;
    let rig = report.rig;
    let leg = |side: &'static str, l: &ik_core::rig::LegBones<usize>| Leg {
        side,
        thigh: l.thigh,
        calf: l.calf,
        foot: l.foot,
        ball: l.ball,
        toe_end: l.ball.and_then(|ball| nodes.iter().position(|n| n.parent == Some(ball))),
    };
    Ok(Legs {
        profile: report.found_by,
        pelvis: rig.pelvis,
        legs: [leg("left", &rig.legs[0]), leg("right", &rig.legs[1])],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ik_core::Xform;

    fn chain(names: &[&str]) -> Vec<Node> {
        chain_of(names, 4)
    }

    fn chain_of(names: &[&str], per_leg: usize) -> Vec<Node> {
        // pelvis at 0, then each leg as a chain below it.
        let mut nodes = vec![Node { name: names[0].into(), parent: None, rest: Xform::IDENTITY }];
        for side in names[1..].chunks(per_leg) {
            let mut parent = 0;
            for name in side {
                nodes.push(Node { name: (*name).into(), parent: Some(parent), rest: Xform::IDENTITY });
                parent = nodes.len() - 1;
            }
        }
        nodes
    }

    #[test]
    fn legs_are_found_by_profile_or_map_and_missing_roles_are_named() {
        let mixamo = chain(&[
            "mixamorig:Hips",
            "mixamorig:LeftUpLeg",
            "mixamorig:LeftLeg",
            "mixamorig:LeftFoot",
            "mixamorig:LeftToeBase",
            "mixamorig:RightUpLeg",
            "mixamorig:RightLeg",
            "mixamorig:RightFoot",
            "mixamorig:RightToeBase",
        ]);
        let legs = find_legs(&mixamo, None).unwrap();
        assert_eq!((legs.profile.as_str(), legs.pelvis, legs.legs[1].ball), ("mixamo", 0, Some(8)));
        let custom = chain(&["Hip", "LT", "LC", "LF", "LB", "RT", "RC", "RF", "RB"]);
        let err = find_legs(&custom, None).unwrap_err();
        assert!(err.contains("no legs found") && err.contains("thigh_l") && err.contains("role = bone"), "{err}");
        let map = parse_map(
            "pelvis=Hip, thigh_l=LT, calf_l=LC, foot_l=LF, ball_l=LB\nthigh_r=RT,calf_r=RC,foot_r=RF,ball_r=RB",
        );
        assert_eq!(find_legs(&custom, Some(&map.unwrap())).unwrap().legs[0].foot, 3);
        let partial = parse_map("pelvis = Hip\nthigh_l = LT  # the rest is missing").unwrap();
        assert!(find_legs(&custom, Some(&partial)).unwrap_err().contains("right thigh"));
        assert!(parse_map("pelvis Hip").unwrap_err().contains("expected `role = bone`"));
        // Ankle-only feet: no ball bone, the legs are still found.
        let ankles = chain_of(&["Hip", "LT", "LC", "LF", "RT", "RC", "RF"], 3);
        let map = parse_map("pelvis=Hip,thigh_l=LT,calf_l=LC,foot_l=LF,thigh_r=RT,calf_r=RC,foot_r=RF").unwrap();
        let legs = find_legs(&ankles, Some(&map)).unwrap();
        assert_eq!((legs.legs[0].ball, legs.legs[1].foot, legs.legs[1].toe_end), (None, 6, None));
        assert!(parse_map("tail=T").unwrap_err().contains("tail"));
    }
}
