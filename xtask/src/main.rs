//! `cargo xtask`: builds the engine plugins' native libraries on any host
//! (Windows, macOS, Linux), replacing the bash scripts that stopped on
//! Windows (issues #15 item 6, #16 item 4).
//!
//! ```text
//! cargo xtask unity-plugins     [--platform P]... [--print]
//! cargo xtask unreal-thirdparty [--platform P]... [--print]
//! cargo xtask unity-metas       [--check]
//! cargo xtask unity-package     [--out DIR] [--library PATH]
//! ```
//!
//! Each platform is built where its toolchain is: this host when the Rust
//! target is installed and, where one is needed, its linker (the Android
//! NDK, Apple's `lipo`); otherwise the task prints the exact commands to run
//! on a machine that can, and goes on. `--print` only prints them. Unity's
//! per-platform import settings (.meta) and a .meta for every other package
//! asset that lacks one are written by `unity-metas` and committed;
//! `--check` fails when one is missing or differs.
//!
//! `unity-package` writes the Unity package as a UPM tarball
//! (`com.secmo.runtime-<version>.tgz`, installed with the Package Manager's
//! "Add package from tarball…") holding this host's native library: built
//! in release, or the file `--library` names. The native libraries are not
//! in git, so a package installed from the git URL has none.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Unity's importer settings: editor OS, editor CPU, and the build-target
/// entries (`Standalone: Win64`, `CPU: x86_64`).
type UnityImport = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// A native library for one engine platform.
struct Platform {
    /// The name used on the command line.
    name: &'static str,
    /// Rust targets built and combined (two for a macOS universal library).
    targets: &'static [&'static str],
    /// The host that can build it (for the printed instructions).
    host: &'static str,
    /// The file cargo writes, and the file name in the engine folder.
    built: &'static str,
    installed: &'static str,
    /// Folder in the engine package, relative to the repository.
    folder: &'static str,
    /// Unity importer settings, when the platform is a Unity one.
    unity: Option<UnityImport>,
}

const UNITY: &[Platform] = &[
    Platform {
        name: "linux-x86_64",
        targets: &["x86_64-unknown-linux-gnu"],
        host: "Linux x86_64",
        built: "libsecmo.so",
        installed: "libsecmo.so",
        folder: "unity_package/com.secmo.runtime/Plugins/Linux/x86_64",
        unity: Some(("Linux", "x86_64", &[("Standalone: Linux64", "CPU: x86_64")])),
    },
    Platform {
        name: "windows-x86_64",
        targets: &["x86_64-pc-windows-msvc"],
        host: "Windows with the MSVC build tools",
        built: "secmo.dll",
        installed: "secmo.dll",
        folder: "unity_package/com.secmo.runtime/Plugins/Windows/x86_64",
        unity: Some(("Windows", "x86_64", &[("Standalone: Win64", "CPU: x86_64")])),
    },
    Platform {
        name: "macos-universal",
        targets: &["aarch64-apple-darwin", "x86_64-apple-darwin"],
        host: "macOS with Xcode (lipo)",
        built: "libsecmo.dylib",
        installed: "libsecmo.dylib",
        folder: "unity_package/com.secmo.runtime/Plugins/macOS",
        unity: Some((
            "OSX",
            "AnyCPU",
            &[("Standalone: OSXUniversal", "CPU: AnyCPU")],
        )),
    },
    Platform {
        name: "android-arm64",
        targets: &["aarch64-linux-android"],
        host: "any host with the Android NDK (cargo-ndk)",
        built: "libsecmo.so",
        installed: "libsecmo.so",
        folder: "unity_package/com.secmo.runtime/Plugins/Android/arm64-v8a",
        unity: Some(("", "ARM64", &[("Android: Android", "CPU: ARM64")])),
    },
    Platform {
        name: "ios",
        targets: &["aarch64-apple-ios"],
        host: "macOS with Xcode",
        built: "libsecmo.a",
        installed: "libsecmo.a",
        folder: "unity_package/com.secmo.runtime/Plugins/iOS",
        unity: Some(("", "ARM64", &[("iPhone: iOS", "CPU: ARM64")])),
    },
];

