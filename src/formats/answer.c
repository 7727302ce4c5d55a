/* formats: pose, skin, range, upload/list and error answer bodies, printed
 * directly into a fmt_buf_t (no JSON trees: they run per request). */
#include "formats/answer.h"

#include <string.h>

#include "formats/clip_events.h"
#include "formats/error.h"
#include "formats/vocab.h"

int fmt_space_parse(const char *s, size_t len) {
  char word[16];
  if (s == NULL || len >= sizeof word) return -1;
  memcpy(word, s, len);
  word[len] = '\0';
  return fmt_vocab_parse(FMT_VOCAB_SPACE, word);
}

const char *fmt_space_name(fmt_space space) {
  const char *name = fmt_vocab_name(FMT_VOCAB_SPACE, (int)space);
  return name != NULL ? name : "unknown";
}

const char *fmt_layout_name(fmt_space space) {
  return fmt_vocab_name(FMT_VOCAB_LAYOUT, (int)fmt_layout_of_pose(space));
}

static int done(fmt_buf_t *b) { return b->failed ? -1 : 0; }

/* Floats gathered from strided data per fmt_buf_float_list call. */
#define GATHER_FLOATS 480u

/* Prints `"key":[` then the floats taken `width` at a time every `stride`
 * floats from v, `groups` times (the split of interleaved trs10 data), `]`. */
static void strided(fmt_buf_t *b, const char *key, const float *v,
                    size_t groups, size_t width, size_t stride) {
  fmt_buf_putc(b, '"');
  fmt_buf_puts(b, key);
  fmt_buf_puts(b, "\":[");
  if (width == stride) {
    fmt_buf_float_list(b, v, groups * width);
  } else {
    /* Gathered into runs, so the printer sees long lists. */
    float run[GATHER_FLOATS];
    size_t per_run = GATHER_FLOATS / width;
    for (size_t g = 0; g < groups; g += per_run) {
      size_t count = groups - g < per_run ? groups - g : per_run;
      for (size_t i = 0; i < count; i++)
        memcpy(run + i * width, v + (g + i) * stride, width * sizeof *run);
      if (g) fmt_buf_putc(b, ',');
      fmt_buf_float_list(b, run, count * width);
    }
  }
  fmt_buf_putc(b, ']');
}

/* The common head: {"<owner_key>":S,"clip":C,"t":T,"<count_key>":N
 * [,"frame":F] */
static void head(fmt_buf_t *b, const char *id, const char *owner_key,
                 const char *owner, const char *clip, float t,
                 const char *count_key, uint32_t count, int64_t frame) {
  fmt_buf_putc(b, '{');
  if (id != NULL) {
    fmt_buf_puts(b, "\"id\":");
    fmt_buf_puts(b, id);
    fmt_buf_putc(b, ',');
  }
  fmt_buf_puts(b, "\"");
  fmt_buf_puts(b, owner_key);
  fmt_buf_puts(b, "\":");
  fmt_buf_json_string(b, owner);
  fmt_buf_puts(b, ",\"clip\":");
  fmt_buf_json_string(b, clip);
  fmt_buf_puts(b, ",\"t\":");
  fmt_buf_float(b, t);
  fmt_buf_puts(b, ",\"");
  fmt_buf_puts(b, count_key);
  fmt_buf_puts(b, "\":");
  fmt_buf_uint(b, count);
  if (frame >= 0) {
    fmt_buf_puts(b, ",\"frame\":");
    fmt_buf_int(b, frame);
  }
}

/* ,"<key>_id":I,"<key>_name":N (null for a NULL id). */
static void id_and_name(fmt_buf_t *b, const char *key, const char *id,
                        const char *name) {
  fmt_buf_puts(b, ",\"");
  fmt_buf_puts(b, key);
  fmt_buf_puts(b, "_id\":");
  fmt_buf_json_string(b, id);
  fmt_buf_puts(b, ",\"");
  fmt_buf_puts(b, key);
  fmt_buf_puts(b, "_name\":");
  fmt_buf_json_string(b, id != NULL ? name : NULL);
}

