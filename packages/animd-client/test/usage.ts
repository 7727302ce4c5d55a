// usage.ts: every public call of animd-client as a TypeScript program would
// make it, type-checked (never run) against animd.d.ts by tsc --noEmit
// (tests/web/t_pkg_types.sh). Lines marked @ts-expect-error must fail to
// type-check: a misspelt field is caught by the types as by the client.
import {
  Animd, AnimdError, FIELDS, LAYOUTS, RANGE_HEADER_BYTES, STREAM_HEADER_BYTES, checkFields,
  decodeMesh, decodeMeshes, decodeQ16, decodeRangeFrames, decodeSkinMeshes, decodeStreamFrame,
  driveSkeleton, mapSkeleton, nearestName, sniffBytes, sniffText, version,
} from '../animd.js';
import type {
  AssetList, ClipEvent, Layout, MeshBlock, Pose, SkeletonLike, Skin, SkinMeshes, Stream, StreamFrame, StreamInfo,
} from '../animd.js';

export async function tour(): Promise<number> {
  const v: string = version;
  const layouts: readonly Layout[] = LAYOUTS;
  const header: number = STREAM_HEADER_BYTES + RANGE_HEADER_BYTES;
  const animd = new Animd({ url: 'http://127.0.0.1:8080', headers: { Authorization: 'Bearer x' } });
  const list = await animd.assets();
  const rig = await animd.skeleton(list.skeletons[0].id);
  const names: string[] = rig.joints.map((j) => j.name);
  const page: AssetList = await animd.assets({ limit: 2 });
  const more: AssetList | null = page.next ? await animd.assets({ limit: 2, after: page.next }) : null;
  const clipPage = await animd.skeletonClips(rig.id, { limit: 10 });
  const meshPage = await animd.skeletonMeshes(rig.id);
  let listed = clipPage.clips.length + meshPage.meshes.length + (more ? more.skeletons.length : 0);
  for await (const e of animd.listAll({ limit: 100, maxPages: 50 })) {
    if (e.kind === 'clip') listed += e.asset.duration;
    else listed += e.asset.name.length;
  }
  for await (const e of animd.listAll({ skeleton: rig.id, of: 'meshes' })) if (e.kind === 'mesh') listed += e.asset.skeleton.length;
  // @ts-expect-error of needs a skeleton
  animd.listAll({ of: 'clips' });
  // @ts-expect-error a skeleton lists clips or meshes only
  animd.listAll({ skeleton: rig.id, of: 'skeletons' });
  // @ts-expect-error a misspelt listing parameter
  await animd.assets({ limt: 2 });
  // @ts-expect-error maxPages is a number
  animd.listAll({ maxPages: 'all' });

  const pose: Pose = await animd.pose({ clip: 'wave', t: 0.5, space: 'skin', joints: ['hips'] });
  const m0: number = pose.data[0] + pose.joints;
  const json = await animd.pose({ clip: 'wave', t: 0.5, format: 'json' });
  const skin: Skin = await animd.skin({ mesh: 'body', clip: 'wave', t: 0.5, normals: true, encoding: 'q16' });
  const n0: number | undefined = skin.normals?.[0];
  const several: SkinMeshes = await animd.skin({ skeleton: 'demo-humanoid', mesh: ['body'], t: 0 });
  const blocks: number = several.meshes.reduce((s, b) => s + b.vertices, 0);
  for await (const f of animd.poseRange({ clip: 'idle', from: 0, to: 1, fps: 4 })) console.log(f.index, f.t, f.data.length);
  for await (const f of animd.skinRange({ mesh: 'body', from: 0, to: 1, fps: 4, method: 'dqs' })) console.log(f.positions);

  const mesh: MeshBlock = await animd.mesh('body');
  const tri: number = (mesh.indices ? mesh.indices.length : 0) + mesh.bounds.max[1] + (mesh.texcoords?.length ?? 0);
  await animd.upload('HIERARCHY\n', { name: 'walk' });
  await animd.upload(new Uint8Array(4), { contentType: 'model/gltf-binary', replace: true });
  await animd.delete('clip', 'walk', { cascade: true });

  const conn = animd.connect({ reconnect: true, minDelay: 100, onstatus: (s, d) => console.log(s, d) });
  await conn.ready;
  const stream: Stream = await conn.play({
    skeleton: 'demo-humanoid', clip: 'wave', space: 'skin', fps: 30, wrap: 'loop',
    ik: [{ type: 'aim', joint: 'head', target: [0, 1, 1] }],
    onframe: (f) => console.log(f),
  });
  stream.onframe = (f) => {
    const frame = f as StreamFrame;
    if (frame.data) console.log(frame.frame, frame.t, frame.data[0]);
  };
  stream.onevent = (e: ClipEvent) => console.log(e.name, e.t);
  const info: StreamInfo | null = stream.info;
  await stream.pause();
  await stream.seek(1.2);
  const set: StreamInfo = await stream.set({ speed: 0.5, encoding: 'f32' });
  await stream.resume();
  const one = await conn.pose({ skeleton: 'demo-humanoid', clip: 'wave', t: 0.5 });
  const stats = await conn.stats();
  const missed: number = stream.counters.missed + stats.streams.length;
  await stream.stop();
  conn.close();

  // @ts-expect-error a misspelt play field
  await conn.play({ spcae: 'skin' });
  // @ts-expect-error set takes no clip
  await stream.set({ clip: 'idle' });
  // @ts-expect-error a misspelt query parameter
  await animd.pose({ clip: 'wave', tt: 0.5 });
  // @ts-expect-error an unknown space
  await animd.pose({ clip: 'wave', t: 0.5, space: 'world' });

  try {
    checkFields('play', { fsp: 5 });
  } catch (e) {
    if (e instanceof AnimdError) console.log(e.code, e.at, e.status, e.message);
  }
  const near: string | null = nearestName('fsp', FIELDS.play);

  const buf = new ArrayBuffer(64);
  const frame = decodeStreamFrame(buf);
  const q = decodeQ16(buf, 0, 1, true);
  const blocks2 = decodeSkinMeshes(buf, 'positions');
  const meshes: MeshBlock[] = decodeMeshes(buf);
  const one2: MeshBlock = decodeMesh(buf, 0);
  async function* chunks() { yield new Uint8Array(16); }
  for await (const f of decodeRangeFrames(chunks())) console.log(f.count);
  const type = sniffText('HIERARCHY') ?? sniffBytes(new Uint8Array(4));

  const skeleton: SkeletonLike = { bones: [{ name: 'hips' }], boneMatrices: new Float32Array(16), update() {} };
  const mapping = mapSkeleton(names, skeleton);
  const drive = driveSkeleton(skeleton, names, mapping);
  drive.set(pose.data);
  drive.release();
  console.log(v, layouts, json, info, one, near, frame.layout, q.normals, blocks2, meshes, one2, type,
    mapping.unmappedJoints, set.index);
  return header + m0 + (n0 ?? 0) + blocks + tri + missed + listed;
}
