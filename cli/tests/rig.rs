//! `secmo rig` (issue #6, docs/algorithms.md §12): growing tail chains on rigs that have
//! none.

mod common;

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};
use secmo_cli::bake::{BakeOptions, Baker};
use secmo_cli::glb::Glb;
use secmo_cli::grow::{grow, Fate, GrowOptions, Region};
use secmo_cli::import::{import, Imported};
use secmo_cli::report::{measure, region_stretch};
use serde_json::{json, Value};

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/assets")
        .join(name)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("secmo-rig-{}-{name}", std::process::id()))
}

fn distance_to_segment(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
    p.distance(a + t * ab)
}

/// Bind-space position of each bone (from the first mesh's inverse binds).
fn bind_positions(imported: &Imported) -> Vec<Vec3> {
    imported.meshes[0]
        .inverse_bind
        .iter()
        .map(|m| Vec3::from(m.inverse().translation))
        .collect()
}

/// What a humanoid auto-rigger does to the Fox: every weight on a tail bone
/// moves to the nearest leg bone, and the tail bones are deleted (nodes,
/// skin joints, inverse binds and animation tracks). Returns the tail's
/// bind-space joint positions.
fn lose_the_tail(source: &Path, out: &Path) -> Vec<Vec3> {
    let fox = import(source).unwrap();
    let tail = fox.tail();
    assert_eq!(tail.len(), 3);
    let bones = &fox.skeleton.bones;
    let at = bind_positions(&fox);
    let legs: Vec<(usize, Vec3, Vec3)> = (0..bones.len())
        .filter(|&b| bones[b].name.contains("Leg"))
        .flat_map(|b| {
            (0..bones.len())
                .filter(move |&c| bones[c].parent == b as i32)
                .map(move |c| (b, c))
        })
        .map(|(b, c)| (b, at[b], at[c]))
        .collect();
    assert_eq!(legs.len(), 4, "upper and lower hind legs, left and right");
    let node_of = |b: usize| {
        fox.skeleton
            .bone_of_node
            .iter()
            .position(|&x| x as usize == b)
            .unwrap()
    };
    let dead: Vec<usize> = tail.iter().map(|&b| node_of(b)).collect();
    let remap = |n: usize| -> Option<usize> {
        (!dead.contains(&n)).then(|| n - dead.iter().filter(|&&d| d < n).count())
    };

    let mut glb = Glb::read(source).unwrap();
    let skin_bones: Vec<usize> = fox.skins[0]
        .iter()
        .copied()
        .filter(|b| !tail.contains(b))
        .collect();
    // Weights: tail → nearest leg bone.
    let mesh = &fox.meshes[0];
    let mut js = Vec::new();
    let mut ws = Vec::new();
    for (p, inf) in mesh.positions.iter().zip(&mesh.influences) {
        let mut merged: Vec<(usize, f32)> = Vec::new();
        for &(b, w) in inf {
            let mut b = b as usize;
            if w > 0.0 && tail.contains(&b) {
                b = legs
                    .iter()
                    .min_by(|x, y| {
                        distance_to_segment(*p, x.1, x.2)
                            .total_cmp(&distance_to_segment(*p, y.1, y.2))
                    })
                    .unwrap()
                    .0;
            }
            match merged.iter_mut().find(|m| m.0 == b) {
                Some(m) => m.1 += w,
                None => merged.push((b, w)),
            }
        }
        merged.resize(4, (skin_bones[0], 0.0));
        for (b, w) in merged {
            js.push(skin_bones.iter().position(|&x| x == b).unwrap() as u32);
            ws.push(w);
        }
    }
    let j = glb.push_indices(&js, "VEC4");
    let w = glb.push_floats(&ws, "VEC4", false);
    glb.json["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = json!(j);
    glb.json["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(w);
    let ibs: Vec<f32> = skin_bones
        .iter()
        .flat_map(|&b| Mat4::from(mesh.inverse_bind[b]).to_cols_array())
        .collect();
    let ib = glb.push_floats(&ibs, "MAT4", false);
    glb.json["skins"][0]["inverseBindMatrices"] = json!(ib);
    glb.json["skins"][0]["joints"] =
        json!(skin_bones.iter().map(|&b| node_of(b)).collect::<Vec<_>>());

    // Delete the nodes and renumber every reference.
    let renumber = |list: &Value| -> Value {
        Value::Array(
            list.as_array()
                .unwrap()
                .iter()
                .filter_map(|n| remap(n.as_u64().unwrap() as usize).map(|x| json!(x)))
                .collect(),
        )
    };
    let mut nodes: Vec<Value> = glb.json["nodes"].as_array().unwrap().clone();
    for node in &mut nodes {
        if node.get("children").is_some() {
            node["children"] = renumber(&node["children"]);
        }
    }
    let nodes: Vec<Value> = nodes
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !dead.contains(i))
        .map(|(_, n)| n)
        .collect();
    glb.json["nodes"] = Value::Array(nodes);
    for scene in glb.json["scenes"].as_array_mut().unwrap() {
        scene["nodes"] = renumber(&scene["nodes"]);
    }
    let skin = &mut glb.json["skins"][0];
    skin["joints"] = renumber(&skin["joints"]);
    if let Some(s) = skin["skeleton"].as_u64() {
        skin["skeleton"] = json!(remap(s as usize).unwrap());
    }
    for animation in glb.json["animations"].as_array_mut().unwrap() {
        let channels: Vec<Value> = animation["channels"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| {
                let n = remap(c["target"]["node"].as_u64().unwrap() as usize)?;
                let mut c = c.clone();
                c["target"]["node"] = json!(n);
                Some(c)
            })
            .collect();
        animation["channels"] = Value::Array(channels);
    }
    glb.write(out).unwrap();
    tail.iter().map(|&b| at[b]).collect()
}

#[test]
fn recovers_the_tail_a_humanoid_rigger_lost() {
    let lost = temp("fox-no-tail.glb");
    let tail_path = lose_the_tail(&asset("Fox.glb"), &lost);
    let before = import(&lost).unwrap();
    assert!(before.tail().is_empty(), "the tail bones are gone");
    assert_eq!(
        before.skeleton.bones.len() + 3,
        import(&asset("Fox.glb")).unwrap().skeleton.bones.len()
    );

    let grown = grow(&before, &GrowOptions::default()).unwrap();
    eprintln!("{}", grown.summary());
    let chains: Vec<_> = grown
        .appendages
        .iter()
        .filter(|a| a.fate == Fate::Chain)
        .collect();
    assert_eq!(chains.len(), 1, "{}", grown.summary());
    assert_eq!(
        grown.appendages.iter().filter(|a| a.is_appendage).count(),
        1,
        "exactly one appendage (the ears and snout are far but not elongated)"
    );
    let tail = chains[0];
    assert_eq!(tail.attachment_name, "b_Hip_01");
    assert_eq!(tail.region, Region::Pelvis);
    // docs/algorithms.md §12 figures for the article's fox: elongation ≈ 2.6 (a cape is
    // ≈ 1), tail length 42 % of the model's size. Ours: 2.51 and 39 %.
    assert!((2.2..3.0).contains(&tail.elongation), "{}", tail.elongation);
    let share = tail.length / grown.height;
    assert!((0.35..0.5).contains(&share), "{share}");
    // Joints along the original tail: within 10 % of its length of the
    // path through the deleted tail bones, continued past the last one.
    let last = tail_path[2] + (tail_path[2] - tail_path[1]) * 100.0;
    let path = [tail_path[0], tail_path[1], tail_path[2], last];
    let worst = tail
        .joints
        .iter()
        .map(|j| {
            path.windows(2)
                .map(|w| distance_to_segment(*j, w[0], w[1]))
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max);
    eprintln!(
        "joints off the original tail path by at most {worst:.2} (length {:.2})",
        tail.length
    );
    assert!(worst <= 0.1 * tail.length, "{worst} vs {}", tail.length);
    let mut figures = String::new();
    let others: Vec<String> = grown
        .appendages
        .iter()
        .filter(|a| a.fate != Fate::Chain)
        .map(|a| format!("{} far vertices on {}", a.vertices, a.attachment_name))
        .collect();
    figures += &format!(
        "- H = {:.1} and the far limit is {:.1}. Far components: the tail, and {} (left \
         untouched).\n- The tail: {} welded vertices on {}, centroid ratio {:.2}, elongation \
         {:.2}, L = {:.1}, K = {}.\n- The grown joints lie within {:.2} of the deleted tail \
         bones' path, {:.0} % of L.\n- The mean weighted vertex-to-bone distance falls from \
         {:.1} to {:.1}.\n\n| clip | grown chain p99 / max / torn | body p99 / max | tail on \
         the legs p99 / max / torn |\n|---|---|---|---|\n",
        grown.height,
        grown.far_limit,
        others.join(", "),
        tail.vertices,
        tail.attachment_name,
        tail.centroid_ratio,
        tail.elongation,
        tail.length,
        tail.segments,
        worst,
        100.0 * worst / tail.length,
        tail.mean_distance[0],
        tail.mean_distance[1],
    );
    assert_eq!(tail.joints.len(), tail.segments + 1);
    assert_eq!(
        tail.segments,
        ((tail.length / (0.1 * grown.height)).round() as usize).clamp(3, 8)
    );
    // The article: 47 → 17 cm on its fox; at least halved here.
    let [before_d, after_d] = tail.mean_distance;
    assert!(after_d <= 0.5 * before_d, "{before_d} -> {after_d}");

    // Weights: non-negative, summing to 1, on every vertex.
    for mesh in &grown.influences {
        for inf in mesh {
            assert!(inf.iter().all(|&(_, w)| w >= 0.0), "{inf:?}");
            let sum: f32 = inf.iter().map(|&(_, w)| w).sum();
            assert!((sum - 1.0).abs() < 1e-5, "{inf:?}");
        }
    }

    // The rigged file: the new chain under secmo over Walk and Run stretches
    // no more than the body and never tears; the leg-skinned tail tears.
    let rigged = temp("fox-rigged.glb");
    grown.write_glb(&before, &lost, &rigged).unwrap();
    let after = import(&rigged).unwrap();
    let names: Vec<&str> = after
        .tail()
        .iter()
        .map(|&b| after.skeleton.bones[b].name.as_str())
        .collect();
    assert_eq!(names.len(), tail.segments + 1, "{names:?}");
    assert_eq!((names[0], *names.last().unwrap()), ("Tail_1", "Tail_End"));
    assert_eq!(
        after.skeleton.bones[after.skeleton.bones[after.tail()[0]].parent as usize].name,
        "b_Hip_01"
    );
    let members: Vec<Vec<bool>> = before
        .meshes
        .iter()
        .enumerate()
        .map(|(m, mesh)| {
            let mut inside = vec![false; mesh.positions.len()];
            for &(mm, v) in &tail.members {
                if mm == m {
                    inside[v] = true;
                }
            }
            inside
        })
        .collect();
    let baker = Baker::new(after, 100.0).unwrap();
    for name in ["Walk", "Run"] {
        let clip = baker
            .imported
            .clips
            .iter()
            .find(|c| c.name == name)
            .unwrap()
            .clone();
        let r = measure(&baker, &clip, &BakeOptions::default()).unwrap();
        let (chain, body) = (r.secmo.unwrap(), r.body.unwrap());
        let lost_clip = before.clips.iter().find(|c| c.name == name).unwrap();
        let on_leg = region_stretch(&before, lost_clip, 60.0, &members)
            .unwrap()
            .unwrap();
        figures += &format!(
            "| {name} | {:.3} / {:.3} / {:.1} % | {:.3} / {:.3} | {:.1} / {:.1} / {:.1} % |\n",
            chain.p99,
            chain.max,
            chain.torn_percent,
            body.p99,
            body.max,
            on_leg.p99,
            on_leg.max,
            on_leg.torn_percent
        );
        assert!(
            chain.p99 <= body.p99 && chain.max <= body.max,
            "{chain:?} vs {body:?}"
        );
        assert_eq!(chain.torn_percent, 0.0);
        assert!(on_leg.torn_percent > 0.0, "{on_leg:?}");
        assert!(on_leg.max > 1.5 || on_leg.min < 0.67);
    }

    eprintln!("{figures}");
    common::check_doc_figures("docs/rig.md", "cli/tests/rig.rs", &figures);

    // The command does the same and says what it found.
    let exe = env!("CARGO_BIN_EXE_secmo");
    let cli_out = temp("fox-cli.glb");
    let run = std::process::Command::new(exe)
        .arg("rig")
        .arg(&lost)
        .arg("-o")
        .arg(&cli_out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains("appendages") && stdout.contains("on b_Hip_01 (Pelvis)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("chain of {} bones", tail.segments)),
        "{stdout}"
    );
    let settings = std::fs::read_to_string(cli_out.with_extension("secmo-settings.json")).unwrap();
    let settings: secmo::RigSettings = serde_json::from_str(&settings).unwrap();
    assert_eq!(settings.chains.len(), 1);
    assert_eq!(settings.chains[0].preset, "tail");
    assert_eq!(settings.chains[0].anchor, "b_Hip_01");
    assert_eq!(settings.chains[0].joints.len(), tail.segments + 1);
    // The settings load onto the rigged file's skeleton.
    let rigged_cli = import(&cli_out).unwrap();
    settings
        .to_rig_desc(rigged_cli.skeleton.bones.clone(), 100.0, secmo::UpAxis::Y)
        .map(secmo::Rig::new)
        .unwrap()
        .unwrap();
    let embedded = &Glb::read(&cli_out).unwrap().json["extras"]["secmo_rig_settings"];
    assert_eq!(
        serde_json::from_value::<secmo::RigSettings>(embedded.clone()).unwrap(),
        settings
    );
    // A file with no skin is refused by name, with exit code 1.
    let bad = std::process::Command::new(exe)
        .args(["rig"])
        .arg(asset("three-vrm-springbone/plane-collider.gltf"))
        .arg("-o")
        .arg(temp("never.glb"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("plane-collider.gltf") && stderr.contains("no skinned"),
        "{stderr}"
    );

    for f in [
        lost,
        rigged,
        cli_out.clone(),
        cli_out.with_extension("secmo-settings.json"),
    ] {
        std::fs::remove_file(f).ok();
    }
}

mod synthetic {
    //! Bodies built in code: the demo body without its tail and ponytail
    //! bones, plus parts skinned as a humanoid rigger would skin them.

    use super::*;
    use secmo_cli::demo_character::{
        bind_world, meshed_body, write_glb, MeshBuilder, HEAD, TAIL, THIGH_L, THIGH_R,
    };
    use secmo_cli::procedural::{Sequence, PELVIS};

    pub struct Body {
        pub desc: secmo::RigDesc,
        pub mesh: MeshBuilder,
        /// Bind-space positions of the demo tail's joints (metres).
        pub tail: Vec<Vec3>,
    }

    /// The body alone (bones up to the feet).
    pub fn body() -> Body {
        let full = meshed_body();
        let world = bind_world(&full);
        let tail = TAIL
            .iter()
            .map(|&b| Vec3::from(world[b].translation))
            .collect();
        let mut desc = full;
        desc.bones.truncate(TAIL[0]);
        let mut mesh = MeshBuilder::default();
        mesh.body(&bind_world(&desc));
        Body { desc, mesh, tail }
    }

    impl Body {
        /// A tail tube along the demo tail, each vertex on the nearer
        /// thigh (the left one for x ≥ 0), as a humanoid rigger leaves it.
        pub fn unrigged_tail(&mut self) {
            let radii = [0.05, 0.06, 0.055, 0.045, 0.03, 0.01];
            let first = self.mesh.positions.len();
            self.mesh.tube(&self.tail, &radii, &[THIGH_L; 5], THIGH_L);
            for v in first..self.mesh.positions.len() {
                let thigh = if self.mesh.positions[v].x >= 0.0 {
                    THIGH_L
                } else {
                    THIGH_R
                };
                self.mesh.joints[v] = [thigh as u32, 0, 0, 0];
                self.mesh.weights[v] = [1.0, 0.0, 0.0, 0.0];
            }
        }

        /// A 40 × 40 cm flap hanging behind the pelvis, on the pelvis.
        pub fn cape(&mut self) {
            let pelvis = Vec3::new(0.0, 1.0, 0.0);
            self.mesh.sheet(
                pelvis + Vec3::new(-0.2, 0.0, -0.2),
                Vec3::X * 0.4,
                Vec3::new(0.0, -0.4, -0.02),
                (8, 8),
                PELVIS,
            );
        }

        /// A 20 cm ear tube standing on the head, on the head.
        pub fn ear(&mut self) {
            let world = bind_world(&self.desc);
            let head = Vec3::from(world[HEAD].translation);
            let points = [
                head + Vec3::new(0.07, 0.14, 0.0),
                head + Vec3::new(0.09, 0.22, 0.0),
                head + Vec3::new(0.11, 0.30, 0.0),
                head + Vec3::new(0.12, 0.36, 0.0),
            ];
            self.mesh
                .tube(&points, &[0.03, 0.025, 0.015, 0.005], &[HEAD; 3], HEAD);
        }

        /// Writes the body with the demo clip (1 s per phase) and imports it.
        pub fn write(&self, name: &str) -> (PathBuf, Imported) {
            let path = self.write_file(name);
            let imported = import(&path).unwrap();
            (path, imported)
        }

        /// Writes the body with the demo clip (1 s per phase).
        pub fn write_file(&self, name: &str) -> PathBuf {
            let bytes = write_glb(
                &self.desc,
                &self.mesh,
                Some((&Sequence::new(1.0), 30.0)),
                false,
            )
            .unwrap();
            let path = temp(name);
            std::fs::write(&path, bytes).unwrap();
            path
        }
    }
}

fn chains(grown: &secmo_cli::grow::Grown) -> usize {
    grown
        .appendages
        .iter()
        .filter(|a| a.fate == Fate::Chain)
        .count()
}

#[test]
fn a_synthetic_tail_on_the_thigh_gets_a_chain_on_the_hips() {
    let mut body = synthetic::body();
    body.unrigged_tail();
    let (path, imported) = body.write("tail.glb");
    let grown = grow(&imported, &GrowOptions::default()).unwrap();
    eprintln!("{}", grown.summary());
    assert_eq!(chains(&grown), 1, "{}", grown.summary());
    let tail = grown
        .appendages
        .iter()
        .find(|a| a.fate == Fate::Chain)
        .unwrap();
    assert_eq!(tail.attachment_name, "pelvis");
    // 77 cm on a 1.9 m body: K = round(L / 0.1 H).
    let h = grown.height;
    assert!((h - 1.9).abs() < 0.05, "{h}");
    assert_eq!(
        tail.segments,
        ((tail.length / (0.1 * h)).round() as usize).clamp(3, 8)
    );
    assert!(tail.mean_distance[1] <= 0.5 * tail.mean_distance[0]);
    // The grown bones share the hips' bind rotation and sit on the tail.
    assert_eq!(grown.new_bones.len(), tail.segments + 1);
    assert!(grown
        .new_bones
        .iter()
        .all(|b| secmo_cli::grow::bind_rotation(b).angle_between(glam::Quat::IDENTITY) < 1e-5));
    std::fs::remove_file(path).ok();
}

#[test]
fn no_chain_on_a_cape_or_an_ear() {
    let mut body = synthetic::body();
    body.cape();
    let (path, imported) = body.write("cape.glb");
    let grown = grow(&imported, &GrowOptions::default()).unwrap();
    eprintln!("{}", grown.summary());
    assert_eq!(chains(&grown), 0, "{}", grown.summary());
    let cape = grown
        .appendages
        .iter()
        .find(|a| a.region == Region::Pelvis)
        .expect("the cape is found as a far part on the pelvis");
    assert!(cape.elongation < 1.5, "{}", cape.elongation);
    assert!(matches!(&cape.fate, Fate::Untouched(why) if why.contains("elongated")));
    assert!(grown.new_bones.is_empty());
    assert_eq!(
        grown.influences,
        imported
            .meshes
            .iter()
            .map(|m| m.influences.clone())
            .collect::<Vec<_>>(),
        "untouched parts keep their weights"
    );
    std::fs::remove_file(path).ok();

    let mut body = synthetic::body();
    body.ear();
    let (path, imported) = body.write("ear.glb");
    let grown = grow(&imported, &GrowOptions::default()).unwrap();
    eprintln!("{}", grown.summary());
    assert_eq!(chains(&grown), 0, "{}", grown.summary());
    let ear = grown
        .appendages
        .iter()
        .find(|a| a.elongation > 2.0)
        .expect("the ear is found");
    assert_eq!(ear.region, Region::Head);
    assert_eq!(ear.fate, Fate::Untouched("hangs from the head".into()));
    std::fs::remove_file(path).ok();
}

#[test]
fn a_tail_split_at_seams_is_welded_into_one_component() {
    let mut whole = synthetic::body();
    whole.unrigged_tail();
    let mut split = synthetic::body();
    split.mesh.split_segments = true;
    split.unrigged_tail();
    let (pw, whole) = whole.write("whole.glb");
    let (ps, split) = split.write("split.glb");
    // The split tail really is in islands: count them on the raw indices.
    let mesh = &split.meshes[0];
    let mut parent: Vec<usize> = (0..mesh.positions.len()).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        p[x] = r;
        r
    }
    for t in &mesh.triangles {
        for (a, b) in [(t[0], t[1]), (t[1], t[2])] {
            let (ra, rb) = (find(&mut parent, a as usize), find(&mut parent, b as usize));
            parent[ra] = rb;
        }
    }
    let mut roots: Vec<usize> = (0..parent.len()).map(|v| find(&mut parent, v)).collect();
    roots.sort_unstable();
    roots.dedup();
    assert_eq!(
        roots.len(),
        5 + 5,
        "five body tubes, and each of the five tail segments an island"
    );
    let a = grow(&whole, &GrowOptions::default()).unwrap();
    let b = grow(&split, &GrowOptions::default()).unwrap();
    assert_eq!(chains(&b), 1, "{}", b.summary());
    let (ta, tb) = (
        a.appendages.iter().find(|x| x.fate == Fate::Chain).unwrap(),
        b.appendages.iter().find(|x| x.fate == Fate::Chain).unwrap(),
    );
    assert_eq!(
        ta.vertices, tb.vertices,
        "welded, the two tails are the same"
    );
    assert!(
        tb.members.len() > ta.members.len(),
        "the split one has more raw vertices"
    );
    assert_eq!(ta.segments, tb.segments);
    assert!((ta.length - tb.length).abs() < 1e-4);
    std::fs::remove_file(pw).ok();
    std::fs::remove_file(ps).ok();
}

#[test]
fn weights_blend_50_50_at_joints_and_sum_to_one() {
    use secmo_cli::grow::segment_weights;
    assert_eq!(segment_weights(0.0), [0.5, 0.5, 0.0]);
    assert_eq!(segment_weights(0.5), [0.0, 1.0, 0.0]);
    assert_eq!(segment_weights(1.0), [0.0, 0.5, 0.5]);
    for i in 0..=100 {
        let w = segment_weights(i as f32 / 100.0);
        assert!(w.iter().all(|x| *x >= 0.0));
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }
    // Across a joint the next bone's share is continuous: 0.5 at the end of
    // segment k is 0.5 (as "previous") at the start of k + 1.
    assert_eq!(segment_weights(1.0)[2], segment_weights(0.0)[0]);

    // On the grown tail every vertex sums to 1, and vertices at a joint's
    // geodesic split 50/50 between the two bones that meet there.
    let mut body = synthetic::body();
    body.unrigged_tail();
    let (path, imported) = body.write("weights.glb");
    let grown = grow(&imported, &GrowOptions::default()).unwrap();
    let tail = grown
        .appendages
        .iter()
        .find(|a| a.fate == Fate::Chain)
        .unwrap();
    // Bone ids: the hips, then Tail_1..Tail_K after the file's bones.
    let hips = imported
        .skeleton
        .bones
        .iter()
        .position(|b| b.name == "pelvis")
        .unwrap() as u32;
    let tail_bone = |i: usize| (imported.skeleton.bones.len() + i) as u32;
    let k = tail.segments;
    let mut seen = vec![false; k];
    for (&(m, v), &s) in tail.members.iter().zip(&tail.coordinates) {
        let inf = grown.influences[m][v];
        assert!(inf.iter().all(|&(_, w)| w >= 0.0));
        assert!((inf.iter().map(|&(_, w)| w).sum::<f32>() - 1.0).abs() < 1e-5);
        // The weights are docs/algorithms.md §12.6's for the vertex's chain coordinate.
        let seg = (s.floor() as usize).min(k - 1);
        seen[seg] = true;
        let [p, o, n] = segment_weights((s - seg as f32).min(1.0));
        let prev = if seg == 0 { hips } else { tail_bone(seg - 1) };
        let weight_on = |bone: u32| -> f32 {
            inf.iter()
                .filter(|&&(b, _)| b == bone)
                .map(|&(_, w)| w)
                .sum()
        };
        let (own, next) = if seg + 1 < k { (o, n) } else { (o + n, 0.0) };
        assert!((weight_on(prev) - p).abs() < 1e-5, "s {s}: {inf:?}");
        assert!(
            (weight_on(tail_bone(seg)) - own).abs() < 1e-5,
            "s {s}: {inf:?}"
        );
        if seg + 1 < k {
            assert!(
                (weight_on(tail_bone(seg + 1)) - next).abs() < 1e-5,
                "s {s}: {inf:?}"
            );
        }
    }
    assert!(seen.iter().all(|s| *s), "every segment has vertices");
    std::fs::remove_file(path).ok();
}

#[test]
fn rigid_fallback_holds_the_tail_on_the_hips_at_exactly_1() {
    let mut body = synthetic::body();
    body.unrigged_tail();
    let (path, imported) = body.write("rigid.glb");
    let options = GrowOptions {
        rigid: true,
        ..GrowOptions::default()
    };
    let grown = grow(&imported, &options).unwrap();
    let tail = &grown
        .appendages
        .iter()
        .find(|a| a.fate == Fate::Rigid)
        .unwrap();
    assert!(grown.new_bones.is_empty() && grown.settings.chains.is_empty());
    let out = temp("rigid-out.glb");
    grown.write_glb(&imported, &path, &out).unwrap();
    let after = import(&out).unwrap();
    let mut region = vec![vec![false; after.meshes[0].positions.len()]];
    for &(_, v) in &tail.members {
        region[0][v] = true;
    }
    let clip = &after.clips[0];
    let rigid = region_stretch(&after, clip, 30.0, &region)
        .unwrap()
        .unwrap();
    let on_thigh = region_stretch(&imported, clip, 30.0, &region)
        .unwrap()
        .unwrap();
    eprintln!("rigid {rigid:?}\non the thigh {on_thigh:?}");
    assert!((rigid.max - 1.0).abs() < 1e-4 && (rigid.min - 1.0).abs() < 1e-4);
    assert!(on_thigh.max > 1.0 + 1e-3, "{on_thigh:?}");

    // The command's --rigid says so, and its bad arguments are named.
    let exe = env!("CARGO_BIN_EXE_secmo");
    let cli_out = temp("rigid-cli.glb");
    let run = std::process::Command::new(exe)
        .arg("rig")
        .arg(&path)
        .args(["--rigid", "-o"])
        .arg(&cli_out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success() && stdout.contains("rigid on its bone"),
        "{stdout}"
    );
    assert!(!cli_out.with_extension("secmo-settings.json").exists());
    for (args, message) in [
        (vec!["rig"], "required arguments were not provided"),
        (vec!["rig", "a.glb"], "--out <OUT.glb>"),
        (
            vec!["rig", "a.glb", "-o"],
            "a value is required for '--out <OUT.glb>'",
        ),
        (
            vec!["rig", "a.glb", "--stiff"],
            "unexpected argument '--stiff'",
        ),
    ] {
        let bad = std::process::Command::new(exe)
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    }
    std::fs::remove_file(cli_out).ok();
    std::fs::remove_file(path).ok();
    std::fs::remove_file(out).ok();
}

#[test]
fn malformed_meshes_are_refused_with_the_reason() {
    // No skin.
    let mut body = synthetic::body();
    body.unrigged_tail();
    let (path, _) = body.write("noskin.glb");
    let mut glb = Glb::read(&path).unwrap();
    let nodes = glb.json["nodes"].as_array_mut().unwrap();
    for n in nodes.iter_mut() {
        if let Some(o) = n.as_object_mut() {
            o.remove("skin");
        }
    }
    glb.json.as_object_mut().unwrap().remove("skins");
    glb.write(&path).unwrap();
    let e = grow(&import(&path).unwrap(), &GrowOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("noskin.glb") && e.contains("no skinned"), "{e}");
    std::fs::remove_file(&path).ok();

    // A degenerate triangle.
    let mut body = synthetic::body();
    body.unrigged_tail();
    let n = body.mesh.indices.len();
    body.mesh.indices[n - 2] = body.mesh.indices[n - 3];
    let (path, imported) = body.write("degenerate.glb");
    let e = grow(&imported, &GrowOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("degenerate") && e.contains(&format!("triangle {}", n / 3 - 1)),
        "{e}"
    );
    std::fs::remove_file(&path).ok();

    // A NaN position: refused by the import every command makes.
    let mut body = synthetic::body();
    body.unrigged_tail();
    body.mesh.positions[7].y = f32::NAN;
    let path = body.write_file("nan.glb");
    let e = import(&path).unwrap_err().to_string();
    assert!(
        e.contains("nan.glb")
            && e.contains("meshes[0].primitives[0].attributes.POSITION: vertex 7 has NaN"),
        "{e}"
    );
    std::fs::remove_file(&path).ok();
}
