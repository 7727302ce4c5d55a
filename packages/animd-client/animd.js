// animd.js: the JavaScript client of the animd daemon, an ES module with no
// dependencies and no build step: the npm package animd-client (this folder,
// types in animd.d.ts), and the file the daemon serves at /client/animd.js.
// Node 20 and later use it as it is (give the WebSocket constructor of the
// `ws` package as an option there, and the daemon's URL).
//
// Key design choice: binary by default and zero-copy where the bytes allow
// it. Poses, skinned vertices and stream frames come back as Float32Array
// views over the bytes received, with their metadata beside them; a
// three.js skeleton is driven by copying those views into its bone
// matrices, and nothing else is copied on the way.
//
//   import { Animd } from '/client/animd.js';
//   const animd = new Animd();                     // same origin as the page
//   const pose = await animd.pose({ clip: 'wave', t: 0.5, space: 'skin' });
//   pose.data                                      // Float32Array, 16 per joint
//   const conn = animd.connect();
//   const s = await conn.play({ skeleton: 'demo-humanoid', clip: 'wave', space: 'skin' });
//   s.onframe = (f) => { f.data /* Float32Array view */ };

/** The client's version: the daemon's (ANIMD_VERSION) and the package's. */
export const version = '0.1.0';

/** Stream frame layouts, by the number in a binary frame's header. */
export const LAYOUTS = ['trs10', 'mat4', 'positions', 'positions+normals',
  'positions/q16', 'positions+normals/q16', 'positions/delta', 'positions+normals/delta'];

/** Bytes before the numbers of a WebSocket binary frame. */
export const STREAM_HEADER_BYTES = 32;
/** Bytes before the numbers of a binary range frame (HTTP). */
export const RANGE_HEADER_BYTES = 16;

/**
 * Every failure is an AnimdError: `code` and `message` as the daemon gave
 * them (or 'network', 'disconnected', 'bad_answer' for failures on the
 * way), `at` (the parameter or spot in the body, or null) and `status`
 * (the HTTP status; 0 for WebSocket and network failures).
 */
