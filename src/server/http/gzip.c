/* server/http: gzip content coding (gzip.h). */
#include "server/http/gzip.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

struct srv_gzip_s {
  z_stream zs;
};

/* The q of one Accept-Encoding element's parameters (";q=0.5"): 1 when
 * absent. s .. end are the parameters after the coding. */
static double element_q(const char *s, const char *end) {
  while (s < end) {
    while (s < end && (*s == ';' || *s == ' ' || *s == '\t')) s++;
    if (end - s >= 2 && (s[0] == 'q' || s[0] == 'Q') && s[1] == '=')
      return strtod(s + 2, NULL);
    while (s < end && *s != ';') s++;
  }
  return 1;
}

bool srv_gzip_accepted(const char *ae) {
  if (ae == NULL) return false;
  double star = -1;
  const char *s = ae;
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == ',') s++;
    const char *end = s;
    while (*end && *end != ',') end++;
    const char *name_end = s;
    while (name_end < end && *name_end != ';' && *name_end != ' ' &&
           *name_end != '\t')
      name_end++;
    size_t n = (size_t)(name_end - s);
    double q = element_q(name_end, end);
    if ((n == 4 && strncasecmp(s, "gzip", 4) == 0) ||
        (n == 6 && strncasecmp(s, "x-gzip", 6) == 0))
      return q > 0;
    if (n == 1 && *s == '*') star = q;
    s = end;
  }
  return star > 0;
}

bool srv_gzip_type(const char *ct) {
  if (ct == NULL) return false;
  static const char *const types[] = {"application/json",
                                      "application/x-ndjson", "image/svg+xml"};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    size_t n = strlen(types[i]);
    if (strncasecmp(ct, types[i], n) == 0 && (ct[n] == '\0' || ct[n] == ';'))
      return true;
  }
  return false;
}

srv_gzip_t *srv_gzip_new(void) {
  srv_gzip_t *z = calloc(1, sizeof *z);
  if (z == NULL) return NULL;
  /* windowBits 15 + 16: a gzip header and trailer around the deflate
   * data. */
  if (deflateInit2(&z->zs, SRV_GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    free(z);
    return NULL;
  }
  return z;
}

void srv_gzip_free(srv_gzip_t *z) {
  if (z == NULL) return;
  deflateEnd(&z->zs);
  free(z);
}

int srv_gzip_deflate(srv_gzip_t *z, const void *in, size_t len, bool finish,
                     fmt_buf_t *out) {
  z->zs.next_in = (Bytef *)(uintptr_t)in;
  z->zs.avail_in = 0;
  int flush = finish ? Z_FINISH : Z_SYNC_FLUSH;
  size_t left = len;
  for (;;) {
    /* zlib counts in uInt: feed at most 1 GiB at a time. */
    if (z->zs.avail_in == 0 && left > 0) {
      uInt step = left > (1u << 30) ? (1u << 30) : (uInt)left;
      z->zs.avail_in = step;
      left -= step;
    }
    size_t room = deflateBound(&z->zs, z->zs.avail_in) + 64;
    if (!fmt_buf_reserve(out, room)) return -1;
    z->zs.next_out = (Bytef *)out->data + out->len;
    z->zs.avail_out =
        (uInt)(out->cap - out->len > (1u << 30) ? (1u << 30)
                                                : out->cap - out->len);
    uInt before = z->zs.avail_out;
    int rc = deflate(&z->zs, left > 0 ? Z_NO_FLUSH : flush);
    out->len += before - z->zs.avail_out;
    if (rc == Z_STREAM_END) return 0;
    if (rc != Z_OK && rc != Z_BUF_ERROR) return -1;
    /* Done when every byte is in and the flush left room to spare. */
    if (left == 0 && z->zs.avail_in == 0 && z->zs.avail_out > 0 && !finish)
      return 0;
    if (rc == Z_BUF_ERROR && z->zs.avail_out > 0) return -1;
  }
}
