/* formats: placeholders for the glTF, BVH and MD5 decoders until their own
 * files land; each answers 415. */
#include "formats/bundle.h"

int fmt_decode_gltf(const void *body, size_t len, bool binary,
                    const fmt_decode_options_t *opts, fmt_bundle_t *out,
                    fmt_error_t *err) {
  return fmt_fail(err, 415, "unsupported_media_type", "Content-Type",
                  "glTF is not supported by this build");
}
int fmt_decode_bvh(const void *body, size_t len,
                   const fmt_decode_options_t *opts, fmt_bundle_t *out,
                   fmt_error_t *err) {
  return fmt_fail(err, 415, "unsupported_media_type", "Content-Type",
                  "BVH is not supported by this build");
}
int fmt_decode_md5mesh(const void *body, size_t len,
                       const fmt_decode_options_t *opts, fmt_bundle_t *out,
                       fmt_error_t *err) {
  return fmt_fail(err, 415, "unsupported_media_type", "Content-Type",
                  "MD5 is not supported by this build");
}
int fmt_decode_md5anim(const void *body, size_t len,
                       const fmt_decode_options_t *opts, fmt_bundle_t *out,
                       fmt_error_t *err) {
  return fmt_fail(err, 415, "unsupported_media_type", "Content-Type",
                  "MD5 is not supported by this build");
}
