//! The one guard every file a command writes goes through: an output must
//! not be one of the command's input files (under any spelling: relative,
//! `./`, absolute, `sub/..`, through a symlinked folder, a symlink to the
//! file or a hard link to it), must not be an existing directory, and its
//! folder must exist. Nothing is written when the guard refuses.

use std::path::{Path, PathBuf};

/// Whether `a` and `b` name the same existing file. On unix: the same
/// (device, inode) after following symlinks, which also catches hard links;
/// elsewhere: the same canonical path.
#[must_use]
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (a.canonicalize(), b.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// An output file and what the command may do with it.
pub struct Output<'a> {
    /// The path to write.
    pub path: &'a Path,
    /// How the user named it, for messages (`--out`, `-o`, or a file the
    /// command writes next to another).
    pub flag: &'a str,
    /// The command, for messages (`bake`, `rig`, ...).
    pub command: &'a str,
    /// The command's input files.
    pub inputs: &'a [&'a Path],
    /// `Some(true)`: the user passed `--force`, the output may be an input.
    /// `Some(false)`: the command has `--force` and it was not given.
    /// `None`: the command never overwrites its input.
    pub force: Option<bool>,
}

impl Output<'_> {
    /// Checks the output; an error names the output file and what is wrong.
    pub fn check(&self) -> anyhow::Result<()> {
        let out = self.path;
        let shown = out.display();
        let flag = self.flag;
        if out.is_dir() {
            anyhow::bail!("{shown}: {flag} is a directory; name a file to write");
        }
        // The folder the file goes into. `Path::parent` of a bare name is
        // "", the current folder.
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !parent.exists() {
            anyhow::bail!(
                "{shown}: {flag}'s folder {} does not exist",
                parent.display()
            );
        }
        if !parent.is_dir() {
            anyhow::bail!(
                "{shown}: {flag}'s folder {} is not a directory",
                parent.display()
            );
        }
        if self.force == Some(true) {
            return Ok(());
        }
        if let Some(input) = self.inputs.iter().find(|i| same_file(i, out)) {
            let what = if input.as_os_str() == out.as_os_str() {
                String::new()
            } else {
                format!(" ({})", input.display())
            };
            let command = self.command;
            match self.force {
                Some(_) => anyhow::bail!(
                    "{shown}: {flag} names the input file{what}; {command} writes a copy (pass --force to overwrite the input)"
                ),
                None => anyhow::bail!(
                    "{shown}: {flag} names the input file{what}; {command} never overwrites its input (name another file)"
                ),
            }
        }
        Ok(())
    }
}

/// Checks an output directory: it may exist (as a directory) or not (it is
/// created with its parents), but it must not be an existing file.
pub fn check_dir(dir: &Path, flag: &str) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!(
            "{}: {flag} names a file, not a directory; the command writes several files into it",
            dir.display()
        );
    }
    Ok(())
}
