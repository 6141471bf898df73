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
        if !bytes.starts_with(b"glTF") || bytes.len() < 20 {
            return Err(anyhow::anyhow!(
                "expected a GLB file (binary glTF); this is not one"
            ));
        }
        let u32_at = |i: usize| {
            u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]) as usize
        };
        let json_len = u32_at(12);
        if 20 + json_len > bytes.len() {
            return Err(anyhow::anyhow!("truncated GLB"));
        }
        let mut json: Value = serde_json::from_slice(&bytes[20..20 + json_len])
            .map_err(|e| anyhow::anyhow!("{e}"))?;
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
        let bin_start = 20 + json_len;
        let bin = if bin_start + 8 <= bytes.len() {
            let len = u32_at(bin_start);
            bytes
                .get(bin_start + 8..bin_start + 8 + len)
                .ok_or_else(|| anyhow::anyhow!("truncated GLB binary chunk"))?
                .to_vec()
        } else {
            Vec::new()
        };
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
    use super::clean_influences;

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
}
