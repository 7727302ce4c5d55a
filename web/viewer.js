// The animd viewer's script (GET /viewer/viewer.js): lists the daemon's
// assets (every page of GET /v1/assets, following "next"), streams the
// chosen clip over one WebSocket and draws it with three.js from npm (0.187,
// served by the daemon under /three/ and named "three" by the page's import
// map). What it draws from the daemon goes through the client's three.js
// adapter (/client/three.js): rigAssets builds the skeleton's Bones and a
// SkinnedMesh per mesh (with its base-color texture, GET
// /v1/meshes/{id}/image, when its upload embedded one), and the rig plays
// the stream, poses from the motion panel, and counts the stream's frames.
// The camera frames the bounding sphere of the skinned pose the view opens
// at (GET /v1/skin, or the joints of GET /v1/pose for bone lines), over a
// ground grid at its lowest point.
//
// Three ways to draw, chosen by the asset and the mode:
//   fat   the daemon streams model-space matrices, the rig poses the Bones
//         and three skins the meshes on the GPU;
//   thin  the daemon streams skinned positions and normals (q16 unless
//         ?encoding=f32), the rig's plain Meshes show them;
//   lines a skeleton without a mesh (BVH): the rig's posed Bones, one line
//         per bone from its joint to its parent's (three's SkeletonHelper).
// window.animdViewer holds what a test needs: ready, the last frame's clip
// time, the camera's matrices and the canvas' place on the page, svg: the
// address of the pose shown as a picture (the SVG link), sphere: the framed
// bounding sphere ({center, radius}), grid: the ground grid's height (or
// null), textured: the number of meshes drawn with a texture, listing:
// {pages, complete, assets} of the asset listing, and (not enumerable) rig:
// the adapter's GltfRig that draws the view.
//
// The motion panel (?motion=1 or its checkbox): the skeleton's clips as a
// 1D blend space (clip i of n at i / (n - 1)), its parameter on the speed
// slider, synchronized and looping, with root motion on the skeleton's
// root joint: each animation frame is one POST /v1/pose (blend_space,
// root_motion), whose matrices pose the rig, whose "root" moves the
// character on a grid floor and whose "weights" the panel lists
// (state.motion: param, t, root, weights). It draws the mesh GPU-skinned
// (fat) or the skeleton's lines. With "look at the target" the head joint
// aims its +z at a red target (aim IK, the "ik" field) placed by two
// sliders in front of the character.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { Animd } from '/client/animd.js';
import { rigAssets } from '/client/three.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const state = {
  ready: false, error: null, mode: null, skeleton: null, clip: null, mesh: null,
  t: null, frame: null, paused: false, duration: 0, revision: THREE.REVISION,
  camera: null, canvas: null, svg: null, sphere: null, grid: null, textured: 0, listing: null,
};
Object.defineProperty(state, 'rig', { value: null, writable: true, enumerable: false });
window.animdViewer = state;

const animd = new Animd();
const view = $('view');
const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
view.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x101418);
// Lights in three's physical units (r155 on): the old look times pi.
scene.add(new THREE.AmbientLight(0xffffff, 0.55 * Math.PI));
const sun = new THREE.DirectionalLight(0xffffff, 0.6 * Math.PI);
sun.position.set(1, 2, 3);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
const controls = new OrbitControls(camera, renderer.domElement);

let conn = null;
let stream = null;
let shown = null; // {rig, object, lines}: what the view draws
let targetT = params.has('t') ? Number(params.get('t')) : null;
let seekFrame = -1; // the frame number the paused stream shows targetT in
let received = { bytes: 0, at: performance.now() };
let dirty = true;
let latest = null;

function showError(e) {
  state.error = { code: e.code || 'error', message: e.message || String(e) };
  $('error').textContent = `${state.error.code}: ${state.error.message}`;
}

function resize() {
  const w = view.clientWidth, h = view.clientHeight;
  renderer.setSize(w, h);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
  dirty = true;
}
window.addEventListener('resize', resize);

/** The bounding sphere of points (flat xyz arrays): its center is their
 * box's, its radius the farthest point from it. */
function boundingSphere(arrays) {
  const box = new THREE.Box3();
  const p = new THREE.Vector3();
  for (const a of arrays) for (let i = 0; i + 2 < a.length; i += 3) box.expandByPoint(p.set(a[i], a[i + 1], a[i + 2]));
  const center = box.getCenter(new THREE.Vector3());
  let r2 = 0;
  for (const a of arrays) for (let i = 0; i + 2 < a.length; i += 3) r2 = Math.max(r2, center.distanceToSquared(p.set(a[i], a[i + 1], a[i + 2])));
  return { sphere: new THREE.Sphere(center, Math.max(1e-3, Math.sqrt(r2))), box };
}

