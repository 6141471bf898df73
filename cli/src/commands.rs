//! The `bake` and `report` commands as functions, shared by the binary and
//! the demo.

use std::path::PathBuf;

/// What `bake` and `report` were asked to do.
pub struct BakeArgs {
    pub input: PathBuf,
    pub out: PathBuf,
    /// `--out` as given (report: a directory).
    pub out_dir: Option<PathBuf>,
    pub clips: Vec<String>,
    /// `None`: inferred from the skinned mesh ([`crate::import::Imported::units`]).
    pub units_per_meter: Option<f32>,
    pub options: crate::bake::BakeOptions,
    pub cold: bool,
    /// Allow `out` to be the input file.
    pub force: bool,
    /// Clips baked as loops (`--loop CLIP`) or as one-shots (`--once
    /// CLIP`) whatever their ends guess ([`crate::import::Wrap`]).
    pub loop_clips: Vec<String>,
    pub once_clips: Vec<String>,
    /// The tail's first bone (`--tail BONE`) where its bones are not
    /// named *tail* ([`crate::import::Imported::name_tail`]).
    pub tail: Option<String>,
}

/// The chosen clips (all when none is named), the baker, and the line that
/// says which units were used, followed by a `warning:` line for each of
/// the rig's warnings (a sheared bind pose, a chain listed before the chain
/// moving what it reads).
pub fn clips_and_baker(
    args: &BakeArgs,
) -> anyhow::Result<(Vec<crate::import::Clip>, crate::bake::Baker, String)> {
    let imported = crate::import::Imported::with_tail(&args.input, args.tail.as_deref())?;
    let (units_per_meter, mut units_note) = imported.units(args.units_per_meter);
    // What the file holds that was read only in part (a Draco-compressed
    // or bufferless mesh, an extension's note): the measures and the bake
    // go without it, and say so.
    for w in &imported.warnings {
        units_note.push_str(&format!("\n{w}"));
    }
    if let Some(missing) = args
        .clips
        .iter()
        .chain(&args.loop_clips)
        .chain(&args.once_clips)
        .find(|n| !imported.clips.iter().any(|c| &c.name == *n))
    {
        return Err(anyhow::anyhow!(
            "{}: no clip named {missing:?}",
            args.input.display()
        ));
    }
    let baker = crate::bake::Baker::new(imported, units_per_meter)?;
    // The clips as the baker holds them: its skeleton may have the bone
    // added above the scene roots, which moves every bone index by one.
    let clips: Vec<_> = baker
        .imported
        .clips
        .iter()
        .filter(|c| args.clips.is_empty() || args.clips.contains(&c.name))
        .cloned()
        .collect();
    for w in baker.rig.warnings() {
        units_note.push_str(&format!(
            "\nwarning: {}: {}",
            args.input.display(),
            describe_warning(&baker.rig, w)
        ));
    }
    Ok((clips, baker, units_note))
}

/// A rig warning with bone names instead of indices.
fn describe_warning(rig: &secmo::Rig, w: &secmo::rig::RigWarning) -> String {
    use secmo::rig::RigWarning;
    let name = |b: usize| rig.bone_name(b).unwrap_or("?").to_string();
    let first_joint = |c: usize| {
        rig.chains()
            .get(c)
            .and_then(|c| c.joints.first())
            .map_or("?".into(), |&j| name(j as usize))
    };
    match w {
        RigWarning::Shear { bone } => format!(
            "{}: bind pose is sheared (non-uniform parent scale with a rotated child); the shear is dropped",
            name(*bone)
        ),
        RigWarning::ChainOrder {
            chain,
            bone,
            moved_by,
        } => format!(
            "the chain at {} reads {}, which the chain at {} moves but runs after it: \
             it sees {}'s animated pose",
            first_joint(*chain),
            name(*bone),
            first_joint(*moved_by),
            name(*bone)
        ),
        other => other.to_string(),
    }
}

