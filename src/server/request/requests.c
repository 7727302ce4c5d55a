/* server: the request parsers (requests.h).
 *
 * Key design choice: a parser never answers and never looks anything up;
 * it fills its struct or one srv_error_t and returns -1 at the first
 * fault, so every error path can be tested without a server. */
#include "server/request/requests.h"

#include "server/request/motion_fields.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/vocab.h"
#include "server/request/target.h"

/* ---- the parameters of each endpoint ----------------------------------------
 */

/* One table per endpoint. A parameter a new feature adds goes into its
 * endpoint's table here (and into the test list of every parameter). */
static const char *const pose_get_params[] = {
    "skeleton", "clip", "t",      "space", "wrap",   "format", "from",
    "to",       "fps",  "joints", "view",  "layout", NULL};
static const char *const skin_params[] = {
    "mesh",   "skeleton", "clip", "t",   "wrap",     "method", "normals",
    "format", "from",     "to",   "fps", "encoding", NULL};
static const char *const upload_params[] = {"skeleton", "name",    "clip",
                                            "prefix",   "replace", NULL};
static const char *const mesh_get_params[] = {"format", NULL};
static const char *const skeleton_delete_params[] = {"cascade", NULL};
static const char *const stream_params[] = {"token", NULL};
/* The check parameters (verdict/check.c reads them, one table there). */
static const char *const clip_check_params[] = {"fps",
                                                "feet",
                                                "up",
                                                "floor",
                                                "contact_height",
                                                "skate_speed",
                                                "max_skate_ratio",
                                                "penetration",
                                                "pop",
                                                "stretch",
                                                "loop",
                                                "seam",
                                                "shell",
                                                NULL};
static const char *const clip_plot_params[] = {"joints", "channel", "from",
                                               "to",     "fps",     NULL};
static const char *const test_params[] = {"format", NULL};
static const char *const list_params[] = {"limit", "after", NULL};
static const char *const no_params[] = {NULL};

static const char *const *const endpoint_params[SRV_EP_COUNT_] = {
    [SRV_EP_POSE_GET] = pose_get_params,
    [SRV_EP_POSE_POST] = no_params,
    [SRV_EP_SKIN] = skin_params,
    [SRV_EP_UPLOAD] = upload_params,
    [SRV_EP_LIST] = list_params,
    [SRV_EP_ASSET_GET] = no_params,
    [SRV_EP_MESH_GET] = mesh_get_params,
    [SRV_EP_MESH_IMAGE] = no_params,
    [SRV_EP_ASSET_DELETE] = no_params,
    [SRV_EP_SKELETON_DELETE] = skeleton_delete_params,
    [SRV_EP_SKELETON_CHILDREN] = list_params,
    [SRV_EP_SOLVE] = no_params,
    [SRV_EP_STREAM] = stream_params,
    [SRV_EP_COMPARE] = no_params,
    [SRV_EP_CLIP_CHECK] = clip_check_params,
    [SRV_EP_CLIP_PLOT] = clip_plot_params,
    [SRV_EP_TEST] = test_params,
    [SRV_EP_RETARGET] = no_params,
};

const char *const *srv_endpoint_params(srv_endpoint ep) {
  return (unsigned)ep < SRV_EP_COUNT_ ? endpoint_params[ep] : no_params;
}

/* ---- parameter names by number ---------------------------------------------
 *
 * The parsers read a parameter by its number: each query's names are
 * hashed once into a table of the values (query_index), so no parameter
 * is found by comparing it with the names one by one. The numbers are
 * fixed here; the hash table and each endpoint's set of numbers are
 * built once from the names and the tables above. */
#define QUERY_NAMES(X)                                                         \
  X(SKELETON, "skeleton")                                                      \
  X(CLIP, "clip")                                                              \
  X(T, "t")                                                                    \
  X(SPACE, "space")                                                            \
  X(WRAP, "wrap")                                                              \
  X(FORMAT, "format")                                                          \
  X(FROM, "from")                                                              \
  X(TO, "to")                                                                  \
  X(FPS, "fps")                                                                \
  X(JOINTS, "joints")                                                          \
  X(VIEW, "view")                                                              \
  X(LAYOUT, "layout")                                                          \
  X(MESH, "mesh")                                                              \
  X(METHOD, "method")                                                          \
  X(NORMALS, "normals")                                                        \
  X(ENCODING, "encoding")                                                      \
  X(CASCADE, "cascade")                                                        \
  X(CHANNEL, "channel")

typedef enum query_name_id {
#define QUERY_NAME_ENUM(id, text) Q_##id,
  QUERY_NAMES(QUERY_NAME_ENUM)
#undef QUERY_NAME_ENUM
      Q_COUNT_
} query_name_id;

/* Every name of any table gets a number: those above first, then the
 * others (the parsers here never read them, the check knows them). */
#define QUERY_MAX_NAMES 64
#define QUERY_HASH_SLOTS 128 /* A power of two, twice QUERY_MAX_NAMES. */

static struct {
  const char *name[QUERY_MAX_NAMES];
  uint8_t len[QUERY_MAX_NAMES];
  uint8_t slot[QUERY_HASH_SLOTS]; /* Number + 1; 0: empty. */
  unsigned count;
  uint64_t takes[SRV_EP_COUNT_]; /* Bit i: the endpoint takes name i. */
  uint64_t field[SRV_EP_COUNT_]; /* Bit i: name i is a field it takes. */
} query_names;