/** Points the camera from the front (+z) at a sphere so that all of it
 * shows, whichever of the canvas' sides is the shorter. */
function frame(sphere) {
  const vertical = (camera.fov / 2) * (Math.PI / 180);
  const horizontal = Math.atan(Math.tan(vertical) * camera.aspect);
  const d = (sphere.radius / Math.sin(Math.min(vertical, horizontal))) * 1.05;
  const c = sphere.center;
  camera.position.set(c.x, c.y, c.z + d);
  camera.near = d / 100;
  camera.far = d * 10;
  camera.updateProjectionMatrix();
  controls.target.copy(c);
  controls.update();
  state.sphere = { center: c.toArray(), radius: sphere.radius };
}

/** The ground grid under a box (its lowest point), four times its width. */
let grid = null;
function groundGrid(box) {
  if (grid) scene.remove(grid);
  const size = 4 * Math.max(1e-3, box.max.x - box.min.x, box.max.z - box.min.z, (box.max.y - box.min.y) / 2);
  grid = new THREE.GridHelper(size, 16, 0x56606c, 0x333b44);
  grid.position.set((box.min.x + box.max.x) / 2, box.min.y, (box.min.z + box.max.z) / 2);
  scene.add(grid);
  state.grid = box.min.y;
}

const skinColor = 0xd8c8a8;
const lineColor = new THREE.Color(0x7fd0ff);

/** A mesh's surface: its texture when it has one, else the plain skin
 * colour. Both sides are drawn: uploaded meshes do not all wind their
 * front faces the same way (glTF and MD5 imports are counter-clockwise;
 * the demo mesh is clockwise). */
function meshMaterial(block, map) {
  if (map) state.textured++;
  return new THREE.MeshLambertMaterial({ color: map ? 0xffffff : skinColor, map, side: THREE.DoubleSide });
}

/** Removes what the view draws and frees it (the rig stops its stream). */
function dispose(s) {
  scene.remove(s.object);
  if (s.lines) {
    scene.remove(s.lines);
    s.lines.dispose();
  }
  s.rig.release();
  s.object.traverse((o) => {
    if (o.geometry) o.geometry.dispose();
    if (o.material) {
      o.material.map?.dispose();
      o.material.dispose();
    }
    if (o.isSkinnedMesh) o.skeleton.dispose();
  });
}

// ---- choosing what to show ------------------------------------------------------

let assets = { skeletons: [], clips: [], meshes: [] };

/** The most listing pages the viewer reads (GET /v1/assets answers
 * list_limit assets a page, 1,000 by default). */
const LIST_PAGES_MAX = 100;

/** Every asset of the daemon: the listing's pages, following "next", at
 * most LIST_PAGES_MAX of them (the panel says when more were left). */
async function listAssets() {
  const all = { skeletons: [], clips: [], meshes: [] };
  let after = null, pages = 0;
  do {
    const page = await animd.json('/v1/assets' + (after !== null ? '?after=' + encodeURIComponent(after) : ''));
    for (const k of Object.keys(all)) if (Array.isArray(page[k])) all[k].push(...page[k]);
    pages++;
    after = typeof page.next === 'string' && page.next !== after ? page.next : null;
  } while (after !== null && pages < LIST_PAGES_MAX);
  const count = all.skeletons.length + all.clips.length + all.meshes.length;
  state.listing = { pages, complete: after === null, assets: count };
  $('listing').textContent = after === null ? ''
    : `more assets than ${pages} listing pages hold: the lists show the first ${count}`;
  return all;
}

function pick(list, wanted) {
  return list.find((a) => a.id === wanted || a.name === wanted) || list[0] || null;
}

function fill(select, items, selected, extra) {
  select.innerHTML = '';
  for (const [value, text] of [...items.map((a) => [a.id, a.name || a.id]), ...(extra || [])]) {
    select.add(new Option(text, value, false, value === selected));
  }
}

