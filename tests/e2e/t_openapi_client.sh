#!/usr/bin/env bash
# OpenAPI: a TypeScript client generated from docs/openapi.yaml (openapi-
# typescript) compiles (tsc --noEmit).
exec "$(dirname "$0")/../openapi/run.sh" --no-daemon client.js
