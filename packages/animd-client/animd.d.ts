// animd.d.ts: TypeScript declarations of animd.js, the JavaScript client of
// the animd daemon (package animd-client). Checked by `tsc --noEmit`
// against test/usage.ts in the web suite (tests/web/t_pkg_types.sh).

/** The client's version: the daemon's (ANIMD_VERSION) and the package's. */
export const version: string;

/** Stream frame layouts, by the number in a binary frame's header. */
export const LAYOUTS: readonly Layout[];
/** Bytes before the numbers of a WebSocket binary frame. */
export const STREAM_HEADER_BYTES: 32;
/** Bytes before the numbers of a binary range frame (HTTP). */
export const RANGE_HEADER_BYTES: 16;

export type Layout =
  | 'trs10'
  | 'mat4'
  | 'positions'
  | 'positions+normals'
  | 'positions/q16'
  | 'positions+normals/q16'
  | 'positions/delta'
  | 'positions+normals/delta';
export type Space = 'local' | 'model' | 'skin';
export type Wrap = 'clamp' | 'loop' | 'pingpong';
export type Format = 'json' | 'bin';
/** 'delta' on WebSocket play and set only (one mesh, format 'bin'). */
export type Encoding = 'f32' | 'q16' | 'delta';
export type SkinningMethod = 'lbs' | 'dqs';
export type AssetKind = 'skeleton' | 'clip' | 'mesh';

/**
 * Every failure: `code` and `message` as the daemon gave them (or
 * 'network', 'disconnected', 'bad_answer', 'truncated', 'bad_argument' for
 * failures on the way, 'too_many_pages' for listAll beyond maxPages;
 * 'unknown_parameter', 'unknown_field',
 * 'unknown_option' for a name the client's lists do not hold), `at` (the
 * parameter or spot in the body, or null) and `status` (the HTTP status; 0
 * for WebSocket, network and client-side failures).
 */
export class AnimdError extends Error {
  constructor(code: string, message: string, options?: { at?: string | null; status?: number; cause?: unknown });
  readonly name: 'AnimdError';
  code: string;
  at: string | null;
  status: number;
  /** From the daemon's {"error":{"code","message","at"}}. */
  static from(error: { code?: string; message?: string; at?: string | null } | null | undefined,
    status?: number): AnimdError;
}

// ---- the fields each call takes ----------------------------------------------

/** Which list of FIELDS a call's options are checked against. */
export type FieldKind = 'client' | 'connect' | 'pose' | 'skin' | 'list' | 'listAll' | 'upload' | 'delete' | 'play' |
  'set' | 'wsPose';
/** The names each call's options (and each message's fields) may have. */
export const FIELDS: Readonly<Record<FieldKind, readonly string[]>>;
/** Throws an AnimdError for the first member of object that FIELDS[kind] does not list. */
export function checkFields(kind: FieldKind, object: object | null | undefined): void;
/** The known name nearest to name when it is near enough to be a typo of it; else null. */
export function nearestName(name: string, known: readonly string[]): string | null;

// ---- uploads ------------------------------------------------------------------

export type UploadContentType =
  | 'model/gltf-binary'
  | 'model/gltf+json'
  | 'application/x-bvh'
  | 'application/x-md5mesh'
  | 'application/x-md5anim'
  | 'application/json';
/** The Content-Type of an asset's text, from its first words (null: not recognised). */
export function sniffText(text: string): UploadContentType | null;
/** The Content-Type of an asset's bytes (glb by its magic). */
export function sniffBytes(bytes: Uint8Array): UploadContentType | null;

// ---- binary decoders ------------------------------------------------------------

export interface Q16Decoded {
  positions: Float32Array;
  normals: Float32Array | null;
}
/** Decodes a q16 payload (min, max, u16 positions, octahedral normals) at byteOffset. */
export function decodeQ16(buffer: ArrayBuffer, byteOffset: number, vertices: number, withNormals: boolean): Q16Decoded;

/** One mesh's block of a frame or answer with several meshes. */
export interface SkinMeshBlock {
  /** The mesh's position in the answer, or the frame index in a range. */
  index: number;
  t: number;
  /** 32-bit words of the payload. */
  count: number;
  layout: string;
  vertices: number;
  data: Float32Array;
  positions: Float32Array;
  normals: Float32Array | null;
}

/** A binary WebSocket frame: its header and a view of its numbers. */
export interface StreamFrame {
  /** The stream's index (0xffffffff for a one-shot pose). */
  index: number;
  layout: Layout | string;
  /** The frame number. */
  frame: number;
  /** Clip time sampled, seconds. */
  t: number;
  count: number;
  items: number;
  /** 16 floats per joint (mat4), 10 (trs10), or positions; null for several meshes. */
  data: Float32Array | null;
  byteLength: number;
  positions?: Float32Array;
  normals?: Float32Array | null;
  /** With several meshes: one block each, in the order of the play answer's meshes. */
  meshes?: SkinMeshBlock[];
}
export function decodeStreamFrame(buffer: ArrayBuffer, meshes?: boolean,
                                  delta?: DeltaDecoder | null): StreamFrame;

