/* server: the WebSocket control protocol parser.
 *
 * Key design choice: one table-free pass over the JSON object with jansson,
 * where each op lists the fields it allows; unknown fields are refused so
 * a typo ("sped") is reported instead of silently ignored. */
#include "server/ws/proto.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "animd/animd.h"
#include "formats/suggest.h"
#include "formats/vocab.h"
#include "server/request/motion_fields.h"

static const char *const op_names[] = {"play", "pause", "resume", "seek",
                                       "stop", "set",   "pose",   "stats"};

const char *srv_ws_op_name(srv_ws_op op) {
  return (unsigned)op < sizeof op_names / sizeof op_names[0] ? op_names[op]
                                                             : "unknown";
}

/* Drops a last character that a cut left incomplete. The names put into
 * errors come from a parsed message, so they are UTF-8 until cut, and a
 * text frame must stay UTF-8 (RFC 6455 section 8.1). */
static void utf8_trim(char *s) {
  size_t n = strlen(s), i = n;
  while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) i--;
  if (i == 0) return;
  unsigned char lead = (unsigned char)s[i - 1];
  size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (n - (i - 1) < need) s[i - 1] = '\0';
}

int srv_ws_error_set(srv_ws_error_t *err, const char *id, srv_error_code code,
                     const char *at, const char *fmt, ...) {
  snprintf(err->code, sizeof err->code, "%s", srv_error_name(code));
  snprintf(err->at, sizeof err->at, "%s", at != NULL ? at : "");
  utf8_trim(err->at);
  snprintf(err->id, sizeof err->id, "%s", id != NULL ? id : "");
  err->hint[0] = '\0';
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  utf8_trim(err->message);
  return -1;
}

/* "did you mean 'NEAR'?" in err's hint and at the end of its message. */
static void hint_near(srv_ws_error_t *err, const char *near) {
  if (near == NULL) return;
  snprintf(err->hint, sizeof err->hint, "did you mean '%.60s'?", near);
  size_t n = strlen(err->message);
  if (n + 1 < sizeof err->message)
    snprintf(err->message + n, sizeof err->message - n, "; %s", err->hint);
}

void srv_ws_cmd_free(srv_ws_cmd_t *cmd) {
  if (cmd->root != NULL) json_decref(cmd->root);
  srv_fields_free(&cmd->fields);
  memset(cmd, 0, sizeof *cmd);
}

/* Fields each op accepts besides "op". */
static const char *const allowed[][17] = {
    [SRV_WS_OP_PLAY] = {"id", "skeleton", "clip", "mesh", "mesh_all", "fps",
                        "speed", "t0", "wrap", "space", "format", "joints",
                        "normals", "method", "encoding", "key_every", NULL},
    [SRV_WS_OP_PAUSE] = {"id", NULL},
    [SRV_WS_OP_RESUME] = {"id", NULL},
    [SRV_WS_OP_SEEK] = {"id", "t", NULL},
    [SRV_WS_OP_STOP] = {"id", NULL},
    [SRV_WS_OP_SET] = {"id", "fps", "speed", "space", "format", "wrap",
                       "encoding", "key_every", "key", NULL},
    [SRV_WS_OP_POSE] = {"id", "skeleton", "clip", "mesh", "mesh_all", "t",
                        "wrap", "space", "format", "joints", "normals",
                        "method", "encoding", NULL},
    [SRV_WS_OP_STATS] = {"id", NULL},
};

/* The table fields (request/fields.h) an op takes. */
static unsigned op_takes(srv_ws_op op) {
  return op == SRV_WS_OP_PLAY || op == SRV_WS_OP_SET ? SRV_TAKES_WS_STREAM
         : op == SRV_WS_OP_POSE                      ? SRV_TAKES_WS_POSE
                                                     : 0;
}

static bool is_allowed(srv_ws_op op, const char *key) {
  if (strcmp(key, "op") == 0 || srv_field_find(key, op_takes(op)) != NULL)
    return true;
  for (int i = 0; allowed[op][i] != NULL; i++)
    if (strcmp(allowed[op][i], key) == 0) return true;
  return false;
}

