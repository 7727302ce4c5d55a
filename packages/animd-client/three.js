// three.js: the three.js adapter of the animd client (animd-client/three),
// an ES module that imports `three` by its bare name (a peer dependency:
// give it an import map or a bundler) and the client beside it. The daemon
// serves it at /client/three.js.
//
// Given a glTF loaded by three's GLTFLoader and the daemon's skeleton of the
// same file (GET /v1/skeletons/{id}), a GltfRig:
// - maps the daemon's joints to three's nodes by the glTF node names (as the
//   daemon names joints: the node's name, node_<i> for an unnamed one,
//   <name>.<i> for a name several joints share), then loosely (mapSkeleton);
//   the daemon's meshes to three's SkinnedMeshes by the glTF mesh and
//   primitive they came from; and reports what it could not map, both ways;
// - fat client: poses the mapped nodes themselves from the daemon's
//   matrices (model, skin or local space), so three's own skinning, bind
//   matrices, bounding volumes, raycasts and objects attached to bones all
//   see the daemon's pose, and moving, rotating or scaling gltf.scene moves
//   the drawn model with no further work (the daemon answers in glTF scene
//   space: each node's local matrix is the daemon's scene-space matrix
//   relative to its parent's);
// - thin client: fills a plain Mesh per SkinnedMesh (a child of gltf.scene,
//   so it also follows the model) with the daemon's skinned positions and
//   normals, float32 or q16, and hides the SkinnedMesh;
// - plays a stream that does either, and keeps its state (fps, frames,
//   missed, skipped, dropped).
//
//   import { rigGltf } from '/client/three.js';
//   const up = await animd.upload(glbBytes, { replace: 1 });
//   const gltf = await new GLTFLoader().parseAsync(glbBytes.buffer, '');
//   const rig = await rigGltf(animd, gltf, { skeleton: up.skeletons[0].id });
//   await rig.play(animd.connect(), { clip: 'Walk', mode: 'fat' });
//
// Without the file (a BVH, MD5 or native JSON upload, or a page that only
// has the daemon), rigAssets builds the scene from the daemon's own assets
// (assetScene: a Bone per joint, a SkinnedMesh per mesh block, base-color
// textures) and rigs it the same way.
import {
  Bone, BufferAttribute, BufferGeometry, DoubleSide, DynamicDrawUsage, Float32BufferAttribute, Group, Matrix4,
  Mesh, MeshStandardMaterial, Quaternion, SRGBColorSpace, Skeleton, SkinnedMesh, TextureLoader,
  Uint16BufferAttribute,
} from 'three';

import { AnimdError, mapSkeleton } from './animd.js';

const IDENTITY = new Matrix4();

/** What a stream's fps is measured over (ms). */
const FPS_WINDOW_MS = 1000;
/** At most this many arrival times are kept for the fps figure. */
const FPS_SAMPLES = 256;

