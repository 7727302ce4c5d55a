/* server: the demo asset (config/demo.json: a small rig, clip and mesh in
 * native JSON) embedded in the binary for --demo, between
 * srv_demo_json_start and srv_demo_json_end. A build without the file
 * embeds nothing, and --demo then reports a decode error. */
#if __has_include("../../config/demo.json")
#define ANIMD_DEMO_FILE "config/demo.json"
#endif

  .section .rodata
  .global srv_demo_json_start
  .global srv_demo_json_end
  .balign 16
srv_demo_json_start:
#ifdef ANIMD_DEMO_FILE
  .incbin ANIMD_DEMO_FILE
#endif
srv_demo_json_end:
  .byte 0
  .section .note.GNU-stack,"",%progbits