static int get_number(json_t *root, const char *key, double lo, double hi,
                      double *out, bool *present, srv_ws_error_t *err,
                      const char *id) {
  json_t *v = json_object_get(root, key);
  *present = v != NULL;
  if (v == NULL) return 0;
  if (!json_is_number(v))
    return srv_ws_error_set(err, id, SRV_ERR_WRONG_TYPE, key,
                            "%s must be a number", key);
  double d = json_number_value(v);
  if (!isfinite(d) || d < lo || d > hi)
    return srv_ws_error_set(err, id, SRV_ERR_BAD_VALUE, key,
                            "%s must be within [%g, %g]", key, lo, hi);
  *out = d;
  return 0;
}

static int get_string(json_t *root, const char *key, const char **out,
                      srv_ws_error_t *err, const char *id) {
  json_t *v = json_object_get(root, key);
  if (v == NULL) return 0;
  if (!json_is_string(v) || json_string_length(v) == 0)
    return srv_ws_error_set(err, id, SRV_ERR_WRONG_TYPE, key,
                            "%s must be a non-empty string", key);
  *out = json_string_value(v);
  return 0;
}

/* "mesh": one name (a string) or several (a non-empty array of them, at
 * most SRV_WS_MAX_MESHES); "mesh_all": true for every mesh of skeleton. */
static int get_meshes(json_t *root, srv_ws_cmd_t *cmd, srv_ws_error_t *err,
                      const char *id) {
  json_t *v = json_object_get(root, "mesh");
  json_t *all = json_object_get(root, "mesh_all");
  if (all != NULL && !json_is_boolean(all))
    return srv_ws_error_set(err, id, SRV_ERR_WRONG_TYPE, "mesh_all",
                            "mesh_all must be true or false");
  cmd->mesh_all = json_is_true(all);
  if (cmd->mesh_all && v != NULL)
    return srv_ws_error_set(err, id, SRV_ERR_BAD_VALUE, "mesh_all",
                            "mesh_all takes every mesh: give no mesh");
  if (cmd->mesh_all && json_object_get(root, "skeleton") == NULL)
    return srv_ws_error_set(err, id, SRV_ERR_MISSING_FIELD, "skeleton",
                            "mesh_all needs the skeleton");
  if (!json_is_array(v)) return get_string(root, "mesh", &cmd->mesh, err, id);
  size_t n = json_array_size(v);
  if (n == 0 || n > SRV_WS_MAX_MESHES)
    return srv_ws_error_set(err, id, SRV_ERR_BAD_VALUE, "mesh",
                            "mesh lists 1 to %d meshes", SRV_WS_MAX_MESHES);
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_array_get(v, i);
    if (!json_is_string(e) || json_string_length(e) == 0) {
      char at[32];
      snprintf(at, sizeof at, "mesh[%zu]", i);
      return srv_ws_error_set(err, id, SRV_ERR_WRONG_TYPE, at,
                              "mesh names are non-empty strings");
    }
  }
  cmd->meshes = v;
  return 0;
}

/* A string field whose value is a word of vocab; *out is its value. */
static int get_enum(json_t *root, const char *key, fmt_vocab vocab, int *out,
                    bool *present, srv_ws_error_t *err, const char *id) {
  const char *s = NULL;
  *present = false;
  if (get_string(root, key, &s, err, id) != 0) return -1;
  if (s == NULL) return 0;
  int v = fmt_vocab_parse(vocab, s);
  if (v >= 0) {
    *out = v;
    *present = true;
    return 0;
  }
  return srv_ws_error_set(err, id, SRV_ERR_BAD_VALUE, key,
                          "unknown %s \"%.40s\"", key, s);
}

