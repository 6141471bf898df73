//! The tool against files from the internet (issue #18): no panic on any
//! input, buffer URIs kept beside the file, limits on decoded bytes, keys and
//! clip length, each error naming the file and the part.

mod common;
use common::secmo;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{json, Value};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("secmo-hostile-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
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

const Q: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

#[test]
fn a_channel_targeting_a_missing_node_is_an_error() {
    let d = dir("missing-node");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["animations"][0]["channels"][0]["target"]["node"] = json!(7);
    let f = write(&d, "a.gltf", &v);
    refused_everywhere(&f, "node");
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
fn a_buffer_longer_than_the_limit_is_refused_before_it_is_read() {
    let d = dir("big");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["buffers"][0]["byteLength"] = json!(8u64 << 30);
    let f = write(&d, "big.gltf", &v);
    let (code, _, err) = secmo(&["import", &f]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("buffers[0]") && err.contains("limit"), "{err}");
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    // A skin whose inverse binds are all zeros: its meshes are skipped,
    // named, and the rest opens.
    let fox = common::asset("Fox.glb");
    let mut glb = secmo_cli::glb::Glb::read(Path::new(&fox)).unwrap();
    let ibm = glb.json["skins"][0]["inverseBindMatrices"]
        .as_u64()
        .unwrap() as usize;
    glb.json["accessors"][ibm]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let f = d.join("zero-binds.glb");
    glb.write(&f).unwrap();
    let f = f.to_str().unwrap();
    let (code, out, err) = secmo(&["import", f]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "skins[0].inverseBindMatrices: accessors[{ibm}] has no buffer view (all zeros); \
             the meshes it skins are skipped"
        )),
        "{out}"
    );
    let (code, _, err) = secmo(&["rig", f, "-o", d.join("rig.glb").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("inverseBindMatrices"), "{err}");
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
        std::fs::remove_dir_all(d).ok();
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

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
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
    std::fs::remove_dir_all(d).ok();
}

#[test]
fn a_missing_required_field_is_named_with_its_path() {
    let d = dir("required");
    let mut v = gltf(&[0.0, 1.0], &[Q, Q]);
    v["animations"][0]["samplers"][0]
        .as_object_mut()
        .unwrap()
        .remove("input");
    let f = write(&d, "no-input.gltf", &v);
    refused_everywhere(&f, "animations[0].samplers[0]: missing field `input`");
    std::fs::remove_dir_all(d).ok();
}
