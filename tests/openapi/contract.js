// The OpenAPI document as a contract the tests hold answers and examples
// to: loads docs/openapi.yaml (converted by scripts/yaml-to-json, the
// build's own conversion), compiles its schemas with Ajv (JSON Schema
// 2020-12, the dialect of OpenAPI 3.1, with ajv-formats), matches a
// request to its operation and validates an answer's status, content type,
// headers and body against it. Counts what it validated.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** docs/openapi.yaml as the JSON the daemon embeds. */
export function loadDocumentText() {
  return execFileSync(path.join(root, 'scripts/yaml-to-json'),
    [path.join(root, 'docs/openapi.yaml')], { encoding: 'utf8' });
}

const METHODS = ['get', 'head', 'post', 'put', 'delete', 'patch', 'options'];

function pointerEscape(s) {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export class Contract {
  constructor(doc) {
    this.doc = doc;
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, 'openapi.json');
    this.compiled = new Map();
    this.counts = { answers: 0, bodies: 0, messages: 0, headers: 0, parameters: 0 };
    this.covered = new Set();
  }

  /** Every operation of the document, as "METHOD /path". */
  operations() {
    const out = [];
    for (const [p, item] of Object.entries(this.doc.paths))
      for (const m of METHODS) if (item[m]) out.push(`${m.toUpperCase()} ${p}`);
    return out;
  }

  /** A validator for the schema at a JSON pointer of the document. */
  validator(pointer) {
    let v = this.compiled.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: 'openapi.json#' + pointer });
      this.compiled.set(pointer, v);
    }
    return v;
  }

  schema(name) {
    return this.validator('/components/schemas/' + pointerEscape(name));
  }

  /** Errors of value against components.schemas[name], or null. */
  check(name, value) {
    const v = this.schema(name);
    return v(value) ? null : this.ajv.errorsText(v.errors, { separator: '; ' });
  }

  /** Follows a $ref within the document; [object, its pointer]. */
  deref(obj, pointer) {
    while (obj && obj.$ref) {
      pointer = obj.$ref.slice(1);
      obj = pointer.split('/').slice(1)
        .reduce((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
    }
    return [obj, pointer];
  }

  /** The path template and operation of method on a concrete path. */
  match(method, urlPath) {
    for (const [tpl, item] of Object.entries(this.doc.paths)) {
      const re = new RegExp('^' + tpl.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+') + '$');
      if (re.test(urlPath)) {
        const op = item[method.toLowerCase()];
        return op ? { tpl, item, op } : { tpl, item, op: null };
      }
    }
    return null;
  }

  /** The parameters an operation declares (path item's and its own), resolved. */
  parameters(m) {
    return this.parameterPointers(m).map(([p]) => p);
  }

  /** [parameter, its JSON pointer] of each parameter of a match. */
  parameterPointers(m) {
    const base = `/paths/${pointerEscape(m.tpl)}`;
    const method = Object.keys(m.item).find((k) => m.item[k] === m.op);
    return [
      ...(m.item.parameters || []).map((p, i) => this.deref(p, `${base}/parameters/${i}`)),
      ...(m.op.parameters || []).map((p, i) => this.deref(p, `${base}/${method}/parameters/${i}`)),
    ];
  }

  /**
   * Validates one answer. req: {method, path, query (URLSearchParams)};
   * res: {status, headers (Headers), body (Buffer)}. Returns a list of
   * faults (empty: valid). ws: true for a WebSocket upgrade request.
   */
  validateAnswer(req, res) {
    const faults = [];
    const m = this.match(req.method, req.path);
    if (!m) {
      if (res.status === 404) return this.validateError(res, [], `${req.method} ${req.path}`);
      return [`no path of the document matches ${req.path} (answered ${res.status})`];
    }
    if (!m.op) {
      if (res.status === 405) return this.validateError(res, faults, `${req.method} ${req.path}`);
      return [`${req.method} ${m.tpl} is not in the document (answered ${res.status})`];
    }
    const opName = `${req.method.toUpperCase()} ${m.tpl}`;
    this.covered.add(opName);
    const declared = new Map(this.parameterPointers(m).filter(([p]) => p.in === 'query')
      .map(([p, ptr]) => [p.name, [p, ptr]]));
    for (const [name, value] of (req.query || new URLSearchParams()).entries()) {
      if (!declared.has(name)) {
        if (res.status !== 400) faults.push(`${opName}: query parameter '${name}' is not declared`);
        continue;
      }
      // A value the daemon took is one its parameter's schema allows.
      if (res.status >= 400) continue;
      const [p, ptr] = declared.get(name);
      const schema = this.deref(p.schema || {})[0];
      const numeric = schema.type === 'number' || schema.type === 'integer';
      const v = this.validator(ptr + '/schema');
      if (!v(numeric && value !== '' ? Number(value) : value))
        faults.push(`${opName}: ${name}=${value} was taken but its schema refuses it: ${this.ajv.errorsText(v.errors)}`);
      this.counts.parameters++;
    }
    const status = String(res.status);
    const key = m.op.responses[status] ? status
      : m.op.responses[status[0] + 'XX'] ? status[0] + 'XX' : 'default';
    const [resp, respPtr] = this.deref(m.op.responses[key],
      `/paths/${pointerEscape(m.tpl)}/${req.method.toLowerCase()}/responses/${key}`);
    if (!resp) return [`${opName}: status ${status} is not documented`];
    // Headers: every X-Animd-* and ETag sent is declared, and matches.
    const hdrs = resp.headers || {};
    const lower = Object.fromEntries(Object.entries(hdrs).map(([k, v]) => [k.toLowerCase(), [k, v]]));
    for (const [name, value] of res.headers) {
      if (!name.startsWith('x-animd-') && name !== 'etag' && name !== 'retry-after'
          && name !== 'allow') continue;
      if (!lower[name]) {
        // HEAD answers carry the GET answer's headers.
        if (req.method.toUpperCase() === 'HEAD') continue;
        faults.push(`${opName} ${status}: header ${name} is not declared`);
        continue;
      }
      const [hdrName, h] = lower[name];
      const [hdr, hPtr] = this.deref(h, `${respPtr}/headers/${pointerEscape(hdrName)}`);
      const v = this.validator(hPtr + '/schema');
      const typed = /^-?[0-9]+$/.test(value) && hdr.schema && (hdr.schema.type === 'integer'
        || this.deref(hdr.schema)[0].type === 'integer') ? Number(value) : value;
      if (!v(typed)) faults.push(`${opName} ${status}: header ${name}: ${value}: ${this.ajv.errorsText(v.errors)}`);
      this.counts.headers++;
    }
    if (req.method.toUpperCase() === 'HEAD' || status === '304' || status === '101') {
      if (res.body && res.body.length) faults.push(`${opName} ${status}: a body where none is due`);
      this.counts.answers++;
      return faults;
    }
    const ctype = (res.headers.get('content-type') || '').split(';')[0].trim();
    const content = resp.content || {};
    if (!content[ctype]) {
      faults.push(`${opName} ${status}: content type '${ctype}' is not documented (${Object.keys(content).join(', ')})`);
      return faults;
    }
    const media = content[ctype];
    const mediaPtr = `${respPtr}/content/${pointerEscape(ctype)}`;
    if (ctype === 'application/json') {
      let body;
      try { body = JSON.parse(res.body.toString('utf8')); } catch (e) {
        faults.push(`${opName} ${status}: not JSON: ${e.message}`);
        return faults;
      }
      const v = this.validator(mediaPtr + '/schema');
      if (!v(body)) faults.push(`${opName} ${status}: ${this.ajv.errorsText(v.errors, { separator: '; ' })}`);
      this.counts.bodies++;
    } else if (ctype === 'application/x-ndjson' && media['x-line-schema']) {
      const v = this.validator(mediaPtr + '/x-line-schema');
      const lines = res.body.toString('utf8').split('\n').filter((l) => l !== '');
      if (lines.length === 0) faults.push(`${opName} ${status}: no lines`);
      for (const line of lines) {
        if (!v(JSON.parse(line))) {
          faults.push(`${opName} ${status} line: ${this.ajv.errorsText(v.errors, { separator: '; ' })}`);
          break;
        }
        this.counts.bodies++;
      }
    } else if (res.body.length === 0) {
      faults.push(`${opName} ${status}: an empty ${ctype} body`);
    }
    this.counts.answers++;
    return faults;
  }

  validateError(res, faults, what) {
    const body = JSON.parse(res.body.toString('utf8'));
    const e = this.check('Error', body);
    if (e) faults.push(`${what} ${res.status}: ${e}`);
    this.counts.answers++;
    this.counts.bodies++;
    return faults;
  }
}
