/* server/ws: WebSocket pose streaming, the control messages: play, pause,
 * resume, seek, stop, set, pose and stats, their assets resolved through the
 * API's one lookup, and assets fetched from a shared store on a miss
 * (stream_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/request/answer_bound.h"
#include "server/request/blend.h"
#include "server/request/motion_fields.h"
#include "server/request/target.h"
#include "server/ws/stream_internal.h"

/* ---- control messages ---------------------------------------------------- */

static char *dup_str(const char *s) {
  if (s == NULL) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d != NULL) memcpy(d, s, n);
  return d;
}

/* Assets a command may fetch one after the other (a skeleton, then its
 * clip or mesh, or each clip of its blend space). */
#define WS_FETCHES_MAX (3 + ANIM_BLEND_SPACE_MAX)

/* A command's lookup failed (err): after a miss, with a shared store,
 * fetches the asset and runs the command again once it is loaded (returns
 * 1); without one, or when a fetch has already failed, sends the error
 * (store_unavailable when the store could not be reached) and returns
 * -1. */
static int lookup_failed(srv_ws_client_t *c, const char *id,
                         const srv_error_t *err,
                         const srv_lookup_miss_t *miss) {
  srv_ws_hub_t *h = c->hub;
  if (miss->missed && h->fetch != NULL && h->message != NULL &&
      h->fetched == SRV_BACKEND_OK && h->fetches < WS_FETCHES_MAX &&
      srv_ws_fetch_start(h->fetch, c, miss->kind, miss->name,
                         miss->skeleton[0] ? miss->skeleton : NULL, h->message,
                         h->message_len, h->fetches + 1) == 0)
    return 1;
  if (miss->missed && h->fetched == SRV_BACKEND_UNAVAILABLE) {
    ws__send_error(c, id, SRV_ERR_STORE_UNAVAILABLE, err->at,
                   "the shared store cannot be reached; retry later");
  } else if (miss->missed && h->fetched == SRV_BACKEND_AMBIGUOUS) {
    char msg[STORE_NAME_MAX + 96];
    snprintf(msg, sizeof msg,
             "several assets are named '%s'; name one by its id", miss->name);
    ws__send_error(c, id, SRV_ERR_AMBIGUOUS, err->at, msg);
  } else
    ws__send_err(c, id, err);
  return -1;
}

/* The clips of fields' blend space (none: *count 0) on skeleton, through
 * the one lookup, retained into out. Returns 0, -1 after sending the error
 * (at "blend_space.clips[i].clip"), or 1 when a clip is being fetched (the
 * command runs again then); nothing is retained unless 0. */
static int blend_clips(srv_ws_client_t *c, const char *id,
                       const srv_fields_t *fields, store_asset_t *skeleton,
                       store_asset_t **out, uint32_t *count) {
  uint32_t n;
  const char *const *names = srv_blend_space_names(fields, &n);
  *count = 0;
  for (uint32_t i = 0; i < n; i++) {
    char at[64];
    snprintf(at, sizeof at, "blend_space.clips[%u].clip", i);
    srv_error_t err;
    srv_lookup_miss_t miss = {0};
    int r = srv_blend_clip_lookup(c->hub->store, at, names[i], skeleton,
                                  &out[i], &err, &miss);
    if (r != 0) {
      store_asset_release(out[i]);
      for (uint32_t k = 0; k < i; k++) store_asset_release(out[k]);
      return lookup_failed(c, id, &err, &miss);
    }
  }
  *count = n;
  return 0;
}

/* A frame's cost depends on the assets alone (and a blend space's
 * clips), so it is judged when they are resolved. */
static void judge_cost(srv_ws_client_t *c, stream_t *s) {
  s->heavy = false;
  for (uint32_t k = 0; k < (s->meshes ? s->mesh_count : 1); k++) {
    srv_ws_eval_key_t key =
        ws__stream_key(s, 0, s->meshes ? s->meshes[k] : s->mesh);
    s->heavy |=
        !srv_cost_inline(srv_ws_eval_cost(&key), c->hub->lim.inline_cost);
  }
}