static pthread_once_t names_once = PTHREAD_ONCE_INIT;

/* The hash of the n bytes of s. */
static uint32_t name_hash(const char *s, size_t n) {
  uint32_t h = (uint32_t)n * 0x9e3779b1u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x01000193u;
  return h ^ (h >> 15);
}

/* The number of the name s (n bytes), or -1. */
static int name_number(const char *s, size_t n) {
  for (uint32_t i = name_hash(s, n);; i++) {
    unsigned k = query_names.slot[i & (QUERY_HASH_SLOTS - 1)];
    if (k == 0) return -1;
    if (query_names.len[k - 1] == n &&
        memcmp(query_names.name[k - 1], s, n) == 0)
      return (int)k - 1;
  }
}

static void name_add(const char *s) {
  size_t n = strlen(s);
  if (name_number(s, n) >= 0 || query_names.count == QUERY_MAX_NAMES) return;
  unsigned k = query_names.count++;
  query_names.name[k] = s;
  query_names.len[k] = (uint8_t)n;
  uint32_t i = name_hash(s, n);
  while (query_names.slot[i & (QUERY_HASH_SLOTS - 1)] != 0) i++;
  query_names.slot[i & (QUERY_HASH_SLOTS - 1)] = (uint8_t)(k + 1);
}

/* The endpoint's names that are not its own a query may still take: the
 * table fields (fields.h). */
static unsigned endpoint_takes(srv_endpoint ep) {
  return ep == SRV_EP_POSE_GET ? SRV_TAKES_POSE_QUERY
         : ep == SRV_EP_SKIN   ? SRV_TAKES_SKIN_QUERY
                               : 0;
}

static void names_build(void) {
#define QUERY_NAME_ADD(id, text) name_add(text);
  QUERY_NAMES(QUERY_NAME_ADD)
#undef QUERY_NAME_ADD
  for (int ep = 0; ep < SRV_EP_COUNT_; ep++)
    for (const char *const *p = endpoint_params[ep]; *p != NULL; p++) {
      name_add(*p);
      int k = name_number(*p, strlen(*p));
      if (k >= 0) query_names.takes[ep] |= (uint64_t)1 << k;
    }
  for (int ep = 0; ep < SRV_EP_COUNT_; ep++)
    for (unsigned k = 0; k < query_names.count; k++)
      if (srv_field_find(query_names.name[k], endpoint_takes(ep)) != NULL)
        query_names.field[ep] |= (uint64_t)1 << k;
}

/* True when name is in the NULL-terminated list. */
static bool listed(const char *const *list, const char *name) {
  for (; *list != NULL; list++)
    if (strcmp(*list, name) == 0) return true;
  return false;
}

/* A query's values by name number (the last of a name wins; NULL:
 * absent), read by the parsers below. */
typedef struct query_ix_s {
  const srv_query_t *q;
  const char *value[Q_COUNT_];
  bool fields; /* A parameter names a table field (fields.h). */
} query_ix_t;

/* Indexes q into ix; with ep < SRV_EP_COUNT_ also checks that every
 * parameter is one ep takes: else -1 with unknown_parameter at the first
 * one that is not. */
static int query_index(const srv_query_t *q, unsigned ep, query_ix_t *ix,
                       srv_error_t *err) {
  pthread_once(&names_once, names_build);
  memset(ix, 0, sizeof *ix);
  ix->q = q;
  uint64_t known = ep < SRV_EP_COUNT_ ? query_names.takes[ep] : ~(uint64_t)0;
  for (unsigned i = 0; i < q->count; i++) {
    const char *name = q->params[i].name;
    int k = name_number(name, strlen(name));
    if (k >= 0 && (known >> k & 1)) {
      if (k < Q_COUNT_) ix->value[k] = q->params[i].value;
      if (ep < SRV_EP_COUNT_ && (query_names.field[ep] >> k & 1))
        ix->fields = true;
      continue;
    }
    if (ep >= SRV_EP_COUNT_) continue;
    unsigned takes = endpoint_takes((srv_endpoint)ep);
    if (srv_field_find(name, takes) != NULL) {
      ix->fields = true;
      continue;
    }
    const char *const *list = endpoint_params[ep];
    srv_error_set(err, SRV_ERR_UNKNOWN_PARAMETER, name,
                  list[0] == NULL ? "'%.60s': this endpoint takes no query "
                                    "parameters"
                                  : "'%.60s' is not a parameter of this "
                                    "endpoint",
                  name);
    return srv_error_did_you_mean(err, srv_field_nearest(name, list, takes));
  }
  return 0;
}

/* Indexes without a check (ANY). */
#define QUERY_ANY SRV_EP_COUNT_

int srv_query_check(const srv_query_t *q, srv_endpoint ep, srv_error_t *err) {
  query_ix_t ix;
  return query_index(q, (unsigned)ep < SRV_EP_COUNT_ ? ep : SRV_EP_POSE_POST,
                     &ix, err);
}

/* ---- query parameters ---------------------------------------------------- */

const char *srv_query_value(const srv_query_t *q, const char *name) {
  const char *v = NULL;
  for (unsigned i = 0; i < q->count; i++)
    if (strcmp(q->params[i].name, name) == 0) v = q->params[i].value;
  return v;
}

static const char *query_get(const query_ix_t *x, query_name_id id) {
  return x->value[id];
}

static const char *name_of(query_name_id id) { return query_names.name[id]; }

