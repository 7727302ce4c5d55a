// Morph-target glTF files for the e2e tests, made with three.js in Node:
// a small mesh with two morph targets (POSITION deltas, and NORMAL deltas
// when asked), skinned to two bones or not, and a clip that animates its
// morphTargetInfluences (LINEAR or STEP from GLTFExporter; CUBICSPLINE by
// rewriting the exported weights sampler by hand, a1..an v1..vn b1..bn per
// key, since the exporter writes it only for tracks it loaded from glTF).
// The reference is three.js itself: GLTFLoader parses the same file, an
// AnimationMixer sets the time, and Mesh.getVertexPosition (morphs, then
// SkinnedMesh bone transforms) times matrixWorld gives each vertex.
'use strict';

// GLTFExporter reads its Blobs with FileReader, which Node lacks.
if (typeof globalThis.FileReader === 'undefined') {
  globalThis.FileReader = class {
    readAsArrayBuffer(blob) {
      blob.arrayBuffer().then((ab) => { this.result = ab; this.onloadend && this.onloadend(); });
    }
    readAsDataURL(blob) {
      blob.arrayBuffer().then((ab) => {
        this.result = 'data:application/octet-stream;base64,' + Buffer.from(ab).toString('base64');
        this.onloadend && this.onloadend();
      });
    }
  };
}

// GLTFLoader reads data: URIs through fetch and reports ProgressEvents.
if (typeof globalThis.ProgressEvent === 'undefined') {
  globalThis.ProgressEvent = class {
    constructor(type, init) { this.type = type; Object.assign(this, init); }
  };
}

async function three() {
  const THREE = await import('three');
  const { GLTFExporter } = await import('three/examples/jsm/exporters/GLTFExporter.js');
  const { GLTFLoader } = await import('three/examples/jsm/loaders/GLTFLoader.js');
  return { THREE, GLTFExporter, GLTFLoader };
}

// Deterministic pseudo-random numbers in [-1, 1).
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2147483648 - 1; };
}

const KEY_TIMES = [0, 0.375, 1.0, 1.5]; // exact in float32, as keys are stored
const TARGETS = 2;

// The glTF JSON text (buffers as data: URIs) of one case:
// { skinned, normals, interp: 'LINEAR' | 'STEP' | 'CUBICSPLINE' }.
async function makeGltf(opt) {
  const { THREE, GLTFExporter } = await three();
  const rand = rng(opt.skinned ? 7 : 3);
  const geo = new THREE.BoxGeometry(1, 2, 1, 2, 4, 2);
  geo.translate(0, 1, 0);
  const n = geo.attributes.position.count;
  const morphs = [], mnormals = [];
  for (let t = 0; t < TARGETS; t++) {
    const d = new Float32Array(3 * n), dn = new Float32Array(3 * n);
    for (let i = 0; i < 3 * n; i++) { d[i] = 0.3 * rand(); dn[i] = 0.2 * rand(); }
    morphs.push(new THREE.BufferAttribute(d, 3));
    mnormals.push(new THREE.BufferAttribute(dn, 3));
  }
  geo.morphAttributes.position = morphs;
  if (opt.normals) geo.morphAttributes.normal = mnormals;
  else geo.deleteAttribute('normal');
  geo.deleteAttribute('uv');
  geo.morphTargetsRelative = true;
  const mat = new THREE.MeshBasicMaterial();
  const scene = new THREE.Scene();
  const tracks = [];
  let mesh;
  if (opt.skinned) {
    const idx = new Uint16Array(4 * n), wts = new Float32Array(4 * n);
    const pos = geo.attributes.position;
    for (let i = 0; i < n; i++) {
      const y = Math.min(1, Math.max(0, pos.getY(i) / 2));
      idx[4 * i] = 0; idx[4 * i + 1] = 1;
      wts[4 * i] = 1 - y; wts[4 * i + 1] = y;
    }
    geo.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(idx, 4));
    geo.setAttribute('skinWeight', new THREE.Float32BufferAttribute(wts, 4));
    const root = new THREE.Bone(); root.name = 'root';
    const top = new THREE.Bone(); top.name = 'top'; top.position.set(0, 1, 0);
    root.add(top);
    mesh = new THREE.SkinnedMesh(geo, mat);
    mesh.add(root);
    mesh.bind(new THREE.Skeleton([root, top]));
    const q = [], a = new THREE.Quaternion();
    for (const t of KEY_TIMES) {
      a.setFromAxisAngle(new THREE.Vector3(0.3, 0.2, 1).normalize(), 0.9 * t);
      q.push(a.x, a.y, a.z, a.w);
    }
    tracks.push(new THREE.QuaternionKeyframeTrack('top.quaternion', KEY_TIMES, q));
    tracks.push(new THREE.VectorKeyframeTrack('root.position', KEY_TIMES,
      KEY_TIMES.flatMap((t) => [0.1 * t, 0, -0.2 * t])));
  } else {
    mesh = new THREE.Mesh(geo, mat);
    mesh.position.set(0.5, -0.25, 0.1);
    mesh.rotation.set(0.2, 0.4, 0);
  }
  const tag = `${opt.skinned ? 's' : 'u'}${opt.normals ? 'n' : 'x'}_${opt.interp}`;
  mesh.name = 'face_' + tag;
  mesh.morphTargetInfluences = [0.25, -0.1];
  scene.add(mesh);
  const weights = [0, 0, 1, 0.3, 0.2, 1.1, 0.6, 0.5];
  const wt = new THREE.NumberKeyframeTrack(mesh.name + '.morphTargetInfluences', KEY_TIMES, weights,
    opt.interp === 'STEP' ? THREE.InterpolateDiscrete : THREE.InterpolateLinear);
  tracks.push(wt);
  const clip = new THREE.AnimationClip('morph_' + tag, -1, tracks);
  const json = await new GLTFExporter().parseAsync(scene, { binary: false, animations: [clip] });
  if (opt.interp === 'CUBICSPLINE') toCubic(json, rand);
  return JSON.stringify(json);
}

