/* formats: canonical native JSON encodings of built assets and their
 * content ids (SHA-256 through libcrypto's EVP interface). */
#include "formats/native_json.h"
#include "formats/clip_events.h"

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

static bool quat_is_identity(anim_quat_t q) {
  return q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f;
}

static void key(fmt_buf_t *b, const char *name) {
  fmt_buf_putc(b, '"');
  fmt_buf_puts(b, name);
  fmt_buf_puts(b, "\":");
}

static void float_array_key(fmt_buf_t *b, const char *name, const float *v,
                            size_t n) {
  fmt_buf_putc(b, ',');
  key(b, name);
  fmt_buf_float_array(b, v, n);
}

/* The fields of the skeleton object after "name" (and the optional id). */
static void skeleton_body(fmt_buf_t *b, const anim_skeleton_t *s) {
  fmt_buf_puts(b, ",\"joints\":[");
  for (uint32_t c = 0; c < s->joint_count; c++) {
    uint32_t j = s->from_caller[c];
    int32_t parent =
        s->parents[j] < 0 ? -1 : (int32_t)s->to_caller[s->parents[j]];
    const anim_transform_t *r = &s->rest[j];
    if (c) fmt_buf_putc(b, ',');
    fmt_buf_puts(b, "{\"name\":");
    fmt_buf_json_string(b, s->names[j]);
    fmt_buf_puts(b, ",\"parent\":");
    fmt_buf_int(b, parent);
    float_array_key(b, "translation", &r->translation.x, 3);
    float_array_key(b, "rotation", &r->rotation.x, 4);
    float_array_key(b, "scale", &r->scale.x, 3);
    if (s->orient != NULL && !quat_is_identity(s->orient[j]))
      float_array_key(b, "orient", &s->orient[j].x, 4);
    fmt_buf_putc(b, '}');
  }
  fmt_buf_puts(b, "],\"inverseBindMatrices\":[");
  for (uint32_t c = 0; c < s->joint_count; c++) {
    if (c) fmt_buf_putc(b, ',');
    fmt_buf_float_list(b, s->inverse_bind[s->from_caller[c]].m, 16);
  }
  fmt_buf_puts(b, "]}");
}

static bool skeleton_ok(const anim_skeleton_t *s) {
  return s != NULL && s->from_caller != NULL && s->to_caller != NULL &&
         s->names != NULL && s->rest != NULL && s->parents != NULL &&
         s->inverse_bind != NULL;
}

int fmt_encode_skeleton(fmt_buf_t *b, const anim_skeleton_t *skeleton) {
  if (b == NULL || !skeleton_ok(skeleton)) return -1;
  fmt_buf_puts(b, "{\"skeleton\":{\"name\":");
  fmt_buf_json_string(b, skeleton->name ? skeleton->name : "");
  skeleton_body(b, skeleton);
  fmt_buf_putc(b, '}');
  return b->failed ? -1 : 0;
}

int fmt_describe_skeleton(fmt_buf_t *b, const char *id,
                          const anim_skeleton_t *skeleton) {
  if (b == NULL || id == NULL || !skeleton_ok(skeleton)) return -1;
  fmt_buf_puts(b, "{\"id\":");
  fmt_buf_json_string(b, id);
  fmt_buf_puts(b, ",\"name\":");
  fmt_buf_json_string(b, skeleton->name ? skeleton->name : "");
  skeleton_body(b, skeleton);
  return b->failed ? -1 : 0;
}

