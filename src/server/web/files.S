/* server/web: the browser files of web/ and packages/animd-client/ embedded
 * in the binary, each between <name>_start and <name>_end (static.c serves
 * them; a file missing from the tree embeds nothing and answers 404). The
 * Makefile makes this object depend on those files, which -MMD does not see
 * through .incbin. */
#define BEGIN(name)     \
  .global name##_start; \
  .global name##_end;   \
  .balign 16;           \
  name##_start:
#define END(name) \
  name##_end:     \
  .byte 0

  .section .rodata
BEGIN(srv_web_client_js)
#if __has_include("../../../packages/animd-client/animd.js")
  .incbin "packages/animd-client/animd.js"
#endif
END(srv_web_client_js)
BEGIN(srv_web_viewer_html)
#if __has_include("../../../web/viewer.html")
  .incbin "web/viewer.html"
#endif
END(srv_web_viewer_html)
BEGIN(srv_web_viewer_js)
#if __has_include("../../../web/viewer.js")
  .incbin "web/viewer.js"
#endif
END(srv_web_viewer_js)
BEGIN(srv_web_client_three_js)
#if __has_include("../../../packages/animd-client/three.js")
  .incbin "packages/animd-client/three.js"
#endif
END(srv_web_client_three_js)
  .section .note.GNU-stack,"",%progbits