const UNREAL: &[Platform] = &[
    Platform {
        name: "Linux",
        targets: &["x86_64-unknown-linux-gnu"],
        host: "Linux x86_64",
        built: "libsecmo.a",
        installed: "libsecmo.a",
        folder: "unreal_plugin/Secmo/Source/ThirdParty/secmo/lib/Linux",
        unity: None,
    },
    Platform {
        name: "Win64",
        targets: &["x86_64-pc-windows-msvc"],
        host: "Windows with the MSVC build tools",
        built: "secmo.lib",
        installed: "secmo.lib",
        folder: "unreal_plugin/Secmo/Source/ThirdParty/secmo/lib/Win64",
        unity: None,
    },
    Platform {
        name: "Mac",
        targets: &["aarch64-apple-darwin", "x86_64-apple-darwin"],
        host: "macOS with Xcode (lipo)",
        built: "libsecmo.a",
        installed: "libsecmo.a",
        folder: "unreal_plugin/Secmo/Source/ThirdParty/secmo/lib/Mac",
        unity: None,
    },
    Platform {
        name: "Android",
        targets: &["aarch64-linux-android"],
        host: "any host with the Android NDK (cargo-ndk)",
        built: "libsecmo.a",
        installed: "libsecmo.a",
        folder: "unreal_plugin/Secmo/Source/ThirdParty/secmo/lib/Android/arm64-v8a",
        unity: None,
    },
    Platform {
        name: "IOS",
        targets: &["aarch64-apple-ios"],
        host: "macOS with Xcode",
        built: "libsecmo.a",
        installed: "libsecmo.a",
        folder: "unreal_plugin/Secmo/Source/ThirdParty/secmo/lib/IOS",
        unity: None,
    },
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the repository")
        .to_path_buf()
}

/// The commands that build `p` on a host that can.
fn commands(p: &Platform, task: &str) -> Vec<String> {
    let mut out: Vec<String> = p
        .targets
        .iter()
        .map(|t| format!("rustup target add {t}"))
        .collect();
    out.push(format!("cargo xtask {task} --platform {}", p.name));
    out
}

fn installed_targets() -> Vec<String> {
    Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn host_triple() -> String {
    Command::new("rustc")
        .arg("-vV")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        })
        .unwrap_or_default()
}

/// Whether this host can build `p`: every target installed, and the extra
/// tool the platform needs (lipo for a universal library; the NDK linker
/// for Android; MSVC for Windows only on Windows; Apple targets on macOS).
fn buildable(p: &Platform, installed: &[String], host: &str) -> Result<(), String> {
    for t in p.targets {
        if !installed.iter().any(|i| i == t) && *t != host {
            return Err(format!("the Rust target {t} is not installed"));
        }
        if t.contains("apple") && !host.contains("apple") {
            return Err("Apple targets link with Xcode's tools".into());
        }
        if t.contains("windows-msvc") && !host.contains("windows") {
            return Err("the MSVC target links with Microsoft's linker".into());
        }
        if t.contains("android") && std::env::var_os("ANDROID_NDK_HOME").is_none() {
            return Err("ANDROID_NDK_HOME (the Android NDK) is not set".into());
        }
    }
    Ok(())
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("{cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed ({status})"))
    }
}

fn build(p: &Platform) -> Result<PathBuf, String> {
    let root = root();
    let target_dir = target_dir();
    let mut outputs = Vec::new();
    for t in p.targets {
        let mut cmd = Command::new("cargo");
        if t.contains("android") {
            cmd.args(["ndk", "-t", "arm64-v8a", "build"]);
        } else {
            cmd.arg("build");
        }
        run(cmd
            .args(["--release", "--package", "secmo", "--target", t])
            .current_dir(&root))?;
        outputs.push(built_path(&target_dir, t, p.built));
    }
    let dir = root.join(p.folder);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let dest = dir.join(p.installed);
    if outputs.len() > 1 {
        let mut lipo = Command::new("lipo");
        lipo.arg("-create").args(&outputs).arg("-output").arg(&dest);
        run(&mut lipo)?;
    } else {
        std::fs::copy(&outputs[0], &dest).map_err(|e| {
            format!(
                "copying {} to {}: {e}",
                outputs[0].display(),
                dest.display()
            )
        })?;
    }
    if p.installed.ends_with(".lib") || p.installed.ends_with(".a") {
        // What the static library needs from the system, as rustc says
        // for this target: the engine's build file reads it.
        let libs = native_static_libs(p.targets[0])?;
        let list = dir.join(NATIVE_LIBS_FILE);
        std::fs::write(&list, libs.join("\n") + "\n")
            .map_err(|e| format!("{}: {e}", list.display()))?;
    }
    Ok(dest)
}

