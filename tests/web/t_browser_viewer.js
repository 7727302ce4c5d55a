// The viewer in headless Chromium at a fixed paused pose, in fat mode
// (GPU skinning from streamed skinning matrices) and thin mode (streamed
// skinned vertices): the mesh's silhouette in a screenshot covers the
// pixels where the daemon's own skinned positions (GET /v1/skin at the
// frame's clip time) project through the camera the page reports, and the
// picture changes between two clip times. The page runs three.js 0.187
// from npm; it frames the whole skinned pose (every vertex projects inside
// the canvas, none outside the sphere it reports) over a ground grid at the
// pose's lowest point. A skeleton-only view draws its bones where
// GET /v1/pose puts the joints.
// What is drawn comes from the three.js adapter (/client/three.js): the
// viewer's GltfRig played the stream that showed the frame, its Bones in
// world space equal GET /v1/pose (space=model) at the frame's clip time, and
// what three draws equals GET /v1/skin there: three's own skinning of the
// fat client's SkinnedMesh within 1e-5 of the model's size, the thin
// client's Mesh within the q16 step more.
import {
  VIEW, check, drawn, floatsOf, launchBrowser, maxDiff, openViewer, overlap, project, run, startDaemon,
} from './lib.js';
import { diagonal, maxDistance, q16Step, viewerRig } from './viewer_rig.js';

const TOLERANCE = 1e-5;

/** The viewer's rig showed the frame, its Bones at the daemon's pose
 * (model space, 16 floats a joint): largest matrix difference over the
 * model's size (at least 1). */
function checkBones(what, state, rig, pose, size) {
  check(rig.mode === (state.mode === 'thin' ? 'thin' : 'fat'), `${what}: rig mode ${rig.mode}, view ${state.mode}`);
  check(rig.frames >= 1 && rig.frame === state.frame && rig.t === state.t,
    `${what}: the rig applied frame ${rig.frame} (t ${rig.t}, ${rig.frames} frames), the view shows ${state.frame}`);
  check(rig.unmapped.length === 0, `${what}: joints without a bone: ${rig.unmapped}`);
  if (rig.mode === 'thin') return 0;
  const bones = new Float64Array(pose.length);
  rig.joints.forEach((m, j) => bones.set(m, 16 * j));
  const err = maxDiff(bones, pose) / Math.max(1, size);
  check(err <= TOLERANCE, `${what}: bones differ from GET /v1/pose by ${err} of the size`);
  return err;
}

/** The whole pose in view: every point inside the canvas and the framed sphere; the grid at its lowest y. */
function checkFraming(what, state, points) {
  const { left, top, width, height } = state.canvas;
  const [cx, cy, cz] = state.sphere.center;
  let outside = 0, minY = Infinity, far = 0;
  for (let i = 0; i < points.length; i += 3) {
    const [x, y] = project(state, points[i], points[i + 1], points[i + 2]);
    if (x < left || x > left + width || y < top || y > top + height) outside++;
    minY = Math.min(minY, points[i + 1]);
    far = Math.max(far, Math.hypot(points[i] - cx, points[i + 1] - cy, points[i + 2] - cz));
  }
  check(outside === 0, `${what}: ${outside} of ${points.length / 3} points outside the canvas`);
  // (The page framed the pose at the clip time asked; the points are at
  // the frame's float32 time: equal to float32 rounding.)
  const tol = 1e-5 * state.sphere.radius;
  check(far <= state.sphere.radius + tol, `${what}: a point ${far} from the center, radius ${state.sphere.radius}`);
  check(Math.abs(state.grid - minY) <= tol, `${what}: grid at ${state.grid}, lowest point ${minY}`);
}

function drawnFraction(img, state) {
  let n = 0, all = 0;
  const { left, top, width, height } = state.canvas;
  for (let y = top; y < top + height; y++) {
    for (let x = left; x < left + width; x++) {
      all++;
      if (drawn(img, x, y)) n++;
    }
  }
  return n / all;
}

/** Pixels of the canvas' rectangle that differ clearly between two screenshots. */
function changedPixels(a, b, { left, top, width, height }) {
  let n = 0;
  for (let y = top; y < top + height; y++) {
    for (let x = left; x < left + width; x++) {
      const i = 4 * (y * a.width + x);
      if (Math.abs(a.rgba[i] - b.rgba[i]) + Math.abs(a.rgba[i + 1] - b.rgba[i + 1]) +
        Math.abs(a.rgba[i + 2] - b.rgba[i + 2]) > 40) n++;
    }
  }
  return n;
}