function now() {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

function glTFIndex(gltf, object, kind) {
  const a = gltf && gltf.parser && gltf.parser.associations ? gltf.parser.associations.get(object) : undefined;
  return a && a[kind] !== undefined ? a[kind] : undefined;
}

// The name the daemon's glTF importer gives a node: its glTF name, or
// node_<index> without one (three keeps the unsanitized name in userData.name).
function nodeName(gltf, object) {
  if (object.userData && typeof object.userData.name === 'string' && object.userData.name) {
    return object.userData.name;
  }
  const i = glTFIndex(gltf, object, 'nodes');
  return i !== undefined ? `node_${i}` : object.name;
}

// The name the daemon's glTF importer gives a skinned primitive's mesh: the
// glTF mesh's name (else its node's, else mesh_<index>), with _<primitive>
// when the mesh has several primitives.
function meshName(gltf, object) {
  const m = glTFIndex(gltf, object, 'meshes');
  const json = gltf && gltf.parser ? gltf.parser.json : null;
  if (m === undefined || !json || !json.meshes || !json.meshes[m]) return object.name;
  const def = json.meshes[m];
  let base = def.name;
  if (!base) {
    let n = glTFIndex(gltf, object, 'nodes');
    if (n === undefined && object.parent) n = glTFIndex(gltf, object.parent, 'nodes');
    base = (n !== undefined && json.nodes[n] && json.nodes[n].name) || `mesh_${m}`;
  }
  const p = glTFIndex(gltf, object, 'primitives') || 0;
  return def.primitives.length > 1 ? `${base}_${p}` : base;
}

/**
 * A glTF scene driven by the daemon. Built by rigGltf (which fetches the
 * skeleton and its meshes) or directly: `gltf` a GLTFLoader result,
 * `skeleton` the daemon's GET /v1/skeletons/{id} answer, `meshes` the
 * daemon's meshes of that skeleton ([{id, name, vertices}], GET
 * /v1/skeletons/{id}/meshes; needed for the thin client only), `scene` the
 * object standing for the glTF scene (default gltf.scene; a clone of it for
 * another instance).
 */
export class GltfRig {
  constructor(gltf, skeleton, { meshes = [], scene = gltf.scene } = {}) {
    if (!skeleton || !Array.isArray(skeleton.joints)) {
      throw new AnimdError('bad_argument', 'skeleton: give the daemon\'s GET /v1/skeletons/{id} answer');
    }
    if (!scene || !scene.isObject3D) throw new AnimdError('bad_argument', 'no glTF scene to drive');
    this.gltf = gltf;
    this.scene = scene;
    this.skeleton = skeleton;
    this.jointNames = skeleton.joints.map((j) => j.name);
    this.parents = skeleton.joints.map((j) => j.parent);
    this.skinnedMeshes = [];
    scene.traverse((o) => { if (o.isSkinnedMesh) this.skinnedMeshes.push(o); });
    this.mapping = this.mapJoints();
    this.meshes = this.mapMeshes(meshes);
    this.stream = null;
    this.mode = null;
    this.space = 'model';
    this.thin = new Map(); // SkinnedMesh -> its thin-client Mesh
    this.saved = new Map(); // driven node -> its matrixAutoUpdate before
    this.global = this.jointNames.map(() => new Matrix4());
    this.bindInverse = null; // per joint, the inverse of its bone's inverse bind matrix
    this.state = { mode: null, frames: 0, missed: 0, bytes: 0, fps: 0, skipped: 0, dropped: 0,
      frame: null, t: null };
    this.arrivals = [];
    this.started = 0;
    this.statsTimer = null;
  }

  // Joints to three's nodes: the bones of the scene's skeletons by name
  // (the daemon's naming first, then mapSkeleton's loose match); a joint
  // no bone has (an animated ancestor the daemon keeps as a joint) then to
  // any node of the scene of that name.
  mapJoints() {
    const bones = [];
    const seen = new Set();
    for (const m of this.skinnedMeshes) {
      for (const b of m.skeleton.bones) if (b && !seen.has(b)) { seen.add(b); bones.push(b); }
    }
    const names = bones.map((b) => nodeName(this.gltf, b));
    const count = new Map();
    for (const n of names) count.set(n, (count.get(n) || 0) + 1);
    const unique = names.map((n, i) => {
      const idx = glTFIndex(this.gltf, bones[i], 'nodes');
      return count.get(n) > 1 && idx !== undefined ? `${n}.${idx}` : n;
    });
    const m = mapSkeleton(this.jointNames, { bones: unique.map((name) => ({ name })) });
    const nodes = Array.from(m.boneOfJoint, (b) => (b >= 0 ? bones[b] : null));
    if (m.unmappedJoints.length) {
      const others = new Map();
      this.scene.traverse((o) => {
        if (o === this.scene || seen.has(o)) return;
        const n = nodeName(this.gltf, o);
        if (n && !others.has(n)) others.set(n, o);
      });
      nodes.forEach((node, j) => {
        if (!node && others.has(this.jointNames[j])) nodes[j] = others.get(this.jointNames[j]);
      });
    }
    const jointOf = new Map();
    nodes.forEach((node, j) => { if (node) jointOf.set(node, j); });
    return {
      nodes,
      jointOf,
      boneOfJoint: m.boneOfJoint,
      bones,
      unmappedJoints: this.jointNames.filter((_, j) => !nodes[j]),
      unmappedBones: bones.filter((b) => !jointOf.has(b)).map((b) => b.name),
    };
  }

  // The daemon's meshes to SkinnedMeshes: by the daemon's name of the glTF
  // primitive, with the same vertex count; then, for what is left, by
  // vertex count in order.
  mapMeshes(meshes) {
    const free = new Set(this.skinnedMeshes);
    const count = (o) => o.geometry.attributes.position.count;
    const out = meshes.map((d) => {
      const name = typeof d === 'string' ? d : d.name;
      const m = [...free].find((o) => meshName(this.gltf, o) === name &&
        (d.vertices === undefined || count(o) === d.vertices));
      if (m) free.delete(m);
      return { id: d.id || name, name, vertices: d.vertices, mesh: m || null };
    });
    for (const e of out) {
      if (e.mesh || e.vertices === undefined) continue;
      const m = [...free].find((o) => count(o) === e.vertices);
      if (m) { free.delete(m); e.mesh = m; }
    }
    this.mapping.unmappedMeshes = out.filter((e) => !e.mesh).map((e) => e.name);
    this.mapping.unmappedSkinnedMeshes = [...free].map((o) => o.name);
    return out;
  }

  // ---- fat client: matrices --------------------------------------------------

  /**
   * Poses the scene from one pose: 16 floats per joint in the daemon's
   * order (column-major, as three's Matrix4.fromArray reads them), in
   * `space` 'model' (glTF scene space), 'skin' (model times the inverse
   * bind matrix) or 'local' (relative to the parent joint).
   */
  setMatrices(data, space = 'model') {
    const n = this.jointNames.length;
    if (!data || data.length < 16 * n) {
      throw new AnimdError('bad_argument', `${data ? data.length : 0} numbers for ${n} joints (16 each)`);
    }
    this.showThin(false);
    const g = this.global;
    for (let j = 0; j < n; j++) g[j].fromArray(data, 16 * j);
    if (space === 'skin') {
      const inv = this.bindInverses();
      for (let j = 0; j < n; j++) g[j].multiply(inv[j]);
    } else if (space === 'local') {
      const done = new Uint8Array(n);
      const up = (j) => {
        if (done[j]) return;
        done[j] = 1;
        const p = this.parents[j];
        if (p >= 0 && p < n) {
          up(p);
          g[j].premultiply(g[p]);
        }
      };
      for (let j = 0; j < n; j++) up(j);
    } else if (space !== 'model') {
      throw new AnimdError('bad_argument', `space '${space}': model, skin or local`);
    }
    // Each node's local matrix: its parent's scene-space matrix (a joint's
    // from this pose, or the walk up to the scene through nodes the daemon
    // does not drive) inverted, times the node's own.
    const { nodes, jointOf } = this.mapping;
    const sceneOf = new Map();
    const sceneMatrix = (o) => {
      if (!o || o === this.scene) return IDENTITY;
      const j = jointOf.get(o);
      if (j !== undefined) return g[j];
      let m = sceneOf.get(o);
      if (!m) {
        if (o.matrixAutoUpdate) o.updateMatrix();
        m = new Matrix4().multiplyMatrices(sceneMatrix(o.parent), o.matrix);
        sceneOf.set(o, m);
      }
      return m;
    };
    const inv = new Matrix4();
    for (let j = 0; j < n; j++) {
      const node = nodes[j];
      if (!node) continue;
      if (!this.saved.has(node)) this.saved.set(node, node.matrixAutoUpdate);
      node.matrixAutoUpdate = false;
      inv.copy(sceneMatrix(node.parent)).invert();
      node.matrix.multiplyMatrices(inv, g[j]);
      node.matrix.decompose(node.position, node.quaternion, node.scale);
      node.matrixWorldNeedsUpdate = true;
    }
  }

  // The inverse of each joint's inverse bind matrix, from three's skeletons
  // (the glTF skin's matrices; identity for a joint no bone stands for).
  bindInverses() {
    if (this.bindInverse) return this.bindInverse;
    const byBone = new Map();
    for (const m of this.skinnedMeshes) {
      m.skeleton.bones.forEach((b, i) => {
        if (!byBone.has(b)) byBone.set(b, m.skeleton.boneInverses[i]);
      });
    }
    this.bindInverse = this.mapping.nodes.map((node) => {
      const ib = node && byBone.get(node);
      return ib ? ib.clone().invert() : new Matrix4();
    });
    return this.bindInverse;
  }

  // ---- thin client: vertices ---------------------------------------------------

  /**
   * Draws skinned vertices: blocks[k] ({positions, normals}: Float32Arrays
   * in glTF scene space, as decodeStreamFrame and decodeSkinMeshes give
   * them, q16 already decoded) for this.meshes[k]. Each mapped SkinnedMesh
   * is hidden and a Mesh sharing its material, indices and texture
   * coordinates (thinMesh(m)) shows the vertices.
   */
  setVertices(blocks) {
    blocks.forEach((b, k) => {
      const e = this.meshes[k];
      if (!e || !e.mesh || !b) return;
      const thin = this.thinMesh(e.mesh);
      const g = thin.geometry;
      const n = g.attributes.position.count;
      if (b.positions.length !== 3 * n) {
        throw new AnimdError('bad_answer', `mesh ${e.name}: ${b.positions.length / 3} vertices, three's has ${n}`);
      }
      g.attributes.position.array.set(b.positions);
      g.attributes.position.needsUpdate = true;
      if (b.normals) {
        if (!g.attributes.normal) {
          g.setAttribute('normal', new BufferAttribute(new Float32Array(3 * n), 3).setUsage(DynamicDrawUsage));
        }
        g.attributes.normal.array.set(b.normals);
        g.attributes.normal.needsUpdate = true;
      }
      g.computeBoundingSphere();
    });
    this.showThin(true);
  }

  /** The plain Mesh that draws `skinned` for the thin client (made once). */
  thinMesh(skinned) {
    let thin = this.thin.get(skinned);
    if (thin) return thin;
    const src = skinned.geometry;
    const g = new BufferGeometry();
    const n = src.attributes.position.count;
    const bind = new Float32Array(3 * n); // the bind pose until the first frame
    for (let i = 0; i < n; i++) {
      bind[3 * i] = src.attributes.position.getX(i);
      bind[3 * i + 1] = src.attributes.position.getY(i);
      bind[3 * i + 2] = src.attributes.position.getZ(i);
    }
    g.setAttribute('position', new BufferAttribute(bind, 3).setUsage(DynamicDrawUsage));
    if (src.attributes.normal) {
      g.setAttribute('normal', new BufferAttribute(new Float32Array(3 * n), 3).setUsage(DynamicDrawUsage));
    }
    for (const k of Object.keys(src.attributes)) {
      if (k !== 'position' && k !== 'normal' && k !== 'skinIndex' && k !== 'skinWeight') {
        g.setAttribute(k, src.attributes[k]);
      }
    }
    if (src.index) g.setIndex(src.index);
    for (const gr of src.groups) g.addGroup(gr.start, gr.count, gr.materialIndex);
    thin = new Mesh(g, skinned.material);
    thin.name = skinned.name + ':animd';
    thin.castShadow = skinned.castShadow;
    thin.receiveShadow = skinned.receiveShadow;
    thin.visible = false;
    this.scene.add(thin); // scene space: the daemon's vertices are in it
    this.thin.set(skinned, thin);
    return thin;
  }

  showThin(on) {
    for (const [skinned, thin] of this.thin) {
      thin.visible = on;
      skinned.visible = !on;
    }
  }

  // ---- streams -----------------------------------------------------------------

  /** Applies one decoded stream frame (Stream.onframe's argument). */
  applyFrame(frame) {
    if (frame.meshes) this.setVertices(frame.meshes);
    else if (frame.layout === 'mat4') this.setMatrices(frame.data, this.space);
    else if (frame.positions) this.setVertices([frame]);
    else throw new AnimdError('bad_answer', `a ${frame.layout} frame cannot drive a three.js scene`);
  }

  /**
   * Plays a clip through conn (a StreamConnection). mode 'fat' (default):
   * model-space matrices pose the nodes, three skins; 'thin': the daemon
   * skins every mapped mesh, `encoding` 'f32' (default) or 'q16', `normals`
   * (default true). The other fields (fps, speed, t0, wrap, ...) go on to
   * conn.play; `onframe(frame, stream)` is called after each frame
   * is applied; `statsEvery` (ms, default 1000; 0: never) asks the daemon
   * for the stream's skipped and dropped counts. Resolves with the Stream.
   */
  async play(conn, { mode = 'fat', encoding, normals = true, onframe = null, statsEvery = 1000, ...fields } = {}) {
    if (mode !== 'fat' && mode !== 'thin') throw new AnimdError('bad_argument', `mode '${mode}': fat or thin`);
    if (this.stream) await this.stop();
    const play = { ...fields, skeleton: this.skeleton.id, format: 'bin' };
    if (mode === 'fat') {
      if (encoding !== undefined) throw new AnimdError('bad_argument', 'encoding is for the thin client');
      play.space = 'model';
    } else {
      const ids = this.meshes.filter((e) => e.mesh).map((e) => e.id);
      if (!ids.length) throw new AnimdError('bad_argument', 'no daemon mesh maps to a SkinnedMesh of this scene');
      play.mesh = ids;
      play.normals = normals;
      if (encoding !== undefined) play.encoding = encoding;
    }
    this.mode = mode;
    this.space = 'model';
    this.resetState(mode);
    const stream = await conn.play(play);
    if (mode === 'thin' && stream.info.meshes) {
      // Frames hold the meshes in the answer's order.
      const byId = new Map(this.meshes.map((e) => [e.id, e]));
      this.meshes = stream.info.meshes.map((m) => byId.get(m.id) || { ...m, mesh: null })
        .concat(this.meshes.filter((e) => !stream.info.meshes.some((m) => m.id === e.id)));
    }
    this.stream = stream;
    this.started = now();
    stream.onframe = (frame, s) => {
      this.applyFrame(frame);
      this.count(frame, s);
      if (onframe) onframe(frame, s);
    };
    if (statsEvery > 0) {
      this.statsTimer = setInterval(() => { this.refreshStats().catch(() => {}); }, statsEvery);
    }
    return stream;
  }

  resetState(mode) {
    this.state = { mode, frames: 0, missed: 0, bytes: 0, fps: 0, skipped: 0, dropped: 0, frame: null, t: null };
    this.arrivals = [];
  }

  count(frame, stream) {
    const s = this.state;
    const c = stream.counters;
    s.frames = c.frames;
    s.missed = c.missed;
    s.bytes = c.bytes;
    s.frame = frame.frame;
    s.t = frame.t;
    const t = now();
    const a = this.arrivals;
    a.push(t);
    while (a.length > FPS_SAMPLES || (a.length && a[0] < t - FPS_WINDOW_MS)) a.shift();
    // Frames received over the last second (or since the stream started).
    s.fps = (a.length * 1000) / Math.max(1, Math.min(FPS_WINDOW_MS, t - this.started));
  }

  /** Asks the daemon for the stream's counters; resolves with this.state. */
  async refreshStats() {
    const stream = this.stream;
    if (!stream) return this.state;
    const st = await stream.conn.stats();
    const mine = (st.streams || []).find((x) => String(x.id) === stream.id);
    if (mine && stream === this.stream) {
      this.state.skipped = mine.skipped;
      this.state.dropped = mine.dropped;
    }
    return this.state;
  }

  /** Stops the stream (the scene keeps its last pose). */
  async stop() {
    clearInterval(this.statsTimer);
    this.statsTimer = null;
    const s = this.stream;
    this.stream = null;
    if (s && !s.stopped) {
      const a = await s.stop();
      this.state.skipped = a.skipped;
      this.state.dropped = a.dropped;
    }
  }

  /** Gives the scene back: nodes to their own matrices, thin meshes removed. */
  release() {
    clearInterval(this.statsTimer);
    this.statsTimer = null;
    if (this.stream && !this.stream.stopped) this.stream.stop().catch(() => {});
    this.stream = null;
    for (const [node, auto] of this.saved) node.matrixAutoUpdate = auto;
    this.saved.clear();
    for (const [skinned, thin] of this.thin) {
      skinned.visible = true;
      thin.removeFromParent();
      thin.geometry.dispose();
    }
    this.thin.clear();
  }
}

/**
 * A GltfRig for `gltf` from the daemon `animd` (an Animd client): fetches
 * the skeleton (`skeleton`: id or name) and its meshes (every listing
 * page). Options as GltfRig's (`scene`).
 */
export async function rigGltf(animd, gltf, { skeleton, ...options } = {}) {
  if (skeleton === undefined) throw new AnimdError('bad_argument', 'give the daemon\'s skeleton (id or name)');
  const rig = await animd.skeleton(skeleton);
  const meshes = [];
  for await (const { asset } of animd.listAll({ skeleton: rig.id, of: 'meshes' })) meshes.push(asset);
  return new GltfRig(gltf, rig, { meshes, ...options });
}

// ---- a scene of the daemon's own assets -------------------------------------------

/** Four influences per vertex, as three skins: the heaviest, renormalized. */
function fourInfluences(block) {
  const k = block.influences, v = block.vertexCount;
  if (k === 4) return { joints: block.joints, weights: block.weights };
  const joints = new Uint16Array(4 * v), weights = new Float32Array(4 * v);
  const slots = Array.from({ length: k }, (_, i) => i);
  for (let i = 0; i < v; i++) {
    const w = (s) => block.weights[i * k + s];
    const top = slots.slice().sort((a, b) => w(b) - w(a)).slice(0, 4);
    const sum = top.reduce((acc, s) => acc + w(s), 0) || 1;
    top.forEach((s, n) => {
      joints[4 * i + n] = block.joints[i * k + s];
      weights[4 * i + n] = w(s) / sum;
    });
  }
  return { joints, weights };
}

/**
 * A three.js scene standing for a skeleton and its meshes as the daemon
 * has them, in the form GltfRig reads ({scene}): `skeleton` the daemon's
 * GET /v1/skeletons/{id} answer; `meshes` [{name, block, material}] with
 * `block` a decoded mesh block (decodeMesh, GET /v1/meshes/{id}?format=bin)
 * and `material` a three Material (default: a double-sided
 * MeshStandardMaterial). A Bone per joint (name and userData.name the
 * joint's; rest pose the joint's translation, orient × rotation and scale),
 * children of their parent joint's Bone or of the scene; a SkinnedMesh per
 * mesh (named `name`) bound to one Skeleton of every Bone with the identity
 * bind matrix and the skeleton's inverseBindMatrices, so model-space poses
 * skin the bind positions as the daemon does. A block with 8 influences
 * gives three its 4 heaviest, renormalized. SkinnedMeshes are not
 * frustum-culled (their bind-pose bounds say nothing of the pose).
 */
export function assetScene(skeleton, meshes = []) {
  if (!skeleton || !Array.isArray(skeleton.joints)) {
    throw new AnimdError('bad_argument', 'skeleton: give the daemon\'s GET /v1/skeletons/{id} answer');
  }
  const scene = new Group();
  scene.name = skeleton.name || skeleton.id || 'animd';
  const joints = skeleton.joints;
  const bones = joints.map((j) => {
    const b = new Bone();
    b.name = j.name;
    b.userData.name = j.name;
    if (j.translation) b.position.fromArray(j.translation);
    if (j.rotation) b.quaternion.fromArray(j.rotation);
    if (j.orient) b.quaternion.premultiply(new Quaternion().fromArray(j.orient));
    if (j.scale) b.scale.fromArray(j.scale);
    return b;
  });
  joints.forEach((j, i) => {
    const p = j.parent;
    (p >= 0 && p < bones.length && p !== i ? bones[p] : scene).add(bones[i]);
  });
  const ibm = skeleton.inverseBindMatrices;
  const inverses = bones.map((_, i) => (ibm && ibm.length >= 16 * (i + 1)
    ? new Matrix4().fromArray(ibm, 16 * i) : new Matrix4()));
  const rig = meshes.length ? new Skeleton(bones, inverses) : null;
  for (const { name, block, material } of meshes) {
    const g = new BufferGeometry();
    g.setAttribute('position', new BufferAttribute(Float32Array.from(block.positions), 3));
    if (block.normals) g.setAttribute('normal', new BufferAttribute(Float32Array.from(block.normals), 3));
    else g.computeVertexNormals();
    if (block.texcoords) g.setAttribute('uv', new BufferAttribute(Float32Array.from(block.texcoords), 2));
    if (block.indices) g.setIndex(new BufferAttribute(Uint32Array.from(block.indices), 1));
    const { joints: ji, weights } = fourInfluences(block);
    g.setAttribute('skinIndex', new Uint16BufferAttribute(Uint16Array.from(ji), 4));
    g.setAttribute('skinWeight', new Float32BufferAttribute(Float32Array.from(weights), 4));
    const m = new SkinnedMesh(g, material || new MeshStandardMaterial({ side: DoubleSide }));
    m.name = name;
    m.frustumCulled = false;
    scene.add(m);
    m.bind(rig, new Matrix4());
  }
  scene.updateMatrixWorld(true);
  return { scene };
}

/**
 * The base-color texture of a daemon mesh when its upload embedded one
 * (PNG, JPEG or WebP: GET /v1/meshes/{id}/image), mapped as glTF maps it
 * (no vertical flip, sRGB); null without one. Needs a browser (an Image).
 */
export async function baseColorTexture(animd, mesh) {
  const info = await animd.meshInfo(mesh);
  const image = info.material && info.material.image;
  if (!image || !image.href || !/^image\/(png|jpeg|webp)$/.test(image.mimeType || '')) return null;
  const texture = await new TextureLoader().loadAsync(`${animd.url}/v1/meshes/${encodeURIComponent(mesh)}/image`);
  texture.flipY = false;
  texture.colorSpace = SRGBColorSpace;
  return texture;
}

/**
 * A GltfRig of the daemon's own assets (assetScene), for a skeleton whose
 * file the page does not have: `skeleton` an id or name, `meshes` the ids
 * (or names) of meshes of it to draw (default none: bones only), `textures`
 * (default true) their base-color textures (baseColorTexture, for a mesh
 * with texture coordinates; a texture that fails to load is left out), `material(block, texture, id)` the
 * Material of each mesh (default: a double-sided MeshStandardMaterial with
 * the texture). rig.scene is the scene to add; rig.meshes[k].id is
 * meshes[k] as given.
 */
export async function rigAssets(animd, { skeleton, meshes = [], textures = true, material = null } = {}) {
  if (skeleton === undefined) throw new AnimdError('bad_argument', 'give the daemon\'s skeleton (id or name)');
  const desc = await animd.skeleton(skeleton);
  const blocks = await Promise.all(meshes.map((id) => animd.mesh(id)));
  const maps = await Promise.all(meshes.map((id, k) => (textures && blocks[k].texcoords
    ? baseColorTexture(animd, id).catch(() => null) : null)));
  const make = material || ((block, map) => new MeshStandardMaterial({ map, side: DoubleSide }));
  const gltf = assetScene(desc, meshes.map((id, k) => ({
    name: id, block: blocks[k], material: make(blocks[k], maps[k], id),
  })));
  return new GltfRig(gltf, desc, {
    meshes: meshes.map((id, k) => ({ id, name: id, vertices: blocks[k].vertexCount })),
  });
}