function choose() {
  const skel = pick(assets.skeletons, params.get('skeleton') || $('skeleton').value);
  fill($('skeleton'), assets.skeletons, skel && skel.id);
  const clips = assets.clips.filter((c) => skel && c.skeleton === skel.id);
  const clip = pick(clips, params.get('clip') || $('clip').value);
  fill($('clip'), clips, clip && clip.id);
  const meshes = assets.meshes.filter((m) => skel && m.skeleton === skel.id);
  const wantMesh = params.get('mesh') || $('mesh').value;
  const all = wantMesh === 'all' && meshes.length > 0;
  const mesh = wantMesh === 'none' ? null : all ? meshes : pick(meshes, wantMesh);
  fill($('mesh'), meshes, all ? 'all' : mesh ? mesh.id : 'none',
    [['all', '(all meshes)'], ['none', '(skeleton only)']]);
  if (params.get('mode')) $('mode').value = params.get('mode');
  for (const k of ['skeleton', 'clip', 'mesh', 'mode']) params.delete(k);
  return { skel, clip, mesh };
}

async function start() {
  state.ready = false;
  state.error = null;
  seekFrame = -1;
  latest = null;
  stream = null;
  $('error').textContent = '';
  if (shown) {
    dispose(shown);
    shown = null;
    state.rig = null;
  }
  const { skel, clip, mesh } = choose();
  if (!skel || !clip) {
    showError(new Error('nothing to show: upload a skeleton and a clip'));
    return;
  }
  const ids = Array.isArray(mesh) ? mesh.map((x) => x.id) : mesh ? [mesh.id] : [];
  const t0 = targetT !== null ? targetT : 0;
  state.textured = 0;
  const rig = await rigAssets(animd, {
    skeleton: skel.id, meshes: ids, textures: params.get('texture') !== '0', material: meshMaterial,
  });
  if (rig.mapping.unmappedJoints.length) showError(new Error('joints without a bone: ' + rig.mapping.unmappedJoints));
  const draw = { rig, object: rig.scene, lines: null };
  shown = draw;
  state.rig = rig;
  let points; // flat xyz arrays of the pose the view opens at, for framing
  if (ids.length > 1) {
    state.mode = $('mode').value === 'thin' && !motion.on ? 'thin' : 'fat';
    const posed = await animd.skin({ skeleton: skel.id, mesh: ids, clip: clip.id, t: t0, wrap: 'loop' });
    points = posed.meshes.map((b) => b.positions);
  } else if (ids.length === 1) {
    state.mode = $('mode').value === 'thin' && !motion.on ? 'thin' : 'fat';
    points = [(await animd.skin({ mesh: ids[0], clip: clip.id, t: t0, wrap: 'loop' })).positions];
  } else {
    state.mode = 'lines';
    draw.lines = new THREE.SkeletonHelper(rig.scene).setColors(lineColor, lineColor);
    draw.lines.frustumCulled = false;
    const posed = await animd.pose({ skeleton: skel.id, clip: clip.id, t: t0, wrap: 'loop', space: 'model' });
    const joints = new Float32Array(3 * posed.joints);
    for (let j = 0; j < posed.joints; j++) joints.set(posed.data.subarray(16 * j + 12, 16 * j + 15), 3 * j);
    points = [joints];
  }
  const { sphere, box } = boundingSphere(points);
  const bounds = { min: box.min.toArray(), max: box.max.toArray() };
  const meshState = Array.isArray(mesh) ? ids : mesh ? mesh.id : null;
  Object.assign(state, { skeleton: skel.id, clip: clip.id, mesh: meshState, duration: clip.duration });
  $('seek').max = String(clip.duration);
  showSvgLink(t0);
  scene.add(draw.object);
  if (draw.lines) scene.add(draw.lines); // after the Bones: three updates them first
  frame(sphere);
  groundGrid(box);
  if (motion.on) {
    startMotion(skel, rig, bounds);
    return;
  }
  stopMotion();
  const speed = Number(params.get('speed') || $('speed').value) || 1;
  $('speed').value = String(speed);
  const thin = state.mode === 'thin';
  const s = await rig.play(conn, {
    clip: clip.id, fps: Number(params.get('fps')) || 60, speed, t0,
    // Compact frames by default (encoding=q16: 10 bytes a vertex instead
    // of 24); ?encoding=f32 asks for float32.
    mode: thin ? 'thin' : 'fat', ...(thin ? { encoding: params.get('encoding') || 'q16' } : {}),
    statsEvery: 2000,
    onframe: (f) => {
      if (shown !== draw) return;
      latest = f;
      dirty = true;
    },
  });
  stream = s;
  received = { bytes: 0, at: performance.now() };
  if (targetT !== null) {
    await s.pause();
    seekFrame = (await s.seek(targetT)).frame;
  }
  state.paused = s.paused;
  $('play').textContent = s.paused ? 'Play' : 'Pause';
}

/** The SVG link: the pose shown at clip time t as a picture. */
function showSvgLink(t) {
  if (!state.skeleton || !state.clip) return;
  const q = new URLSearchParams({ skeleton: state.skeleton, clip: state.clip, t: String(t), format: 'svg' });
  const href = `/v1/pose?${q}`;
  if (href !== state.svg) {
    state.svg = href;
    $('svg').href = href;
  }
}

