/* server: the WebSocket control protocol: client messages parsed into
 * commands.
 *
 * Every client text message is one JSON object with an "op" (play, pause,
 * resume, seek, stop, set, pose, stats). Parsing checks types and ranges
 * only; names of assets and joints are resolved by the stream code, which
 * knows the store. A bad message gives an error with a stable code, a
 * message and "at" (the field at fault), plus the message's "id" when it
 * had a usable one, so the client can tell which stream it concerned. */
#ifndef ANIMD_SERVER_WS_PROTO_H
#define ANIMD_SERVER_WS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "formats/vocab.h"
#include "server/errors.h"
#include "server/request/fields.h"

typedef enum srv_ws_op {
  SRV_WS_OP_PLAY = 0,
  SRV_WS_OP_PAUSE,
  SRV_WS_OP_RESUME,
  SRV_WS_OP_SEEK,
  SRV_WS_OP_STOP,
  SRV_WS_OP_SET,
  SRV_WS_OP_POSE,
  SRV_WS_OP_STATS
} srv_ws_op;

/* Pose spaces and formats: the values of the API's vocabulary
 * (formats/vocab.h). */
enum {
  SRV_WS_SPACE_LOCAL = FMT_SPACE_LOCAL,
  SRV_WS_SPACE_MODEL = FMT_SPACE_MODEL,
  SRV_WS_SPACE_SKIN = FMT_SPACE_SKIN
};

typedef enum srv_ws_format {
  SRV_WS_FORMAT_JSON = FMT_FORMAT_JSON,
  SRV_WS_FORMAT_BIN = FMT_FORMAT_BIN
} srv_ws_format;

/* Which fields a set (or play) message carried. */
enum {
  SRV_WS_HAS_FPS = 1u << 0,
  SRV_WS_HAS_SPEED = 1u << 1,
  SRV_WS_HAS_SPACE = 1u << 2,
  SRV_WS_HAS_FORMAT = 1u << 3,
  SRV_WS_HAS_WRAP = 1u << 4,
  SRV_WS_HAS_ENCODING = 1u << 5,
  SRV_WS_HAS_KEY_EVERY = 1u << 6,
  SRV_WS_HAS_KEY = 1u << 7 /* set: "key": true, a key frame next. */
};

#define SRV_WS_ID_MAX 64      /* Bytes of an id's JSON form. */
#define SRV_WS_MAX_MESHES 256 /* Meshes of one stream, at most. */
#define SRV_WS_FPS_MAX 240.0  /* Frames per second, at most. */
#define SRV_WS_SPEED_MAX 1000.0
#define SRV_WS_KEY_EVERY 30 /* Delta frames: a key frame every 30. */
#define SRV_WS_KEY_EVERY_MAX 3600.0

typedef struct srv_ws_cmd_s {
  srv_ws_op op;
  /* The stream id as JSON text ("\"walk-1\"" or "7"), "" when absent. */
  char id[SRV_WS_ID_MAX + 1];
  /* Asset names or ids; NULL when absent. They point into root. */
  const char *skeleton;
  const char *clip;
  const char *mesh; /* One mesh; NULL with meshes or mesh_all. */
  /* Several meshes in each frame: "mesh" as an array of names (borrowed
   * from root), or "mesh_all": true for every mesh of skeleton. */
  json_t *meshes;
  bool mesh_all;
  double fps;   /* play: 60 by default; (0, SRV_WS_FPS_MAX]. */
  double speed; /* play: 1 by default; finite, |speed| <= SPEED_MAX. */
  double t0;    /* play: start clip time (0). */
  double t;     /* seek, pose: clip time. */
  int wrap;     /* anim_wrap; streams loop by default, pose clamps. */
  int space;    /* SRV_WS_SPACE_*; model by default. */
  srv_ws_format format;
  fmt_encoding encoding; /* mesh, format bin: f32 (default), q16, delta. */
  uint32_t key_every;    /* delta: frames from one key frame to the next. */
  bool normals;          /* mesh: send normals too. */
  int method;            /* anim_skin_method (lbs). */
  unsigned has;          /* SRV_WS_HAS_* of the fields present. */
  /* "joints": the names to send (an array of strings), or NULL for all.
   * Borrowed from root. */
  json_t *joints;
  /* The table's fields (request/fields.h) the message gave. */
  srv_fields_t fields;
  /* private */
  json_t *root;
} srv_ws_cmd_t;

typedef struct srv_ws_error_s {
  char code[32];
  char message[160];
  char at[64];
  char id[SRV_WS_ID_MAX + 1]; /* JSON text of the id, "" when unknown. */
  char hint[96];              /* "did you mean 'speed'?", "" for none. */
} srv_ws_error_t;

/* Parses one text message into cmd. Returns 0 (free cmd with
 * srv_ws_cmd_free), or -1 with err filled (cmd holds nothing). */
int srv_ws_cmd_parse(const char *text, size_t len, srv_ws_cmd_t *cmd,
                     srv_ws_error_t *err);
void srv_ws_cmd_free(srv_ws_cmd_t *cmd);

const char *srv_ws_op_name(srv_ws_op op);

/* Fills err printf-style (code: its wire string, server/errors.h);
 * returns -1. */
int srv_ws_error_set(srv_ws_error_t *err, const char *id, srv_error_code code,
                     const char *at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