// Rewrites the weights sampler as CUBICSPLINE: per key a1..an (in-tangents),
// v1..vn (the LINEAR export's values), b1..bn (out-tangents), in a new
// buffer of its own.
function toCubic(json, rand) {
  const anim = json.animations[0];
  const ch = anim.channels.find((c) => c.target.path === 'weights');
  const sm = anim.samplers[ch.sampler];
  const old = json.accessors[sm.output];
  const view = json.bufferViews[old.bufferView];
  const buf = Buffer.from(json.buffers[view.buffer].uri.split(',')[1], 'base64');
  const values = new Float32Array(buf.buffer.slice(buf.byteOffset + (view.byteOffset || 0) + (old.byteOffset || 0)),
    0, old.count);
  const keys = old.count / TARGETS;
  const out = new Float32Array(3 * old.count);
  for (let k = 0; k < keys; k++)
    for (let i = 0; i < TARGETS; i++) {
      out[3 * TARGETS * k + i] = 2 * rand();
      out[3 * TARGETS * k + TARGETS + i] = values[TARGETS * k + i];
      out[3 * TARGETS * k + 2 * TARGETS + i] = 2 * rand();
    }
  const bytes = Buffer.from(out.buffer);
  json.buffers.push({ byteLength: bytes.length,
    uri: 'data:application/octet-stream;base64,' + bytes.toString('base64') });
  json.bufferViews.push({ buffer: json.buffers.length - 1, byteOffset: 0, byteLength: bytes.length });
  json.accessors.push({ bufferView: json.bufferViews.length - 1, componentType: 5126,
    count: out.length, type: 'SCALAR' });
  sm.output = json.accessors.length - 1;
  sm.interpolation = 'CUBICSPLINE';
}

// three.js at time t: { weights: [...], positions: [x, y, z, ...] in world
// space, box: the largest extent of the rest bounding box }.
// override: influences set after the mixer's (as a "weights" override).
async function reference(text, t, override) {
  const { THREE, GLTFLoader } = await three();
  const gltf = await new Promise((resolve, reject) =>
    new GLTFLoader().parse(text, '', resolve, reject));
  let mesh = null;
  gltf.scene.traverse((o) => { if (!mesh && o.isMesh) mesh = o; });
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(gltf.animations[0]).play();
  mixer.setTime(t);
  if (override) override.forEach((w, i) => { mesh.morphTargetInfluences[i] = w; });
  gltf.scene.updateMatrixWorld(true);
  if (mesh.skeleton) mesh.skeleton.update();
  const v = new THREE.Vector3();
  const positions = [];
  for (let i = 0; i < mesh.geometry.attributes.position.count; i++) {
    mesh.getVertexPosition(i, v);
    v.applyMatrix4(mesh.matrixWorld);
    positions.push(v.x, v.y, v.z);
  }
  mesh.geometry.computeBoundingBox();
  const b = mesh.geometry.boundingBox;
  const box = Math.max(b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z);
  return { weights: Array.from(mesh.morphTargetInfluences), positions, box };
}

module.exports = { makeGltf, reference, KEY_TIMES };
