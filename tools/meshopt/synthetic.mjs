// Encodes pseudo-random data (a fixed seed) with meshoptimizer's own
// encoder — every mode, both attribute codec versions, every filter — and
// decodes it with meshoptimizer's decoder; prints one JSON line per case:
// {"name", "mode", "filter", "count", "stride", "encoded", "decoded"} (base64).
// cli/tests/meshopt.rs decodes "encoded" with secmo's decoder and compares.
import { MeshoptEncoder, MeshoptDecoder } from 'meshoptimizer';

await MeshoptEncoder.ready;
await MeshoptDecoder.ready;

let state = 12345;
const random = () => {
  state = (Math.imul(state, 1103515245) + 12345) >>> 0;
  return state / 4294967296;
};
const b64 = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const emit = (name, mode, filter, count, stride, raw, version, level) => {
  const encoded = level === undefined
    ? MeshoptEncoder.encodeGltfBuffer(raw, count, stride, mode, version)
    : MeshoptEncoder.encodeVertexBufferLevel(raw, count, stride, level, version);
  const decoded = new Uint8Array(count * stride);
  MeshoptDecoder.decodeGltfBuffer(decoded, count, stride, encoded, mode, filter);
  console.log(JSON.stringify({ name, mode, filter, count, stride, encoded: b64(encoded), decoded: b64(decoded) }));
};
// A smooth signal with noise, so that every delta width occurs.
const floats = (n, scale) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.05) * scale + (random() - 0.5) * scale * 0.1);
const units = (count) => {
  const a = new Float32Array(count * 4);
  for (let i = 0; i < count; i++) {
    let x = random() - 0.5, y = random() - 0.5, z = random() - 0.5, w = random() - 0.5;
    const l = Math.hypot(x, y, z, w);
    a.set([x / l, y / l, z / l, w / l], i * 4);
  }
  return a;
};

for (const version of [0, 1]) {
  for (const count of [1, 15, 16, 17, 300, 1000]) {
    const v = `v${version} n${count}`;
    // Raw attributes: bytes of a slowly varying signal and of noise.
    for (const stride of [4, 12, 16, 64]) {
      const raw = new Uint8Array(count * stride);
      for (let i = 0; i < raw.length; i++) raw[i] = (i % stride) < stride / 2 ? (Math.floor(i / stride) * (1 + (i % 3))) & 255 : Math.floor(random() * 256);
      emit(`raw s${stride} ${v}`, 'ATTRIBUTES', 'NONE', count, stride, raw, version);
    }
    const f = new Uint8Array(floats(count * 3, 10).buffer);
    emit(`floats ${v}`, 'ATTRIBUTES', 'NONE', count, 12, f, version);
    // Every compression level (version 1 picks 2-byte and rotated-XOR
    // channel deltas for floats at the higher ones).
    for (const level of [0, 1, 2, 3]) {
      emit(`floats level ${level} ${v}`, 'ATTRIBUTES', 'NONE', count, 12, f, version, level);
      const h = new Uint8Array(Uint16Array.from({ length: count * 4 }, (_, i) => 30000 + Math.round(Math.sin(i * 0.01) * 20000 + random() * 50)).buffer);
      emit(`shorts level ${level} ${v}`, 'ATTRIBUTES', 'NONE', count, 8, h, version, level);
      const g = new Uint8Array(Float32Array.from({ length: count * 4 }, (_, i) => 1000 + (i >> 2) * 0.01 + (i & 3) * 7 + random() * 1e-4).buffer);
      emit(`same-exponent floats level ${level} ${v}`, 'ATTRIBUTES', 'NONE', count, 16, g, version, level);
    }
    for (const [stride, bits] of [[4, 8], [8, 12], [8, 16]]) {
      emit(`oct s${stride} b${bits} ${v}`, 'ATTRIBUTES', 'OCTAHEDRAL', count, stride, MeshoptEncoder.encodeFilterOct(units(count), count, stride, bits), version);
    }
    for (const bits of [8, 12, 16]) {
      emit(`quat b${bits} ${v}`, 'ATTRIBUTES', 'QUATERNION', count, 8, MeshoptEncoder.encodeFilterQuat(units(count), count, 8, bits), version);
    }
    for (const bits of [10, 15, 24]) {
      emit(`exp b${bits} ${v}`, 'ATTRIBUTES', 'EXPONENTIAL', count, 12, MeshoptEncoder.encodeFilterExp(floats(count * 3, 1000), count, 12, bits), version);
    }
    if (version === 1) {
      for (const [stride, bits] of [[4, 8], [4, 6], [8, 12], [8, 16]]) {
        const rgba = Float32Array.from({ length: count * 4 }, () => random());
        emit(`color s${stride} b${bits} ${v}`, 'ATTRIBUTES', 'COLOR', count, stride, MeshoptEncoder.encodeFilterColor(rgba, count, stride, bits), version);
      }
    }
  }
}
// Index buffers: a triangle strip's triangles (each shares an edge with the
// last), a grid's triangles in shuffled quads, and a sequence for INDICES.
for (const count of [3, 300, 3000]) {
  for (const size of [2, 4]) {
    const I = size === 2 ? Uint16Array : Uint32Array;
    const strip = I.from({ length: count }, (_, i) => Math.floor(i / 3) + (i % 3));
    emit(`strip tris s${size} n${count}`, 'TRIANGLES', 'NONE', count, size, new Uint8Array(strip.buffer), 0);
    // A 20-wide grid of quads, two triangles each, the quads shuffled.
    const quads = Array.from({ length: Math.ceil(count / 6) }, (_, q) => q).sort(() => random() - 0.5);
    const grid = [];
    for (const q of quads) {
      const a = q + Math.floor(q / 20), b = a + 1, c = a + 21, d = a + 22;
      grid.push(a, b, c, b, d, c);
    }
    emit(`grid tris s${size} n${count}`, 'TRIANGLES', 'NONE', count, size, new Uint8Array(I.from(grid.slice(0, count)).buffer), 0);
    const seq = I.from({ length: count }, (_, i) => (i % 2 ? 5000 - (i >> 1) : i * 3));
    emit(`sequence s${size} n${count}`, 'INDICES', 'NONE', count, size, new Uint8Array(seq.buffer), 0);
  }
}