/// Beside a static library: the system libraries it links against, one per
/// line, from `rustc --print native-static-libs` (secmo.Build.cs reads it).
const NATIVE_LIBS_FILE: &str = "secmo.libs";

/// Where cargo writes: `cargo metadata`'s target directory (which follows
/// `CARGO_TARGET_DIR`, `build.target-dir` and the workspace), or, without
/// cargo's answer, `CARGO_TARGET_DIR` (relative to the repository) or
/// `target/`.
fn target_dir() -> PathBuf {
    let root = root();
    let from_metadata = Command::new("cargo")
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(&root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| json_string(&String::from_utf8_lossy(&o.stdout), "target_directory"));
    match from_metadata {
        Some(dir) => PathBuf::from(dir),
        None => match std::env::var_os("CARGO_TARGET_DIR") {
            Some(dir) => root.join(dir),
            None => root.join("target"),
        },
    }
}

/// The string value of `"key"` in a JSON text (cargo metadata's flat
/// top-level fields), unescaped.
fn json_string(json: &str, key: &str) -> Option<String> {
    let at = json.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let mut out = String::new();
    let mut chars = json[at..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// The library cargo writes for target `t`.
fn built_path(target_dir: &Path, t: &str, built: &str) -> PathBuf {
    target_dir.join(t).join("release").join(built)
}

/// The system libraries secmo's static library needs on target `t`, as
/// rustc prints them (`--print native-static-libs`).
fn native_static_libs(t: &str) -> Result<Vec<String>, String> {
    let mut cmd = Command::new("cargo");
    cmd.args([
        "rustc",
        "--release",
        "--package",
        "secmo",
        "--lib",
        "--crate-type",
        "staticlib",
        "--target",
        t,
        "--",
        "--print",
        "native-static-libs",
    ])
    .current_dir(root());
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    parse_native_static_libs(&String::from_utf8_lossy(&out.stderr))
        .ok_or_else(|| format!("{cmd:?} printed no native-static-libs line"))
}

/// The libraries of rustc's `note: native-static-libs: ...` line: MSVC
/// names (`ws2_32.lib`) as they are, `-lname` as `name`; linker options
/// (`/defaultlib:msvcrt`) left out.
fn parse_native_static_libs(stderr: &str) -> Option<Vec<String>> {
    let line = stderr
        .lines()
        .find_map(|l| l.split_once("native-static-libs: ").map(|(_, r)| r))?;
    let mut libs: Vec<String> = Vec::new();
    for item in line.split_whitespace() {
        let lib = if let Some(name) = item.strip_prefix("-l") {
            name.to_string()
        } else if item.starts_with('/') || item.starts_with('-') {
            continue;
        } else {
            item.to_string()
        };
        if !libs.contains(&lib) {
            libs.push(lib);
        }
    }
    Some(libs)
}

/// A stable GUID for a package path (two FNV-1a hashes, 32 hex digits), so
/// regenerating never changes an asset's GUID.
fn guid(path: &str) -> String {
    let fnv = |seed: u64| {
        path.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    format!(
        "{:016x}{:016x}",
        fnv(0xcbf2_9ce4_8422_2325),
        fnv(0x6c62_272e_07bb_0142)
    )
}

/// Unity's PluginImporter settings for a native library.
fn unity_meta(p: &Platform) -> Option<(PathBuf, String)> {
    let (editor_os, cpu, targets) = p.unity?;
    let path = format!("{}/{}", p.folder, p.installed);
    let mut text = format!(
        "fileFormatVersion: 2\nguid: {}\nPluginImporter:\n  serializedVersion: 2\n  iconMap: {{}}\n  executionOrder: {{}}\n  isPreloaded: 0\n  isOverridable: 0\n  platformData:\n  - first:\n      Any:\n    second:\n      enabled: 0\n      settings: {{}}\n",
        guid(&path)
    );
    if !editor_os.is_empty() {
        text.push_str(&format!(
            "  - first:\n      Editor: Editor\n    second:\n      enabled: 1\n      settings:\n        CPU: {cpu}\n        OS: {editor_os}\n"
        ));
    }
    for (target, setting) in targets {
        text.push_str(&format!(
            "  - first:\n      {target}\n    second:\n      enabled: 1\n      settings:\n        {setting}\n"
        ));
    }
    text.push_str("  userData:\n  assetBundleName:\n  assetBundleVariant:\n");
    Some((root().join(format!("{path}.meta")), text))
}

/// Folder .meta files for the platform folders.
fn folder_meta(folder: &str) -> (PathBuf, String) {
    (
        root().join(format!("{folder}.meta")),
        format!(
            "fileFormatVersion: 2\nguid: {}\nfolderAsset: yes\nDefaultImporter:\n  externalObjects: {{}}\n  userData:\n  assetBundleName:\n  assetBundleVariant:\n",
            guid(folder)
        ),
    )
}

fn metas() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut folders: Vec<String> = Vec::new();
    for p in UNITY {
        let mut f = p.folder;
        while let Some((parent, _)) = f.rsplit_once('/') {
            if f.ends_with("/Plugins") || !f.contains("/Plugins") {
                break;
            }
            if !folders.iter().any(|x| x == f) {
                folders.push(f.to_string());
            }
            f = parent;
        }
        out.extend(unity_meta(p));
    }
    folders.sort();
    out.extend(folders.iter().map(|f| folder_meta(f)));
    out
}

fn platforms<'a>(all: &'a [Platform], args: &[String]) -> Result<Vec<&'a Platform>, String> {
    let mut chosen = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--platform" {
            let name = it.next().ok_or("--platform needs a name")?;
            let p = all.iter().find(|p| p.name == name).ok_or_else(|| {
                format!(
                    "unknown platform {name}; one of {}",
                    all.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                )
            })?;
            chosen.push(p);
        }
    }
    Ok(if chosen.is_empty() {
        all.iter().collect()
    } else {
        chosen
    })
}

