//! A GLB file as its JSON document and binary chunk, for the commands that
//! write glTF: `bake` (new animation tracks), `rig` (new bones, weights and
//! inverse binds) and the demo character (written from nothing).

use std::path::Path;

use serde_json::{json, Value};

/// glTF component types used here.
pub const FLOAT: u32 = 5126;
pub const UNSIGNED_SHORT: u32 = 5123;
pub const UNSIGNED_INT: u32 = 5125;

/// A GLB's JSON and its binary chunk (`buffers[0]`).
pub struct Glb {
    pub json: Value,
    pub bin: Vec<u8>,
}

impl Glb {
    /// A new document around `json`, with an empty binary buffer.
    pub fn new(mut json: Value) -> Self {
        json["buffers"] = json!([{"byteLength": 0}]);
        for list in ["bufferViews", "accessors"] {
            if !json[list].is_array() {
                json[list] = json!([]);
            }
        }
        Self {
            json,
            bin: Vec::new(),
        }
    }

    /// Reads a GLB whose `buffers[0]` is its binary chunk.
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let at = |m: String| anyhow::anyhow!("{}: {m}", path.display());
        let bytes = std::fs::read(path).map_err(|e| at(e.to_string()))?;
        Self::parse(&bytes).map_err(|e| at(format!("{e:#}")))
    }

    /// Parses GLB bytes whose `buffers[0]` is the binary chunk.
    pub fn parse(bytes: &[u8]) -> anyhow::Result<Self> {
        if !secmo::glb::is_glb(bytes) {
            return Err(anyhow::anyhow!(
                "expected a GLB file (binary glTF); this is not one"
            ));
        }
        let chunks = secmo::glb::split(bytes).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut json: Value =
            serde_json::from_slice(chunks.json).map_err(|e| anyhow::anyhow!("{e}"))?;
        if json["buffers"][0].get("uri").is_some() || !json["buffers"][0].is_object() {
            return Err(anyhow::anyhow!(
                "expected the GLB's binary chunk as buffers[0]"
            ));
        }
        for list in ["bufferViews", "accessors"] {
            if !json[list].is_array() {
                json[list] = json!([]);
            }
        }
        let bin = chunks.bin.unwrap_or_default().to_vec();
        Ok(Self { json, bin })
    }

    /// Appends `data` as a new buffer view; returns its index.
    pub fn push_view(&mut self, data: &[u8]) -> usize {
        pad4(&mut self.bin, 0);
        let offset = self.bin.len();
        self.bin.extend_from_slice(data);
        let views = self.json["bufferViews"]
            .as_array_mut()
            .expect("bufferViews is an array");
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": data.len()}));
        views.len() - 1
    }

    /// Appends float data of glTF `kind` ("SCALAR", "VEC3", "VEC4",
    /// "MAT4") as a view and an accessor; `bounds` adds min/max (required
    /// for positions and animation inputs). Returns the accessor index.
    pub fn push_floats(&mut self, values: &[f32], kind: &str, bounds: bool) -> usize {
        let width = components(kind);
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.push_view(&data);
        let mut a = json!({"bufferView": view, "componentType": FLOAT,
                           "count": values.len() / width, "type": kind});
        if bounds {
            let mut lo = vec![f32::INFINITY; width];
            let mut hi = vec![f32::NEG_INFINITY; width];
            for chunk in values.chunks(width) {
                for (i, &v) in chunk.iter().enumerate() {
                    lo[i] = lo[i].min(v);
                    hi[i] = hi[i].max(v);
                }
            }
            a["min"] = json!(lo);
            a["max"] = json!(hi);
        }
        self.push_accessor(a)
    }

    /// Appends unsigned integer data (`u16` when every value fits, else
    /// `u32`) of glTF `kind` as a view and an accessor.
    pub fn push_indices(&mut self, values: &[u32], kind: &str) -> usize {
        let short = values.iter().all(|&v| v <= u32::from(u16::MAX));
        let data: Vec<u8> = if short {
            values
                .iter()
                .flat_map(|&v| (v as u16).to_le_bytes())
                .collect()
        } else {
            values.iter().flat_map(|v| v.to_le_bytes()).collect()
        };
        let view = self.push_view(&data);
        let kind_width = components(kind);
        self.push_accessor(json!({"bufferView": view,
            "componentType": if short { UNSIGNED_SHORT } else { UNSIGNED_INT },
            "count": values.len() / kind_width, "type": kind}))
    }

    fn push_accessor(&mut self, accessor: Value) -> usize {
        let accessors = self.json["accessors"]
            .as_array_mut()
            .expect("accessors is an array");
        accessors.push(accessor);
        accessors.len() - 1
    }

    /// The GLB bytes.
    pub fn to_bytes(&mut self) -> anyhow::Result<Vec<u8>> {
        pad4(&mut self.bin, 0);
        self.json["buffers"][0]["byteLength"] = json!(self.bin.len());
        let mut text = serde_json::to_vec(&self.json).map_err(|e| anyhow::anyhow!("{e}"))?;
        pad4(&mut text, b' ');
        let total = 12 + 8 + text.len() + 8 + self.bin.len();
        let mut glb = Vec::with_capacity(total);
        glb.extend_from_slice(b"glTF");
        glb.extend_from_slice(&2u32.to_le_bytes());
        glb.extend_from_slice(&(total as u32).to_le_bytes());
        glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
        glb.extend_from_slice(b"JSON");
        glb.extend_from_slice(&text);
        glb.extend_from_slice(&(self.bin.len() as u32).to_le_bytes());
        glb.extend_from_slice(b"BIN\0");
        glb.extend_from_slice(&self.bin);
        Ok(glb)
    }

    /// Writes the GLB to `path`.
    pub fn write(&mut self, path: &Path) -> anyhow::Result<()> {
        let bytes = self.to_bytes()?;
        std::fs::write(path, bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }
}