/* Resolves a play or pose command's assets and joint list into s through
 * the API's one lookup (request/target.h). Returns 0, -1 after sending
 * the error, or 1 when an asset is being fetched (the command runs again
 * then). */
/* Skinned vertices are in model space: with a mesh, a space other than
 * model is refused (play, pose and set alike; GET /v1/skin takes none). */
static bool mesh_space_fits(srv_ws_client_t *c, const char *id,
                            const srv_ws_cmd_t *cmd, const stream_t *s) {
  if (!(cmd->has & SRV_WS_HAS_SPACE) || s->mesh == NULL ||
      cmd->space == SRV_WS_SPACE_MODEL)
    return true;
  ws__send_error(c, id, SRV_ERR_BAD_VALUE, "space",
                 "skinned vertices are in model space: a mesh takes no "
                 "other space");
  return false;
}

int ws__resolve(srv_ws_client_t *c, const srv_ws_cmd_t *cmd, stream_t *s) {
  const char *id = cmd->id;
  srv_target_query_t names = {.skeleton = cmd->skeleton,
                              .clip = cmd->clip,
                              .mesh = cmd->mesh,
                              .meshes = {.array = cmd->meshes},
                              .mesh_all = cmd->mesh_all,
                              .joints = {.array = cmd->joints},
                              .need_normals = cmd->normals};
  srv_target_t t;
  srv_error_t err;
  srv_lookup_miss_t miss = {0};
  if (srv_target_resolve(c->hub->store, &names, &t, &err, &miss) != 0)
    return lookup_failed(c, id, &err, &miss);
  s->skeleton = t.skeleton;
  s->clip = t.clip;
  int blended =
      blend_clips(c, id, &cmd->fields, s->skeleton, s->blend, &s->blend_count);
  if (blended != 0) {
    srv_target_release(&t);
    s->skeleton = s->clip = NULL;
    return blended;
  }
  if (cmd->meshes != NULL || cmd->mesh_all) {
    s->meshes = t.meshes;
    s->mesh_count = (uint32_t)t.mesh_count;
    s->mesh = s->meshes[0];
    store_asset_retain(s->mesh);
  } else if (t.mesh_count == 1) {
    s->mesh = t.meshes[0];
    free(t.meshes);
  }
  s->mask = t.joints;
  s->mask_count = t.joint_count;
  s->skeleton_name =
      dup_str(cmd->skeleton != NULL ? cmd->skeleton : s->skeleton->id);
  s->clip_name = dup_str(cmd->clip);
  s->mesh_name = dup_str(cmd->mesh);
  if (s->skeleton_name == NULL || (cmd->clip != NULL && s->clip_name == NULL) ||
      (cmd->mesh != NULL && s->mesh_name == NULL)) {
    ws__send_error(c, id, SRV_ERR_OUT_OF_MEMORY, NULL, "out of memory");
    return -1;
  }
  s->wrap = cmd->wrap;
  s->space = cmd->space;
  s->format = cmd->format;
  s->normals = cmd->normals;
  s->method = cmd->method;
  s->encoding = cmd->encoding;
  srv_fields_copy(&s->fields, &cmd->fields);
  if (srv_fields_resolve(&s->fields, s->skeleton->skeleton, NULL, &err) != 0) {
    ws__send_err(c, id, &err);
    return -1;
  }
  if (!ws__encoding_fits(c, id, s->mesh, s->meshes != NULL,
                         cmd->op == SRV_WS_OP_POSE, s->format, s->encoding))
    return -1;
  if (!mesh_space_fits(c, id, cmd, s)) return -1;
  s->key_every = cmd->key_every;
  /* A frame's size, refused before any work. */
  srv_eval_job_t shape_job = {.skeleton = s->skeleton->skeleton,
                              .space = s->space,
                              .joints = s->mask,
                              .joint_count = s->mask_count,
                              .mesh = s->mesh != NULL ? s->mesh->mesh : NULL,
                              .normals = s->normals ? ANIM_NORMALS_LINEAR
                                                    : ANIM_NORMALS_NONE,
                              .fields = &s->fields};
  srv_answer_shape_t shape = {.job = &shape_job,
                              .meshes = s->meshes,
                              .mesh_count = s->meshes ? s->mesh_count : 0,
                              .binary = s->format == SRV_WS_FORMAT_BIN,
                              .q16 = s->encoding == FMT_ENCODING_Q16,
                              .frames = 1,
                              .range = true};
  if (srv_answer_check(&shape, c->hub->lim.max_answer_bytes, "mesh", &err) !=
      0) {
    ws__send_err(c, id, &err);
    return -1;
  }
  judge_cost(c, s);
  return 0;
}