run(async () => {
  const d = await startDaemon();
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: VIEW });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  const results = {};
  const images = {};
  for (const mode of ['fat', 'thin']) {
    const at = {};
    for (const t of [0.5, 0.2]) {
      const { state, img } = await openViewer(page, `${d.url}/viewer?skeleton=demo-humanoid&clip=wave&mesh=body&mode=${mode}&t=${t}`);
      check(state.mode === mode && state.paused && state.revision === '187', 'state: ' + JSON.stringify(state));
      check(Math.abs(state.t - t) < 1e-6, `frame at ${state.t}, asked ${t}`);
      const skin = await floatsOf(`${d.url}/v1/skin?mesh=body&clip=wave&t=${state.t}&format=bin`);
      checkFraming(`${mode} t=${t}`, state, skin);
      // The adapter drew it: its Bones at GET /v1/pose, three's skinning
      // (fat) or the thin Mesh at GET /v1/skin.
      const rig = await viewerRig(page);
      const pose = await floatsOf(`${d.url}/v1/pose?skeleton=demo-humanoid&clip=wave&t=${state.t}&space=model&format=bin`);
      const size = diagonal(skin);
      const bones = checkBones(`${mode} t=${t}`, state, rig, pose, size);
      check(rig.meshIds.length === 1 && (rig.meshIds[0] === 'body' || state.mesh === rig.meshIds[0]),
        `${mode}: rig meshes ${rig.meshIds}`);
      const drawnPoints = mode === 'fat' ? rig.skinned[0] : rig.thin[0];
      const bound = (mode === 'fat' ? 0 : q16Step(skin)) + TOLERANCE * size;
      const skinErr = maxDistance(drawnPoints, skin);
      console.log(mode, `t=${t}`, JSON.stringify({ bonesErrOfSize: bones, skinErr, bound, size }));
      check(skinErr <= bound, `${mode} t=${t}: drawn vertices ${skinErr} from GET /v1/skin (bound ${bound})`);
      at[t] = { state, img, cover: overlap(img, state, skin), drawn: drawnFraction(img, state), skin };
    }
    // The silhouette at one time against the positions of the other: the
    // waving arm moved, so fewer of them land on it.
    const crossed = overlap(at[0.5].img, at[0.5].state, at[0.2].skin);
    const changed = changedPixels(at[0.5].img, at[0.2].img, at[0.5].state.canvas);
    const { width, height } = at[0.5].state.canvas;
    images[mode] = at[0.5];
    results[mode] = {
      overlapExact: at[0.5].cover.exact, overlapNear: at[0.5].cover.near,
      overlapExactT2: at[0.2].cover.exact, overlapNearT2: at[0.2].cover.near,
      crossedNear: crossed.near, drawnFraction: at[0.5].drawn, changedPixels: changed,
      canvas: `${width}x${height}`,
    };
    console.log(mode, JSON.stringify(results[mode]));
    for (const t of [0.5, 0.2]) {
      check(at[t].cover.near >= 0.99, `${mode} t=${t}: only ${at[t].cover.near} of the vertices land on the mesh`);
      check(at[t].cover.exact >= 0.8, `${mode} t=${t}: exact overlap ${at[t].cover.exact}`);
      check(at[t].drawn > 0.01 && at[t].drawn < 0.5, `${mode} t=${t}: drawn fraction ${at[t].drawn}`);
    }
    check(crossed.near < 0.97, `${mode}: the other time's vertices fit too (${crossed.near})`);
    check(changed > 1000, `${mode}: only ${changed} pixels changed between the two times`);
  }
  // Both modes draw the same pose: their pictures agree but for a few edge pixels.
  const modesDiffer = changedPixels(images.fat.img, images.thin.img, images.fat.state.canvas);
  console.log('fat vs thin at t=0.5: changed pixels', modesDiffer);
  check(modesDiffer < 0.02 * images.fat.drawn * images.fat.state.canvas.width * images.fat.state.canvas.height,
    `fat and thin differ in ${modesDiffer} pixels`);
  // Skeleton only: every joint lands on a drawn line.
  const { state, img } = await openViewer(page, `${d.url}/viewer?skeleton=demo-humanoid&clip=wave&mesh=none&t=0.5`);
  check(state.mode === 'lines', 'mode ' + state.mode);
  const pose = await floatsOf(`${d.url}/v1/pose?skeleton=demo-humanoid&clip=wave&t=${state.t}&space=model&format=bin`);
  const joints = new Float32Array(3 * (pose.length / 16));
  for (let j = 0; j < joints.length / 3; j++) joints.set(pose.subarray(16 * j + 12, 16 * j + 15), 3 * j);
  checkFraming('lines', state, joints);
  const rig = await viewerRig(page);
  const linesErr = checkBones('lines', state, rig, pose, diagonal(joints));
  check(rig.skinned.length === 0 && rig.meshIds.length === 0, 'lines: the rig has meshes');
  console.log('lines bones', linesErr);
  const lines = overlap(img, state, joints);
  console.log('lines', JSON.stringify(lines));
  check(lines.near === 1, `joints off the bone lines: ${lines.near}`);
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
});
