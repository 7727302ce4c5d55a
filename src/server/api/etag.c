/* server/api: ETags and conditional requests (etag.h). */
#include "server/api/etag.h"

#include <stdio.h>
#include <string.h>

/* Two FNV-1a 64-bit hashes with different offsets: 128 bits is plenty to
 * tell apart the answers of one server, and ETags need no secrecy. */
void srv__etag(char *out, const void *parts, size_t len) {
  const unsigned char *p = parts;
  uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
  for (size_t i = 0; i < len; i++) {
    h1 = (h1 ^ p[i]) * 0x100000001b3ull;
    h2 = (h2 ^ p[i]) * 0x100000001b3ull;
    h2 ^= h2 >> 29;
  }
  snprintf(out, 40, "\"%016llx%016llx\"", (unsigned long long)h1,
           (unsigned long long)h2);
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