static void describe(fmt_buf_t *b, const stream_t *s) {
  fmt_buf_puts(b, ",\"index\":");
  fmt_buf_uint(b, s->index);
  fmt_buf_puts(b, ",\"layout\":");
  fmt_buf_json_string(b,
                      fmt_vocab_name(FMT_VOCAB_LAYOUT, ws__stream_layout(s)));
  fmt_buf_puts(b, s->mesh != NULL ? ",\"vertices\":" : ",\"joints\":");
  uint64_t vertices = 0;
  for (uint32_t k = 0; k < s->mesh_count; k++)
    vertices += s->meshes[k]->mesh->vertex_count;
  fmt_buf_uint(b, s->meshes != NULL ? vertices
                  : s->mesh != NULL ? s->mesh->mesh->vertex_count
                  : s->mask != NULL ? s->mask_count
                                    : s->skeleton->skeleton->joint_count);
  if (s->meshes != NULL) {
    /* The meshes in the order of each frame's blocks. */
    fmt_buf_puts(b, ",\"meshes\":[");
    for (uint32_t k = 0; k < s->mesh_count; k++) {
      fmt_buf_puts(b, k ? ",{\"id\":" : "{\"id\":");
      fmt_buf_json_string(b, s->meshes[k]->id);
      fmt_buf_puts(b, ",\"name\":");
      fmt_buf_json_string(b, s->meshes[k]->name);
      fmt_buf_puts(b, ",\"vertices\":");
      fmt_buf_uint(b, s->meshes[k]->mesh->vertex_count);
      fmt_buf_putc(b, '}');
    }
    fmt_buf_putc(b, ']');
  }
  if (s->encoding == FMT_ENCODING_DELTA) {
    fmt_buf_puts(b, ",\"key_every\":");
    fmt_buf_uint(b, s->key_every);
  }
  fmt_buf_puts(b, ",\"duration\":");
  fmt_buf_float(b, (float)ws__stream_duration(s));
  fmt_buf_puts(b, ",\"fps\":");
  fmt_buf_printf(b, "%.17g", s->clock.fps);
  fmt_buf_puts(b, ",\"speed\":");
  fmt_buf_printf(b, "%.17g", s->clock.speed);
}

