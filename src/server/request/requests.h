/* server: the API's requests as typed values: pure parsers that turn a
 * query string's parameters or a JSON body into a request struct, or into
 * a typed error (code, "at", message) without answering anything.
 *
 * Handlers then only parse, look up the assets named, schedule the work
 * and answer. The parsers check everything that can be checked without
 * the store, in the order the answers report it (the first fault wins);
 * what needs an asset (is that a joint of this skeleton, are these
 * positions as many as its joints) has its own pure step, run after the
 * lookup. Words come from formats/vocab.h, errors from server/errors.h. */
#ifndef ANIMD_SERVER_REQUESTS_H
#define ANIMD_SERVER_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "animd/animd.h"
#include "formats/answer.h"
#include "formats/vocab.h"
#include "server/errors.h"
#include "server/request/fields.h"
#include "server/kv.h"

/* A request's query: its decoded parameters (the last of a name wins),
 * its Accept header (NULL: none), the configured max_frames and
 * max_frames_svg (0: SRV_MAX_FRAMES_SVG). */
typedef struct srv_query_s {
  const srv_kv_t *params;
  unsigned count;
  const char *accept;
  unsigned max_frames;
  unsigned max_frames_svg;
} srv_query_t;

/* Frames a format=svg range draws at most, by default (max_frames_svg). */
#define SRV_MAX_FRAMES_SVG 64

/* format=svg: the answer is a picture of the poses (server/verdict/svg.h)
 * seen from view, a range's frames laid out as layout says. The words are
 * refused without format=svg. */
typedef struct srv_picture_query_s {
  bool svg;
  fmt_view view;      /* front */
  fmt_arrange layout; /* grid */
} srv_picture_query_t;

/* The endpoints of the API that take a query, each with its table of the
 * parameters it takes (requests.c): a parameter in no table of its
 * endpoint answers 400 unknown_parameter, so a typo ("spcae=local") is
 * reported rather than ignored. The operational endpoints (/healthz,
 * /metrics, /v1/info) take any query: probes add cache-busters. */
typedef enum srv_endpoint {
  SRV_EP_POSE_GET = 0,      /* GET|HEAD /v1/pose */
  SRV_EP_POSE_POST,         /* POST /v1/pose */
  SRV_EP_SKIN,              /* GET|HEAD /v1/skin */
  SRV_EP_UPLOAD,            /* POST /v1/assets */
  SRV_EP_LIST,              /* GET|HEAD /v1/assets */
  SRV_EP_ASSET_GET,         /* GET|HEAD /v1/skeletons/{id}, /v1/clips/{id} */
  SRV_EP_MESH_GET,          /* GET|HEAD /v1/meshes/{id} */
  SRV_EP_MESH_IMAGE,        /* GET|HEAD /v1/meshes/{id}/image */
  SRV_EP_ASSET_DELETE,      /* DELETE /v1/clips/{id}, /v1/meshes/{id} */
  SRV_EP_SKELETON_DELETE,   /* DELETE /v1/skeletons/{id} */
  SRV_EP_SKELETON_CHILDREN, /* GET|HEAD /v1/skeletons/{id}/clips|meshes */
  SRV_EP_SOLVE,             /* POST /v1/solve */
  SRV_EP_STREAM,            /* GET /v1/stream (the WebSocket upgrade) */
  SRV_EP_COMPARE,           /* POST /v1/compare */
  SRV_EP_CLIP_CHECK,        /* GET|HEAD /v1/clips/{id}/check */
  SRV_EP_CLIP_PLOT,         /* GET|HEAD /v1/clips/{id}/plot */
  SRV_EP_COUNT_
} srv_endpoint;

/* The parameters ep takes, NULL-terminated (an empty table for an unknown
 * ep). */
const char *const *srv_endpoint_params(srv_endpoint ep);
/* 0 when every parameter of q is one ep takes; else -1 with
 * unknown_parameter at the first one that is not. */
int srv_query_check(const srv_query_t *q, srv_endpoint ep, srv_error_t *err);

