#!/usr/bin/env bash
# OpenAPI: docs/openapi.yaml is valid OpenAPI 3.1 (@readme/openapi-parser)
# and its schemas compile (Ajv 2020).
exec "$(dirname "$0")/../openapi/run.sh" --no-daemon validate_document.js
