//! The bones of a detected humanoid, by role, over any handle type (bone indices, entities).

/// One arm's bones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArmBones<T> {
    /// Clavicle, if the rig has one.
    pub clavicle: Option<T>,
    /// Upper arm (the two-bone chain's root).
    pub upper: T,
    /// Forearm.
    pub lower: T,
    /// Hand (the tip).
    pub hand: T,
}

/// One leg's bones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegBones<T> {
    /// Thigh (hip joint).
    pub thigh: T,
    /// Shin (knee joint).
    pub calf: T,
    /// Foot (ankle joint).
    pub foot: T,
    /// Ball of the foot, if the rig has one.
    pub ball: Option<T>,
}

/// Every role of a detected humanoid. Paired roles are `[left, right]`.
#[derive(Clone, Debug, PartialEq)]
pub struct HumanoidRig<T> {
    /// The profile that matched.
    pub profile: String,
    /// Pelvis.
    pub pelvis: T,
    /// Spine bones found, lowest first (at least one).
    pub spine: Vec<T>,
    /// Neck, if found.
    pub neck: Option<T>,
    /// Head.
    pub head: T,
    /// `[left, right]` arms; `None` for an arm the rig could not use (see
    /// [`RigReport::dropped`](super::RigReport::dropped) for why). Legs are what foot IK needs;
    /// arms only reach.
    pub arms: [Option<ArmBones<T>>; 2],
    /// `[left, right]` legs.
    pub legs: [LegBones<T>; 2],
}

impl<T> HumanoidRig<T> {
    /// The same rig over other handles (e.g. entities to bone indices); `None` when `map`
    /// finds no handle for one of the bones.
    ///
    /// ```
    /// # use ik_core::rig::{ArmBones, HumanoidRig, LegBones};
    /// let arm = |b| ArmBones { clavicle: None, upper: b, lower: b + 1, hand: b + 2 };
    /// let leg = |b| LegBones { thigh: b, calf: b + 1, foot: b + 2, ball: None };
    /// let rig = HumanoidRig { profile: "test".into(), pelvis: 0, spine: vec![1], neck: None, head: 2,
    ///     arms: [Some(arm(10)), Some(arm(20))], legs: [leg(30), leg(40)] };
    /// let named = rig.try_map(|b| Some(format!("bone{b}"))).unwrap();
    /// assert_eq!(named.legs[1].foot, "bone42");
    /// assert!(rig.try_map(|&b| (b < 40).then_some(b)).is_none());
    /// ```
    pub fn try_map<U>(&self, mut map: impl FnMut(&T) -> Option<U>) -> Option<HumanoidRig<U>> {
        let mut arm = |a: &ArmBones<T>| {
            Some(ArmBones {
                clavicle: match &a.clavicle {
                    Some(c) => Some(map(c)?),
                    None => None,
                },
                upper: map(&a.upper)?,
                lower: map(&a.lower)?,
                hand: map(&a.hand)?,
            })
        };
        let mut arm_if_any = |a: &Option<ArmBones<T>>| match a {
            Some(a) => arm(a).map(Some),
            None => Some(None),
        };
        let arms = [arm_if_any(&self.arms[0])?, arm_if_any(&self.arms[1])?];
        let mut leg = |l: &LegBones<T>| {
            Some(LegBones {
                thigh: map(&l.thigh)?,
                calf: map(&l.calf)?,
                foot: map(&l.foot)?,
                ball: match &l.ball {
                    Some(b) => Some(map(b)?),
                    None => None,
                },
            })
        };
        let legs = [leg(&self.legs[0])?, leg(&self.legs[1])?];
        Some(HumanoidRig {
            profile: self.profile.clone(),
            pelvis: map(&self.pelvis)?,
            spine: self.spine.iter().map(&mut map).collect::<Option<Vec<_>>>()?,
            neck: match &self.neck {
                Some(n) => Some(map(n)?),
                None => None,
            },
            head: map(&self.head)?,
            arms,
            legs,
        })
    }

    /// Visits every bone handle of the rig (to remap them, e.g. entities of a cloned scene).
    ///
    /// ```
    /// # use ik_core::rig::{ArmBones, HumanoidRig, LegBones};
    /// let arm = |b| ArmBones { clavicle: None, upper: b, lower: b + 1, hand: b + 2 };
    /// let leg = |b| LegBones { thigh: b, calf: b + 1, foot: b + 2, ball: Some(b + 3) };
    /// let mut rig = HumanoidRig {
    ///     profile: "test".into(),
    ///     pelvis: 0,
    ///     spine: vec![1],
    ///     neck: None,
    ///     head: 2,
    ///     arms: [Some(arm(10)), Some(arm(20))],
    ///     legs: [leg(30), leg(40)],
    /// };
    /// rig.for_each_handle_mut(|h| *h += 100);
    /// assert_eq!((rig.pelvis, rig.arms[1].map(|a| a.hand), rig.legs[0].ball), (100, Some(122), Some(133)));
    /// ```
    pub fn for_each_handle_mut(&mut self, mut visit: impl FnMut(&mut T)) {
        visit(&mut self.pelvis);
        self.spine.iter_mut().for_each(&mut visit);
        self.neck.iter_mut().for_each(&mut visit);
        visit(&mut self.head);
        for arm in self.arms.iter_mut().flatten() {
            arm.clavicle.iter_mut().for_each(&mut visit);
            [&mut arm.upper, &mut arm.lower, &mut arm.hand].into_iter().for_each(&mut visit);
        }
        for leg in &mut self.legs {
            [&mut leg.thigh, &mut leg.calf, &mut leg.foot].into_iter().for_each(&mut visit);
            leg.ball.iter_mut().for_each(&mut visit);
        }
    }
}