/* from/to/fps: is_range false when none is given. */
typedef struct srv_range_query_s {
  bool is_range;
  double from, to, fps;
  uint32_t frames; /* floor((to - from) * fps) + 1, <= max_frames. */
} srv_range_query_t;

/* Time of frame i of a range: from + i / fps. */
double srv_range_query_time(const srv_range_query_t *q, uint32_t i);

/* GET /v1/pose. Names point into the query; NULL when absent or empty. */
typedef struct srv_pose_query_s {
  const char *skeleton;
  const char *clip; /* Required without a skeleton. */
  double t;         /* Required unless a range. */
  anim_wrap wrap;   /* clamp */
  fmt_space space;  /* model */
  bool binary;      /* format=bin, or Accept: application/octet-stream */
  srv_picture_query_t picture; /* format=svg: a range <= max_frames_svg. */
  const char *joints; /* joints=a,b: the joints to answer, in that order
                         (request/target.h); NULL: all. With format=svg:
                         the joints drawn highlighted (all are drawn). */
  srv_range_query_t range;
  /* The table's fields (fields.h), owned: srv_fields_free. */
  srv_fields_t fields;
} srv_pose_query_t;

int srv_pose_query_parse(const srv_query_t *q, srv_pose_query_t *out,
                         srv_error_t *err);

/* GET /v1/skin. */
typedef struct srv_skin_query_s {
  /* With skeleton: the answer holds several meshes, those mesh lists
   * (comma-separated ids or names within the skeleton) or, without mesh,
   * every mesh of the skeleton. Without skeleton, mesh (required) names
   * one mesh, the name as it is (commas included). */
  const char *mesh;
  const char *skeleton;
  const char *clip; /* NULL: the rest pose. */
  double t;         /* Required with a clip, unless a range. */
  anim_wrap wrap;
  anim_skin_method method;   /* lbs */
  anim_skin_normals normals; /* 0 */
  bool binary;
  fmt_encoding encoding; /* f32; q16 only with binary. */
  srv_range_query_t range;
  srv_fields_t fields; /* The table's fields (fields.h). */
} srv_skin_query_t;

int srv_skin_query_parse(const srv_query_t *q, srv_skin_query_t *out,
                         srv_error_t *err);

/* GET /v1/clips/{id}/plot: what is plotted of each joint. */
typedef enum srv_plot_channel {
  SRV_PLOT_ROTATION = 0, /* Local rotation x y z w. */
  SRV_PLOT_TRANSLATION,  /* Local translation x y z. */
  SRV_PLOT_SCALE,        /* Local scale x y z. */
  SRV_PLOT_POSITION,     /* Model-space position x y z. */
  SRV_PLOT_ANGLE,        /* Local rotation's angle from the rest pose. */
  SRV_PLOT_CHANNEL_COUNT_
} srv_plot_channel;

/* "rotation", ... */
const char *srv_plot_channel_name(srv_plot_channel c);

typedef struct srv_plot_query_s {
  const char *joints; /* joints=a,b (points into the query); NULL: none. */
  srv_plot_channel channel; /* rotation */
  double from;              /* 0 */
  double to;                /* has_to: given; else the clip's duration. */
  bool has_to;
  double fps; /* 30 */
} srv_plot_query_t;

/* The query alone (the frame count needs the clip's duration: the plot
 * counts them, verdict/plot.h). */
int srv_plot_query_parse(const srv_query_t *q, srv_plot_query_t *out,
                         srv_error_t *err);

/* GET /v1/meshes/{id}: format=json|bin, or Accept as for GET /v1/pose. */
int srv_mesh_query_parse(const srv_query_t *q, bool *binary, srv_error_t *err);

/* DELETE /v1/{skeletons,clips,meshes}/{id}: cascade=1|true (skeletons
 * only: with its clips and meshes) or 0|false (the default). */
typedef struct srv_delete_query_s {
  bool cascade;
} srv_delete_query_t;

int srv_delete_query_parse(const srv_query_t *q, bool skeleton,
                           srv_delete_query_t *out, srv_error_t *err);

