// The animd viewer's script (GET /viewer/viewer.js): lists the daemon's
// assets, streams the chosen clip over one WebSocket through the client
// (/client/animd.js) and draws it with three.js from npm (0.187, served by
// the daemon under /three/ and named "three" by the page's import map).
// A mesh's base-color texture (GET /v1/meshes/{id}/image) is drawn when
// its upload embedded one; the camera frames the bounding sphere of the
// skinned pose the view opens at (GET /v1/skin, or the joints of
// GET /v1/pose for bone lines), over a ground grid at its lowest point.
//
// Three ways to draw, chosen by the asset and the mode:
//   fat   the daemon streams skinning matrices (space=skin) and a
//         SkinnedMesh skins the mesh (GET /v1/meshes/{id}?format=bin) on
//         the GPU; the matrices go straight into the skeleton's bone
//         matrices (driveSkeleton), so the bind matrix is the identity.
//   thin  the daemon streams skinned positions and normals; the page only
//         uploads them.
//   lines a skeleton without a mesh (BVH): model-space matrices, one line
//         per bone from its joint to its parent's.
// window.animdViewer holds what a test needs: ready, the last frame's clip
// time, the camera's matrices and the canvas' place on the page, svg: the
// address of the pose shown as a picture (the SVG link), sphere: the framed
// bounding sphere ({center, radius}), grid: the ground grid's height (or
// null), textured: the number of meshes drawn with a texture.
//
// The motion panel (?motion=1 or its checkbox): the skeleton's clips as a
// 1D blend space (clip i of n at i / (n - 1)), its parameter on the speed
// slider, synchronized and looping, with root motion on the skeleton's
// root joint: each animation frame is one POST /v1/pose (blend_space,
// root_motion), whose "root" moves the character on a grid floor and
// whose "weights" the panel lists (state.motion: param, t, root,
// weights). It draws the mesh GPU-skinned (fat) or the skeleton's lines.
// With "look at the target" the head joint aims its +z at a red target
// (aim IK, the "ik" field) placed by two sliders in front of the
// character.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { Animd, driveSkeleton } from '/client/animd.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const state = {
  ready: false, error: null, mode: null, skeleton: null, clip: null, mesh: null,
  t: null, frame: null, paused: false, duration: 0, revision: THREE.REVISION,
  camera: null, canvas: null, svg: null, sphere: null, grid: null, textured: 0,
};
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
let shown = null; // {object, onframe(frame), dispose()}
let targetT = params.has('t') ? Number(params.get('t')) : null;
let seekFrame = -1; // the frame number the paused stream shows targetT in
let received = { frames: 0, bytes: 0, at: performance.now() };
let serverCounters = { skipped: 0, dropped: 0 };
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

/** The mesh's base-color texture when its upload embedded one (PNG, JPEG
 * or WebP), as glTF maps it (no vertical flip, sRGB); else null. */
async function baseColorTexture(meshId) {
  const info = await animd.meshInfo(meshId);
  const image = info.material && info.material.image;
  if (!image || !image.href || !/^image\/(png|jpeg|webp)$/.test(image.mimeType || '')) return null;
  const texture = await new THREE.TextureLoader().loadAsync(`/v1/meshes/${encodeURIComponent(meshId)}/image`);
  texture.flipY = false;
  texture.colorSpace = THREE.SRGBColorSpace;
  return texture;
}

// ---- the three ways to draw --------------------------------------------------

function meshGeometry(m) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(Float32Array.from(m.positions), 3));
  if (m.normals) g.setAttribute('normal', new THREE.BufferAttribute(Float32Array.from(m.normals), 3));
  else g.computeVertexNormals();
  if (m.texcoords) g.setAttribute('uv', new THREE.BufferAttribute(m.texcoords, 2));
  if (m.indices) g.setIndex(new THREE.BufferAttribute(m.indices, 1));
  return g;
}

/** The surface: the texture when there is one (and texture coordinates),
 * else the plain skin colour. */
function meshMaterial(m) {
  const map = m.texcoords ? m.texture || null : null;
  if (map) state.textured++;
  return new THREE.MeshLambertMaterial({ color: map ? 0xffffff : skinColor, map, side: THREE.DoubleSide });
}

const skinColor = 0xd8c8a8;
// Both sides are drawn: uploaded meshes do not all wind their front faces
// the same way (glTF and MD5 imports are counter-clockwise; the demo mesh
// is clockwise).

/** Four influences per vertex for three.js: the heaviest, renormalized. */
function fourInfluences(m) {
  const k = m.influences, v = m.vertexCount;
  if (k === 4) return { joints: m.joints, weights: m.weights };
  const joints = new Uint16Array(4 * v), weights = new Float32Array(4 * v);
  for (let i = 0; i < v; i++) {
    const slots = [...Array(k).keys()].sort((a, b) => m.weights[i * k + b] - m.weights[i * k + a]).slice(0, 4);
    const sum = slots.reduce((s, j) => s + m.weights[i * k + j], 0) || 1;
    slots.forEach((j, n) => {
      joints[4 * i + n] = m.joints[i * k + j];
      weights[4 * i + n] = m.weights[i * k + j] / sum;
    });
  }
  return { joints, weights };
}