/// Where an accessor's elements are in the binary chunk: the accessors the
/// conform pass reads and rewrites in place.
#[derive(Clone, Copy)]
struct Layout {
    start: usize,
    stride: usize,
    count: usize,
    width: usize,
    component_type: u32,
    size: usize,
    normalized: bool,
}

impl Layout {
    fn at(&self, e: usize, c: usize) -> usize {
        self.start + e * self.stride + c * self.size
    }
}

/// The largest raw value of a normalized unsigned component type (the
/// weight 1.0), or `None` for another type.
fn unit_of(component_type: u32) -> Option<u64> {
    match component_type {
        5121 => Some(u64::from(u8::MAX)),
        UNSIGNED_SHORT => Some(u64::from(u16::MAX)),
        _ => None,
    }
}

/// The glTF validator's check of one vertex's skin weights
/// (ACCESSOR_WEIGHTS_NON_NORMALIZED), slot by slot in its order: the sum
/// of the nonzero weights of distinct joints, accumulated in `f32`, is
/// within 2e-7 per such weight of 1.
fn weights_sum_ok(slots: &[(u64, f64)]) -> bool {
    let (mut sum, mut tolerance) = (0f32, 0f64);
    let mut seen: Vec<u64> = Vec::with_capacity(slots.len());
    for &(j, w) in slots {
        if w == 0.0 || seen.contains(&j) {
            continue;
        }
        seen.push(j);
        sum = (f64::from(sum) + w) as f32;
        tolerance += 2e-7;
    }
    (f64::from(sum) - 1.0).abs() <= tolerance
}

