// The viewer on a textured glTF character (CesiumMan from the shared
// assets): its base-color texture is drawn (the picture differs from the
// same view with texture=0 over most of the silhouette, and only there),
// the whole skinned pose is framed (every vertex of GET /v1/skin at the
// shown clip time projects inside the canvas: CesiumMan's bind pose is
// Z-up in mesh space, its skinned pose Y-up, so framing the bind box cut
// off its head), the ground grid lies at the pose's lowest point, and the
// silhouette covers the daemon's skinned vertices.
// The viewer draws the character through the three.js adapter, and what it
// draws equals three's own AnimationMixer on the same file (GLTFLoader in
// the page, the mixer at the frame's clip time): every skinned vertex in
// world space within 1e-5 of the model's size (three's skinning of the fat
// client's SkinnedMesh), the q16 step more for the thin client's Mesh.
import fs from 'node:fs';
import path from 'node:path';

import {
  VIEW, check, drawn, floatsOf, launchBrowser, openViewer, overlap, project, run, startDaemon,
} from './lib.js';
import { diagonal, maxDistance, q16Step, viewerRig } from './viewer_rig.js';

const TOLERANCE = 1e-5;

/** three's AnimationMixer on the file, in the viewer's page, at clip time
 * t: the world positions of its SkinnedMesh's skinned vertices. */
function mixerSkin(page, t) {
  return page.evaluate(async (at) => {
    const THREE = await import('three');
    const { GLTFLoader } = await import('three/addons/loaders/GLTFLoader.js');
    const bytes = await (await fetch('/test-asset/CesiumMan.glb')).arrayBuffer();
    const gltf = await new GLTFLoader().parseAsync(bytes, '');
    const mixer = new THREE.AnimationMixer(gltf.scene);
    mixer.clipAction(gltf.animations[0]).play();
    mixer.setTime(0);
    mixer.setTime(at);
    gltf.scene.updateMatrixWorld(true);
    const meshes = [];
    gltf.scene.traverse((o) => { if (o.isSkinnedMesh) meshes.push(o); });
    const m = meshes[0], v = new THREE.Vector3(), n = m.geometry.attributes.position.count;
    const out = new Array(3 * n);
    for (let i = 0; i < n; i++) {
      m.localToWorld(m.getVertexPosition(i, v));
      out[3 * i] = v.x; out[3 * i + 1] = v.y; out[3 * i + 2] = v.z;
    }
    return { meshes: meshes.length, positions: out };
  }, t);
}

const assets = path.join(process.env.ANIMD_SHARED || '../shared', 'assets');
const file = path.join(assets, 'gltf/khronos/CesiumMan.glb');
if (!fs.existsSync(path.join(assets, 'README.md')) || !fs.existsSync(file)) {
  console.log(`needs the shared test assets (${file}; set ANIMD_SHARED)`);
  process.exit(77);
}