/* A name parameter: NULL when absent or empty. */
static const char *query_name(const query_ix_t *x, query_name_id id) {
  const char *v = query_get(x, id);
  return v != NULL && v[0] != '\0' ? v : NULL;
}

static int missing(srv_error_t *err, const char *name) {
  return srv_error_set(err, SRV_ERR_MISSING_PARAMETER, name,
                       "the query parameter '%s' is required", name);
}

/* Powers of ten a double holds exactly. */
static const double exact_pow10[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The plain decimal v ("-12.5", "0.04": a sign, digits, at most one point,
 * digits on some side of it) of at most 15 significant digits, read as
 * strtod reads it: the digits are an exact integer and the power of ten
 * an exact double, so one division rounds correctly. false for any other
 * text (strtod reads it). */
static bool plain_decimal(const char *v, double *out) {
  const char *s = v;
  bool neg = *s == '-';
  if (*s == '-' || *s == '+') s++;
  uint64_t m = 0;
  int digits = 0, scale = 0;
  bool point = false, any = false;
  for (;; s++) {
    if (*s >= '0' && *s <= '9') {
      any = true;
      if (m == 0 && *s == '0') {
        if (point) scale++;
        continue;
      }
      if (++digits > 15) return false;
      m = m * 10 + (uint64_t)(*s - '0');
      if (point) scale++;
    } else if (*s == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (*s != '\0' || !any || scale > 22) return false;
  double d = (double)m / exact_pow10[scale];
  *out = neg ? -d : d;
  return true;
}

/* A finite number within float range; absent: def, or an error when
 * required. */
static int query_float(const query_ix_t *x, query_name_id id, bool required,
                       double def, double *out, srv_error_t *err) {
  const char *name = name_of(id);
  const char *v = query_get(x, id);
  if (v == NULL) {
    *out = def;
    return required ? missing(err, name) : 0;
  }
  if (plain_decimal(v, out)) return 0;
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (*v == '\0' || *end != '\0' || errno == ERANGE || !isfinite(d) ||
      fabs(d) > 3.0e38)
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, name,
                         "'%s' must be a finite number", name);
  *out = d;
  return 0;
}

/* A word of vocab; absent: def. */
static int query_word(const query_ix_t *x, query_name_id id, fmt_vocab vocab,
                      int def, int *out, srv_error_t *err) {
  const char *v = query_get(x, id);
  *out = def;
  if (v == NULL) return 0;
  *out = fmt_vocab_parse(vocab, v);
  if (*out >= 0) return 0;
  const char *name = name_of(id);
  char list[128];
  fmt_vocab_list(vocab, list, sizeof list);
  return srv_error_set(err, SRV_ERR_BAD_PARAMETER, name, "'%s' must be %s",
                       name, list);
}

/* Binary unless asked otherwise when Accept names octet-stream. */
static bool accepts_binary(const char *accept) {
  return accept != NULL && strstr(accept, "application/octet-stream");
}

static int svg_refused(srv_error_t *err, const char *at) {
  return srv_error_set(err, SRV_ERR_BAD_PARAMETER, at,
                       "format=svg draws poses: GET or POST /v1/pose");
}

/* format=; picture NULL: svg is refused (answers that are not poses). */
static int query_format(const query_ix_t *x, bool *binary,
                        srv_picture_query_t *picture, srv_error_t *err) {
  int f, view, layout;
  if (query_word(x, Q_FORMAT, FMT_VOCAB_FORMAT,
                 accepts_binary(x->q->accept) ? FMT_FORMAT_BIN
                                              : FMT_FORMAT_JSON,
                 &f, err) != 0)
    return -1;
  *binary = f == FMT_FORMAT_BIN;
  if (picture == NULL)
    return f == FMT_FORMAT_SVG ? svg_refused(err, "format") : 0;
  if (query_word(x, Q_VIEW, FMT_VOCAB_VIEW, FMT_VIEW_FRONT, &view, err) != 0 ||
      query_word(x, Q_LAYOUT, FMT_VOCAB_ARRANGE, FMT_ARRANGE_GRID, &layout,
                 err) != 0)
    return -1;
  picture->svg = f == FMT_FORMAT_SVG;
  picture->view = (fmt_view)view;
  picture->layout = (fmt_arrange)layout;
  query_name_id word = query_get(x, Q_VIEW) ? Q_VIEW : Q_LAYOUT;
  if (!picture->svg && query_get(x, word) != NULL)
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, name_of(word),
                         "'%s' shapes a picture: it needs format=svg",
                         name_of(word));
  return 0;
}

/* A format=svg range of more frames than max_frames_svg is refused. */
static int picture_frames(const srv_query_t *q, const srv_picture_query_t *p,
                          const srv_range_query_t *range, srv_error_t *err) {
  unsigned limit = q->max_frames_svg ? q->max_frames_svg : SRV_MAX_FRAMES_SVG;
  if (!p->svg || !range->is_range || range->frames <= limit) return 0;
  return srv_error_set(err, SRV_ERR_TOO_MANY_FRAMES, "fps",
                       "the range has %u frames; format=svg draws at most "
                       "max_frames_svg = %u",
                       (unsigned)range->frames, limit);
}

int srv_mesh_query_parse(const srv_query_t *q, bool *binary, srv_error_t *err) {
  query_ix_t x;
  query_index(q, QUERY_ANY, &x, err);
  return query_format(&x, binary, NULL, err);
}

static int query_range(const query_ix_t *x, srv_range_query_t *out,
                       srv_error_t *err) {
  static const query_name_id ids[3] = {Q_FROM, Q_TO, Q_FPS};
  memset(out, 0, sizeof *out);
  int given = 0;
  for (int i = 0; i < 3; i++)
    if (query_get(x, ids[i]) != NULL) given++;
  if (given == 0) return 0;
  for (int i = 0; i < 3; i++)
    if (query_get(x, ids[i]) == NULL)
      return srv_error_set(err, SRV_ERR_MISSING_PARAMETER, name_of(ids[i]),
                           "a range needs from, to and fps");
  if (query_float(x, Q_FROM, true, 0, &out->from, err) != 0 ||
      query_float(x, Q_TO, true, 0, &out->to, err) != 0 ||
      query_float(x, Q_FPS, true, 0, &out->fps, err) != 0)
    return -1;
  if (!(out->fps > 0))
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "fps",
                         "fps must be greater than 0");
  if (out->to < out->from)
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "to",
                         "to must not be less than from");
  double frames = floor((out->to - out->from) * out->fps + 1e-9) + 1;
  if (frames > (double)x->q->max_frames)
    return srv_error_set(err, SRV_ERR_TOO_MANY_FRAMES, "fps",
                         "the range has %.0f frames; max_frames is %u", frames,
                         x->q->max_frames);
  out->frames = (uint32_t)frames;
  out->is_range = true;
  return 0;
}

