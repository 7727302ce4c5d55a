// Reference poses and skinned vertices from three.js for the glTF e2e tests:
// GLTFLoader parses a .glb in Node (images, textures and materials are
// stripped first: no DOM here), an AnimationMixer poses the scene at a
// time, and joint world matrices (matrixWorld) and linear-blend-skinned
// vertices (sum of weight * bone.matrixWorld * boneInverse * v) are read
// from three's own objects. Also runs `animd eval` and compares numbers.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const shared = process.env.ANIMD_SHARED || path.join(__dirname, '..', '..', '..', 'shared');
const assets = path.join(shared, 'assets');
if (!fs.existsSync(path.join(assets, 'README.md'))) {
  console.log(`needs the shared test assets (${assets}; set ANIMD_SHARED)`);
  process.exit(77);
}

function assetPath(rel) { return path.join(assets, rel); }

// A GLB without images, textures or material texture references.
function stripGlb(buf) {
  const jsonLen = buf.readUInt32LE(12);
  const json = JSON.parse(buf.slice(20, 20 + jsonLen).toString('utf8'));
  delete json.images; delete json.textures; delete json.samplers;
  json.materials = (json.materials || []).map(() => ({}));
  let rest = buf.slice(20 + jsonLen);
  let js = Buffer.from(JSON.stringify(json), 'utf8');
  const pad = (4 - (js.length % 4)) % 4;
  js = Buffer.concat([js, Buffer.alloc(pad, 0x20)]);
  const head = Buffer.alloc(20);
  head.writeUInt32LE(0x46546C67, 0); head.writeUInt32LE(2, 4);
  head.writeUInt32LE(20 + js.length + rest.length, 8);
  head.writeUInt32LE(js.length, 12); head.writeUInt32LE(0x4E4F534A, 16);
  return Buffer.concat([head, js, rest]);
}

async function loadGltf(rel) {
  const THREE = await import('three');
  const { GLTFLoader } = await import('three/examples/jsm/loaders/GLTFLoader.js');
  const glb = stripGlb(fs.readFileSync(assetPath(rel)));
  const ab = glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength);
  const gltf = await new Promise((resolve, reject) =>
    new GLTFLoader().parse(ab, '', resolve, reject));
  return { THREE, gltf };
}

// The bones of skin index s in skin.joints order (three's skeleton keeps it).
async function skinBones(gltf, s) {
  const skin = await gltf.parser.getDependency('skin', s);
  const joints = gltf.parser.json.skins[s].joints;
  const bones = [];
  for (const j of joints) bones.push(await gltf.parser.getDependency('node', j));
  return { bones, inverses: skin.inverseBindMatrices };
}

// Poses the scene with clip (by name, or index when a number) at time t.
function poseAt(THREE, gltf, clip, t) {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const c = typeof clip === 'number' ? gltf.animations[clip]
    : gltf.animations.find((a) => a.name === clip);
  if (!c) throw new Error('no clip ' + clip);
  mixer.clipAction(c).play();
  mixer.setTime(t);
  gltf.scene.updateMatrixWorld(true);
  return mixer;
}

// `animd eval` output as parsed JSON.
function animdEval(rel, clip, t, space) {
  const out = execFileSync(process.env.ANIMD_BIN,
    ['eval', assetPath(rel), '--clip', clip, '--t', String(t),
     '--space', space || 'model', '--format', 'json'],
    { encoding: 'utf8', timeout: 20000 });
  return JSON.parse(out);
}

// Asserts |a - b| <= tol * max(1, |b|) elementwise; reports the worst.
function compare(label, got, want, tol) {
  if (got.length !== want.length)
    throw new Error(`${label}: ${got.length} numbers, expected ${want.length}`);
  let worst = 0, at = -1;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i]));
    if (!(e <= worst)) { worst = e; at = i; }
  }
  if (!(worst <= tol))
    throw new Error(`${label}: element ${at} is ${got[at]}, three.js says ${want[at]} (rel. error ${worst})`);
  return worst;
}

const { startAnimd } = require('./animd_node.js');

// Linear-blend-skinned positions of three's first SkinnedMesh: for each
// vertex, sum of w * bone.matrixWorld * boneInverse * v over its 4
// influences, weights renormalized to sum 1.
function threeSkinned(THREE, gltf) {
  let mesh = null;
  gltf.scene.traverse((o) => { if (!mesh && o.isSkinnedMesh) mesh = o; });
  const sk = mesh.skeleton;
  const pos = mesh.geometry.attributes.position;
  const si = mesh.geometry.attributes.skinIndex;
  const sw = mesh.geometry.attributes.skinWeight;
  const out = [];
  const v = new THREE.Vector3(), p = new THREE.Vector3(), acc = new THREE.Vector3();
  const m = new THREE.Matrix4();
  for (let i = 0; i < pos.count; i++) {
    v.fromBufferAttribute(pos, i);
    acc.set(0, 0, 0);
    let total = 0;
    for (let k = 0; k < 4; k++) total += sw.getComponent(i, k);
    for (let k = 0; k < 4; k++) {
      const w = sw.getComponent(i, k) / total;
      if (w === 0) continue;
      const j = si.getComponent(i, k);
      m.multiplyMatrices(sk.bones[j].matrixWorld, sk.boneInverses[j]);
      p.copy(v).applyMatrix4(m).multiplyScalar(w);
      acc.add(p);
    }
    out.push(acc.x, acc.y, acc.z);
  }
  return out;
}

module.exports = { assetPath, loadGltf, skinBones, poseAt, animdEval, compare,
                   startAnimd, threeSkinned };
