/* formats: bundle ownership, decoder warnings, and the choice of
 * decoder by Content-Type. */
#include "formats/bundle.h"

#include "formats/release_memory.h"
#include "formats/sniff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void fmt_bundle_free(fmt_bundle_t *bundle) {
  if (bundle == NULL) return;
  for (size_t i = 0; i < bundle->clip_count; i++)
    anim_clip_free(bundle->clips[i].clip);
  for (size_t i = 0; i < bundle->mesh_count; i++)
    anim_mesh_free(bundle->meshes[i].mesh);
  for (size_t i = 0; i < bundle->skeleton_count; i++)
    anim_skeleton_free(bundle->skeletons[i]);
  free(bundle->clips);
  free(bundle->meshes);
  free(bundle->skeletons);
  free(bundle->warnings);
  memset(bundle, 0, sizeof *bundle);
}

int fmt_bundle_warn(fmt_bundle_t *bundle, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return -1;
  size_t len = strlen(line) + 1; /* Keep the NUL separator. */
  char *grown = realloc(bundle->warnings, bundle->warnings_len + len);
  if (grown == NULL) return -1;
  memcpy(grown + bundle->warnings_len, line, len);
  bundle->warnings = grown;
  bundle->warnings_len += len;
  return 0;
}

/* True when the media type of content_type (before any ';') is type. */
static bool media_type_is(const char *content_type, const char *type) {
  size_t n = strlen(type);
  if (strncasecmp(content_type, type, n) != 0) return false;
  char c = content_type[n];
  return c == '\0' || c == ';' || c == ' ' || c == '\t';
}

static int decode_by_type(const char *content_type, const void *body,
                          size_t len, const fmt_decode_options_t *opts,
                          fmt_bundle_t *out, fmt_error_t *err) {
  static const fmt_decode_options_t defaults;
  if (opts == NULL) opts = &defaults;
  memset(out, 0, sizeof *out);
  if (content_type == NULL) content_type = "";
  while (*content_type == ' ' || *content_type == '\t') content_type++;
  if (media_type_is(content_type, "application/json"))
    return fmt_decode_native_json(body, len, opts, out, err);
  if (media_type_is(content_type, "model/gltf-binary"))
    return fmt_decode_gltf(body, len, true, opts, out, err);
  if (media_type_is(content_type, "model/gltf+json"))
    return fmt_decode_gltf(body, len, false, opts, out, err);
  if (media_type_is(content_type, "application/x-bvh"))
    return fmt_decode_bvh(body, len, opts, out, err);
  if (media_type_is(content_type, "application/x-md5mesh"))
    return fmt_decode_md5mesh(body, len, opts, out, err);
  if (media_type_is(content_type, "application/x-md5anim"))
    return fmt_decode_md5anim(body, len, opts, out, err);
  return fmt_fail(err, FMT_ERR_UNSUPPORTED_MEDIA_TYPE, "Content-Type",
                  "Content-Type '%.80s' is not an asset type animd reads "
                  "(application/json, model/gltf-binary, model/gltf+json, "
                  "application/x-bvh, application/x-md5mesh, "
                  "application/x-md5anim)",
                  content_type);
}

/* After a failed decode: when the bytes look like another type than
 * content_type, the hint says which and which Content-Type to send. */
static void type_hint(const char *content_type, const void *body, size_t len,
                      fmt_error_t *err) {
  if (err == NULL || err->code == FMT_ERR_OUT_OF_MEMORY) return;
  if (content_type == NULL) content_type = "";
  while (*content_type == ' ' || *content_type == '\t') content_type++;
  const char *seen = fmt_sniff_type(body, len);
  if (seen == NULL || media_type_is(content_type, seen)) return;
  fmt_error_hint(err, "the body looks like %s: send it with Content-Type: %s",
                 fmt_sniff_describe(seen), seen);
}

int fmt_decode(const char *content_type, const void *body, size_t len,
               const fmt_decode_options_t *opts, fmt_bundle_t *out,
               fmt_error_t *err) {
  int rc = decode_by_type(content_type, body, len, opts, out, err);
  if (rc != 0) type_hint(content_type, body, len, err);
  /* A large body leaves at least its own size in freed parse trees and
   * scratch arrays. */
  fmt_release_memory(len);
  return rc;
}