static void op_play(srv_ws_client_t *c, const srv_ws_cmd_t *cmd) {
  srv_ws_hub_t *h = c->hub;
  if (ws__find_stream(c, cmd->id) != NULL) {
    ws__send_error(c, cmd->id, SRV_ERR_STREAM_EXISTS, "id",
                   "a stream with this id is playing; stop it first");
    return;
  }
  if (c->stream_count >= h->lim.max_streams) {
    ws__send_error(c, cmd->id, SRV_ERR_TOO_MANY_STREAMS, "id",
                   "this connection has the most streams allowed");
    return;
  }
  stream_t *s = calloc(1, sizeof *s);
  stream_t **arr = realloc(c->streams, (c->stream_count + 1) * sizeof *arr);
  if (s == NULL || arr == NULL) {
    free(s);
    if (arr != NULL) c->streams = arr;
    ws__send_error(c, cmd->id, SRV_ERR_OUT_OF_MEMORY, NULL, "out of memory");
    return;
  }
  c->streams = arr;
  s->client = c;
  s->heap_pos = -1;
  snprintf(s->id, sizeof s->id, "%s", cmd->id);
  if (ws__resolve(c, cmd, s) != 0) {
    ws__stream_free(s);
    return;
  }
  s->index = c->next_index++;
  uint64_t now = uv_hrtime();
  srv_ws_clock_init(&s->clock, now, cmd->fps, cmd->speed, cmd->t0);
  s->next = 0;
  s->due = now;
  if (ws__heap_push(h, s) != 0) {
    ws__stream_free(s);
    ws__send_error(c, cmd->id, SRV_ERR_OUT_OF_MEMORY, NULL, "out of memory");
    return;
  }
  c->streams[c->stream_count++] = s;
  h->stats.streams++;
  fmt_buf_t *b = ws__ack_begin(c, "play", cmd->id);
  describe(b, s);
  fmt_buf_putc(b, '}');
  ws__send_text(c, b);
  ws__arm(h);
}

/* Moves a stream's clock base to its next frame, due now (or at its own
 * due time when keep_due), with clip time t. */
static void rebase(stream_t *s, uint64_t due, double t) {
  srv_ws_clock_rebase(&s->clock, s->next, due, t);
}

/* ,"frames":F,"skipped":S,"dropped":D of one stream (stop, stats). */
static void put_counters(fmt_buf_t *b, const stream_t *s) {
  fmt_buf_puts(b, ",\"frames\":");
  fmt_buf_uint(b, s->frames);
  fmt_buf_puts(b, ",\"skipped\":");
  fmt_buf_uint(b, s->skipped);
  fmt_buf_puts(b, ",\"dropped\":");
  fmt_buf_uint(b, s->dropped);
}

static void ack_stream(srv_ws_client_t *c, const char *op, stream_t *s) {
  fmt_buf_t *b = ws__ack_begin(c, op, s->id);
  fmt_buf_puts(b, ",\"frame\":");
  fmt_buf_int(b, s->next);
  fmt_buf_puts(b, ",\"t\":");
  double t = s->paused ? s->paused_t : srv_ws_clock_time(&s->clock, s->next);
  fmt_buf_printf(b, "%.17g", t);
  fmt_buf_puts(b, ",\"paused\":");
  fmt_buf_puts(b, s->paused ? "true" : "false");
  fmt_buf_putc(b, '}');
  ws__send_text(c, b);
}