/* A JSON body (duplicate keys refused), for a body parser outside this
 * file (POST /v1/compare): 0 with *root owned by the caller, or -1 with
 * bad_json at "line L, column C". */
int srv_json_body_parse(const char *body, size_t len, json_t **root,
                        srv_error_t *err);

/* 0 when every member of the JSON object o is in known (NULL-terminated)
 * or a table field of takes (fields.h; 0: none); else -1 with
 * unknown_field at the member, under at_prefix as srv_error_under puts
 * it. For a body parser outside this file. */
int srv_json_known_fields(const json_t *o, const char *const *known,
                          unsigned takes, const char *at_prefix,
                          srv_error_t *err);

/* POST /v1/pose. Strings and masks are borrowed from the parsed body,
 * which the request owns until srv_blend_body_free. */
#define SRV_BLEND_MAX_LAYERS 64

typedef struct srv_blend_layer_body_s {
  const char *clip;
  double t;
  float weight;       /* 1 */
  anim_wrap wrap;     /* clamp */
  bool additive;      /* mode: normal */
  bool wrap_given;    /* The layer says its wrap. */
  const json_t *mask; /* An array of joint names, or NULL. */
} srv_blend_layer_body_t;

typedef struct srv_blend_body_s {
  const char *skeleton;
  fmt_space space;
  bool binary;                 /* format, else Accept as for GET. */
  srv_picture_query_t picture; /* format "svg", "view", "layout". */
  srv_blend_layer_body_t layers[SRV_BLEND_MAX_LAYERS];
  size_t layer_count;  /* 1 to SRV_BLEND_MAX_LAYERS. */
  srv_fields_t fields; /* The table's fields (fields.h). */
  /* private */
  json_t *_root;
} srv_blend_body_t;

/* Parses body (len bytes; accept as in srv_query_t). 0 (free out with
 * srv_blend_body_free), or -1 with err set and nothing to free. */
int srv_blend_body_parse(const char *body, size_t len, const char *accept,
                         srv_blend_body_t *out, srv_error_t *err);
void srv_blend_body_free(srv_blend_body_t *b);

/* The same body as the JSON object obj (borrowed: out points into it, so
 * obj must outlive out; srv_blend_body_free is harmless), for a request
 * that holds a pose body within its own (POST /v1/compare's sources):
 * format defaults to json, and without need_t a layer takes no "t" (400
 * unknown_field at it; its t is 0, the caller's clock sets it). An
 * error's at is prefixed with at_prefix and a dot ("a" and
 * "layers[0].clip" read "a.layers[0].clip"; "" or NULL: no prefix).
 * 0, or -1 with err. */
int srv_blend_body_parse_json(const json_t *obj, const char *at_prefix,
                              bool need_t, srv_blend_body_t *out,
                              srv_error_t *err);

/* Layer `layer`'s mask as per-joint weights of sk (storage order, 1 for a
 * named joint, 0 for the others) into weights (sk->joint_count floats).
 * -1 with err at "<at_prefix>.layers[i].mask[k]" (at_prefix "" or NULL:
 * "layers[i].mask[k]") for a name sk does not have. */
int srv_blend_mask_parse(const json_t *mask, const anim_skeleton_t *sk,
                         size_t layer, const char *at_prefix, float *weights,
                         srv_error_t *err);

/* POST /v1/solve: {"skeleton", "frames"}. */
typedef struct srv_solve_body_s {
  const char *skeleton;
  /* private */
  json_t *_root;
} srv_solve_body_t;

#define SRV_SOLVE_MAX_FLOATS (64u * 1024 * 1024)

int srv_solve_body_parse(const char *body, size_t len, srv_solve_body_t *out,
                         srv_error_t *err);
void srv_solve_body_free(srv_solve_body_t *b);

/* The frames for a skeleton of joints joints: each 3 * joints numbers, or
 * joints [x, y, z] arrays. 0 with *positions (malloc'd, 3 * joints per
 * frame) and *frames set, or -1 with err. */
int srv_solve_positions_parse(const srv_solve_body_t *b, size_t joints,
                              float **positions, size_t *frames,
                              srv_error_t *err);

#endif
