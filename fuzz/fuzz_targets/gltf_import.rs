//! The tool's glTF/GLB/VRM import on any bytes (written to a file, as the
//! tool reads them). No panic escapes `import` (the importer catches the
//! glTF reader's own, but libFuzzer reports any panic, so a dangling index
//! the importer's checks miss is still a finding).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static DIR: std::path::PathBuf = {
            let d = std::env::temp_dir().join(format!("secmo-fuzz-gltf-{}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            d
        };
    }
    let path = DIR.with(|d| {
        d.join(if data.starts_with(b"glTF") {
            "in.glb"
        } else {
            "in.gltf"
        })
    });
    std::fs::write(&path, data).unwrap();
    if let Ok(imported) = secmo_cli::import::import(&path) {
        let _ = imported.summary();
        let _ = imported.infer_units();
        for clip in &imported.clips {
            let mut pose: Vec<secmo::Transform> = imported
                .skeleton
                .bones
                .iter()
                .map(|b| b.reference)
                .collect();
            clip.sample(clip.duration * 0.5, &mut pose);
        }
    }
});
