// The JavaScript client's listings against a real daemon started with a
// small list_limit: listAll walks every page of GET /v1/assets and of a
// skeleton's clips and meshes, and every asset comes back exactly once,
// the same set as one page of the daemon's own answer (fetched without the
// client); the page count is what the limit makes; assets({limit, after})
// pages by hand; an asset uploaded between two pages neither shifts nor
// repeats the others; more pages than maxPages is too_many_pages.
import { Animd } from '../../packages/animd-client/animd.js';
import { check, run, startDaemon } from './lib.js';

const LIST_LIMIT = 3;
const UPLOADS = 8;

// A BVH skeleton and its clip, different for each i.
function bvh(i) {
  return `HIERARCHY\nROOT hips\n{\n OFFSET 0 ${i} 0\n CHANNELS 3 Xrotation Yrotation Zrotation\n`
    + ` End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0\n0 0 ${i}\n`;
}

// "kind:id" of every asset of one answer, in its order.
function keys(page) {
  return [...page.skeletons.map((a) => 'skeleton:' + a.id), ...page.clips.map((a) => 'clip:' + a.id),
    ...page.meshes.map((a) => 'mesh:' + a.id)];
}

async function daemonJson(url) {
  const r = await fetch(url);
  check(r.ok, `${url}: ${r.status}`);
  return r.json();
}

// Every {kind, asset} of a listAll, as "kind:id", checked to be unique.
async function walk(iter) {
  const seen = [];
  for await (const { kind, asset } of iter) seen.push(kind + ':' + asset.id);
  check(new Set(seen).size === seen.length, 'an asset came twice: ' + seen.join(' '));
  return seen;
}

function sameSet(got, want, what) {
  check(got.length === want.length && [...got].sort().join() === [...want].sort().join(),
    `${what}: ${got.length} assets ${got.join(' ')}; the daemon lists ${want.length}: ${want.join(' ')}`);
}

run(async () => {
  const d = await startDaemon(['--list-limit', String(LIST_LIMIT)]);
  const asked = [];
  const counting = (url, init) => { asked.push(url); return fetch(url, init); };
  const animd = new Animd({ url: d.url, fetch: counting });
  for (let i = 1; i <= UPLOADS; i++) await animd.upload(bvh(i), { name: `paged${i}` });

  const all = keys(await daemonJson(`${d.url}/v1/assets?limit=1000`));
  check(all.length >= 2 * UPLOADS + 3, 'assets: ' + all.length);
  const first = await daemonJson(`${d.url}/v1/assets`);
  check(keys(first).length === LIST_LIMIT && typeof first.next === 'string', 'list_limit: ' + JSON.stringify(first));

  // Every asset once, in listing order, over pages of list_limit.
  asked.length = 0;
  const got = await walk(animd.listAll());
  sameSet(got, all, 'listAll');
  check(got.join() === all.join(), 'listAll order: ' + got.join(' '));
  check(asked.length === Math.ceil(all.length / LIST_LIMIT), `${asked.length} pages for ${all.length} assets`);
  asked.length = 0;
  sameSet(await walk(animd.listAll({ limit: 2 })), all, 'listAll limit 2');
  check(asked.length === Math.ceil(all.length / 2) && asked.every((u) => /[?&]limit=2(&|$)/.test(u)),
    'limit 2 pages: ' + asked.join(' '));

  // By hand: assets({limit, after}) until no next.
  const byHand = [];
  let page = await animd.assets({ limit: 4 });
  for (let n = 0; n < 100; n++) {
    byHand.push(...keys(page));
    if (page.next === undefined) break;
    page = await animd.assets({ limit: 4, after: page.next });
  }
  check(byHand.join() === all.join(), 'assets() pages: ' + byHand.join(' '));

  // A skeleton's clips and meshes.
  const demo = (await animd.skeleton('demo-humanoid')).id;
  for (const of of ['clips', 'meshes']) {
    const want = keys(await daemonJson(`${d.url}/v1/skeletons/${demo}/${of}?limit=1000`));
    check(want.length > 0, `demo-humanoid has no ${of}`);
    sameSet(await walk(animd.listAll({ skeleton: 'demo-humanoid', of, limit: 1 })), want, 'listAll ' + of);
    const one = await (of === 'clips' ? animd.skeletonClips(demo, { limit: 1 }) : animd.skeletonMeshes(demo, { limit: 1 }));
    check(keys(one).join() === want[0] && (want.length > 1) === (one.next !== undefined), `${of} page: ` + JSON.stringify(one));
  }

  // An upload between two pages: the assets listed before it come once.
  const seen = [];
  let added = null;
  for await (const { kind, asset } of animd.listAll()) {
    seen.push(kind + ':' + asset.id);
    if (!added) added = await animd.upload(bvh(UPLOADS + 1), { name: 'late' });
  }
  check(new Set(seen).size === seen.length, 'an asset came twice across an upload: ' + seen.join(' '));
  check(all.every((k) => seen.includes(k)), 'an asset went missing across an upload');
  const late = ['skeleton:' + added.skeletons[0].id, 'clip:' + added.clips[0].id];
  check(seen.length - all.length === late.filter((k) => seen.includes(k)).length, 'across an upload: ' + seen.join(' '));

  // maxPages bounds the walk.
  asked.length = 0;
  const e = await walk(animd.listAll({ maxPages: 2 })).catch((x) => x);
  check(e.code === 'too_many_pages' && e.at === 'maxPages' && asked.length === 2, 'maxPages: ' + e);
  const bad = await animd.assets({ limit: 0 }).catch((x) => x);
  check(bad.code === 'bad_parameter' && bad.at === 'limit' && bad.status === 400, 'limit 0: ' + bad);
  console.log(`ok: ${all.length} assets once each over ${Math.ceil(all.length / LIST_LIMIT)} pages of ${LIST_LIMIT}, `
    + 'and over pages of 1, 2 and 4; a skeleton\'s clips and meshes; maxPages');
});