static void op_stream(srv_ws_client_t *c, const srv_ws_cmd_t *cmd) {
  srv_ws_hub_t *h = c->hub;
  stream_t *s = ws__find_stream(c, cmd->id);
  if (s == NULL) {
    ws__send_error(c, cmd->id, SRV_ERR_UNKNOWN_STREAM, "id",
                   "no stream with this id");
    return;
  }
  uint64_t now = uv_hrtime();
  switch (cmd->op) {
  case SRV_WS_OP_PAUSE:
    if (!s->paused) {
      s->paused = true;
      s->paused_t = srv_ws_clock_time(&s->clock, s->next);
      ws__heap_remove(h, s);
    }
    ack_stream(c, "pause", s);
    break;
  case SRV_WS_OP_RESUME:
    if (s->paused) {
      s->paused = false;
      rebase(s, now, s->paused_t);
      s->due = now;
      ws__heap_push(h, s);
    }
    ack_stream(c, "resume", s);
    break;
  case SRV_WS_OP_SEEK:
    s->events_next = WS_EVENTS_SEEK; /* A seek crosses nothing. */
    if (s->paused) {
      s->paused_t = cmd->t;
      rebase(s, now, cmd->t);
      ack_stream(c, "seek", s);
      /* A paused stream shows the frame it was moved to, once. */
      ws__send_frame(s, s->next, false);
      s->next++;
      s->paused_t = srv_ws_clock_time(&s->clock, s->next);
    } else {
      rebase(s, now, cmd->t);
      s->due = now;
      ws__heap_remove(h, s);
      ws__heap_push(h, s);
      ack_stream(c, "seek", s);
    }
    break;
  case SRV_WS_OP_STOP: {
    fmt_buf_t *b = ws__ack_begin(c, "stop", s->id);
    put_counters(b, s);
    fmt_buf_putc(b, '}');
    ws__stream_remove(c, s);
    ws__send_text(c, b);
    break;
  }
  case SRV_WS_OP_SET:
    /* Checked before anything changes: a refused set changes nothing. */
    if (!ws__encoding_fits(
            c, cmd->id, s->mesh, s->meshes != NULL, false,
            cmd->has & SRV_WS_HAS_FORMAT ? cmd->format : s->format,
            cmd->has & SRV_WS_HAS_ENCODING ? cmd->encoding : s->encoding))
      return;
    {
      srv_error_t err;
      if (srv_fields_resolve(&cmd->fields, s->skeleton->skeleton, NULL, &err) !=
          0) {
        ws__send_err(c, cmd->id, &err);
        return;
      }
    }
    if (!mesh_space_fits(c, cmd->id, cmd, s)) return;
    if (srv_blend_space_names(&cmd->fields, &(uint32_t){0}) != NULL) {
      /* A new blend space (param, clips, sync), from the next frame. */
      store_asset_t *clips[ANIM_BLEND_SPACE_MAX];
      uint32_t n;
      if (s->blend_count == 0) {
        ws__send_error(c, cmd->id, SRV_ERR_BAD_VALUE, "blend_space",
                       "this stream plays a clip: play a new stream for a "
                       "blend space");
        return;
      }
      if (blend_clips(c, cmd->id, &cmd->fields, s->skeleton, clips, &n) != 0)
        return;
      for (uint32_t i = 0; i < s->blend_count; i++)
        store_asset_release(s->blend[i]);
      memcpy(s->blend, clips, n * sizeof *clips);
      s->blend_count = n;
      judge_cost(c, s);
    }
    if (cmd->has & (SRV_WS_HAS_FPS | SRV_WS_HAS_SPEED)) {
      /* The next frame keeps its due time and clip time; frames after it
       * follow the new rate. */
      if (!s->paused)
        rebase(s, srv_ws_clock_due(&s->clock, s->next),
               srv_ws_clock_time(&s->clock, s->next));
      if (cmd->has & SRV_WS_HAS_FPS) s->clock.fps = cmd->fps;
      if (cmd->has & SRV_WS_HAS_SPEED) s->clock.speed = cmd->speed;
    }
    if (cmd->has & SRV_WS_HAS_SPACE) s->space = cmd->space;
    if (cmd->has & SRV_WS_HAS_FORMAT) s->format = cmd->format;
    if (cmd->has & SRV_WS_HAS_ENCODING) s->encoding = cmd->encoding;
    if (cmd->has & SRV_WS_HAS_KEY_EVERY) s->key_every = cmd->key_every;
    /* A key frame on request, and after any change of the frames. */
    ws__delta_key(s);
    if (cmd->has & SRV_WS_HAS_WRAP) s->wrap = cmd->wrap;
    srv_fields_merge(&s->fields, &cmd->fields);
    {
      fmt_buf_t *b = ws__ack_begin(c, "set", s->id);
      describe(b, s);
      fmt_buf_putc(b, '}');
      ws__send_text(c, b);
    }
    break;
  default: break;
  }
  ws__arm(h);
}

static void pose_wait_free(pose_wait_t *w) {
  fmt_buf_free(&w->msg);
  ws__stream_free(&w->s);
}