/** The chain of one delta stream (encoding 'delta'): a delta payload to the
 * q16 payload of the same frame, or null when a frame it is against was
 * not received (ask for a key frame with set({key: true})). */
export class DeltaDecoder {
  constructor();
  decode(buffer: ArrayBuffer, byteOffset: number, byteLength: number):
    { q16: ArrayBuffer; seq: number; key: boolean } | null;
}

/** A mesh block (GET /v1/meshes/{id}?format=bin) as views of the buffer. */
export interface MeshBlock {
  vertexCount: number;
  indexCount: number;
  /** Joint influences per vertex. */
  influences: number;
  jointCount: number;
  byteLength: number;
  bounds: { min: [number, number, number]; max: [number, number, number] };
  positions: Float32Array;
  normals: Float32Array | null;
  texcoords: Float32Array | null;
  joints: Uint16Array;
  weights: Float32Array;
  indices: Uint32Array | null;
  morphTargets: MorphTargets | null;
}
export interface MorphTargets {
  positions: Float32Array[];
  normals: Float32Array[] | null;
  weights: Float32Array;
}
export function decodeMesh(buffer: ArrayBuffer, byteOffset?: number): MeshBlock;
export function decodeMeshes(buffer: ArrayBuffer): MeshBlock[];
export function decodeSkinMeshes(buffer: ArrayBuffer, layout: string, byteOffset?: number): SkinMeshBlock[];

/** A binary range frame (HTTP). */
export interface RangeFrame {
  index: number;
  t: number;
  count: number;
  data: Float32Array;
  layout?: string | null;
  positions?: Float32Array;
  normals?: Float32Array | null;
}
export function decodeRangeFrames(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<RangeFrame, void, undefined>;

// ---- the HTTP client ----------------------------------------------------------------

/** A WebSocket constructor: the browser's, or the `ws` package's under Node. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;
export interface WebSocketLike {
  binaryType: string;
  readyState: number;
  onopen: ((ev: any) => void) | null;
  onmessage: ((ev: { data: any }) => void) | null;
  onerror: ((ev: any) => void) | null;
  onclose: ((ev: { code: number }) => void) | null;
  send(data: string): void;
  close(code?: number): void;
}

export interface AnimdOptions {
  /** The daemon, e.g. 'http://127.0.0.1:8080' (default: the page's origin). */
  url?: string;
  fetch?: typeof fetch;
  WebSocket?: WebSocketConstructor | typeof WebSocket;
  /** Sent with every HTTP request, e.g. Authorization. */
  headers?: Record<string, string>;
}

/** Request fields of the daemon's shared table: JSON values, passed as they are. */
export type RootMotion = string | Record<string, unknown>;
export type MorphWeights = string | Record<string, number> | number[];

export interface PoseParams {
  skeleton?: string;
  clip?: string;
  t?: number;
  space?: Space;
  wrap?: Wrap;
  format?: Format | 'svg';
  from?: number;
  to?: number;
  fps?: number;
  joints?: string[];
  view?: 'front' | 'side' | 'top';
  layout?: 'grid' | 'overlay';
  root_motion?: RootMotion;
  weights?: MorphWeights;
}
export interface SkinParams {
  mesh?: string | string[];
  skeleton?: string;
  clip?: string;
  t?: number;
  wrap?: Wrap;
  method?: SkinningMethod;
  normals?: boolean | 0 | 1 | 'invt';
  format?: Format;
  encoding?: Encoding;
  from?: number;
  to?: number;
  fps?: number;
  root_motion?: RootMotion;
  weights?: MorphWeights;
}
export interface UploadOptions {
  contentType?: UploadContentType | string;
  /** The skeleton an md5anim animates. */
  skeleton?: string;
  name?: string;
  clip?: string;
  prefix?: string;
  replace?: boolean;
}

export interface Pose {
  skeleton: string | undefined;
  clip: string | undefined;
  t: number | undefined;
  space: Space;
  layout: string | null;
  joints: number;
  etag: string | null;
  data: Float32Array;
}
export interface Skin {
  mesh: string | string[] | undefined;
  clip: string | undefined;
  t: number | undefined;
  layout: string | null;
  vertices: number;
  etag: string | null;
  data: Float32Array;
  positions: Float32Array;
  normals: Float32Array | null;
}
export interface SkinMeshes {
  skeleton: string;
  clip: string | undefined;
  t: number | undefined;
  layout: string;
  etag: string | null;
  meshes: SkinMeshBlock[];
}

