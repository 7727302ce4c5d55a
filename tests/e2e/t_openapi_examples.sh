#!/usr/bin/env bash
# OpenAPI: every JSON example of README.md and docs/api.md validated against
# docs/openapi.yaml.
exec "$(dirname "$0")/../openapi/run.sh" --no-daemon doc_examples.js
