//! The tool against files from the internet (issue #18): no panic on any
//! input, buffer URIs kept beside the file, limits on decoded bytes, keys and
//! clip length, each error naming the file and the part.

#[path = "../../tests/support/tools.rs"]
#[macro_use]
mod tools;

mod common;
use common::secmo;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use secmo_cli::glb::Glb;
use serde_json::{json, Value};

thread_local! {
    /// When set, the folders the tests on this thread generate their files
    /// in are kept and listed here
    /// (`every_file_a_command_accepts_is_written_valid`).
    static KEPT: RefCell<Option<Vec<PathBuf>>> = const { RefCell::new(None) };
}

/// A fresh folder for one test's files.
fn dir(name: &str) -> PathBuf {
    static SERIAL: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "secmo-hostile-{name}-{}-{}",
        std::process::id(),
        SERIAL.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    KEPT.with(|k| {
        if let Some(k) = k.borrow_mut().as_mut() {
            k.push(d.clone());
        }
    });
    d
}

/// Removes a test's folder, unless its files are being kept.
fn done(d: PathBuf) {
    if KEPT.with(|k| k.borrow().is_none()) {
        std::fs::remove_dir_all(d).ok();
    }
}

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// A glTF with two nodes (root → child) and one clip animating the child's
/// rotation with `times` and `rotations`, all in one data-URI buffer.
fn gltf(times: &[f32], rotations: &[[f32; 4]]) -> Value {
    let mut bytes = floats(times);
    let offset = bytes.len();
    bytes.extend(floats(&rotations.concat()));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let t_max = times.iter().copied().fold(f32::MIN, f32::max);
    let t_min = times.iter().copied().fold(f32::MAX, f32::min);
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "child", "translation": [0.0, 1.0, 0.0]}
        ],
        "buffers": [{"byteLength": bytes.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": offset},
            {"buffer": 0, "byteOffset": offset, "byteLength": bytes.len() - offset}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": times.len(), "type": "SCALAR",
             "min": [t_min], "max": [t_max]},
            {"bufferView": 1, "componentType": 5126, "count": rotations.len(), "type": "VEC4"}
        ],
        "animations": [{
            "name": "clip",
            "samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]
        }]
    })
}

fn write(dir: &Path, name: &str, value: &Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(value).unwrap()).unwrap();
    p.to_string_lossy().into_owned()
}

