// Runs three-vrm's spring bones (@pixiv/three-vrm-springbone, the reference
// implementation of VRMC_springBone and VRM 0.x secondaryAnimation) and node
// constraints (@pixiv/three-vrm-node-constraint, VRMC_node_constraint)
// headless under node, for tests/vrm_parity.rs and tests/node_constraints.rs.
//
//   node vrm.mjs JOB.json > RESULT.json
//
// JOB: { "file": path of a .gltf/.glb/.vrm, "dt": seconds per frame,
//        "frames": N, "motion": [{ "node": i, "translation": [[x,y,z]...N]
//        or null, "rotation": [[x,y,z,w]...N] or null }],
//        "reset_frames": [frame...], "driver": "manager" or "joints" }
// Each frame sets the moved nodes' local transforms (node -1: the scene),
// calls manager.reset() on a reset frame (what a three-vrm user does on a
// teleport), then manager.update(dt) (not on frame 0, the starting pose).
// Each frame runs the node constraints first, then the spring bones, as
// three-vrm's VRM.update does.
// RESULT: { "joints": [{ "node": i, "tail_node": i or -1 }...],
//           "tails": [[x,y,z] per joint] per frame, — world positions of
//           each joint's tail (its child, or VRM 0.x's virtual 7 cm end)
//           "destinations": [node...], "rotations": [[x,y,z,w] per
//           destination] per frame — the constrained nodes' local rotations }
import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMSpringBoneLoaderPlugin } from '@pixiv/three-vrm-springbone';
import { VRMNodeConstraintLoaderPlugin } from '@pixiv/three-vrm-node-constraint';

function gltfJson(bytes) {
  if (bytes.readUInt32LE(0) === 0x46546c67) {
    const length = bytes.readUInt32LE(12);
    return JSON.parse(bytes.subarray(20, 20 + length).toString('utf8'));
  }
  return JSON.parse(bytes.toString('utf8'));
}

// Only the node hierarchy and the extensions matter to the spring bones:
// meshes, skins, textures and buffers are dropped so that GLTFLoader needs
// no image decoder or binary chunk.
function skeletonOnly(json) {
  const out = {
    asset: json.asset ?? { version: '2.0' },
    scene: json.scene ?? 0,
    scenes: json.scenes ?? [{ nodes: [] }],
    nodes: (json.nodes ?? []).map((n) => {
      const m = { ...n };
      delete m.mesh;
      delete m.skin;
      delete m.camera;
      delete m.weights;
      return m;
    }),
    extensions: json.extensions,
    extensionsUsed: json.extensionsUsed,
  };
  return out;
}

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const json = skeletonOnly(gltfJson(fs.readFileSync(job.file)));
const loader = new GLTFLoader();
loader.register((parser) => new VRMSpringBoneLoaderPlugin(parser));
loader.register((parser) => new VRMNodeConstraintLoaderPlugin(parser));
const gltf = await new Promise((resolve, reject) => {
  loader.parse(JSON.stringify(json), '', resolve, reject);
});
const constraints = gltf.userData.vrmNodeConstraintManager;
// A file with constraints only has an empty spring manager.
const manager = gltf.userData.vrmSpringBoneManager ?? {
  joints: new Set(), colliders: [], setInitState() {}, reset() {}, update() {},
  _sortJoints() {}, _sortedJoints: [],
};
if (!gltf.userData.vrmSpringBoneManager && !constraints) {
  throw new Error(`${job.file}: three-vrm found no spring bones and no node constraints`);
}
const nodes = await gltf.parser.getDependencies('node');
const indexOf = new Map(nodes.map((n, i) => [n, i]));
// The VRM 1.0 importer calls setInitState before any world matrix is
// computed, so a spring with a center stores its first tails in the wrong
// space and jolts on the first update; starting again from the loaded
// scene is the documented remedy.
gltf.scene.updateMatrixWorld(true);
manager.setInitState();

const joints = Array.from(manager.joints);
const constrained = constraints ? Array.from(constraints.constraints) : [];
const destinations = constrained.map((c) => indexOf.get(c.destination));
const info = joints.map((j) => ({
  node: indexOf.get(j.bone),
  tail_node: j.child ? indexOf.get(j.child) : -1,
}));
const jointBones = new Set(joints.map((j) => j.bone));
const colliders = manager.colliders;

// VRMSpringBoneManager.update's loop, with one addition: each joint's child
// gets its world matrix from the joint's current one before the joint
// runs. The stock loop measures a bone's length (`_calcWorldSpaceBoneLength`)
// against the child's world matrix from before the parent joint moved this
// frame, so in fast motion every bone below the first stretches or shrinks
// by what its parent moved in a frame; UniVRM and secmo keep the bind
// length. The joint update itself (VRMSpringBoneJoint.update: verlet,
// stiffness, gravity, colliders, rotation) is three-vrm's, untouched.
function updateJointsOnCurrentGraph(dt) {
  manager._sortJoints();
  // A collider's shape matrix follows `updateWorldMatrix` (which the stock
  // loop calls on every ancestor), not `updateMatrixWorld`.
  for (const c of colliders) c.updateWorldMatrix(false, false);
  for (const joint of manager._sortedJoints) {
    joint.bone.updateMatrix();
    joint.bone.updateWorldMatrix(false, false);
    if (joint.child) joint.child.updateWorldMatrix(false, false);
    joint.update(dt);
    updateBelow(joint.bone);
  }
}

// What the stock loop does after a joint runs: the world matrices of the
// nodes below it down to the next joints, through `updateWorldMatrix`, so
// that a collider riding on the joint (a sphere on a bust or a bun spring)
// has its shape matrix where the joint moved it before the springs that
// collide with it run.
function updateBelow(object) {
  for (const c of object.children) {
    if (jointBones.has(c)) continue;
    c.updateWorldMatrix(false, false);
    updateBelow(c);
  }
}

const resets = new Set(job.reset_frames ?? []);
const tails = [];
const rotations = [];
const v = new THREE.Vector3();
for (let f = 0; f < job.frames; f++) {
  for (const m of job.motion) {
    const node = m.node < 0 ? gltf.scene : nodes[m.node];
    if (m.translation) node.position.fromArray(m.translation[f]);
    if (m.rotation) node.quaternion.fromArray(m.rotation[f]);
    node.updateMatrix();
  }
  // The scene graph is brought up to date with the new pose before the
  // spring bones run. Without it three-vrm measures each bone's length
  // against its child's world matrix from the previous frame, so bones
  // stretch by the distance the body moved in a frame (secmo and UniVRM
  // keep bind lengths; docs/vrm-mapping.md).
  gltf.scene.updateMatrixWorld(true);
  if (constraints) {
    constraints.update();
    gltf.scene.updateMatrixWorld(true);
  }
  if (resets.has(f)) {
    manager.reset();
  }
  // Frame 0 is the starting pose, as secmo's first update (dt 0).
  if (f > 0) {
    if (job.driver === 'manager') {
      manager.update(job.dt);
    } else {
      updateJointsOnCurrentGraph(job.dt);
    }
  }
  tails.push(
    joints.map((j) => {
      if (j.child) {
        j.child.updateWorldMatrix(false, false);
        return v.setFromMatrixPosition(j.child.matrixWorld).toArray();
      }
      return j.bone.localToWorld(v.copy(j.initialLocalChildPosition)).toArray();
    }),
  );
  rotations.push(constrained.map((c) => c.destination.quaternion.toArray()));
}
process.stdout.write(JSON.stringify({ joints: info, tails, destinations, rotations }));