static int clip_object(fmt_buf_t *b, const char *id, const anim_clip_t *clip,
                       const anim_skeleton_t *s, const char *skeleton_id) {
  if (b == NULL || clip == NULL || !skeleton_ok(s) || skeleton_id == NULL)
    return -1;
  fmt_buf_putc(b, '{');
  if (id != NULL) {
    fmt_buf_puts(b, "\"id\":");
    fmt_buf_json_string(b, id);
    fmt_buf_putc(b, ',');
  }
  fmt_buf_puts(b, "\"name\":");
  fmt_buf_json_string(b, clip->name ? clip->name : "");
  fmt_buf_puts(b, ",\"skeleton\":");
  fmt_buf_json_string(b, skeleton_id);
  fmt_buf_puts(b, ",\"duration\":");
  fmt_buf_float(b, clip->duration);
  fmt_buf_puts(b, ",\"tracks\":[");
  for (uint32_t i = 0; i < clip->track_count; i++) {
    const anim_track_t *t = &clip->tracks[i];
    if (t->joint >= s->joint_count) return -1;
    size_t per_key = t->components;
    if (t->interpolation == ANIM_INTERP_CUBICSPLINE) per_key *= 3;
    if (i) fmt_buf_putc(b, ',');
    fmt_buf_puts(b, "{\"joint\":");
    fmt_buf_json_string(b, s->names[t->joint]);
    fmt_buf_puts(b, ",\"path\":\"");
    fmt_buf_puts(b, fmt_path_name((anim_path)t->path));
    fmt_buf_puts(b, "\",\"interpolation\":\"");
    fmt_buf_puts(b, fmt_interp_name((anim_interp)t->interpolation));
    fmt_buf_putc(b, '"');
    float_array_key(b, "times", t->times, t->key_count);
    float_array_key(b, "values", t->values, t->key_count * per_key);
    if (t->interpolation == ANIM_INTERP_BEZIER && t->bezier != NULL)
      float_array_key(b, "bezier", t->bezier, (size_t)t->key_count * 4);
    fmt_buf_putc(b, '}');
  }
  fmt_buf_putc(b, ']');
  if (clip->event_count > 0) { /* Clips without events keep their ids. */
    fmt_buf_puts(b, ",\"events\":");
    fmt_events_json(b, clip->events, NULL, clip->event_count);
  }
  if (clip->weight_track_count > 0) fmt_buf_puts(b, ",\"weights\":[");
  for (uint32_t i = 0; i < clip->weight_track_count; i++) {
    const anim_weight_track_t *w = &clip->weight_tracks[i];
    size_t per = (size_t)w->target_count *
                 (w->interpolation == ANIM_INTERP_CUBICSPLINE ? 3 : 1);
    fmt_buf_puts(b, i ? ",{\"mesh\":" : "{\"mesh\":");
    fmt_buf_json_string(b, w->mesh);
    fmt_buf_puts(b, ",\"interpolation\":\"");
    fmt_buf_puts(b, fmt_interp_name((anim_interp)w->interpolation));
    fmt_buf_putc(b, '"');
    float_array_key(b, "times", w->times, w->key_count);
    float_array_key(b, "values", w->values, w->key_count * per);
    fmt_buf_putc(b, '}');
  }
  if (clip->weight_track_count > 0) fmt_buf_putc(b, ']');
  fmt_buf_putc(b, '}');
  return b->failed ? -1 : 0;
}

int fmt_encode_clip(fmt_buf_t *b, const anim_clip_t *clip,
                    const anim_skeleton_t *skeleton, const char *skeleton_id) {
  if (b == NULL) return -1;
  fmt_buf_puts(b, "{\"clips\":[");
  if (clip_object(b, NULL, clip, skeleton, skeleton_id) != 0) return -1;
  fmt_buf_puts(b, "]}");
  return b->failed ? -1 : 0;
}

int fmt_describe_clip(fmt_buf_t *b, const char *id, const anim_clip_t *clip,
                      const anim_skeleton_t *skeleton,
                      const char *skeleton_id) {
  if (id == NULL) return -1;
  return clip_object(b, id, clip, skeleton, skeleton_id);
}

/* Appends the base64 of n bytes. */
static void base64(fmt_buf_t *b, const unsigned char *p, size_t n) {
  unsigned char out[4 * 768 / 3 + 1];
  for (size_t i = 0; i < n; i += 768) {
    size_t m = n - i < 768 ? n - i : 768;
    int got = EVP_EncodeBlock(out, p + i, (int)m);
    fmt_buf_append(b, out, (size_t)got);
  }
}

/* ,"material":{...} when the mesh has one. The canonical text holds an
 * embedded image's bytes (base64 "data"); a describe answer (id given)
 * gives their size and the route serving them instead. */
