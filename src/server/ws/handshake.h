/* server: the WebSocket opening handshake (RFC 6455 section 4.2).
 *
 * Pure functions over the request's header values, so the checks are
 * tested without sockets: a request is accepted (101 with the
 * Sec-WebSocket-Accept value), refused as bad (400), or told which upgrade
 * or version it must use (426 with the header to send back). The accept
 * value is base64(SHA-1(key + GUID)) computed with libcrypto. */
#ifndef ANIMD_SERVER_WS_HANDSHAKE_H
#define ANIMD_SERVER_WS_HANDSHAKE_H

#include <stdbool.h>
#include <stddef.h>

#include "server/errors.h"

/* Length of a Sec-WebSocket-Accept value (base64 of 20 bytes). */
#define SRV_WS_ACCEPT_LEN 28

/* The header values of an upgrade request (NULL when absent). */
typedef struct srv_ws_handshake_req_s {
  bool is_get;
  int http_major;
  int http_minor;
  const char *upgrade;    /* Upgrade */
  const char *connection; /* Connection */
  const char *key;        /* Sec-WebSocket-Key */
  const char *version;    /* Sec-WebSocket-Version */
} srv_ws_handshake_req_t;

typedef struct srv_ws_handshake_s {
  int status;          /* 101, or the code's status (400, 405, 426). */
  srv_error_code code; /* The refusal's code; unset on 101. */
  const char *at;      /* The header at fault, NULL on 101. */
  const char *message; /* A sentence, NULL on 101. */
  /* Extra header lines for the answer ("Name: value\r\n"), "" if none. */
  const char *extra_headers;
  char accept[SRV_WS_ACCEPT_LEN + 1]; /* On 101. */
} srv_ws_handshake_t;

/* Computes Sec-WebSocket-Accept for key (the header value as sent). Returns
 * 0, or UV_EINVAL when key is not the base64 form of 16 bytes, or UV_EIO
 * when libcrypto fails. */
int srv_ws_accept_key(const char *key, char out[SRV_WS_ACCEPT_LEN + 1]);

/* Checks req and fills out. Always returns out->status. */
int srv_ws_handshake_check(const srv_ws_handshake_req_t *req,
                           srv_ws_handshake_t *out);

/* Writes the 101 answer for accept into buf (size bytes). Returns its
 * length, or 0 when buf is too small. */
size_t srv_ws_handshake_response(const char *accept, char *buf, size_t size);

/* True when the comma-separated header value list holds token
 * (case-insensitive, spaces around elements ignored). */
bool srv_ws_header_has_token(const char *list, const char *token);

#endif