/// One vertex's skin influences made to conform, in place: `slots` holds
/// (joint, raw weight) in the validator's order (component by component,
/// set by set); `unit` is the raw weight 1.0 of normalized integer weights,
/// `None` for float weights. A joint named twice keeps its first slot with
/// the weights summed; a slot of weight 0 names joint 0; the weights sum to
/// 1 (float: within the validator's tolerance, the residual on the largest
/// weight; integer: exactly `unit`); a vertex with no weight at all gets
/// weight 1 on its first slot's joint. A vertex already conforming is left
/// as it is. Returns whether it changed.
pub fn conform_influences(slots: &mut [(u64, f64)], unit: Option<u64>) -> bool {
    let real = |w: f64| unit.map_or(w, |u| w / u as f64);
    let dequantized: Vec<(u64, f64)> = slots.iter().map(|&(j, w)| (j, real(w))).collect();
    let mut used: Vec<u64> = Vec::with_capacity(slots.len());
    let repeated = slots.iter().any(|&(j, w)| {
        if w == 0.0 {
            return false;
        }
        let r = used.contains(&j);
        used.push(j);
        r
    });
    let zero_named = slots.iter().any(|&(j, w)| w == 0.0 && j != 0);
    if !repeated && !zero_named && weights_sum_ok(&dequantized) {
        return false;
    }
    let before = slots.to_vec();
    // Merge repeated joints into their first slot.
    for k in 0..slots.len() {
        if slots[k].1 == 0.0 {
            continue;
        }
        if let Some(first) = (0..k).find(|&f| slots[f].1 != 0.0 && slots[f].0 == slots[k].0) {
            slots[first].1 += slots[k].1;
            slots[k].1 = 0.0;
        }
    }
    // No weight at all: the first influence's joint takes it whole (the
    // importer reads such a vertex so).
    if let Some(first) = slots
        .first_mut()
        .filter(|_| before.iter().all(|s| s.1 == 0.0))
    {
        first.1 = unit.map_or(1.0, |u| u as f64);
    }
    let total: f64 = slots.iter().map(|s| s.1).sum();
    if total > 0.0 && total.is_finite() {
        match unit {
            Some(unit) => {
                // Largest remainder: the integer weights sum to `unit`.
                let unit_f = unit as f64;
                let exact: Vec<f64> = slots.iter().map(|s| s.1 * unit_f / total).collect();
                let mut raw: Vec<u64> = exact.iter().map(|x| x.floor() as u64).collect();
                let short = unit.saturating_sub(raw.iter().sum());
                let mut order: Vec<usize> = (0..slots.len()).collect();
                order.sort_by(|&a, &b| {
                    (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor()))
                });
                for &k in order.iter().take(short as usize) {
                    raw[k] += 1;
                }
                for (s, r) in slots.iter_mut().zip(raw) {
                    s.1 = r as f64;
                }
            }
            None => {
                for s in slots.iter_mut() {
                    s.1 = f64::from((s.1 / total) as f32);
                }
                let largest = (0..slots.len())
                    .max_by(|&a, &b| slots[a].1.total_cmp(&slots[b].1))
                    .unwrap_or(0);
                for _ in 0..8 {
                    if weights_sum_ok(slots) {
                        break;
                    }
                    let sum = slots
                        .iter()
                        .filter(|s| s.1 != 0.0)
                        .fold(0f32, |acc, s| (f64::from(acc) + s.1) as f32);
                    let residual = 1.0 - f64::from(sum);
                    let w = slots[largest].1 as f32;
                    let mut next = (f64::from(w) + residual) as f32;
                    if next == w {
                        next = if residual > 0.0 {
                            w.next_up()
                        } else {
                            w.next_down()
                        };
                    }
                    slots[largest].1 = f64::from(next);
                }
            }
        }
    }
    for s in slots.iter_mut() {
        if s.1 == 0.0 {
            s.0 = 0;
        }
    }
    slots != before.as_slice()
}

impl Glb {
    /// Makes the data the Khronos glTF validator checks conform, changing
    /// nothing a viewer sees, before the document is written (`bake` and
    /// `rig` write copies of files whose data may not conform):
    ///
    /// - skin influences of every primitive, across its `JOINTS_n` and
    ///   `WEIGHTS_n` sets: a joint named twice in a vertex once (weights
    ///   summed), joint 0 wherever the weight is 0, weights summing to 1
    ///   (ACCESSOR_JOINTS_INDEX_DUPLICATE, ACCESSOR_JOINTS_USED_ZERO_WEIGHT,
    ///   ACCESSOR_WEIGHTS_NON_NORMALIZED);
    /// - a vertex without any weight weighted 1 to its first influence's
    ///   joint, as secmo reads it and three.js's glTF loader makes it
    ///   (`SkinnedMesh.normalizeSkinWeights`);
    /// - rotation keys of animation samplers of unit length (for
    ///   CUBICSPLINE the values, not the tangents;
    ///   ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION);
    /// - animation key times increasing: a repeated time (a step) moved up
    ///   by one float32 step past the key before it
    ///   (ACCESSOR_ANIMATION_INPUT_NON_INCREASING);
    /// - `min`/`max` of every accessor that has them recomputed from its
    ///   data, and added to animation inputs and `POSITION` accessors that
    ///   lack them (ACCESSOR_MIN_MISMATCH, ACCESSOR_MAX_MISMATCH,
    ///   ..._ACCESSOR_WITHOUT_BOUNDS).
    ///
    /// Sparse accessors and accessors without a buffer view are left as they
    /// are. Data is rewritten in place, honouring `byteStride`; an accessor
    /// shared by several primitives or samplers is processed once.
    pub fn conform(&mut self) {
        self.conform_skins();
        self.conform_rotations();
        self.conform_times();
        self.conform_bounds();
    }

    fn conform_times(&mut self) {
        let mut inputs = std::collections::BTreeSet::new();
        for animation in self.json["animations"].as_array().into_iter().flatten() {
            for sampler in animation["samplers"].as_array().into_iter().flatten() {
                inputs.extend(sampler["input"].as_u64().map(|a| a as usize));
            }
        }
        for input in inputs {
            let Some(l) = self.layout(input) else {
                continue;
            };
            if l.component_type != FLOAT || l.width != 1 {
                continue;
            }
            let mut previous: Option<f32> = None;
            for e in 0..l.count {
                let mut t = self.get(&l, e, 0) as f32;
                // `<=`: a run of one time becomes a run of float steps.
                if let Some(p) = previous.filter(|&p| t <= p) {
                    t = p.next_up();
                    self.set(&l, e, 0, f64::from(t));
                }
                previous = Some(t);
            }
        }
    }

