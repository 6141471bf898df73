//! Files compressed with meshopt (`EXT_meshopt_compression`, and
//! `KHR_meshopt_compression` with its version 1 attribute codec) open:
//! gltfpack 1.3 wrote tests/assets/meshopt from the Fox and RiggedFigure
//! (tests/assets/README.md), compressing every buffer view — vertices,
//! indices, inverse binds and clips, with the quaternion and exponential
//! filters. secmo's decoder (cli/src/meshopt.rs) is checked view by view
//! against meshoptimizer's own (tools/meshopt, under node).

#[path = "../../tests/support/tools.rs"]
#[macro_use]
mod tools;

mod common;

use std::path::Path;

use base64::Engine as _;
use common::{asset, secmo};
use secmo_cli::glb::Glb;

const FILES: [&str; 4] = [
    "meshopt/Fox.ext.glb",
    "meshopt/Fox.khr.glb",
    "meshopt/RiggedFigure.ext.glb",
    "meshopt/RiggedFigure.khr.glb",
];

/// `secmo import`'s summary without its first line's file name.
fn summary(file: &str) -> String {
    let (code, out, err) = secmo(&["import", file]);
    assert_eq!(code, 0, "import {file}: {err}");
    out.split_once(": ")
        .map_or(out.clone(), |(_, rest)| rest.to_owned())
}

fn meshopt_compressed_files_open_and_measure_as_their_sources() {
    for model in ["Fox", "RiggedFigure"] {
        let ext = asset(&format!("meshopt/{model}.ext.glb"));
        let khr = asset(&format!("meshopt/{model}.khr.glb"));
        let glb = Glb::read(Path::new(&ext)).unwrap();
        assert_eq!(
            glb.json["extensionsRequired"],
            serde_json::json!(["KHR_mesh_quantization", "EXT_meshopt_compression"])
        );
        // The two codecs carry the same data.
        assert_eq!(summary(&ext), summary(&khr), "{model}");
        // The source's clips, by name (gltfpack resamples them at 30 Hz and
        // drops constant tracks, so durations and channels may differ).
        let plain = summary(&asset(&format!("{model}.glb")));
        let compressed = summary(&ext);
        let clips = |s: &str| -> Vec<String> {
            s.lines()
                .filter(|l| l.starts_with("clip "))
                .map(|l| l.split(':').next().unwrap().to_owned())
                .collect()
        };
        assert!(!clips(&plain).is_empty(), "{plain}");
        assert_eq!(clips(&compressed), clips(&plain), "{model}");
    }
    // The Fox as the report measures it: units from its (decoded,
    // dequantized) skin, the tail's and the body's stretch as in the
    // uncompressed Fox to within what 14-bit positions and 30 Hz keys
    // change, and no capsule around the tail's root (the body colliders are
    // placed in the rest pose, not in the quantized grid that gltfpack's
    // inverse binds map to: 2.9 cm deep before).
    let report = |file: &str| {
        let dir = std::env::temp_dir().join(format!("secmo-meshopt-{}", std::process::id()));
        let (code, out, err) = secmo(&["report", file, "--out", dir.to_str().unwrap()]);
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(code, 0, "report {file}: {err}");
        out
    };
    let plain = report(&asset("Fox.glb"));
    for file in ["meshopt/Fox.ext.glb", "meshopt/Fox.khr.glb"] {
        let out = report(&asset(file));
        let units = |s: &str| s.lines().next().unwrap().to_owned();
        assert_eq!(units(&out), units(&plain), "{file}");
        // chain p99, chain max, body p99, body max.
        let figures = |s: &str, clip: &str| -> Vec<f32> {
            let line = s
                .lines()
                .find(|l| l.starts_with(&format!("\"{clip}\"")))
                .unwrap_or_else(|| panic!("no {clip} line in {s}"));
            let words: Vec<&str> = line.split([' ', ';']).collect();
            words
                .windows(2)
                .filter(|w| w[0] == "p99" || w[0] == "max")
                .map(|w| w[1].parse().unwrap())
                .collect()
        };
        for clip in ["Survey", "Walk", "Run"] {
            let (a, b) = (figures(&out, clip), figures(&plain, clip));
            println!("{file} {clip}: {a:?} (uncompressed {b:?})");
            assert_eq!(a.len(), 4, "{out}");
            // Within 1 % of the stretch (ρ − 1) and 0.01.
            for k in 0..4 {
                let (a, b) = (a[k], b[k]);
                assert!(
                    (a - b).abs() <= 0.01 * (b - 1.0).abs().max(0.1) + 0.01,
                    "{file} {clip}: figure {k} {a} against {b}"
                );
            }
            assert!(
                out.contains("deepest tail vertex into a body capsule 0.00 cm"),
                "{out}"
            );
        }
    }
}

fn broken_meshopt_views_are_errors_naming_the_view() {
    let out = std::env::temp_dir().join(format!("secmo-meshopt-broken-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let mut glb = Glb::read(Path::new(&asset("meshopt/Fox.ext.glb"))).unwrap();
    let ext = &mut glb.json["bufferViews"][1]["extensions"]["EXT_meshopt_compression"];
    let length = ext["byteLength"].as_u64().unwrap();
    ext["byteLength"] = serde_json::json!(length - 7);
    let file = out.join("short.glb");
    glb.write(&file).unwrap();
    let (code, _, err) = secmo(&["import", file.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("bufferViews[1].extensions.EXT_meshopt_compression"),
        "{err}"
    );
    std::fs::remove_dir_all(&out).ok();
}

/// Runs tools/meshopt/`script` under node with `args`: its JSON lines.
fn node_lines(script: &str, args: &[String]) -> Vec<serde_json::Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tools/meshopt")
        .join(script);
    let out = std::process::Command::new("node")
        .arg(script)
        .args(args)
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Component `i`'s integer in a filter's output (`size` bytes each).
fn component(bytes: &[u8], size: usize, i: usize, signed: bool) -> i64 {
    match (size, signed) {
        (1, true) => i64::from(bytes[i] as i8),
        (1, false) => i64::from(bytes[i]),
        (_, true) => i64::from(i16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]])),
        (_, false) => i64::from(u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]])),
    }
}