static int parse_id(json_t *root, srv_ws_cmd_t *cmd, srv_ws_error_t *err) {
  json_t *v = json_object_get(root, "id");
  if (v == NULL) return 0;
  if (json_is_string(v)) {
    size_t n = json_string_length(v);
    if (n == 0 || n > 48)
      return srv_ws_error_set(err, NULL, SRV_ERR_BAD_VALUE, "id",
                              "id must be 1 to 48 characters");
    char *text = json_dumps(v, JSON_ENCODE_ANY);
    if (text == NULL || strlen(text) > SRV_WS_ID_MAX) {
      free(text);
      return srv_ws_error_set(err, NULL, SRV_ERR_BAD_VALUE, "id",
                              "id is too long once escaped");
    }
    snprintf(cmd->id, sizeof cmd->id, "%s", text);
    free(text);
    return 0;
  }
  if (json_is_integer(v)) {
    snprintf(cmd->id, sizeof cmd->id, "%" JSON_INTEGER_FORMAT,
             json_integer_value(v));
    return 0;
  }
  return srv_ws_error_set(err, NULL, SRV_ERR_WRONG_TYPE, "id",
                          "id must be a string or an integer");
}

/* The op, and that it takes every field the message has. */
static int parse_op(json_t *root, srv_ws_cmd_t *cmd, srv_ws_error_t *err) {
  const char *id = cmd->id;
  json_t *op = json_object_get(root, "op");
  if (op == NULL) {
    srv_ws_error_set(err, id, SRV_ERR_MISSING_FIELD, "op", "op is required");
    return -1;
  }
  if (!json_is_string(op)) {
    srv_ws_error_set(err, id, SRV_ERR_WRONG_TYPE, "op", "op must be a string");
    return -1;
  }
  int opi = -1;
  for (int i = 0; i < (int)(sizeof op_names / sizeof op_names[0]); i++)
    if (strcmp(json_string_value(op), op_names[i]) == 0) opi = i;
  if (opi < 0) {
    char name[41];
    snprintf(name, sizeof name, "%s", json_string_value(op));
    utf8_trim(name);
    srv_ws_error_set(err, id, SRV_ERR_UNKNOWN_OP, "op", "unknown op \"%s\"",
                     name);
    fmt_suggest_t near;
    fmt_suggest_init(&near, name, 0);
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
      fmt_suggest_offer(&near, op_names[i]);
    hint_near(err, fmt_suggest_best(&near));
    return -1;
  }
  cmd->op = (srv_ws_op)opi;

  const char *key;
  json_t *value;
  json_object_foreach(root, key, value) {
    if (!is_allowed(cmd->op, key)) {
      srv_ws_error_set(err, id, SRV_ERR_UNKNOWN_FIELD, key,
                       "%s does not take \"%.40s\"", op_names[opi], key);
      hint_near(err,
                srv_field_nearest(key, allowed[cmd->op], op_takes(cmd->op)));
      return -1;
    }
  }
  return 0;
}

/* The numbers and words of a message (their defaults first); *has_t
 * tells whether it gave t. */
