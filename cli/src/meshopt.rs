//! Decoding of meshopt-compressed buffer views (`EXT_meshopt_compression`
//! and `KHR_meshopt_compression`), written from the extensions'
//! specifications (Appendix A, bitstream: attribute codec versions 0 and 1,
//! triangles, indices; Appendix B, filters: octahedral, quaternion,
//! exponential, and KHR's colour): gltfpack and glTF-Transform write them,
//! and they compress any buffer view — clips and inverse binds as well as
//! meshes — so a file that requires one cannot be read without it.
//!
//! Every read is bounds-checked and every count is checked against the
//! stream before anything is allocated past it: a malformed stream is an
//! error naming what is wrong, never a panic (the input is a file from the
//! internet; fuzz/gltf_import runs these functions).

/// Decodes a mode 0 (attributes) stream of `count` elements of `stride`
/// bytes (Appendix A, "Mode 0: attributes"): version 0 (header 0xa0, the
/// only one `EXT_meshopt_compression` allows) and version 1 (0xa1,
/// `KHR_meshopt_compression`: per-byte control modes, and 2-byte and
/// rotated-XOR deltas per 4-byte channel).
pub fn decode_attributes(src: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, String> {
    if stride == 0 || stride > 256 || !stride.is_multiple_of(4) {
        return Err(format!(
            "byteStride {stride} must be a multiple of 4 up to 256"
        ));
    }
    let v1 = match src.first() {
        Some(0xa0) => false,
        Some(0xa1) => true,
        Some(h) => {
            return Err(format!(
                "attribute stream header {h:#04x} is not 0xa0 or 0xa1"
            ))
        }
        None => return Err("the attribute stream is empty".into()),
    };
    // The tail: the baseline element (and in version 1 a mode per 4-byte
    // channel), padded in front to at least 32 (version 1: 24) bytes.
    let tail = stride + if v1 { stride / 4 } else { 0 };
    let padded = tail.max(if v1 { 24 } else { 32 });
    if src.len() < 1 + padded {
        return Err(format!(
            "the attribute stream has {} bytes, fewer than its header and {padded}-byte tail",
            src.len()
        ));
    }
    let end = src.len() - padded;
    let mut last = src[src.len() - tail..][..stride].to_vec();
    let channels = &src[src.len() - tail + stride..];
    for (c, &mode) in channels.iter().enumerate() {
        if mode & 15 > 2 || (mode & 15 < 2 && mode >> 4 != 0) {
            return Err(format!("channel {c} has the invalid mode {mode:#04x}"));
        }
    }
    // Each block of up to `max_block` elements takes at least a header byte
    // per byte of the element (version 0) or a control byte per 4 of them
    // (version 1, where a byte may be all zeros and store nothing): a count
    // the stream cannot hold is refused before the output is allocated.
    let max_block = ((8192 / stride) & !15).min(256);
    let least = if v1 { stride / 4 } else { stride };
    if count.div_ceil(max_block).saturating_mul(least) > end - 1 {
        return Err(format!(
            "{count} elements of {stride} bytes cannot fit in {} bytes",
            src.len()
        ));
    }
    let mut out = vec![0u8; count * stride];
    let mut deltas = vec![0u8; stride * 256];
    let mut pos = 1;
    let mut done = 0;
    let byte = |at: usize| -> Result<u8, String> {
        if at < end {
            Ok(src[at])
        } else {
            Err("the attribute stream ends inside a block".into())
        }
    };
    while done < count {
        let block = (count - done).min(max_block);
        let groups = block.div_ceil(16);
        let control = pos;
        if v1 {
            pos += stride / 4;
            if pos > end {
                return Err("the attribute stream ends inside a control header".into());
            }
        }
        for k in 0..stride {
            let d = &mut deltas[k * 256..k * 256 + 256];
            d.fill(0);
            // Bit widths by a group's 2 header bits.
            let widths: [u32; 4] = if !v1 {
                [0, 2, 4, 8]
            } else {
                match (src[control + k / 4] >> ((k % 4) * 2)) & 3 {
                    0 => [0, 1, 2, 4],
                    1 => [1, 2, 4, 8],
                    2 => continue, // every delta 0, nothing stored
                    _ => {
                        // Literal: the block's deltas as they are.
                        for (i, x) in d[..block].iter_mut().enumerate() {
                            *x = byte(pos + i)?;
                        }
                        pos += block;
                        continue;
                    }
                }
            };
            let header = pos;
            pos += groups.div_ceil(4);
            if pos > end {
                return Err("the attribute stream ends inside a block header".into());
            }
            for g in 0..groups {
                let width = widths[usize::from((src[header + g / 4] >> ((g % 4) * 2)) & 3)];
                let group = &mut d[g * 16..g * 16 + 16];
                match width {
                    0 => {}
                    8 => {
                        for (i, x) in group.iter_mut().enumerate() {
                            *x = byte(pos + i)?;
                        }
                        pos += 16;
                    }
                    _ => {
                        // Sentinel encoding: 16 deltas of 1, 2 or 4 bits (2
                        // and 4 most significant first, 1 least significant
                        // first); all ones means the delta is the next byte
                        // after them.
                        let per_byte = (8 / width) as usize;
                        let sentinel = (1u8 << width) - 1;
                        let mut extra = pos + 16 / per_byte;
                        for (i, x) in group.iter_mut().enumerate() {
                            let b = byte(pos + i / per_byte)?;
                            let shift = if width == 1 {
                                i % 8
                            } else {
                                8 - width as usize * (i % per_byte + 1)
                            };
                            let v = (b >> shift) & sentinel;
                            *x = if v == sentinel {
                                extra += 1;
                                byte(extra - 1)?
                            } else {
                                v
                            };
                        }
                        pos = extra;
                    }
                }
            }
        }
        // Deltas to values, by 4-byte channel.
        for c in 0..stride / 4 {
            let mode = channels.get(c).copied().unwrap_or(0);
            let k = 4 * c;
            let delta = |b: usize, i: usize| deltas[(k + b) * 256 + i];
            for i in 0..block {
                let at = (done + i) * stride + k;
                match mode & 15 {
                    0 => {
                        for b in 0..4 {
                            // Zigzag, in wrapping 8-bit arithmetic.
                            let d = delta(b, i);
                            let d = if d & 1 != 0 { !(d >> 1) } else { d >> 1 };
                            last[k + b] = last[k + b].wrapping_add(d);
                        }
                    }
                    1 => {
                        for b in [0, 2] {
                            let d = u16::from_le_bytes([delta(b, i), delta(b + 1, i)]);
                            let d = if d & 1 != 0 { !(d >> 1) } else { d >> 1 };
                            let p = u16::from_le_bytes([last[k + b], last[k + b + 1]]);
                            last[k + b..k + b + 2]
                                .copy_from_slice(&p.wrapping_add(d).to_le_bytes());
                        }
                    }
                    _ => {
                        // XOR with the previous value, the delta rotated
                        // right by the mode's high 4 bits.
                        let d = u32::from_le_bytes(std::array::from_fn(|b| delta(b, i)));
                        let p = u32::from_le_bytes(std::array::from_fn(|b| last[k + b]));
                        let v = d.rotate_right(u32::from(mode >> 4)) ^ p;
                        last[k..k + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                out[at..at + 4].copy_from_slice(&last[k..k + 4]);
            }
        }
        done += block;
    }
    if pos != end {
        return Err(format!(
            "{} bytes of the attribute stream are left over before its tail",
            end.saturating_sub(pos)
        ));
    }
    Ok(out)
}

/// Decodes one compressed view: `mode` (`ATTRIBUTES`, `TRIANGLES` or
/// `INDICES`) and, for attributes, `filter`, as the extension object names
/// them.
pub fn decode_view(
    src: &[u8],
    count: usize,
    stride: usize,
    mode: &str,
    filter_name: &str,
) -> Result<Vec<u8>, String> {
    match mode {
        "ATTRIBUTES" => {
            let mut data = decode_attributes(src, count, stride)?;
            filter(&mut data, stride, filter_name)?;
            Ok(data)
        }
        "TRIANGLES" | "INDICES" if filter_name != "NONE" => Err(format!(
            "filter {filter_name:?} on a {mode} view (only NONE is allowed)"
        )),
        "TRIANGLES" => decode_triangles(src, count, stride),
        "INDICES" => decode_indices(src, count, stride),
        other => Err(format!(
            "mode {other:?} is not ATTRIBUTES, TRIANGLES or INDICES"
        )),
    }
}

/// An unsigned LEB128 (varint-7) value of at most 32 bits at `data[*pos]`.
fn leb128(data: &[u8], pos: &mut usize, end: usize) -> Result<u32, String> {
    let mut value = 0u32;
    for shift in (0..35).step_by(7) {
        if *pos >= end {
            return Err("the index stream ends inside a number".into());
        }
        let b = data[*pos];
        *pos += 1;
        value |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("an index number runs past 32 bits".into())
}

fn zigzag(v: u32) -> u32 {
    if v & 1 != 0 {
        !(v >> 1)
    } else {
        v >> 1
    }
}

/// Writes `indices` as `size`-byte little-endian integers (2 or 4).
fn index_bytes(indices: &[u32], size: usize) -> Vec<u8> {
    if size == 2 {
        // The stream decodes 32-bit indices; 16-bit views keep the low bits.
        indices
            .iter()
            .flat_map(|&i| (i as u16).to_le_bytes())
            .collect()
    } else {
        indices.iter().flat_map(|&i| i.to_le_bytes()).collect()
    }
}

fn index_size(stride: usize) -> Result<usize, String> {
    if stride == 2 || stride == 4 {
        Ok(stride)
    } else {
        Err(format!(
            "byteStride {stride} of an index stream must be 2 or 4"
        ))
    }
}

/// Decodes a mode 1 (triangles) stream of `count` indices (Appendix A,
/// "Mode 1: triangles", header 0xe1).
pub fn decode_triangles(src: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, String> {
    let size = index_size(stride)?;
    if !count.is_multiple_of(3) {
        return Err(format!("{count} triangle indices are not a multiple of 3"));
    }
    if src.first() != Some(&0xe1) {
        return Err("the triangle stream's header is not 0xe1".into());
    }
    let triangles = count / 3;
    // Header, a code byte per triangle, the 16-byte table.
    if src.len() < 1 + 16 || triangles > src.len() - 1 - 16 {
        return Err(format!(
            "{triangles} triangles need more than the stream's {} bytes",
            src.len()
        ));
    }
    let end = src.len() - 16;
    let codeaux = &src[end..];
    let codes = &src[1..1 + triangles];
    let mut data = 1 + triangles;
    let (mut next, mut last) = (0u32, 0u32);
    let mut edges = [(0u32, 0u32); 16];
    let mut edge_at = 0usize;
    let mut vertices = [0u32; 16];
    let mut vertex_at = 0usize;
    let mut out = Vec::with_capacity(count);
    let index = |data: &mut usize, last: &mut u32| -> Result<u32, String> {
        let v = leb128(src, data, end)?;
        *last = last.wrapping_add(zigzag(v));
        Ok(*last)
    };
    for &code in codes {
        let (hi, lo) = ((code >> 4) as usize, (code & 15) as usize);
        let edge = |x: usize| edges[(edge_at + 15 - x) & 15];
        let vertex = |y: usize| vertices[(vertex_at + 15 - y) & 15];
        let (a, b, c);
        if hi < 0xf {
            // A recent edge and a third vertex.
            (a, b) = edge(hi);
            let push_c;
            (c, push_c) = match lo {
                0 => {
                    next = next.wrapping_add(1);
                    (next.wrapping_sub(1), true)
                }
                0xd | 0xe => {
                    last = if lo == 0xd {
                        last.wrapping_sub(1)
                    } else {
                        last.wrapping_add(1)
                    };
                    (last, true)
                }
                0xf => (index(&mut data, &mut last)?, true),
                y => (vertex(y), false),
            };
            edges[edge_at] = (c, b);
            edges[(edge_at + 1) & 15] = (a, c);
            edge_at = (edge_at + 2) & 15;
            if push_c {
                vertices[vertex_at] = c;
                vertex_at = (vertex_at + 1) & 15;
            }
        } else {
            // Three vertices: from the table (0xf0..0xfd) or explicit.
            let explicit = lo >= 0xe;
            let zw = if explicit {
                if data >= end {
                    return Err("the triangle stream ends inside a triangle".into());
                }
                data += 1;
                src[data - 1]
            } else {
                codeaux[lo]
            };
            if explicit && zw == 0 {
                next = 0;
            }
            let (z, w) = ((zw >> 4) as usize, (zw & 15) as usize);
            let mut fresh = || {
                next = next.wrapping_add(1);
                next.wrapping_sub(1)
            };
            a = if lo == 0xf {
                index(&mut data, &mut last)?
            } else {
                fresh()
            };
            let mut pick = |k: usize, data: &mut usize, last: &mut u32| -> Result<u32, String> {
                Ok(match k {
                    0 => fresh(),
                    0xf if explicit => index(data, last)?,
                    k => vertex(k - 1),
                })
            };
            b = pick(z, &mut data, &mut last)?;
            c = pick(w, &mut data, &mut last)?;
            edges[edge_at] = (b, a);
            edges[(edge_at + 1) & 15] = (c, b);
            edges[(edge_at + 2) & 15] = (a, c);
            edge_at = (edge_at + 3) & 15;
            for (v, push) in [
                (a, true),
                (b, z == 0 || (explicit && z == 0xf)),
                (c, w == 0 || (explicit && w == 0xf)),
            ] {
                if push {
                    vertices[vertex_at] = v;
                    vertex_at = (vertex_at + 1) & 15;
                }
            }
        }
        out.extend([a, b, c]);
    }
    if data != end {
        return Err(format!(
            "{} bytes of the triangle stream are left over",
            end.saturating_sub(data)
        ));
    }
    Ok(index_bytes(&out, size))
}

/// Decodes a mode 2 (indices) stream of `count` indices (Appendix A,
/// "Mode 2: indices", header 0xd1).
pub fn decode_indices(src: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, String> {
    let size = index_size(stride)?;
    if src.first() != Some(&0xd1) {
        return Err("the index stream's header is not 0xd1".into());
    }
    if src.len() < 1 + 4 || count > src.len() - 1 - 4 {
        return Err(format!(
            "{count} indices need more than the stream's {} bytes",
            src.len()
        ));
    }
    let end = src.len() - 4;
    let mut pos = 1;
    let mut last = [0u32; 2];
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let v = leb128(src, &mut pos, end)?;
        let baseline = (v & 1) as usize;
        let delta = if v & 2 != 0 { !(v >> 2) } else { v >> 2 };
        last[baseline] = last[baseline].wrapping_add(delta);
        out.push(last[baseline]);
    }
    if pos != end {
        return Err(format!(
            "{} bytes of the index stream are left over",
            end - pos
        ));
    }
    Ok(index_bytes(&out, size))
}

/// Applies a filter (Appendix B) to decoded elements of `stride` bytes.
pub fn filter(data: &mut [u8], stride: usize, filter: &str) -> Result<(), String> {
    match filter {
        "NONE" => Ok(()),
        "OCTAHEDRAL" => match stride {
            4 => {
                for e in data.chunks_exact_mut(4) {
                    let v = octahedral([e[0], e[1], e[2], e[3]].map(|b| f32::from(b as i8)), 127.0);
                    for (d, v) in e[..3].iter_mut().zip(v) {
                        *d = (v as i8) as u8;
                    }
                }
                Ok(())
            }
            8 => {
                for e in data.chunks_exact_mut(8) {
                    let c = |i: usize| f32::from(i16::from_le_bytes([e[2 * i], e[2 * i + 1]]));
                    let v = octahedral([c(0), c(1), c(2), c(3)], 32767.0);
                    for (i, v) in v.into_iter().enumerate() {
                        e[2 * i..2 * i + 2].copy_from_slice(&(v as i16).to_le_bytes());
                    }
                }
                Ok(())
            }
            _ => Err(format!(
                "the OCTAHEDRAL filter needs byteStride 4 or 8, not {stride}"
            )),
        },
        "QUATERNION" => {
            if stride != 8 {
                return Err(format!(
                    "the QUATERNION filter needs byteStride 8, not {stride}"
                ));
            }
            for e in data.chunks_exact_mut(8) {
                let c = |i: usize| i16::from_le_bytes([e[2 * i], e[2 * i + 1]]);
                let range = std::f32::consts::FRAC_1_SQRT_2;
                let one = f32::from(c(3) | 3);
                let x = f32::from(c(0)) / one * range;
                let y = f32::from(c(1)) / one * range;
                let z = f32::from(c(2)) / one * range;
                let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt();
                let max = (c(3) & 3) as usize;
                let mut q = [0i16; 4];
                for (k, v) in [(1, x), (2, y), (3, z), (0, w)] {
                    q[(max + k) % 4] = (v * 32767.0).round() as i16;
                }
                for (i, v) in q.into_iter().enumerate() {
                    e[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
                }
            }
            Ok(())
        }
        "EXPONENTIAL" => {
            if !stride.is_multiple_of(4) {
                return Err(format!(
                    "the EXPONENTIAL filter needs a byteStride that is a multiple of 4, not {stride}"
                ));
            }
            for e in data.chunks_exact_mut(4) {
                let v = i32::from_le_bytes([e[0], e[1], e[2], e[3]]);
                let exponent = (v >> 24).clamp(-100, 100);
                let mantissa = (v << 8) >> 8;
                let f = (mantissa as f32) * 2f32.powi(exponent);
                e.copy_from_slice(&f.to_le_bytes());
            }
            Ok(())
        }
        "COLOR" => {
            // KHR_meshopt_compression's YCoCg colours, 8 or 16 bits.
            let (size, max) = match stride {
                4 => (1, 255.0),
                8 => (2, 65535.0),
                _ => {
                    return Err(format!(
                        "the COLOR filter needs byteStride 4 or 8, not {stride}"
                    ))
                }
            };
            for e in data.chunks_exact_mut(stride) {
                let raw = |i: usize| -> u32 {
                    if size == 1 {
                        u32::from(e[i])
                    } else {
                        u32::from(u16::from_le_bytes([e[2 * i], e[2 * i + 1]]))
                    }
                };
                let signed = |i: usize| -> i32 {
                    if size == 1 {
                        i32::from(e[i] as i8)
                    } else {
                        i32::from(i16::from_le_bytes([e[2 * i], e[2 * i + 1]]))
                    }
                };
                // The alpha's top set bit gives K: 1.0 is 2^K − 1.
                let alpha = raw(3);
                let one = if alpha == 0 {
                    0
                } else {
                    (1u32 << (32 - alpha.leading_zeros())) - 1
                };
                let (y, co, cg) = (raw(0) as i32, signed(1), signed(2));
                let a = alpha & (one >> 1);
                let a = ((a << 1) | (a & 1)) as i32;
                let scale = max / one as f32;
                let rgba = [y + co - cg, y + cg, y - co - cg, a]
                    .map(|v| (v as f32 * scale).round().clamp(0.0, max) as u32);
                for (i, v) in rgba.into_iter().enumerate() {
                    if size == 1 {
                        e[i] = v as u8;
                    } else {
                        e[2 * i..2 * i + 2].copy_from_slice(&(v as u16).to_le_bytes());
                    }
                }
            }
            Ok(())
        }
        other => Err(format!(
            "filter {other:?} is not one of NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL, COLOR"
        )),
    }
}

/// The octahedral filter of one element: three unit-vector components
/// rounded to `max` (127 or 32767) and the fourth passed through.
fn octahedral(input: [f32; 4], max: f32) -> [f32; 4] {
    let one = input[2];
    if one == 0.0 {
        return [0.0, 0.0, 0.0, input[3]];
    }
    let (mut x, mut y) = (input[0] / one, input[1] / one);
    let z = 1.0 - x.abs() - y.abs();
    let t = z.min(0.0);
    x -= t.copysign(x);
    y -= t.copysign(y);
    let length = (x * x + y * y + z * z).sqrt();
    let unit = |v: f32| (v / length * max).round().clamp(-max, max);
    [unit(x), unit(y), unit(z), input[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The specification's example of 16 deltas in 4-bit sentinel coding.
    #[test]
    fn the_specifications_sentinel_example_decodes_to_its_deltas() {
        let group = [0x17, 0x5f, 0xf0, 0xbc, 0x77, 0xa9, 0x21, 0x00, 0x34, 0xb5];
        // One element of 4 bytes per position... 16 elements of stride 4:
        // byte 0 uses the example group, bytes 1-3 are all-zero groups.
        let mut stream = vec![0xa0, 0b10];
        stream.extend(group);
        stream.extend([0, 0, 0]); // headers of bytes 1, 2, 3: zero deltas
        stream.extend([0u8; 32]); // tail: baseline 0
        let out = decode_attributes(&stream, 16, 4).unwrap();
        let deltas = [-1, -4, -3, 26, -91, 0, -6, 6, -4, -4, 5, -5, 1, -1, 0, 0];
        let mut value = 0i32;
        for (i, d) in deltas.into_iter().enumerate() {
            value = (value + d).rem_euclid(256);
            assert_eq!(i32::from(out[i * 4]), value, "element {i}");
            assert_eq!(&out[i * 4 + 1..i * 4 + 4], &[0, 0, 0]);
        }
    }

    #[test]
    fn version_1_xor_channels_undo_the_encoders_rotation() {
        // Version 1, 16 elements of 4 bytes, every byte literal (control
        // 3); the channel's mode 2 with rotation 3: the encoder stores
        // rotl(v ^ previous, 3), so the decoder takes rotr(delta, 3) ^
        // previous (KHR_meshopt_compression Appendix A; meshoptimizer's
        // encoder rotates left by r, its decoder by 32 − r).
        let values: Vec<u32> = (0..16u32).map(|i| 0x4480_0000 + i * 0x0001_2345).collect();
        let baseline = 0x4480_0000u32;
        let deltas: Vec<u32> = values
            .iter()
            .scan(baseline, |previous, &v| {
                let d = (v ^ *previous).rotate_left(3);
                *previous = v;
                Some(d)
            })
            .collect();
        let mut stream = vec![0xa1, 0xff];
        for k in 0..4 {
            stream.extend(deltas.iter().map(|d| d.to_le_bytes()[k]));
        }
        stream.extend([0u8; 19]); // the tail padded to 24 bytes
        stream.extend(baseline.to_le_bytes());
        stream.push(0x32);
        let out = decode_attributes(&stream, 16, 4).unwrap();
        let decoded: Vec<u32> = out
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(decoded, values);
        // A mode past 2 is refused.
        let last = stream.len() - 1;
        stream[last] = 0x03;
        assert!(decode_attributes(&stream, 16, 4).is_err());
    }

    #[test]
    fn an_index_stream_decodes_against_both_baselines() {
        // Mode 2: each number's low bit picks a baseline, the next bit is
        // the delta's sign (zigzag), the rest its size. 0, +1, +1, then
        // baseline 1: +7, then baseline 0: 0, −1, +2.
        let stream = [0xd1, 0, 4, 4, 29, 0, 2, 8, 0, 0, 0, 0];
        let out = decode_indices(&stream, 7, 4).unwrap();
        let indices: Vec<u32> = out
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(indices, [0, 1, 2, 7, 2, 1, 3]);
        let short = decode_indices(&stream, 7, 2).unwrap();
        assert_eq!(short, [0, 0, 1, 0, 2, 0, 7, 0, 2, 0, 1, 0, 3, 0]);
        // A byte left over before the tail is an error, as is a short one.
        assert!(decode_indices(&stream, 6, 4).is_err());
        assert!(decode_indices(&stream[..11], 7, 4).is_err());
    }

    #[test]
    fn a_version_1_stream_of_constant_elements_stores_only_control_bytes() {
        // 1,000 elements of 16 bytes, all equal to the baseline: four
        // blocks (256 elements each at most), each a 4-byte control header
        // of mode 2 (all deltas zero) and nothing else.
        let mut stream = vec![0xa1];
        stream.extend([0xaa; 16]);
        stream.extend([0u8; 4]); // the 20-byte tail padded to 24
        let baseline: Vec<u8> = (1..=16).collect();
        stream.extend(&baseline);
        stream.extend([0u8; 4]); // byte-delta channels
        let out = decode_attributes(&stream, 1000, 16).unwrap();
        assert!(out.chunks(16).all(|e| e == baseline.as_slice()));
        // One control header short: an error.
        let mut short = stream.clone();
        short.remove(1);
        assert!(decode_attributes(&short, 1000, 16).is_err());
    }

    #[test]
    fn the_exponential_filter_is_two_to_the_e_times_m() {
        let mut data = ((-3i32 << 24) | 12).to_le_bytes().to_vec();
        filter(&mut data, 4, "EXPONENTIAL").unwrap();
        assert_eq!(f32::from_le_bytes(data.try_into().unwrap()), 1.5);
    }

    #[test]
    fn malformed_streams_are_errors_not_panics() {
        for len in 0..80 {
            for fill in [0u8, 0xa0, 0xff, 0x55] {
                let stream = |header: u8| {
                    let mut s = vec![fill; len];
                    if let Some(h) = s.first_mut() {
                        *h = header;
                    }
                    s
                };
                for header in [0xa0, 0xa1] {
                    let _ = decode_attributes(&stream(header), 1000, 12);
                    let _ = decode_attributes(&stream(header), usize::MAX / 2, 256);
                }
                let _ = decode_triangles(&stream(0xe1), 30, 2);
                let _ = decode_indices(&stream(0xd1), 30, 4);
                for f in ["OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR"] {
                    let mut s = stream(0);
                    let _ = filter(&mut s, 8, f);
                }
            }
        }
    }
}