/* ---- GET /v1/pose, GET /v1/skin --------------------------------------------
 */

double srv_range_query_time(const srv_range_query_t *q, uint32_t i) {
  return q->from + (double)i / q->fps;
}

fmt_frame_events_t srv_range_events(const srv_range_query_t *q, uint32_t i,
                                    const anim_clip_t *clip, anim_wrap wrap,
                                    uint32_t index[ANIM_EVENT_MAX]) {
  fmt_frame_events_t e = {0};
  if (clip == NULL || clip->event_count == 0) return e;
  anim_event_span_t span = {
      .from = i > 0 ? srv_range_query_time(q, i - 1) : 0,
      .to = srv_range_query_time(q, i),
      .wrap = wrap,
      .start = i == 0,
  };
  e.events = clip->events;
  e.index = index;
  e.count = anim_events_crossed(clip, &span, index, ANIM_EVENT_MAX);
  return e;
}

static int pose_query(const srv_query_t *q, srv_pose_query_t *out,
                      srv_error_t *err);

int srv_pose_query_parse(const srv_query_t *q, srv_pose_query_t *out,
                         srv_error_t *err) {
  memset(out, 0, sizeof *out);
  if (pose_query(q, out, err) == 0) return 0;
  srv_fields_free(&out->fields);
  return -1;
}

static int pose_query(const srv_query_t *q, srv_pose_query_t *out,
                      srv_error_t *err) {
  int space, wrap;
  double t = 0;
  query_ix_t x;
  if (query_index(q, SRV_EP_POSE_GET, &x, err) != 0 ||
      query_word(&x, Q_SPACE, FMT_VOCAB_SPACE, FMT_SPACE_MODEL, &space, err) !=
          0 ||
      query_word(&x, Q_WRAP, FMT_VOCAB_WRAP, ANIM_WRAP_CLAMP, &wrap, err) !=
          0 ||
      query_format(&x, &out->binary, &out->picture, err) != 0 ||
      query_range(&x, &out->range, err) != 0 ||
      picture_frames(q, &out->picture, &out->range, err) != 0 ||
      (!out->range.is_range && query_float(&x, Q_T, true, 0, &t, err) != 0) ||
      (x.fields &&
       srv_fields_from_query(q->params, q->count, SRV_TAKES_POSE_QUERY,
                             &out->fields, err) != 0))
    return -1;
  out->space = (fmt_space)space;
  out->wrap = (anim_wrap)wrap;
  out->t = t;
  out->skeleton = query_name(&x, Q_SKELETON);
  out->clip = query_name(&x, Q_CLIP);
  if (out->skeleton == NULL && out->clip == NULL) return missing(err, "clip");
  out->joints = query_get(&x, Q_JOINTS);
  if (out->joints != NULL && out->joints[0] == '\0')
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "joints",
                         "'joints' lists joint names, comma-separated");
  return 0;
}

/* ---- GET /v1/clips/{id}/plot
 * --------------------------------------------------
 */

static const char *const plot_channels[SRV_PLOT_CHANNEL_COUNT_] = {
    "rotation", "translation", "scale", "position", "angle"};

const char *srv_plot_channel_name(srv_plot_channel c) {
  return (unsigned)c < SRV_PLOT_CHANNEL_COUNT_ ? plot_channels[c] : "";
}

