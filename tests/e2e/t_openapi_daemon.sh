#!/usr/bin/env bash
# OpenAPI: the real daemon driven through every route of docs/openapi.yaml,
# each answer validated against it.
exec "$(dirname "$0")/../openapi/run.sh" drive_daemon.js
