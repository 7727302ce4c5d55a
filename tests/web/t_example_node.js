// examples/node/main.js as a user runs it (its own node_modules: the
// animd-client package linked from packages/animd-client, and ws) against
// the daemon: with no file it uses the demo, with one it uploads it; the
// figures it prints equal the daemon's answers fetched without the client
// (the root joint's position, the skinned box), its stream delivered
// frames, and its misspelt field was refused by the client.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { check, floatsOf, run, startDaemon } from './lib.js';

const example = path.resolve('examples/node');

async function runExample(url, ...args) {
  const { stdout } = await promisify(execFile)('node', ['main.js', '--url', url, '--seconds', '0.5', '--json', ...args],
    { cwd: example, timeout: 60000 });
  return JSON.parse(stdout);
}

run(async () => {
  check(fs.existsSync(path.join(example, 'node_modules/ws')), 'examples/node/node_modules is missing: run make deps-test');
  const d = await startDaemon();

  const demo = await runExample(d.url);
  console.log('demo', JSON.stringify(demo));
  check(demo.client === demo.daemon, `client ${demo.client}, daemon ${demo.daemon}`);
  check(demo.asset.skeleton === 'demo-humanoid' && demo.asset.joints === 17 && demo.asset.mesh === 'body',
    'asset ' + JSON.stringify(demo.asset));
  const pose = await (await fetch(`${d.url}/v1/pose?skeleton=demo-humanoid&clip=${demo.asset.clip}` +
    `&t=${demo.pose.t}&joints=${demo.pose.root}&format=json`)).json();
  const want = pose.matrices.slice(12, 15);
  check(demo.pose.rootPosition.every((x, i) => Math.abs(x - want[i]) <= 1e-6),
    `root at ${demo.pose.rootPosition}, daemon ${want}`);
  const skin = await floatsOf(`${d.url}/v1/skin?mesh=body&clip=${demo.asset.clip}&t=${demo.pose.t}&format=bin`);
  for (let a = 0; a < 3; a++) {
    let lo = Infinity, hi = -Infinity;
    for (let i = a; i < skin.length; i += 3) {
      lo = Math.min(lo, skin[i]);
      hi = Math.max(hi, skin[i]);
    }
    check(demo.skin.min[a] === lo && demo.skin.max[a] === hi, `axis ${a}: ${demo.skin.min[a]}..${demo.skin.max[a]}, daemon ${lo}..${hi}`);
  }
  check(demo.skin.vertices === 512, 'vertices ' + demo.skin.vertices);
  check(demo.stream.frames > 0 && demo.stream.first[0].frame === 0 && demo.stream.first[0].floats === 16 * 17,
    'stream ' + JSON.stringify(demo.stream));
  check(demo.stream.daemon.frames >= demo.stream.frames, 'daemon counted fewer frames than arrived');
  check(demo.typo.code === 'unknown_parameter' && demo.typo.at === 'spcae' && /did you mean 'space'/.test(demo.typo.message),
    'typo ' + JSON.stringify(demo.typo));

  // An asset from a file: a two-joint BVH the example uploads.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'animd-example-'));
  const bvh = path.join(dir, 'swing.bvh');
  fs.writeFileSync(bvh, 'HIERARCHY\nROOT hips\n{\n OFFSET 0 1 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n' +
    ' JOINT arm\n {\n  OFFSET 0 1 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 1 0\n  }\n }\n}\n' +
    'MOTION\nFrames: 3\nFrame Time: 0.5\n0 1 0 0 0 0 0 0 0\n2 1 0 0 0 0 90 0 0\n4 1 0 0 0 0 0 0 0\n');
  const up = await runExample(d.url, bvh);
  fs.rmSync(dir, { recursive: true, force: true });
  console.log('upload', JSON.stringify(up));
  check(up.uploaded.skeletons === 1 && up.uploaded.clips === 1 && up.asset.joints === 2 && up.asset.mesh === null,
    'uploaded ' + JSON.stringify(up));
  // At t = 0.5 the root has moved to x = 2 (the second frame), y = 1.
  check(up.pose.root === 'hips' && Math.abs(up.pose.rootPosition[0] - 2) < 1e-6 &&
    Math.abs(up.pose.rootPosition[1] - 1) < 1e-6, 'root ' + up.pose.rootPosition);
  check(up.stream.frames > 0, 'no frames');
});
