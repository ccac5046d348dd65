//! Issue 40, item 1: no panic on any input. Mutants of the mannequin and of CesiumMan (byte
//! flips, truncation, and JSON-level edits of accessors, buffer views, nodes, skins, samplers and
//! channels) go through every command that reads a character (`contacts`, `clean`, `retarget`
//! with the mutant as source and as target, `inplace`), in-process through the same `cli::parse` and
//! `cli::run` the binary uses: each run must end with exit status 0 or 2 (the binary's
//! [`ik_tool::ToolError::exit_code`]), within the time limit, without a panic, and write nothing
//! when it fails.
//!
//! `IK_FUZZ_N` mutants per file (default 48; the bar is `IK_FUZZ_N=1000`); the counts are
//! printed (`cargo test -p ik_tool --test fuzz -- --nocapture`; `IK_FUZZ_VERBOSE=1` prints each refusal).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ik_tool::gltf_write::{decode_glb, encode_glb};
use serde_json::{Value, json};

mod common;
use common::*;

/// Longest a run may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(120);

/// The last panic's message and place (set by the hook, read after a run).
static PANIC: Mutex<Option<String>> = Mutex::new(None);

/// A small deterministic generator (xorshift64*), seeded per mutant.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
    fn pick(&mut self, items: &[Value]) -> Option<usize> {
        (!items.is_empty()).then(|| self.below(items.len()))
    }
}

/// A value that breaks an index or a count: out of range, negative, huge, or of the wrong type.
fn bad_number(rng: &mut Rng, len: usize) -> Value {
    match rng.below(6) {
        0 => json!(len),
        1 => json!(len + 1 + rng.below(1000)),
        2 => json!(-1),
        3 => json!(u32::MAX),
        4 => json!(1.5),
        _ => json!("0"),
    }
}

/// One JSON-level mutation of `root` (the glTF JSON chunk).
fn mutate_json(root: &mut Value, rng: &mut Rng) {
    let count = |root: &Value, key: &str| root[key].as_array().map_or(0, Vec::len);
    let (accessors, views, nodes) = (count(root, "accessors"), count(root, "bufferViews"), count(root, "nodes"));
    let kind = rng.below(12);
    let idx = |root: &Value, key: &str, rng: &mut Rng| root[key].as_array().and_then(|a| rng.pick(a));
    match kind {
        0 => {
            // Accessor: count, offset, view, component type, type.
            if let Some(i) = idx(root, "accessors", rng) {
                let a = &mut root["accessors"][i];
                match rng.below(6) {
                    0 => a["count"] = bad_number(rng, 1 << 20),
                    1 => a["byteOffset"] = bad_number(rng, 1 << 20),
                    2 => a["bufferView"] = bad_number(rng, views),
                    3 => a["componentType"] = json!([5120, 5121, 5122, 5123, 5125, 5126, 9999][rng.below(7)]),
                    4 => a["type"] = json!(["SCALAR", "VEC2", "VEC3", "VEC4", "MAT4", "QUAT"][rng.below(6)]),
                    _ => {
                        a.as_object_mut().map(|o| o.remove("bufferView"));
                    }
                }
            }
        }
        1 => {
            // Buffer view: length, offset, stride, buffer.
            if let Some(i) = idx(root, "bufferViews", rng) {
                let v = &mut root["bufferViews"][i];
                let key = ["byteLength", "byteOffset", "byteStride", "buffer"][rng.below(4)];
                v[key] = bad_number(rng, 1 << 16);
            }
        }
        2 => {
            // Node: children out of range or a cycle, a huge or broken transform.
            if let Some(i) = idx(root, "nodes", rng) {
                let n = &mut root["nodes"][i];
                match rng.below(5) {
                    0 => n["children"] = json!([bad_number(rng, nodes)]),
                    1 => n["children"] = json!([i]),
                    2 => n["translation"] = json!([1e39, 0.0, 0.0]),
                    3 => n["rotation"] = json!([0.0, 0.0, 0.0, 0.0]),
                    _ => n["matrix"] = json!(vec![0.0; 16]),
                }
            }
        }
        3 => {
            // Skin: joints or inverse bind matrices out of range.
            if let Some(i) = idx(root, "skins", rng) {
                let s = &mut root["skins"][i];
                match rng.below(3) {
                    0 => s["joints"] = json!([bad_number(rng, nodes)]),
                    1 => s["inverseBindMatrices"] = bad_number(rng, accessors),
                    _ => s["joints"] = json!([]),
                }
            }
        }
        4..=8 => mutate_animation(root, rng, kind, accessors, nodes),
        9 => {
            // A node made the child of one of its descendants (a cycle) or of two parents.
            if nodes > 1 {
                let (a, b) = (rng.below(nodes), rng.below(nodes));
                if let Some(children) = root["nodes"][b]["children"].as_array_mut() {
                    children.push(json!(a));
                } else {
                    root["nodes"][b]["children"] = json!([a]);
                }
            }
        }
        10 => {
            let ext = ["KHR_draco_mesh_compression", "EXT_meshopt_compression", "KHR_texture_transform"][rng.below(3)];
            root["extensionsRequired"] = json!([ext]);
            root["extensionsUsed"] = json!([ext]);
        }
        _ => {
            // A whole array emptied or removed.
            let key = ["accessors", "bufferViews", "buffers", "nodes", "skins", "animations"][rng.below(6)];
            if rng.below(2) == 0 {
                root[key] = json!([]);
            } else if let Some(o) = root.as_object_mut() {
                o.remove(key);
            }
        }
    }
}

