/* formats: canonical native JSON encodings of built assets and their
 * content ids (SHA-256 through libcrypto's EVP interface). */
#include "formats/native_json.h"

#include <openssl/evp.h>
#include <string.h>

int fmt_content_id(const void *data, size_t len, char out[FMT_ID_LEN + 1]) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (EVP_Digest(data, len, md, &md_len, EVP_sha256(), NULL) != 1 ||
      md_len != 32)
    return -1;
  static const char hex[] = "0123456789abcdef";
  for (unsigned i = 0; i < 32; i++) {
    out[2 * i] = hex[md[i] >> 4];
    out[2 * i + 1] = hex[md[i] & 15];
  }
  out[FMT_ID_LEN] = '\0';
  return 0;
}

bool fmt_is_content_id(const char *s) {
  if (s == NULL) return false;
  for (int i = 0; i < FMT_ID_LEN; i++) {
    char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return s[FMT_ID_LEN] == '\0';
}

const char *fmt_path_name(anim_path path) {
  switch (path) {
    case ANIM_PATH_TRANSLATION: return "translation";
    case ANIM_PATH_ROTATION: return "rotation";
    case ANIM_PATH_SCALE: return "scale";
  }
  return "unknown";
}

const char *fmt_interp_name(anim_interp interp) {
  switch (interp) {
    case ANIM_INTERP_LINEAR: return "LINEAR";
    case ANIM_INTERP_STEP: return "STEP";
    case ANIM_INTERP_CUBICSPLINE: return "CUBICSPLINE";
    case ANIM_INTERP_BEZIER: return "BEZIER";
    case ANIM_INTERP_SQUAD: return "SQUAD";
    case ANIM_INTERP_COUNT_: break;
  }
  return "unknown";
}

/* Not implemented yet: the encoders answer -1. */
int fmt_encode_skeleton(fmt_buf_t *b, const anim_skeleton_t *skeleton) {
  return -1;
}
int fmt_encode_clip(fmt_buf_t *b, const anim_clip_t *clip,
                    const anim_skeleton_t *skeleton, const char *skeleton_id) {
  return -1;
}
int fmt_encode_mesh(fmt_buf_t *b, const anim_mesh_t *mesh,
                    const anim_skeleton_t *skeleton, const char *skeleton_id) {
  return -1;
}
int fmt_describe_skeleton(fmt_buf_t *b, const char *id,
                          const anim_skeleton_t *skeleton) {
  return -1;
}
int fmt_describe_clip(fmt_buf_t *b, const char *id, const anim_clip_t *clip,
                      const anim_skeleton_t *skeleton,
                      const char *skeleton_id) {
  return -1;
}
int fmt_describe_mesh(fmt_buf_t *b, const char *id, const anim_mesh_t *mesh,
                      const anim_skeleton_t *skeleton,
                      const char *skeleton_id) {
  return -1;
}
