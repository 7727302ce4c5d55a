// docs/openapi.yaml is a valid OpenAPI 3.1 document: @readme/openapi-parser
// validates it against the OpenAPI 3.1 schema and the specification's own
// rules ($refs resolve, path parameters declared, operationIds unique), and
// every schema of components compiles under Ajv's JSON Schema 2020-12.
import { validate } from '@readme/openapi-parser';

import { Contract, loadDocumentText } from './contract.js';

const text = loadDocumentText();
const doc = JSON.parse(text);
const result = await validate(JSON.parse(text));
if (!result.valid) {
  console.error('FAIL: docs/openapi.yaml is not valid OpenAPI 3.1:');
  for (const e of result.errors || []) console.error('  ' + (e.message || JSON.stringify(e)));
  process.exit(1);
}
for (const w of result.warnings || []) console.log('warning: ' + (w.message || JSON.stringify(w)));
const contract = new Contract(doc);
const names = Object.keys(doc.components.schemas);
for (const name of names) contract.schema(name);
console.log(`openapi ${doc.openapi}: valid; ${contract.operations().length} operations, `
  + `${Object.keys(doc.paths).length} paths, ${names.length} schemas compiled`);