int srv_plot_query_parse(const srv_query_t *q, srv_plot_query_t *out,
                         srv_error_t *err) {
  memset(out, 0, sizeof *out);
  out->channel = SRV_PLOT_ROTATION;
  query_ix_t x;
  if (query_index(q, SRV_EP_CLIP_PLOT, &x, err) != 0 ||
      query_float(&x, Q_FROM, false, 0, &out->from, err) != 0 ||
      query_float(&x, Q_TO, false, 0, &out->to, err) != 0 ||
      query_float(&x, Q_FPS, false, 30, &out->fps, err) != 0)
    return -1;
  out->has_to = query_get(&x, Q_TO) != NULL;
  if (!(out->fps > 0))
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "fps",
                         "fps must be greater than 0");
  if (out->has_to && out->to < out->from)
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "to",
                         "to must not be less than from");
  const char *channel = query_get(&x, Q_CHANNEL);
  if (channel != NULL) {
    int c = 0;
    while (c < SRV_PLOT_CHANNEL_COUNT_ && strcmp(plot_channels[c], channel))
      c++;
    if (c == SRV_PLOT_CHANNEL_COUNT_)
      return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "channel",
                           "'channel' must be rotation, translation, scale, "
                           "position or angle");
    out->channel = (srv_plot_channel)c;
  }
  out->joints = query_get(&x, Q_JOINTS);
  if (out->joints != NULL && out->joints[0] == '\0')
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "joints",
                         "'joints' lists joint names, comma-separated");
  return 0;
}

static int skin_query(const srv_query_t *q, srv_skin_query_t *out,
                      srv_error_t *err);

int srv_skin_query_parse(const srv_query_t *q, srv_skin_query_t *out,
                         srv_error_t *err) {
  memset(out, 0, sizeof *out);
  if (skin_query(q, out, err) == 0) return 0;
  srv_fields_free(&out->fields);
  return -1;
}

static int skin_query(const srv_query_t *q, srv_skin_query_t *out,
                      srv_error_t *err) {
  int wrap, method, normals, encoding;
  query_ix_t x;
  if (query_index(q, SRV_EP_SKIN, &x, err) != 0 ||
      (x.fields &&
       srv_fields_from_query(q->params, q->count, SRV_TAKES_SKIN_QUERY,
                             &out->fields, err) != 0) ||
      query_word(&x, Q_WRAP, FMT_VOCAB_WRAP, ANIM_WRAP_CLAMP, &wrap, err) ||
      query_word(&x, Q_METHOD, FMT_VOCAB_METHOD, ANIM_SKIN_LBS, &method, err) ||
      query_word(&x, Q_NORMALS, FMT_VOCAB_NORMALS, ANIM_NORMALS_NONE, &normals,
                 err) ||
      query_format(&x, &out->binary, NULL, err) ||
      query_word(&x, Q_ENCODING, FMT_VOCAB_ENCODING, FMT_ENCODING_F32,
                 &encoding, err) ||
      query_range(&x, &out->range, err))
    return -1;
  if (encoding == FMT_ENCODING_DELTA)
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "encoding",
                         "encoding=delta is a stream encoding: WebSocket "
                         "play and set");
  if (encoding == FMT_ENCODING_Q16 && !out->binary)
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "encoding",
                         "encoding=q16 is a binary encoding: it needs "
                         "format=bin");
  out->encoding = (fmt_encoding)encoding;
  out->wrap = (anim_wrap)wrap;
  out->method = (anim_skin_method)method;
  out->normals = (anim_skin_normals)normals;
  out->mesh = query_name(&x, Q_MESH);
  out->skeleton = query_name(&x, Q_SKELETON);
  if (out->mesh == NULL && out->skeleton == NULL) return missing(err, "mesh");
  out->clip = query_name(&x, Q_CLIP);
  double t = 0;
  if (!out->range.is_range &&
      query_float(&x, Q_T, out->clip != NULL, 0, &t, err) != 0)
    return -1;
  out->t = t;
  return 0;
}

/* ---- DELETE ----------------------------------------------------------------
 */

int srv_delete_query_parse(const srv_query_t *q, bool skeleton,
                           srv_delete_query_t *out, srv_error_t *err) {
  out->cascade = false;
  query_ix_t x;
  if (query_index(q, skeleton ? SRV_EP_SKELETON_DELETE : SRV_EP_ASSET_DELETE,
                  &x, err) != 0)
    return -1;
  const char *v = query_get(&x, Q_CASCADE);
  if (v == NULL) return 0;
  if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0)
    out->cascade = true;
  else if (strcmp(v, "0") != 0 && strcmp(v, "false") != 0)
    return srv_error_set(err, SRV_ERR_BAD_PARAMETER, "cascade",
                         "'cascade' must be 1, true, 0 or false");
  return 0;
}

/* ---- JSON bodies -----------------------------------------------------------
 */

/* Parses a body (duplicate keys refused): 0 with *root owned by the
 * caller, or -1 with bad_json at "line L, column C". */
static int json_body(const char *body, size_t len, json_t **root,
                     srv_error_t *err) {
  json_error_t jerr;
  *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
  if (*root != NULL) return 0;
  char at[64];
  snprintf(at, sizeof at, "line %d, column %d", jerr.line, jerr.column);
  return srv_error_set(err, SRV_ERR_BAD_JSON, at, "%s", jerr.text);
}

int srv_json_body_parse(const char *body, size_t len, json_t **root,
                        srv_error_t *err) {
  return json_body(body, len, root, err);
}

/* A finite JSON number in [lo, hi]. */
static bool json_number_in(const json_t *v, double lo, double hi, double *out) {
  if (!json_is_number(v)) return false;
  double d = json_number_value(v);
  if (!isfinite(d) || d < lo || d > hi) return false;
  *out = d;
  return true;
}

/* The string field key of o: wrong_type (or missing_field when absent). */
static int json_required_string(const json_t *o, const char *key,
                                const char *at, const char **out,
                                const char *what, srv_error_t *err) {
  json_t *v = json_object_get(o, key);
  if (!json_is_string(v))
    return srv_error_set(err, v ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD,
                         at, "\"%s\" must be %s", key, what);
  *out = json_string_value(v);
  return 0;
}