export class AnimdError extends Error {
  constructor(code, message, { at = null, status = 0, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AnimdError';
    this.code = code;
    this.at = at;
    this.status = status;
  }

  /** From the daemon's {"error":{"code","message","at"}}. */
  static from(error, status = 0) {
    const e = error || {};
    return new AnimdError(e.code || 'unknown', e.message || 'unknown error', {
      at: e.at === undefined ? null : e.at,
      status,
    });
  }
}

async function errorOf(res) {
  let body = null;
  try {
    body = await res.json();
  } catch {
    // Not JSON: the status tells what there is to tell.
  }
  if (body && body.error) return AnimdError.from(body.error, res.status);
  return new AnimdError(`http_${res.status}`, res.statusText || `HTTP ${res.status}`,
    { status: res.status });
}

// ---- the fields each call takes ----------------------------------------------

// The request fields of the daemon's shared table (root motion, morph
// weights, IK, blend spaces): which requests take each.
const QUERY_REQUEST_FIELDS = ['root_motion', 'weights'];
const WS_REQUEST_FIELDS = ['ik', 'root_motion', 'blend_space', 'weights'];

/**
 * The names each call's options (and each message's fields) may have, the
 * one list the client checks against: like the daemon, it refuses a name
 * it does not know (checkFields) rather than send or ignore it. A field the
 * daemon gains goes into its lists here.
 */
export const FIELDS = Object.freeze({
  /** new Animd({...}) */
  client: ['url', 'fetch', 'WebSocket', 'headers'],
  /** animd.connect({...}) */
  connect: ['WebSocket', 'reconnect', 'minDelay', 'maxDelay', 'onstatus'],
  /** GET /v1/pose: pose(), poseRange() */
  pose: ['skeleton', 'clip', 't', 'space', 'wrap', 'format', 'from', 'to', 'fps', 'joints', 'view',
    'layout', ...QUERY_REQUEST_FIELDS],
  /** GET /v1/skin: skin(), skinRange() */
  skin: ['mesh', 'skeleton', 'clip', 't', 'wrap', 'method', 'normals', 'format', 'from', 'to', 'fps',
    'encoding', ...QUERY_REQUEST_FIELDS],
  /** GET /v1/assets, /v1/skeletons/{id}/clips and /meshes: assets(), skeletonClips(), skeletonMeshes() */
  list: ['limit', 'after'],
  /** Every listing page: listAll({...}) */
  listAll: ['skeleton', 'of', 'limit', 'maxPages'],
  /** POST /v1/assets: upload(body, {...}) */
  upload: ['contentType', 'skeleton', 'name', 'clip', 'prefix', 'replace'],
  /** DELETE: delete(kind, id, {...}) */
  delete: ['cascade'],
  /** WebSocket play: conn.play({...}) (id and onframe are the client's) */
  play: ['id', 'onframe', 'skeleton', 'clip', 'mesh', 'mesh_all', 'fps', 'speed', 't0', 'wrap', 'space',
    'format', 'joints', 'normals', 'method', 'encoding', 'key_every', ...WS_REQUEST_FIELDS],
  /** WebSocket set: stream.set({...}) */
  set: ['fps', 'speed', 'space', 'format', 'wrap', 'encoding', 'key_every', 'key',
    ...WS_REQUEST_FIELDS],
  /** WebSocket pose: conn.pose({...}) */
  wsPose: ['id', 'skeleton', 'clip', 'mesh', 'mesh_all', 't', 'wrap', 'space', 'format', 'joints',
    'normals', 'method', 'encoding', ...WS_REQUEST_FIELDS],
});

// Edit distance with adjacent transpositions ("spcae" is one from "space").
function editDistance(a, b) {
  const d = [];
  for (let i = 0; i <= a.length; i++) d.push([i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/** The known name nearest to name, when it is near enough to be a typo of it; else null. */
export function nearestName(name, known) {
  let best = null, bestDistance = Infinity;
  for (const k of known) {
    const distance = editDistance(name.toLowerCase(), k.toLowerCase());
    if (distance < bestDistance) {
      best = k;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) && bestDistance < name.length ? best : null;
}

/**
 * Throws an AnimdError for the first member of object that FIELDS[kind]
 * does not list: code `unknown_parameter` for HTTP query parameters,
 * `unknown_field` for WebSocket message fields, `unknown_option` for the
 * client's own options (as the daemon, with `at` the name), the message
 * naming the nearest known name.
 */
export function checkFields(kind, object) {
  const known = FIELDS[kind];
  if (!known) throw new AnimdError('bad_argument', `no field list '${kind}'`);
  if (object === undefined || object === null) return;
  if (typeof object !== 'object' || Array.isArray(object)) {
    throw new AnimdError('bad_argument', `${kind} takes an object of options`, { at: null });
  }
  for (const name of Object.keys(object)) {
    if (known.includes(name)) continue;
    const code = kind === 'pose' || kind === 'skin' || kind === 'upload' || kind === 'delete' || kind === 'list'
      ? 'unknown_parameter'
      : kind === 'client' || kind === 'connect' || kind === 'listAll' ? 'unknown_option' : 'unknown_field';
    const near = nearestName(name, known);
    throw new AnimdError(code, `'${name}' is not a field of ${kind}` +
      (near ? ` (did you mean '${near}'?)` : ` (known: ${known.join(', ')})`), { at: name });
  }
}

// ---- content types of uploads ----------------------------------------------

const TYPES_BY_EXTENSION = {
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  bvh: 'application/x-bvh',
  md5mesh: 'application/x-md5mesh',
  md5anim: 'application/x-md5anim',
  json: 'application/json',
};

/** The Content-Type of an asset's text, from its first words. */
export function sniffText(text) {
  const head = text.slice(0, 4096).trimStart();
  if (head.startsWith('HIERARCHY')) return 'application/x-bvh';
  if (head.startsWith('MD5Version')) {
    return /\bnumFrames\b/.test(head) ? 'application/x-md5anim' : 'application/x-md5mesh';
  }
  if (head.startsWith('{')) {
    return /"asset"\s*:\s*\{/.test(head) && !/"skeleton"\s*:/.test(head)
      ? 'model/gltf+json' : 'application/json';
  }
  return null;
}

/** The Content-Type of an asset's bytes. */
export function sniffBytes(bytes) {
  if (bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c &&
      bytes[2] === 0x54 && bytes[3] === 0x46) return 'model/gltf-binary'; // "glTF"
  return sniffText(new TextDecoder().decode(bytes.subarray(0, 4096)));
}

async function uploadBody(body, contentType) {
  if (typeof body === 'string') return { data: body, type: contentType || sniffText(body) };
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
    const bytes = body instanceof ArrayBuffer ? new Uint8Array(body)
      : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    return { data: bytes, type: contentType || sniffBytes(bytes) };
  }
  if (typeof Blob !== 'undefined' && body instanceof Blob) {
    const ext = typeof body.name === 'string' ? body.name.split('.').pop().toLowerCase() : '';
    let type = contentType || TYPES_BY_EXTENSION[ext] ||
      (Object.values(TYPES_BY_EXTENSION).includes(body.type) ? body.type : null);
    const bytes = new Uint8Array(await body.arrayBuffer());
    return { data: bytes, type: type || sniffBytes(bytes) };
  }
  if (body && typeof body === 'object') {
    const type = contentType || (body.asset && !body.skeleton ? 'model/gltf+json' : 'application/json');
    return { data: JSON.stringify(body), type };
  }
  throw new AnimdError('bad_argument', 'upload takes a File, Blob, ArrayBuffer, typed array, string or object');
}

// ---- binary decoders -------------------------------------------------------

/**
 * Decodes a q16 payload (encoding=q16: f32 min[3], f32 max[3], u16
 * positions[3V], with normals i16 octahedral normals[2V]) at byteOffset of
 * buffer into Float32Arrays {positions, normals (null without)}.
 */
export function decodeQ16(buffer, byteOffset, vertices, withNormals) {
  const dv = new DataView(buffer, byteOffset);
  const min = [0, 1, 2].map((i) => dv.getFloat32(4 * i, true));
  const max = [0, 1, 2].map((i) => dv.getFloat32(12 + 4 * i, true));
  const positions = new Float32Array(3 * vertices);
  for (let i = 0; i < 3 * vertices; i++) {
    const a = i % 3;
    positions[i] = min[a] + (dv.getUint16(24 + 2 * i, true) / 65535) * (max[a] - min[a]);
  }
  let normals = null;
  if (withNormals) {
    normals = new Float32Array(3 * vertices);
    const base = 24 + 6 * vertices;
    for (let v = 0; v < vertices; v++) {
      let x = dv.getInt16(base + 4 * v, true) / 32767;
      let y = dv.getInt16(base + 4 * v + 2, true) / 32767;
      const z = 1 - Math.abs(x) - Math.abs(y);
      if (z < 0) {
        const fx = (1 - Math.abs(y)) * (x >= 0 ? 1 : -1);
        y = (1 - Math.abs(x)) * (y >= 0 ? 1 : -1);
        x = fx;
      }
      const len = Math.hypot(x, y, z) || 1;
      normals[3 * v] = x / len;
      normals[3 * v + 1] = y / len;
      normals[3 * v + 2] = z / len;
    }
  }
  return { positions, normals };
}

// ---- delta frames (encoding 'delta', docs/api.md "Delta frames") --------

/**
 * The chain of one delta stream: decode(buffer, byteOffset, byteLength)
 * turns a delta payload into the q16 payload of the same frame
 * ({q16: ArrayBuffer, seq, key}), or answers null when the frames it is
 * against were not received (ask for a key frame: set {key: true}).
 */
export class DeltaDecoder {
  constructor() {
    this.held = []; // q16 payloads as [x, y, z, u, v] Int32Arrays, newest last
    this.parents = null; // parent distances of the chain's key frame
    this.nextSeq = -1;
  }

  decode(buffer, byteOffset, byteLength) {
    const dv = new DataView(buffer, byteOffset, byteLength);
    const seq = dv.getUint32(0, true);
    const flags = dv.getUint32(4, true);
    const vertices = dv.getUint32(8, true);
    const nbytes = dv.getUint32(12, true);
    if ((flags & ~7) !== 0 || (flags & 3) === 3 || 40 + nbytes > byteLength) {
      throw new AnimdError('bad_frame', 'not a delta frame');
    }
    const key = (flags & 1) !== 0;
    const order2 = (flags & 2) !== 0;
    const normals = (flags & 4) !== 0;
    if (!key && (this.held.length < (order2 ? 2 : 1) || seq !== this.nextSeq
        || this.parents === null || this.parents.length !== vertices)) return null;
    const a = key ? null : this.held[this.held.length - 1];
    const b = order2 ? this.held[this.held.length - 2] : null;
    const bytes = new Uint8Array(buffer, byteOffset + 40, nbytes);
    let pos = 0; // bit position, least significant bit of each byte first
    const corrupt = () => {
      this.held = [];
      return new AnimdError('bad_frame', 'corrupt delta frame');
    };
    const bit = () => {
      if (pos >= 8 * nbytes) throw corrupt();
      const v = (bytes[pos >> 3] >> (pos & 7)) & 1;
      pos++;
      return v;
    };
    const bitsOf = (n) => {
      let v = 0;
      for (let i = 0; i < n; i++) v += bit() * 2 ** i;
      return v;
    };
    const rice = (k) => {
      let q = 0;
      while (bit() === 1) if (++q > (2 ** 19 - 1) / 2 ** k) throw corrupt();
      const z = q * 2 ** k + bitsOf(k);
      if (z >= 2 ** 19) throw corrupt();
      return z;
    };
    const groups = (fn) => {
      for (let g = 0; g < vertices; g += 16) {
        const k = bitsOf(5);
        if (k > 19) throw corrupt();
        for (let i = g; i < Math.min(g + 16, vertices); i++) fn(i, rice(k));
      }
    };
    let parents = this.parents;
    if (key) {
      parents = new Uint32Array(vertices);
      groups((i, z) => { if (z > i) throw corrupt(); parents[i] = z; });
    }
    const planes = [];
    for (let c = 0; c < (normals ? 5 : 3); c++) {
      const q = new Int32Array(vertices);
      const pred = (i) => (a ? (b ? 2 * a[c][i] - b[c][i] : a[c][i]) : 0);
      const lo = c < 3 ? 0 : -32767;
      const hi = c < 3 ? 65535 : 32767;
      groups((i, z) => {
        const e = z % 2 ? -(z + 1) / 2 : z / 2;
        const p = i - parents[i];
        const v = pred(i) + e + (parents[i] ? q[p] - pred(p) : 0);
        if (v < lo || v > hi) throw corrupt();
        q[i] = v;
      });
      planes.push(q);
    }
    if (nbytes * 8 - pos >= 8) throw corrupt();
    this.parents = parents;
    this.held = [...this.held, planes].slice(-2);
    this.nextSeq = seq + 1;
    const size = (24 + vertices * (normals ? 10 : 6) + 3) & ~3;
    const out = new ArrayBuffer(size);
    const ov = new DataView(out);
    new Uint8Array(out, 0, 24).set(new Uint8Array(buffer, byteOffset + 16, 24));
    for (let i = 0; i < vertices; i++) {
      for (let c = 0; c < 3; c++) ov.setUint16(24 + 6 * i + 2 * c, planes[c][i], true);
      if (normals) {
        ov.setInt16(24 + 6 * vertices + 4 * i, planes[3][i], true);
        ov.setInt16(24 + 6 * vertices + 4 * i + 2, planes[4][i], true);
      }
    }
    return { q16: out, seq, key };
  }
}

/** A delta stream frame's positions and normals through its chain; frame.gap when it cannot be decoded. */
function decodeDeltaStreamFrame(buffer, frame, delta) {
  const d = delta ? delta.decode(buffer, STREAM_HEADER_BYTES, 4 * frame.count) : null;
  frame.gap = d === null;
  if (d === null) return frame;
  const q = decodeQ16(d.q16, 0, frame.items, frame.layout.startsWith('positions+normals'));
  frame.positions = q.positions;
  frame.normals = q.normals;
  frame.data = q.positions;
  frame.seq = d.seq;
  frame.key = d.key;
  return frame;
}

/**
 * The header of a WebSocket binary frame and a view of its numbers; with
 * `meshes` (a stream of several meshes: play's `mesh` array or `mesh_all`),
 * `frame.meshes` holds one decoded block per mesh (decodeSkinMeshes).
 */
export function decodeStreamFrame(buffer, meshes = false, delta = null) {
  const dv = new DataView(buffer);
  const count = dv.getUint32(24, true);
  const layoutIndex = dv.getUint32(4, true);
  const n = dv.getUint32(28, true);
  const frame = {
    index: dv.getUint32(0, true),
    layout: LAYOUTS[layoutIndex] || String(layoutIndex),
    frame: dv.getUint32(8, true) + dv.getUint32(12, true) * 2 ** 32,
    t: dv.getFloat64(16, true),
    count,
    items: n,
    data: null,
    byteLength: buffer.byteLength,
  };
  if (meshes) {
    frame.meshes = decodeSkinMeshes(buffer, frame.layout, STREAM_HEADER_BYTES);
    return frame;
  }
  if (frame.layout.endsWith('/delta')) return decodeDeltaStreamFrame(buffer, frame, delta);
  if (frame.layout.endsWith('/q16')) {
    const q = decodeQ16(buffer, STREAM_HEADER_BYTES, n, frame.layout.startsWith('positions+normals'));
    frame.positions = q.positions;
    frame.normals = q.normals;
    frame.data = q.positions;
    return frame;
  }
  frame.data = new Float32Array(buffer, STREAM_HEADER_BYTES, count);
  return withSplitViews(frame);
}

/** For positions+normals, views of each half; for mat4 and trs10, nothing more. */
function withSplitViews(f) {
  if (f.layout === 'positions') {
    f.positions = f.data;
    f.normals = null;
  } else if (f.layout === 'positions+normals') {
    const half = f.data.length / 2;
    f.positions = f.data.subarray(0, half);
    f.normals = f.data.subarray(half);
  }
  return f;
}

/**
 * Decodes the mesh block of GET /v1/meshes/{id}?format=bin (docs/api.md)
 * at byteOffset of buffer: views of every section, no copies. Layout
 * version 2 (a mesh with morph targets) adds morphTargets; otherwise null.
 */
export function decodeMesh(buffer, byteOffset = 0) {
  const dv = new DataView(buffer, byteOffset);
  const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
  if (magic !== 'AMSH') throw new AnimdError('bad_answer', 'not a mesh block (magic ' + magic + ')');
  const version = dv.getUint32(4, true);
  if (version !== 1 && version !== 2) throw new AnimdError('bad_answer', `mesh layout version ${version} is not known`);
  const u32 = (at) => dv.getUint32(at, true);
  const f32 = (at) => dv.getFloat32(at, true);
  const flags = u32(12), v = u32(16), ni = u32(20), k = u32(24);
  const at = (o) => byteOffset + o;
  const floats = (o, n) => new Float32Array(buffer, at(o), n);
  return {
    vertexCount: v,
    indexCount: ni,
    influences: k,
    jointCount: u32(28),
    byteLength: u32(56),
    bounds: { min: [f32(64), f32(68), f32(72)], max: [f32(76), f32(80), f32(84)] },
    positions: floats(u32(36), 3 * v),
    normals: flags & 1 ? floats(u32(40), 3 * v) : null,
    texcoords: flags & 2 ? floats(u32(44), 2 * v) : null,
    joints: new Uint16Array(buffer, at(u32(48)), k * v),
    weights: floats(u32(52), k * v),
    indices: flags & 4 ? new Uint32Array(buffer, at(u32(32)), ni) : null,
    morphTargets: flags & 8 ? morphTargets(buffer, at, u32(88), u32(92), v, flags & 16) : null,
  };
}

// Version 2's morph targets section (docs/api.md "Morph targets"):
// {positions: [T views of 3V], normals: [T views] or null, weights}.
function morphTargets(buffer, at, t, o, v, withNormals) {
  const view = (i) => new Float32Array(buffer, at(o + 12 * v * i), 3 * v);
  const positions = [], normals = withNormals ? [] : null;
  for (let i = 0; i < t; i++) positions.push(view(i));
  for (let i = 0; withNormals && i < t; i++) normals.push(view(t + i));
  const weights = new Float32Array(buffer, at(o + 12 * v * t * (withNormals ? 2 : 1)), t);
  return { positions, normals, weights };
}

/**
 * The blocks of a binary skin answer with several meshes (GET /v1/skin with
 * `skeleton`, docs/api.md "Several meshes"): each a 16-byte header (u32 the
 * mesh's position in the answer, or the frame index in a range; u32 count of
 * 32-bit words; f64 clip time) and the mesh's payload, exactly the
 * single-mesh answer's bytes. layout is X-Animd-Layout. Returns
 * [{index, t, count, layout, vertices, data, positions, normals}]: views of
 * buffer for float32, decoded copies for q16.
 */
export function decodeSkinMeshes(buffer, layout, byteOffset = 0) {
  const q16 = layout.endsWith('/q16');
  const withNormals = layout.startsWith('positions+normals');
  const out = [];
  for (let off = byteOffset; off < buffer.byteLength;) {
    if (buffer.byteLength - off < RANGE_HEADER_BYTES)
      throw new AnimdError('truncated', 'the answer ended inside a block header');
    const dv = new DataView(buffer, off, RANGE_HEADER_BYTES);
    const index = dv.getUint32(0, true);
    const count = dv.getUint32(4, true);
    const t = dv.getFloat64(8, true);
    const at = off + RANGE_HEADER_BYTES;
    if (at + 4 * count > buffer.byteLength)
      throw new AnimdError('truncated', `block ${out.length} ends past the answer`);
    if (q16) {
      const vertices = Math.floor((4 * count - 24) / (withNormals ? 10 : 6));
      const q = decodeQ16(buffer, at, vertices, withNormals);
      out.push({ index, t, count, layout, vertices, data: q.positions, ...q });
    } else {
      out.push(withSplitViews({ index, t, count, layout, vertices: count / (withNormals ? 6 : 3),
                                data: new Float32Array(buffer, at, count) }));
    }
    off = at + 4 * count;
  }
  return out;
}

/** Every mesh block of a buffer, one after the other (an answer with several meshes). */
export function decodeMeshes(buffer) {
  const meshes = [];
  for (let off = 0; off < buffer.byteLength;) {
    const m = decodeMesh(buffer, off);
    if (m.byteLength <= 0) break;
    meshes.push(m);
    off += m.byteLength;
  }
  return meshes;
}

/** Binary range frames from a byte stream: {index, t, count, data}. */
export async function* decodeRangeFrames(chunks) {
  let buf = new Uint8Array(0);
  for await (const chunk of chunks) {
    const joined = new Uint8Array(buf.length + chunk.length);
    joined.set(buf);
    joined.set(chunk, buf.length);
    buf = joined;
    let off = 0;
    while (buf.length - off >= RANGE_HEADER_BYTES) {
      const dv = new DataView(buf.buffer, buf.byteOffset + off, RANGE_HEADER_BYTES);
      const count = dv.getUint32(4, true);
      const end = off + RANGE_HEADER_BYTES + 4 * count;
      if (end > buf.length) break;
      // One copy per frame: chunk boundaries fall anywhere, and a frame's
      // floats must start 4-byte aligned to be viewed.
      const data = new Float32Array(count);
      new Uint8Array(data.buffer).set(buf.subarray(off + RANGE_HEADER_BYTES, end));
      yield { index: dv.getUint32(0, true), t: dv.getFloat64(8, true), count, data };
      off = end;
    }
    buf = buf.slice(off);
  }
  if (buf.length) throw new AnimdError('truncated', `the range ended inside a frame (${buf.length} bytes left)`);
}

async function* bodyChunks(res) {
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

async function* jsonLines(res) {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of bodyChunks(res)) {
    text += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = text.indexOf('\n')) >= 0) {
      const line = text.slice(0, nl).trim();
      text = text.slice(nl + 1);
      if (line) yield JSON.parse(line);
    }
  }
  if (text.trim()) yield JSON.parse(text);
}

// ---- the HTTP client -------------------------------------------------------

function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) q.set(k, v.join(','));
    else if (typeof v === 'boolean') q.set(k, v ? '1' : '0');
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

/** What listAll stops at when the caller gives no maxPages. */
const LIST_MAX_PAGES = 1000;
/** A listing page's lists, in listing order, and what each holds. */
const LIST_KINDS = [['skeleton', 'skeletons'], ['clip', 'clips'], ['mesh', 'meshes']];

function skeletonListPath(id, of) {
  return '/v1/skeletons/' + encodeURIComponent(id) + '/' + of;
}

/**
 * The daemon at `url` (default: the page's own origin). Options: `fetch`
 * (default globalThis.fetch), `WebSocket` (default globalThis.WebSocket;
 * under Node 20 pass the `ws` package's), `headers` (sent with every HTTP
 * request, e.g. Authorization).
 */
export class Animd {
  constructor(options = {}) {
    checkFields('client', options);
    const { url, fetch: fetchFn, WebSocket: WS, headers } = options;
    const base = url || (typeof location !== 'undefined' ? location.origin : null);
    if (!base) throw new AnimdError('bad_argument', 'give the daemon\'s url (no page origin here)');
    this.url = base.replace(/\/+$/, '');
    this.fetch = fetchFn || globalThis.fetch.bind(globalThis);
    this.WebSocket = WS || globalThis.WebSocket;
    this.headers = headers || {};
  }

  async request(method, path, { body, type, accept } = {}) {
    const headers = { ...this.headers };
    if (type) headers['Content-Type'] = type;
    if (accept) headers.Accept = accept;
    let res;
    try {
      res = await this.fetch(this.url + path, { method, headers, body });
    } catch (cause) {
      throw new AnimdError('network', `${method} ${path}: ${cause.message || cause}`, { cause });
    }
    if (!res.ok) throw await errorOf(res);
    return res;
  }

  async json(path) {
    return (await this.request('GET', path)).json();
  }

  /** GET /v1/info, one skeleton, clip or mesh (JSON). */
  info() { return this.json('/v1/info'); }
  skeleton(id) { return this.json('/v1/skeletons/' + encodeURIComponent(id)); }
  clip(id) { return this.json('/v1/clips/' + encodeURIComponent(id)); }
  meshInfo(id) { return this.json('/v1/meshes/' + encodeURIComponent(id)); }

  // ---- listings: one page, or every page ----------------------------------------

  /**
   * One page of GET /v1/assets: `limit` (assets per page; the daemon's
   * list_limit when left out) after `after` (a previous page's `next`).
   * The answer ends with `next` when more follow.
   */
  assets(options = {}) { return this.listPage('/v1/assets', options); }
  /** One page of GET /v1/skeletons/{id}/clips (options as assets()). */
  skeletonClips(id, options = {}) { return this.listPage(skeletonListPath(id, 'clips'), options); }
  /** One page of GET /v1/skeletons/{id}/meshes (options as assets()). */
  skeletonMeshes(id, options = {}) { return this.listPage(skeletonListPath(id, 'meshes'), options); }

  async listPage(path, options) {
    checkFields('list', options);
    const { limit, after } = options || {};
    return this.json(path + query({ limit, after }));
  }

  /**
   * Every asset of a listing, page after page, as {kind, asset} (kind
   * 'skeleton', 'clip' or 'mesh'; asset the daemon's entry): GET
   * /v1/assets, or with `skeleton` and `of` ('clips' or 'meshes') that
   * skeleton's. `limit`: assets per page; `maxPages` (default 1000): more
   * pages than this is an AnimdError 'too_many_pages' (at 'maxPages').
   */
  async* listAll(options = {}) {
    checkFields('listAll', options);
    const { skeleton, of, limit, maxPages = LIST_MAX_PAGES } = options;
    if (!Number.isInteger(maxPages) || maxPages < 1) {
      throw new AnimdError('bad_argument', `maxPages ${maxPages}: a whole number, 1 or more`, { at: 'maxPages' });
    }
    if ((skeleton === undefined) !== (of === undefined)) {
      throw new AnimdError('bad_argument', 'give skeleton and of together (or neither: every asset)',
        { at: skeleton === undefined ? 'skeleton' : 'of' });
    }
    if (of !== undefined && of !== 'clips' && of !== 'meshes') {
      throw new AnimdError('bad_argument', `of '${of}': clips or meshes`, { at: 'of' });
    }
    const path = skeleton === undefined ? '/v1/assets' : skeletonListPath(skeleton, of);
    let after;
    for (let pages = 0; ; pages++) {
      if (pages === maxPages) {
        throw new AnimdError('too_many_pages', `${path}: more than ${maxPages} pages (maxPages)`, { at: 'maxPages' });
      }
      const page = await this.listPage(path, { limit, after });
      for (const [kind, list] of LIST_KINDS) {
        for (const asset of page[list] || []) yield { kind, asset };
      }
      if (page.next === undefined) return;
      if (typeof page.next !== 'string' || page.next === after) {
        throw new AnimdError('bad_answer', `${path}: a page's next ${JSON.stringify(page.next)} does not move on`);
      }
      after = page.next;
    }
  }

  /** The mesh as GPU-ready views (decodeMesh), from its binary form. */
  async mesh(id) {
    const res = await this.request('GET', '/v1/meshes/' + encodeURIComponent(id) + '?format=bin');
    return decodeMesh(await res.arrayBuffer());
  }

  /** DELETE /v1/{skeletons,clips,meshes}/{id}; kind is 'skeleton', 'clip' or 'mesh'. */
  async delete(kind, id, options = {}) {
    checkFields('delete', options);
    const { cascade } = options;
    const plural = { skeleton: 'skeletons', clip: 'clips', mesh: 'meshes' }[kind];
    if (!plural) throw new AnimdError('bad_argument', `no asset kind '${kind}'`);
    return (await this.request('DELETE', `/v1/${plural}/${encodeURIComponent(id)}` +
      query({ cascade }))).json();
  }

  /**
   * POST /v1/assets. body: a File or Blob (type from its name or type), an
   * ArrayBuffer or typed array (glb recognised by its magic), a string
   * (BVH, MD5, JSON or glTF recognised by its first words) or an object
   * (sent as JSON). Options: contentType, and the upload's query
   * parameters (skeleton for an md5anim, name, clip).
   */
  async upload(body, options = {}) {
    checkFields('upload', options);
    const { contentType, ...params } = options;
    const { data, type } = await uploadBody(body, contentType);
    if (!type) throw new AnimdError('bad_argument', 'cannot tell the asset\'s format: give contentType');
    return (await this.request('POST', '/v1/assets' + query(params), { body: data, type })).json();
  }

  /**
   * One pose (GET /v1/pose). params: skeleton, clip, t, space
   * (model|local|skin), wrap, joints (names), format ('bin' default).
   * Binary: {skeleton, clip, t, space, layout, joints, data: Float32Array,
   * etag}; JSON: the daemon's object.
   */
  async pose(options = {}) {
    checkFields('pose', options);
    const { format = 'bin', ...params } = options;
    const res = await this.request('GET', '/v1/pose' + query({ ...params, format }));
    if (format !== 'bin') return res.json();
    const data = new Float32Array(await res.arrayBuffer());
    return {
      skeleton: params.skeleton, clip: params.clip, t: params.t, space: params.space || 'model',
      layout: res.headers.get('X-Animd-Layout'),
      joints: Number(res.headers.get('X-Animd-Joints')),
      etag: res.headers.get('ETag'),
      data,
    };
  }

  /**
   * Skinned vertices of a mesh (GET /v1/skin). params: mesh, clip, t,
   * normals, method (lbs|dqs), wrap, format ('bin' default). Binary:
   * {layout, vertices, data, positions, normals (views; null without)}.
   */
  async skin(options = {}) {
    checkFields('skin', options);
    const { format = 'bin', ...params } = options;
    const res = await this.request('GET', '/v1/skin' + query({ ...params, format }));
    if (format !== 'bin') return res.json();
    const layout = res.headers.get('X-Animd-Layout') || '';
    if (params.skeleton !== undefined) {
      // Several meshes: one block each, in the order asked (mesh=[...]) or
      // of GET /v1/skeletons/{id}/meshes.
      return { skeleton: params.skeleton, clip: params.clip, t: params.t, layout,
               etag: res.headers.get('ETag'),
               meshes: decodeSkinMeshes(await res.arrayBuffer(), layout) };
    }
    if (layout.endsWith('/q16')) {
      const vertices = Number(res.headers.get('X-Animd-Vertices'));
      const q = decodeQ16(await res.arrayBuffer(), 0, vertices, layout.startsWith('positions+normals'));
      return { mesh: params.mesh, clip: params.clip, t: params.t, layout, vertices,
               etag: res.headers.get('ETag'), data: q.positions, ...q };
    }
    const data = new Float32Array(await res.arrayBuffer());
    return withSplitViews({
      mesh: params.mesh, clip: params.clip, t: params.t,
      layout: res.headers.get('X-Animd-Layout'),
      vertices: Number(res.headers.get('X-Animd-Vertices')),
      etag: res.headers.get('ETag'),
      data,
    });
  }

  /** A range of poses (from, to, fps), frame by frame as they arrive. */
  poseRange(params) { return this.range('/v1/pose', params); }
  /** A range of skinned vertices (from, to, fps), frame by frame. */
  skinRange(params) { return this.range('/v1/skin', params); }

  async* range(path, options = {}) {
    checkFields(path === '/v1/skin' ? 'skin' : 'pose', options);
    const { format = 'bin', ...params } = options;
    const res = await this.request('GET', path + query({ ...params, format }));
    if (format !== 'bin') {
      yield* jsonLines(res);
      return;
    }
    const layout = res.headers.get('X-Animd-Layout');
    for await (const f of decodeRangeFrames(bodyChunks(res))) yield withSplitViews({ ...f, layout });
  }

  /** A WebSocket connection for streams (StreamConnection). */
  connect(options = {}) {
    checkFields('connect', options);
    return new StreamConnection(this, options);
  }
}

// ---- WebSocket streams -----------------------------------------------------

/**
 * One stream of a connection. Set `onframe` to receive frames: binary
 * frames as {frame, t, layout, count, items, data: Float32Array view,
 * positions/normals views for mesh layouts}; JSON frames as the daemon's
 * object. Set `onevent` to receive the clip's events, each just before
 * the frame that crossed it (docs/api.md, Clip events). `counters` holds what the client saw: frames, bytes, missed
 * (frame numbers that never arrived: skipped by a late tick or dropped by
 * backpressure; `stats()` of the connection tells which).
 */
export class Stream {
  constructor(conn, id, play) {
    this.conn = conn;
    this.id = id;
    this.play = play;
    this.info = null;
    this.paused = false;
    this.stopped = false;
    this.lastFrame = null;
    this.lastT = null;
    this.onframe = null;
    this.onevent = null; // ({type: 'event', id, name, t, frame}) => ...
    this.counters = { frames: 0, bytes: 0, missed: 0 };
    this.delta = new DeltaDecoder(); // encoding 'delta': the frames received
  }

  get index() { return this.info ? this.info.index : -1; }
  get layout() { return this.info ? this.info.layout : null; }
  get duration() { return this.info ? this.info.duration : 0; }

  deliver(frame, bytes) {
    if (frame.gap) { // a delta frame after a lost one: ask for a key frame
      if (!this.keyAsked) this.conn.send({ op: 'set', id: this.id, key: true }).catch(() => {});
      this.keyAsked = true;
      return;
    }
    this.keyAsked = false;
    const c = this.counters;
    if (this.lastFrame !== null && frame.frame > this.lastFrame + 1) c.missed += frame.frame - this.lastFrame - 1;
    c.frames++;
    c.bytes += bytes;
    this.lastFrame = frame.frame;
    this.lastT = frame.t;
    if (this.onframe) this.onframe(frame, this);
  }

  async pause() {
    const a = await this.conn.send({ op: 'pause', id: this.id });
    this.paused = true;
    return a;
  }

  async resume() {
    const a = await this.conn.send({ op: 'resume', id: this.id });
    this.paused = false;
    return a;
  }

  /** The next frame shows clip time t (a paused stream sends that frame once). */
  seek(t) { return this.conn.send({ op: 'seek', id: this.id, t }); }

  /** Changes fps, speed, space, format or wrap from the next frame. */
  async set(fields) {
    checkFields('set', fields);
    const a = await this.conn.send({ op: 'set', id: this.id, ...fields });
    Object.assign(this.play, fields);
    this.info = a;
    return a;
  }

  async stop() {
    this.stopped = true;
    this.conn.forget(this);
    return this.conn.send({ op: 'stop', id: this.id });
  }
}

/**
 * A WebSocket to /v1/stream carrying any number of streams. Options:
 * `WebSocket` (constructor; default the client's), `reconnect` (true),
 * `minDelay`/`maxDelay` (ms, 250 / 8000: the back-off between attempts
 * doubles from one to the other, with jitter), `onstatus(status, detail)`
 * ('open', 'reconnecting', 'closed'). After a reconnect every stream plays
 * again from the clip time of its last frame, paused if it was.
 */
export class StreamConnection {
  constructor(client, { WebSocket: WS, reconnect = true, minDelay = 250, maxDelay = 8000,
    onstatus = null } = {}) {
    this.client = client;
    this.WebSocket = WS || client.WebSocket;
    if (!this.WebSocket) throw new AnimdError('bad_argument', 'no WebSocket constructor: pass one (Node: the ws package)');
    this.url = client.url.replace(/^http/, 'ws') + '/v1/stream';
    this.reconnect = reconnect;
    this.minDelay = minDelay;
    this.maxDelay = maxDelay;
    this.onstatus = onstatus;
    this.streams = new Map(); // id -> Stream
    this.byIndex = new Map(); // index -> Stream
    this.pending = []; // control messages waiting for their answer, in order
    this.attempts = 0;
    this.closed = false;
    this.nextId = 1;
    this.ready = this.open();
  }

  open() {
    return new Promise((resolve, reject) => {
      const ws = new this.WebSocket(this.url);
      ws.binaryType = 'arraybuffer';
      this.ws = ws;
      let opened = false;
      ws.onopen = () => {
        opened = true;
        this.attempts = 0;
        this.status('open');
        resolve();
        this.replay();
      };
      ws.onmessage = (ev) => this.receive(ev.data);
      ws.onerror = () => {}; // onclose follows and tells what to do
      ws.onclose = (ev) => {
        const err = new AnimdError('disconnected', `the stream connection closed (${ev.code})`);
        for (const p of this.pending.splice(0)) p.reject(err);
        this.byIndex.clear();
        if (!opened && this.attempts === 0 && !this.reconnect) {
          reject(new AnimdError(ev.code === 1006 ? 'network' : 'disconnected',
            `could not open ${this.url} (${ev.code})`));
          return;
        }
        if (!opened) resolve(); // a failed retry: the next one is scheduled below
        if (this.closed || !this.reconnect) {
          this.status('closed', ev.code);
          return;
        }
        const delay = Math.min(this.maxDelay, this.minDelay * 2 ** this.attempts++);
        this.status('reconnecting', delay);
        this.ready = new Promise((res) => {
          this.retry = setTimeout(() => this.open().then(res), delay * (0.5 + Math.random() / 2));
        });
      };
    });
  }

  status(s, detail) {
    if (this.onstatus) this.onstatus(s, detail);
  }

  /** Starts every known stream again on a new socket. */
  replay() {
    for (const s of this.streams.values()) {
      if (!s.info) continue; // its first play is still on its way
      const play = { ...s.play };
      if (s.lastT !== null) play.t0 = s.lastT;
      this.send({ op: 'play', id: s.id, ...play })
        .then((info) => {
          s.info = info;
          this.byIndex.set(info.index, s);
          s.lastFrame = null;
          if (s.paused) return this.send({ op: 'pause', id: s.id });
          return null;
        })
        .catch(() => {});
    }
  }

  receive(data) {
    if (typeof data !== 'string') {
      const buffer = data instanceof ArrayBuffer ? data
        : data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
      const index = new DataView(buffer).getUint32(0, true);
      if (index === 0xffffffff) {
        const p = this.pending.find((q) => q.msg.op === 'pose');
        const multi = !!p && (Array.isArray(p.msg.mesh) || !!p.msg.mesh_all);
        return this.answer({ op: 'pose' }, decodeStreamFrame(buffer, multi));
      }
      const s = this.byIndex.get(index);
      if (s) s.deliver(decodeStreamFrame(buffer, !!(s.info && s.info.meshes), s.delta), buffer.byteLength);
      return undefined;
    }
    const msg = JSON.parse(data);
    if (msg.error) return this.fail(msg);
    if (msg.op) return this.answer(msg, msg);
    if (msg.type === 'event') { // a clip event, just before its frame
      const e = this.streams.get(String(msg.id));
      if (e && e.onevent) e.onevent(msg);
      return undefined;
    }
    const s = msg.frame !== undefined ? this.streams.get(String(msg.id)) : undefined;
    if (s && s.info) {
      s.deliver(msg, data.length);
      return undefined;
    }
    return this.answer({ op: 'pose' }, msg); // a one-shot pose in JSON
  }

  answer(msg, value) {
    const i = this.pending.findIndex((p) => p.msg.op === msg.op &&
      (msg.id === undefined || String(p.msg.id) === String(msg.id)));
    if (i < 0) return;
    const [p] = this.pending.splice(i, 1);
    // A stream's frame 0 may come in the same read as play's answer, before
    // the promise's continuation runs: route its index from here.
    const s = msg.op === 'play' ? this.streams.get(String(msg.id)) : undefined;
    if (s && typeof msg.index === 'number') {
      s.info = msg;
      this.byIndex.set(msg.index, s);
    }
    p.resolve(value);
  }

  fail(msg) {
    const id = msg.id === undefined ? undefined : String(msg.id);
    let i = this.pending.findIndex((p) => id !== undefined && String(p.msg.id) === id);
    if (i < 0) i = 0;
    const err = AnimdError.from(msg.error, 0);
    if (!this.pending.length) {
      this.status('error', err);
      return;
    }
    const [p] = this.pending.splice(i, 1);
    p.reject(err);
  }

  /** Sends a control message and waits for its answer (or error). */
  async send(msg) {
    await this.ready;
    if (!this.ws || this.ws.readyState !== 1) {
      throw new AnimdError('disconnected', 'the stream connection is not open');
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ msg, resolve, reject });
      this.ws.send(JSON.stringify(msg));
    });
  }

  /**
   * Starts a stream: the `play` fields (FIELDS.play: skeleton, clip, mesh,
   * fps, speed, t0, wrap, space, format ('bin' default), joints, normals,
   * method, encoding, ik, blend_space, ...) and optionally id and onframe;
   * an unknown field rejects (checkFields). Resolves with the Stream once
   * the daemon has described it (index, layout, joints or vertices,
   * duration).
   */
  async play(options = {}) {
    checkFields('play', options);
    const { id, onframe, ...fields } = options;
    const sid = String(id === undefined ? 's' + this.nextId++ : id);
    // The fields the stream keeps, to start again after a reconnect.
    const play = { format: 'bin' };
    for (const k of Object.keys(fields)) if (fields[k] !== undefined) play[k] = fields[k];
    const s = new Stream(this, sid, play);
    s.onframe = onframe || null;
    this.streams.set(sid, s);
    try {
      s.info = await this.send({ op: 'play', id: sid, ...play });
    } catch (e) {
      this.streams.delete(sid);
      throw e;
    }
    this.byIndex.set(s.info.index, s);
    return s;
  }

  /** One frame, answered once (op pose): resolves with the frame. */
  async pose(fields) {
    checkFields('wsPose', fields);
    return this.send({ op: 'pose', format: 'bin', ...fields });
  }

  /** The daemon's counters of this connection and its streams. */
  stats() {
    return this.send({ op: 'stats' });
  }

  forget(stream) {
    this.streams.delete(stream.id);
    if (stream.info) this.byIndex.delete(stream.info.index);
  }

  close() {
    this.closed = true;
    clearTimeout(this.retry);
    if (this.ws) this.ws.close(1000);
  }
}

