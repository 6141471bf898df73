// Validates each GLB/glTF file given on the command line with the Khronos
// glTF validator and prints one JSON line per file:
//   {"file", "errors", "warnings", "infos", "messages": [first errors/warnings]}
// Exit status 0 when it ran (the caller judges the counts), 2 on bad usage.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import validator from "gltf-validator";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node validate.mjs FILE.glb [FILE ...]");
  process.exit(2);
}
for (const file of files) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), {
    uri: basename(file),
    maxIssues: 1000,
  });
  const issues = report.issues;
  const messages = issues.messages
    .filter((m) => m.severity <= 1)
    .slice(0, 20)
    .map((m) => `${m.severity === 0 ? "error" : "warning"} ${m.code} at ${m.pointer ?? ""}: ${m.message}`);
  console.log(
    JSON.stringify({
      file,
      errors: issues.numErrors,
      warnings: issues.numWarnings,
      infos: issues.numInfos,
      messages,
    }),
  );
}