/* An optional word of vocab in o[key] at `at`; absent: *out unchanged. */
static int json_word(const json_t *o, const char *key, const char *at,
                     fmt_vocab vocab, int *out, srv_error_t *err) {
  json_t *v = json_object_get(o, key);
  if (v == NULL) return 0;
  int w = json_is_string(v) ? fmt_vocab_parse(vocab, json_string_value(v)) : -1;
  if (w < 0) {
    char list[128];
    fmt_vocab_list(vocab, list, sizeof list);
    return srv_error_set(err, SRV_ERR_BAD_VALUE, at, "\"%s\" must be %s", key,
                         list);
  }
  *out = w;
  return 0;
}

/* 0 when every key of object o is in known; else -1 with unknown_field
 * at "<prefix><key>" (prefix "" at the top level, "layers[2]." within);
 * the table fields (fields.h) of takes are known too. */
static int json_known_fields(const json_t *o, const char *const *known,
                             unsigned takes, const char *prefix,
                             srv_error_t *err) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    (void)v;
    if (listed(known, key) || srv_field_find(key, takes) != NULL) continue;
    char at[128];
    snprintf(at, sizeof at, "%s%.60s", prefix, key);
    srv_error_set(err, SRV_ERR_UNKNOWN_FIELD, at, "unknown field \"%.60s\"",
                  key);
    return srv_error_did_you_mean(err, srv_field_nearest(key, known, takes));
  }
  return 0;
}

int srv_json_known_fields(const json_t *o, const char *const *known,
                          unsigned takes, const char *at_prefix,
                          srv_error_t *err) {
  if (json_known_fields(o, known, takes, "", err) == 0) return 0;
  return srv_error_under(err, at_prefix);
}

/* ---- POST /v1/pose
 * ------------------------------------------------------------ */

static int blend_layer(const json_t *l, size_t i, bool need_t,
                       srv_blend_layer_body_t *bl, srv_error_t *err) {
  char at[96];
  snprintf(at, sizeof at, "layers[%zu]", i);
  if (!json_is_object(l))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at, "a layer is an object");
  static const char *const fields[] = {"clip", "t",    "weight", "mode",
                                       "wrap", "mask", NULL};
  snprintf(at, sizeof at, "layers[%zu].", i);
  if (json_known_fields(l, fields, 0, at, err) != 0) return -1;
  snprintf(at, sizeof at, "layers[%zu].clip", i);
  if (json_required_string(l, "clip", at, &bl->clip, "a clip id or name",
                           err) != 0)
    return -1;
  double d;
  json_t *jt = json_object_get(l, "t");
  snprintf(at, sizeof at, "layers[%zu].t", i);
  if (!need_t && jt != NULL)
    return srv_error_set(err, SRV_ERR_UNKNOWN_FIELD, at,
                         "a layer here takes its time from the time grid");
  if (need_t && jt == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD, at, "\"t\" is required");
  if (need_t && !json_number_in(jt, -3e38, 3e38, &d))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                         "\"t\" must be a finite number");
  bl->t = need_t ? d : 0;
  bl->weight = 1.0f;
  json_t *jw = json_object_get(l, "weight");
  if (jw != NULL) {
    snprintf(at, sizeof at, "layers[%zu].weight", i);
    if (!json_number_in(jw, 0, 1e6, &d))
      return srv_error_set(err, SRV_ERR_BAD_VALUE, at,
                           "\"weight\" must be a number >= 0");
    bl->weight = (float)d;
  }
  int mode = FMT_BLEND_NORMAL, wrap = ANIM_WRAP_CLAMP;
  snprintf(at, sizeof at, "layers[%zu].mode", i);
  if (json_word(l, "mode", at, FMT_VOCAB_MODE, &mode, err) != 0) return -1;
  snprintf(at, sizeof at, "layers[%zu].wrap", i);
  if (json_word(l, "wrap", at, FMT_VOCAB_WRAP, &wrap, err) != 0) return -1;
  bl->additive = mode == FMT_BLEND_ADDITIVE;
  bl->wrap = (anim_wrap)wrap;
  bl->wrap_given = json_object_get(l, "wrap") != NULL;
  json_t *jm = json_object_get(l, "mask");
  if (jm != NULL) {
    snprintf(at, sizeof at, "layers[%zu].mask", i);
    if (!json_is_array(jm))
      return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                           "\"mask\" must be an array of joint names");
    /* A mask entry that is not a string names no joint. */
    for (size_t k = 0; k < json_array_size(jm); k++)
      if (!json_is_string(json_array_get(jm, k))) {
        snprintf(at, sizeof at, "layers[%zu].mask[%zu]", i, k);
        return srv_error_set(err, SRV_ERR_UNKNOWN_JOINT, at,
                             "not a joint name of the skeleton");
      }
    bl->mask = jm;
  }
  return 0;
}

/* A body's "view" and "layout" into out, out->svg from format; -1 with
 * bad_value at one of them that is not a word of its table, or given
 * without "format": "svg". */
