/* server/api: ETags and conditional requests (etag.h). */
#include "server/api/etag.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Two 64-bit multiply-xorshift hashes over 8-byte words with different
 * seeds and multipliers: 128 bits is plenty to tell apart the answers of
 * one server, and ETags need no secrecy. A word at a time keeps an ETag
 * of a few hundred bytes of key to about a hundred instructions, written
 * as hex without printf or a loop per digit. */
static uint64_t mix(uint64_t h, uint64_t w, uint64_t k) {
  h = (h ^ w) * k;
  return h ^ (h >> 31);
}

/* The 8 lowercase hex digits of v, most significant first, into out (not
 * terminated): each nibble spread to a byte, then '0' + n, plus 39 where
 * n > 9 to land on 'a', eight at a time. */
static void hex8(char *out, uint32_t v) {
  uint64_t x = v;
  x = (x | x << 16) & 0x0000ffff0000ffffull;
  x = (x | x << 8) & 0x00ff00ff00ff00ffull;
  x = (x | x << 4) & 0x0f0f0f0f0f0f0f0full;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  x = __builtin_bswap64(x);
#endif
  x += 0x3030303030303030ull +
       (((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull) * 39;
  memcpy(out, &x, 8);
}

void srv__etag(char *out, const void *parts, size_t len) {
  const unsigned char *p = parts;
  const uint64_t k1 = 0x9e3779b97f4a7c15ull, k2 = 0xc2b2ae3d27d4eb4full;
  uint64_t h1 = 0xcbf29ce484222325ull ^ len, h2 = 0x84222325cbf29ce4ull;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h1 = mix(h1, w, k1);
    h2 = mix(h2, w, k2);
  }
  uint64_t w = 0;
  memcpy(&w, p + i, len - i);
  h1 = mix(mix(h1, w, k1), len, k2);
  h2 = mix(mix(h2, w, k2), len, k1);
  srv__etag_hex(out, h1, h2);
}

void srv__etag_hex(char *out, uint64_t h1, uint64_t h2) {
  out[0] = '"';
  hex8(out + 1, (uint32_t)(h1 >> 32));
  hex8(out + 9, (uint32_t)h1);
  hex8(out + 17, (uint32_t)(h2 >> 32));
  hex8(out + 25, (uint32_t)h2);
  out[33] = '"';
  out[34] = '\0';
}

void srv__etag_fields(char *etag, const srv_fields_t *fields) {
  if (fields->present == 0) return;
  /* The ETag so far, then the fields as text (structured values by their
   * canonical JSON). */
  fmt_buf_t b = FMT_BUF_INIT;
  fmt_buf_append(&b, etag, 40);
  srv_fields_print(&b, fields);
  if (!b.failed) srv__etag(etag, b.data, b.len);
  fmt_buf_free(&b);
}

bool srv__etag_matches(const srv_request_t *req, const char *etag) {
  const char *inm = srv_request_header(req, "If-None-Match");
  if (inm == NULL) return false;
  size_t elen = strlen(etag);
  const char *s = inm;
  while (*s) {
    while (*s == ' ' || *s == ',' || *s == '\t') s++;
    if (*s == '*') return true;
    if (strncmp(s, "W/", 2) == 0) s += 2;
    const char *e = s;
    while (*e && *e != ',') e++;
    size_t n = (size_t)(e - s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (n == elen && memcmp(s, etag, n) == 0) return true;
    s = e;
  }
  return false;
}

bool srv__respond_if_not_modified(srv_request_t *req, const char *etag) {
  if (!srv__etag_matches(req, etag)) return false;
  char extra[80];
  snprintf(extra, sizeof extra, "ETag: %s\r\n", etag);
  srv_respond(req, 304, NULL, extra, NULL, 0);
  return true;
}
