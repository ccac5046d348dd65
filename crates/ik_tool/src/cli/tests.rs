//! Tests of the command line: parsing, usage errors and the subcommands' results.
use super::*;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn error(list: &[&str]) -> String {
    parse(&args(list)).unwrap_err().to_string()
}

#[test]
fn parses_commands_and_rejects_bad_arguments() {
    assert_eq!(
        parse(&args(&["mannequin", "--out", "x/m.glb"])).unwrap(),
        Command::Mannequin { out: "x/m.glb".into(), convention: None, root_motion: None }
    );
    assert_eq!(
        parse(&args(&["mannequin", "--convention", "mixamo_cm"])).unwrap(),
        Command::Mannequin {
            out: "assets/conventions/mixamo_cm.glb".into(),
            convention: Some("mixamo_cm".into()),
            root_motion: None
        }
    );
    assert!(error(&["mannequin", "--convention", "nope"]).contains("mixamo_cm"));
    assert_eq!(parse(&args(&["mannequin", "--list-conventions"])).unwrap(), Command::Conventions);
    for bad in [&[][..], &["mannequin", "--out"], &["mannequin", "--size", "2"], &["bake"]] {
        let e = parse(&args(bad)).unwrap_err();
        assert_eq!(e.exit_code(), 2, "{bad:?}: {e}");
    }
    assert_eq!(parse(&args(&["--help"])).unwrap_err().exit_code(), 0);
    let Ok(Command::Clean { options, clip, .. }) = parse(&args(&[
        "clean",
        "a.glb",
        "--out",
        "b.glb",
        "--clip",
        "Walk",
        "--root-speed-scale",
        "1.25",
        "--iterations",
        "500",
    ])) else {
        panic!("clean parses");
    };
    assert_eq!((options.scale, options.slide.iterations, clip.as_deref()), (1.25, 500, Some("Walk")));
    assert_eq!(options.slide.soft_factor, 0.05);
    assert!(error(&["clean", "a.glb"]).contains("--out"));
    assert!(parse(&args(&["clean", "a.glb", "--out", "b.glb", "--all", "--clip", "W"])).is_err());
    assert!(error(&["clean", "a.glb", "--out", "b.glb", "--hard", "1.5"]).contains("must be in [0, 1]"));
    assert!(parse(&args(&["contacts", "a.glb", "--out", "b.glb"])).is_err());
    let Ok(Command::Retarget { source, target, out, clip, target_map, keep_hands, .. }) = parse(&args(&[
        "retarget",
        "m.glb",
        "t.glb",
        "--out",
        "o.glb",
        "--clip",
        "Walk",
        "--target-map",
        "pelvis=Hips",
        "--keep-hands",
    ])) else {
        panic!("retarget parses");
    };
    assert_eq!((source, target, out), ("m.glb".into(), "t.glb".into(), "o.glb".into()));
    assert_eq!((clip.as_deref(), target_map.as_deref(), keep_hands), (Some("Walk"), Some("pelvis=Hips"), true));
    assert!(error(&["retarget", "m.glb", "t.glb"]).contains("--out"));
    assert!(parse(&args(&["retarget", "m.glb", "t.glb", "-o", "o.glb", "--all", "--clip", "W"])).is_err());
    assert!(error(&["contacts", "a.glb", "--velocity", "fast"]).contains("not a valid number"));
    assert!(parse(&args(&["contacts", "a.glb", "b.glb"])).is_err());
    let Ok(Command::Contacts { shared, .. }) =
        parse(&args(&["contacts", "a.glb", "--height", "0.05", "--vote", "5", "--rig-map", "pelvis=Hips"]))
    else {
        panic!("contacts parses");
    };
    assert_eq!((shared.contacts.height, shared.contacts.vote_window), (Some(0.05), 5));
    assert_eq!(shared.map.as_deref(), Some("pelvis=Hips"), "--rig-map is --map");
    let Ok(Command::Mannequin { out, root_motion, .. }) =
        parse(&args(&["mannequin", "--root-motion", "hips", "--convention", "mixamo"]))
    else {
        panic!("mannequin --root-motion parses");
    };
    assert_eq!((out, root_motion), ("assets/root_motion/mixamo_hips.glb".into(), Some(RootCarrier::Hips)));
    assert!(error(&["mannequin", "--root-motion", "feet"]).contains("root"));
    let Ok(Command::InPlace(a)) = parse(&args(&["inplace", "a.glb", "-o", "b.glb", "--clip", "Walk"])) else {
        panic!("inplace parses");
    };
    assert_eq!((a.input, a.out, a.clip.as_deref()), ("a.glb".into(), "b.glb".into(), Some("Walk")));
    assert!(error(&["inplace", "a.glb"]).contains("--out"));
}

#[test]
fn the_usage_names_every_command_and_convention() {
    let text = usage();
    for word in [
        "mannequin",
        "contacts",
        "clean",
        "retarget",
        "inplace",
        "--root-motion",
        "--target-map",
        "--rig-map",
        "--list-conventions",
        "mixamo_cm",
    ] {
        assert!(text.contains(word), "usage lacks {word}: {text}");
    }
}