static int json_picture(const json_t *root, int format,
                        srv_picture_query_t *out, srv_error_t *err) {
  int view = FMT_VIEW_FRONT, layout = FMT_ARRANGE_GRID;
  if (json_word(root, "view", "view", FMT_VOCAB_VIEW, &view, err) != 0 ||
      json_word(root, "layout", "layout", FMT_VOCAB_ARRANGE, &layout, err) != 0)
    return -1;
  *out = (srv_picture_query_t){.svg = format == FMT_FORMAT_SVG,
                               .view = (fmt_view)view,
                               .layout = (fmt_arrange)layout};
  const char *word = json_object_get(root, "view") ? "view" : "layout";
  if (!out->svg && json_object_get(root, word) != NULL)
    return srv_error_set(err, SRV_ERR_BAD_VALUE, word,
                         "\"%s\" shapes a picture: it needs \"format\": "
                         "\"svg\"",
                         word);
  return 0;
}

/* The body's object root (borrowed by out), format defaulting from
 * accept. 0, or -1 with err at the spot within root. */
/* A blend space's clips as the body's layers, in order, each at the body's
 * "t" and "wrap" with weight 1: they are looked up as any layers, and the
 * blend_space row (motion_fields.c) weighs and times them when the pose is
 * evaluated. Its own parser has checked the value already. */
static int blend_space_layers(const json_t *root, bool need_t,
                              srv_blend_body_t *out, srv_error_t *err) {
  const char *names[SRV_BLEND_MAX_LAYERS];
  int n = srv_blend_space_clips(json_object_get(root, "blend_space"), names,
                                SRV_BLEND_MAX_LAYERS);
  if (n <= 0)
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, "blend_space.clips",
                         "an array of 1 to %d clips", SRV_BLEND_MAX_LAYERS);
  json_t *jt = json_object_get(root, "t");
  double t = 0;
  if (!need_t && jt != NULL)
    return srv_error_set(err, SRV_ERR_UNKNOWN_FIELD, "t",
                         "the blend space takes its time from the time grid");
  if (need_t && jt == NULL)
    return srv_error_set(err, SRV_ERR_MISSING_FIELD, "t",
                         "\"t\" (the blend space's time) is required");
  if (need_t && !json_number_in(jt, -3e38, 3e38, &t))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, "t",
                         "\"t\" must be a finite number");
  int wrap = ANIM_WRAP_CLAMP;
  if (json_word(root, "wrap", "wrap", FMT_VOCAB_WRAP, &wrap, err) != 0)
    return -1;
  out->layer_count = (size_t)n;
  for (int i = 0; i < n; i++)
    out->layers[i] = (srv_blend_layer_body_t){
        .clip = names[i],
        .t = t,
        .weight = 1.0f,
        .wrap = (anim_wrap)wrap,
        .wrap_given = json_object_get(root, "wrap") != NULL,
    };
  return 0;
}

static int blend_body_object(const json_t *root, const char *accept,
                             bool need_t, srv_blend_body_t *out,
                             srv_error_t *err) {
  int space = FMT_SPACE_MODEL;
  int format = accepts_binary(accept) ? FMT_FORMAT_BIN : FMT_FORMAT_JSON;
  if (!json_is_object(root))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, NULL,
                         "the body must be an object");
  static const char *const fields[] = {"skeleton", "space",  "format", "layers",
                                       "view",     "layout", NULL};
  /* A blend space comes in place of the layers, with its time and wrap. */
  static const char *const space_fields[] = {
      "skeleton", "space", "format", "view", "layout", "t", "wrap", NULL};
  bool space_given = json_object_get(root, "blend_space") != NULL;
  if (json_known_fields(root, space_given ? space_fields : fields,
                        SRV_TAKES_POSE_BODY, "", err) != 0 ||
      srv_fields_from_json(root, SRV_TAKES_POSE_BODY, &out->fields, err) != 0)
    return -1;
  if (json_required_string(root, "skeleton", "skeleton", &out->skeleton,
                           "a skeleton id or name", err) != 0 ||
      json_word(root, "space", "space", FMT_VOCAB_SPACE, &space, err) != 0 ||
      json_word(root, "format", "format", FMT_VOCAB_FORMAT, &format, err) ||
      json_picture(root, format, &out->picture, err))
    return -1;
  out->space = (fmt_space)space;
  out->binary = format == FMT_FORMAT_BIN;
  if (space_given) return blend_space_layers(root, need_t, out, err);
  json_t *jl = json_object_get(root, "layers");
  if (!json_is_array(jl) || json_array_size(jl) == 0 ||
      json_array_size(jl) > SRV_BLEND_MAX_LAYERS)
    return srv_error_set(
        err, jl ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD, "layers",
        "\"layers\" must be an array of 1 to %d layers", SRV_BLEND_MAX_LAYERS);
  out->layer_count = json_array_size(jl);
  for (size_t i = 0; i < out->layer_count; i++)
    if (blend_layer(json_array_get(jl, i), i, need_t, &out->layers[i], err) !=
        0)
      return -1;
  return 0;
}

int srv_blend_body_parse_json(const json_t *obj, const char *at_prefix,
                              bool need_t, srv_blend_body_t *out,
                              srv_error_t *err) {
  memset(out, 0, sizeof *out);
  if (blend_body_object(obj, NULL, need_t, out, err) == 0) return 0;
  srv_fields_free(&out->fields);
  memset(out, 0, sizeof *out);
  return srv_error_under(err, at_prefix);
}

int srv_blend_body_parse(const char *body, size_t len, const char *accept,
                         srv_blend_body_t *out, srv_error_t *err) {
  memset(out, 0, sizeof *out);
  json_t *root;
  if (json_body(body, len, &root, err) != 0) return -1;
  if (blend_body_object(root, accept, true, out, err) != 0) {
    json_decref(root);
    srv_fields_free(&out->fields);
    memset(out, 0, sizeof *out);
    return -1;
  }
  out->_root = root;
  return 0;
}

