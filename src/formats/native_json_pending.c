/* formats: placeholder for the native JSON decoder until its own file
 * lands; it answers 415. */
#include "formats/bundle.h"

int fmt_decode_native_json(const void *body, size_t len,
                           const fmt_decode_options_t *opts,
                           fmt_bundle_t *out, fmt_error_t *err) {
  return fmt_fail(err, 415, "unsupported_media_type", "Content-Type",
                  "native JSON assets are not supported by this build");
}
