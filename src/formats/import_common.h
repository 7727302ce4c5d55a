/* formats: helpers shared by the glTF, BVH and MD5 importers.
 *
 * Growing the bundle one object at a time, the default limits the
 * importers enforce (FMT_ERR_TOO_MANY_* beyond them), building core objects
 * with their build errors turned into decoder errors, and a bounds-checked text
 * cursor for the two line-oriented formats (BVH, MD5) that reports every
 * problem as "line N" plus the offending token. */
#ifndef ANIMD_FORMATS_IMPORT_COMMON_H
#define ANIMD_FORMATS_IMPORT_COMMON_H

#include "formats/asset_bytes.h"
#include "formats/bundle.h"

/* Limits used when the options leave them at zero. */
#define FMT_IMPORT_MAX_KEYS ((size_t)16 * 1024 * 1024)
#define FMT_IMPORT_MAX_VERTICES ((size_t)4 * 1024 * 1024)

size_t fmt__max_joints(const fmt_decode_options_t *opts);
size_t fmt__max_keys(const fmt_decode_options_t *opts);
size_t fmt__max_vertices(const fmt_decode_options_t *opts);

/* Append an object to the bundle; on failure the object is freed and -1
 * returned with err filled (out of memory is reported as FMT_ERR_TOO_LARGE:
 * the input was too large to hold). */
int fmt__push_skeleton(fmt_bundle_t *b, anim_skeleton_t *s, fmt_error_t *err);
int fmt__push_clip(fmt_bundle_t *b, anim_clip_t *c, uint32_t skeleton,
                   fmt_error_t *err);
int fmt__push_mesh(fmt_bundle_t *b, anim_mesh_t *m, uint32_t skeleton,
                   fmt_error_t *err);

/* Charges bytes (formats/asset_bytes.h) of an object about to be built to
 * the bundle: 0, or -1 with FMT_ERR_INSUFFICIENT_STORAGE at `at` when the
 * bundle would hold more than opts->max_bytes. */
int fmt__charge(fmt_bundle_t *b, const fmt_decode_options_t *opts, size_t bytes,
                fmt_error_t *err, const char *at);

/* Reports a core build failure at `at` with the code of its result
 * (fmt_error_of_result; out of memory as FMT_ERR_TOO_LARGE). */
int fmt__build_fail(fmt_error_t *err, const char *at,
                    const anim_build_error_t *be, anim_result r);

/* A clip name for formats that carry none (BVH, md5anim): prefix, '-' and
 * the first 8 hex digits of the SHA-256 of the body, so two takes on one
 * rig never collide and re-uploading a file gives the same name. out must
 * hold at least strlen(prefix) + 10 bytes. */
void fmt__content_name(const char *prefix, const void *body, size_t len,
                       char *out, size_t size);

/* Area-weighted vertex normals of a triangle list, into *out (malloc'd, 3
 * per vertex): each vertex gets the sum of the unnormalized cross products
 * (b - a) x (c - a) of the triangles it is a corner of, normalized (zero
 * when the sum is zero, as for a vertex of no triangle). corners indices
 * (a multiple of 3 is used) index the vertices; idx NULL means the
 * vertices 0..corners-1 in order. Sums in double. Returns 0, or -1 when
 * out of memory. */
int fmt__vertex_normals(const float *pos, size_t nv, const uint32_t *idx,
                        size_t corners, float **out);

/* True for the image types a mesh may carry and the daemon serves back:
 * those glTF and its texture extensions define (image/png, image/jpeg,
 * image/webp, image/ktx2). */
bool fmt__image_type_known(const char *mime);

/* Out-of-memory while decoding. */
int fmt__nomem(fmt_error_t *err, const char *at);

/* True when the len bytes at s are valid UTF-8: names end up in JSON
 * answers and in the store's files, which must decode again. */
bool fmt__utf8_valid(const char *s, size_t len);
/* The length of the longest prefix of the NUL-terminated s that has at
 * most max bytes and does not end inside a UTF-8 sequence (for names cut
 * to fit a buffer). */
size_t fmt__utf8_cut(const char *s, size_t max);

/* ---- text cursor --------------------------------------------------------- */
/* A token is a run of non-blank bytes, or a double-quoted string (without
 * its quotes), or one of the single-byte tokens { } ( ). Newlines count
 * lines; CR, tab and space are blanks. Comments start with "//" and run to
 * the end of the line. */
typedef struct fmt_text_s {
  const char *p, *end;
  size_t line;     /* 1-based line of the current position. */
  bool quoted;     /* The last token was a quoted string. */
  size_t tok_line; /* Line of the last token. */
  const char *tok; /* The last token (not NUL-terminated). */
  size_t tok_len;
} fmt_text_t;

void fmt__text_init(fmt_text_t *t, const void *body, size_t len);
/* Next token; false at the end of the input. */
bool fmt__text_next(fmt_text_t *t);
/* Skips blanks (not newlines) and reports whether the line ends here. */
bool fmt__text_at_eol(fmt_text_t *t);
/* Token comparisons and conversions of the last token. */
bool fmt__tok_is(const fmt_text_t *t, const char *word);
bool fmt__tok_float(const fmt_text_t *t, double *out);   /* Finite only. */
bool fmt__tok_long(const fmt_text_t *t, long long *out); /* Decimal. */
/* "line N" and the token (truncated, printable) for messages. */
int fmt__text_fail(fmt_error_t *err, const fmt_text_t *t, fmt_error_code code,
                   const char *what);

#endif
