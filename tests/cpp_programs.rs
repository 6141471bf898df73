//! The C++ wrapper (bindings/cpp/secmo.hpp): programs in tests/cpp compiled
//! with g++ -std=c++17 -Wall -Wextra -Werror -fno-exceptions, linked to the
//! static library and run. The RAII program also runs under memcheck and the
//! concurrency program under helgrind; without valgrind those two tests are
//! reported as ignored (tests/support/tools.rs probes for it), and `.ci/run` installs it.
//! Every program also runs built with AddressSanitizer and
//! UndefinedBehaviorSanitizer, and misuse the header refuses is checked to
//! fail to compile.

#[path = "support/tools.rs"]
#[macro_use]
mod tools;

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::compile_cpp;

/// Compiles tests/cpp/`name`.cpp to an executable of its own: two tests
/// that build the same program at once (raii, and raii under memcheck) once
/// wrote one file while the other ran it ("Text file busy").
fn build(name: &str) -> PathBuf {
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}_{n}_cpp"));
    compile_cpp(&root.join(format!("tests/cpp/{name}.cpp")), &exe);
    exe
}

fn check(name: &str, output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{name} failed with {:?}\nstdout: {stdout}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn run(name: &str, args: &[&str]) -> String {
    let exe = build(name);
    check(name, &Command::new(&exe).args(args).output().expect("run"))
}

fn header_can_be_included_twice() {
    run("double_include", &[]);
}

fn raii_frees_everything_exactly_once() {
    assert!(run("raii", &[]).ends_with("ok\n"));
}

fn raii_is_clean_under_memcheck() {
    {
        let exe = build("raii");
        let out = Command::new("valgrind")
            .args([
                "--error-exitcode=99",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite,indirect",
                "-q",
            ])
            .arg(&exe)
            .output()
            .expect("run valgrind");
        check("raii under memcheck", &out);
    }
}

fn cpp_matches_the_rust_api_bit_for_bit() {
    let stdout = run("bits", &[]);
    let expected = common::hip_springs_transcript();
    let expected_frames: Vec<&str> = expected.lines().take(300).collect();
    let got: Vec<&str> = stdout.lines().collect();
    assert_eq!(got.len(), 301);
    for (i, (a, b)) in got.iter().zip(&expected_frames).enumerate() {
        assert_eq!(a, b, "line {i} differs between C++ and Rust");
    }
    assert_eq!(got[300], "ok");
}

fn unreal_and_unity_conventions_give_the_same_motion() {
    let stdout = run("conventions", &[]);
    print!("{stdout}");
    assert!(stdout.ends_with("ok\n"));
}

fn sixty_four_characters_on_eight_threads_match_a_single_thread() {
    let stdout = run("concurrency", &["2000"]);
    print!("{stdout}");
    assert!(stdout.contains("64 characters x 2000 frames on 8 threads"));
    assert!(stdout.contains("secmo_update_batch, one range per thread: identical"));
}

fn concurrency_is_race_free_under_helgrind() {
    {
        let exe = build("concurrency");
        let out = Command::new("valgrind")
            .args(["--tool=helgrind", "--error-exitcode=99", "-q"])
            .arg(&exe)
            .arg("60")
            .output()
            .expect("run helgrind");
        check("concurrency under helgrind", &out);
    }
}

fn a_walk_far_from_the_level_origin_moves_like_one_at_the_origin() {
    // Issue #16 item 2 (tests/cpp/large_world.cpp): through the node's
    // SimulationOrigin, 10 and 20 km out match the origin within 0.01°.
    let out = run("large_world", &[]);
    print!("{out}");
    assert!(out.ends_with("ok\n"), "{out}");
}

/// Every program of tests/cpp built with AddressSanitizer and
/// UndefinedBehaviorSanitizer (any report fails the run): a use after
/// scope, a leak, an overflow or misaligned access in the wrapper or in how
/// the programs use it.
fn every_cpp_program_is_clean_under_asan_and_ubsan() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, args) in [
        ("double_include", &[][..]),
        ("raii", &[][..]),
        ("bits", &[][..]),
        ("conventions", &[][..]),
        ("concurrency", &["200"][..]),
        ("large_world", &[][..]),
        ("node_frames", &[][..]),
        ("world", &[][..]),
    ] {
        let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}_asan_cpp"));
        common::compile_cpp_with(
            &root.join(format!("tests/cpp/{name}.cpp")),
            &exe,
            &[
                "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all",
                "-fno-omit-frame-pointer",
            ],
        );
        let out = Command::new(&exe)
            .args(args)
            .env(
                "ASAN_OPTIONS",
                "detect_stack_use_after_return=1:abort_on_error=0",
            )
            .env("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
            .output()
            .expect("run");
        check(&format!("{name} under ASan and UBSan"), &out);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("runtime error"), "{name}: {stderr}");
    }
}

/// `secmo::batch_item` keeps the input's address: a temporary input (the
/// stack-use-after-scope ASan found) is refused at compile time.
fn a_batch_item_of_a_temporary_input_does_not_compile() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let write = |name: &str, body: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                "#include \"secmo.hpp\"\nvoid f(secmo::Character& c, secmo::Frame frame, \
                 secmo::Span<SecmoTransform> out, SecmoFrameInput& kept) {{\n{body}\n}}\n"
            ),
        )
        .unwrap();
        path
    };
    let bad = write(
        "batch_item_temporary.cpp",
        "SecmoBatchItem item = secmo::batch_item(c, frame.to_c(), out); (void)item; (void)kept;",
    );
    let (ok, diagnostics) = common::cpp_compiles(&bad);
    assert!(!ok, "a temporary input compiled");
    assert!(diagnostics.contains("deleted"), "{diagnostics}");
    // The intended use compiles.
    let good = write(
        "batch_item_kept.cpp",
        "kept = frame.to_c(); SecmoBatchItem item = secmo::batch_item(c, kept, out); (void)item;",
    );
    let (ok, diagnostics) = common::cpp_compiles(&good);
    assert!(ok, "{diagnostics}");
}

/// A world (bindings/cpp/secmo.hpp `World`): one plan and four ranges on
/// four threads give the bits of one call per character
/// (tests/cpp/world.cpp).
fn a_world_on_four_threads_gives_what_one_call_each_gives() {
    let out = run("world", &[]);
    print!("{out}");
    assert!(out.ends_with("ok\n"), "{out}");
}

/// The Unreal node's per-evaluation logic (tests/cpp/node_frames.cpp): a
/// character spawned on a platform finds the floor at its level height, and
/// frames of 0.125 s keep the tail's motion instead of teleporting it.
fn the_node_keeps_the_floor_and_the_motion_of_long_frames() {
    let out = run("node_frames", &[]);
    print!("{out}");
    assert!(out.ends_with("ok\n"), "{out}");
}

fn main() {
    tools::run(cases![
        header_can_be_included_twice,
        raii_frees_everything_exactly_once,
        raii_is_clean_under_memcheck[tools::valgrind],
        cpp_matches_the_rust_api_bit_for_bit,
        unreal_and_unity_conventions_give_the_same_motion,
        sixty_four_characters_on_eight_threads_match_a_single_thread,
        concurrency_is_race_free_under_helgrind[tools::valgrind],
        a_walk_far_from_the_level_origin_moves_like_one_at_the_origin,
        every_cpp_program_is_clean_under_asan_and_ubsan,
        a_batch_item_of_a_temporary_input_does_not_compile,
        the_node_keeps_the_floor_and_the_motion_of_long_frames,
        a_world_on_four_threads_gives_what_one_call_each_gives,
    ]);
}
