#!/usr/bin/env bash
# The documented options equal the option table: docs/operations.md's
# configuration table and config/animd.conf list every option of `animd
# --help` with its default (scripts/check-option-docs).
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 "$(dirname "$0")/../../scripts/check-option-docs" "$ANIMD_BIN" ||
  die "the documented options differ from the table"
