//! The GLB container (binary glTF 2.0, §4.4 of the glTF specification): a
//! 12-byte header (`glTF`, version, total length), a JSON chunk, and an
//! optional BIN chunk. The one reader of it in secmo: the VRM reader
//! ([`crate::vrm::gltf_json`]) and the tool's import and writers use it.
//! Every length is checked against the bytes with checked arithmetic, so a
//! hostile header gives an error, never a panic or an out-of-bounds read.

/// The chunks of a GLB, borrowed from its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunks<'a> {
    /// The JSON chunk (the glTF document's text).
    pub json: &'a [u8],
    /// The BIN chunk, when the second chunk is one.
    pub bin: Option<&'a [u8]>,
}

const MAGIC: &[u8; 4] = b"glTF";
const JSON: u32 = 0x4E4F_534A;
const BIN: u32 = 0x004E_4942;
/// The file header (12 bytes) and the first chunk's header (8 bytes).
const FIRST_CHUNK: usize = 20;

/// Whether `bytes` start as a GLB does (the `glTF` magic).
pub fn is_glb(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

fn u32_at(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

/// Splits a GLB into its chunks. A second chunk that is not BIN (an
/// extension's) is ignored; a file with one chunk has no BIN.
pub fn split(bytes: &[u8]) -> Result<Chunks<'_>, String> {
    if !is_glb(bytes) {
        return Err("not a GLB file: it does not start with `glTF`".into());
    }
    let (Some(total), Some(json_length), Some(json_kind)) =
        (u32_at(bytes, 8), u32_at(bytes, 12), u32_at(bytes, 16))
    else {
        return Err("truncated: shorter than a GLB header".into());
    };
    if total > bytes.len() {
        return Err(format!(
            "truncated: the file is shorter than its header says ({} bytes, the header says {total})",
            bytes.len()
        ));
    }
    if json_kind != JSON as usize {
        return Err("the first chunk is not JSON".into());
    }
    let json_end = FIRST_CHUNK
        .checked_add(json_length)
        .filter(|&end| end <= bytes.len())
        .ok_or_else(|| {
            format!(
                "truncated: the JSON chunk of {json_length} bytes runs past the end of the file"
            )
        })?;
    let json = &bytes[FIRST_CHUNK..json_end];
    let (Some(bin_length), Some(bin_kind)) = (u32_at(bytes, json_end), u32_at(bytes, json_end + 4))
    else {
        return Ok(Chunks { json, bin: None });
    };
    if bin_kind != BIN as usize {
        return Ok(Chunks { json, bin: None });
    }
    let start = json_end + 8;
    let bin = start
        .checked_add(bin_length)
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| {
            format!("truncated: the BIN chunk of {bin_length} bytes runs past the end of the file")
        })?;
    Ok(Chunks {
        json,
        bin: Some(bin),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glb(json: &[u8], bin: Option<(u32, &[u8])>) -> Vec<u8> {
        let mut out = b"glTF".to_vec();
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&JSON.to_le_bytes());
        out.extend_from_slice(json);
        if let Some((kind, data)) = bin {
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&kind.to_le_bytes());
            out.extend_from_slice(data);
        }
        let total = out.len() as u32;
        out[8..12].copy_from_slice(&total.to_le_bytes());
        out
    }

    #[test]
    fn splits_json_and_bin() {
        let bytes = glb(b"{}  ", Some((BIN, &[1, 2, 3, 4])));
        let chunks = split(&bytes).unwrap();
        assert_eq!(chunks.json, b"{}  ");
        assert_eq!(chunks.bin, Some(&[1u8, 2, 3, 4][..]));
        assert_eq!(split(&glb(b"{}  ", None)).unwrap().bin, None);
        // An extension's chunk in second place is not BIN.
        assert_eq!(
            split(&glb(b"{}  ", Some((0x1234, &[0; 4])))).unwrap().bin,
            None
        );
    }

    #[test]
    fn refuses_what_is_not_there() {
        let good = glb(b"{}  ", Some((BIN, &[0; 8])));
        assert!(split(b"{\"asset\":{}}").unwrap_err().contains("not a GLB"));
        assert!(split(&good[..16])
            .unwrap_err()
            .contains("shorter than a GLB header"));
        // Cut inside the BIN chunk: the header's total no longer fits.
        assert!(split(&good[..good.len() - 2])
            .unwrap_err()
            .contains("header says"));
        let mut huge_json = good.clone();
        huge_json[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(split(&huge_json).unwrap_err().contains("JSON chunk"));
        let mut huge_bin = good.clone();
        huge_bin[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(split(&huge_bin).unwrap_err().contains("BIN chunk"));
        let mut not_json = good;
        not_json[16..20].copy_from_slice(&BIN.to_le_bytes());
        assert_eq!(split(&not_json).unwrap_err(), "the first chunk is not JSON");
    }
}
