// Decodes every meshopt-compressed buffer view of each GLB given with
// meshoptimizer's own decoder and prints one JSON line per view:
// {"file", "view", "mode", "filter", "bytes": base64 of the decoded view}.
// Used by cli/tests/meshopt.rs as the reference for cli/src/meshopt.rs.
import { MeshoptDecoder } from 'meshoptimizer';
import fs from 'fs';

await MeshoptDecoder.ready;
for (const file of process.argv.slice(2)) {
  const glb = fs.readFileSync(file);
  const jsonLength = glb.readUInt32LE(12);
  const json = JSON.parse(glb.subarray(20, 20 + jsonLength).toString());
  const binAt = 20 + jsonLength;
  const bin = glb.subarray(binAt + 8, binAt + 8 + glb.readUInt32LE(binAt));
  json.bufferViews.forEach((view, index) => {
    const ext = view.extensions || {};
    const e = ext.EXT_meshopt_compression || ext.KHR_meshopt_compression;
    if (!e) return;
    if ((e.buffer || 0) !== 0) throw new Error(`${file}: view ${index} reads buffer ${e.buffer}, not the GLB's own`);
    const at = e.byteOffset || 0;
    const out = new Uint8Array(e.count * e.byteStride);
    MeshoptDecoder.decodeGltfBuffer(out, e.count, e.byteStride, bin.subarray(at, at + e.byteLength), e.mode, e.filter || 'NONE');
    console.log(JSON.stringify({ file, view: index, mode: e.mode, filter: e.filter || 'NONE', bytes: Buffer.from(out).toString('base64') }));
  });
}