void srv_blend_body_free(srv_blend_body_t *b) {
  json_decref(b->_root);
  srv_fields_free(&b->fields);
  memset(b, 0, sizeof *b);
}

int srv_blend_mask_parse(const json_t *mask, const anim_skeleton_t *sk,
                         size_t layer, const char *at_prefix, float *weights,
                         srv_error_t *err) {
  memset(weights, 0, sk->joint_count * sizeof *weights);
  for (size_t k = 0; k < json_array_size(mask); k++) {
    json_t *jn = json_array_get(mask, k);
    int32_t j =
        json_is_string(jn) ? anim_skeleton_find(sk, json_string_value(jn)) : -1;
    if (j < 0) {
      char at[96];
      snprintf(at, sizeof at, "layers[%zu].mask[%zu]", layer, k);
      srv_error_set(err, SRV_ERR_UNKNOWN_JOINT, at,
                    "not a joint name of the skeleton");
      if (json_is_string(jn))
        srv_error_did_you_mean(err,
                               srv_joint_nearest(sk, json_string_value(jn)));
      return srv_error_under(err, at_prefix);
    }
    weights[j] = 1.0f;
  }
  return 0;
}

/* ---- POST /v1/solve
 * -------------------------------------------------------------- */

int srv_solve_body_parse(const char *body, size_t len, srv_solve_body_t *out,
                         srv_error_t *err) {
  memset(out, 0, sizeof *out);
  json_t *root;
  if (json_body(body, len, &root, err) != 0) return -1;
  out->_root = root;
  /* A body that is not an object has no skeleton. */
  json_t *o = json_is_object(root) ? root : NULL;
  static const char *const fields[] = {"skeleton", "frames", NULL};
  if ((o != NULL && json_known_fields(o, fields, 0, "", err) != 0) ||
      json_required_string(o, "skeleton", "skeleton", &out->skeleton,
                           "a skeleton id or name", err) != 0) {
    srv_solve_body_free(out);
    return -1;
  }
  return 0;
}

void srv_solve_body_free(srv_solve_body_t *b) {
  json_decref(b->_root);
  memset(b, 0, sizeof *b);
}

/* A finite JSON number within float range, as a float. */
static bool finite_value(const json_t *v, float *out) {
  double d;
  if (!json_number_in(v, -3.0e38, 3.0e38, &d)) return false;
  *out = (float)d;
  return true;
}

static int not_finite(srv_error_t *err, const char *at) {
  return srv_error_set(err, SRV_ERR_NOT_FINITE, at,
                       "coordinates must be finite numbers");
}

/* One frame of n joints into dst (3n floats). */
static int solve_frame(const json_t *fr, size_t f, size_t n, float *dst,
                       srv_error_t *err) {
  char at[96];
  snprintf(at, sizeof at, "frames[%zu]", f);
  if (!json_is_array(fr))
    return srv_error_set(err, SRV_ERR_WRONG_TYPE, at,
                         "a frame is an array of positions");
  size_t m = json_array_size(fr);
  bool nested = m > 0 && json_is_array(json_array_get(fr, 0));
  if ((nested && m != n) || (!nested && m != 3 * n))
    return srv_error_set(err, SRV_ERR_VALUE_COUNT, at,
                         "expected %zu positions (%zu numbers), got %zu", n,
                         3 * n, m);
  for (size_t i = 0; i < m; i++) {
    json_t *v = json_array_get(fr, i);
    snprintf(at, sizeof at, "frames[%zu][%zu]", f, i);
    if (!nested) {
      if (!finite_value(v, &dst[i])) return not_finite(err, at);
      continue;
    }
    if (!json_is_array(v) || json_array_size(v) != 3)
      return srv_error_set(err, SRV_ERR_VALUE_COUNT, at,
                           "a position is [x, y, z]");
    for (size_t k = 0; k < 3; k++)
      if (!finite_value(json_array_get(v, k), &dst[3 * i + k])) {
        snprintf(at, sizeof at, "frames[%zu][%zu][%zu]", f, i, k);
        return not_finite(err, at);
      }
  }
  return 0;
}

int srv_solve_positions_parse(const srv_solve_body_t *b, size_t joints,
                              float **positions, size_t *frames,
                              srv_error_t *err) {
  *positions = NULL;
  *frames = 0;
  json_t *jf = json_object_get(b->_root, "frames");
  if (!json_is_array(jf) || json_array_size(jf) == 0)
    return srv_error_set(err, jf ? SRV_ERR_WRONG_TYPE : SRV_ERR_MISSING_FIELD,
                         "frames", "\"frames\" must be a non-empty array");
  size_t count = json_array_size(jf);
  if (count * joints * 3 > SRV_SOLVE_MAX_FLOATS)
    return srv_error_set(err, SRV_ERR_TOO_LARGE, "frames",
                         "too many positions");
  size_t floats = count * joints * 3;
  float *p = malloc((floats > 0 ? floats : 1) * sizeof(float));
  if (p == NULL) return srv_error_set(err, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
  for (size_t f = 0; f < count; f++)
    if (solve_frame(json_array_get(jf, f), f, joints, p + f * joints * 3,
                    err) != 0) {
      free(p);
      return -1;
    }
  *positions = p;
  *frames = count;
  return 0;
}