static int parse_settings(json_t *root, srv_ws_cmd_t *cmd, bool *has_t,
                          srv_ws_error_t *err) {
  const char *id = cmd->id;
  /* Defaults. */
  cmd->fps = 60;
  cmd->speed = 1;
  cmd->wrap = cmd->op == SRV_WS_OP_POSE ? ANIM_WRAP_CLAMP : ANIM_WRAP_LOOP;
  cmd->space = SRV_WS_SPACE_MODEL;
  cmd->format = SRV_WS_FORMAT_JSON;
  cmd->method = ANIM_SKIN_LBS;
  cmd->key_every = SRV_WS_KEY_EVERY;

  bool present;
  if (get_number(root, "fps", 0, SRV_WS_FPS_MAX, &cmd->fps, &present, err,
                 id) != 0 ||
      (present && cmd->fps <= 0)) {
    /* The accepted range is open at 0: say so, whichever end failed. */
    if (json_is_number(json_object_get(root, "fps")))
      srv_ws_error_set(err, id, SRV_ERR_BAD_VALUE, "fps",
                       "fps must be within (0, %g]", SRV_WS_FPS_MAX);
    return -1;
  }
  if (present) cmd->has |= SRV_WS_HAS_FPS;
  if (get_number(root, "speed", -SRV_WS_SPEED_MAX, SRV_WS_SPEED_MAX,
                 &cmd->speed, &present, err, id) != 0)
    return -1;
  if (present) cmd->has |= SRV_WS_HAS_SPEED;
  if (get_number(root, "t0", -1e9, 1e9, &cmd->t0, &present, err, id) != 0)
    return -1;
  if (get_number(root, "t", -1e9, 1e9, &cmd->t, &present, err, id) != 0)
    return -1;
  *has_t = present;
  int v;
  if (get_enum(root, "wrap", FMT_VOCAB_WRAP, &cmd->wrap, &present, err, id))
    return -1;
  if (present) cmd->has |= SRV_WS_HAS_WRAP;
  if (get_enum(root, "space", FMT_VOCAB_SPACE, &cmd->space, &present, err, id))
    return -1;
  if (present) cmd->has |= SRV_WS_HAS_SPACE;
  v = 0;
  if (get_enum(root, "format", FMT_VOCAB_FORMAT, &v, &present, err, id))
    return -1;
  if (present && v == FMT_FORMAT_SVG)
    return srv_ws_error_set(err, id, SRV_ERR_BAD_VALUE, "format",
                            "format svg is a picture for GET and POST "
                            "/v1/pose; a stream sends json or bin");
  if (present) {
    cmd->format = (srv_ws_format)v;
    cmd->has |= SRV_WS_HAS_FORMAT;
  }
  if (get_enum(root, "method", FMT_VOCAB_METHOD, &cmd->method, &present, err,
               id))
    return -1;
  v = 0;
  if (get_enum(root, "encoding", FMT_VOCAB_ENCODING, &v, &present, err, id))
    return -1;
  if (present) {
    cmd->encoding = (fmt_encoding)v;
    cmd->has |= SRV_WS_HAS_ENCODING;
  }
  double every;
  if (get_number(root, "key_every", 1, SRV_WS_KEY_EVERY_MAX, &every, &present,
                 err, id) != 0)
    return -1;
  if (present) {
    if (every != (double)(uint32_t)every)
      return srv_ws_error_set(err, id, SRV_ERR_BAD_VALUE, "key_every",
                              "key_every must be an integer");
    cmd->key_every = (uint32_t)every;
    cmd->has |= SRV_WS_HAS_KEY_EVERY;
  }
  json_t *key = json_object_get(root, "key");
  if (key != NULL) {
    if (!json_is_true(key))
      return srv_ws_error_set(err, id, SRV_ERR_WRONG_TYPE, "key",
                              "key must be true");
    cmd->has |= SRV_WS_HAS_KEY;
  }
  json_t *normals = json_object_get(root, "normals");
  if (normals != NULL) {
    if (!json_is_boolean(normals)) {
      srv_ws_error_set(err, id, SRV_ERR_WRONG_TYPE, "normals",
                       "normals must be true or false");
      return -1;
    }
    cmd->normals = json_is_true(normals);
  }
  return 0;
}

/* The names of assets and joints a message gives. */
static int parse_names(json_t *root, srv_ws_cmd_t *cmd, srv_ws_error_t *err) {
  const char *id = cmd->id;
  if (get_string(root, "skeleton", &cmd->skeleton, err, id) != 0 ||
      get_string(root, "clip", &cmd->clip, err, id) != 0 ||
      get_meshes(root, cmd, err, id) != 0)
    return -1;
  json_t *joints = json_object_get(root, "joints");
  if (joints != NULL) {
    if (!json_is_array(joints) || json_array_size(joints) == 0) {
      srv_ws_error_set(err, id, SRV_ERR_WRONG_TYPE, "joints",
                       "joints must be a non-empty array of joint names");
      return -1;
    }
    size_t i;
    json_t *j;
    json_array_foreach(joints, i, j) {
      if (!json_is_string(j)) {
        char at[32];
        snprintf(at, sizeof at, "joints[%zu]", i);
        srv_ws_error_set(err, id, SRV_ERR_WRONG_TYPE, at,
                         "joint names are strings");
        return -1;
      }
    }
    cmd->joints = joints;
  }
  return 0;
}

