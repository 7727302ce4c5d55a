// usage_three.ts: every export of animd-client/three as a TypeScript
// program would use it, with a glTF from three's GLTFLoader, type-checked
// (never run) against three.d.ts and three's own types (@types/three) by
// tsc --noEmit --strict (tests/web/t_pkg_types.sh). The lines marked
// with @ts-expect-error must fail to type-check: wrong options are refused.
import { Bone, Group, Matrix4, Mesh, Object3D, SkinnedMesh } from 'three';
import { GLTFLoader, type GLTF } from 'three/addons/loaders/GLTFLoader.js';

import { Animd, type Stream, type StreamFrame } from '../animd.js';
import {
  GltfRig, rigGltf,
  type DaemonMesh, type DaemonSkeleton, type GltfLike, type GltfRigOptions, type MatrixSpace, type RigFrame,
  type RigMapping, type RigMesh, type RigPlayOptions, type RigState, type VertexBlock,
} from '../three.js';

export async function tourThree(glb: ArrayBuffer): Promise<number> {
  const gltf: GLTF = await new GLTFLoader().parseAsync(glb, '');
  const animd = new Animd({ url: 'http://127.0.0.1:8080' });

  // rigGltf: the skeleton by id or name, and GltfRig's options.
  const rig: GltfRig = await rigGltf(animd, gltf, { skeleton: 'CesiumMan' });
  const copy = await rigGltf(animd, gltf, { skeleton: 'CesiumMan', scene: gltf.scene.clone() });

  // GltfRig built by hand: the daemon's skeleton and meshes (listing entries or names).
  const info = await animd.skeleton('CesiumMan');
  const listed = await animd.skeletonMeshes(info.id);
  const meshes: DaemonMesh[] = [...listed.meshes, 'Cesium_Man', { name: 'body', vertices: 3273 }];
  const options: GltfRigOptions = { meshes, scene: new Group() };
  const skeleton: DaemonSkeleton = info;
  const like: GltfLike = gltf;
  const byHand = new GltfRig(like, skeleton, options);
  const bare = new GltfRig({ scene: new Object3D() }, { id: 's', joints: [{ name: 'root', parent: -1 }] });

  // What the rig found.
  const scene: Object3D = rig.scene;
  const names: string[] = rig.jointNames;
  const roots: number = rig.parents.filter((p) => p < 0).length;
  const skinned: SkinnedMesh[] = rig.skinnedMeshes;
  const mapping: RigMapping = rig.mapping;
  const posed: Object3D | null = mapping.nodes[0];
  const joint: number | undefined = posed ? mapping.jointOf.get(posed) : undefined;
  const bone: Bone | undefined = mapping.bones[mapping.boneOfJoint[0]];
  const unmapped: number = mapping.unmappedJoints.length + mapping.unmappedBones.length +
    mapping.unmappedMeshes.length + mapping.unmappedSkinnedMeshes.length;
  const m0: RigMesh | undefined = rig.meshes[0];
  const drawn: SkinnedMesh | null = m0 ? m0.mesh : null;
  const v0: number = m0?.vertices ?? 0;

  // Fat client by hand: matrices in each space.
  const mats = new Float32Array(16 * names.length);
  const spaces: MatrixSpace[] = ['model', 'skin', 'local'];
  for (const space of spaces) rig.setMatrices(mats, space);
  rig.setMatrices(Array.from(mats));
  const inverses: Matrix4[] = rig.bindInverses();

  // Thin client by hand: vertex blocks, the thin Mesh of a SkinnedMesh.
  const block: VertexBlock = { positions: new Float32Array(9), normals: null };
  rig.setVertices([block, null, { positions: [0, 0, 0] }]);
  const thin: Mesh | undefined = skinned[0] ? rig.thinMesh(skinned[0]) : undefined;
  const thins: number = rig.thin.size;
  rig.showThin(false);
  const frame: RigFrame = { layout: 'mat4', data: mats };
  rig.applyFrame(frame);

  // Streams: fat and thin, with the fields play passes on.
  const conn = animd.connect();
  const fat: Stream = await rig.play(conn, {
    clip: 'Walk', fps: 30, speed: 0.5, t0: 0.25, wrap: 'loop', id: 'walk',
    ik: [{ type: 'aim', joint: 'head', target: [0, 1, 1] }], root_motion: 'hips', weights: [0.5],
    onframe: (f: StreamFrame, s: Stream) => { rig.applyFrame(f); console.log(f.frame, f.t, s.id); },
    statsEvery: 0,
  });
  const thinPlay: RigPlayOptions = { mode: 'thin', clip: 'Walk', encoding: 'q16', normals: false, method: 'dqs', statsEvery: 500 };
  const thinStream: Stream = await byHand.play(conn, thinPlay);
  await copy.play(conn);
  rig.mode = 'thin';
  rig.space = 'skin';
  const playing: Stream | null = rig.stream;
  const state: RigState = await rig.refreshStats();
  const counts: number = state.frames + state.missed + state.bytes + state.fps + state.skipped + state.dropped +
    (state.frame ?? 0) + (state.t ?? 0);
  const mode: 'fat' | 'thin' | null = rig.state.mode;
  await rig.stop();
  rig.release();
  bare.release();

  // Wrong values are refused.
  // @ts-expect-error an unknown play option
  await rig.play(conn, { clip: 'Walk', moed: 'thin' });
  // @ts-expect-error mode is fat or thin
  await rig.play(conn, { mode: 'medium' });
  // @ts-expect-error the thin client takes f32 or q16
  await rig.play(conn, { mode: 'thin', encoding: 'delta' });
  // @ts-expect-error the rig sets the space itself
  await rig.play(conn, { space: 'skin' });
  // @ts-expect-error statsEvery is milliseconds
  await rig.play(conn, { statsEvery: '1s' });
  // @ts-expect-error rigGltf needs the skeleton
  await rigGltf(animd, gltf, { scene: gltf.scene });
  // @ts-expect-error an unknown rigGltf option
  await rigGltf(animd, gltf, { skeleton: 'CesiumMan', sceen: gltf.scene });
  // @ts-expect-error a space three's nodes do not have
  rig.setMatrices(mats, 'world');
  // @ts-expect-error a daemon mesh has a name
  new GltfRig(gltf, skeleton, { meshes: [{ id: 'x' }] });
  // @ts-expect-error a block has positions
  rig.setVertices([{ normals: new Float32Array(3) }]);
  // @ts-expect-error the state is the rig's
  rig.state = state;

  console.log(scene, joint, bone, drawn, inverses, thin, fat, thinStream, playing, mode);
  return roots + unmapped + v0 + thins + counts;
}