static void material_key(fmt_buf_t *b, const char *id,
                         const anim_mesh_material_t *m) {
  if (!m->name && !m->has_texture && !m->image_uri && !m->image) return;
  fmt_buf_puts(b, ",\"material\":{");
  const char *sep = "";
  if (m->name) {
    fmt_buf_puts(b, "\"name\":");
    fmt_buf_json_string(b, m->name);
    sep = ",";
  }
  if (m->has_texture) {
    fmt_buf_printf(b, "%s\"texture\":", sep);
    fmt_buf_uint(b, m->texture);
    sep = ",";
  }
  if (m->image_uri) {
    fmt_buf_printf(b, "%s\"image\":{\"uri\":", sep);
    fmt_buf_json_string(b, m->image_uri);
    fmt_buf_putc(b, '}');
  } else if (m->image) {
    fmt_buf_printf(b, "%s\"image\":{\"mimeType\":", sep);
    fmt_buf_json_string(b, m->image_type ? m->image_type : "");
    if (id != NULL) {
      fmt_buf_puts(b, ",\"bytes\":");
      fmt_buf_uint(b, m->image_size);
      fmt_buf_puts(b, ",\"href\":\"/v1/meshes/");
      fmt_buf_puts(b, id);
      fmt_buf_puts(b, "/image\"");
    } else {
      fmt_buf_puts(b, ",\"data\":\"");
      base64(b, m->image, m->image_size);
      fmt_buf_putc(b, '"');
    }
    fmt_buf_putc(b, '}');
  }
  fmt_buf_putc(b, '}');
}

static int mesh_object(fmt_buf_t *b, const char *id, const anim_mesh_t *mesh,
                       const anim_skeleton_t *s, const char *skeleton_id) {
  if (b == NULL || mesh == NULL || !skeleton_ok(s) || skeleton_id == NULL)
    return -1;
  size_t n = mesh->vertex_count;
  size_t k = mesh->influences;
  fmt_buf_putc(b, '{');
  if (id != NULL) {
    fmt_buf_puts(b, "\"id\":");
    fmt_buf_json_string(b, id);
    fmt_buf_putc(b, ',');
  }
  fmt_buf_puts(b, "\"name\":");
  fmt_buf_json_string(b, mesh->name ? mesh->name : "");
  fmt_buf_puts(b, ",\"skeleton\":");
  fmt_buf_json_string(b, skeleton_id);
  if (id != NULL) {
    fmt_buf_puts(b, ",\"vertices\":");
    fmt_buf_uint(b, n);
  }
  fmt_buf_puts(b, ",\"influences\":");
  fmt_buf_uint(b, k);
  float_array_key(b, "positions", mesh->positions, n * 3);
  if (mesh->normals != NULL)
    float_array_key(b, "normals", mesh->normals, n * 3);
  if (mesh->texcoords != NULL)
    float_array_key(b, "texcoords", mesh->texcoords, n * 2);
  fmt_buf_puts(b, ",\"joints\":[");
  for (size_t i = 0; i < n * k; i++) {
    uint16_t j = mesh->joints[i];
    if (j >= s->joint_count) return -1;
    if (i) fmt_buf_putc(b, ',');
    fmt_buf_uint(b, s->to_caller[j]);
  }
  fmt_buf_putc(b, ']');
  float_array_key(b, "weights", mesh->weights, n * k);
  if (mesh->indices != NULL) {
    fmt_buf_puts(b, ",\"indices\":[");
    for (size_t i = 0; i < mesh->index_count; i++) {
      if (i) fmt_buf_putc(b, ',');
      fmt_buf_uint(b, mesh->indices[i]);
    }
    fmt_buf_putc(b, ']');
  }
  material_key(b, id, &mesh->material);
  if (mesh->target_count > 0) {
    fmt_buf_puts(b, ",\"targets\":[");
    for (uint32_t i = 0; i < mesh->target_count; i++) {
      fmt_buf_puts(b, i ? ",{\"positions\":" : "{\"positions\":");
      fmt_buf_float_array(b, mesh->target_positions + i * n * 3, n * 3);
      if (mesh->target_normals != NULL)
        float_array_key(b, "normals", mesh->target_normals + i * n * 3, n * 3);
      fmt_buf_putc(b, '}');
    }
    fmt_buf_putc(b, ']');
    float_array_key(b, "target_weights", mesh->default_weights,
                    mesh->target_count);
  }
  fmt_buf_putc(b, '}');
  return b->failed ? -1 : 0;
}

int fmt_encode_mesh(fmt_buf_t *b, const anim_mesh_t *mesh,
                    const anim_skeleton_t *skeleton, const char *skeleton_id) {
  if (b == NULL) return -1;
  fmt_buf_puts(b, "{\"meshes\":[");
  if (mesh_object(b, NULL, mesh, skeleton, skeleton_id) != 0) return -1;
  fmt_buf_puts(b, "]}");
  return b->failed ? -1 : 0;
}

int fmt_describe_mesh(fmt_buf_t *b, const char *id, const anim_mesh_t *mesh,
                      const anim_skeleton_t *skeleton,
                      const char *skeleton_id) {
  if (id == NULL) return -1;
  return mesh_object(b, id, mesh, skeleton, skeleton_id);
}
