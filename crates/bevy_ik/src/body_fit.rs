//! Body fitting: [`BodyFit`] next to a [`crate::feet::FootPlacer`] turns and raises the
//! placer's pelvis (a creature's body) to the ground under its feet before they are placed:
//! pitched along ramps and stairs, rolled on a side slope (maths in [`ik_core::body_fit`]).
//! [`crate::creature::CreatureIk`] adds it.
//!
//! **Order.** Inside [`crate::IkSystems::Feet`], on the placer's bones: gather → pose warping →
//! body fitting → footstep prediction, locking and placement see the fitted pose. The ground is
//! what the feet's rays found last frame ([`crate::feet::FootStatus::ground_point`]).
//!
//! **Keep the root upright.** Tilt the body with this, not the character root: foot locking
//! holds a planted foot on the ground plane of the root, and a pitched root moves a held foot
//! along the slope as placement raises or lowers it.

use bevy::prelude::*;
use ik_core::Xform;
use ik_core::body_fit::{BodyFitJob, BodyFitMemory, BodyFitSettings, BodyFoot};
use ik_core::foot_placement::FootRig;
use ik_core::warping::MAX_LEGS;

use crate::bones::BoneSet;
use crate::fault::IkFault;
use crate::feet::{FootPlacer, FootStatus};

/// Put on a character root next to its [`crate::feet::FootPlacer`]: its pelvis (the body every
/// leg hangs from) is turned and raised to the ground under its feet.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_ik::prelude::*;
/// # fn f(mut commands: Commands, dog: Entity) {
/// // Pitch at most 25° and follow the ground within about 0.1 s.
/// commands.entity(dog).insert(BodyFit {
///     settings: BodyFitSettings { max_tilt: 25f32.to_radians(), half_life: 0.1, ..default() },
/// });
/// # }
/// ```
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default)]
#[require(BodyFitState)]
pub struct BodyFit {
    /// Tuning (live-editable).
    pub settings: BodyFitSettings,
}

/// What [`BodyFit`] did last frame, and its memory.
#[derive(Component, Reflect, Clone, Debug, Default)]
#[reflect(Component, Default)]
pub struct BodyFitState {
    /// The body's turn (in the root's frame), about the middle of the hips.
    pub tilt: Quat,
    /// The body's raise along the root's up, in the root's units.
    pub raise: f32,
    #[reflect(ignore)]
    memory: BodyFitMemory,
    /// Per leg, the ground under the foot when it last stood (world).
    #[reflect(ignore)]
    stood_on: Vec<Option<Vec3>>,
    /// Warned that there is no `FootPlacer` next to it (until one is added).
    #[reflect(ignore)]
    warned_alone: bool,
}

/// A [`BodyFit`] turns the body of its root's [`FootPlacer`]: without one it does nothing, so
/// that is said once (again if the placer comes and goes).
pub(crate) fn warn_without_placer(mut fits: Query<(Entity, &mut BodyFitState, Has<FootPlacer>), With<BodyFit>>) {
    for (root, mut state, placed) in &mut fits {
        if !placed && !state.warned_alone {
            warn!(
                "bevy_ik: BodyFit on {root} has no FootPlacer next to it: it turns the placer's body, so it does \
                 nothing without one (add a FootPlacer, or CreatureIk, to the same entity)"
            );
        }
        if state.warned_alone == placed {
            state.warned_alone = !placed;
        }
    }
}

/// The body-fitting stage: the placer's pelvis turned and raised to the ground under the feet
/// as they stood last frame (`feet`, world; a swinging foot counts where it last stood while
/// near it), on the gathered pose. `floors` (the animated floor under each foot, model space)
/// move up or down with each foot; more than [`MAX_LEGS`] legs are refused. `weight`: the
/// placer's (its fade and level of detail), scaling the fit's own.
pub(crate) fn fit_body(
    (fit, state): (&BodyFit, &mut BodyFitState),
    weight: f32,
    bones: &mut BoneSet,
    (rigs, feet): (&[FootRig], &[FootStatus]),
    floors: &mut [f32; MAX_LEGS],
    dt: f32,
) -> Result<(), IkFault> {
    if rigs.len() > MAX_LEGS {
        return Err(IkFault::Input(format!(
            "BodyFit fits a body on at most {MAX_LEGS} legs and this FootPlacer has {}: remove BodyFit, or give \
             the placer the legs that carry the body",
            rigs.len()
        )));
    }
    let to_model = bones.stop_world.inverse();
    let legs = rigs.len();
    let mut body_feet = [BodyFoot { hip: 0, ground: None }; MAX_LEGS];
    let mut balls = [Vec3::ZERO; MAX_LEGS];
    state.stood_on.resize(legs, None);
    for (i, rig) in rigs.iter().enumerate() {
        // Where the foot stands, else where it last stood (a swing's ray finds the next tread
        // or the side of a ramp; the body rests on the feet that carry it).
        // Near: within half the leg's length (model space, so any size and scale of root).
        let stood = &mut state.stood_on[i];
        let ground = match feet.get(i).filter(|s| s.hit) {
            Some(foot) if foot.contact => {
                *stood = Some(foot.ground_point);
                Some(to_model.transform_point(foot.ground_point))
            }
            Some(foot) => {
                let (toe, now) =
                    (to_model.transform_point(foot.toe_world), to_model.transform_point(foot.ground_point));
                let near = 0.5 * leg_length(rig, &bones.model);
                let last = stood.map(|g| to_model.transform_point(g));
                Some(last.filter(|g| g.xz().distance(toe.xz()) < near).unwrap_or(now))
            }
            None => None,
        };
        body_feet[i] = BodyFoot { hip: rig.leg.hip, ground };
        balls[i] = ball_of(rig, &bones.model);
    }
    let job = BodyFitJob {
        parents: &bones.parents,
        body: bones.keys[0],
        feet: &body_feet[..legs],
        settings: BodyFitSettings { weight: fit.settings.weight * weight, ..fit.settings },
    };
    let outcome = job.run(&mut bones.locals, &mut bones.model, &mut state.memory, dt).map_err(IkFault::Solver)?;
    (state.tilt, state.raise) = (outcome.tilt, outcome.raise);
    // A foot moves with its hip (its leg hangs as animated): so does the floor under it.
    for ((floor, rig), before) in floors.iter_mut().zip(rigs).zip(balls) {
        *floor += ball_of(rig, &bones.model).y - before.y;
    }
    Ok(())
}

/// Hip to knee to ankle (model space).
fn leg_length(rig: &FootRig, model: &[Xform]) -> f32 {
    let at = |i: usize| model[i].translation;
    at(rig.leg.hip).distance(at(rig.leg.knee)) + at(rig.leg.knee).distance(at(rig.leg.ankle))
}

/// A foot's ball (model space), or its ankle without one.
fn ball_of(rig: &FootRig, model: &[Xform]) -> Vec3 {
    rig.ball(model).unwrap_or(model[rig.leg.ankle].translation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_fit_without_a_placer_is_warned_about_once_until_one_is_added() {
        let mut app = App::new();
        app.add_systems(Update, warn_without_placer);
        let root = app.world_mut().spawn(BodyFit::default()).id();
        let warned = |app: &App| app.world().get::<BodyFitState>(root).unwrap().warned_alone;
        app.update();
        assert!(warned(&app), "alone: warned");
        app.update();
        assert!(warned(&app), "still alone: not warned again (the flag stays)");
        app.world_mut().entity_mut(root).insert(FootPlacer::new(root, Vec::new()));
        app.update();
        assert!(!warned(&app), "a placer came: cleared, so a later removal warns again");
    }
}