run(async () => {
  const d = await startDaemon();
  const res = await fetch(`${d.url}/v1/assets`, {
    method: 'POST', headers: { 'Content-Type': 'model/gltf-binary' }, body: fs.readFileSync(file),
  });
  check(res.ok, `upload: ${res.status}`);
  const up = await res.json();
  const [skel, clip, mesh] = [up.skeletons[0].id, up.clips[0].id, up.meshes[0].id];
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: VIEW });
  // The file, for three's GLTFLoader in the viewer's page.
  await page.route('**/test-asset/CesiumMan.glb', (route) => route.fulfill({
    status: 200, contentType: 'model/gltf-binary', body: fs.readFileSync(file),
  }));
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  const shots = {};
  for (const texture of ['1', '0']) {
    for (const mode of ['fat', 'thin']) {
      const url = `${d.url}/viewer?skeleton=${skel}&clip=${clip}&mesh=${mesh}&mode=${mode}&t=0.5&texture=${texture}`;
      const { state, img } = await openViewer(page, url);
      if (process.env.ANIMD_SHOTS) fs.writeFileSync(`${process.env.ANIMD_SHOTS}/viewer-${mode}-${texture}.png`, await page.screenshot());
      check(state.mode === mode && state.revision === '187', 'state ' + JSON.stringify(state));
      check(state.textured === (texture === '1' ? 1 : 0), `${mode} texture=${texture}: textured ${state.textured}`);
      const skin = await floatsOf(`${d.url}/v1/skin?mesh=${mesh}&clip=${clip}&t=${state.t}&format=bin`);
      const { left, top, width, height } = state.canvas;
      let outside = 0, minY = Infinity;
      for (let i = 0; i < skin.length; i += 3) {
        const [x, y] = project(state, skin[i], skin[i + 1], skin[i + 2]);
        if (x < left || x > left + width || y < top || y > top + height) outside++;
        minY = Math.min(minY, skin[i + 1]);
      }
      const cover = overlap(img, state, skin);
      console.log(mode, 'texture', texture, JSON.stringify({ outside, cover, sphere: state.sphere, grid: state.grid, minY }));
      check(outside === 0, `${mode}: ${outside} of ${skin.length / 3} vertices outside the canvas`);
      check(Math.abs(state.grid - minY) <= 1e-5 * state.sphere.radius, `grid at ${state.grid}, lowest vertex ${minY}`);
      check(cover.near >= 0.99, `${mode}: only ${cover.near} of the vertices land on the drawn mesh`);
      // The adapter drew it, as three's AnimationMixer poses the file.
      const rig = await viewerRig(page);
      const ref = await mixerSkin(page, state.t);
      check(rig.mode === mode && rig.frame === state.frame && rig.unmapped.length === 0,
        `${mode}: rig ${JSON.stringify({ mode: rig.mode, frame: rig.frame, unmapped: rig.unmapped })}, view frame ${state.frame}`);
      check(ref.meshes === 1 && rig.meshIds.length === 1, `${mode}: ${ref.meshes} meshes in the file, ${rig.meshIds.length} rigged`);
      const size = diagonal(ref.positions);
      const points = mode === 'fat' ? rig.skinned[0] : rig.thin[0];
      const err = maxDistance(points, ref.positions);
      const bound = TOLERANCE * size + (mode === 'thin' ? q16Step(ref.positions) : 0);
      console.log(mode, 'texture', texture, 'against AnimationMixer', JSON.stringify({ err, bound, size }));
      check(err <= bound, `${mode}: drawn vertices ${err} from three's AnimationMixer (bound ${bound})`);
      shots[`${mode}${texture}`] = { img, state };
    }
  }
  // Textured against plain: the same silhouette, other colours over most of it.
  for (const mode of ['fat', 'thin']) {
    const a = shots[`${mode}1`].img, b = shots[`${mode}0`].img;
    const { left, top, width, height } = shots[`${mode}1`].state.canvas;
    let silhouette = 0, recoloured = 0, shapeChanged = 0;
    for (let y = top; y < top + height; y++) {
      for (let x = left; x < left + width; x++) {
        const da = drawn(a, x, y), db = drawn(b, x, y);
        if (da !== db) shapeChanged++;
        if (!da || !db) continue;
        silhouette++;
        const i = 4 * (y * a.width + x);
        if (Math.abs(a.rgba[i] - b.rgba[i]) + Math.abs(a.rgba[i + 1] - b.rgba[i + 1]) +
          Math.abs(a.rgba[i + 2] - b.rgba[i + 2]) > 40) recoloured++;
      }
    }
    console.log(mode, JSON.stringify({ silhouette, recoloured, shapeChanged }));
    check(silhouette > 1000, `${mode}: silhouette of ${silhouette} pixels`);
    check(recoloured > 0.5 * silhouette, `${mode}: the texture recoloured only ${recoloured} of ${silhouette} pixels`);
  }
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
});
