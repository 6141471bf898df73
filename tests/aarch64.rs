//! secmo on aarch64 (issue #14: "aarch64 gets NEON or a portable path").
//!
//! The library and its Rust tests are cross-built for
//! `aarch64-unknown-linux-gnu` and run under `qemu-aarch64`. There the chain
//! stage detects the portable lane kernel (`ChainKernel::Lanes`: 8-wide
//! arrays that LLVM compiles to NEON), and tests/sweeps.rs holds it within
//! 1e-5 of chain length of the scalar kernel. The binaries are linked
//! statically (`+crt-static`): dynamically linked ones hang in their first
//! `thread::spawn` under qemu-user here (7.2 and 10.0).
//!
//! The same hair crowd (100 characters × 12 strands × 6 joints, no
//! colliders) run on aarch64 and on this machine gives the same output
//! poses to float noise: glam's SIMD paths and libm (sin, exp) differ
//! between the targets in the last bits, so the results are not bitwise
//! equal. With colliders the crowd is not compared: there a 1e-6 s shift
//! of the input time, on one machine, already moves quaternion components
//! by up to 0.1 after 60 frames (contacts start and end at other
//! substeps), and the two targets' rounding does the same.
//!
//! Needs the cross kit (probed when the test runs, tests/support/tools.rs); .ci/run
//! installs it (Debian: rustc-web, libstd-rust-web-dev:arm64,
//! gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user). Without it the
//! test is reported as ignored.

#[path = "support/tools.rs"]
#[macro_use]
mod tools;

#[path = "../benches/crowd_workload.rs"]
mod workload;

use std::process::Command;

/// The integration tests that need nothing but Rust (the others drive C,
/// C++, C#, node or clang programs built for the host).
const TESTS: &[&str] = &[
    "alloc",
    "batch",
    "chains",
    "character",
    "contact",
    "display_rate",
    "features",
    "hair_and_time",
    "hardening",
    "lanes",
    "node_constraints",
    "pipeline",
    "settling",
    "sweeps",
    "vrm",
];

/// The library's unit test that takes minutes unoptimised under qemu: the
/// lane kernel stepped 1, 4, 8 and 16 wide over 48 chains. Every width is
/// one generic source, so its bits agree by construction (docs/chains.md);
/// here tests/lanes.rs and tests/sweeps.rs check the kernel the stage
/// detects on aarch64 against the scalar one.
const SLOW_UNIT_TEST: &str =
    "solvers::lanes::tests::a_chain_gives_the_same_bits_at_every_width_and_in_every_lane_position";

fn the_library_and_its_rust_tests_pass_on_aarch64() {
    // The integration tests optimised, as an engine ships the library.
    let out = cross_cargo("test", Profile::Release)
        .args(TESTS.iter().flat_map(|t| ["--test", t]))
        .output()
        .expect("cargo runs");
    let (mut results, stdout) = results_of("integration tests", &out);
    assert_eq!(results.len(), TESTS.len(), "{stdout}");
    // The library's unit tests unoptimised: optimised, that one test
    // binary took four of the cross build's seven minutes (LLVM on the
    // lane kernel instantiated at four widths), CI's budget; unoptimised
    // it builds in 20 s and runs in seconds but for SLOW_UNIT_TEST.
    let unit = cross_cargo("test", Profile::Unoptimised)
        .arg("--lib")
        .args(["--", "--skip", SLOW_UNIT_TEST, "--exact"])
        .output()
        .expect("cargo runs");
    let (unit_results, unit_stdout) = results_of("unit tests", &unit);
    results.extend(unit_results);
    assert_eq!(results.len(), TESTS.len() + 1);
    let passed: u32 = results.iter().map(|r| r.0).sum();
    assert!(
        passed >= 230,
        "only {passed} tests ran on aarch64:\n{stdout}\n{unit_stdout}"
    );
    // The skipped test is the only one filtered out.
    assert!(unit_stdout.contains("; 1 filtered out"), "{unit_stdout}");
    println!(
        "aarch64 (qemu): {passed} tests passed in {} binaries",
        results.len()
    );
    // tests/lanes.rs and tests/sweeps.rs ran there: the portable lane kernel is the one the
    // stage detects off x86-64, and it agrees with the scalar kernel.
    for test in [
        "a_kernel_the_cpu_lacks_is_refused",
        "every_kernel_stays_within_1e_5_of_chain_length_of_the_scalar_kernel",
    ] {
        // The runner pads a name to its target's longest before "... ok".
        let passed = stdout.lines().any(|l| {
            l.strip_prefix("test ")
                .and_then(|l| l.strip_prefix(test))
                .is_some_and(|rest| rest.trim_start() == "... ok")
        });
        assert!(passed, "{test} did not pass on aarch64:\n{stdout}");
    }
}