/* The IDS of an answer (answer.h), when there are any. */
static void ids(fmt_buf_t *b, const fmt_asset_names_t *n) {
  if (n->skeleton_id == NULL) return;
  if (n->mesh_id != NULL) id_and_name(b, "mesh", n->mesh_id, n->mesh_name);
  id_and_name(b, "skeleton", n->skeleton_id, n->skeleton_name);
  id_and_name(b, "clip", n->clip_id, n->clip_name);
}

/* ,"events":[...] of a range frame that crossed some. */
static void frame_events(fmt_buf_t *b, const fmt_frame_events_t *e) {
  if (e->count == 0 || e->events == NULL || e->index == NULL) return;
  fmt_buf_puts(b, ",\"events\":");
  fmt_events_json(b, e->events, e->index, e->count);
}

int fmt_answer_pose_json(fmt_buf_t *b, const fmt_pose_answer_t *a) {
  if (b == NULL || a == NULL || (a->data == NULL && a->joint_count)) return -1;
  size_t n = a->joint_count;
  /* A rough size so that most answers need one allocation. */
  fmt_buf_reserve(b, 128 + n * (a->space == FMT_SPACE_LOCAL ? 10 : 16) * 12);
  head(b, a->id, "skeleton", a->skeleton, a->clip, a->t, "joints",
       a->joint_count, a->frame);
  ids(b, &a->ids);
  frame_events(b, &a->events);
  fmt_buf_putc(b, ',');
  if (a->space == FMT_SPACE_LOCAL) {
    strided(b, "translation", a->data, n, 3, 10);
    fmt_buf_putc(b, ',');
    strided(b, "rotation", a->data + 3, n, 4, 10);
    fmt_buf_putc(b, ',');
    strided(b, "scale", a->data + 7, n, 3, 10);
  } else {
    strided(b, "matrices", a->data, n, 16, 16);
  }
  if (a->morph_count > 0) fmt_buf_puts(b, ",\"morph_weights\":[");
  for (size_t i = 0; i < a->morph_count; i++) {
    fmt_buf_puts(b, i ? ",{\"mesh\":" : "{\"mesh\":");
    fmt_buf_json_string(b, a->morph[i].mesh);
    fmt_buf_puts(b, ",\"values\":");
    fmt_buf_float_array(b, a->morph[i].values, a->morph[i].count);
    fmt_buf_putc(b, '}');
  }
  if (a->morph_count > 0) fmt_buf_putc(b, ']');
  if (a->more != NULL) a->more(b, a->more_arg);
  fmt_buf_putc(b, '}');
  return done(b);
}

int fmt_answer_skin_json(fmt_buf_t *b, const fmt_skin_answer_t *a) {
  if (b == NULL || a == NULL || (a->positions == NULL && a->vertex_count))
    return -1;
  size_t n = a->vertex_count;
  fmt_buf_reserve(b, 128 + n * (a->normals ? 6 : 3) * 12);
  head(b, a->id, "mesh", a->mesh, a->clip, a->t, "vertices", a->vertex_count,
       a->frame);
  ids(b, &a->ids);
  frame_events(b, &a->events);
  fmt_buf_putc(b, ',');
  strided(b, "positions", a->positions, n, 3, 3);
  if (a->normals) {
    fmt_buf_putc(b, ',');
    strided(b, "normals", a->normals, n, 3, 3);
  }
  if (a->more != NULL) a->more(b, a->more_arg);
  fmt_buf_putc(b, '}');
  return done(b);
}

int fmt_answer_floats_bin(fmt_buf_t *b, const float *v, size_t count) {
  if (b == NULL || (v == NULL && count)) return -1;
  fmt_buf_f32le(b, v, count);
  return done(b);
}

