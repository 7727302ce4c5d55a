// The viewer's asset lists in headless Chromium when GET /v1/assets answers
// in pages (the daemon started with --list-limit): with two assets a page,
// the skeleton, clip and mesh lists hold every asset of the full listing
// (GET /v1/assets?limit=10000, read by Node), a skeleton whose clips and
// mesh come on the last pages opens and is drawn; with one asset a page and
// more than 100 assets, the viewer reads 100 pages, lists exactly the first
// 100 assets and says in its panel that more were left.
import { VIEW, check, launchBrowser, openViewer, run, startDaemon } from './lib.js';

/** A native JSON upload: one skeleton of two joints, `clips` clips (each
 * turning the tip by its own angle) and, with `mesh`, a one-triangle mesh. */
function rig(name, clips, mesh) {
  const quat = (a) => [0, Math.sin(a / 2), 0, Math.cos(a / 2)];
  const body = {
    skeleton: {
      name,
      joints: [
        { name: 'root', parent: -1 },
        { name: 'tip', parent: 0, translation: [0, 1, 0] },
      ],
    },
    clips: Array.from({ length: clips }, (_, i) => ({
      name: `${name}-clip-${String(i).padStart(3, '0')}`,
      tracks: [{ joint: 'tip', path: 'rotation', times: [0, 1], values: [...quat(0), ...quat(0.01 * (i + 1))] }],
    })),
  };
  if (mesh) {
    body.meshes = [{
      name: `${name}-mesh`, positions: [-0.2, 0, 0, 0.2, 0, 0, 0, 1, 0.1],
      joints: [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], weights: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], indices: [0, 1, 2],
    }];
  }
  return body;
}

async function upload(d, body) {
  const res = await fetch(`${d.url}/v1/assets`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await res.text();
  check(res.ok, `upload: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** The whole listing in one answer, in listing order. */
async function fullListing(d) {
  const res = await fetch(`${d.url}/v1/assets?limit=10000`);
  check(res.ok, `listing: ${res.status}`);
  const all = await res.json();
  check(all.next === undefined, 'the full listing has a next page');
  return all;
}

/** The values of a select's options, in order. */
function options(page, id) {
  return page.evaluate((el) => [...document.getElementById(el).options].map((o) => o.value), id);
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

run(async () => {
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: VIEW });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  // Two assets a page: every asset listed, the last pages' skeleton drawn.
  {
    const d = await startDaemon(['--list-limit', '2']);
    const up = await upload(d, rig('paged', 3, true));
    const all = await fullListing(d);
    const total = all.skeletons.length + all.clips.length + all.meshes.length;
    const first = await (await fetch(`${d.url}/v1/assets`)).json();
    check(first.next && first.skeletons.length + first.clips.length + first.meshes.length === 2,
      'the daemon does not answer two assets a page: ' + JSON.stringify(first));
    const skel = up.skeletons[0].id, clip = up.clips[2].id, mesh = up.meshes[0].id;
    const { state } = await openViewer(page, `${d.url}/viewer?skeleton=${skel}&clip=${clip}&mesh=${mesh}&t=0.5`);
    console.log('two a page', JSON.stringify({ total, listing: state.listing, mode: state.mode }));
    check(state.listing.complete && state.listing.pages === Math.ceil(total / 2) && state.listing.assets === total,
      `listing ${JSON.stringify(state.listing)}, ${total} assets`);
    check(same(await options(page, 'skeleton'), all.skeletons.map((a) => a.id)), 'skeletons listed: ' +
      (await options(page, 'skeleton')));
    const clips = all.clips.filter((c) => c.skeleton === skel).map((c) => c.id);
    check(clips.length === 3 && same(await options(page, 'clip'), clips), 'clips listed: ' + (await options(page, 'clip')));
    const meshes = all.meshes.filter((m) => m.skeleton === skel).map((m) => m.id);
    check(same(await options(page, 'mesh'), [...meshes, 'all', 'none']), 'meshes listed: ' + (await options(page, 'mesh')));
    check(state.skeleton === skel && state.clip === clip && state.mesh === mesh && state.mode === 'fat',
      'shown: ' + JSON.stringify({ skeleton: state.skeleton, clip: state.clip, mesh: state.mesh, mode: state.mode }));
    check(await page.evaluate(() => document.getElementById('listing').textContent) === '', 'a listing note shows');
    await d.stop();
  }

  // One asset a page and more than 100 assets: 100 pages, and the panel says so.
  {
    const d = await startDaemon(['--list-limit', '1']);
    await upload(d, rig('many', 105, false));
    const all = await fullListing(d);
    const order = [...all.skeletons, ...all.clips, ...all.meshes];
    check(order.length > 100, `only ${order.length} assets`);
    const listed = order.slice(0, 100);
    const skeletons = listed.filter((a) => all.skeletons.includes(a)).map((a) => a.id);
    const clips = listed.filter((a) => all.clips.includes(a));
    const skel = clips[0].skeleton;
    const { state } = await openViewer(page, `${d.url}/viewer?skeleton=${skel}&mesh=none&t=0.5`);
    const note = await page.evaluate(() => document.getElementById('listing').textContent);
    console.log('one a page', JSON.stringify({ total: order.length, listing: state.listing, note }));
    check(!state.listing.complete && state.listing.pages === 100 && state.listing.assets === 100,
      'listing ' + JSON.stringify(state.listing));
    check(/100 listing pages/.test(note) && /first 100/.test(note), 'the panel says: ' + note);
    check(same(await options(page, 'skeleton'), skeletons), 'skeletons listed: ' + (await options(page, 'skeleton')));
    const mine = clips.filter((c) => c.skeleton === skel).map((c) => c.id);
    check(same(await options(page, 'clip'), mine), `clips listed: ${(await options(page, 'clip')).length}, expected ${mine.length}`);
    check(state.skeleton === skel && state.clip === mine[0] && state.mode === 'lines', 'shown: ' + JSON.stringify(state));
    await d.stop();
  }
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
});