/// (passed, failed, ignored) of each test binary a cross `cargo test` ran,
/// and its output; panics with the build's output when it failed or a test
/// failed or was ignored.
fn results_of(what: &str, out: &std::process::Output) -> (Vec<(u32, u32, u32)>, String) {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "aarch64 {what} failed ({}):\n{stdout}\n{}",
        out.status,
        tail(&String::from_utf8_lossy(&out.stderr))
    );
    let results: Vec<(u32, u32, u32)> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .map(|l| {
            let n = |word: &str| -> u32 {
                l.split("; ")
                    .find_map(|part| part.strip_suffix(word))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or_else(|| panic!("no `{word}` in {l}"))
            };
            (n(" passed"), n(" failed"), n(" ignored"))
        })
        .collect();
    assert!(results.iter().all(|r| r.1 == 0 && r.2 == 0), "{stdout}");
    (results, stdout)
}

fn the_hair_crowd_gives_the_same_poses_on_aarch64_to_float_noise() {
    const FRAMES: usize = 20;
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("aarch64-crowd.bin");
    let out = cross_cargo("run", Profile::Release)
        .args(["--example", "crowd_frames", "--"])
        .args([
            "none",
            &FRAMES.to_string(),
            "detected",
            "12",
            "batch",
            "dump",
        ])
        .arg(&path)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "crowd_frames on aarch64 failed ({}):\n{}",
        out.status,
        tail(&String::from_utf8_lossy(&out.stderr))
    );
    let bytes = std::fs::read(&path).unwrap();
    let aarch64: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    // The same crowd here: crowd_frames builds it the same way.
    let rig = workload::hair_rig(12, 6, false);
    let mut crowd = workload::Crowd::new(&rig, 100);
    for _ in 0..FRAMES {
        crowd.step(1);
    }
    let host: Vec<f32> = crowd
        .outputs()
        .iter()
        .flatten()
        .flat_map(|t| t.translation.into_iter().chain(t.rotation).chain(t.scale))
        .collect();
    assert_eq!(host.len(), aarch64.len());
    let worst = host
        .iter()
        .zip(&aarch64)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    println!("aarch64 against this machine: largest difference {worst:.2e} (translations in m, quaternion components)");
    // Measured 3.2e-5 after 80 frames (2.1e-5 after the 60 warm-up frames):
    // rounding differences carried through 160 substeps of 7,200 joints.
    assert!(worst.is_finite() && worst <= 1e-4, "{worst}");
}

#[derive(Clone, Copy)]
enum Profile {
    Release,
    /// The test profile with the library at opt-level 0 (Cargo.toml
    /// optimises it in the test profile too).
    Unoptimised,
}

/// `cargo SUBCOMMAND [--release] --target aarch64-unknown-linux-gnu -p secmo`
/// with the probed rustc, the cross linker, static linking and qemu as the
/// runner, into its own target directory.
fn cross_cargo(subcommand: &str, profile: Profile) -> Command {
    let rustc = tools::aarch64_rustc().unwrap_or("rustc");
    let target_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("aarch64");
    let mut cmd = Command::new(option_env!("CARGO").unwrap_or("cargo"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg(subcommand)
        .args(match profile {
            Profile::Release => ["--release"].as_slice(),
            Profile::Unoptimised => &["--config", "profile.dev.package.secmo.opt-level=0"],
        })
        .args(["--target", "aarch64-unknown-linux-gnu", "-p", "secmo"])
        .env("RUSTC", rustc)
        .env("CARGO_TARGET_DIR", target_dir)
        .env(
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER",
            "aarch64-linux-gnu-gcc",
        )
        // `secmo_cross_tests`: without the header check's and the benches'
        // dev-dependencies (Cargo.toml), which none of these tests uses:
        // the cross build took 284 s with them and 168 s without.
        .env(
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS",
            "-C target-feature=+crt-static --cfg secmo_cross_tests",
        )
        .env(
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER",
            "qemu-aarch64",
        )
        // The host build's flags are not the cross build's.
        // tests/sweeps.rs is what checks the NEON lane kernel.
        .env(tools::LONG, "1")
        // No debug info: the cross build is most of this test's time (CI's
        // budget), and nothing here is debugged under qemu.
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET");
    cmd
}

/// The last 40 lines of a build's output.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

fn main() {
    tools::run(cases![
        the_library_and_its_rust_tests_pass_on_aarch64[tools::aarch64_long],
        the_hair_crowd_gives_the_same_poses_on_aarch64_to_float_noise[tools::aarch64_long],
    ]);
}