fn engine_task(task: &str, all: &[Platform], args: &[String]) -> Result<(), String> {
    let print_only = args.iter().any(|a| a == "--print");
    let chosen = platforms(all, args)?;
    let installed = installed_targets();
    let host = host_triple();
    let target_dir = target_dir();
    let mut failed = false;
    for p in chosen {
        let plan = commands(p, task).join(" && ");
        if print_only {
            let from: Vec<String> = p
                .targets
                .iter()
                .map(|t| built_path(&target_dir, t, p.built).display().to_string())
                .collect();
            println!(
                "{}: on {}: {plan} (builds {}; writes {} beside it from rustc --print native-static-libs)",
                p.name,
                p.host,
                from.join(", "),
                NATIVE_LIBS_FILE
            );
            continue;
        }
        match buildable(p, &installed, &host) {
            Ok(()) => match build(p) {
                Ok(dest) => println!("{}: built {}", p.name, dest.display()),
                Err(e) => {
                    eprintln!("{}: {e}", p.name);
                    failed = true;
                }
            },
            Err(why) => println!("{}: not built here ({why}); on {}: {plan}", p.name, p.host),
        }
    }
    if task == "unreal-thirdparty" && !print_only {
        let dir = root().join("unreal_plugin/Secmo/Source/ThirdParty/secmo/include");
        for f in ["include/secmo.h", "bindings/cpp/secmo.hpp"] {
            let from = root().join(f);
            let name = from.file_name().expect("a file");
            std::fs::copy(&from, dir.join(name)).map_err(|e| format!("{f}: {e}"))?;
        }
    }
    if failed {
        Err("a build failed".into())
    } else {
        Ok(())
    }
}

