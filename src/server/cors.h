/* server: the origin policy: which web pages may read the daemon's
 * answers (CORS) and open its WebSocket streams.
 *
 * Key design choice: the policy is the text of the allowed_origins setting
 * itself, read where it is needed. Only requests that carry an Origin
 * header (sent by browsers) are looked at, so curl, benchmarks and native
 * clients pay nothing; the list is a handful of short words. The list
 * holds, separated by commas or spaces:
 *   *                      any origin (answers carry Allow-Origin: *)
 *   loopback               http(s) pages on localhost (or a name under
 *                          it), 127.0.0.0/8 or [::1], any port (the
 *                          default: the daemon binds loopback by default,
 *                          so do its dev servers)
 *   null                   pages that have no origin (file://, sandboxed
 *                          frames: from any site, so never by default)
 *   scheme://host[:port]   exactly that origin (http or https)
 * A page the daemon serves itself (Origin equal to http(s):// + Host, where
 * Host names the daemon: hosts.h, srv_request_own_host) is always allowed, and
 * so is a request without Origin (not a browser, or a same-origin GET). Pure
 * functions: no state, any thread. */
#ifndef ANIMD_SERVER_CORS_H
#define ANIMD_SERVER_CORS_H

#include <stdbool.h>
#include <stddef.h>

/* The default list. */
#define SRV_CORS_DEFAULT "loopback"

/* Origins longer than this are refused (they are echoed in answers). */
#define SRV_CORS_ORIGIN_MAX 256

/* Preflight answers may be cached by the browser this long (seconds). */
#define SRV_CORS_MAX_AGE 600

/* Request headers a page may send (preflight Allow-Headers). */
#define SRV_CORS_ALLOW_HEADERS                                                 \
  "Accept, Authorization, Content-Type, If-None-Match"

/* Answer headers a page may read besides the safelisted ones. */
#define SRV_CORS_EXPOSE_HEADERS                                                \
  "ETag, Retry-After, X-Animd-Answer, X-Animd-Joints, X-Animd-Layout, "        \
  "X-Animd-Meshes, X-Animd-Morph-Weights, X-Animd-Vertices"

/* Checks the syntax of a list. Returns 0, or -1 with a message naming the
 * bad entry in err (err_len bytes). */
int srv_cors_validate(const char *list, char *err, size_t err_len);

/* True when a request from origin (the Origin header; NULL when absent)
 * to host (the Host header when it names the daemon, srv_request_own_host;
 * NULL otherwise) may be served to the page. */
bool srv_cors_allowed(const char *list, const char *origin, const char *host);

/* Writes the CORS header lines ("Name: value\r\n") of an answer to a
 * request with these Origin and Host headers into buf (cap bytes):
 * Access-Control-Allow-Origin and -Expose-Headers when allowed, Vary:
 * Origin whenever the answer depends on the origin. Returns the bytes
 * written: 0 without Origin, and 0 when they do not fit (nothing is
 * written then). */
size_t srv_cors_answer_headers(const char *list, const char *origin,
                               const char *host, char *buf, size_t cap);

#endif
