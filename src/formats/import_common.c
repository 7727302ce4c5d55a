/* formats: helpers shared by the glTF, BVH and MD5 importers (bundle
 * growth, limits, build-error mapping and the text cursor). The text cursor
 * never reads past the body and never needs it NUL-terminated. */
#include "formats/import_common.h"

#include <errno.h>
#include <openssl/evp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

size_t fmt__max_joints(const fmt_decode_options_t *opts) {
  if (opts != NULL && opts->max_joints != 0 &&
      opts->max_joints < ANIM_MAX_JOINTS)
    return opts->max_joints;
  return ANIM_MAX_JOINTS;
}

size_t fmt__max_keys(const fmt_decode_options_t *opts) {
  return opts != NULL && opts->max_keys != 0 ? opts->max_keys
                                             : FMT_IMPORT_MAX_KEYS;
}

size_t fmt__max_vertices(const fmt_decode_options_t *opts) {
  return opts != NULL && opts->max_vertices != 0 ? opts->max_vertices
                                                 : FMT_IMPORT_MAX_VERTICES;
}

void fmt__content_name(const char *prefix, const void *body, size_t len,
                       char *out, size_t size) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(body ? body : "", body ? len : 0, md, &n, EVP_sha256(),
                 NULL) != 1 ||
      n < 4) {
    snprintf(out, size, "%s", prefix);
    return;
  }
  snprintf(out, size, "%s-%02x%02x%02x%02x", prefix, md[0], md[1], md[2],
           md[3]);
}

int fmt__nomem(fmt_error_t *err, const char *at) {
  return fmt_fail(err, FMT_ERR_TOO_LARGE, at,
                  "out of memory while decoding the upload");
}

int fmt__charge(fmt_bundle_t *b, const fmt_decode_options_t *opts, size_t bytes,
                fmt_error_t *err, const char *at) {
  size_t max = opts != NULL ? opts->max_bytes : 0;
  if (max != 0 && (bytes > max || b->bytes > max - bytes))
    return fmt_fail(err, FMT_ERR_INSUFFICIENT_STORAGE, at,
                    "the upload's assets need more than the %zu bytes of "
                    "room the store has",
                    max);
  b->bytes += bytes;
  return 0;
}

/* Grows an array of n elements of size sz by one; NULL on failure. */
static void *grow1(void *arr, size_t n, size_t sz) {
  return realloc(arr, (n + 1) * sz);
}

int fmt__push_skeleton(fmt_bundle_t *b, anim_skeleton_t *s, fmt_error_t *err) {
  anim_skeleton_t **a = grow1(b->skeletons, b->skeleton_count, sizeof *a);
  if (a == NULL) {
    anim_skeleton_free(s);
    return fmt__nomem(err, "");
  }
  a[b->skeleton_count++] = s;
  b->skeletons = a;
  return 0;
}

int fmt__push_clip(fmt_bundle_t *b, anim_clip_t *c, uint32_t skeleton,
                   fmt_error_t *err) {
  fmt_clip_t *a = grow1(b->clips, b->clip_count, sizeof *a);
  if (a == NULL) {
    anim_clip_free(c);
    return fmt__nomem(err, "");
  }
  a[b->clip_count].clip = c;
  a[b->clip_count++].skeleton = skeleton;
  b->clips = a;
  return 0;
}

int fmt__push_mesh(fmt_bundle_t *b, anim_mesh_t *m, uint32_t skeleton,
                   fmt_error_t *err) {
  fmt_mesh_t *a = grow1(b->meshes, b->mesh_count, sizeof *a);
  if (a == NULL) {
    anim_mesh_free(m);
    return fmt__nomem(err, "");
  }
  a[b->mesh_count].mesh = m;
  a[b->mesh_count++].skeleton = skeleton;
  b->meshes = a;
  return 0;
}

int fmt__build_fail(fmt_error_t *err, const char *at,
                    const anim_build_error_t *be, anim_result r) {
  if (r == ANIM_ERR_OUT_OF_MEMORY) return fmt__nomem(err, at);
  if (r == ANIM_ERR_TOO_MANY_JOINTS)
    return fmt_fail(err, FMT_ERR_TOO_MANY_JOINTS, at, "%s",
                    be->message[0] ? be->message : "too many joints");
  return fmt_fail(err, fmt_error_of_result(r), at, "%s",
                  be->message[0] ? be->message : anim_result_str(r));
}

/* ---- text cursor --------------------------------------------------------- */

void fmt__text_init(fmt_text_t *t, const void *body, size_t len) {
  memset(t, 0, sizeof *t);
  t->p = body;
  t->end = t->p + len;
  t->line = 1;
  t->tok_line = 1;
}

bool fmt__text_at_eol(fmt_text_t *t) {
  while (t->p < t->end && (*t->p == ' ' || *t->p == '\t' || *t->p == '\r'))
    t->p++;
  return t->p >= t->end || *t->p == '\n' ||
         (t->end - t->p >= 2 && t->p[0] == '/' && t->p[1] == '/');
}

