// The three.js adapter (/client/three.js) in headless Chromium against
// three's own AnimationMixer: each shared glTF asset is uploaded to the
// daemon and loaded twice by three's GLTFLoader (npm three, served by the
// daemon's /three/ from tests/e2e/node_modules/three); one copy is driven by
// a GltfRig from a WebSocket stream, the other posed by an AnimationMixer at
// each frame's clip time. With the model as loaded, translated, rotated,
// uniformly scaled, and all three with a non-uniform scale, every skinned
// vertex in world space must match: three's own skinning of the driven
// SkinnedMesh (getVertexPosition) for the fat client (model-space matrices,
// and skin-space matrices through setMatrices), the thin client's Mesh for
// float32 and q16 vertices. The bound is 1e-5 of the model's size (its
// posed bounding-box diagonal in world space); q16 adds its quantization
// step (half of each axis' range / 65535, through the model's transform).
// Also checks the joint and mesh mapping, the stream state and the errors
// of misuse. Prints the
// largest error per asset, transform and path.
import fs from 'node:fs';
import path from 'node:path';

import { check, launchBrowser, run, servePage, startDaemon } from './lib.js';

const shared = process.env.ANIMD_SHARED || path.resolve('..', 'shared');
const assets = path.join(shared, 'assets');
const three = path.resolve('tests/e2e/node_modules/three');

const CASES = [
  { file: 'gltf/khronos/CesiumMan.glb', clip: 'animation_0', times: [0.3, 1.1] },
  { file: 'gltf/khronos/Fox.glb', clip: 'Survey', times: [0.5, 2.2] },
  { file: 'gltf/extra/girl.glb', clip: 'RunTrack', times: [0.2, 0.7] },
  { file: 'gltf/extra/robot_quaternius.glb', clip: 'Robot_Wave', times: [0.4, 1.3] },
];
const TOLERANCE = 1e-5;

if (!fs.existsSync(path.join(assets, 'README.md'))) {
  console.log(`skipped: needs the shared test assets (${assets}; set ANIMD_SHARED)`);
  process.exit(77);
}
if (!fs.existsSync(path.join(three, 'build', 'three.module.js'))) {
  console.log(`skipped: needs npm three in ${three} (make deps)`);
  process.exit(77);
}

// The page: three and the adapter from the daemon, by an import map.
function pageHtml(daemon) {
  return `<!doctype html><html><body>
<script type="importmap">{"imports": {
  "three": "${daemon}/three/build/three.module.js",
  "three/addons/": "${daemon}/three/examples/jsm/"}}</script>
<script type="module">
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { Animd } from '${daemon}/client/animd.js';
import { GltfRig, rigGltf } from '${daemon}/client/three.js';
window.lib = { THREE, GLTFLoader, Animd, GltfRig, rigGltf };
window.ready = true;
</script></body></html>`;
}

