// Unit tests of the client's field checks (FIELDS, checkFields) under
// Node's test runner, no daemon: every call refuses a name its list does
// not hold before anything is sent, with the daemon's error code, `at` the
// name and the nearest known name in the message; known names pass
// through, and the version export is a semantic version.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  Animd, AnimdError, FIELDS, Stream, checkFields, nearestName, version,
} from '../../../packages/animd-client/animd.js';

/** A WebSocket that never opens: a refused field must not need one. */
class SilentSocket {
  constructor() { this.sent = []; SilentSocket.made++; }
  send(text) { this.sent.push(text); }
  close() {}
}
SilentSocket.made = 0;

const noFetch = async () => { throw new Error('nothing may be fetched'); };

test('conn.play names the misspelt field and its nearest known name, sending nothing', async () => {
  const a = new Animd({ url: 'http://d:1', fetch: noFetch, WebSocket: SilentSocket });
  const conn = a.connect({ reconnect: false });
  const e = await conn.play({ spcae: 'skin', fsp: 5 }).catch((x) => x);
  assert.ok(e instanceof AnimdError);
  assert.equal(e.code, 'unknown_field');
  assert.equal(e.at, 'spcae');
  assert.equal(e.message, "'spcae' is not a field of play (did you mean 'space'?)");
  const f = await conn.play({ skeleton: 's', fsp: 5 }).catch((x) => x);
  assert.deepEqual([f.code, f.at, f.message], ['unknown_field', 'fsp', "'fsp' is not a field of play (did you mean 'fps'?)"]);
  assert.equal(conn.streams.size, 0);
});

test('every call checks its own list', async () => {
  const a = new Animd({ url: 'http://d:1', fetch: noFetch, WebSocket: SilentSocket });
  await assert.rejects(a.pose({ clip: 'wave', t: 0.5, spaec: 'skin' }),
    { code: 'unknown_parameter', at: 'spaec', message: /did you mean 'space'/ });
  await assert.rejects(a.skin({ mesh: 'body', normal: 1 }),
    { code: 'unknown_parameter', at: 'normal', message: /did you mean 'normals'/ });
  await assert.rejects(a.upload('HIERARCHY', { skeletn: 'rig' }), { code: 'unknown_parameter', at: 'skeletn' });
  await assert.rejects(a.delete('clip', 'x', { cascad: true }), { code: 'unknown_parameter', at: 'cascad' });
  const range = a.poseRange({ clip: 'wave', form: 0, to: 1, fps: 2 });
  await assert.rejects(range.next(), { code: 'unknown_parameter', at: 'form', message: /did you mean 'from'/ });
  await assert.rejects(a.skinRange({ mesh: 'm', encodng: 'q16' }).next(), { at: 'encodng' });
  assert.throws(() => new Animd({ url: 'http://d:1', WebSocekt: SilentSocket }),
    { code: 'unknown_option', at: 'WebSocekt', message: /did you mean 'WebSocket'/ });
  assert.throws(() => a.connect({ reconect: false }), { code: 'unknown_option', message: /'reconnect'/ });
  const conn = a.connect({ reconnect: false });
  await assert.rejects(conn.pose({ clip: 'c', t: 0, encodig: 'q16' }), { code: 'unknown_field', at: 'encodig' });
  // set takes fewer fields than play: clip is not one of them.
  const s = { conn, id: 'x', play: {} };
  await assert.rejects(Stream.prototype.set.call(s, { clip: 'other' }), { code: 'unknown_field', at: 'clip' });
  // A name far from every known one lists them instead.
  await assert.rejects(a.pose({ zzzzzzzz: 1 }), { message: /known: skeleton, clip, t, space/ });
});

test('known names pass, request-table fields included', () => {
  checkFields('play', { id: 1, onframe: null, skeleton: 's', clip: 'c', ik: [], blend_space: {}, root_motion: {}, weights: {} });
  checkFields('wsPose', { skeleton: 's', t: 0, blend_space: {} });
  checkFields('pose', { root_motion: 'hips', weights: 'a=1' });
  checkFields('set', { speed: 2, ik: [] });
  checkFields('pose', undefined);
  assert.throws(() => checkFields('set', { id: 'x' }), { at: 'id' });
  assert.throws(() => checkFields('pose', 'wave'), { code: 'bad_argument' });
  assert.ok(Object.isFrozen(FIELDS));
});

test('nearest names: transpositions, dropped and added letters, nothing for unrelated words', () => {
  assert.equal(nearestName('spcae', FIELDS.play), 'space');
  assert.equal(nearestName('fsp', FIELDS.play), 'fps');
  assert.equal(nearestName('normal', FIELDS.skin), 'normals');
  assert.equal(nearestName('Space', FIELDS.play), 'space');
  assert.equal(nearestName('blendspace', FIELDS.play), 'blend_space');
  assert.equal(nearestName('q', FIELDS.play), null);
  assert.equal(nearestName('colour', FIELDS.play), null);
});