    fn layout(&self, accessor: usize) -> Option<Layout> {
        let a = self.json["accessors"].get(accessor)?;
        if a.get("sparse").is_some() {
            return None;
        }
        let view = &self.json["bufferViews"][a["bufferView"].as_u64()? as usize];
        if view["buffer"].as_u64() != Some(0) {
            return None;
        }
        let component_type = a["componentType"].as_u64()? as u32;
        let size = match component_type {
            5120 | 5121 => 1,
            5122 | UNSIGNED_SHORT => 2,
            UNSIGNED_INT | FLOAT => 4,
            _ => return None,
        };
        let kind = a["type"].as_str()?;
        // Matrices of 1- and 2-byte components pad their columns; not read.
        if kind.starts_with("MAT") && size < 4 {
            return None;
        }
        let width = components(kind);
        let count = usize::try_from(a["count"].as_u64()?).ok()?;
        let view_start = usize::try_from(view["byteOffset"].as_u64().unwrap_or(0)).ok()?;
        let view_len = usize::try_from(view["byteLength"].as_u64()?).ok()?;
        let start =
            view_start.checked_add(usize::try_from(a["byteOffset"].as_u64().unwrap_or(0)).ok()?)?;
        let stride = match view["byteStride"].as_u64() {
            Some(s) => usize::try_from(s).ok()?,
            None => width * size,
        };
        let end = if count == 0 {
            start
        } else {
            start
                .checked_add(stride.checked_mul(count - 1)?)?
                .checked_add(width * size)?
        };
        if count == 0 || end > view_start.checked_add(view_len)? || end > self.bin.len() {
            return None;
        }
        Some(Layout {
            start,
            stride,
            count,
            width,
            component_type,
            size,
            normalized: a["normalized"].as_bool().unwrap_or(false),
        })
    }

    fn get(&self, l: &Layout, e: usize, c: usize) -> f64 {
        let at = l.at(e, c);
        let b = &self.bin[at..at + l.size];
        match l.component_type {
            5120 => f64::from(b[0] as i8),
            5121 => f64::from(b[0]),
            5122 => f64::from(i16::from_le_bytes([b[0], b[1]])),
            UNSIGNED_SHORT => f64::from(u16::from_le_bytes([b[0], b[1]])),
            UNSIGNED_INT => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            _ => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        }
    }

    fn set(&mut self, l: &Layout, e: usize, c: usize, v: f64) {
        let at = l.at(e, c);
        let b = &mut self.bin[at..at + l.size];
        match l.component_type {
            5120 => b.copy_from_slice(&(v as i8).to_le_bytes()),
            5121 => b.copy_from_slice(&(v as u8).to_le_bytes()),
            5122 => b.copy_from_slice(&(v as i16).to_le_bytes()),
            UNSIGNED_SHORT => b.copy_from_slice(&(v as u16).to_le_bytes()),
            UNSIGNED_INT => b.copy_from_slice(&(v as u32).to_le_bytes()),
            _ => b.copy_from_slice(&(v as f32).to_le_bytes()),
        }
    }

    /// The raw components of each element of `accessor` (integers as they
    /// are stored, not normalized), or `None` for a sparse accessor, one
    /// without a buffer view or one whose data does not fit.
    #[must_use]
    pub fn elements(&self, accessor: usize) -> Option<Vec<Vec<f64>>> {
        let l = self.layout(accessor)?;
        Some(
            (0..l.count)
                .map(|e| (0..l.width).map(|c| self.get(&l, e, c)).collect())
                .collect(),
        )
    }