/** A listed skeleton: `joints` counts them. */
export interface SkeletonEntry { id: string; name: string; joints: number; [k: string]: unknown }
export interface ClipEntry { id: string; name: string; skeleton: string; duration: number; [k: string]: unknown }
export interface MeshEntry { id: string; name: string; skeleton: string; vertices: number; [k: string]: unknown }
/** A page of GET /v1/assets or /v1/skeletons/{id}/clips|meshes (and the upload answer). */
export interface AssetList {
  skeletons: SkeletonEntry[];
  clips: ClipEntry[];
  meshes: MeshEntry[];
  /** When more follow: the next page's `after`. */
  next?: string;
  [k: string]: unknown;
}
/** A listing page's query (FIELDS.list). */
export interface ListParams {
  /** Assets per page, 1 to the daemon's list_limit_max (default its list_limit). */
  limit?: number;
  /** A previous page's `next`. */
  after?: string;
}
/** listAll's options (FIELDS.listAll): every asset, or a skeleton's clips or meshes. */
export type ListAllOptions = {
  limit?: number;
  /** More pages than this (default 1000) is an AnimdError 'too_many_pages'. */
  maxPages?: number;
} & ({ skeleton?: undefined; of?: undefined } | { skeleton: string; of: 'clips' | 'meshes' });
/** One asset of a listing. */
export type ListedAsset =
  | { kind: 'skeleton'; asset: SkeletonEntry }
  | { kind: 'clip'; asset: ClipEntry }
  | { kind: 'mesh'; asset: MeshEntry };
/** GET /v1/skeletons/{id} */
export interface SkeletonInfo {
  id: string;
  name: string;
  joints: Array<{ name: string; parent: number; [k: string]: unknown }>;
  [k: string]: unknown;
}

export class Animd {
  constructor(options?: AnimdOptions);
  url: string;
  fetch: typeof fetch;
  WebSocket: WebSocketConstructor | typeof WebSocket | undefined;
  headers: Record<string, string>;

  request(method: string, path: string, options?: { body?: BodyInit; type?: string; accept?: string }): Promise<Response>;
  json(path: string): Promise<any>;
  info(): Promise<Record<string, unknown>>;
  /** One listing page (limit, after); `next` when more follow. */
  assets(params?: ListParams): Promise<AssetList>;
  skeletonClips(id: string, params?: ListParams): Promise<AssetList>;
  skeletonMeshes(id: string, params?: ListParams): Promise<AssetList>;
  listPage(path: string, params?: ListParams): Promise<AssetList>;
  /** Every asset of a listing, page after page. */
  listAll(options?: ListAllOptions): AsyncGenerator<ListedAsset, void, undefined>;
  skeleton(id: string): Promise<SkeletonInfo>;
  clip(id: string): Promise<Record<string, unknown>>;
  meshInfo(id: string): Promise<Record<string, unknown>>;
  /** The mesh as GPU-ready views. */
  mesh(id: string): Promise<MeshBlock>;
  delete(kind: AssetKind, id: string, options?: { cascade?: boolean }): Promise<Record<string, unknown>>;
  upload(body: Blob | ArrayBuffer | ArrayBufferView | string | object, options?: UploadOptions): Promise<any>;

  pose(params: PoseParams & { format: 'json' | 'svg' }): Promise<any>;
  pose(params?: PoseParams): Promise<Pose>;
  skin(params: SkinParams & { format: 'json' }): Promise<any>;
  skin(params: SkinParams & { skeleton: string }): Promise<SkinMeshes>;
  skin(params?: SkinParams): Promise<Skin>;
  poseRange(params: PoseParams): AsyncGenerator<RangeFrame, void, undefined>;
  skinRange(params: SkinParams): AsyncGenerator<RangeFrame, void, undefined>;
  range(path: '/v1/pose' | '/v1/skin', params?: PoseParams | SkinParams): AsyncGenerator<RangeFrame, void, undefined>;
  /** A WebSocket connection for streams. */
  connect(options?: ConnectOptions): StreamConnection;
}

// ---- WebSocket streams ----------------------------------------------------------------

