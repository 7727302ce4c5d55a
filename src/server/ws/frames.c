/* server/ws: WebSocket pose streaming, frame production: a stream's frame as
 * the frame cache's key, its binary header, its JSON message, several meshes
 * in one frame (stream_internal.h). */
#include <stdio.h>
#include <string.h>

#include "server/request/fields.h"
#include "server/request/frame_answer.h"
#include "server/request/morph.h"
#include "server/request/motion_fields.h"
#include "server/ws/stream_internal.h"

fmt_layout ws__stream_layout(const stream_t *s) {
  if (s->mesh != NULL)
    return fmt_layout_of_skin_encoded(s->normals, s->encoding);
  return fmt_layout_of_pose((fmt_space)s->space);
}

/* Whether encoding fits a stream of mesh in format; sends the error when
 * not. */
bool ws__encoding_fits(srv_ws_client_t *c, const char *id,
                       const store_asset_t *mesh, bool several, bool one_shot,
                       srv_ws_format format, fmt_encoding encoding) {
  if (encoding == FMT_ENCODING_F32) return true;
  const char *name = encoding == FMT_ENCODING_Q16 ? "q16" : "delta";
  char message[96];
  if (mesh == NULL)
    snprintf(message, sizeof message,
             "%s encodes skinned vertices: it needs a mesh", name);
  else if (format != SRV_WS_FORMAT_BIN)
    snprintf(message, sizeof message,
             "%s is a binary encoding: it needs format bin", name);
  else if (encoding == FMT_ENCODING_DELTA && one_shot)
    snprintf(message, sizeof message,
             "delta frames need a stream: a pose answers f32 or q16");
  else if (encoding == FMT_ENCODING_DELTA && several)
    snprintf(message, sizeof message,
             "delta frames stream one mesh: play one stream per mesh");
  else
    return true;
  ws__send_error(c, id, SRV_ERR_BAD_VALUE, "encoding", message);
  return false;
}

/* The duration the stream's clock loops over: its clip's, or its blend
 * space's (request/motion_fields.h: with sync the weighted duration at
 * its param, without the longest clip). */
double ws__stream_duration(const stream_t *s) {
  if (s->blend_count == 0) return s->clip->clip->duration;
  float d[ANIM_BLEND_SPACE_MAX];
  for (uint32_t i = 0; i < s->blend_count; i++)
    d[i] = s->blend[i]->clip->duration;
  return srv_blend_space_period(&s->fields, d);
}

/* The clip time a frame samples: wrapped in double, then as the float the
 * core samples with (a float in the clip's range is its own wrap). */
float ws__sampled_time(const stream_t *s, double t) {
  /* Root motion accumulates over loops: its frames are keyed and
   * evaluated at the stream's time, which the pipeline wraps itself. */
  if (srv_fields_clocked(&s->fields)) return (float)t;
  float d = (float)ws__stream_duration(s);
  return anim_wrap_time((float)srv_ws_wrap(t, d, s->wrap), d,
                        (anim_wrap)s->wrap);
}

/* The frame cache's key of the stream's frame at t; mesh: the stream's
 * (of several, the one this part of the frame is of). */
srv_ws_eval_key_t ws__stream_key(const stream_t *s, float t,
                                 store_asset_t *mesh) {
  srv_ws_eval_key_t key = {
      .skeleton = s->skeleton,
      .clip = s->clip,
      .mesh = mesh,
      .t = t,
      .wrap = (uint8_t)s->wrap,
      .space = (uint8_t)s->space,
      .normals = s->normals,
      .method = (uint8_t)s->method,
      .mask = s->mask,
      .mask_count = s->mask_count,
      /* A delta frame is made from the frame's q16 payload. */
      .encoding = (uint8_t)(s->encoding == FMT_ENCODING_DELTA ? FMT_ENCODING_Q16
                                                              : s->encoding),
      .clips = s->blend_count > 0 ? s->blend : NULL,
      .clip_count = s->blend_count,
      .fields = s->fields,
  };
  return key;
}