/// Mutations of animations: channel target node and path, sampler indices, interpolation.
fn mutate_animation(root: &mut Value, rng: &mut Rng, kind: usize, accessors: usize, nodes: usize) {
    let Some(a) = root["animations"].as_array().and_then(|x| rng.pick(x)) else { return };
    let animation = &mut root["animations"][a];
    let channels = animation["channels"].as_array().map_or(0, Vec::len);
    let samplers = animation["samplers"].as_array().map_or(0, Vec::len);
    let (c, s) = (rng.below(channels), rng.below(samplers));
    match kind {
        4 if channels > 0 => animation["channels"][c]["target"]["node"] = bad_number(rng, nodes),
        5 if channels > 0 => {
            let path = ["position", "weights", "Rotation", "", "matrix"][rng.below(5)];
            animation["channels"][c]["target"]["path"] = json!(path);
        }
        6 if channels > 0 => animation["channels"][c]["sampler"] = bad_number(rng, samplers),
        7 if samplers > 0 => {
            let key = ["input", "output"][rng.below(2)];
            animation["samplers"][s][key] =
                if rng.below(2) == 0 { bad_number(rng, accessors) } else { json!(rng.below(accessors)) };
        }
        8 if samplers > 0 => {
            animation["samplers"][s]["interpolation"] = json!(["CUBIC", "linear", "STEP", "CUBICSPLINE"][rng.below(4)]);
        }
        _ => {
            if let Some(o) = animation.as_object_mut() {
                o.remove(["channels", "samplers", "name"][rng.below(3)]);
            }
        }
    }
}

/// Mutant `i` of a GLB: a third byte flips, a sixth truncations, the rest JSON-level edits.
fn mutant(glb: &[u8], i: usize) -> Vec<u8> {
    let mut rng = Rng::new(i as u64 + 1);
    match i % 6 {
        0 | 1 => {
            let mut bytes = glb.to_vec();
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(bytes.len());
                bytes[at] ^= 1 << rng.below(8);
            }
            bytes
        }
        2 => glb[..rng.below(glb.len())].to_vec(),
        _ => {
            let chunks = decode_glb(glb).expect("the committed file is a GLB");
            let mut root: Value = serde_json::from_slice(chunks.json).expect("its JSON parses");
            for _ in 0..1 + rng.below(3) {
                mutate_json(&mut root, &mut rng);
            }
            encode_glb(&root.to_string(), chunks.bin.unwrap_or_default())
        }
    }
}

/// How one run ended.
#[derive(Debug, PartialEq)]
enum Outcome {
    Exit(u8, String),
    Panic(String),
    Hang,
}