/** Fields of a WebSocket `play` (and, most of them, `pose` and `set`). */
export interface StreamFields {
  skeleton?: string;
  clip?: string;
  mesh?: string | string[];
  mesh_all?: boolean;
  fps?: number;
  speed?: number;
  t0?: number;
  wrap?: Wrap;
  space?: Space;
  format?: Format;
  joints?: string[];
  normals?: boolean;
  method?: SkinningMethod;
  encoding?: Encoding;
  /** encoding 'delta': a key frame every this many frames (1-3600; 30). */
  key_every?: number;
  ik?: Array<Record<string, unknown>>;
  root_motion?: RootMotion;
  blend_space?: Record<string, unknown>;
  weights?: MorphWeights;
}
export interface PlayOptions extends StreamFields {
  id?: string | number;
  onframe?: ((frame: StreamFrame | Record<string, any>, stream: Stream) => void) | null;
}
export interface SetFields {
  fps?: number;
  speed?: number;
  space?: Space;
  format?: Format;
  wrap?: Wrap;
  encoding?: Encoding;
  key_every?: number;
  /** encoding 'delta': the next frame is a key frame. */
  key?: boolean;
  ik?: Array<Record<string, unknown>>;
  root_motion?: RootMotion;
  blend_space?: Record<string, unknown>;
  weights?: MorphWeights;
}
export interface WsPoseFields extends Omit<StreamFields, 'fps' | 'speed' | 't0' | 'key_every'> {
  id?: string | number;
  t?: number;
}

/** The daemon's answer to play and set. */
export interface StreamInfo {
  op: 'play' | 'set';
  id: string | number;
  index: number;
  layout: Layout | string;
  joints?: number;
  vertices?: number;
  duration: number;
  fps: number;
  speed: number;
  meshes?: Array<{ id: string; name: string; vertices: number }>;
  [k: string]: unknown;
}
export interface ControlAnswer {
  op: string;
  id?: string | number;
  frame?: number;
  t?: number;
  paused?: boolean;
  [k: string]: unknown;
}
export interface StreamStats {
  op: 'stats';
  id?: string | number;
  sent: number;
  dropped: number;
  streams: Array<{ id: string | number; frames: number; skipped: number; dropped: number; paused: boolean }>;
}
/** A clip event, just before the frame that crossed it. */
export interface ClipEvent {
  type: 'event';
  id: string | number;
  name: string;
  t: number;
  frame: number;
}

export class Stream {
  constructor(conn: StreamConnection, id: string, play: StreamFields);
  conn: StreamConnection;
  id: string;
  play: StreamFields;
  info: StreamInfo | null;
  paused: boolean;
  stopped: boolean;
  lastFrame: number | null;
  lastT: number | null;
  onframe: ((frame: StreamFrame | Record<string, any>, stream: Stream) => void) | null;
  onevent: ((event: ClipEvent) => void) | null;
  /** What the client saw: frames, bytes, and frame numbers that never arrived. */
  counters: { frames: number; bytes: number; missed: number };
  readonly index: number;
  readonly layout: string | null;
  readonly duration: number;
  pause(): Promise<ControlAnswer>;
  resume(): Promise<ControlAnswer>;
  seek(t: number): Promise<ControlAnswer>;
  set(fields: SetFields): Promise<StreamInfo>;
  stop(): Promise<ControlAnswer>;
}

export type ConnectionStatus = 'open' | 'reconnecting' | 'closed' | 'error';
export interface ConnectOptions {
  WebSocket?: WebSocketConstructor | typeof WebSocket;
  reconnect?: boolean;
  /** Milliseconds: the back-off between attempts doubles from minDelay to maxDelay. */
  minDelay?: number;
  maxDelay?: number;
  onstatus?: ((status: ConnectionStatus, detail?: unknown) => void) | null;
}

export class StreamConnection {
  constructor(client: Animd, options?: ConnectOptions);
  client: Animd;
  url: string;
  /** Resolves once the socket is open (again, after a reconnect). */
  ready: Promise<void>;
  streams: Map<string, Stream>;
  closed: boolean;
  play(options?: PlayOptions): Promise<Stream>;
  /** One frame, answered once: a decoded binary frame, or the daemon's JSON. */
  pose(fields: WsPoseFields): Promise<StreamFrame | Record<string, any>>;
  stats(): Promise<StreamStats>;
  send(msg: { op: string; [k: string]: unknown }): Promise<any>;
  close(): void;
}

// ---- three.js ---------------------------------------------------------------------------

/** What mapSkeleton and driveSkeleton use of a three.js Skeleton. */
export interface SkeletonLike {
  bones: ReadonlyArray<{ name: string }>;
  boneMatrices: Float32Array | null;
  boneTexture?: { needsUpdate: boolean } | null;
  update(): void;
}
export interface SkeletonMapping {
  /** Bone index per joint of the daemon's order, -1 when none. */
  boneOfJoint: Int32Array;
  jointOfBone: Int32Array;
  unmappedJoints: string[];
  unmappedBones: string[];
}
export function mapSkeleton(jointNames: ReadonlyArray<string | { name: string }>, skeleton: SkeletonLike): SkeletonMapping;
export function driveSkeleton(skeleton: SkeletonLike, jointNames: ReadonlyArray<string | { name: string }>,
  mapping?: SkeletonMapping): { mapping: SkeletonMapping; set(matrices: Float32Array): void; release(): void };
