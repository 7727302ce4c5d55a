/* server/api: the OpenAPI document of API v1 embedded in the binary,
 * between srv_openapi_json_start and srv_openapi_json_end: docs/openapi.yaml
 * as JSON, converted at build time (scripts/yaml-to-json) into the file the
 * Makefile names as ANIMD_OPENAPI_JSON. The Makefile makes this object
 * depend on that file, which -MMD does not see through .incbin. */
  .section .rodata
  .global srv_openapi_json_start
  .global srv_openapi_json_end
  .balign 16
srv_openapi_json_start:
  .incbin ANIMD_OPENAPI_JSON
srv_openapi_json_end:
  .byte 0
  .section .note.GNU-stack,"",%progbits