// Runs in the page: one asset, every path and transform.
async function compareInPage({ daemon, file, clip, skeleton, times, tolerance }) {
  const { THREE, GLTFLoader, Animd, GltfRig, rigGltf } = window.lib;
  const bytes = await (await fetch('/asset/' + file)).arrayBuffer();
  const loader = new GLTFLoader();
  const driven = await loader.parseAsync(bytes.slice(0), '');
  const ref = await loader.parseAsync(bytes.slice(0), '');
  const animd = new Animd({ url: daemon });
  const rig = await rigGltf(animd, driven, { skeleton });
  const action = new THREE.AnimationMixer(ref.scene);
  const refClip = ref.animations.find((a) => a.name === clip);
  if (!refClip) throw new Error('three has no clip ' + clip);
  action.clipAction(refClip).play();

  const transforms = {
    none: [[0, 0, 0], [0, 0, 0], [1, 1, 1]],
    translated: [[0.8, -1.5, 2.25], [0, 0, 0], [1, 1, 1]],
    rotated: [[0, 0, 0], [0.3, 1.1, -0.4], [1, 1, 1]],
    scaled: [[0, 0, 0], [0, 0, 0], [2.5, 2.5, 2.5]],
    all: [[-3, 0.5, 1], [-0.7, 0.2, 2.0], [1.5, 0.7, 1.2]],
  };
  const place = (scene, [p, r, s], size) => {
    scene.position.set(p[0] * size, p[1] * size, p[2] * size);
    scene.rotation.set(r[0], r[1], r[2]);
    scene.scale.set(s[0], s[1], s[2]);
    scene.updateMatrixWorld(true);
  };
  const refMeshes = [], drivenMeshes = [];
  ref.scene.traverse((o) => { if (o.isSkinnedMesh) refMeshes.push(o); });
  driven.scene.traverse((o) => { if (o.isSkinnedMesh) drivenMeshes.push(o); });
  const v = new THREE.Vector3(), w = new THREE.Vector3();
  // World positions of three's skinning of every SkinnedMesh of a scene.
  const skinned = (meshes) => meshes.map((m) => {
    const n = m.geometry.attributes.position.count;
    const out = new Float64Array(3 * n);
    for (let i = 0; i < n; i++) {
      m.localToWorld(m.getVertexPosition(i, v));
      out[3 * i] = v.x; out[3 * i + 1] = v.y; out[3 * i + 2] = v.z;
    }
    return out;
  });
  const diagonal = (sets) => {
    const box = new THREE.Box3();
    for (const s of sets) for (let i = 0; i < s.length; i += 3) box.expandByPoint(v.set(s[i], s[i + 1], s[i + 2]));
    return box.getSize(w).length();
  };
  // Thin client: world positions of each SkinnedMesh's thin Mesh.
  const thinWorld = (meshes) => meshes.map((m) => {
    const thin = rig.thin.get(m);
    const p = thin.geometry.attributes.position;
    const out = new Float64Array(3 * p.count);
    for (let i = 0; i < p.count; i++) {
      thin.localToWorld(v.fromBufferAttribute(p, i));
      out[3 * i] = v.x; out[3 * i + 1] = v.y; out[3 * i + 2] = v.z;
    }
    return out;
  });
  // The q16 step of a thin frame, in world units: half of each axis' range
  // over 65535, taken through the model's linear part.
  const q16Step = (blocks, scene) => {
    let worst = 0;
    for (const b of blocks) {
      const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
      for (let i = 0; i < b.positions.length; i++) {
        lo[i % 3] = Math.min(lo[i % 3], b.positions[i]);
        hi[i % 3] = Math.max(hi[i % 3], b.positions[i]);
      }
      const e = [0, 1, 2].map((a) => (hi[a] - lo[a]) / 65535 / 2);
      const m = scene.matrixWorld.elements;
      let s = 0;
      for (let r = 0; r < 3; r++) s += (Math.abs(m[r]) * e[0] + Math.abs(m[4 + r]) * e[1] + Math.abs(m[8 + r]) * e[2]) ** 2;
      worst = Math.max(worst, Math.sqrt(s));
    }
    return worst;
  };

  const conn = animd.connect({ reconnect: false });
  await conn.ready;
  const results = [];
  // Waits (bounded) until the rig has applied a frame past `after`.
  const frameAfter = async (after) => {
    for (let i = 0; i < 200 && rig.state.frames <= after; i++) await new Promise((r) => setTimeout(r, 25));
    if (rig.state.frames <= after) throw new Error('no frame in 5 s');
  };
  let lastBlocks = null;
  for (const path of ['fat', 'skin', 'thin f32', 'thin q16']) {
    const thin = path.startsWith('thin');
    const stream = await rig.play(conn, {
      clip, fps: 20, mode: thin ? 'thin' : 'fat', statsEvery: 0,
      ...(thin ? { encoding: path.slice(5) } : {}),
      onframe: (f) => { if (f.meshes) lastBlocks = f.meshes; },
    });
    await frameAfter(0);
    await stream.pause();
    const state = { ...rig.state };
    if (path === 'skin') {
      // Skin-space matrices of the same clip, given to setMatrices by hand.
      await stream.stop();
      rig.stream = null;
    }
    for (const t of times) {
      let tSampled;
      if (path === 'skin') {
        const pose = await animd.pose({ skeleton, clip, t, space: 'skin' });
        rig.setMatrices(pose.data, 'skin');
        tSampled = t;
      } else {
        const before = rig.state.frames;
        await stream.seek(t);
        await frameAfter(before);
        tSampled = rig.state.t;
      }
      action.setTime(0);
      action.setTime(tSampled);
      for (const [name, tr] of Object.entries(transforms)) {
        place(ref.scene, [[0, 0, 0], [0, 0, 0], [1, 1, 1]], 1);
        const size0 = diagonal(skinned(refMeshes));
        place(ref.scene, tr, size0);
        place(driven.scene, tr, size0);
        const want = skinned(refMeshes);
        const got = thin ? thinWorld(drivenMeshes) : skinned(drivenMeshes);
        const size = diagonal(want);
        let err = 0;
        want.forEach((a, k) => {
          if (a.length !== got[k].length) throw new Error(`mesh ${k}: ${got[k].length} vs ${a.length} numbers`);
          for (let i = 0; i < a.length; i += 3) {
            err = Math.max(err, Math.hypot(a[i] - got[k][i], a[i + 1] - got[k][i + 1], a[i + 2] - got[k][i + 2]));
          }
        });
        const bound = tolerance * size + (path === 'thin q16' ? q16Step(lastBlocks, driven.scene) : 0);
        results.push({ path, t: tSampled, transform: name, err, size, bound,
          vertices: want.reduce((n, a) => n + a.length / 3, 0) });
      }
    }
    if (path !== 'skin') {
      await rig.refreshStats();
      results.push({ path, state, after: { ...rig.state } });
      await rig.stop();
    }
  }
  const mapping = {
    unmappedJoints: rig.mapping.unmappedJoints,
    unmappedBones: rig.mapping.unmappedBones,
    unmappedMeshes: rig.mapping.unmappedMeshes,
    unmappedSkinnedMeshes: rig.mapping.unmappedSkinnedMeshes,
    joints: rig.jointNames.length,
    bones: rig.mapping.bones.length,
    skinnedMeshes: drivenMeshes.length,
    // Joint j's node is the bone of the same glTF node.
    sameNodes: rig.mapping.nodes.every((node, j) => !node ||
      (node.userData.name || '') === rig.jointNames[j] || rig.jointNames[j].startsWith(node.userData.name + '.') ||
      rig.jointNames[j] === 'node_' + driven.parser.associations.get(node).nodes),
  };
  // Misuse is an AnimdError naming it; the daemon's refusal comes through.
  const codeOf = async (f) => {
    try { await f(); } catch (e) { return `${e.name}:${e.code}`; }
    return 'no error';
  };
  mapping.errors = [
    await codeOf(() => rig.setMatrices(new Float32Array(16), 'model')),
    await codeOf(() => rig.setMatrices(new Float32Array(16 * rig.jointNames.length), 'world')),
    await codeOf(() => rig.play(conn, { clip, mode: 'medium' })),
    await codeOf(() => rig.play(conn, { clip, mode: 'fat', encoding: 'q16' })),
    await codeOf(() => rig.play(conn, { clip: 'no-such-clip', statsEvery: 0 })),
  ];
  // release() hands the scene back: the thin meshes leave, the SkinnedMeshes show.
  rig.release();
  let thinLeft = 0;
  driven.scene.traverse((o) => { if (o.name.endsWith(':animd')) thinLeft++; });
  mapping.released = thinLeft === 0 && drivenMeshes.every((m) => m.visible);
  // A rig from a skeleton of other joint names maps nothing and says so.
  const stranger = new GltfRig(driven, { id: 'x', joints: [{ name: 'no-such-joint', parent: -1 }] });
  mapping.stranger = stranger.mapping.unmappedJoints.length === 1 &&
    stranger.mapping.unmappedBones.length === rig.mapping.bones.length;
  conn.close();
  return { results, mapping };
}

