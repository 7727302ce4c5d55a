// three.d.ts: TypeScript declarations of the three.js adapter
// (animd-client/three, three.js beside this file), against three's own
// types (@types/three). Checked by `tsc --noEmit --strict` against
// test/usage_three.ts, which loads a glTF with three's GLTFLoader
// (tests/web/t_pkg_types.sh). The rig's construction steps (mapJoints,
// mapMeshes) and stream bookkeeping (resetState, count) are internal.
import type { Bone, Material, Matrix4, Mesh, Object3D, SkinnedMesh, Texture } from 'three';
import type { Animd, MeshBlock, SkinningMethod, Stream, StreamConnection, StreamFields, StreamFrame } from './animd.js';

/** Where three's GLTFLoader keeps the glTF indices of an object it made. */
export interface GltfReference {
  nodes?: number;
  meshes?: number;
  primitives?: number;
}

/**
 * What GltfRig reads of a GLTFLoader result (a GLTF is one): the scene, and
 * the parser's glTF JSON and associations for the daemon's names of nodes
 * and meshes (without a parser: three's object names).
 */
export interface GltfLike {
  scene: Object3D;
  parser?: {
    json: any;
    associations: { get(object: Object3D): GltfReference | undefined };
  };
}

/** The daemon's GET /v1/skeletons/{id} answer (the fields the rig and assetScene read). */
export interface DaemonSkeleton {
  id: string;
  name?: string;
  joints: ReadonlyArray<{
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

/**
 * A daemon mesh of the skeleton: an entry of GET /v1/skeletons/{id}/meshes,
 * or its name alone. `vertices`, when given, must match the SkinnedMesh's;
 * `id` defaults to the name.
 */
export type DaemonMesh = string | { id?: string; name: string; vertices?: number };

/** A daemon mesh and the SkinnedMesh it draws (null: none found). */
export interface RigMesh {
  id: string;
  name: string;
  vertices: number | undefined;
  mesh: SkinnedMesh | null;
}

/** How the daemon's skeleton and meshes met three's scene. */
export interface RigMapping {
  /** Per joint (the daemon's order), the node it poses, or null. */
  nodes: Array<Object3D | null>;
  /** The joint each posed node stands for. */
  jointOf: Map<Object3D, number>;
  /** Bone index (in `bones`) per joint, -1 when none. */
  boneOfJoint: Int32Array;
  /** Every bone of the scene's skeletons, once each. */
  bones: Bone[];
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

/** A skinned block of a thin frame: 3 floats per vertex, in glTF scene space (q16 already decoded). */
export interface VertexBlock {
  positions: ArrayLike<number>;
  normals?: ArrayLike<number> | null;
}

/**
 * What applyFrame reads of a decoded stream frame (a StreamFrame is one):
 * `meshes` (several meshes), else `data` of a 'mat4' frame, else
 * `positions` (one mesh).
 */
export interface RigFrame {
  layout: string;
  data?: ArrayLike<number> | null;
  positions?: ArrayLike<number> | null;
  normals?: ArrayLike<number> | null;
  meshes?: ReadonlyArray<VertexBlock | null | undefined>;
}

export type MatrixSpace = 'model' | 'skin' | 'local';

/**
 * GltfRig.play's options: the rig's own, and the fields it passes on to
 * StreamConnection.play (the rig sets skeleton, format, space and mesh
 * itself; joints would leave nodes out).
 */
export interface RigPlayOptions extends Omit<StreamFields,
  'skeleton' | 'mesh' | 'mesh_all' | 'space' | 'format' | 'joints' | 'normals' | 'encoding' | 'key_every'> {
  /** The stream's id (default: the connection numbers it). */
  id?: string | number;
  /** 'fat' (default): matrices pose the nodes, three skins; 'thin': the daemon skins. */
  mode?: 'fat' | 'thin';
  /** Thin client only: 'f32' (default) or 'q16'. */
  encoding?: 'f32' | 'q16';
  /** Thin client: send normals (default true). */
  normals?: boolean;
  /** Thin client: linear blend (default) or dual quaternion skinning. */
  method?: SkinningMethod;
  /** Called after each frame is applied. */
  onframe?: ((frame: StreamFrame, stream: Stream) => void) | null;
  /** How often (ms) to ask the daemon for skipped/dropped; 0: never. Default 1000. */
  statsEvery?: number;
}

/** GltfRig's options. */
export interface GltfRigOptions {
  /** The daemon's meshes of the skeleton (the thin client's; default none). */
  meshes?: ReadonlyArray<DaemonMesh>;
  /** The object standing for the glTF scene (default gltf.scene; a clone for another instance). */
  scene?: Object3D;
}

/** A glTF scene driven by the daemon. */
export class GltfRig {
  constructor(gltf: GltfLike, skeleton: DaemonSkeleton, options?: GltfRigOptions);
  readonly gltf: GltfLike;
  readonly scene: Object3D;
  readonly skeleton: DaemonSkeleton;
  /** The daemon's joint names and parent indices (-1: a root), in its order. */
  readonly jointNames: string[];
  readonly parents: number[];
  /** Every SkinnedMesh of the scene. */
  readonly skinnedMeshes: SkinnedMesh[];
  readonly mapping: RigMapping;
  /** The daemon's meshes in the order thin frames hold them. */
  meshes: RigMesh[];
  /** The playing stream, or null. */
  stream: Stream | null;
  mode: 'fat' | 'thin' | null;
  /** The space applyFrame reads mat4 frames in (play sets 'model'). */
  space: MatrixSpace;
  /** The thin client's Mesh of each SkinnedMesh it has drawn. */
  readonly thin: Map<SkinnedMesh, Mesh>;
  readonly state: RigState;
  /** Poses the scene from 16 floats per joint in the daemon's order (column-major). */
  setMatrices(data: ArrayLike<number>, space?: MatrixSpace): void;
  /** The inverse of each joint's inverse bind matrix (skin space; identity without a bone). */
  bindInverses(): Matrix4[];
  /** Draws skinned vertices, blocks[k] for meshes[k] (a missing block leaves its mesh). */
  setVertices(blocks: ReadonlyArray<VertexBlock | null | undefined>): void;
  /** The plain Mesh that draws a SkinnedMesh for the thin client (made once). */
  thinMesh(skinned: SkinnedMesh): Mesh;
  /** Shows the thin meshes (true) or the SkinnedMeshes (false). */
  showThin(on: boolean): void;
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
}

/** A GltfRig from the daemon: fetches the skeleton (id or name) and its meshes. */
export function rigGltf(animd: Animd, gltf: GltfLike,
  options: GltfRigOptions & { skeleton: string }): Promise<GltfRig>;

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
