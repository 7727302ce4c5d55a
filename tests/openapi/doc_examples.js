// Every JSON example of docs/api.md and README.md validated against the
// schemas of docs/openapi.yaml: the bodies of curl -d commands against the
// request body of the route they name; WebSocket transcript lines (`>` sent,
// `<` received) against WsClientMessage and WsServerMessage; every other
// JSON text of a code block (indented or fenced, `# ` comments included)
// against the request and answer schemas of the route its section heading
// names, or, under a heading without a route, against any top-level schema.
//
// An example is skipped as partial, and counted, when it elides on purpose:
// it holds `…` or `...` or a placeholder in brackets (`[3N]`, `[16 floats
// per joint]`), or its code block follows the line `<!-- openapi: partial -->`.
// Any other JSON-looking text that does not parse is a fault.
import fs from 'node:fs';
import path from 'node:path';

import { Contract, loadDocumentText, root } from './contract.js';

const doc = JSON.parse(loadDocumentText());
const contract = new Contract(doc);
const faults = [];
const counts = { validated: 0, partial: 0, blocks: 0 };

// Top-level schemas: what a request body, an answer or a message can be.
const TOP = ['PoseBody', 'PoseAnswer', 'SkinAnswer', 'SkinMeshesAnswer', 'NativeUpload',
  'UploadAnswer', 'AssetList', 'DeleteAnswer', 'SkeletonAsset', 'ClipAsset', 'MeshAsset',
  'SolveBody', 'SolveAnswer', 'CompareBody', 'CompareAnswer', 'CheckAnswer', 'TestSuite',
  'TestCase', 'TestReport', 'RetargetBody', 'RetargetAnswer', 'Health', 'Info', 'Error',
  'WsClientMessage', 'WsServerMessage', 'RootMotion', 'BlendSpace', 'IkEntry', 'Event',
  'MorphWeights'].map((n) => '/components/schemas/' + n);

const esc = (s) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The schema pointers of a route's request bodies and JSON answers. */
function routeSchemas(p, method) {
  const item = doc.paths[p];
  if (!item) return null;
  const out = [];
  for (const [m, op] of Object.entries(item)) {
    if (typeof op !== 'object' || !op.responses || (method && m !== method)) continue;
    const body = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
    if (body) out.push(`/paths/${esc(p)}/${m}/requestBody/content/application~1json/schema`);
    if (method) continue;
    for (const [status, r] of Object.entries(op.responses)) {
      const [resp, ptr] = contract.deref(r, `/paths/${esc(p)}/${m}/responses/${status}`);
      const c = resp.content || {};
      if (c['application/json']) out.push(`${ptr}/content/application~1json/schema`);
      if (c['application/x-ndjson'] && c['application/x-ndjson']['x-line-schema'])
        out.push(`${ptr}/content/application~1x-ndjson/x-line-schema`);
    }
  }
  return out;
}

/** The route a heading or a URL names: the document's path template. */
function routeOf(text) {
  const m = text.match(/\/(?:v1\/[A-Za-z.{}/]+|healthz|metrics)/);
  if (!m) return null;
  let p = m[0].replace(/[.]$/, '').replace(/\/$/, '');
  const ids = p.replace(/\/v1\/(skeletons|clips|meshes)\/[^/]+/, '/v1/$1/{id}');
  for (const cand of [p, ids]) if (doc.paths[cand]) return cand;
  return null;
}