run(async () => {
  const d = await startDaemon(['--three-dir', three]);
  const page = await servePage();
  page.html = pageHtml(d.url);
  const browser = await launchBrowser();
  const tab = await browser.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  await tab.route('**/asset/**', (route) => {
    const rel = decodeURIComponent(new URL(route.request().url()).pathname.slice('/asset/'.length));
    const known = CASES.find((c) => c.file === rel);
    if (!known) return route.fulfill({ status: 404, body: 'not a test asset' });
    return route.fulfill({ status: 200, contentType: 'model/gltf-binary',
      body: fs.readFileSync(path.join(assets, rel)) });
  });
  await tab.goto(page.origin + '/');
  await tab.waitForFunction(() => window.ready, null, { timeout: 30000 });
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
  let checked = 0;
  for (const c of CASES) {
    const up = await fetch(`${d.url}/v1/assets?replace=1`, {
      method: 'POST', headers: { 'Content-Type': 'model/gltf-binary' },
      body: fs.readFileSync(path.join(assets, c.file)) });
    const upj = await up.json();
    check(up.status === 201 || up.status === 200, `${c.file}: upload ${up.status} ${JSON.stringify(upj)}`);
    const skeleton = upj.skeletons[0].id;
    const { results, mapping } = await tab.evaluate(compareInPage,
      { daemon: d.url, file: c.file, clip: c.clip, skeleton, times: c.times, tolerance: TOLERANCE });
    const name = path.basename(c.file);
    check(mapping.unmappedBones.length === 0, `${name}: bones without a joint: ${mapping.unmappedBones}`);
    check(mapping.unmappedMeshes.length === 0 && mapping.unmappedSkinnedMeshes.length === 0,
      `${name}: meshes not mapped: ${JSON.stringify(mapping)}`);
    check(mapping.sameNodes, `${name}: a joint maps to another glTF node`);
    check(mapping.released, `${name}: release() left the scene changed`);
    check(mapping.stranger, `${name}: a foreign skeleton's mapping report`);
    check(JSON.stringify(mapping.errors) === JSON.stringify(['AnimdError:bad_argument', 'AnimdError:bad_argument',
      'AnimdError:bad_argument', 'AnimdError:bad_argument', 'AnimdError:not_found']),
    `${name}: errors ${JSON.stringify(mapping.errors)}`);
    console.log(`${name}: ${mapping.joints} joints, ${mapping.bones} bones, ${mapping.skinnedMeshes} skinned meshes;` +
      ` joints without a node: [${mapping.unmappedJoints.join(', ')}]`);
    const worst = new Map();
    for (const r of results) {
      if (r.state) {
        check(r.state.frames >= 1 && r.after.frames >= r.state.frames + c.times.length,
          `${name} ${r.path}: state ${JSON.stringify(r.after)}`);
        check(Number.isFinite(r.after.fps) && r.after.skipped >= 0 && r.after.dropped >= 0 && r.after.bytes > 0,
          `${name} ${r.path}: state ${JSON.stringify(r.after)}`);
        continue;
      }
      check(r.err <= r.bound, `${name} ${r.path} ${r.transform} t=${r.t}: error ${r.err} > ${r.bound} (size ${r.size})`);
      const key = `${r.path} ${r.transform}`;
      const w = worst.get(key) || { rel: 0, abs: 0, size: r.size, bound: r.bound };
      if (r.err / r.size >= w.rel) worst.set(key, { rel: r.err / r.size, abs: r.err, size: r.size, bound: r.bound });
      checked++;
    }
    for (const [key, w] of worst) {
      console.log(`  ${name} ${key}: max vertex error ${w.abs.toExponential(2)} ` +
        `(${w.rel.toExponential(2)} of size ${w.size.toPrecision(4)}; bound ${(w.bound / w.size).toExponential(2)})`);
    }
  }
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
  console.log(`ok: ${checked} comparisons of every vertex against three's AnimationMixer`);
});