static void put_u32le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The 32-byte header of a binary frame (docs/api.md): stream index,
 * layout, frame number (low and high words), clip time (f64), the
 * payload's count (q16: of its 32-bit words) and elements. */
void ws__bin_header(uint8_t out[WS_BIN_HEADER], uint32_t index,
                    fmt_layout layout, int64_t frame, float t,
                    const srv_ws_frame_data_t *fd) {
  uint64_t f = frame < 0 ? 0 : (uint64_t)frame;
  double td = t;
  uint64_t tb;
  memcpy(&tb, &td, sizeof tb);
  put_u32le(out, index);
  put_u32le(out + 4,
            (uint32_t)layout | (fd->answer_count > 0 ? WS_BIN_ANSWER : 0));
  put_u32le(out + 8, (uint32_t)(f & 0xffffffffu));
  put_u32le(out + 12, (uint32_t)(f >> 32));
  put_u32le(out + 16, (uint32_t)(tb & 0xffffffffu));
  put_u32le(out + 20, (uint32_t)(tb >> 32));
  put_u32le(out + 24, fd->q16 != NULL ? fd->q16_words : fd->count);
  put_u32le(out + 28, fd->elements);
}

/* The message of one frame of a stream of several meshes into hub->out
 * (docs/api.md, "Several meshes"): binary, the frame header (count: the
 * 32-bit words after it; elements: the vertices of all meshes) then per
 * mesh a 16-byte block header (u32 position, u32 words, f64 t) and its
 * payload, as GET /v1/skin?skeleton= answers; JSON, {"id","frame","t",
 * "meshes":[the single-mesh answers]}. Returns 0 or a negative errno. */
static int build_meshes_frame(srv_ws_hub_t *h, const stream_t *s,
                              uint32_t index, int64_t frame, float t) {
  fmt_buf_t *b = &h->out;
  fmt_buf_reset(b);
  bool bin = s->format == SRV_WS_FORMAT_BIN;
  if (bin) {
    uint8_t head[WS_BIN_HEADER];
    srv_ws_frame_data_t none = {0};
    ws__bin_header(head, index, ws__stream_layout(s), frame, t, &none);
    fmt_buf_append(b, head, sizeof head);
  } else {
    fmt_buf_putc(b, '{');
    if (s->id[0] != '\0') {
      fmt_buf_puts(b, "\"id\":");
      fmt_buf_puts(b, s->id);
      fmt_buf_putc(b, ',');
    }
    fmt_buf_puts(b, "\"skeleton\":");
    fmt_buf_json_string(b, s->skeleton_name);
    if (frame >= 0) {
      fmt_buf_puts(b, ",\"frame\":");
      fmt_buf_uint(b, (uint64_t)frame);
    }
    fmt_buf_puts(b, ",\"t\":");
    fmt_buf_float(b, t);
    fmt_buf_puts(b, ",\"meshes\":[");
  }
  uint64_t words = 0, vertices = 0;
  for (uint32_t k = 0; k < s->mesh_count; k++) {
    srv_ws_eval_key_t key = ws__stream_key(s, t, s->meshes[k]);
    srv_ws_frame_data_t fd;
    int r = srv_ws_eval_get(h->eval, &key, &fd);
    if (r != 0) return r;
    vertices += fd.elements;
    if (bin) {
      uint32_t n = fd.q16 != NULL ? fd.q16_words : fd.count;
      fmt_buf_u32le(b, k);
      fmt_buf_u32le(b, n);
      fmt_buf_f64le(b, t);
      if (fd.q16 != NULL)
        fmt_buf_append(b, fd.q16, 4 * (size_t)n);
      else
        fmt_buf_f32le(b, fd.floats, n);
      words += 4 + (uint64_t)n;
      continue;
    }
    srv_frame_names_t names = {.owner = s->meshes[k]->id,
                               .clip = s->clip_name,
                               .ids =
                                   store_answer_names(s->meshes[k], s->clip)};
    srv_frame_shape_t shape = {
        .skin = true, .normals = s->normals, .elements = fd.elements};
    if (k > 0) fmt_buf_putc(b, ',');
    srv_frame_json(b, NULL, &names, &shape, fd.floats, t, SRV_FRAME_MEMBER);
  }
  if (bin) {
    if (words > UINT32_MAX || vertices > UINT32_MAX) return UV_E2BIG;
    if (!b->failed) {
      put_u32le((uint8_t *)b->data + 24, (uint32_t)words);
      put_u32le((uint8_t *)b->data + 28, (uint32_t)vertices);
    }
  } else {
    fmt_buf_puts(b, "]}");
  }
  return b->failed ? UV_ENOMEM : 0;
}