function isPartial(text) {
  return /…|\.\.\.|\[[0-9]*[A-Z]+\]|\[[0-9]+ [a-z]/.test(text);
}

function validate(value, pointers, where) {
  for (const ptr of pointers) {
    if (contract.validator(ptr)(value)) {
      counts.validated++;
      if (process.env.OPENAPI_VERBOSE) console.log(`${where}: ${ptr}`);
      return;
    }
  }
  const v = contract.validator(pointers[0]);
  v(value);
  faults.push(`${where}: matches none of ${pointers.map((p) => p.split('/').slice(-1)[0] === 'schema'
    ? p.split('/').slice(1, 4).join(' ') : p.split('/').pop()).join(', ')}; against the first: `
    + contract.ajv.errorsText(v.errors, { separator: '; ' }));
}

function example(text, pointers, where) {
  if (isPartial(text)) {
    counts.partial++;
    return;
  }
  let value;
  try { value = JSON.parse(text); } catch (e) {
    faults.push(`${where}: not JSON and not marked partial: ${e.message}: ${text.slice(0, 120)}`);
    return;
  }
  validate(value, pointers, where);
}

/** The code blocks of a Markdown file: {lines, line, heading, partial}. */
function blocks(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out = [];
  let heading = '';
  let marked = false;
  let prevBlank = true;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (/^#{1,6} /.test(l)) heading = l;
    if (/^<!-- openapi: partial\b/.test(l)) { marked = true; continue; }
    if (/^```/.test(l)) {
      const start = i + 1;
      const body = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) body.push(lines[i]);
      out.push({ lines: body, line: start + 1, heading, partial: marked });
      marked = false;
      prevBlank = false;
      continue;
    }
    if (prevBlank && /^ {4}\S/.test(l)) {
      const start = i;
      const body = [];
      while (i < lines.length && (/^ {4}/.test(lines[i]) || (lines[i] === '' && /^ {4}/.test(lines[i + 1] || '')))) {
        body.push(lines[i].slice(4));
        i++;
      }
      i--;
      out.push({ lines: body, line: start + 1, heading, partial: marked });
      marked = false;
      continue;
    }
    if (l.trim() !== '') marked = marked && /^<!--/.test(l);
    prevBlank = l.trim() === '';
  }
  return out;
}

function scan(file) {
  const rel = path.relative(root, file);
  for (const b of blocks(file)) {
    const text = b.lines.join('\n');
    if (!/[{]/.test(text)) continue;
    counts.blocks++;
    const where = (k) => `${rel}:${b.line + k}`;
    if (b.partial) {
      counts.partial++;
      continue;
    }
    const route = routeOf(b.heading);
    const ws = /WebSocket|stream/i.test(b.heading) && route === '/v1/stream';
    const sectionSchemas = (route && !ws && routeSchemas(route)) || TOP;
    for (let k = 0; k < b.lines.length; k++) {
      let l = b.lines[k];
      // A curl command with a body: the route's request body; animd eval's
      // --request and --retarget: the bodies of POST /v1/pose and /v1/retarget.
      if (/^\s*(curl|(\S*\/)?animd)\b/.test(l)) {
        let cmd = l;
        while (/\\$/.test(cmd.trimEnd()) && k + 1 < b.lines.length) cmd = cmd.trimEnd().slice(0, -1) + '\n' + b.lines[++k];
        let q = cmd.match(/(?:-d|--data|--data-raw|--request|--retarget) '/);
        if (q) {
          let rest = cmd.slice(q.index + q[0].length);
          while (!rest.includes("'") && k + 1 < b.lines.length) rest += '\n' + b.lines[++k];
          const bodyText = rest.slice(0, rest.indexOf("'"));
          const url = cmd.match(/(?:localhost|127\.0\.0\.1):[0-9]+(\/[^\s'?]*)/);
          const r = q[0].startsWith('--request') ? '/v1/pose'
            : q[0].startsWith('--retarget') ? '/v1/retarget' : url && routeOf(url[1]);
          const ptrs = r && routeSchemas(r, 'post');
          if (!ptrs || ptrs.length === 0) faults.push(`${where(k)}: a curl body for no documented request body`);
          else example(bodyText, ptrs, where(k));
        }
        continue;
      }
      // WebSocket transcripts.
      const t = l.match(/^([<>]) (\{.*)$/);
      if (t) {
        example(t[2], ['/components/schemas/' + (t[1] === '>' ? 'WsClientMessage' : 'WsServerMessage')], where(k));
        continue;
      }
      // A JSON text: from a line starting with '{' (or '# {') until it parses.
      const comment = /^\s*# \{/.test(l);
      if (!/^\s*\{/.test(l) && !comment) continue;
      const strip = (s) => (comment ? s.replace(/^\s*#\s?/, '') : s);
      let acc = strip(l);
      let end = k;
      let parsed = false;
      for (;;) {
        try { JSON.parse(acc); parsed = true; break; } catch (e) { /* more lines */ }
        if (end + 1 >= b.lines.length) break;
        const next = b.lines[end + 1];
        if (comment && !/^\s*#/.test(next)) break;
        if (!comment && /^\s*(curl|#|\$|>|<|node|animd|cat|EOF)\b/.test(next)) break;
        if (!comment && /^\s*\{"/.test(next) && /\}\s*$/.test(acc)) break;
        end++;
        acc += '\n' + strip(next);
      }
      const schemas = ws ? ['/components/schemas/WsServerMessage', '/components/schemas/WsClientMessage', '/components/schemas/Error']
        : [...sectionSchemas, '/components/schemas/Error'];
      if (parsed || !isPartial(acc)) example(acc, schemas, where(k));
      else counts.partial++;
      k = end;
    }
  }
}

for (const f of ['README.md', 'docs/api.md']) scan(path.join(root, f));
for (const f of faults) console.error('FAULT: ' + f);
console.log(`examples: ${counts.validated} validated against docs/openapi.yaml, ${counts.partial} `
  + `skipped as partial (elided with … or marked), from ${counts.blocks} code blocks of README.md and docs/api.md`);
if (faults.length) {
  console.error(`FAIL: ${faults.length} examples depart from docs/openapi.yaml`);
  process.exit(1);
}