static uint8_t pose_opcode(const stream_t *s) {
  return s->format == SRV_WS_FORMAT_BIN ? WSLAY_BINARY_FRAME : WSLAY_TEXT_FRAME;
}

/* Sends the one-shot pose s, its frame evaluated here or found in the
 * frame cache. */
static void send_pose(srv_ws_client_t *c, stream_t *s) {
  if (ws__build_frame(c->hub, s, WS_ONE_SHOT, -1, s->pose_t) == 0)
    ws__send_answer(c, pose_opcode(s), c->hub->out.data, c->hub->out.len);
  else
    ws__send_error(c, s->id, SRV_ERR_INTERNAL, NULL,
                   "the pose could not be made");
}

/* Worker: the answer of a pose from its skinned frame. */
static void on_pose_frame(void *arg, const srv_ws_frame_data_t *fd) {
  pose_wait_t *w = arg;
  w->built =
      ws__frame_message(&w->msg, &w->s, WS_ONE_SHOT, -1, w->s.pose_t, fd);
}

static void handle_message(srv_ws_client_t *c, uint8_t opcode,
                           const uint8_t *data, size_t len);

/* The pool is back with c->posing: send its answer, then handle the
 * messages held meanwhile, until one waits for the pool again. */
static void on_pose_ready(void *arg, int result, bool used) {
  pose_wait_t *w = arg;
  srv_ws_client_t *c = w->s.client;
  if (c == NULL) {
    /* Its client has gone meanwhile. */
    pose_wait_free(w);
    return;
  }
  ws__enter(c);
  c->posing = NULL;
  if (!srv_ws_session_closing(&c->session)) {
    if (result == 0 && used && w->built == 0)
      ws__send_answer(c, pose_opcode(&w->s), w->msg.data, w->msg.len);
    else if (result == 0 && !used)
      send_pose(c, &w->s);
    else
      ws__send_error(c, w->s.id, SRV_ERR_INTERNAL, NULL,
                     "the pose could not be made");
  }
  pose_wait_free(w);
  uint8_t opcode, *data;
  size_t len;
  while (c->posing == NULL && !srv_ws_session_closing(&c->session) &&
         srv_ws_held_pop(&c->held, &opcode, &data, &len)) {
    handle_message(c, opcode, data, len);
    free(data);
  }
  if (srv_ws_session_closing(&c->session)) srv_ws_held_clear(&c->held);
  ws__check_done(c);
  ws__leave(c);
}

/* Hands the pose w to the pool when its frame and answer are too heavy
 * for the loop (server/schedule.h's rule, a JSON answer counting
 * SRV_JSON_COST times its evaluation, as over HTTP): true when it waits
 * there now (or was answered an error), false when its frame is to be
 * made here (cheap, cached already, several meshes, or no pool). */
static bool pose_on_pool(srv_ws_client_t *c, pose_wait_t *w) {
  if (w->s.meshes != NULL) return false;
  srv_ws_eval_key_t key = ws__stream_key(&w->s, w->s.pose_t, w->s.mesh);
  unsigned long cost =
      srv_cost_answer(srv_ws_eval_cost(&key), w->s.format == SRV_WS_FORMAT_BIN);
  if (srv_cost_inline(cost, c->hub->lim.inline_cost)) return false;
  int r = srv_ws_eval_prefetch_then(c->hub->eval, &key, on_pose_frame,
                                    on_pose_ready, w);
  if (r == 1 || r == UV_ENOSYS) return false;
  if (r == 0) {
    c->posing = w;
    return true;
  }
  ws__send_error(c, w->s.id, SRV_ERR_OVERLOADED, NULL,
                 "the worker queue is full; retry shortly");
  pose_wait_free(w);
  return true;
}