/// Runs `ik_tool ARGS` in-process on its own thread: the exit status the binary would give, a
/// panic, or a hang.
fn run(args: Vec<String>) -> Outcome {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = std::panic::catch_unwind(|| {
            let command = ik_tool::cli::parse(&args).map_err(|e| (e.exit_code() as u8, e.to_string()))?;
            ik_tool::cli::run(&command).map(|_| ()).map_err(|e| (e.exit_code(), e.to_string()))
        });
        let _ = tx.send(result);
    });
    match rx.recv_timeout(HANG) {
        Ok(Ok(Ok(()))) => Outcome::Exit(0, String::new()),
        Ok(Ok(Err((code, message)))) => Outcome::Exit(code, message),
        Ok(Err(_)) => Outcome::Panic(PANIC.lock().unwrap().take().unwrap_or_default()),
        Err(_) => Outcome::Hang,
    }
}

/// Tallies of one command over the mutants of one file.
#[derive(Default)]
struct Tally {
    ok: usize,
    refused: usize,
    failures: Vec<String>,
}

fn commands(mutant: &Path, pristine: &Path, out: &Path) -> Vec<(&'static str, Vec<String>)> {
    let (m, p) = (s(mutant).to_string(), s(pristine).to_string());
    let glb = s(&out.join("out.glb")).to_string();
    let json = s(&out.join("labels.json")).to_string();
    let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        ("contacts", v(&["contacts", &m, "--json", &json])),
        ("clean", v(&["clean", &m, "--out", &glb, "--iterations", "200"])),
        ("retarget (source)", v(&["retarget", &m, &p, "--out", &glb])),
        ("retarget (target)", v(&["retarget", &p, &m, "--out", &glb])),
        ("inplace", v(&["inplace", &m, "--out", &glb])),
    ]
}

fn fuzz_file(name: &str, original: &Path, pristine: &Path, n: usize) -> Vec<(&'static str, Tally)> {
    let glb = std::fs::read(original).unwrap();
    let dir = TempDir::new(&format!("fuzz_{name}"));
    let input = dir.path("mutant.glb");
    let out = dir.path("out");
    let mut tallies: Vec<(&'static str, Tally)> =
        commands(&input, pristine, &out).into_iter().map(|(c, _)| (c, Tally::default())).collect();
    for i in 0..n {
        std::fs::write(&input, mutant(&glb, i)).unwrap();
        for ((command, args), (_, tally)) in commands(&input, pristine, &out).into_iter().zip(&mut tallies) {
            std::fs::create_dir_all(&out).unwrap();
            let started = Instant::now();
            let outcome = run(args);
            let written: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
            let what = format!("{name} mutant {i}, {command} ({:.1} s)", started.elapsed().as_secs_f32());
            match outcome {
                Outcome::Exit(0, _) => tally.ok += 1,
                Outcome::Exit(2, message) if written.is_empty() => {
                    if std::env::var_os("IK_FUZZ_VERBOSE").is_some() {
                        println!("{what}: {message}");
                    }
                    tally.refused += 1
                }
                Outcome::Exit(2, _) => tally.failures.push(format!("{what}: refused but wrote {written:?}")),
                other => tally.failures.push(format!("{what}: {other:?}")),
            }
            std::fs::remove_dir_all(&out).unwrap();
        }
    }
    tallies
}

#[test]
fn no_mutant_panics_hangs_or_writes_on_failure() {
    let n: usize = std::env::var("IK_FUZZ_N").ok().and_then(|v| v.parse().ok()).unwrap_or(48);
    std::panic::set_hook(Box::new(|info| *PANIC.lock().unwrap() = Some(info.to_string())));
    let characters = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/characters");
    let files = [
        ("mannequin", mannequin(), characters.join("CesiumMan.glb")),
        ("CesiumMan", characters.join("CesiumMan.glb"), mannequin()),
    ];
    let mut failures = Vec::new();
    for (name, original, pristine) in &files {
        for (command, tally) in fuzz_file(name, original, pristine, n) {
            println!(
                "{name}: {command}: {n} mutants: {} ran, {} refused (exit 2), {} failures",
                tally.ok,
                tally.refused,
                tally.failures.len()
            );
            failures.extend(tally.failures);
        }
    }
    let _ = std::panic::take_hook();
    assert!(
        failures.is_empty(),
        "{} runs panicked, hung, exited otherwise or wrote on failure:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
