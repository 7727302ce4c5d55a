/* formats: the words of the API, one table each: wraps, spaces, layouts,
 * formats, vertex encodings, skinning methods, normals, blend modes, and
 * the views and layouts of pictures. HTTP
 * parameters, POST bodies, WebSocket messages, answer headers and `animd eval`
 * all read and print these names through here, so a word is spelled once.
 *
 * Each table is indexed by its enum (anim_wrap, fmt_space, fmt_layout,
 * fmt_format, fmt_encoding, anim_skin_method, anim_skin_normals,
 * fmt_blend_mode, fmt_view, fmt_arrange): a
 * parsed name is the enum value. */
#ifndef ANIMD_FORMATS_VOCAB_H
#define ANIMD_FORMATS_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

#include "animd/animd.h"
#include "formats/answer.h"

typedef enum fmt_vocab {
  FMT_VOCAB_WRAP = 0, /* clamp loop pingpong (anim_wrap) */
  FMT_VOCAB_SPACE,    /* local model skin (fmt_space) */
  FMT_VOCAB_LAYOUT,   /* trs10 mat4 positions positions+normals, and
                         positions/q16 positions+normals/q16 */
  FMT_VOCAB_FORMAT,   /* json bin svg (fmt_format) */
  FMT_VOCAB_ENCODING, /* f32 q16 delta (fmt_encoding) */
  FMT_VOCAB_METHOD,   /* lbs dqs (anim_skin_method) */
  FMT_VOCAB_NORMALS,  /* 0 1 invt (anim_skin_normals; HTTP normals=) */
  FMT_VOCAB_MODE,     /* normal additive (fmt_blend_mode) */
  FMT_VOCAB_VIEW,     /* front side top (fmt_view; format=svg) */
  FMT_VOCAB_ARRANGE,  /* grid overlay (fmt_arrange; format=svg's layout=) */
  FMT_VOCAB_COUNT_
} fmt_vocab;

/* Binary layouts, numbered as in WebSocket frame headers (offset 4). */
typedef enum fmt_layout {
  FMT_LAYOUT_TRS10 = 0,
  FMT_LAYOUT_MAT4,
  FMT_LAYOUT_POSITIONS,
  FMT_LAYOUT_POSITIONS_NORMALS,
  FMT_LAYOUT_POSITIONS_Q16,
  FMT_LAYOUT_POSITIONS_NORMALS_Q16,
  FMT_LAYOUT_POSITIONS_DELTA,
  FMT_LAYOUT_POSITIONS_NORMALS_DELTA
} fmt_layout;

/* svg: a picture of the poses (server/verdict/svg.h), GET and POST
 * /v1/pose only. */
typedef enum fmt_format {
  FMT_FORMAT_JSON = 0,
  FMT_FORMAT_BIN,
  FMT_FORMAT_SVG
} fmt_format;

/* How skinned vertices travel in binary answers: float32, q16
 * (formats/q16.h), or q16 deltas against the frames a stream sent before
 * (formats/q16_delta.h; WebSocket streams only). */
typedef enum fmt_encoding {
  FMT_ENCODING_F32 = 0,
  FMT_ENCODING_Q16,
  FMT_ENCODING_DELTA
} fmt_encoding;

typedef enum fmt_blend_mode {
  FMT_BLEND_NORMAL = 0,
  FMT_BLEND_ADDITIVE
} fmt_blend_mode;

/* How a picture projects model space (front: x right, y up; side: z
 * right, y up; top: x right, -z up), and how it shows several poses (one
 * cell each, or drawn over each other). */
typedef enum fmt_view {
  FMT_VIEW_FRONT = 0,
  FMT_VIEW_SIDE,
  FMT_VIEW_TOP
} fmt_view;
typedef enum fmt_arrange {
  FMT_ARRANGE_GRID = 0,
  FMT_ARRANGE_OVERLAY
} fmt_arrange;

/* The value named s (NUL-terminated) in table v, or -1 (s NULL or not a
 * word of the table). */
int fmt_vocab_parse(fmt_vocab v, const char *s);
/* The name of value in table v, or NULL when out of range. */
const char *fmt_vocab_name(fmt_vocab v, int value);
/* Words in table v. */
int fmt_vocab_count(fmt_vocab v);
/* The words of v for a message, "a, b or c", into out (always
 * NUL-terminated; cut to cap). */
void fmt_vocab_list(fmt_vocab v, char *out, size_t cap);

/* The layout of a pose in space, or of skinned vertices. */
fmt_layout fmt_layout_of_pose(fmt_space space);
fmt_layout fmt_layout_of_skin(bool normals);
/* The layout of skinned vertices in encoding. */
fmt_layout fmt_layout_of_skin_encoded(bool normals, fmt_encoding encoding);

#endif