/* Writes the message of one frame (index WS_ONE_SHOT: a pose answer) of
 * the evaluated fd into b ("id" first in JSON). Touches only its arguments and
 * immutable assets, so it runs on a worker too. 0 or a negative errno. */
int ws__frame_message(fmt_buf_t *b, const stream_t *s, uint32_t index,
                      int64_t frame, float t, const srv_ws_frame_data_t *pfd) {
  srv_ws_frame_data_t fd = *pfd;
  fmt_buf_reset(b);
  if (s->format == SRV_WS_FORMAT_BIN) {
    uint8_t head[WS_BIN_HEADER];
    ws__bin_header(head, index, ws__stream_layout(s), frame, t, &fd);
    fmt_buf_append(b, head, sizeof head);
    if (fd.q16 != NULL)
      fmt_buf_append(b, fd.q16, 4 * (size_t)fd.q16_words);
    else
      fmt_buf_f32le(b, fd.floats, fd.count);
    if (fd.answer_count > 0) fmt_buf_f32le(b, fd.answer, fd.answer_count);
    return b->failed ? UV_ENOMEM : 0;
  }
  /* Assets named as the client named them, and by id and name. */
  srv_frame_names_t names = {
      .owner = s->mesh != NULL ? s->mesh_name : s->skeleton_name,
      .clip = s->clip_name,
      .ids =
          store_answer_names(s->mesh != NULL ? s->mesh : s->skeleton, s->clip)};
  srv_frame_shape_t shape = {.skin = s->mesh != NULL,
                             .normals = s->normals,
                             .space = (fmt_space)s->space,
                             .elements = fd.elements,
                             .fields = fd.answer_count > 0 ? &s->fields : NULL,
                             .answer = fd.answer};
  /* A pose frame lists its clip's (or layers') morph weights at t
   * (morph.h). */
  srv_ws_eval_key_t key = ws__stream_key(s, t, NULL);
  srv_eval_layer_t layers[ANIM_BLEND_SPACE_MAX];
  srv_eval_job_t mj = srv_ws_eval_job(&key, layers);
  srv_morph_list_t morph = {0};
  if (s->mesh == NULL && srv_morph_list(&mj, &morph) != 0) return UV_ENOMEM;
  shape.morph = morph.items;
  shape.morph_count = morph.count;
  srv_frame_json(b, s->id[0] != '\0' ? s->id : NULL, &names, &shape, fd.floats,
                 t, frame);
  srv_morph_list_free(&morph);
  return b->failed ? UV_ENOMEM : 0;
}

/* Builds the message of one frame into hub->out, evaluated here or found
 * in the frame cache. Returns 0 or a negative errno. */
int ws__build_frame(srv_ws_hub_t *h, const stream_t *s, uint32_t index,
                    int64_t frame, float t) {
  if (s->meshes != NULL) return build_meshes_frame(h, s, index, frame, t);
  if (s->encoding == FMT_ENCODING_DELTA && s->format == SRV_WS_FORMAT_BIN &&
      index != WS_ONE_SHOT)
    return ws__delta_frame(h, s, frame, t);
  srv_ws_eval_key_t key = ws__stream_key(s, t, s->mesh);
  srv_ws_frame_data_t fd;
  int r = srv_ws_eval_get(h->eval, &key, &fd);
  if (r != 0) return r;
  return ws__frame_message(&h->out, s, index, frame, t, &fd);
}

const double srv_ws_late_bounds[SRV_WS_LATE_BUCKETS] = {
    0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032};