    /// Skin influences of every primitive, all its sets together (of one
    /// weight type; others are left), each distinct list of sets once.
    fn conform_skins(&mut self) {
        let mut sets_seen = std::collections::HashSet::new();
        let mut all_sets = Vec::new();
        for mesh in self.json["meshes"].as_array().into_iter().flatten() {
            for primitive in mesh["primitives"].as_array().into_iter().flatten() {
                let sets = skin_sets(&primitive["attributes"]);
                if !sets.is_empty() && sets_seen.insert(sets.clone()) {
                    all_sets.push(sets);
                }
            }
        }
        for sets in all_sets {
            let layouts: Option<Vec<(Layout, Layout)>> = sets
                .iter()
                .map(|&(j, w)| Some((self.layout(j)?, self.layout(w)?)))
                .collect();
            let Some(layouts) = layouts else { continue };
            let count = layouts[0].0.count;
            let fits = layouts.iter().all(|(j, w)| {
                j.count == count
                    && w.count == count
                    && j.width == 4
                    && w.width == 4
                    && matches!(j.component_type, 5121 | UNSIGNED_SHORT)
                    && (w.component_type == FLOAT
                        || (w.normalized && unit_of(w.component_type).is_some()))
            });
            // One weight type across the sets, for one normalization.
            if !fits
                || layouts
                    .iter()
                    .any(|(_, w)| w.component_type != layouts[0].1.component_type)
            {
                continue;
            }
            let unit = unit_of(layouts[0].1.component_type).filter(|_| layouts[0].1.normalized);
            let order: Vec<(usize, usize)> = (0..4)
                .flat_map(|c| (0..layouts.len()).map(move |s| (s, c)))
                .collect();
            let mut slots = vec![(0u64, 0f64); order.len()];
            for v in 0..count {
                for (slot, &(s, c)) in slots.iter_mut().zip(&order) {
                    let (j, w) = &layouts[s];
                    *slot = (self.get(j, v, c) as u64, self.get(w, v, c));
                }
                if conform_influences(&mut slots, unit) {
                    for (&(joint, weight), &(s, c)) in slots.iter().zip(&order) {
                        let (j, w) = layouts[s];
                        self.set(&j, v, c, joint as f64);
                        self.set(&w, v, c, weight);
                    }
                }
            }
        }
    }

    fn conform_rotations(&mut self) {
        let mut outputs = std::collections::BTreeSet::new();
        for animation in self.json["animations"].as_array().into_iter().flatten() {
            for channel in animation["channels"].as_array().into_iter().flatten() {
                let path = crate::import::pointer_target(channel)
                    .map_or_else(|| channel["target"]["path"].as_str(), |(_, p)| Some(p));
                if path != Some("rotation") {
                    continue;
                }
                let Some(s) = channel["sampler"].as_u64() else {
                    continue;
                };
                let sampler = &animation["samplers"][s as usize];
                if let Some(output) = sampler["output"].as_u64() {
                    let cubic = sampler["interpolation"].as_str() == Some("CUBICSPLINE");
                    outputs.insert((output as usize, cubic));
                }
            }
        }
        for (output, cubic) in outputs {
            let Some(l) = self.layout(output) else {
                continue;
            };
            if l.component_type != FLOAT || l.width != 4 {
                continue;
            }
            for e in 0..l.count {
                if cubic && e % 3 != 1 {
                    continue;
                }
                let q: Vec<f64> = (0..4).map(|c| self.get(&l, e, c)).collect();
                let length = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                if length > 0.0 && length.is_finite() && (length - 1.0).abs() > 1e-6 {
                    for (c, x) in q.iter().enumerate() {
                        self.set(&l, e, c, x / length);
                    }
                }
            }
        }
    }

    fn conform_bounds(&mut self) {
        let mut required = std::collections::HashSet::new();
        for animation in self.json["animations"].as_array().into_iter().flatten() {
            for sampler in animation["samplers"].as_array().into_iter().flatten() {
                required.extend(sampler["input"].as_u64());
            }
        }
        for mesh in self.json["meshes"].as_array().into_iter().flatten() {
            for primitive in mesh["primitives"].as_array().into_iter().flatten() {
                required.extend(primitive["attributes"]["POSITION"].as_u64());
                for target in primitive["targets"].as_array().into_iter().flatten() {
                    required.extend(target["POSITION"].as_u64());
                }
            }
        }
        let count = self.json["accessors"].as_array().map_or(0, Vec::len);
        for a in 0..count {
            let accessor = &self.json["accessors"][a];
            let (has_min, has_max) = (accessor.get("min").is_some(), accessor.get("max").is_some());
            let needed = required.contains(&(a as u64));
            if !(has_min || has_max || needed) {
                continue;
            }
            let Some(l) = self.layout(a) else { continue };
            let mut lo = vec![f64::INFINITY; l.width];
            let mut hi = vec![f64::NEG_INFINITY; l.width];
            for e in 0..l.count {
                for c in 0..l.width {
                    let v = self.get(&l, e, c);
                    if v.is_finite() {
                        lo[c] = lo[c].min(v);
                        hi[c] = hi[c].max(v);
                    }
                }
            }
            if lo.iter().chain(&hi).any(|v| !v.is_finite()) {
                continue;
            }
            let number = |v: f64| {
                if l.component_type == FLOAT {
                    json!(v)
                } else {
                    json!(v as i64)
                }
            };
            let accessor = &mut self.json["accessors"][a];
            if has_min || needed {
                accessor["min"] = Value::Array(lo.into_iter().map(number).collect());
            }
            if has_max || needed {
                accessor["max"] = Value::Array(hi.into_iter().map(number).collect());
            }
        }
    }
}

