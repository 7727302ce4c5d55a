/* formats: the answer bodies of the API (DESIGN.md "Answers, exactly"):
 * JSON and binary poses, skinned vertices, range frames, upload and list
 * answers, and the error body.
 *
 * These run once per request (or per frame of a range), so they print
 * straight into a fmt_buf_t: no JSON object trees. Every function appends
 * to b and returns 0, or -1 when b has failed (out of memory) or an
 * argument is invalid; a JSON answer is one object with no trailing
 * newline (range lines: the caller appends '\n').
 *
 * Pose answers carry "joints" as the joint COUNT, as upload answers do:
 *   local:       {"skeleton":S,"clip":C,"t":T,"joints":N[,"frame":F][,IDS],
 *                 "translation":[3N],"rotation":[4N],"scale":[3N]}
 *   model, skin: {"skeleton":S,"clip":C,"t":T,"joints":N[,"frame":F][,IDS],
 *                 "matrices":[16N]}
 * Skin answers (GET /v1/skin):
 *                {"mesh":M,"clip":C,"t":T,"vertices":V[,"frame":F][,IDS],
 *                 "positions":[3V][,"normals":[3V]]}
 * IDS, when the ids are given (fmt_asset_names_t), names every asset both
 * ways, whatever "skeleton", "clip" or "mesh" hold (an id over HTTP, the
 * name as asked over WebSocket): [,"mesh_id":I,"mesh_name":N]
 * "skeleton_id":I,"skeleton_name":N,"clip_id":I|null,"clip_name":N|null.
 * Numbers are in the caller's joint order as given (the server converts
 * from storage order with anim_pose_to_caller_trs10 / anim_mat4_to_caller);
 * floats use the shortest round-tripping form. */
#ifndef ANIMD_FORMATS_ANSWER_H
#define ANIMD_FORMATS_ANSWER_H

#include "animd/clip.h"
#include "formats/buf.h"

typedef enum fmt_space {
  FMT_SPACE_LOCAL = 0, /* data: trs10 per joint (10 floats). */
  FMT_SPACE_MODEL,     /* data: 16 column-major floats per joint. */
  FMT_SPACE_SKIN       /* data: 16 column-major floats per joint. */
} fmt_space;

/* A space by its name (vocab.h), len bytes; -1 when unknown. */
int fmt_space_parse(const char *s, size_t len);
const char *fmt_space_name(fmt_space space);

/* The ids and names of the assets of an answer (IDS above); skeleton_id
 * NULL: no IDS printed. mesh_id NULL for poses; clip_id NULL for the rest
 * pose (null printed). */
typedef struct fmt_asset_names_s {
  const char *skeleton_id, *skeleton_name;
  const char *clip_id, *clip_name;
  const char *mesh_id, *mesh_name;
} fmt_asset_names_t;

/* One mesh's morph weights in an answer. */
typedef struct fmt_morph_weights_s {
  const char *mesh;
  const float *values;
  uint32_t count;
} fmt_morph_weights_t;

/* The clip events a range frame lists, as "events" after the ids (none
 * printed when count is 0): events[index[i]] for i < count (events is the
 * clip's sorted array, animd/events.h says which a frame crosses). */
typedef struct fmt_frame_events_s {
  const anim_event_t *events;
  const uint32_t *index;
  uint32_t count;
} fmt_frame_events_t;

typedef struct fmt_pose_answer_s {
  /* The JSON text of an id printed first as "id" (a WebSocket stream's),
   * or NULL for none. */
  const char *id;
  const char *skeleton; /* Skeleton id (or name as asked). */
  const char *clip;     /* Clip id (or name as asked); NULL prints null. */
  float t;              /* The clip time actually sampled. */
  int64_t frame;        /* Frame index of a range line, or -1 for none. */
  uint32_t joint_count;
  fmt_space space;
  /* 10 * joint_count floats (local, trs10) or 16 * joint_count (model,
   * skin), caller order. */
  const float *data;
  fmt_asset_names_t ids; /* Optional (zero: none printed). */
  /* Printed last as "morph_weights": [{"mesh", "values"}] when
   * morph_count > 0. */
  const fmt_morph_weights_t *morph;
  size_t morph_count;
  /* Optional: prints more members (",\"name\":value"...) before the
   * closing brace, with more_arg. */
  void (*more)(fmt_buf_t *b, const void *more_arg);
  const void *more_arg;
  fmt_frame_events_t events; /* A range frame's (zero: none printed). */
} fmt_pose_answer_t;

int fmt_answer_pose_json(fmt_buf_t *b, const fmt_pose_answer_t *a);