static void op_pose(srv_ws_client_t *c, const srv_ws_cmd_t *cmd) {
  pose_wait_t *w = calloc(1, sizeof *w);
  if (w == NULL) {
    ws__send_error(c, cmd->id, SRV_ERR_OUT_OF_MEMORY, NULL, NULL);
    return;
  }
  stream_t *s = &w->s;
  fmt_buf_init(&w->msg);
  s->client = c;
  s->heap_pos = -1;
  snprintf(s->id, sizeof s->id, "%s", cmd->id);
  if (ws__resolve(c, cmd, s) != 0) {
    pose_wait_free(w);
    return;
  }
  s->pose_t = ws__sampled_time(s, cmd->t);
  if (pose_on_pool(c, w)) return;
  send_pose(c, s);
  pose_wait_free(w);
}

static void op_stats(srv_ws_client_t *c, const srv_ws_cmd_t *cmd) {
  fmt_buf_t *b = ws__ack_begin(c, "stats", cmd->id);
  fmt_buf_puts(b, ",\"sent\":");
  fmt_buf_uint(b, c->sent);
  fmt_buf_puts(b, ",\"dropped\":");
  fmt_buf_uint(b, c->dropped);
  fmt_buf_puts(b, ",\"streams\":[");
  for (unsigned i = 0; i < c->stream_count; i++) {
    const stream_t *s = c->streams[i];
    fmt_buf_puts(b, i ? ",{\"id\":" : "{\"id\":");
    fmt_buf_puts(b, s->id);
    put_counters(b, s);
    fmt_buf_puts(b, ",\"paused\":");
    fmt_buf_puts(b, s->paused ? "true}" : "false}");
  }
  fmt_buf_puts(b, "]}");
  ws__send_text(c, b);
}

/* Parses and runs one command (text, len bytes). */
static void dispatch(srv_ws_client_t *c, const char *text, size_t len) {
  srv_ws_hub_t *h = c->hub;
  srv_ws_cmd_t cmd;
  srv_ws_error_t err;
  if (srv_ws_cmd_parse(text, len, &cmd, &err) != 0) {
    ws__send_cmd_error(c, &err);
    return;
  }
  h->message = text;
  h->message_len = len;
  switch (cmd.op) {
  case SRV_WS_OP_PLAY: op_play(c, &cmd); break;
  case SRV_WS_OP_POSE: op_pose(c, &cmd); break;
  case SRV_WS_OP_STATS: op_stats(c, &cmd); break;
  default: op_stream(c, &cmd); break;
  }
  h->message = NULL;
  srv_ws_cmd_free(&cmd);
}

static void handle_message(srv_ws_client_t *c, uint8_t opcode,
                           const uint8_t *data, size_t len) {
  if (opcode != WSLAY_TEXT_FRAME) {
    ws__send_error(c, NULL, SRV_ERR_BAD_MESSAGE, NULL,
                   "control messages are JSON text messages");
    return;
  }
  dispatch(c, (const char *)data, len);
}

/* A fetch for a command is done (fetch.h): the command runs again. */
void ws__on_fetched(void *client, const char *message, size_t len,
                    unsigned fetches, srv_backend_status status) {
  srv_ws_client_t *c = client;
  srv_ws_hub_t *h = c->hub;
  if (c->transport_closed || c->close_ns != 0) return;
  ws__enter(c);
  h->fetches = fetches;
  h->fetched = status;
  dispatch(c, message, len);
  h->fetches = 0;
  h->fetched = SRV_BACKEND_OK;
  ws__check_done(c);
  ws__leave(c);
}

void ws__on_message(void *user, uint8_t opcode, const uint8_t *data,
                    size_t len) {
  srv_ws_client_t *c = user;
  c->hub->stats.messages_in++;
  c->messages++;
  /* Behind a pose on the pool, messages wait their turn. */
  if (c->posing != NULL) {
    if (srv_ws_held_push(&c->held, opcode, data, len,
                         WS_UNREAD_FACTOR * c->hub->lim.high_water) != 0) {
      ws__client_close(c, 1008, "too much unread data");
      ws__transport_close(c);
    }
    return;
  }
  handle_message(c, opcode, data, len);
}