// ---- the motion panel: a blend space and root motion, over HTTP ---------------

const motion = {
  on: params.get('motion') === '1', busy: false, clips: [], root: null, joints: 0,
  skeleton: null, t0: performance.now(), drawnParam: null,
};
$('motion').checked = motion.on;
if (params.has('blend')) $('blend').value = params.get('blend');
$('blendv').textContent = Number($('blend').value).toFixed(2);
for (const k of ['lookx', 'looky']) if (params.has(k)) $(k).value = params.get(k);
$('look').checked = params.get('look') === '1';
const lookMarker = new THREE.Mesh(new THREE.SphereGeometry(1, 12, 8), new THREE.MeshBasicMaterial({ color: 0xff4040 }));

/** The look-at target in world space: the sliders over the character's box, in front of it. */
function lookTarget() {
  const b = motion.bounds;
  const c = [0, 1, 2].map((k) => (b.min[k] + b.max[k]) / 2);
  const e = Math.max(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]) / 2;
  return new THREE.Vector3(c[0] + Number($('lookx').value) * e, c[1] + Number($('looky').value) * e,
    b.max[2] + e);
}

/** The members a binary answer carries after its own floats: [[name, count]]. */
function answerMembers(header) {
  return (header || '').split(',').filter(Boolean).map((m) => {
    const [name, n] = m.split('=');
    return [name, Number(n)];
  });
}