int fmt_answer_frame_header(fmt_buf_t *b, uint32_t frame, uint32_t floats,
                            double t) {
  if (b == NULL) return -1;
  fmt_buf_u32le(b, frame);
  fmt_buf_u32le(b, floats);
  fmt_buf_f64le(b, t);
  return done(b);
}

/* True when s is well-formed UTF-8 (no overlong forms, no surrogates,
 * nothing above U+10FFFF). */
static bool utf8_valid(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p, n, min;
    if (c < 0x80) {
      p++;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF)
      n = 1, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
      n = 2, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
      n = 3, min = 0x10000;
    else
      return false;
    unsigned cp = c & (0x3F >> n);
    for (unsigned i = 1; i <= n; i++) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    p += n + 1;
  }
  return true;
}

/* A JSON string of text that may come from a client (a name in a
 * message, a message cut in the middle of a character): when it is not
 * UTF-8, its non-ASCII bytes become '?' rather than breaking the body. */
static void json_text(fmt_buf_t *b, const char *s) {
  if (s == NULL || utf8_valid(s)) {
    fmt_buf_json_string(b, s);
    return;
  }
  fmt_buf_t tmp = FMT_BUF_INIT;
  for (const char *p = s; *p; p++)
    fmt_buf_putc(&tmp, (unsigned char)*p >= 0x80 ? '?' : *p);
  const char *clean = fmt_buf_cstr(&tmp);
  if (clean == NULL)
    b->failed = true;
  else
    fmt_buf_json_string(b, clean);
  fmt_buf_free(&tmp);
}

int fmt_answer_error(fmt_buf_t *b, const char *code, const char *message,
                     const char *at) {
  return fmt_answer_error_hint(b, code, message, at, NULL);
}

int fmt_answer_error_hint(fmt_buf_t *b, const char *code, const char *message,
                          const char *at, const char *hint) {
  if (b == NULL) return -1;
  fmt_buf_puts(b, "{\"error\":{\"code\":");
  fmt_buf_json_string(b, code ? code : fmt_error_name(FMT_ERR_INTERNAL));
  fmt_buf_puts(b, ",\"message\":");
  json_text(b, message ? message : "");
  fmt_buf_puts(b, ",\"at\":");
  json_text(b, at && at[0] ? at : NULL);
  if (hint != NULL && hint[0] != '\0') {
    fmt_buf_puts(b, ",\"hint\":");
    json_text(b, hint);
  }
  fmt_buf_puts(b, "}}");
  return done(b);
}

static void assets_body(fmt_buf_t *b, const fmt_asset_summary_t *items,
                        size_t count) {
  static const char *const lists[] = {"{\"skeletons\":[", "],\"clips\":[",
                                      "],\"meshes\":["};
  for (int kind = FMT_ASSET_SKELETON; kind <= FMT_ASSET_MESH; kind++) {
    fmt_buf_puts(b, lists[kind]);
    bool first = true;
    for (size_t i = 0; i < count; i++) {
      const fmt_asset_summary_t *s = &items[i];
      if ((int)s->kind != kind) continue;
      fmt_buf_puts(b, first ? "{\"id\":" : ",{\"id\":");
      first = false;
      fmt_buf_json_string(b, s->id);
      fmt_buf_puts(b, ",\"name\":");
      fmt_buf_json_string(b, s->name ? s->name : "");
      if (kind == FMT_ASSET_SKELETON) {
        fmt_buf_puts(b, ",\"joints\":");
        fmt_buf_uint(b, s->count);
      } else {
        fmt_buf_puts(b, ",\"skeleton\":");
        fmt_buf_json_string(b, s->skeleton);
        if (kind == FMT_ASSET_CLIP) {
          fmt_buf_puts(b, ",\"duration\":");
          fmt_buf_float(b, s->duration);
        } else {
          fmt_buf_puts(b, ",\"vertices\":");
          fmt_buf_uint(b, s->count);
        }
      }
      fmt_buf_putc(b, '}');
    }
  }
  fmt_buf_putc(b, ']');
}