test('version is a semantic version string', () => {
  assert.match(version, /^\d+\.\d+\.\d+$/);
});

test("a stream's frame 0 arriving with play's answer reaches onframe", async () => {
  class OpenSocket extends SilentSocket {
    constructor(url) {
      super(url);
      this.readyState = 1;
      OpenSocket.last = this;
      setTimeout(() => this.onopen(), 0);
    }
  }
  const a = new Animd({ url: 'http://d:1', fetch: noFetch, WebSocket: OpenSocket });
  const conn = a.connect({ reconnect: false });
  const frames = [];
  const playing = conn.play({ id: 'w', skeleton: 's', clip: 'c', onframe: (f) => frames.push(f.frame) });
  const end = Date.now() + 2000;
  while (!(OpenSocket.last && OpenSocket.last.sent.length) && Date.now() < end) await new Promise((r) => setTimeout(r, 2));
  const ws = OpenSocket.last;
  // The answer and frame 0 in one go, no await between them.
  ws.onmessage({ data: JSON.stringify({ op: 'play', id: 'w', index: 2, layout: 'mat4', joints: 1, duration: 1, fps: 60, speed: 1 }) });
  const buf = new ArrayBuffer(32 + 64);
  const dv = new DataView(buf);
  dv.setUint32(0, 2, true);
  dv.setUint32(4, 1, true);
  dv.setUint32(24, 16, true);
  dv.setUint32(28, 1, true);
  ws.onmessage({ data: buf });
  const s = await playing;
  assert.deepEqual(frames, [0]);
  assert.equal(s.counters.frames, 1);
  conn.close();
});

test('listings check their fields and stop at maxPages or a next that does not move', async () => {
  const a = new Animd({ url: 'http://d:1', fetch: noFetch });
  await assert.rejects(a.assets({ limt: 2 }), { code: 'unknown_parameter', at: 'limt', message: /did you mean 'limit'/ });
  await assert.rejects(a.skeletonClips('s', { aftr: 'clip:x' }), { code: 'unknown_parameter', at: 'aftr' });
  await assert.rejects(a.listAll({ maxPage: 3 }).next(), { code: 'unknown_option', at: 'maxPage', message: /'maxPages'/ });
  await assert.rejects(a.listAll({ maxPages: 0 }).next(), { code: 'bad_argument', at: 'maxPages' });
  await assert.rejects(a.listAll({ maxPages: 1.5 }).next(), { code: 'bad_argument', at: 'maxPages' });
  await assert.rejects(a.listAll({ of: 'clips' }).next(), { code: 'bad_argument', at: 'skeleton' });
  await assert.rejects(a.listAll({ skeleton: 's' }).next(), { code: 'bad_argument', at: 'of' });
  await assert.rejects(a.listAll({ skeleton: 's', of: 'skeletons' }).next(), { code: 'bad_argument', at: 'of' });

  // A daemon whose every page says more follow: page n's next is "clip:n".
  const asked = [];
  const endless = async (url) => {
    asked.push(url);
    const n = asked.length;
    return new Response(JSON.stringify({ skeletons: [], clips: [{ id: `c${n}` }], meshes: [], next: `clip:${n}` }));
  };
  const b = new Animd({ url: 'http://d:1', fetch: endless });
  const got = [];
  const e = await (async () => { for await (const x of b.listAll({ skeleton: 's/1', of: 'clips', limit: 1, maxPages: 3 })) got.push(x); })()
    .catch((x) => x);
  assert.deepEqual([e.code, e.at], ['too_many_pages', 'maxPages']);
  assert.deepEqual(got.map((x) => [x.kind, x.asset.id]), [['clip', 'c1'], ['clip', 'c2'], ['clip', 'c3']]);
  assert.deepEqual(asked, ['http://d:1/v1/skeletons/s%2F1/clips?limit=1', 'http://d:1/v1/skeletons/s%2F1/clips?limit=1&after=clip%3A1',
    'http://d:1/v1/skeletons/s%2F1/clips?limit=1&after=clip%3A2']);

  const stuck = async () => new Response(JSON.stringify({ skeletons: [], clips: [], meshes: [], next: 'clip:same' }));
  const c = new Animd({ url: 'http://d:1', fetch: stuck });
  const s = await (async () => { for await (const x of c.listAll()) got.push(x); })().catch((x) => x);
  assert.equal(s.code, 'bad_answer');
});