/// A primitive's skin sets as `(JOINTS_n, WEIGHTS_n)` accessor indices,
/// n = 0, 1, … while both are present.
#[must_use]
pub fn skin_sets(attributes: &Value) -> Vec<(usize, usize)> {
    let mut sets = Vec::new();
    for n in 0.. {
        let (Some(j), Some(w)) = (
            attributes[format!("JOINTS_{n}")].as_u64(),
            attributes[format!("WEIGHTS_{n}")].as_u64(),
        ) else {
            break;
        };
        sets.push((j as usize, w as usize));
    }
    sets
}

fn components(kind: &str) -> usize {
    match kind {
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        _ => 1,
    }
}

/// GLB chunks are 4-byte aligned: JSON pads with spaces, BIN with zeros.
fn pad4(bytes: &mut Vec<u8>, with: u8) {
    bytes.resize(bytes.len().next_multiple_of(4), with);
}

/// One vertex's four skin influences as the glTF validator wants them
/// (glTF 2.0 §3.7.3.3): each joint at most once (duplicates merged), a joint
/// index of 0 wherever the weight is 0, weights sorted from the largest and
/// summing to 1. The skinned result is the same.
#[must_use]
pub fn clean_influences(joints: [u32; 4], weights: [f32; 4]) -> ([u32; 4], [f32; 4]) {
    let mut merged: Vec<(u32, f32)> = Vec::with_capacity(4);
    for (j, w) in joints.into_iter().zip(weights) {
        if w.is_nan() || w <= 0.0 {
            continue;
        }
        match merged.iter_mut().find(|(m, _)| *m == j) {
            Some((_, total)) => *total += w,
            None => merged.push((j, w)),
        }
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let sum: f32 = merged.iter().map(|m| m.1).sum();
    let mut out = ([0u32; 4], [0f32; 4]);
    for (k, (j, w)) in merged.into_iter().enumerate() {
        out.0[k] = j;
        out.1[k] = if sum > 0.0 { w / sum } else { 0.0 };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{clean_influences, conform_influences, weights_sum_ok, Glb};
    use serde_json::json;

    #[test]
    fn influences_are_unique_normalized_and_zero_indexed_where_unused() {
        // The demo's first tail ring: its "previous" bone is its own bone.
        let (j, w) = clean_influences([1, 1, 2, 0], [0.5, 0.5, 0.0, 0.0]);
        assert_eq!(j, [1, 0, 0, 0]);
        assert_eq!(w, [1.0, 0.0, 0.0, 0.0]);
        let (j, w) = clean_influences([3, 7, 3, 9], [0.2, 0.4, 0.1, 0.0]);
        assert_eq!(j, [7, 3, 0, 0]);
        assert!((w[0] - 4.0 / 7.0).abs() < 1e-6 && (w[1] - 3.0 / 7.0).abs() < 1e-6);
        assert_eq!(w[2], 0.0);
        assert_eq!(clean_influences([4; 4], [0.0; 4]), ([0; 4], [0.0; 4]));
    }

    /// Each joint's share of the vertex (weight over the sum): what skinning
    /// uses once a viewer normalizes the weights.
    fn shares(slots: &[(u64, f64)]) -> std::collections::BTreeMap<u64, f64> {
        let total: f64 = slots.iter().map(|s| s.1).sum();
        let mut m = std::collections::BTreeMap::new();
        for &(j, w) in slots.iter().filter(|s| s.1 != 0.0) {
            *m.entry(j).or_insert(0.0) += w / total;
        }
        m
    }

    fn assert_conforms(slots: &[(u64, f64)], unit: Option<u64>) {
        let real: Vec<(u64, f64)> = slots
            .iter()
            .map(|&(j, w)| (j, unit.map_or(w, |u| w / u as f64)))
            .collect();
        assert!(weights_sum_ok(&real), "{slots:?}");
        if let Some(u) = unit {
            assert_eq!(
                slots.iter().map(|s| s.1 as u64).sum::<u64>(),
                u,
                "{slots:?}"
            );
        }
        let mut named = Vec::new();
        for &(j, w) in slots {
            if w == 0.0 {
                assert_eq!(j, 0, "{slots:?}");
            } else {
                assert!(!named.contains(&j), "{slots:?}");
                named.push(j);
            }
        }
    }

    #[test]
    fn float_weights_are_merged_zero_indexed_and_normalized() {
        let mut slots = [(3, 0.5), (3, 0.25), (5, 0.375), (7, 0.0)];
        let before = slots;
        assert!(conform_influences(&mut slots, None));
        assert_conforms(&slots, None);
        assert_eq!(slots[0].0, 3);
        assert_eq!((slots[1], slots[3]), ((0, 0.0), (0, 0.0)));
        assert!((slots[0].1 - 0.75 / 1.125).abs() < 1e-7, "{slots:?}");
        assert!((slots[2].1 - 0.375 / 1.125).abs() < 1e-7, "{slots:?}");
        // What a viewer skins with is the same.
        for (j, share) in shares(&before) {
            assert!((shares(&slots)[&j] - share).abs() < 1e-6);
        }
        // Conforming data is left bit for bit.
        let mut good = [(1, 0.5), (2, 0.5), (0, 0.0), (0, 0.0)];
        assert!(!conform_influences(&mut good, None));
        // No weight at all: the first slot's joint takes it whole (float
        // and normalized integer weights).
        let mut none = [(4, 0.0), (3, 0.0), (0, 0.0), (0, 0.0)];
        assert!(conform_influences(&mut none, None));
        assert_eq!(none, [(4, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)]);
        let mut none = [(4, 0.0), (3, 0.0), (0, 0.0), (0, 0.0)];
        assert!(conform_influences(&mut none, Some(255)));
        assert_eq!(none, [(4, 255.0), (0, 0.0), (0, 0.0), (0, 0.0)]);
        // Many vertices of two sets (eight slots), weights off by up to 10 %.
        let mut seed = 7u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            f64::from(seed % 1000) / 1000.0
        };
        for _ in 0..2000 {
            let mut slots: Vec<(u64, f64)> = (0..8)
                .map(|_| {
                    let w = if next() < 0.3 { 0.0 } else { next() };
                    ((next() * 6.0) as u64, f64::from(w as f32))
                })
                .collect();
            if slots.iter().all(|s| s.1 == 0.0) {
                slots[0].1 = 0.5;
            }
            let before = slots.clone();
            conform_influences(&mut slots, None);
            assert_conforms(&slots, None);
            let (a, b) = (shares(&before), shares(&slots));
            assert_eq!(a.len(), b.len(), "{before:?} {slots:?}");
            for (j, share) in a {
                assert!((b[&j] - share).abs() < 1e-6, "{before:?} {slots:?}");
            }
        }
    }

    #[test]
    fn integer_weights_sum_exactly_to_one() {
        // u8: joint 1 twice (200 + 100), joint 2 named with weight 0.
        let mut slots = [(1, 200.0), (1, 100.0), (2, 0.0), (4, 10.0)];
        assert!(conform_influences(&mut slots, Some(255)));
        assert_eq!(slots, [(1, 247.0), (0, 0.0), (0, 0.0), (4, 8.0)]);
        assert_conforms(&slots, Some(255));
        // u16 weights summing to 65534 (one short), over two sets.
        let mut slots = [
            (0, 30000.0),
            (8, 0.0),
            (1, 20000.0),
            (0, 0.0),
            (2, 15534.0),
            (0, 0.0),
            (0, 0.0),
            (0, 0.0),
        ];
        assert!(conform_influences(&mut slots, Some(65535)));
        assert_conforms(&slots, Some(65535));
        // The missing 1 goes to the largest remainder (30000.46).
        assert_eq!(slots[0], (0, 30001.0));
        assert_eq!(
            (slots[1], slots[2], slots[4]),
            ((0, 0.0), (1, 20000.0), (2, 15534.0))
        );
        // A weight that rounds to 0 leaves its joint 0.
        let mut slots = [(1, 255.0), (2, 255.0), (3, 1.0), (0, 0.0)];
        assert!(conform_influences(&mut slots, Some(255)));
        assert_conforms(&slots, Some(255));
        let mut good = [(1, 128.0), (2, 127.0), (0, 0.0), (0, 0.0)];
        assert!(!conform_influences(&mut good, Some(255)));
    }

    #[test]
    fn the_document_pass_reads_interleaved_shared_data_and_leaves_sparse_alone() {
        // Two primitives share one interleaved view of u16 normalized
        // weights and u8 joints (stride 12), two sets; a CUBICSPLINE
        // rotation track has tangents of any length; a POSITION has no
        // bounds, another accessor wrong ones, a sparse one wrong ones.
        let mut glb = Glb::new(json!({"asset": {"version": "2.0"}}));
        let vertex = |j: [u8; 4], w: [u16; 4]| {
            let mut b: Vec<u8> = j.to_vec();
            b.extend(w.iter().flat_map(|x| x.to_le_bytes()));
            b
        };
        let mut data = Vec::new();
        // Vertex 0: set 0 (joint 2 twice), set 1 (joint 3, weight short).
        data.extend(vertex([2, 2, 5, 0], [20000, 20000, 0, 0]));
        data.extend(vertex([3, 0, 0, 0], [20000, 0, 0, 0]));
        // Vertex 1: conforming.
        data.extend(vertex([1, 0, 0, 0], [65535, 0, 0, 0]));
        data.extend(vertex([0, 0, 0, 0], [0, 0, 0, 0]));
        // Set n of vertex v at 24 v + 12 n: sets are two accessors at
        // byteOffset 0 and 12 of a view with stride 24.
        let view = glb.push_view(&data);
        glb.json["bufferViews"][view]["byteStride"] = json!(24);
        for offset in [0, 12] {
            glb.json["accessors"].as_array_mut().unwrap().extend([
                json!({"bufferView": view, "byteOffset": offset, "componentType": 5121,
                       "count": 2, "type": "VEC4"}),
                json!({"bufferView": view, "byteOffset": offset + 4, "componentType": 5123,
                       "normalized": true, "count": 2, "type": "VEC4"}),
            ]);
        }
        let position = glb.push_floats(&[0.0, 1.0, 2.0, -3.0, 4.0, 5.0], "VEC3", false);
        let attributes = json!({"POSITION": position, "JOINTS_0": 0, "WEIGHTS_0": 1,
                                "JOINTS_1": 2, "WEIGHTS_1": 3});
        glb.json["meshes"] =
            json!([{"primitives": [{"attributes": attributes}, {"attributes": attributes}]}]);
        let times = glb.push_floats(&[0.0, 1.0], "SCALAR", false);
        let keys: Vec<f32> = [
            [3.0, 0.0, 0.0, 0.0], // in-tangent
            [0.0, 0.0, 0.0, 2.0], // value
            [0.0, 4.0, 0.0, 0.0], // out-tangent
            [5.0, 0.0, 0.0, 0.0],
            [0.0, 0.6, 0.0, 0.8],
            [0.0, 0.0, 6.0, 0.0],
        ]
        .concat();
        let rotations = glb.push_floats(&keys, "VEC4", false);
        glb.json["animations"] = json!([{"samplers": [{"input": times, "output": rotations,
                                                      "interpolation": "CUBICSPLINE"}],
                                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}]);
        let wrong = glb.push_floats(&[1.0, 2.0], "SCALAR", false);
        glb.json["accessors"][wrong]["min"] = json!([0.0]);
        glb.json["accessors"][wrong]["max"] = json!([7.0]);
        let sparse = glb.push_floats(&[1.0, 2.0], "SCALAR", false);
        glb.json["accessors"][sparse]["min"] = json!([-9.0]);
        let indices = glb.push_view(&0u32.to_le_bytes());
        let values = glb.push_view(&5f32.to_le_bytes());
        glb.json["accessors"][sparse]["sparse"] = json!({"count": 1,
            "indices": {"bufferView": indices, "componentType": 5125},
            "values": {"bufferView": values}});
        let (joints_0, weights_0) = (glb.elements(0).unwrap(), glb.elements(1).unwrap());
        assert_eq!(joints_0[0], [2.0, 2.0, 5.0, 0.0]);
        assert_eq!(weights_0[0], [20000.0, 20000.0, 0.0, 0.0]);

        glb.conform();
        let e = |a: usize| glb.elements(a).unwrap();
        // Joint 2: 40000 of 60000 → 43690; joint 3: 20000 → 21845.
        assert_eq!(e(0)[0], [2.0, 0.0, 0.0, 0.0]);
        assert_eq!(e(1)[0], [43690.0, 0.0, 0.0, 0.0]);
        assert_eq!(e(2)[0], [3.0, 0.0, 0.0, 0.0]);
        assert_eq!(e(3)[0], [21845.0, 0.0, 0.0, 0.0]);
        assert_eq!(e(1)[1], [65535.0, 0.0, 0.0, 0.0]);
        assert_eq!(e(2)[1], [0.0; 4]);
        // Values of unit length, tangents as they were.
        let keys = e(rotations);
        assert_eq!(keys[0], [3.0, 0.0, 0.0, 0.0]);
        assert_eq!(keys[1], [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(keys[2], [0.0, 4.0, 0.0, 0.0]);
        assert_eq!(keys[5], [0.0, 0.0, 6.0, 0.0]);
        let at = |a: usize, k: &str| glb.json["accessors"][a][k].clone();
        assert_eq!(
            (at(position, "min"), at(position, "max")),
            (json!([-3.0, 1.0, 2.0]), json!([0.0, 4.0, 5.0]))
        );
        assert_eq!(
            (at(times, "min"), at(times, "max")),
            (json!([0.0]), json!([1.0]))
        );
        assert_eq!(
            (at(wrong, "min"), at(wrong, "max")),
            (json!([1.0]), json!([2.0]))
        );
        // The weights accessors had no bounds and get none; sparse is kept.
        assert!(glb.json["accessors"][1].get("min").is_none());
        assert_eq!(
            (at(sparse, "min"), at(sparse, "max")),
            (json!([-9.0]), serde_json::Value::Null)
        );
    }
}