/// Holds secmo's decoding of a view to meshoptimizer's: the same bytes, or
/// for a filter's integers (Appendix B specifies them to one unit in the
/// last place; meshoptimizer computes the quaternion in another order than
/// the specification) within one. Returns how many integers differ by one.
fn assert_decodes_alike(
    what: &str,
    ours: &[u8],
    reference: &[u8],
    stride: usize,
    filter: &str,
) -> usize {
    assert_eq!(ours.len(), reference.len(), "{what}");
    if !matches!(filter, "OCTAHEDRAL" | "QUATERNION" | "COLOR") {
        assert!(ours == reference, "{what} ({filter})");
        return 0;
    }
    let (size, signed) = (stride / 4, filter != "COLOR");
    let mut off = 0;
    for (e, (a, b)) in ours
        .chunks(stride)
        .zip(reference.chunks(stride))
        .enumerate()
    {
        for i in 0..4 {
            let (x, y) = (component(a, size, i, signed), component(b, size, i, signed));
            assert!(
                (x - y).abs() <= 1,
                "{what}: element {e} component {i}: {x} against {y}"
            );
            off += usize::from(x != y);
        }
    }
    off
}

fn every_view_decodes_as_meshoptimizer_decodes_it() {
    let files: Vec<String> = FILES.iter().map(|f| asset(f)).collect();
    let mut views = 0;
    let mut modes = std::collections::BTreeSet::new();
    for r in node_lines("decode.mjs", &files) {
        let (file, view) = (r["file"].as_str().unwrap(), r["view"].as_u64().unwrap());
        let reference = base64::engine::general_purpose::STANDARD
            .decode(r["bytes"].as_str().unwrap())
            .unwrap();
        let glb = Glb::read(Path::new(file)).unwrap();
        let v = &glb.json["bufferViews"][view as usize]["extensions"];
        let e = v
            .get("EXT_meshopt_compression")
            .or_else(|| v.get("KHR_meshopt_compression"))
            .unwrap();
        let n = |f: &str| e[f].as_u64().unwrap_or(0) as usize;
        let compressed = &glb.bin[n("byteOffset")..n("byteOffset") + n("byteLength")];
        let (mode, filter) = (r["mode"].as_str().unwrap(), r["filter"].as_str().unwrap());
        let ours =
            secmo_cli::meshopt::decode_view(compressed, n("count"), n("byteStride"), mode, filter)
                .unwrap_or_else(|e| panic!("{file} view {view}: {e}"));
        assert_decodes_alike(
            &format!("{file} view {view}"),
            &ours,
            &reference,
            n("byteStride"),
            filter,
        );
        views += 1;
        modes.insert(format!(
            "{}{mode}/{filter}",
            if v.get("KHR_meshopt_compression").is_some() {
                "KHR "
            } else {
                "EXT "
            }
        ));
    }
    println!("{views} views: {modes:?}");
    // Both codecs, both index modes gltfpack uses, and the filters.
    for m in [
        "EXT ATTRIBUTES/NONE",
        "KHR ATTRIBUTES/NONE",
        "EXT TRIANGLES/NONE",
        "KHR TRIANGLES/NONE",
        "EXT ATTRIBUTES/QUATERNION",
        "KHR ATTRIBUTES/QUATERNION",
        "EXT ATTRIBUTES/EXPONENTIAL",
    ] {
        assert!(modes.contains(m), "no {m} view among {modes:?}");
    }
}

fn what_meshoptimizer_encodes_decodes_to_its_own_decoding() {
    // Pseudo-random data through meshoptimizer's encoder, every mode, both
    // attribute codec versions, every filter (colour included), 1 to 3,000
    // elements (tools/meshopt/synthetic.mjs): secmo decodes each stream to
    // meshoptimizer's decoded bytes (filters: to the one unit Appendix B
    // allows).
    let b64 = |v: &serde_json::Value| {
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap())
            .unwrap()
    };
    let mut cases = 0;
    let mut off_by_one = 0;
    for r in node_lines("synthetic.mjs", &[]) {
        let name = r["name"].as_str().unwrap();
        let (mode, filter) = (r["mode"].as_str().unwrap(), r["filter"].as_str().unwrap());
        let (count, stride) = (
            r["count"].as_u64().unwrap() as usize,
            r["stride"].as_u64().unwrap() as usize,
        );
        let ours =
            secmo_cli::meshopt::decode_view(&b64(&r["encoded"]), count, stride, mode, filter)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        off_by_one += assert_decodes_alike(name, &ours, &b64(&r["decoded"]), stride, filter);
        cases += 1;
    }
    println!("{cases} streams, {off_by_one} filtered components one unit off");
    assert!(cases >= 200, "{cases} streams");
}

fn main() {
    tools::run(cases![
        meshopt_compressed_files_open_and_measure_as_their_sources,
        broken_meshopt_views_are_errors_naming_the_view,
        every_view_decodes_as_meshoptimizer_decodes_it[tools::meshoptimizer],
        what_meshoptimizer_encodes_decodes_to_its_own_decoding[tools::meshoptimizer],
    ]);
}
