//! Import → bake → the written bytes → import again, on any bytes (written
//! to a file, as the tool reads them). A file the importer accepts is
//! either refused by `bake` with a message or baked into a GLB that the
//! importer reads back with the same bones and clips: what the tool writes
//! is never something it would refuse.

#![no_main]

use libfuzzer_sys::fuzz_target;
use secmo_cli::bake::BakeOptions;
use secmo_cli::commands::{bake, BakeArgs};

/// Clips longer than this are skipped, so that one input takes
/// milliseconds (the importer's own limit, 3600 s, is for real files).
const MAX_SECONDS: f32 = 4.0;

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static DIR: std::path::PathBuf = {
            let d = std::env::temp_dir().join(format!("secmo-fuzz-bake-{}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            d
        };
    }
    let (input, out) = DIR.with(|d| (d.join("in.glb"), d.join("out.glb")));
    if !data.starts_with(b"glTF") {
        return; // bake writes a copy of a GLB
    }
    std::fs::write(&input, data).unwrap();
    let Ok(imported) = secmo_cli::import::import(&input) else {
        return;
    };
    if imported.clips.iter().any(|c| c.duration > MAX_SECONDS) {
        return;
    }
    let _ = std::fs::remove_file(&out);
    let args = BakeArgs {
        input: input.clone(),
        out: out.clone(),
        out_dir: None,
        clips: Vec::new(),
        units_per_meter: None,
        options: BakeOptions {
            rate: 15.0,
            max_passes: 2,
            ..BakeOptions::default()
        },
        cold: false,
        force: false,
        loop_clips: Vec::new(),
        once_clips: Vec::new(),
        tail: None,
    };
    if bake(&args).is_err() {
        assert!(!out.exists(), "a refused bake wrote {}", out.display());
        return;
    }
    let again = secmo_cli::import::import(&out)
        .unwrap_or_else(|e| panic!("bake wrote a file the importer refuses: {e:#}"));
    assert_eq!(again.skeleton.bones.len(), imported.skeleton.bones.len());
    assert_eq!(again.clips.len(), imported.clips.len());
    for (a, b) in again.clips.iter().zip(&imported.clips) {
        assert_eq!(a.name, b.name);
    }
});