function fatMesh(m, jointNames) {
  const g = meshGeometry(m);
  const { joints, weights } = fourInfluences(m);
  g.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(joints, 4));
  g.setAttribute('skinWeight', new THREE.Float32BufferAttribute(weights, 4));
  const material = meshMaterial(m);
  const object = new THREE.SkinnedMesh(g, material);
  const bones = jointNames.map((name) => Object.assign(new THREE.Bone(), { name }));
  const skeleton = new THREE.Skeleton(bones);
  object.bind(skeleton, new THREE.Matrix4());
  object.frustumCulled = false;
  const drive = driveSkeleton(skeleton, jointNames);
  if (drive.mapping.unmappedJoints.length) showError(new Error('joints without a bone: ' + drive.mapping.unmappedJoints));
  return {
    object,
    play: { space: 'skin' },
    onframe: (f) => drive.set(f.data),
    dispose() { g.dispose(); material.map?.dispose(); material.dispose(); skeleton.dispose(); },
  };
}

function thinMesh(m, meshId) {
  const g = meshGeometry(m);
  const material = meshMaterial(m);
  const object = new THREE.Mesh(g, material);
  object.frustumCulled = false;
  const pos = g.getAttribute('position'), nrm = g.getAttribute('normal');
  return {
    object,
    // Compact frames by default (encoding=q16: 10 bytes a vertex instead
    // of 24); ?encoding=f32 asks for float32.
    play: { mesh: meshId, normals: Boolean(nrm), encoding: params.get('encoding') || 'q16' },
    onframe(f) {
      pos.array.set(f.positions);
      pos.needsUpdate = true;
      if (nrm && f.normals) {
        nrm.array.set(f.normals);
        nrm.needsUpdate = true;
      }
    },
    dispose() { g.dispose(); material.map?.dispose(); material.dispose(); },
  };
}

/** Several meshes of one skeleton, drawn from one stream: fat, one
 * SkinnedMesh each driven by the stream's matrices; thin, one stream whose
 * frames carry every mesh's skinned vertices (play's mesh array). */
function severalMeshes(ms, ids, mode, jointNames) {
  const parts = ms.map((m, k) => (mode === 'thin' ? thinMesh(m, ids[k]) : fatMesh(m, jointNames)));
  const object = new THREE.Group();
  for (const p of parts) object.add(p.object);
  const play = mode === 'thin'
    ? { ...parts[0].play, mesh: ids, normals: parts.every((p) => p.play.normals) }
    : parts[0].play;
  return {
    object,
    play,
    onframe(f) {
      if (f.meshes) f.meshes.forEach((b, k) => parts[k].onframe(b));
      else for (const p of parts) p.onframe(f);
    },
    dispose() { for (const p of parts) p.dispose(); },
  };
}

function skeletonLines(parents) {
  const bones = parents.map((p, j) => [j, p]).filter(([, p]) => p >= 0);
  const g = new THREE.BufferGeometry();
  const pos = new THREE.BufferAttribute(new Float32Array(6 * Math.max(1, bones.length)), 3);
  g.setAttribute('position', pos);
  const material = new THREE.LineBasicMaterial({ color: 0x7fd0ff });
  const object = new THREE.LineSegments(g, material);
  object.frustumCulled = false;
  return {
    object,
    play: { space: 'model' },
    onframe(f) {
      const a = pos.array, m = f.data;
      bones.forEach(([j, p], i) => {
        for (let c = 0; c < 3; c++) {
          a[6 * i + c] = m[16 * j + 12 + c];
          a[6 * i + 3 + c] = m[16 * p + 12 + c];
        }
      });
      pos.needsUpdate = true;
    },
    dispose() { g.dispose(); material.dispose(); },
  };
}

// ---- choosing what to show ------------------------------------------------------