/// Every command on `file` exits 0 or 1 (never a panic's 101 or a signal),
/// and a failure is one line naming the file and containing `part`.
fn refused_everywhere(file: &str, part: &str) {
    let out = Path::new(file).with_extension("out.glb");
    let out = out.to_str().unwrap();
    for args in [
        vec!["import", file],
        vec!["bake", file, "--out", out],
        vec!["report", file, "--out", out],
        vec!["rig", file, "-o", out],
        vec!["vrm-settings", file, "--out", out],
    ] {
        let (code, _, err) = secmo(&args);
        assert!(code == 0 || code == 1, "{args:?}: exit {code}: {err}");
        if args[0] == "import" {
            assert_eq!(code, 1, "{args:?} must refuse: {err}");
            assert!(err.contains(file) && err.contains(part), "{args:?}: {err}");
        }
        if code == 1 {
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
}

/// Every command that reads a glTF (`import`, `bake`, `report`, `rig`)
/// refuses `file`: exit 1, one line naming the file and containing `part`,
/// nothing written.
fn refused_by_every_command(file: &str, part: &str) {
    let out = Path::new(file).with_extension("out.glb");
    let out = out.to_str().unwrap();
    for args in [
        vec!["import", file],
        vec!["bake", file, "--out", out],
        vec!["report", file, "--out", out],
        vec!["rig", file, "-o", out, "--write-unchanged"],
    ] {
        let (code, _, err) = secmo(&args);
        assert_eq!(code, 1, "{args:?} must refuse: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(file) && err.contains(part), "{args:?}: {err}");
        assert!(!Path::new(out).exists(), "{args:?} wrote {out}");
    }
}

/// The Fox as a GLB to edit.
fn fox() -> Glb {
    Glb::read(Path::new(&common::asset("Fox.glb"))).unwrap()
}

/// Where component `c` of element `e` of accessor `a` is in the binary
/// chunk (4-byte floats, or `size`-byte integers).
fn component_at(glb: &Glb, a: usize, e: usize, c: usize, size: usize) -> usize {
    let accessor = &glb.json["accessors"][a];
    let view = &glb.json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let components = match accessor["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        other => panic!("{other}"),
    };
    let stride = view["byteStride"]
        .as_u64()
        .map_or(components * size, |s| s as usize);
    view["byteOffset"].as_u64().unwrap_or(0) as usize
        + accessor["byteOffset"].as_u64().unwrap_or(0) as usize
        + e * stride
        + c * size
}

fn set_f32(glb: &mut Glb, a: usize, e: usize, c: usize, value: f32) {
    let at = component_at(glb, a, e, c, 4);
    glb.bin[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn attribute(glb: &Glb, name: &str) -> usize {
    glb.json["meshes"][0]["primitives"][0]["attributes"][name]
        .as_u64()
        .unwrap() as usize
}

const Q: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

fn a_channel_targeting_a_missing_node_is_an_error() {
    let d = dir("missing-node");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["animations"][0]["channels"][0]["target"]["node"] = json!(7);
    let f = write(&d, "a.gltf", &v);
    refused_everywhere(&f, "node");
    done(d);
}

fn broken_keys_are_refused_by_name() {
    let d = dir("keys");
    // A zero quaternion key.
    let f = write(&d, "zero.gltf", &gltf(&[0.0, 1.0], &[Q, [0.0; 4]]));
    refused_everywhere(
        &f,
        "animations[0].channels[0]: key 1 is a zero-length rotation",
    );
    // A key at 3e38 s.
    let f = write(&d, "far.gltf", &gltf(&[0.0, 3e38], &[Q, Q]));
    refused_everywhere(&f, "animations[0].channels[0]: key 1 at 3e38 s");
    // A 1e6 s clip (the 936-byte file that baked for minutes).
    let f = write(&d, "long.gltf", &gltf(&[0.0, 1e6], &[Q, Q]));
    refused_everywhere(&f, "the limit is 3600 s");
    // Negative time.
    let f = write(&d, "negative.gltf", &gltf(&[-1.0, 1.0], &[Q, Q]));
    refused_everywhere(&f, "negative");
    done(d);
}

fn absurd_node_transforms_are_refused_by_name() {
    let d = dir("nodes");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["nodes"][1]["scale"] = json!([1e30, 1.0, 1.0]);
    let f = write(&d, "scale.gltf", &v);
    refused_everywhere(&f, "nodes[1]");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["nodes"][1]["rotation"] = json!([0.0, 0.0, 0.0, 0.0]);
    let f = write(&d, "rotation.gltf", &v);
    refused_everywhere(&f, "nodes[1]");
    done(d);
}

fn buffer_uris_stay_beside_the_file() {
    let d = dir("uris");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let secret = d.join("secret.bin");
    std::fs::write(&secret, [0u8; 64]).unwrap();
    let keys = floats(&[0.0, 1.0]);
    for (name, uri, part) in [
        ("dev.gltf", "/dev/zero".to_string(), "absolute"),
        (
            "abs.gltf",
            secret.to_string_lossy().into_owned(),
            "absolute",
        ),
        ("up.gltf", "../secret.bin".to_string(), ".."),
        ("up_escaped.gltf", "%2E%2E/secret.bin".to_string(), ".."),
        (
            "bad_escape.gltf",
            "keys%G1.bin".to_string(),
            "percent-encoded",
        ),
        (
            "not_utf8.gltf",
            "keys%FF.bin".to_string(),
            "percent-encoded",
        ),
        ("file.gltf", "file:///etc/passwd".to_string(), "scheme"),
        (
            "http.gltf",
            "http://example.com/a.bin".to_string(),
            "scheme",
        ),
        ("dir.gltf", ".".to_string(), "not a regular file"),
    ] {
        let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
        v["buffers"][0]["uri"] = json!(uri);
        let f = write(&d.join("sub"), name, &v);
        let (code, _, err) = secmo(&["import", &f]);
        assert_eq!(code, 1, "{uri}: {err}");
        assert!(
            err.contains("buffers[0]") && err.contains(part),
            "{uri}: {err}"
        );
        assert_eq!(err.lines().count(), 1);
    }
    // A file beside the glTF is read (here: the keys, then quaternions).
    let mut bytes = keys.clone();
    bytes.extend(floats(&[Q, Q].concat()));
    std::fs::write(d.join("sub/keys.bin"), &bytes).unwrap();
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["buffers"][0]["uri"] = json!("keys.bin");
    let f = write(&d.join("sub"), "ok.gltf", &v);
    let (code, out, err) = secmo(&["import", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("clip \"clip\": 1.00 s, 1 channels"), "{out}");
    // URIs are percent-encoded: a space, and a non-ASCII name as a Japanese
    // VRM tool writes it (髪 データ.bin).
    std::fs::write(d.join("sub/髪 データ.bin"), &bytes).unwrap();
    v["buffers"][0]["uri"] = json!("%E9%AB%AA%20%E3%83%87%E3%83%BC%E3%82%BF.bin");
    let f = write(&d.join("sub"), "escaped.gltf", &v);
    let (code, out, err) = secmo(&["import", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("clip \"clip\": 1.00 s, 1 channels"), "{out}");
    done(d);
}

fn a_buffer_longer_than_the_limit_is_refused_before_it_is_read() {
    let d = dir("big");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["buffers"][0]["byteLength"] = json!(8u64 << 30);
    let f = write(&d, "big.gltf", &v);
    let (code, _, err) = secmo(&["import", &f]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("buffers[0]") && err.contains("limit"), "{err}");
    done(d);
}

fn random_mutations_of_real_files_never_panic() {
    // A small deterministic mutation fuzz of the Fox and a spring fixture
    // (cargo-fuzz in fuzz/ runs the same readers for longer).
    let d = dir("mutations");
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/assets");
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for name in ["Fox.glb", "three-vrm-springbone/sphere-collider.gltf"] {
        let original = std::fs::read(assets.join(name)).unwrap();
        for i in 0..12 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 8 {
                let at = (next() as usize) % bytes.len();
                bytes[at] = next() as u8;
            }
            if i % 4 == 3 {
                bytes.truncate((next() as usize) % bytes.len());
            }
            let ext = Path::new(name).extension().unwrap().to_str().unwrap();
            let f = d.join(format!("m{i}.{ext}"));
            std::fs::write(&f, &bytes).unwrap();
            let f = f.to_str().unwrap();
            for args in [
                vec!["import", f],
                vec!["vrm-settings", f, "--out", "/dev/null"],
            ] {
                let (code, _, err) = secmo(&args);
                assert!(
                    code == 0 || code == 1,
                    "{name} mutation {i}, {args:?}: exit {code}: {err}"
                );
                assert!(!err.contains("panicked"), "{err}");
            }
        }
    }
    done(d);
}

fn accessors_that_do_not_fit_their_use_are_refused() {
    // Found by fuzz/gltf_import: an accessor whose type did not match its use
    // tripped an assertion inside the glTF reader.
    let d = dir("accessor-types");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["accessors"][0]["type"] = json!("VEC2");
    v["accessors"][0]["count"] = json!(1);
    let f = write(&d, "input.gltf", &v);
    refused_everywhere(&f, "sampler input");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["bufferViews"][1]["byteStride"] = json!(8);
    let f = write(&d, "stride.gltf", &v);
    refused_everywhere(&f, "byteStride 8 is shorter than one element (16 bytes)");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["bufferViews"][1]["byteLength"] = json!(1 << 20);
    let f = write(&d, "view.gltf", &v);
    refused_everywhere(&f, "extends past the end of buffers[0]");
    done(d);
}

fn accessors_without_a_buffer_view_read_as_nothing_not_as_data() {
    // glTF 2.0 lets an accessor go without a buffer view (zeros, or data an
    // extension supplies); since Draco files open, such accessors pass the
    // document checks, and every use of one must still be refused or
    // skipped by name, never read as data.
    let d = dir("viewless");
    for (accessor, part) in [
        (0, "key times cannot be read"),
        (1, "key values cannot be read"),
    ] {
        let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
        v["accessors"][accessor]
            .as_object_mut()
            .unwrap()
            .remove("bufferView");
        let f = write(&d, &format!("viewless-{accessor}.gltf"), &v);
        refused_everywhere(&f, part);
    }
    // A skin whose inverse binds are all zeros: no bind pose can be read
    // from it, and every command refuses it by name.
    let fox = common::asset("Fox.glb");
    let mut glb = Glb::read(Path::new(&fox)).unwrap();
    let ibm = glb.json["skins"][0]["inverseBindMatrices"]
        .as_u64()
        .unwrap() as usize;
    glb.json["accessors"][ibm]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let f = d.join("zero-binds.glb");
    glb.write(&f).unwrap();
    refused_by_every_command(
        f.to_str().unwrap(),
        &format!(
            "skins[0].inverseBindMatrices: accessors[{ibm}] has no buffer view, so every \
             matrix is zero (not invertible)"
        ),
    );
    done(d);
}

fn a_sampler_naming_a_missing_accessor_is_an_error() {
    // Found by CI's fuzzing: the layout check looked the accessor up before
    // the reference check had refused the dangling index.
    let d = dir("dangling-accessor");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["animations"][0]["samplers"][0]["output"] = json!(360);
    let f = write(&d, "a.gltf", &v);
    refused_everywhere(
        &f,
        "animations[0].samplers[0].output: 360 is not one of the file's 2 accessors",
    );
    done(d);
}

fn a_value_outside_its_enumeration_is_an_error_not_a_panic() {
    // Found by fuzzing when the importer first read files without the
    // validating reader (to accept any extensionsRequired): the reader
    // unwraps enumerations it expects validation to have checked. The
    // importer validates everything but extensionsRequired.
    let d = dir("bad-enum");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["animations"][0]["samplers"][0]["interpolation"] = json!("LINEER");
    v["extensionsRequired"] = json!(["KHR_texture_transform"]);
    v["extensionsUsed"] = json!(["KHR_texture_transform"]);
    let f = write(&d, "a.gltf", &v);
    refused_everywhere(&f, "animations[0].samplers[0].interpolation: Invalid value");
    done(d);
}

fn fuzz_regressions_are_refused_by_the_importer_not_by_a_reader_panic() {
    // Every input fuzzing has found (fuzz/regressions/gltf_import): the
    // importer's own checks refuse it, or it imports; the glTF reader never
    // gets to panic (import catches that as "the reader failed", which would
    // still be a finding under libFuzzer).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/gltf_import");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let d = dir_for(&path);
        // Named by content, as the tool reads it.
        let bytes = std::fs::read(&path).unwrap();
        let ext = if bytes.starts_with(b"glTF") {
            "glb"
        } else {
            "gltf"
        };
        let copy = d.join(format!("input.{ext}"));
        std::fs::write(&copy, &bytes).unwrap();
        let (code, _, stderr) = secmo(&["import", copy.to_str().unwrap()]);
        assert!(
            code == 0 || code == 1,
            "{}: exit {code}: {stderr}",
            path.display()
        );
        assert!(
            !stderr.contains("the reader failed"),
            "{}: {stderr}",
            path.display()
        );
        done(d);
        seen += 1;
    }
    assert!(seen >= 3, "the regression inputs are there");
}

fn dir_for(path: &Path) -> PathBuf {
    dir(&format!(
        "regression-{}",
        path.file_name().unwrap().to_string_lossy()
    ))
}

fn only_the_first_buffer_of_a_glb_is_its_binary_chunk() {
    // glTF 2.0 §4.4.3.3: in a GLB, buffers[0] may leave out its uri and
    // stand for the binary chunk; any other buffer without a uri has no
    // data. The clip's rotations in such a buffer were read from the
    // binary chunk (the key times, read as quaternions) without a word.
    let d = dir("second-bin");
    let v = gltf(&[0.0, 1.0], &[Q, [0.0, 0.6, 0.0, 0.8]]);
    let uri = v["buffers"][0]["uri"].as_str().unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(uri.split_once(";base64,").unwrap().1)
        .unwrap();
    let rotations = v["bufferViews"][1]["byteLength"].as_u64().unwrap();
    let glb = |second_has_data: bool| {
        let mut glb = secmo_cli::glb::Glb::new(v.clone());
        glb.bin = bytes.clone();
        glb.json["buffers"] = json!([{"byteLength": bytes.len()}, {"byteLength": rotations}]);
        if second_has_data {
            let tail = &bytes[bytes.len() - rotations as usize..];
            glb.json["buffers"][1]["uri"] = json!(format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(tail)
            ));
        }
        glb.json["bufferViews"][1] = json!({"buffer": 1, "byteLength": rotations});
        glb.to_bytes().unwrap()
    };
    // With its own data the second buffer reads as written.
    let f = d.join("data.glb");
    std::fs::write(&f, glb(true)).unwrap();
    let (code, out, err) = secmo(&["import", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("clip \"clip\": 1.00 s, 1 channels"), "{out}");
    // Without, it is refused by name.
    let f = d.join("no-data.glb");
    std::fs::write(&f, glb(false)).unwrap();
    refused_everywhere(f.to_str().unwrap(), "buffers[1]");
    done(d);
}

fn files_of_another_gltf_version_are_refused_by_name() {
    let d = dir("version");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["asset"]["version"] = json!("3.0");
    let f = write(&d, "three.gltf", &v);
    refused_everywhere(&f, "asset.version: 3.0; secmo reads glTF 2.x files");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["asset"]["minVersion"] = json!("2.1");
    let f = write(&d, "newer.gltf", &v);
    refused_everywhere(&f, "asset.minVersion: 2.1");
    // A later 2.x minor version is read as 2.0 (glTF 2.0, "Asset").
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["asset"]["version"] = json!("2.1");
    let f = write(&d, "minor.gltf", &v);
    let (code, _, err) = secmo(&["import", &f]);
    assert_eq!(code, 0, "{err}");
    done(d);
}

fn what_gltf_leaves_optional_may_be_absent() {
    // A channel whose target has no node (an extension's target), a scene
    // without nodes, a file without nodes at all: glTF 2.0 allows each;
    // the file opens (before, "missing field `node`" with no path, and
    // "nodes: missing").
    let d = dir("optional");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    let channel = v["animations"][0]["channels"][0].clone();
    let mut targetless = channel.clone();
    targetless["target"].as_object_mut().unwrap().remove("node");
    v["animations"][0]["channels"] = json!([channel, targetless]);
    v["scenes"] = json!([{}]);
    let f = write(&d, "targetless.gltf", &v);
    let (code, out, err) = secmo(&["import", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "note: animations[0]: 1 channel(s) without a target node (an extension's target) \
             animate no bone; ignored"
        ),
        "{out}"
    );
    assert!(out.contains("1 channels"), "{out}");

    let empty = json!({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"name": "Scene"}]});
    let f = write(&d, "empty.gltf", &empty);
    let (code, out, err) = secmo(&["import", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("0 bones (nodes), no skin, no animation clips"),
        "{out}"
    );
    done(d);
}

fn a_missing_required_field_is_named_with_its_path() {
    let d = dir("required");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["animations"][0]["samplers"][0]
        .as_object_mut()
        .unwrap()
        .remove("input");
    let f = write(&d, "no-input.gltf", &v);
    refused_everywhere(&f, "animations[0].samplers[0]: missing field `input`");
    done(d);
}

fn a_skin_joint_list_repeated_200_times_is_refused_in_linear_time() {
    // Godette with her 68 skin joints listed 200 times over (and as many
    // inverse binds): `rig` took 30-48 s and 292 MB on it. glTF lists each
    // joint once (the validator's DUPLICATE_ELEMENTS).
    let d = dir("repeated-joints");
    let mut glb = Glb::read(Path::new(&common::asset("Godette_vrm_v4.vrm"))).unwrap();
    let ibm = glb.json["skins"][0]["inverseBindMatrices"]
        .as_u64()
        .unwrap() as usize;
    let joints = glb.json["skins"][0]["joints"].as_array().unwrap().clone();
    assert_eq!(joints.len(), 68);
    let matrices: Vec<f32> = (0..joints.len() * 16)
        .map(|k| {
            let at = component_at(&glb, ibm, k / 16, k % 16, 4);
            f32::from_le_bytes(glb.bin[at..at + 4].try_into().unwrap())
        })
        .collect();
    let repeated = glb.push_floats(&matrices.repeat(200), "MAT4", false);
    glb.json["skins"][0]["inverseBindMatrices"] = json!(repeated);
    glb.json["skins"][0]["joints"] =
        json!((0..200).flat_map(|_| joints.clone()).collect::<Vec<_>>());
    let f = d.join("godette-200.vrm");
    glb.write(&f).unwrap();
    let f = f.to_str().unwrap();
    let out = d.join("rig.glb");
    let start = Instant::now();
    let (code, _, err) = secmo(&["rig", f, "-o", out.to_str().unwrap()]);
    let took = start.elapsed();
    assert_eq!(code, 1, "{err}");
    assert!(took < Duration::from_secs(3), "rig took {took:?}");
    refused_by_every_command(
        f,
        &format!(
            "skins[0].joints: entry 68 repeats node {} (entry 0); a skin lists each joint once",
            joints[0]
        ),
    );
    done(d);
}

fn invalid_skin_and_accessor_data_is_refused_by_every_command() {
    // Data the Khronos validator finds in the input ended up in what bake
    // and rig wrote; each is refused by the field that holds it.
    let d = dir("skin-data");
    let glb = fox();
    let ibm = glb.json["skins"][0]["inverseBindMatrices"]
        .as_u64()
        .unwrap() as usize;
    let (joints, weights) = (attribute(&glb, "JOINTS_0"), attribute(&glb, "WEIGHTS_0"));
    let (position, uv) = (attribute(&glb, "POSITION"), attribute(&glb, "TEXCOORD_0"));
    let skin = "skins[0].inverseBindMatrices";
    let primitive = "meshes[0].primitives[0].attributes";
    let sparse = |glb: &mut Glb, indices: &[u32]| {
        let i: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let v = floats(&vec![0.0; 3 * indices.len()]);
        let (i, v) = (glb.push_view(&i), glb.push_view(&v));
        glb.json["accessors"][position]["sparse"] = json!({
            "count": indices.len(),
            "indices": {"bufferView": i, "componentType": 5125},
            "values": {"bufferView": v}
        });
    };
    type Edit<'a> = Box<dyn Fn(&mut Glb) + 'a>;
    let cases: Vec<(&str, Edit, String)> = vec![
        (
            "ibm-nan",
            Box::new(|g| set_f32(g, ibm, 3, 5, f32::NAN)),
            format!("{skin}: matrix 3 has NaN"),
        ),
        (
            "ibm-inf",
            Box::new(|g| set_f32(g, ibm, 3, 12, f32::INFINITY)),
            format!("{skin}: matrix 3 has infinity"),
        ),
        (
            "ibm-zero",
            Box::new(|g| (0..16).for_each(|c| set_f32(g, ibm, 3, c, 0.0))),
            format!("{skin}: matrix 3 has the last row [0.0, 0.0, 0.0, 0.0], not [0, 0, 0, 1]"),
        ),
        (
            "ibm-singular",
            Box::new(|g| (0..15).for_each(|c| set_f32(g, ibm, 3, c, 0.0))),
            format!("{skin}: matrix 3 is not invertible (determinant 0e0)"),
        ),
        (
            "joints",
            Box::new(|g| {
                let at = component_at(g, joints, 5, 0, 2);
                g.bin[at..at + 2].copy_from_slice(&24u16.to_le_bytes());
            }),
            format!("{primitive}.JOINTS_0: vertex 5 names joint 24; skins[0] has 24 joints"),
        ),
        (
            "weights",
            Box::new(|g| set_f32(g, weights, 5, 0, f32::NAN)),
            format!("{primitive}.WEIGHTS_0: vertex 5 has NaN"),
        ),
        (
            "sparse-range",
            Box::new(|g| sparse(g, &[5000])),
            format!("accessors[{position}].sparse.indices: entry 0 is 5000; the accessor has 1728 elements"),
        ),
        (
            "sparse-order",
            Box::new(|g| sparse(g, &[7, 3])),
            format!("accessors[{position}].sparse.indices: entry 1 (3) does not increase"),
        ),
        (
            "joints1-float",
            Box::new(|g| {
                g.json["meshes"][0]["primitives"][0]["attributes"]["JOINTS_1"] = json!(uv);
            }),
            format!(
                "{primitive}.JOINTS_1: accessors[{uv}] is VEC2 of componentType 5126; \
                 this use needs [\"VEC4\"] of [5121, 5123]"
            ),
        ),
        (
            "uv-nan",
            Box::new(|g| set_f32(g, uv, 7, 1, f32::NAN)),
            format!("{primitive}.TEXCOORD_0: vertex 7 has NaN or infinity (accessors[{uv}])"),
        ),
    ];
    for (name, edit, part) in &cases {
        let mut glb = fox();
        edit(&mut glb);
        let f = d.join(format!("{name}.glb"));
        glb.write(&f).unwrap();
        refused_by_every_command(f.to_str().unwrap(), part);
    }
    done(d);
}

/// The Fox with its tail nodes (15, 16, 17) given by `matrix`, sheared by
/// `shear` (x into y), and their authored tracks removed (glTF lets no
/// channel target such a node). Returns the matrices.
fn fox_with_a_matrix_tail(shear: f32) -> (Glb, Vec<glam::Mat4>) {
    let mut glb = fox();
    let mut matrices = Vec::new();
    for n in 15..18 {
        let node = glb.json["nodes"][n].as_object_mut().unwrap();
        let number = |v: &Value| v.as_f64().unwrap() as f32;
        let t = node.remove("translation").unwrap();
        let r = node.remove("rotation").unwrap();
        let t = glam::Vec3::new(number(&t[0]), number(&t[1]), number(&t[2]));
        let r = glam::Quat::from_xyzw(number(&r[0]), number(&r[1]), number(&r[2]), number(&r[3]));
        let mut s = glam::Mat4::IDENTITY;
        s.y_axis.x = shear;
        let m = glam::Mat4::from_rotation_translation(r.normalize(), t) * s;
        node.insert("matrix".into(), json!(m.to_cols_array()));
        matrices.push(m);
    }
    for animation in glb.json["animations"].as_array_mut().unwrap() {
        animation["channels"]
            .as_array_mut()
            .unwrap()
            .retain(|c| !(15..18).contains(&c["target"]["node"].as_u64().unwrap()));
    }
    (glb, matrices)
}

fn bake_writes_a_keyed_node_given_by_a_matrix_as_translation_rotation_scale() {
    // glTF lets no channel target a node given by `matrix` (the validator's
    // ANIMATION_CHANNEL_TARGET_NODE_MATRIX); bake keyed the tail's rotation
    // on it regardless.
    let d = dir("matrix");
    let (mut glb, matrices) = fox_with_a_matrix_tail(0.0);
    let f = d.join("matrix-tail.glb");
    glb.write(&f).unwrap();
    let out = d.join("matrix-tail.baked.glb");
    let (code, _, err) = secmo(&["bake", f.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let baked = Glb::read(&out).unwrap();
    for (n, m) in (15..18).zip(&matrices) {
        let node = &baked.json["nodes"][n];
        assert!(node.get("matrix").is_none(), "nodes[{n}]: {node}");
        let v = |key: &str| -> Vec<f32> {
            node[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        };
        let trs = glam::Mat4::from_scale_rotation_translation(
            glam::Vec3::from_slice(&v("scale")),
            glam::Quat::from_slice(&v("rotation")),
            glam::Vec3::from_slice(&v("translation")),
        );
        let off = (trs - *m)
            .to_cols_array()
            .iter()
            .fold(0.0f32, |a, x| a.max(x.abs()));
        assert!(off < 1e-4, "nodes[{n}]: {trs} against {m}");
    }
    let mut tail_channels = 0;
    for animation in baked.json["animations"].as_array().unwrap() {
        for c in animation["channels"].as_array().unwrap() {
            let n = c["target"]["node"].as_u64().unwrap() as usize;
            assert!(baked.json["nodes"][n].get("matrix").is_none(), "{c}");
            tail_channels += usize::from((15..18).contains(&n));
        }
    }
    assert_eq!(
        tail_channels,
        3 * 3,
        "three tail tracks in each of three clips"
    );

    // A sheared matrix has no translation, rotation and scale to key.
    let (mut glb, _) = fox_with_a_matrix_tail(0.3);
    let f = d.join("sheared-tail.glb");
    glb.write(&f).unwrap();
    let out = d.join("sheared-tail.baked.glb");
    let (code, _, err) = secmo(&["bake", f.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("nodes[15].matrix: not a translation, rotation and scale"),
        "{err}"
    );
    assert!(!out.exists());

    // A file that animates a node given by a matrix is refused.
    let mut glb = fox();
    let node = glb.json["nodes"][15].as_object_mut().unwrap();
    node.remove("translation");
    node.remove("rotation");
    node.insert("matrix".into(), json!(glam::Mat4::IDENTITY.to_cols_array()));
    let f = d.join("animated-matrix.glb");
    glb.write(&f).unwrap();
    refused_by_every_command(
        f.to_str().unwrap(),
        "target.node: 15 is given by `matrix`, which glTF lets no animation target",
    );
    done(d);
}

/// The files `dir` holds, below it too, that a command could read.
fn gltf_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            gltf_files(&path, found);
        } else if [".glb", ".gltf", ".vrm"].iter().any(|e| name.ends_with(e))
            && !name.contains(".out.")
        {
            found.push(path);
        }
    }
}

fn every_file_a_command_accepts_is_written_valid() {
    // Every file the tests above generate, through `bake` and `rig`: each
    // either refuses it (exit 1) or writes a file the Khronos validator
    // finds no error in.
    KEPT.with(|k| *k.borrow_mut() = Some(Vec::new()));
    let tests: [fn(); 18] = [
        a_channel_targeting_a_missing_node_is_an_error,
        broken_keys_are_refused_by_name,
        absurd_node_transforms_are_refused_by_name,
        buffer_uris_stay_beside_the_file,
        a_buffer_longer_than_the_limit_is_refused_before_it_is_read,
        random_mutations_of_real_files_never_panic,
        accessors_that_do_not_fit_their_use_are_refused,
        accessors_without_a_buffer_view_read_as_nothing_not_as_data,
        a_sampler_naming_a_missing_accessor_is_an_error,
        a_value_outside_its_enumeration_is_an_error_not_a_panic,
        fuzz_regressions_are_refused_by_the_importer_not_by_a_reader_panic,
        only_the_first_buffer_of_a_glb_is_its_binary_chunk,
        files_of_another_gltf_version_are_refused_by_name,
        what_gltf_leaves_optional_may_be_absent,
        a_missing_required_field_is_named_with_its_path,
        a_skin_joint_list_repeated_200_times_is_refused_in_linear_time,
        invalid_skin_and_accessor_data_is_refused_by_every_command,
        bake_writes_a_keyed_node_given_by_a_matrix_as_translation_rotation_scale,
    ];
    for test in tests {
        test();
    }
    let dirs = KEPT.with(|k| k.borrow_mut().take()).unwrap();
    let mut inputs = Vec::new();
    for d in &dirs {
        gltf_files(d, &mut inputs);
    }
    let out = dir("valid");
    let mut written = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let input = input.to_str().unwrap();
        for (command, flag) in [("bake", "--out"), ("rig", "-o")] {
            let o = out.join(format!("{i}.{command}.glb"));
            let o = o.to_str().unwrap();
            let mut args = vec![command, input, flag, o];
            if command == "rig" {
                args.push("--write-unchanged");
            }
            let (code, _, err) = secmo(&args);
            assert!(code == 0 || code == 1, "{args:?}: exit {code}: {err}");
            if code == 0 {
                assert!(Path::new(o).is_file(), "{args:?}");
                written.push((format!("{command} {input}"), PathBuf::from(o)));
            }
        }
    }
    println!(
        "{} files generated, {} written by bake or rig:",
        inputs.len(),
        written.len()
    );
    for (what, _) in &written {
        println!("    {what}");
    }
    assert!(inputs.len() >= 70, "{}", inputs.len());
    assert!(written.len() >= 9, "{}", written.len());
    let files: Vec<&Path> = written.iter().map(|(_, o)| o.as_path()).collect();
    let reports = common::khronos_reports(&files);
    let invalid: Vec<String> = written
        .iter()
        .zip(&reports)
        .filter(|(_, r)| r["errors"] != 0)
        .map(|((what, _), r)| format!("{what}: {r}"))
        .collect();
    assert!(invalid.is_empty(), "{}", invalid.join("\n"));
    for d in dirs {
        std::fs::remove_dir_all(d).ok();
    }
    std::fs::remove_dir_all(out).ok();
}

/// An animation key time before the key it follows is refused by every
/// command that reads a clip, naming the sampler, the key and the accessor.
/// A repeated time (the validator's ACCESSOR_ANIMATION_INPUT_NON_INCREASING
/// too, but engines play it as a step, and exporters write it) is read,
/// with a note naming it: the clip holds the earlier key up to that time
/// and the later one from it on.
fn key_times_that_go_back_are_refused_by_name_and_repeated_ones_are_steps() {
    let out = std::env::temp_dir().join(format!("secmo-hostile-times-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let turned = glam::Quat::from_rotation_x(0.8).to_array();
    let file = |name: &str, times: &[f32]| {
        let mut glb = Glb::new(serde_json::json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"name": "root", "children": [1]}, {"name": "tail_1"}]
        }));
        let input = glb.push_floats(times, "SCALAR", true);
        let values: Vec<f32> = [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0], turned]
            .concat()
            .to_vec();
        let output = glb.push_floats(&values, "VEC4", false);
        glb.json["animations"] = serde_json::json!([{"name": "Wag",
            "samplers": [{"input": input, "output": output}],
            "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}]);
        let f = out.join(name);
        std::fs::write(&f, glb.to_bytes().unwrap()).unwrap();
        f
    };
    let back = file("time_back.glb", &[0.0, 0.5, 0.4]);
    let expected = "animations[0].samplers[0].input: key 2 at 0.4 s comes before key 1 at 0.5 s";
    for command in ["import", "bake", "report"] {
        let mut args = vec![command, back.to_str().unwrap()];
        if command != "import" {
            args.extend(["--units-per-meter", "1"]);
        }
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_secmo"))
            .args(&args)
            .current_dir(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{command}: {stderr}");
        assert!(stderr.contains(expected), "{command}: {stderr}");
    }
    // Repeated: read, with the note, and sampled as a step at 0.5 s.
    let repeated = file("time_repeated.glb", &[0.0, 0.5, 0.5]);
    let (code, stdout, err) = secmo(&["import", repeated.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("animations[0].samplers[0].input: key 2 repeats key 1's time, 0.5 s"),
        "{stdout}"
    );
    let imported = secmo_cli::import::import(&repeated).unwrap();
    let clip = &imported.clips[0];
    let tail = imported
        .skeleton
        .bones
        .iter()
        .position(|b| b.name == "tail_1")
        .unwrap();
    let mut pose: Vec<_> = imported
        .skeleton
        .bones
        .iter()
        .map(|b| b.reference)
        .collect();
    for (t, want) in [(0.49, [0.0, 0.0, 0.0, 1.0]), (0.5, turned), (0.7, turned)] {
        clip.sample(t, &mut pose);
        let got = glam::Quat::from_array(pose[tail].rotation);
        assert!(
            got.angle_between(glam::Quat::from_array(want)) < 1e-5,
            "at {t} s: {got:?}"
        );
    }
    std::fs::remove_dir_all(&out).ok();
}

/// Fox with data the Khronos validator finds errors in but engines read
/// (so the commands read it too): vertex 5 names one joint twice and a
/// joint with weight 0, vertex 6's weights sum to 1.1, vertex 7 has no
/// weight, POSITION's `min` and `max` and the first clip's last key time in
/// `max` are wrong, its key 2 repeats key 1's time, and a head rotation key
/// is 1.5 long.
fn fox_with_unconforming_data(d: &Path) -> PathBuf {
    let mut glb = fox();
    let (joints, weights) = (attribute(&glb, "JOINTS_0"), attribute(&glb, "WEIGHTS_0"));
    let position = attribute(&glb, "POSITION");
    assert_eq!(glb.json["accessors"][joints]["componentType"], 5123);
    let joint = |g: &Glb, c: usize| {
        let at = component_at(g, joints, 5, c, 2);
        u16::from_le_bytes([g.bin[at], g.bin[at + 1]])
    };
    let first = joint(&glb, 0);
    let others: Vec<u16> = (1..24).filter(|&j| j != first).take(2).collect();
    for (c, (j, w)) in [
        (first, 0.25),
        (first, 0.5),
        (others[0], 0.0),
        (others[1], 0.25),
    ]
    .into_iter()
    .enumerate()
    {
        let at = component_at(&glb, joints, 5, c, 2);
        glb.bin[at..at + 2].copy_from_slice(&j.to_le_bytes());
        set_f32(&mut glb, weights, 5, c, w);
    }
    for c in 0..4 {
        let at = component_at(&glb, weights, 6, c, 4);
        let w = f32::from_le_bytes(glb.bin[at..at + 4].try_into().unwrap());
        set_f32(&mut glb, weights, 6, c, w * 1.1);
    }
    glb.json["accessors"][position]["max"][0] = json!(20.0);
    glb.json["accessors"][position]["min"][1] = json!(-1.0);
    let sampler = glb.json["animations"][0]["samplers"][0].clone();
    let (input, output) = (
        sampler["input"].as_u64().unwrap() as usize,
        sampler["output"].as_u64().unwrap() as usize,
    );
    let last = glb.json["accessors"][input]["max"][0].as_f64().unwrap();
    glb.json["accessors"][input]["max"][0] = json!(last + 0.5);
    for c in 0..4 {
        let at = component_at(&glb, output, 0, c, 4);
        let x = f32::from_le_bytes(glb.bin[at..at + 4].try_into().unwrap());
        set_f32(&mut glb, output, 0, c, x * 1.5);
    }
    // The first sampler's key 2 at key 1's time (a step; its own copy of
    // the clip's times, so that the validator's report names the other
    // errors too), and vertex 7 without weight.
    let mut times: Vec<f32> = glb
        .elements(input)
        .unwrap()
        .iter()
        .map(|t| t[0] as f32)
        .collect();
    times[2] = times[1];
    let repeated = glb.push_floats(&times, "SCALAR", true);
    glb.json["animations"][0]["samplers"][0]["input"] = json!(repeated);
    for c in 0..4 {
        set_f32(&mut glb, weights, 7, c, 0.0);
    }
    let f = d.join("fox-unconforming.glb");
    glb.write(&f).unwrap();
    f
}

/// Fox with its weights as normalized bytes, interleaved with 4 bytes of
/// padding (byteStride 8), each rounded on its own so that many vertices'
/// bytes do not sum to 255.
fn fox_with_byte_weights(d: &Path) -> PathBuf {
    let mut glb = fox();
    let weights = attribute(&glb, "WEIGHTS_0");
    let mut data = Vec::new();
    let mut off = 0;
    for w in glb.elements(weights).unwrap() {
        let bytes: Vec<u8> = w.iter().map(|x| (x * 255.0).round() as u8).collect();
        off += usize::from(bytes.iter().map(|&b| u32::from(b)).sum::<u32>() != 255);
        data.extend(bytes);
        data.extend([0; 4]);
    }
    assert!(off > 10, "{off}");
    let view = glb.push_view(&data);
    glb.json["bufferViews"][view]["byteStride"] = json!(8);
    let count = glb.json["accessors"][weights]["count"].clone();
    glb.json["accessors"]
        .as_array_mut()
        .unwrap()
        .push(json!({"bufferView": view,
        "componentType": 5121, "normalized": true, "count": count, "type": "VEC4"}));
    let accessor = glb.json["accessors"].as_array().unwrap().len() - 1;
    glb.json["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(accessor);
    let f = d.join("fox-byte-weights.glb");
    glb.write(&f).unwrap();
    f
}

/// RobotExpressive (752 vertices whose weights do not sum to 1) with its
/// left middle finger renamed a tail, so that `bake` has a chain to bake.
fn robot_with_a_tail(d: &Path) -> PathBuf {
    let mut glb = Glb::read(Path::new(&common::asset("RobotExpressive.glb"))).unwrap();
    for node in glb.json["nodes"].as_array_mut().unwrap() {
        if let Some(name) = node["name"].as_str().filter(|n| n.starts_with("Middle")) {
            if name.ends_with(".L") || name.ends_with(".L_end") {
                node["name"] = json!(format!("Tail{name}"));
            }
        }
    }
    let f = d.join("robot-tail.glb");
    glb.write(&f).unwrap();
    f
}

/// `bake` and `rig` on files whose data the validator rejects but the
/// commands read: (what, input, output) of each copy written.
fn conformed_copies(d: &Path) -> Vec<(String, PathBuf, PathBuf)> {
    let robot = PathBuf::from(common::asset("RobotExpressive.glb"));
    let robot_tail = robot_with_a_tail(d);
    let fox = fox_with_unconforming_data(d);
    let fox_bytes = fox_with_byte_weights(d);
    let runs = [
        ("rig", &robot),
        ("bake", &robot_tail),
        ("rig", &robot_tail),
        ("bake", &fox),
        ("rig", &fox),
        ("bake", &fox_bytes),
        ("rig", &fox_bytes),
    ];
    let mut copies = Vec::new();
    for (i, (command, input)) in runs.into_iter().enumerate() {
        let out = d.join(format!("{i}.{command}.glb"));
        let mut args = vec![
            command,
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        if command == "rig" {
            args.push("--write-unchanged");
        }
        let (code, _, err) = secmo(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let what = format!("{command} {}", input.file_name().unwrap().to_string_lossy());
        copies.push((what, input.clone(), out));
    }
    copies
}

fn data_the_validator_rejects_but_engines_read_is_written_conforming() {
    // Weights that do not sum to 1 or are all 0, a joint named twice in a
    // vertex, a joint named with weight 0, wrong min/max, a rotation key
    // that is not unit length, a repeated key time: read (engines accept
    // them), and conformed in what `bake` and `rig` write.
    let d = dir("unconforming");
    let copies = conformed_copies(&d);
    let inputs: Vec<&Path> = copies.iter().map(|(_, i, _)| i.as_path()).collect();
    let outputs: Vec<&Path> = copies.iter().map(|(_, _, o)| o.as_path()).collect();
    let before = common::khronos_reports(&inputs);
    let after = common::khronos_reports(&outputs);
    let codes = |r: &Value| {
        r["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().split(' ').nth(1).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // RobotExpressive and the made-up fox have the errors to begin with.
    assert_eq!(before[0]["errors"], 752, "{}", before[0]);
    let fox = codes(&before[3]);
    for code in [
        "ACCESSOR_JOINTS_INDEX_DUPLICATE",
        "ACCESSOR_JOINTS_USED_ZERO_WEIGHT",
        "ACCESSOR_WEIGHTS_NON_NORMALIZED",
        "ACCESSOR_MIN_MISMATCH",
        "ACCESSOR_MAX_MISMATCH",
        "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
        "ACCESSOR_ANIMATION_INPUT_NON_INCREASING",
    ] {
        assert!(fox.iter().any(|c| c == code), "{code}: {}", before[3]);
    }
    assert!(
        codes(&before[5])
            .iter()
            .any(|c| c == "ACCESSOR_WEIGHTS_NON_NORMALIZED"),
        "{}",
        before[5]
    );
    for ((what, _, _), (b, r)) in copies.iter().zip(before.iter().zip(&after)) {
        println!("{what}: input: {b}\n    copy: {r}");
        assert_eq!(r["errors"], 0, "{what}: {r}");
        assert!(
            codes(r).iter().all(|c| !c.starts_with("ACCESSOR_")),
            "{what}: {r}"
        );
    }
    done(d);
}

fn conformed_copies_skin_as_their_input() {
    // What the conform pass rewrites (weights, repeated joints) changes no
    // skinned position: each vertex lands where it did, in a pose moving
    // every joint.
    let d = dir("conformed-skin");
    for (what, input, output) in conformed_copies(&d) {
        let before = common::skinned_positions(&Glb::read(&input).unwrap());
        let after = common::skinned_positions(&Glb::read(&output).unwrap());
        assert_eq!(before.len(), after.len(), "{what}");
        assert!(!before.is_empty(), "{what}");
        // And the copy's influences are what the validator asks for.
        let glb = Glb::read(&output).unwrap();
        let influences = common::influences(&glb);
        assert_eq!(influences.len(), after.len(), "{what}");
        for (v, slots) in influences.iter().enumerate() {
            let mut named = Vec::new();
            let (mut sum, mut tolerance) = (0f32, 0f64);
            for &(j, w) in slots {
                if w == 0.0 {
                    assert_eq!(j, 0, "{what}: vertex {v} names joint {j} with weight 0");
                    continue;
                }
                assert!(
                    !named.contains(&j),
                    "{what}: vertex {v} names joint {j} twice"
                );
                named.push(j);
                sum = (f64::from(sum) + w) as f32;
                tolerance += 2e-7;
            }
            assert!(
                (f64::from(sum) - 1.0).abs() <= tolerance,
                "{what}: vertex {v}'s weights sum to {sum}"
            );
        }
        // Float weights keep each joint's share to float precision; bytes
        // that did not sum to 255 move shares by up to half a step.
        let step = if what.contains("byte") {
            1.0 / 255.0
        } else {
            1e-5
        };
        for (v, (a, b)) in before.iter().zip(&after).enumerate() {
            let tolerance = step * (1.0 + a.length());
            assert!(
                a.distance(*b) <= tolerance,
                "{what}: vertex {v} moved from {a} to {b}"
            );
        }
    }
    done(d);
}

fn main() {
    tools::run(cases![
        a_channel_targeting_a_missing_node_is_an_error,
        broken_keys_are_refused_by_name,
        absurd_node_transforms_are_refused_by_name,
        buffer_uris_stay_beside_the_file,
        a_buffer_longer_than_the_limit_is_refused_before_it_is_read,
        random_mutations_of_real_files_never_panic,
        accessors_that_do_not_fit_their_use_are_refused,
        accessors_without_a_buffer_view_read_as_nothing_not_as_data,
        a_sampler_naming_a_missing_accessor_is_an_error,
        a_value_outside_its_enumeration_is_an_error_not_a_panic,
        fuzz_regressions_are_refused_by_the_importer_not_by_a_reader_panic,
        only_the_first_buffer_of_a_glb_is_its_binary_chunk,
        files_of_another_gltf_version_are_refused_by_name,
        what_gltf_leaves_optional_may_be_absent,
        a_missing_required_field_is_named_with_its_path,
        a_skin_joint_list_repeated_200_times_is_refused_in_linear_time,
        invalid_skin_and_accessor_data_is_refused_by_every_command,
        bake_writes_a_keyed_node_given_by_a_matrix_as_translation_rotation_scale,
        every_file_a_command_accepts_is_written_valid[tools::gltf_validator],
        key_times_that_go_back_are_refused_by_name_and_repeated_ones_are_steps,
        data_the_validator_rejects_but_engines_read_is_written_conforming[tools::gltf_validator],
        conformed_copies_skin_as_their_input,
    ]);
}