/// The package's files and folders (paths inside `unity_package/`, sorted)
/// that need a .meta: everything but .meta files, hidden entries, folders
/// Unity skips (`Samples~`) and the native libraries (their .meta comes from
/// [`metas`]).
fn package_assets() -> Result<Vec<String>, String> {
    fn walk(base: &Path, rel: &str, out: &mut Vec<String>) -> Result<(), String> {
        let dir = base.join(rel);
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name.ends_with(".meta") || name.contains('~') {
                continue;
            }
            let path = format!("{rel}/{name}");
            if entry.path().is_dir() {
                out.push(path.clone());
                walk(base, &path, out)?;
            } else if ![".so", ".dylib", ".dll", ".a", ".bundle"]
                .iter()
                .any(|ext| name.ends_with(ext))
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(&root().join("unity_package"), "com.secmo.runtime", &mut out)?;
    out.sort();
    Ok(out)
}

/// The .meta of a package asset that has none: a fixed GUID from its path
/// (so writing it again never changes an asset's GUID) and the importer
/// Unity gives that kind of file.
fn asset_meta(path: &str, is_dir: bool) -> String {
    let importer = if is_dir {
        "folderAsset: yes\nDefaultImporter:\n  externalObjects: {}\n"
    } else if path.ends_with(".cs") {
        "MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n"
    } else if path.ends_with(".asmdef") {
        "AssemblyDefinitionImporter:\n  externalObjects: {}\n"
    } else if path.ends_with("/package.json") {
        "PackageManifestImporter:\n  externalObjects: {}\n"
    } else if [".md", ".json", ".txt"].iter().any(|e| path.ends_with(e)) {
        "TextScriptImporter:\n  externalObjects: {}\n"
    } else {
        "DefaultImporter:\n  externalObjects: {}\n"
    };
    format!(
        "fileFormatVersion: 2\nguid: {}\n{importer}  userData: \n  assetBundleName: \n  assetBundleVariant: \n",
        guid(&format!("secmo-unity:{path}"))
    )
}

/// Writes (or with `check`, lists) the native libraries' import settings
/// that differ from [`metas`], and a .meta for every package asset that has
/// none: Unity needs them in a package installed from git, which is
/// read-only there.
fn unity_metas(check: bool) -> Result<(), String> {
    let mut stale = Vec::new();
    let mut wanted = metas();
    let package = root().join("unity_package");
    for asset in package_assets()? {
        let meta = package.join(format!("{asset}.meta"));
        if !meta.exists() {
            let is_dir = package.join(&asset).is_dir();
            wanted.push((meta, asset_meta(&asset, is_dir)));
        }
    }
    for (path, text) in wanted {
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == text {
            continue;
        }
        if check {
            stale.push(path.display().to_string());
        } else {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "stale or missing (run `cargo xtask unity-metas`): {}",
            stale.join(", ")
        ))
    }
}

/// The Unity platform of the host that runs xtask (its native library goes
/// in the tarball).
fn host_unity_platform(host: &str) -> Option<&'static Platform> {
    let name = if host.starts_with("x86_64") && host.contains("linux") {
        "linux-x86_64"
    } else if host.starts_with("x86_64") && host.contains("windows") {
        "windows-x86_64"
    } else if host.contains("apple-darwin") {
        "macos-universal"
    } else {
        return None;
    };
    UNITY.iter().find(|p| p.name == name)
}

/// The string value of `key` in a JSON text (package.json's flat fields),
/// spaces allowed around the colon; no escapes.
fn json_field(json: &str, key: &str) -> Option<String> {
    let after = &json[json.find(&format!("\"{key}\""))? + key.len() + 2..];
    let after = after.trim_start().strip_prefix(':')?.trim_start();
    let value = after.strip_prefix('"')?;
    Some(value[..value.find('"')?].to_string())
}