int fmt_answer_assets(fmt_buf_t *b, const fmt_asset_summary_t *items,
                      size_t count) {
  if (b == NULL || (items == NULL && count)) return -1;
  assets_body(b, items, count);
  fmt_buf_putc(b, '}');
  return done(b);
}

void fmt_answer_moved(fmt_buf_t *b, const fmt_moved_name_t *moved,
                      size_t count) {
  static const char *const kinds[] = {"skeleton", "clip", "mesh"};
  for (size_t i = 0; i < count; i++) {
    const fmt_moved_name_t *m = &moved[i];
    fmt_buf_printf(b, "%s{\"kind\":\"%s\",\"name\":", i ? "," : "",
                   kinds[m->kind]);
    fmt_buf_json_string(b, m->name);
    fmt_buf_puts(b, ",\"old\":");
    fmt_buf_json_string(b, m->old_id);
    fmt_buf_puts(b, ",\"new\":");
    fmt_buf_json_string(b, m->new_id);
    fmt_buf_putc(b, '}');
  }
}

int fmt_answer_upload(fmt_buf_t *b, const fmt_asset_summary_t *items,
                      size_t count, const char *warnings, size_t warnings_len) {
  return fmt_answer_upload_replaced(b, items, count, NULL, 0, warnings,
                                    warnings_len);
}

static int upload_tail(fmt_buf_t *b, const char *warnings, size_t warnings_len);

int fmt_answer_upload_replaced(fmt_buf_t *b, const fmt_asset_summary_t *items,
                               size_t count, const fmt_moved_name_t *moved,
                               size_t moved_count, const char *warnings,
                               size_t warnings_len) {
  if (b == NULL || (items == NULL && count)) return -1;
  assets_body(b, items, count);
  if (moved != NULL) {
    fmt_buf_puts(b, ",\"replaced\":[");
    fmt_answer_moved(b, moved, moved_count);
    fmt_buf_putc(b, ']');
  }
  return upload_tail(b, warnings, warnings_len);
}

int fmt_answer_upload_member(fmt_buf_t *b, const fmt_asset_summary_t *items,
                             size_t count, const char *key, const char *value,
                             size_t value_len, const char *warnings,
                             size_t warnings_len) {
  if (b == NULL || (items == NULL && count) || key == NULL || value == NULL)
    return -1;
  assets_body(b, items, count);
  fmt_buf_putc(b, ',');
  fmt_buf_json_string(b, key);
  fmt_buf_putc(b, ':');
  fmt_buf_append(b, value, value_len);
  return upload_tail(b, warnings, warnings_len);
}

/* The warnings of an upload answer, then its closing brace. */
static int upload_tail(fmt_buf_t *b, const char *warnings,
                       size_t warnings_len) {
  if (warnings != NULL && warnings_len > 0) {
    fmt_buf_puts(b, ",\"warnings\":[");
    size_t off = 0;
    bool first = true;
    while (off < warnings_len) {
      const char *line = warnings + off;
      size_t n = strnlen(line, warnings_len - off);
      if (!first) fmt_buf_putc(b, ',');
      first = false;
      /* Lines are NUL-terminated by fmt_bundle_warn; a last one that is
       * not is cut at the end of the buffer. */
      if (off + n < warnings_len) {
        fmt_buf_json_string(b, line);
      } else {
        fmt_buf_t tmp = FMT_BUF_INIT;
        fmt_buf_append(&tmp, line, n);
        fmt_buf_json_string(b, fmt_buf_cstr(&tmp) ? tmp.data : "");
        fmt_buf_free(&tmp);
      }
      off += n + 1;
    }
    fmt_buf_putc(b, ']');
  }
  fmt_buf_putc(b, '}');
  return done(b);
}