let assets = { skeletons: [], clips: [], meshes: [] };

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
  $('error').textContent = '';
  if (stream) {
    const old = stream;
    stream = null;
    old.stop().catch(() => {});
  }
  if (shown) {
    scene.remove(shown.object);
    shown.dispose();
    shown = null;
  }
  const { skel, clip, mesh } = choose();
  if (!skel || !clip) {
    showError(new Error('nothing to show: upload a skeleton and a clip'));
    return;
  }
  const desc = await animd.skeleton(skel.id);
  const names = desc.joints.map((j) => j.name);
  const t0 = targetT !== null ? targetT : 0;
  state.textured = 0;
  /** A mesh block with its texture (or null) beside it. */
  const withTexture = async (id) => {
    const wanted = params.get('texture') !== '0';
    const [m, texture] = await Promise.all([animd.mesh(id), wanted ? baseColorTexture(id).catch(() => null) : null]);
    return Object.assign(m, { texture });
  };
  let points; // flat xyz arrays of the pose the view opens at, for framing
  if (Array.isArray(mesh)) {
    const ids = mesh.map((x) => x.id);
    const ms = await Promise.all(ids.map(withTexture));
    state.mode = $('mode').value === 'thin' ? 'thin' : 'fat';
    shown = severalMeshes(ms, ids, state.mode, names);
    const posed = await animd.skin({ skeleton: skel.id, mesh: ids, clip: clip.id, t: t0, wrap: 'loop' });
    points = posed.meshes.map((b) => b.positions);
  } else if (mesh) {
    const m = await withTexture(mesh.id);
    state.mode = $('mode').value === 'thin' && !motion.on ? 'thin' : 'fat';
    shown = state.mode === 'thin' ? thinMesh(m, mesh.id) : fatMesh(m, names);
    points = [(await animd.skin({ mesh: mesh.id, clip: clip.id, t: t0, wrap: 'loop' })).positions];
  } else {
    state.mode = 'lines';
    shown = skeletonLines(desc.joints.map((j) => j.parent));
    const posed = await animd.pose({ skeleton: skel.id, clip: clip.id, t: t0, wrap: 'loop', space: 'model' });
    const joints = new Float32Array(3 * posed.joints);
    for (let j = 0; j < posed.joints; j++) joints.set(posed.data.subarray(16 * j + 12, 16 * j + 15), 3 * j);
    points = [joints];
  }
  const { sphere, box } = boundingSphere(points);
  const bounds = { min: box.min.toArray(), max: box.max.toArray() };
  const meshState = Array.isArray(mesh) ? mesh.map((x) => x.id) : mesh ? mesh.id : null;
  Object.assign(state, { skeleton: skel.id, clip: clip.id, mesh: meshState, duration: clip.duration });
  $('seek').max = String(clip.duration);
  showSvgLink(targetT !== null ? targetT : 0);
  scene.add(shown.object);
  frame(sphere);
  groundGrid(box);
  if (motion.on) {
    startMotion(skel, desc, bounds);
    return;
  }
  stopMotion();
  const speed = Number(params.get('speed') || $('speed').value) || 1;
  $('speed').value = String(speed);
  const s = await conn.play({
    skeleton: skel.id, clip: clip.id, fps: Number(params.get('fps')) || 60, speed,
    t0: targetT !== null ? targetT : 0, ...shown.play,
  });
  stream = s;
  const draw = shown;
  s.onframe = (f) => {
    if (stream !== s) return;
    draw.onframe(f);
    latest = f;
    received.frames++;
    received.bytes += f.byteLength || 0;
    dirty = true;
  };
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
  skeleton: null, space: 'model', t0: performance.now(), drawnParam: null,
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
  const param = Number($('blend').value);
  const speed = Number($('speed').value) || 1;
  const t = targetT !== null ? targetT : ((performance.now() - motion.t0) / 1000) * speed;
  const n = motion.clips.length;
  const body = {
    skeleton: motion.skeleton, space: motion.space, format: 'bin', t, wrap: 'loop',
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
    const local = draw.object.worldToLocal(target.clone());
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
    draw.onframe({ data: f.subarray(0, 16 * motion.joints) });
    const r = members.root || [0, 0, 0, 0, 0, 0, 1];
    draw.object.position.set(r[0], r[1], r[2]);
    draw.object.quaternion.set(r[3], r[4], r[5], r[6]);
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
function startMotion(skel, desc, bounds) {
  motion.skeleton = skel.id;
  motion.clips = assets.clips.filter((c) => c.skeleton === skel.id);
  motion.joints = desc.joints.length;
  motion.root = (desc.joints.find((j) => j.parent < 0) || desc.joints[0]).name;
  motion.space = shown.play.space === 'skin' ? 'skin' : 'model';
  motion.head = desc.joints.some((j) => j.name === 'head') ? 'head' : null;
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

function restart() {
  start().catch(showError);
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

function showStats() {
  const now = performance.now();
  const dt = (now - received.at) / 1000;
  const fps = received.frames / dt, bps = received.bytes / dt;
  received = { frames: 0, bytes: 0, at: now };
  const c = stream ? stream.counters : { frames: 0, missed: 0 };
  $('stats').textContent = [
    `mode       ${state.mode || '-'}`,
    `fps        ${fps.toFixed(1)}`,
    `bytes/s    ${Math.round(bps).toLocaleString('en')}`,
    `frames     ${c.frames}`,
    `missed     ${c.missed}`,
    `skipped    ${serverCounters.skipped} (daemon)`,
    `dropped    ${serverCounters.dropped} (daemon)`,
  ].join('\n');
  Object.assign(state, { fps, bytesPerSecond: bps });
}
setInterval(showStats, 1000);
setInterval(async () => {
  if (!stream || !conn) return;
  try {
    const st = await conn.stats();
    const mine = st.streams.find((x) => x.id === stream.id);
    if (mine) serverCounters = { skipped: mine.skipped, dropped: mine.dropped };
  } catch {
    // The connection is coming back: the next poll tells.
  }
}, 2000);

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
  assets = await animd.assets();
  await start();
  requestAnimationFrame(loop);
}

main().catch(showError);
