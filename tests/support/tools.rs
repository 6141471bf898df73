//! The test runner of the integration tests that drive external tools
//! (Mono, valgrind, clang++, node with the pinned reference packages, the
//! aarch64 cross kit), and the run-time probes for those tools.
//!
//! Such a test target sets `harness = false` and lists its tests with
//! [`cases!`]; a test whose tool is absent is reported by the runner as
//! `ignored`, with the reason, never as passed. The probe runs when the test
//! does, so installing a tool needs no rebuild, and the library's build never
//! runs these tools. `.ci/run` installs every tool and fails if a test was
//! left ignored.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Whether a tool a test needs is here: `Err` holds the reason given with
/// `ignored`.
pub type Probe = fn() -> Result<(), String>;

/// One test: its name, its body (which panics on failure) and what it needs.
pub struct Case {
    pub name: &'static str,
    pub run: fn(),
    pub needs: Option<Probe>,
}

/// `cases![a, b [probe], c]`: the tests of a target, each with the probe of
/// the tool it needs, if any.
macro_rules! cases {
    ($($name:path $([$probe:path])?),* $(,)?) => {
        vec![$($crate::tools::Case {
            name: stringify!($name),
            run: $name,
            needs: {
                let probes: &[$crate::tools::Probe] = &[$($probe)?];
                probes.first().copied()
            },
        }),*]
    };
}

/// Runs `cases` as libtest does (filters, `--ignored`, threads, the same
/// output), a missing tool giving `ignored` with its reason.
pub fn run(cases: Vec<Case>) -> ! {
    let args = libtest_mimic::Arguments::from_args();
    let trials = cases
        .into_iter()
        .map(|Case { name, run, needs }| {
            libtest_mimic::Trial::ignorable_test(name, move || {
                if let Some(Err(reason)) = needs.map(|probe| probe()) {
                    return Ok(libtest_mimic::Completion::ignored_with(reason));
                }
                run();
                Ok(libtest_mimic::Completion::Completed)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit()
}

/// The repository's root (the cli's tests live one folder down).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    if manifest.join("tools").is_dir() {
        manifest.to_path_buf()
    } else {
        manifest.parent().unwrap().to_path_buf()
    }
}

fn runs(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn cached(
    cell: &'static OnceLock<Result<(), String>>,
    probe: impl FnOnce() -> Result<(), String>,
) -> Result<(), String> {
    cell.get_or_init(probe).clone()
}

fn node_package(folder: &str, packages: &[&str], install: &str) -> Result<(), String> {
    if !runs("node") {
        return Err(format!("needs node and `{install}`; .ci/run installs them"));
    }
    let modules = repo_root().join(folder).join("node_modules");
    match packages
        .iter()
        .find(|p| !modules.join(p).join("package.json").is_file())
    {
        Some(p) => Err(format!(
            "needs {p} in {folder}/node_modules (`{install}`; .ci/run does it)"
        )),
        None => Ok(()),
    }
}

/// The environment variable that runs the long tests: the sweeps over
/// many random scenes or fixtures and the aarch64 suite, minutes each on two
/// cores. A plain `cargo test` reports them ignored; CI runs them.
pub const LONG: &str = "SECMO_LONG_TESTS";

/// Whether the long tests run (`SECMO_LONG_TESTS=1`).
pub fn long() -> Result<(), String> {
    match std::env::var(LONG) {
        Ok(v) if v == "1" => Ok(()),
        _ => Err(format!(
            "a long sweep: `{LONG}=1 cargo test` runs it (CI does)"
        )),
    }
}

/// [`three_vrm`] and [`long`].
pub fn three_vrm_long() -> Result<(), String> {
    three_vrm().and_then(|()| long())
}

/// [`aarch64`] and [`long`].
pub fn aarch64_long() -> Result<(), String> {
    aarch64().and_then(|()| long())
}

/// Mono's compiler and runtime (`mcs`, `mono`): the Unity package's C# layer.
pub fn mono() -> Result<(), String> {
    static CELL: OnceLock<Result<(), String>> = OnceLock::new();
    cached(&CELL, || {
        if runs("mcs") && runs("mono") {
            Ok(())
        } else {
            Err("needs Mono (mcs, mono); .ci/run installs it".into())
        }
    })
}

/// valgrind (memcheck, helgrind).
pub fn valgrind() -> Result<(), String> {
    static CELL: OnceLock<Result<(), String>> = OnceLock::new();
    cached(&CELL, || {
        if runs("valgrind") {
            Ok(())
        } else {
            Err("needs valgrind; .ci/run installs it".into())
        }
    })
}

/// clang++: the Unreal plugin's syntax check with a second compiler.
pub fn clang() -> Result<(), String> {
    static CELL: OnceLock<Result<(), String>> = OnceLock::new();
    cached(&CELL, || {
        if runs("clang++") {
            Ok(())
        } else {
            Err("needs clang++; .ci/run installs it".into())
        }
    })
}

/// node and the pinned three-vrm packages (tools/three-vrm), the reference
/// of the VRM parity tests.
pub fn three_vrm() -> Result<(), String> {
    static CELL: OnceLock<Result<(), String>> = OnceLock::new();
    cached(&CELL, || {
        node_package(
            "tools/three-vrm",
            &[
                "@pixiv/three-vrm-springbone",
                "@pixiv/three-vrm-node-constraint",
            ],
            "npm ci --prefix tools/three-vrm",
        )
    })
}

/// node and the pinned Khronos glTF validator (tools/gltf-validator).
pub fn gltf_validator() -> Result<(), String> {
    static CELL: OnceLock<Result<(), String>> = OnceLock::new();
    cached(&CELL, || {
        node_package(
            "tools/gltf-validator",
            &["gltf-validator"],
            "npm ci --prefix tools/gltf-validator",
        )
    })
}

/// node and meshoptimizer's own decoder (tools/meshopt).
pub fn meshoptimizer() -> Result<(), String> {
    static CELL: OnceLock<Result<(), String>> = OnceLock::new();
    cached(&CELL, || {
        node_package(
            "tools/meshopt",
            &["meshoptimizer"],
            "npm ci --prefix tools/meshopt",
        )
    })
}

/// The rustc that has the aarch64 Linux standard library, if the cross kit
/// (that rustc, `aarch64-linux-gnu-gcc`, `qemu-aarch64`) is here.
pub fn aarch64_rustc() -> Option<&'static str> {
    static CELL: OnceLock<Option<&'static str>> = OnceLock::new();
    *CELL.get_or_init(|| {
        if !(runs("aarch64-linux-gnu-gcc") && runs("qemu-aarch64")) {
            return None;
        }
        ["rustc", "/usr/bin/rustc"]
            .into_iter()
            .find(|rustc| has_aarch64_std(rustc))
    })
}

/// The aarch64 cross kit (tests/aarch64.rs).
pub fn aarch64() -> Result<(), String> {
    match aarch64_rustc() {
        Some(_) => Ok(()),
        None => Err(
            "needs an aarch64 cross kit (a rustc with the aarch64-unknown-linux-gnu \
                     standard library, aarch64-linux-gnu-gcc, qemu-aarch64); .ci/run installs it"
                .into(),
        ),
    }
}

/// Whether `rustc` has the aarch64 Linux standard library.
fn has_aarch64_std(rustc: &str) -> bool {
    let Ok(out) = Command::new(rustc)
        .args([
            "--print",
            "target-libdir",
            "--target",
            "aarch64-unknown-linux-gnu",
        ])
        .output()
    else {
        return false;
    };
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    out.status.success()
        && std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("libstd-") && name.ends_with(".rlib")
            })
        })
}