/// Every file of the package under `dir` (relative paths with `/`), sorted;
/// hidden files left out.
fn package_files(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), String> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let rel = format!("{prefix}{name}");
        if e.path().is_dir() {
            package_files(&e.path(), &format!("{rel}/"), out)?;
        } else {
            out.push(rel);
        }
    }
    Ok(())
}

/// A ustar archive of `files` (path, contents), every entry a regular file
/// (mode 0644, time 0) so the archive is the same for the same files.
fn tar(files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for (path, data) in files {
        let mut h = [0u8; 512];
        let (prefix, name) = if path.len() <= 100 {
            ("", path.as_str())
        } else {
            // ustar: a path over 100 bytes splits at a `/` into a prefix
            // (up to 155) and a name (up to 100).
            let cut = path[..path.len().min(156)]
                .rfind('/')
                .filter(|&c| path.len() - c - 1 <= 100)
                .ok_or_else(|| format!("{path}: too long for a tar entry"))?;
            (&path[..cut], &path[cut + 1..])
        };
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..107].copy_from_slice(b"0000644");
        h[108..115].copy_from_slice(b"0000000");
        h[116..123].copy_from_slice(b"0000000");
        h[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
        h[136..147].copy_from_slice(b"00000000000");
        h[156] = b'0';
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[345..345 + prefix.len()].copy_from_slice(prefix.as_bytes());
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    Ok(out)
}

/// CRC-32 (IEEE), as gzip's trailer holds it.
fn crc32(data: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, t) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *t = c;
    }
    !data.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

/// `data` as a gzip member of stored (uncompressed) deflate blocks: any
/// gzip reader takes it, and xtask needs no compression library.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    let mut chunks = data.chunks(0xffff).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