/** One frame of the panel: the blend space at the slider, root motion applied. */
async function motionFrame() {
  if (!motion.on || motion.busy || !shown || motion.clips.length === 0) return;
  motion.busy = true;
  const draw = shown;
  const rig = draw.rig;
  const param = Number($('blend').value);
  const speed = Number($('speed').value) || 1;
  const t = targetT !== null ? targetT : ((performance.now() - motion.t0) / 1000) * speed;
  const n = motion.clips.length;
  const body = {
    skeleton: motion.skeleton, space: 'model', format: 'bin', t, wrap: 'loop',
    root_motion: motion.root,
    blend_space: {
      param: [param], sync: true,
      clips: motion.clips.map((c, i) => ({ clip: c.id, at: [n > 1 ? i / (n - 1) : 0] })),
    },
  };
  const look = $('look').checked && motion.head !== null;
  const lookKey = look ? `${$('lookx').value},${$('looky').value}` : null;
  let target = null;
  if (look) {
    // The target in model space: the character stands where its root moved it.
    target = lookTarget();
    const local = rig.scene.worldToLocal(target.clone());
    body.ik = [{ type: 'aim', joint: motion.head, target: local.toArray(), forward: [0, 0, 1], up: [0, 1, 0] }];
  }
  try {
    const res = await fetch('/v1/pose', { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) {
      const e = await res.json().catch(() => ({}));
      throw Object.assign(new Error(e.message || `POST /v1/pose: ${res.status}`), { code: e.error });
    }
    const f = new Float32Array(await res.arrayBuffer());
    if (draw !== shown || !motion.on) return;
    const members = {};
    let off = 16 * motion.joints;
    for (const [name, count] of answerMembers(res.headers.get('X-Animd-Answer'))) {
      members[name] = Array.from(f.subarray(off, off + count));
      off += count;
    }
    rig.setMatrices(f.subarray(0, 16 * motion.joints), 'model');
    const r = members.root || [0, 0, 0, 0, 0, 0, 1];
    rig.scene.position.set(r[0], r[1], r[2]);
    rig.scene.quaternion.set(r[3], r[4], r[5], r[6]);
    const weights = motion.clips.map((c, i) => ({ clip: c.name || c.id, weight: (members.weights || [])[i] }));
    lookMarker.visible = look;
    if (look) {
      lookMarker.position.copy(target);
      lookMarker.scale.setScalar(0.03 * Math.max(1, motion.bounds.max[1] - motion.bounds.min[1]));
    }
    state.motion = { param, t, root: r, weights, look: look ? target.toArray() : null, ik: members.ik || null };
    $('weights').textContent = weights.map((w) => `${w.clip.padEnd(10)} ${w.weight.toFixed(3)}`).join('\n');
    motion.pending = param;
    motion.pendingLook = lookKey;
    dirty = true;
  } catch (e) {
    showError(e);
  } finally {
    motion.busy = false;
  }
}

/** Shows the skeleton's clips through the panel instead of the stream. */
function startMotion(skel, rig, bounds) {
  const joints = rig.skeleton.joints;
  motion.skeleton = skel.id;
  motion.clips = assets.clips.filter((c) => c.skeleton === skel.id);
  motion.joints = joints.length;
  motion.root = (joints.find((j) => j.parent < 0) || joints[0]).name;
  motion.head = joints.some((j) => j.name === 'head') ? 'head' : null;
  motion.bounds = bounds;
  scene.add(lookMarker);
  lookMarker.visible = false;
  motion.t0 = performance.now();
  motion.drawnParam = null;
  state.paused = targetT !== null;
}

function stopMotion() {
  scene.remove(lookMarker);
  state.motion = null;
  $('weights').textContent = '';
}

// One start at a time: a change while one runs starts again after it.
let starting = Promise.resolve();
function restart() {
  starting = starting.then(start).catch(showError);
  return starting;
}

// ---- controls ----------------------------------------------------------------------

for (const id of ['skeleton', 'clip', 'mesh', 'mode']) {
  $(id).addEventListener('change', () => {
    targetT = null;
    restart();
  });
}
$('play').addEventListener('click', async () => {
  if (!stream) return;
  try {
    if (stream.paused) await stream.resume();
    else await stream.pause();
    targetT = null;
    state.paused = stream.paused;
    $('play').textContent = stream.paused ? 'Play' : 'Pause';
  } catch (e) {
    showError(e);
  }
});
$('seek').addEventListener('input', () => {
  if (stream) stream.seek(Number($('seek').value)).catch(showError);
});
$('motion').addEventListener('change', () => {
  motion.on = $('motion').checked;
  restart();
});
$('blend').addEventListener('input', () => {
  $('blendv').textContent = Number($('blend').value).toFixed(2);
});
$('speed').addEventListener('change', () => {
  const speed = Number($('speed').value);
  if (stream && Number.isFinite(speed)) stream.set({ speed }).catch(showError);
});

// ---- statistics and drawing ----------------------------------------------------------

/** The panel's figures: the rig's counts of the stream (the daemon's
 * skipped and dropped asked every two seconds), bytes per second. */
function showStats() {
  const now = performance.now();
  const st = shown && stream ? shown.rig.state : { fps: 0, bytes: 0, frames: 0, missed: 0, skipped: 0, dropped: 0 };
  const bps = Math.max(0, st.bytes - received.bytes) / ((now - received.at) / 1000);
  received = { bytes: st.bytes, at: now };
  $('stats').textContent = [
    `mode       ${state.mode || '-'}`,
    `fps        ${st.fps.toFixed(1)}`,
    `bytes/s    ${Math.round(bps).toLocaleString('en')}`,
    `frames     ${st.frames}`,
    `missed     ${st.missed}`,
    `skipped    ${st.skipped} (daemon)`,
    `dropped    ${st.dropped} (daemon)`,
  ].join('\n');
  Object.assign(state, { fps: st.fps, bytesPerSecond: bps });
}
setInterval(showStats, 1000);

function loop() {
  requestAnimationFrame(loop);
  controls.update();
  if (motion.on) motionFrame();
  if (!dirty) return;
  dirty = false;
  renderer.render(scene, camera);
  if (motion.on && motion.pending !== undefined) {
    motion.drawnParam = motion.pending;
    const lookNow = $('look').checked && motion.head !== null ? `${$('lookx').value},${$('looky').value}` : null;
    state.ready = state.motion !== null && motion.drawnParam === Number($('blend').value) &&
      motion.pendingLook === lookNow;
  }
  const r = renderer.domElement.getBoundingClientRect();
  state.canvas = { left: r.left, top: r.top, width: r.width, height: r.height };
  state.camera = {
    projection: camera.projectionMatrix.toArray(),
    view: camera.matrixWorldInverse.toArray(),
  };
  if (latest) {
    state.t = latest.t;
    state.frame = latest.frame;
    $('time').textContent = latest.t.toFixed(3) + ' s';
    showSvgLink(latest.t);
    if (document.activeElement !== $('seek')) $('seek').value = String(latest.t);
    state.ready = targetT === null || (state.paused && latest.frame >= seekFrame && seekFrame >= 0);
  }
}

async function main() {
  resize();
  conn = animd.connect({
    onstatus: (s, detail) => {
      if (s === 'reconnecting') $('error').textContent = `reconnecting in ${Math.round(detail)} ms`;
      if (s === 'open') $('error').textContent = '';
    },
  });
  await conn.ready;
  assets = await listAssets();
  await restart();
  requestAnimationFrame(loop);
}

main().catch(showError);
