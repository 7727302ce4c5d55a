/* server: the WebSocket opening handshake (RFC 6455 section 4.2).
 *
 * Key design choice: the checks run on plain header strings and produce a
 * status plus the text of the answer, so the HTTP side only copies them to
 * the wire; SHA-1 and base64 come from libcrypto (EVP_Digest and
 * EVP_EncodeBlock / EVP_DecodeBlock). */
#include "server/ws/handshake.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <uv.h>

static const char ws_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

int srv_ws_accept_key(const char *key, char out[SRV_WS_ACCEPT_LEN + 1]) {
  if (key == NULL) return UV_EINVAL;
  /* RFC 6455 4.2.1: the value, once base64-decoded, is 16 bytes long, so
   * its form is 22 base64 characters and "==". */
  size_t len = strlen(key);
  if (len != 24 || key[22] != '=' || key[23] != '=') return UV_EINVAL;
  unsigned char raw[24];
  if (EVP_DecodeBlock(raw, (const unsigned char *)key, 24) != 18)
    return UV_EINVAL;

  char cat[24 + sizeof ws_guid];
  memcpy(cat, key, 24);
  memcpy(cat + 24, ws_guid, sizeof ws_guid - 1);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (EVP_Digest(cat, 24 + sizeof ws_guid - 1, md, &md_len, EVP_sha1(), NULL) !=
          1 ||
      md_len != 20)
    return UV_EIO;
  unsigned char b64[SRV_WS_ACCEPT_LEN + 4];
  if (EVP_EncodeBlock(b64, md, 20) != SRV_WS_ACCEPT_LEN) return UV_EIO;
  memcpy(out, b64, SRV_WS_ACCEPT_LEN);
  out[SRV_WS_ACCEPT_LEN] = '\0';
  return 0;
}

bool srv_ws_header_has_token(const char *list, const char *token) {
  if (list == NULL) return false;
  size_t tlen = strlen(token);
  const char *p = list;
  while (*p != '\0') {
    while (*p == ' ' || *p == '\t' || *p == ',') p++;
    const char *start = p;
    while (*p != '\0' && *p != ',') p++;
    const char *end = p;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t')) end--;
    if ((size_t)(end - start) == tlen && strncasecmp(start, token, tlen) == 0)
      return true;
  }
  return false;
}

static int refuse(srv_ws_handshake_t *out, srv_error_code code, const char *at,
                  const char *message, const char *extra) {
  int status = srv_error_status(code);
  out->status = status;
  out->code = code;
  out->at = at;
  out->message = message;
  out->extra_headers = extra;
  out->accept[0] = '\0';
  return status;
}

int srv_ws_handshake_check(const srv_ws_handshake_req_t *req,
                           srv_ws_handshake_t *out) {
  if (!req->is_get)
    return refuse(out, SRV_ERR_METHOD_NOT_ALLOWED, "method",
                  "a WebSocket handshake is a GET request", "Allow: GET\r\n");
  if (req->http_major < 1 || (req->http_major == 1 && req->http_minor < 1))
    return refuse(out, SRV_ERR_BAD_HANDSHAKE, "version",
                  "a WebSocket handshake needs HTTP/1.1", "");
  if (!srv_ws_header_has_token(req->upgrade, "websocket"))
    return refuse(out, SRV_ERR_UPGRADE_REQUIRED, "Upgrade",
                  "GET /v1/stream needs Upgrade: websocket",
                  "Upgrade: websocket\r\nConnection: Upgrade\r\n");
  if (!srv_ws_header_has_token(req->connection, "upgrade"))
    return refuse(out, SRV_ERR_BAD_HANDSHAKE, "Connection",
                  "the Connection header must hold the upgrade token", "");
  if (req->version == NULL || strcmp(req->version, "13") != 0)
    return refuse(out, SRV_ERR_UNSUPPORTED_VERSION, "Sec-WebSocket-Version",
                  "only WebSocket version 13 is supported",
                  "Sec-WebSocket-Version: 13\r\n");
  int r = srv_ws_accept_key(req->key, out->accept);
  if (r == UV_EINVAL)
    return refuse(out, SRV_ERR_BAD_HANDSHAKE, "Sec-WebSocket-Key",
                  "Sec-WebSocket-Key must be the base64 form of 16 bytes", "");
  if (r != 0)
    return refuse(out, SRV_ERR_INTERNAL, NULL, "the handshake digest failed",
                  "");
  out->status = 101;
  out->code = SRV_ERR_INTERNAL; /* Unset on 101. */
  out->at = out->message = NULL;
  out->extra_headers = "";
  return 101;
}

size_t srv_ws_handshake_response(const char *accept, char *buf, size_t size) {
  int n = snprintf(buf, size,
                   "HTTP/1.1 101 Switching Protocols\r\n"
                   "Upgrade: websocket\r\n"
                   "Connection: Upgrade\r\n"
                   "Sec-WebSocket-Accept: %s\r\n\r\n",
                   accept);
  if (n < 0 || (size_t)n >= size) return 0;
  return (size_t)n;
}