bool fmt__text_next(fmt_text_t *t) {
  t->quoted = false;
  for (;;) {
    while (t->p < t->end &&
           (*t->p == ' ' || *t->p == '\t' || *t->p == '\r' || *t->p == '\n')) {
      if (*t->p == '\n') t->line++;
      t->p++;
    }
    if (t->end - t->p >= 2 && t->p[0] == '/' && t->p[1] == '/') {
      const char *nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
      t->p = nl != NULL ? nl : t->end;
      continue;
    }
    break;
  }
  t->tok_line = t->line;
  if (t->p >= t->end) {
    t->tok = t->end;
    t->tok_len = 0;
    return false;
  }
  const char *s = t->p;
  if (*s == '"') {
    const char *q = s + 1;
    while (q < t->end && *q != '"' && *q != '\n') q++;
    t->quoted = true;
    t->tok = s + 1;
    t->tok_len = (size_t)(q - s - 1);
    t->p = (q < t->end && *q == '"') ? q + 1 : q;
    return true;
  }
  if (*s == '{' || *s == '}' || *s == '(' || *s == ')') {
    t->tok = s;
    t->tok_len = 1;
    t->p = s + 1;
    return true;
  }
  const char *q = s;
  while (q < t->end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n' &&
         *q != '{' && *q != '}' && *q != '(' && *q != ')' && *q != '"')
    q++;
  t->tok = s;
  t->tok_len = (size_t)(q - s);
  t->p = q;
  return true;
}

bool fmt__tok_is(const fmt_text_t *t, const char *word) {
  size_t n = strlen(word);
  return !t->quoted && t->tok_len == n && memcmp(t->tok, word, n) == 0;
}

/* Copies the token into buf (NUL-terminated); false when it is too long. */
static bool tok_copy(const fmt_text_t *t, char *buf, size_t size) {
  if (t->tok_len == 0 || t->tok_len >= size) return false;
  memcpy(buf, t->tok, t->tok_len);
  buf[t->tok_len] = '\0';
  return true;
}

bool fmt__tok_float(const fmt_text_t *t, double *out) {
  char buf[64];
  if (t->quoted || !tok_copy(t, buf, sizeof buf)) return false;
  /* Only decimal notation: no "nan", "inf" or hexadecimal. */
  for (const char *c = buf; *c; c++)
    if (!((*c >= '0' && *c <= '9') || *c == '.' || *c == '-' || *c == '+' ||
          *c == 'e' || *c == 'E'))
      return false;
  char *end;
  errno = 0;
  double v = strtod(buf, &end);
  if (end == buf || *end != '\0' || !isfinite(v) || errno == ERANGE)
    return false;
  *out = v;
  return true;
}

bool fmt__tok_long(const fmt_text_t *t, long long *out) {
  char buf[32];
  if (t->quoted || !tok_copy(t, buf, sizeof buf)) return false;
  char *end;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (end == buf || *end != '\0' || errno == ERANGE) return false;
  *out = v;
  return true;
}

int fmt__text_fail(fmt_error_t *err, const fmt_text_t *t, fmt_error_code code,
                   const char *what) {
  char at[32];
  snprintf(at, sizeof at, "line %zu", t->tok_line);
  if (t->tok_len == 0 && t->tok >= t->end)
    return fmt_fail(err, code, at, "line %zu: %s (found end of input)",
                    t->tok_line, what);
  char tok[40];
  size_t n = t->tok_len < sizeof tok - 1 ? t->tok_len : sizeof tok - 1;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t->tok[i];
    tok[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  tok[n] = '\0';
  return fmt_fail(err, code, at, "line %zu: %s (found \"%s\"%s)", t->tok_line,
                  what, tok, t->tok_len > n ? "..." : "");
}

bool fmt__utf8_valid(const char *s, size_t len) {
  json_t *j = json_stringn(s, len); /* NULL on invalid UTF-8. */
  json_decref(j);
  return j != NULL;
}

size_t fmt__utf8_cut(const char *s, size_t max) {
  size_t n = strlen(s);
  if (n <= max) return n;
  n = max;
  /* s[n] is the first byte left out: while it continues a sequence, the
   * sequence's first bytes go too. */
  while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
  return n;
}

/* ---- computed normals ---------------------------------------------------- */

int fmt__vertex_normals(const float *pos, size_t nv, const uint32_t *idx,
                        size_t corners, float **out) {
  *out = NULL;
  double *sum = calloc(nv ? 3 * nv : 1, sizeof *sum);
  float *n = malloc((nv ? 3 * nv : 1) * sizeof *n);
  if (sum == NULL || n == NULL) {
    free(sum);
    free(n);
    return -1;
  }
  for (size_t t = 0; t + 3 <= corners; t += 3) {
    size_t v[3];
    for (int k = 0; k < 3; k++) v[k] = idx ? idx[t + (size_t)k] : t + (size_t)k;
    if (v[0] >= nv || v[1] >= nv || v[2] >= nv) continue;
    const float *a = pos + 3 * v[0], *b = pos + 3 * v[1], *c = pos + 3 * v[2];
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
      e1[k] = (double)b[k] - a[k];
      e2[k] = (double)c[k] - a[k];
    }
    double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    for (int k = 0; k < 3; k++)
      for (int d = 0; d < 3; d++) sum[3 * v[k] + (size_t)d] += f[d];
  }
  for (size_t i = 0; i < nv; i++) {
    const double *s = sum + 3 * i;
    double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    double inv = len > 0.0 && isfinite(len) ? 1.0 / len : 0.0;
    for (int d = 0; d < 3; d++) n[3 * i + (size_t)d] = (float)(s[d] * inv);
  }
  free(sum);
  *out = n;
  return 0;
}

/* ---- image types --------------------------------------------------------- */

bool fmt__image_type_known(const char *mime) {
  static const char *const known[] = {"image/png", "image/jpeg", "image/webp",
                                      "image/ktx2"};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(mime, known[i]) == 0) return true;
  return false;
}