// ---- three.js ----------------------------------------------------------------

/** A joint or bone name reduced for loose matching ("mixamorig:LeftArm" -> "leftarm"). */
function looseName(name) {
  return String(name).replace(/^.*[:|]/, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Maps the daemon's joint order (names, e.g. from `skeleton(id)`'s joints)
 * to a three.js Skeleton's bones by name: exactly first, then ignoring
 * case, namespaces ("mixamorig:") and punctuation. Returns
 * {boneOfJoint: Int32Array (bone index per joint, -1 when none),
 * jointOfBone: Int32Array, unmappedJoints: names, unmappedBones: names}.
 */
export function mapSkeleton(jointNames, skeleton) {
  const names = jointNames.map((j) => (typeof j === 'string' ? j : j.name));
  const bones = skeleton.bones;
  const boneOfJoint = new Int32Array(names.length).fill(-1);
  const jointOfBone = new Int32Array(bones.length).fill(-1);
  const exact = new Map(), loose = new Map();
  bones.forEach((b, i) => {
    if (!exact.has(b.name)) exact.set(b.name, i);
    const l = looseName(b.name);
    if (!loose.has(l)) loose.set(l, i);
  });
  for (const pass of [(n) => exact.get(n), (n) => loose.get(looseName(n))]) {
    names.forEach((n, j) => {
      if (boneOfJoint[j] >= 0) return;
      const b = pass(n);
      if (b !== undefined && jointOfBone[b] < 0) {
        boneOfJoint[j] = b;
        jointOfBone[b] = j;
      }
    });
  }
  return {
    boneOfJoint,
    jointOfBone,
    unmappedJoints: names.filter((_, j) => boneOfJoint[j] < 0),
    unmappedBones: bones.filter((_, b) => jointOfBone[b] < 0).map((b) => b.name),
  };
}

/**
 * Drives a three.js Skeleton from the daemon's skinning matrices (a
 * `space: 'skin'` pose or stream frame: 16 floats per joint, the daemon's
 * order): each mapped bone's matrix in skeleton.boneMatrices becomes its
 * joint's skinning matrix at every update, unmapped bones keep what
 * three.js computes. The mesh's bind matrix must be the identity (as for a
 * mesh built from the daemon's own bind positions). Returns
 * {set(matrices), mapping, release()}: set() keeps a reference to the view,
 * copied at the next render.
 */
export function driveSkeleton(skeleton, jointNames, mapping = mapSkeleton(jointNames, skeleton)) {
  const own = skeleton.update;
  let latest = null;
  skeleton.update = function update() {
    own.call(this);
    if (latest) {
      const m = this.boneMatrices;
      const { boneOfJoint } = mapping;
      for (let j = 0; j < boneOfJoint.length; j++) {
        const b = boneOfJoint[j];
        if (b >= 0 && 16 * j + 16 <= latest.length) m.set(latest.subarray(16 * j, 16 * j + 16), 16 * b);
      }
      if (this.boneTexture) this.boneTexture.needsUpdate = true;
    }
  };
  return {
    mapping,
    set(matrices) { latest = matrices; },
    release() { skeleton.update = own; },
  };
}