pub fn report(args: &BakeArgs) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    let dir = args
        .out_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("secmo-report"));
    crate::output::check_dir(&dir, "--out")?;
    let (clips, mut baker, units_note) = clips_and_baker(args)?;
    // The files the report will write, checked before the measuring: an
    // existing folder may hold the input under one of their names.
    if dir.is_dir() {
        let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
        for path in crate::report::files(&dir, &names) {
            crate::output::Output {
                path: &path,
                flag: "--out",
                command: "report",
                inputs: &[&args.input],
                force: None,
            }
            .check()?;
        }
    }
    baker.progress = crate::progress::Progress::stderr("measuring");
    for c in &clips {
        baker
            .progress
            .plan(crate::report::work(&baker, c, &args.options));
    }
    if clips.is_empty() {
        baker.progress.plan(crate::report::head_turn_work(&baker));
    }
    let reports = clips
        .iter()
        .map(|c| {
            baker.progress.set_message(format!("measuring {}", c.name));
            crate::report::measure(&baker, c, &args.options)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut text = format!("{units_note}\n");
    for r in &reports {
        if let (Some(t), Some(b)) = (r.secmo, r.body) {
            let _ = writeln!(
                text,
                "{:?}: chain p99 {:.3} max {:.3} torn {:.2} %; body p99 {:.3} max {:.3}{}; update p50 {:.1} µs",
                r.clip,
                t.p99,
                t.max,
                t.torn_percent,
                b.p99,
                b.max,
                r.skin_penetration.map_or(String::new(), |[artist, ours]| format!(
                    "; deepest tail vertex into a body capsule {:.2} {} ({:.0} % of its radius; the clip's own {:.0} %)",
                    ours.depth,
                    crate::plot::unit_name(r.units_per_meter),
                    100.0 * ours.share,
                    100.0 * artist.share
                )),
                r.update_micros[0]
            );
        }
        for (name, s) in &r.per_chain {
            if let Some(s) = s {
                let _ = writeln!(
                    text,
                    "    chain from {name}: p99 {:.3} max {:.3} torn {:.2} %",
                    s.p99, s.max, s.torn_percent
                );
            }
        }
    }
    // Characters without clips get the head-turn sequence (docs/algorithms.md §10).
    let head_turn = if clips.is_empty() {
        baker.progress.set_message("head turn".into());
        let h = crate::report::measure_head_turn(&baker)?;
        if let Some(c) = h.chain {
            let _ = writeln!(
                text,
                "head turn ({}): chain p99 {:.4} max {:.4}; settling {:.2e} {}",
                h.head,
                c.p99,
                c.max,
                h.settling * h.units_per_meter,
                crate::plot::unit_name(h.units_per_meter)
            );
        }
        Some(h)
    } else {
        None
    };
    baker.progress.finish();
    for path in crate::report::write(&args.input, &reports, head_turn.as_ref(), &dir)? {
        let _ = writeln!(text, "wrote {}", path.display());
    }
    Ok(text)
}

pub fn bake(args: &BakeArgs) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    crate::output::Output {
        path: &args.out,
        flag: "--out",
        command: "bake",
        inputs: &[&args.input],
        force: Some(args.force),
    }
    .check()?;
    let (clips, mut baker, units_note) = clips_and_baker(args)?;
    if clips.is_empty() {
        anyhow::bail!(
            "{}: nothing to bake: the file has no animation clips (`secmo report` runs a head-turn sequence on such files)",
            args.input.display()
        );
    }
    let mut report = format!("{units_note}\n");
    let mut baked = Vec::new();
    baker.progress = crate::progress::Progress::stderr("baking");
    for clip in &clips {
        baker
            .progress
            .plan(baker.work(clip, &args.options, !args.cold));
    }
    for clip in &clips {
        baker.progress.set_message(format!("baking {}", clip.name));
        let mut options = args.options.clone();
        options.looping = if args.loop_clips.contains(&clip.name) {
            Some(true)
        } else if args.once_clips.contains(&clip.name) {
            Some(false)
        } else {
            options.looping
        };
        let b = baker.bake(clip, &options, !args.cold)?;
        let why = why_loop(&b, options.looping);
        if b.looped {
            let _ = writeln!(
                report,
                "{:?}: loop ({why}), {} keys, {} warm-up passes, loop closing error {:.2e} rad",
                b.name,
                b.times.len(),
                b.passes,
                b.closing_error
            );
        } else {
            let _ = writeln!(
                report,
                "{:?}: one-shot ({why}), {} keys from a settled start ({} warm-up passes), not wrapped",
                b.name,
                b.times.len(),
                b.passes
            );
        }
        if !baker.helpers.is_empty() {
            let _ = writeln!(
                report,
                "    {} helper bones baked (translation and rotation), loop closing offset {:.2e} m",
                baker.helpers.len(),
                b.closing_offset
            );
        }
        baked.push(b);
    }
    baker.progress.finish();
    let note = crate::bake::write_glb(&args.input, &args.out, &baker, &baked)?;
    if let Some(note) = note {
        let _ = writeln!(report, "note: {note}");
    }
    let _ = writeln!(report, "wrote {}", args.out.display());
    Ok(report)
}

/// Why a clip was baked as a loop or a one-shot: the option that said so,
/// or the guess from how its ends meet.
fn why_loop(b: &crate::bake::BakedClip, forced: Option<bool>) -> String {
    let w = b.wrap;
    match forced {
        Some(true) => "--loop".into(),
        Some(false) => "--once".into(),
        None if b.looped && w.lacks_closing_key() => format!(
            "guessed: a cycle without its closing key, its ends {:.1} key steps apart",
            w.closed.min(w.open)
        ),
        None if b.looped => format!("guessed: its ends are {:.1} key steps apart", w.closed),
        None => format!(
            "guessed: its ends are {:.1} key steps apart ({:.1}°), more than {} as a cycle's; \
             --loop {:?} bakes it as one",
            w.closed.min(w.open),
            b.seam.0.to_degrees(),
            crate::import::Wrap::CYCLE_STEPS,
            b.name
        ),
    }
}
