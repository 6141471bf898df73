//! `secmo vrm-settings`: a VRM's spring bones as a rig-settings file (the
//! VRM preset) and a note for every field it does not apply
//! (src/vrm.rs, docs/vrm-mapping.md).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the command did, for the terminal.
pub struct Report {
    pub summary: String,
    pub written: PathBuf,
}

/// The default output: `<stem>.secmo-settings.json` next to the input.
pub fn default_output(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map_or_else(|| "vrm".into(), |s| s.to_string_lossy().into_owned());
    input.with_file_name(format!("{stem}.secmo-settings.json"))
}

/// Reads `input`, writes the settings to `out`. Errors name the file and,
/// for a broken VRM, the JSON field.
pub fn run(input: &Path, out: &Path) -> anyhow::Result<Report> {
    crate::output::Output {
        path: out,
        flag: "--out",
        command: "vrm-settings",
        inputs: &[input],
        force: None,
    }
    .check()?;
    let bytes = std::fs::read(input).map_err(|e| anyhow::anyhow!("{}: {e}", input.display()))?;
    crate::import::check_format(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", input.display()))?;
    let import =
        secmo::vrm::import(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", input.display()))?;
    std::fs::write(out, import.settings.to_json())
        .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    let mut summary = String::new();
    let spheres = |shape: &str| {
        import
            .collider_shapes
            .iter()
            .filter(|s| *s == shape)
            .count()
    };
    let _ = writeln!(
        summary,
        "{}: VRM {}, {} {}, {} roots → {} chains, {} joints",
        input.display(),
        if import.version == 0 { "0.x" } else { "1.0" },
        import.groups,
        if import.version == 0 {
            "bone groups"
        } else {
            "springs"
        },
        import.roots,
        import.settings.chains.len(),
        import.joints,
    );
    let _ = writeln!(
        summary,
        "colliders: {} ({} sphere, {} capsule, {} plane, {} inside)",
        import.collider_shapes.len(),
        spheres("sphere"),
        spheres("capsule"),
        spheres("plane"),
        spheres("inside_sphere") + spheres("inside_capsule"),
    );
    if import
        .skeleton
        .bones
        .first()
        .is_some_and(|b| b.name == secmo::vrm::SCENE_ROOT)
    {
        let _ = writeln!(
            summary,
            "a spring starts at a scene root: chains anchor to the added bone `{}`",
            secmo::vrm::SCENE_ROOT
        );
    }
    if !import.settings.node_constraints.is_empty() {
        let count = |kind: &str| {
            import
                .settings
                .node_constraints
                .iter()
                .filter(|c| c.kind == kind)
                .count()
        };
        let _ = writeln!(
            summary,
            "node constraints: {} ({} roll, {} aim, {} rotation)",
            import.settings.node_constraints.len(),
            count("roll"),
            count("aim"),
            count("rotation"),
        );
    }
    // The settings on the file's own nodes: what an engine whose bones
    // rest as the file's do gets (a zero scale above a spring, say).
    match import
        .settings
        .to_rig_desc(import.skeleton.bones.clone(), 1.0, secmo::UpAxis::Y)
    {
        Ok(desc) => {
            if let Err(e) = secmo::Rig::new(desc.clone()) {
                let _ = writeln!(
                    summary,
                    "warning: a rig of these settings on the file's own nodes is refused: {}",
                    crate::bake::rig_error(&desc, &e)
                );
            }
        }
        Err(e) => {
            let _ = writeln!(
                summary,
                "warning: these settings do not fit the file's own nodes: {e}"
            );
        }
    }
    // Every field the import read but does not apply, by name.
    for note in &import.notes {
        let _ = writeln!(summary, "note: {note}");
    }
    if let Ok(json) = secmo::vrm::gltf_json(&bytes) {
        for note in crate::import::required_extensions(&json) {
            let _ = writeln!(summary, "{note}");
        }
    }
    Ok(Report {
        summary,
        written: out.to_path_buf(),
    })
}
