// The JavaScript client's delta frames (encoding 'delta') under Node
// against the real daemon: a delta stream and a q16 stream of the same mesh,
// clip and fps on one connection give equal positions and normals for every
// frame number both carry (the delta chain decodes to the q16 payload, then
// both go through decodeQ16); a delta message lost on purpose makes the
// next one a gap, the stream asks for a key frame by itself and goes on.
import WebSocket from 'ws';

import { Animd, DeltaDecoder } from '../../packages/animd-client/animd.js';
import { check, maxDiff, run, startDaemon } from './lib.js';

run(async () => {
  const d = await startDaemon();
  const animd = new Animd({ url: d.url, WebSocket });
  const conn = animd.connect();
  const base = { mesh: 'body', clip: 'wave', fps: 30, format: 'bin', normals: true };
  const q16 = new Map();
  const delta = new Map();
  let keys = 0;
  const qs = await conn.play({ ...base, encoding: 'q16' });
  qs.onframe = (f) => q16.set(f.frame, f);
  const ds = await conn.play({ ...base, encoding: 'delta', key_every: 8 });
  check(ds.layout === 'positions+normals/delta' && ds.info.key_every === 8, 'play answer ' + JSON.stringify(ds.info));
  // Drop the 12th delta message before the client sees it.
  const receive = conn.receive.bind(conn);
  let seen = 0;
  let lost = null;
  conn.receive = (data) => {
    if (typeof data !== 'string') {
      const buf = data instanceof ArrayBuffer ? data : data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
      const dv = new DataView(buf);
      if (dv.getUint32(0, true) === ds.index && ++seen === 12) {
        lost = dv.getUint32(8, true);
        return undefined;
      }
    }
    return receive(data);
  };
  let afterLoss = 0;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`delta frames: ${delta.size} in 30 s`)), 30000);
    ds.onframe = (f) => {
      delta.set(f.frame, f);
      if (f.key) keys++;
      if (lost !== null && f.frame > lost) afterLoss++;
      if (delta.size >= 40 && afterLoss >= 10) { clearTimeout(timer); resolve(); }
    };
  });
  await ds.stop();
  await qs.stop();
  check(lost !== null && !delta.has(lost), `frame ${lost} was lost`);
  let same = 0;
  for (const [n, f] of delta) {
    const q = q16.get(n);
    if (!q) continue;
    check(maxDiff(f.positions, q.positions) === 0 && maxDiff(f.normals, q.normals) === 0,
      `frame ${n}: delta and q16 decode differently`);
    same++;
  }
  check(same >= 20, `only ${same} frames in both streams`);
  check(keys >= 5, `key frames: ${keys}`);
  // Nothing held: a delta that is not a key frame is a gap (null).
  const dec = new DeltaDecoder();
  const fake = new ArrayBuffer(40);
  new DataView(fake).setUint32(4, 4, true);
  check(dec.decode(fake, 0, 40) === null, 'a delta with nothing held');
  console.log(`delta ${delta.size} frames (${keys} key), ${same} equal to q16, lost frame ${lost} recovered`);
  conn.close();
});