fn unity_package(args: &[String]) -> Result<(), String> {
    let mut out_dir = root().join("target/unity-package");
    let mut library: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out_dir = PathBuf::from(it.next().ok_or("--out needs a folder")?),
            "--library" => {
                library = Some(PathBuf::from(it.next().ok_or("--library needs a file")?))
            }
            other => return Err(format!("unity-package: unknown argument {other}")),
        }
    }
    let host = host_triple();
    let platform = host_unity_platform(&host).ok_or_else(|| {
        format!("unity-package: no Unity editor platform for host {host}; use `cargo xtask unity-plugins` where one is")
    })?;
    let library = match library {
        Some(path) => path,
        None => build(platform)?,
    };
    let bytes = std::fs::read(&library).map_err(|e| format!("{}: {e}", library.display()))?;
    let package = root().join("unity_package/com.secmo.runtime");
    let manifest = std::fs::read_to_string(package.join("package.json"))
        .map_err(|e| format!("package.json: {e}"))?;
    let version = json_field(&manifest, "version").ok_or("package.json has no version")?;
    let host_library = format!(
        "{}/{}",
        platform
            .folder
            .strip_prefix("unity_package/com.secmo.runtime/")
            .expect("a package folder"),
        platform.installed
    );
    let mut paths = Vec::new();
    package_files(&package, "", &mut paths)?;
    if !paths.contains(&host_library) {
        paths.push(host_library.clone());
        paths.sort();
    }
    let is_native = |p: &str| {
        p.starts_with("Plugins/")
            && [".so", ".dll", ".dylib", ".a"]
                .iter()
                .any(|e| p.ends_with(e))
    };
    let mut files = Vec::new();
    for path in &paths {
        // A .meta goes only with its asset: a platform's library (and its
        // folders) only when that library is in the package.
        if let Some(asset) = path.strip_suffix(".meta") {
            let folder = format!("{asset}/");
            if !paths
                .iter()
                .any(|p| p == asset || (p.starts_with(&folder) && !p.ends_with(".meta")))
            {
                continue;
            }
        }
        let data = if *path == host_library {
            bytes.clone()
        } else {
            std::fs::read(package.join(path)).map_err(|e| format!("{path}: {e}"))?
        };
        files.push((format!("package/{path}"), data));
    }
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let tgz = out_dir.join(format!("com.secmo.runtime-{version}.tgz"));
    std::fs::write(&tgz, gzip_stored(&tar(&files)?))
        .map_err(|e| format!("{}: {e}", tgz.display()))?;
    let natives: Vec<&str> = files
        .iter()
        .map(|(p, _)| p.as_str())
        .filter(|p| is_native(p.trim_start_matches("package/")))
        .collect();
    println!(
        "wrote {} ({} files; native: {}). Install it with the Package Manager: + → Add package from tarball…",
        tgz.display(),
        files.len(),
        natives.join(", ")
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("unity-plugins") => engine_task("unity-plugins", UNITY, &args[1..]).and_then(|()| {
            if args.iter().any(|a| a == "--print") {
                Ok(())
            } else {
                unity_metas(false)
            }
        }),
        Some("unreal-thirdparty") => engine_task("unreal-thirdparty", UNREAL, &args[1..]),
        Some("unity-metas") => unity_metas(args.iter().any(|a| a == "--check")),
        Some("unity-package") => unity_package(&args[1..]),
        _ => Err(
            "usage: cargo xtask unity-plugins|unreal-thirdparty [--platform P]... [--print] | unity-metas [--check] | unity-package [--out DIR] [--library PATH]"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_static_libs_are_read_from_rustc_s_note() {
        let msvc = "warning: x\nnote: native-static-libs: kernel32.lib advapi32.lib ntdll.lib \
                    userenv.lib ws2_32.lib dbghelp.lib /defaultlib:msvcrt\n";
        assert_eq!(
            parse_native_static_libs(msvc).unwrap(),
            [
                "kernel32.lib",
                "advapi32.lib",
                "ntdll.lib",
                "userenv.lib",
                "ws2_32.lib",
                "dbghelp.lib"
            ]
        );
        let gnu =
            "note: native-static-libs: -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -lpthread\n";
        assert_eq!(
            parse_native_static_libs(gnu).unwrap(),
            ["gcc_s", "util", "rt", "pthread", "m", "dl", "c"]
        );
        assert!(parse_native_static_libs("nothing").is_none());
    }

    #[test]
    fn tar_headers_and_gzip_trailers_are_standard() {
        // CRC-32 check value of the IEEE polynomial.
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        let archive = tar(&[("package/a.txt".into(), b"hello".to_vec())]).unwrap();
        assert_eq!(archive.len(), 512 + 512 + 1024);
        assert_eq!(&archive[..13], b"package/a.txt");
        assert_eq!(&archive[124..135], b"00000000005");
        let sum: u32 = archive[..512]
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if (148..156).contains(&i) {
                    32
                } else {
                    u32::from(b)
                }
            })
            .sum();
        assert_eq!(&archive[148..155], format!("{sum:06o}\0").as_bytes());
        let long = format!("package/{}/file.cs", "d".repeat(120));
        let archive = tar(&[(long.clone(), Vec::new())]).unwrap();
        assert_eq!(&archive[..7], b"file.cs");
        assert_eq!(
            &archive[345..345 + long.len() - 8],
            &long.as_bytes()[..long.len() - 8]
        );
        let gz = gzip_stored(&[7u8; 70_000]);
        assert_eq!(gz.len(), 10 + 2 * 5 + 70_000 + 8);
        assert_eq!(&gz[gz.len() - 4..], &70_000u32.to_le_bytes());
        assert_eq!(
            json_field("{\"name\": \"x\",\n  \"version\" : \"0.1.0\"}", "version").unwrap(),
            "0.1.0"
        );
    }

    #[test]
    fn the_target_directory_comes_from_cargo_metadata() {
        let json = r#"{"packages":[],"target_directory":"C:\\work\\out","version":1}"#;
        assert_eq!(
            json_string(json, "target_directory").unwrap(),
            "C:\\work\\out"
        );
        assert_eq!(
            built_path(
                Path::new("/tmp/t"),
                "x86_64-unknown-linux-gnu",
                "libsecmo.a"
            ),
            Path::new("/tmp/t/x86_64-unknown-linux-gnu/release/libsecmo.a")
        );
    }
}