typedef struct fmt_skin_answer_s {
  const char *id; /* As in fmt_pose_answer_t. */
  const char *mesh;
  const char *clip;
  float t;
  int64_t frame; /* -1 for none. */
  uint32_t vertex_count;
  const float *positions; /* 3 * vertex_count. */
  const float *normals;   /* 3 * vertex_count, or NULL. */
  fmt_asset_names_t ids;  /* Optional (zero: none printed). */
  void (*more)(fmt_buf_t *b, const void *more_arg); /* As for poses. */
  const void *more_arg;
  fmt_frame_events_t events; /* As in fmt_pose_answer_t. */
} fmt_skin_answer_t;

int fmt_answer_skin_json(fmt_buf_t *b, const fmt_skin_answer_t *a);

/* Binary answers: count floats as little-endian float32 (layouts trs10,
 * mat4, positions; positions+normals is positions then normals, two
 * calls). */
int fmt_answer_floats_bin(fmt_buf_t *b, const float *v, size_t count);
/* The layout name of a pose in space (vocab.h), for X-Animd-Layout. */
const char *fmt_layout_name(fmt_space space);

/* The 16-byte header of a binary range frame: u32 frame index, u32 float
 * count, f64 clip time, little-endian. */
#define FMT_FRAME_HEADER_SIZE 16
int fmt_answer_frame_header(fmt_buf_t *b, uint32_t frame, uint32_t floats,
                            double t);

/* The error body of every answer and WebSocket error:
 * {"error":{"code":C,"message":M,"at":A}}; at NULL or "" prints null; a
 * message or at that is not UTF-8 has its non-ASCII bytes printed as '?'
 * (the body stays valid JSON and a valid WebSocket text). */
int fmt_answer_error(fmt_buf_t *b, const char *code, const char *message,
                     const char *at);
/* The same with a "hint" member after "at" when hint is neither NULL nor
 * "" ("did you mean 'wave'?"). */
int fmt_answer_error_hint(fmt_buf_t *b, const char *code, const char *message,
                          const char *at, const char *hint);

/* One line of an upload or list answer. */
typedef enum fmt_asset_kind {
  FMT_ASSET_SKELETON = 0,
  FMT_ASSET_CLIP,
  FMT_ASSET_MESH
} fmt_asset_kind;

typedef struct fmt_asset_summary_s {
  fmt_asset_kind kind;
  const char *id;
  const char *name;
  const char *skeleton; /* Clip, mesh: the skeleton's id. */
  uint32_t count;       /* Skeleton: joints; mesh: vertices. */
  float duration;       /* Clip: seconds. */
} fmt_asset_summary_t;

/* {"skeletons":[{"id","name","joints"}],"clips":[{"id","name","skeleton",
 * "duration"}],"meshes":[{"id","name","skeleton","vertices"}]}, each list
 * in the order given; all three keys always present. */
int fmt_answer_assets(fmt_buf_t *b, const fmt_asset_summary_t *items,
                      size_t count);
/* The upload answer: fmt_answer_assets plus, when the decoder left remarks
 * (bundle warnings, NUL-separated), "warnings":[strings] at the end. */
int fmt_answer_upload(fmt_buf_t *b, const fmt_asset_summary_t *items,
                      size_t count, const char *warnings, size_t warnings_len);

/* A name an upload with ?replace=1 moved from the asset old_id to new_id. */
typedef struct fmt_moved_name_s {
  fmt_asset_kind kind;
  const char *name, *old_id, *new_id;
} fmt_moved_name_t;

/* fmt_answer_upload of an upload with ?replace=1: after the three lists,
 * "replaced":[{"kind","name","old","new"}] (every name moved, in the
 * order given; the key is there, maybe empty, whenever moved is not
 * NULL), then the warnings. */
int fmt_answer_upload_replaced(fmt_buf_t *b, const fmt_asset_summary_t *items,
                               size_t count, const fmt_moved_name_t *moved,
                               size_t moved_count, const char *warnings,
                               size_t warnings_len);
/* fmt_answer_upload with one more member after the three lists:
 * ,"key":VALUE, where value (value_len bytes) is a JSON value the caller
 * printed (POST /v1/retarget's "retarget"). */
int fmt_answer_upload_member(fmt_buf_t *b, const fmt_asset_summary_t *items,
                             size_t count, const char *key, const char *value,
                             size_t value_len, const char *warnings,
                             size_t warnings_len);
/* The members of that "replaced" list, comma-separated, without the
 * brackets. */
void fmt_answer_moved(fmt_buf_t *b, const fmt_moved_name_t *moved,
                      size_t count);

#endif
