#!/usr/bin/env bash
# The JavaScript client's unit tests (tests/web/unit, Node's test runner):
# no daemon, a fake fetch and a fake WebSocket.
set -euo pipefail
exec node --test tests/web/unit/
