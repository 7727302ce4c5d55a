// three.d.ts: TypeScript declarations of the three.js adapter
// (animd-client/three, three.js beside this file).
import type { Material, Matrix4, Mesh, Object3D, SkinnedMesh, Texture } from 'three';
import type { Animd, MeshBlock, Stream, StreamConnection } from './animd.js';

/** What GltfRig reads of a GLTFLoader result. */
export interface GltfLike {
  scene: Object3D;
  parser?: {
    json: any;
    associations: Map<object, { nodes?: number; meshes?: number; primitives?: number }>;
  };
}

/** The daemon's GET /v1/skeletons/{id} answer (the fields the rig and assetScene read). */
export interface DaemonSkeleton {
  id: string;
  name?: string;
  joints: Array<{
    name: string;
    parent: number;
    translation?: number[];
    rotation?: number[];
    scale?: number[];
    orient?: number[];
  }>;
  /** 16 per joint, column-major. */
  inverseBindMatrices?: number[];
}

/** A daemon mesh of the skeleton (GET /v1/skeletons/{id}/meshes). */
export interface DaemonMesh {
  id: string;
  name: string;
  vertices?: number;
}

/** A daemon mesh and the SkinnedMesh it draws (null: none found). */
export interface RigMesh extends DaemonMesh {
  mesh: SkinnedMesh | null;
}

/** How the daemon's skeleton and meshes met three's scene. */
export interface RigMapping {
  /** Per joint (the daemon's order), the node it poses, or null. */
  nodes: Array<Object3D | null>;
  jointOf: Map<Object3D, number>;
  /** Bone index (in `bones`) per joint, -1 when none. */
  boneOfJoint: Int32Array;
  /** Every bone of the scene's skeletons, once each. */
  bones: Object3D[];
  /** Daemon joints with no node of the scene. */
  unmappedJoints: string[];
  /** three bones with no daemon joint (three keeps posing them from their parents). */
  unmappedBones: string[];
  /** Daemon meshes with no SkinnedMesh. */
  unmappedMeshes: string[];
  /** SkinnedMeshes with no daemon mesh (the thin client leaves them as they are). */
  unmappedSkinnedMeshes: string[];
}

/** A stream's state as the rig saw it. */
export interface RigState {
  mode: 'fat' | 'thin' | null;
  /** Frames received, numbers missing between them, bytes received. */
  frames: number;
  missed: number;
  bytes: number;
  /** Frames per second received over the last second. */
  fps: number;
  /** The daemon's counts: frames a late tick passed over, frames dropped by backpressure. */
  skipped: number;
  dropped: number;
  /** The last frame's number and clip time. */
  frame: number | null;
  t: number | null;
}

/** A skinned block of a thin frame: float32 views, or q16 already decoded. */
export interface VertexBlock {
  positions: Float32Array;
  normals?: Float32Array | null;
}

/** A decoded stream frame (decodeStreamFrame). */
export interface RigFrame {
  frame?: number;
  t?: number;
  layout: string;
  data: Float32Array | null;
  positions?: Float32Array | null;
  normals?: Float32Array | null;
  meshes?: VertexBlock[];
}

export type MatrixSpace = 'model' | 'skin' | 'local';

export interface RigPlayOptions {
  clip?: string;
  /** 'fat' (default): matrices pose the nodes, three skins; 'thin': the daemon skins. */
  mode?: 'fat' | 'thin';
  /** Thin client: 'f32' (default) or 'q16'. */
  encoding?: 'f32' | 'q16';
  /** Thin client: send normals (default true). */
  normals?: boolean;
  fps?: number;
  speed?: number;
  t0?: number;
  wrap?: 'clamp' | 'loop' | 'pingpong';
  method?: 'lbs' | 'dqs';
  /** Called after each frame is applied. */
  onframe?: ((frame: RigFrame, stream: Stream) => void) | null;
  /** How often (ms) to ask the daemon for skipped/dropped; 0: never. Default 1000. */
  statsEvery?: number;
  /** Other fields, passed on to StreamConnection.play. */
  [field: string]: unknown;
}

export class GltfRig {
  constructor(gltf: GltfLike, skeleton: DaemonSkeleton,
    options?: { meshes?: Array<DaemonMesh | string>; scene?: Object3D });
  readonly gltf: GltfLike;
  readonly scene: Object3D;
  readonly skeleton: DaemonSkeleton;
  readonly jointNames: string[];
  readonly skinnedMeshes: SkinnedMesh[];
  readonly mapping: RigMapping;
  /** The daemon's meshes in the order thin frames hold them. */
  meshes: RigMesh[];
  stream: Stream | null;
  mode: 'fat' | 'thin' | null;
  /** The space applyFrame reads mat4 frames in (play sets 'model'). */
  space: MatrixSpace;
  readonly state: RigState;
  /** Poses the scene from 16 floats per joint in the daemon's order. */
  setMatrices(data: ArrayLike<number>, space?: MatrixSpace): void;
  /** Draws skinned vertices, blocks[k] for meshes[k]. */
  setVertices(blocks: VertexBlock[]): void;
  /** The plain Mesh that draws a SkinnedMesh for the thin client. */
  thinMesh(skinned: SkinnedMesh): Mesh;
  /** Applies one decoded stream frame. */
  applyFrame(frame: RigFrame): void;
  /** Plays a clip through a connection; resolves with the Stream. */
  play(conn: StreamConnection, options?: RigPlayOptions): Promise<Stream>;
  /** Asks the daemon for the stream's skipped and dropped counts. */
  refreshStats(): Promise<RigState>;
  /** Stops the stream; the scene keeps its last pose. */
  stop(): Promise<void>;
  /** Gives the scene back: nodes to their own matrices, thin meshes removed. */
  release(): void;
  /** The inverse of each joint's inverse bind matrix (skin space). */
  bindInverses(): Matrix4[];
}

/** A GltfRig from the daemon: fetches the skeleton (id or name) and its meshes. */
export function rigGltf(animd: Animd, gltf: GltfLike,
  options: { skeleton: string; scene?: Object3D }): Promise<GltfRig>;

/** A mesh of assetScene: a decoded mesh block and its Material. */
export interface AssetSceneMesh {
  /** The SkinnedMesh's name (rigAssets: the mesh id as given). */
  name: string;
  block: MeshBlock;
  /** Default: a double-sided MeshStandardMaterial. */
  material?: Material;
}

/**
 * A scene of the daemon's own assets, in the form GltfRig reads: a Bone per
 * joint (rest pose from the joints), a SkinnedMesh per mesh bound with the
 * identity bind matrix and the skeleton's inverseBindMatrices.
 */
export function assetScene(skeleton: DaemonSkeleton, meshes?: AssetSceneMesh[]): { scene: Object3D };

/** A mesh's embedded base-color texture (GET /v1/meshes/{id}/image), or null; browser only. */
export function baseColorTexture(animd: Animd, mesh: string): Promise<Texture | null>;

export interface RigAssetsOptions {
  /** The skeleton's id or name. */
  skeleton: string;
  /** Ids (or names) of meshes of the skeleton to draw; default none (Bones only). */
  meshes?: string[];
  /** Load base-color textures (default true). */
  textures?: boolean;
  /** Each mesh's Material; default a double-sided MeshStandardMaterial with the texture. */
  material?: ((block: MeshBlock, texture: Texture | null, id: string) => Material) | null;
}

/** A GltfRig of the daemon's own assets (assetScene); rig.scene is the scene to add. */
export function rigAssets(animd: Animd, options: RigAssetsOptions): Promise<GltfRig>;