/* What each op requires. */
static int check_required(const srv_ws_cmd_t *cmd, bool has_t,
                          srv_ws_error_t *err) {
  const char *id = cmd->id;
  /* Required fields per op. */
  if (cmd->op == SRV_WS_OP_PLAY || cmd->op == SRV_WS_OP_POSE) {
    /* A blend space comes in place of the clip. */
    bool blended = srv_blend_space_names(&cmd->fields, &(uint32_t){0}) != NULL;
    if (cmd->clip == NULL && !blended) {
      srv_ws_error_set(err, id, SRV_ERR_MISSING_FIELD, "clip",
                       "clip (or blend_space) is required");
      return -1;
    }
    if (cmd->clip != NULL && blended) {
      srv_ws_error_set(err, id, SRV_ERR_UNKNOWN_FIELD, "clip",
                       "a blend space comes in place of the clip");
      return -1;
    }
    if (cmd->skeleton == NULL && cmd->mesh == NULL && cmd->meshes == NULL) {
      srv_ws_error_set(err, id, SRV_ERR_MISSING_FIELD, "skeleton",
                       "skeleton (or mesh) is required");
      return -1;
    }
  }
  if ((cmd->op == SRV_WS_OP_SEEK || cmd->op == SRV_WS_OP_POSE) && !has_t) {
    srv_ws_error_set(err, id, SRV_ERR_MISSING_FIELD, "t", "t is required");
    return -1;
  }
  if (cmd->op == SRV_WS_OP_SET && cmd->has == 0 && cmd->fields.present == 0) {
    srv_ws_error_set(err, id, SRV_ERR_MISSING_FIELD, "",
                     "set needs one of speed, fps, space, format, wrap, "
                     "encoding, key_every, key");
    return -1;
  }
  return 0;
}

int srv_ws_cmd_parse(const char *text, size_t len, srv_ws_cmd_t *cmd,
                     srv_ws_error_t *err) {
  memset(cmd, 0, sizeof *cmd);
  json_error_t jerr;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL) {
    char at[48];
    snprintf(at, sizeof at, "line %d, column %d", jerr.line, jerr.column);
    return srv_ws_error_set(err, NULL, SRV_ERR_BAD_JSON, at, "%s", jerr.text);
  }
  cmd->root = root;
  if (!json_is_object(root)) {
    srv_ws_error_set(err, NULL, SRV_ERR_BAD_MESSAGE, "",
                     "a message is an object");
    goto fail;
  }
  if (parse_id(root, cmd, err) != 0 || parse_op(root, cmd, err) != 0) goto fail;
  srv_error_t fe;
  if (srv_fields_from_json(root, op_takes(cmd->op), &cmd->fields, &fe) != 0) {
    srv_ws_error_set(err, cmd->id, fe.code, fe.at, "%s", fe.message);
    goto fail;
  }

  bool streamed = cmd->op != SRV_WS_OP_STATS && cmd->op != SRV_WS_OP_POSE;
  if (streamed && cmd->id[0] == '\0') {
    srv_ws_error_set(err, cmd->id, SRV_ERR_MISSING_FIELD, "id",
                     "%s needs the stream id", op_names[cmd->op]);
    goto fail;
  }

  bool has_t = false;
  if (parse_settings(root, cmd, &has_t, err) != 0 ||
      parse_names(root, cmd, err) != 0 || check_required(cmd, has_t, err) != 0)
    goto fail;
  return 0;

fail:
  json_decref(root);
  cmd->root = NULL;
  srv_fields_free(&cmd->fields);
  return -1;
}
