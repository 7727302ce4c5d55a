/* cli: `animd eval`: the API offline. Decodes asset files with the upload
 * decoders into an in-memory store and prints what the HTTP API would
 * answer for the same query, byte for byte: the asset list (`list`, as
 * GET /v1/assets), one pose or a range (GET /v1/pose), skinned vertices
 * (GET /v1/skin with --mesh), a POST /v1/pose body (--request, from a
 * file or inline JSON), for headless checks without a server.
 *
 * Key design choice: options are turned into the query parameters of the
 * HTTP API (--t 0.5 is t=0.5) and go through the same typed parsers
 * (server/request/requests.h), the API's one lookup (request/target.h),
 * evaluation pipeline and encoders (server/request/frame_answer.h), so
 * defaults, errors and bytes cannot drift apart. Files are recognized by
 * content (formats/sniff.h). */
#include "cli/eval.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/files.h"
#include "cli/options.h"
#include "cli/retarget.h"
#include "formats/vocab.h"
#include "server/request/answer_bound.h"
#include "server/request/blend.h"
#include "server/request/frame_answer.h"
#include "server/request/requests.h"
#include "server/request/target.h"
#include "server/verdict/pose_svg.h"
#include "server/config.h"
#include "server/errors.h"
#include "store/store.h"

#define MAX_FILES 16
#define MAX_OPTIONS 24

/* Prints an error as the API names it: "animd eval: MESSAGE (CODE at
 * AT)". */
#define report(err, ...) cli_report(err, "animd eval", __VA_ARGS__)

/* The options: the query parameters of GET /v1/pose and GET /v1/skin
 * (each of the same name), then the command's own; the request fields of
 * those queries (request/fields.h) are appended at run time. */
static const cli_option_t base_options[] = {
    {"skeleton", 0, "S", "the skeleton, by id or name", -1,
     "the clip's or mesh's"},
    {"clip", 0, "C", "the clip, by id or name", -1, "the rest pose"},
    {"mesh", 0, "M", "skin this mesh (as GET /v1/skin)", -1, NULL},
    {"t", 0, "T", "the time in seconds", -1, NULL},
    {"from", 0, "A", "a range's first time in seconds", -1, NULL},
    {"to", 0, "B", "a range's last time in seconds", -1, NULL},
    {"fps", 0, "F", "a range's frames per second", -1, NULL},
    {"space", 0, "S", "the space of the matrices", FMT_VOCAB_SPACE, "model"},
    {"wrap", 0, "W", "time beyond the clip", FMT_VOCAB_WRAP, "clamp"},
    {"format", 0, "F", "the answer's encoding", FMT_VOCAB_FORMAT, "json"},
    {"joints", 0, "a,b,...", "the joints to answer, in that order", -1,
     "every joint"},
    {"method", 0, "M", "the skinning method (--mesh)", FMT_VOCAB_METHOD, "lbs"},
    {"normals", 0, "N", "skinned normals (--mesh)", FMT_VOCAB_NORMALS, "0"},
    {"view", 0, "V", "the picture's view (--format svg)", FMT_VOCAB_VIEW,
     "front"},
    {"layout", 0, "L", "a range's pictures (--format svg)", FMT_VOCAB_ARRANGE,
     "grid"},
    {"type", 0, "CONTENT-TYPE", "decode every FILE as this type", -1,
     "recognized by content"},
    {"request", 0, "BODY", "a POST /v1/pose body: a file, or the JSON itself",
     -1, NULL},
    {"retarget", 0, "BODY",
     "a POST /v1/retarget body: a file, or the JSON itself", -1, NULL},
};

static const cli_option_t help_option = {"help", 'h', NULL, "print this help",
                                         -1,     NULL};

#define BASE_OPTIONS (sizeof base_options / sizeof base_options[0])
#define MAX_FIELD_OPTIONS 16

/* The whole table: the base options, the query request fields, --help,
 * then the end row. */
static const cli_option_t *eval_options(void) {
  static cli_option_t table[BASE_OPTIONS + MAX_FIELD_OPTIONS + 2];
  static const char *names[MAX_FIELD_OPTIONS];
  unsigned n = srv_field_list(SRV_TAKES_POSE_QUERY | SRV_TAKES_SKIN_QUERY,
                              names, MAX_FIELD_OPTIONS);
  memcpy(table, base_options, sizeof base_options);
  for (unsigned k = 0; k < n; k++)
    table[BASE_OPTIONS + k] = (cli_option_t){
        names[k], 0,
        "VALUE",  "the request field of the same name (docs/api.md)",
        -1,       NULL};
  table[BASE_OPTIONS + n] = help_option;
  table[BASE_OPTIONS + n + 1] = (cli_option_t){0};
  return table;
}

void srv_eval_synopsis(FILE *out, int indent) {
  cli_options_synopsis(out, "animd eval FILE... list", &(cli_option_t){0},
                       indent);
  cli_options_synopsis(out, "animd eval FILE...", eval_options(), 7);
}

static void usage(FILE *out) {
  fprintf(out, "usage:");
  srv_eval_synopsis(out, 1);
  fprintf(out,
          "\n"
          "Prints what the HTTP API answers for the same query, byte for "
          "byte:\n"
          "list as GET /v1/assets, a pose (--t) or range (--from --to --fps) "
          "as GET /v1/pose,\n"
          "--mesh as GET /v1/skin, --request as POST /v1/pose with that body "
          "(a file, or\nthe JSON itself), --retarget as POST /v1/retarget.\n"
          "FILE is recognized by its content (glTF binary or JSON, native "
          "JSON, BVH, MD5);\n"
          "--type CONTENT-TYPE forces a decoder. An md5anim takes the "
          "skeleton of the file\n"
          "before it (animd eval body.md5mesh walk.md5anim ...). Names "
          "work as in the API:\n"
          "a name several assets share must be given as an id.\n"
          "FILE may be ALIAS=PATH (ALIAS of A-Z a-z 0-9 _ -): every name of "
          "PATH becomes\n"
          "ALIAS/NAME, as an upload with ?prefix=ALIAS/, so two exports of "
          "one rig load\n"
          "together: animd eval prev=prev.glb new=new.glb --clip new/Walk "
          "--t 0.5\n"
          "(an argument that exists as a file is that file, '=' or not).\n"
          "\nOptions (--name VALUE or --name=VALUE):\n");
  cli_options_print(out, eval_options());
  fprintf(out, "Exit status: 0 done, 1 an error of the files or the query, 2 "
               "bad usage.\n");
}

/* A command line taken apart. */
typedef struct cli_args_s {
  const char *files[MAX_FILES];
  size_t file_count;
  bool list, help;
  const char *type;
  const char *request;  /* --request: a body file or the JSON itself. */
  const char *retarget; /* --retarget BODY|FILE, or NULL. */
  srv_kv_t params[MAX_OPTIONS];
  unsigned param_count;
} cli_args_t;

/* 0, or 2 after saying what is wrong. */
static int parse_args(int argc, char **argv, cli_args_t *a, FILE *err) {
  memset(a, 0, sizeof *a);
  const cli_option_t *opts = eval_options();
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const cli_option_t *o;
    const char *value;
    int r =
        cli_option_read(opts, argc, argv, &i, "animd eval", err, &o, &value);
    if (r < 0) return 2;
    if (r == 0 && strcmp(arg, "list") == 0) {
      a->list = true;
    } else if (r == 0) {
      if (a->file_count == MAX_FILES) {
        fprintf(err, "animd eval: at most %d files\n", MAX_FILES);
        return 2;
      }
      a->files[a->file_count++] = arg;
    } else if (strcmp(o->name, "help") == 0) {
      a->help = true;
    } else if (strcmp(o->name, "type") == 0) {
      a->type = value;
    } else if (strcmp(o->name, "request") == 0) {
      a->request = value;
    } else if (strcmp(o->name, "retarget") == 0) {
      a->retarget = value;
    } else if (a->param_count < MAX_OPTIONS) {
      a->params[a->param_count++] = (srv_kv_t){.name = o->name, .value = value};
    }
  }
  return 0;
}

/* ---- answers
 * ------------------------------------------------------------------ */

static int write_out(FILE *out, fmt_buf_t *b, FILE *err) {
  if (b->failed) return report(err, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "");
  if (fwrite(b->data, 1, b->len, out) != b->len)
    return report(err, SRV_ERR_IO_ERROR, NULL, "write: %s", strerror(errno));
  fmt_buf_reset(b);
  return 0;
}

static int print_list(store_t *st, FILE *out, FILE *err) {
  store_asset_t **assets;
  size_t count;
  if (store_list(st, &assets, &count) != 0)
    return report(err, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "");
  fmt_asset_summary_t *items = calloc(count ? count : 1, sizeof *items);
  fmt_buf_t b = FMT_BUF_INIT;
  if (items == NULL) b.failed = true;
  for (size_t i = 0; items != NULL && i < count; i++)
    store_asset_summary(assets[i], &items[i]);
  if (items != NULL) fmt_answer_assets(&b, items, count);
  fmt_buf_putc(&b, '\n');
  int rc = write_out(out, &b, err);
  fmt_buf_free(&b);
  free(items);
  store_list_free(assets, count);
  return rc;
}

/* Evaluates job once or over the range and prints every frame. */
static int print_frames(srv_eval_job_t *job, const srv_frame_names_t *names,
                        bool binary, const srv_range_query_t *range, double t,
                        FILE *out, FILE *err) {
  /* The answer's size, refused before any work as the daemon does with
   * its default max_answer_bytes (a range: per frame). */
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  srv_answer_shape_t shape = {
      .job = job, .binary = binary, .frames = 1, .range = range->is_range};
  srv_error_t e;
  if (srv_answer_check(&shape, cfg.max_answer_bytes,
                       job->mesh != NULL ? "mesh" : "joints", &e) != 0)
    return report(err, e.code, e.at, "%s", e.message);
  srv_eval_scratch_t scratch = {0};
  fmt_buf_t b = FMT_BUF_INIT;
  int rc = 0;
  uint32_t frames = range->is_range ? range->frames : 1;
  static uint32_t index[ANIM_EVENT_MAX];
  for (uint32_t i = 0; i < frames && rc == 0; i++) {
    job->t = range->is_range ? srv_range_query_time(range, i) : t;
    fmt_frame_events_t events = {0};
    if (range->is_range)
      events = srv_range_events(range, i, job->clip, job->wrap, index);
    anim_result r = srv_frame_answer_events(&b, job, names, binary,
                                            range->is_range ? (int64_t)i : -1,
                                            &events, &scratch);
    if (r != ANIM_OK)
      rc = r == ANIM_ERR_OUT_OF_MEMORY
               ? report(err, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "")
               : report(err, SRV_ERR_INTERNAL, NULL, "evaluation failed: %s",
                        anim_result_str(r));
    else if (b.len >= 65536 || i + 1 == frames)
      rc = write_out(out, &b, err);
  }
  fmt_buf_free(&b);
  srv_eval_scratch_free(&scratch);
  if (rc == 0 && fflush(out) != 0)
    rc = report(err, SRV_ERR_IO_ERROR, NULL, "write: %s", strerror(errno));
  return rc;
}

/* format=svg: the picture of the pose or range, as GET /v1/pose draws
 * it. */
static int print_picture(srv_eval_job_t *job, const srv_frame_names_t *names,
                         const srv_pose_query_t *q, const srv_target_t *t,
                         FILE *out, FILE *err) {
  srv_eval_scratch_t scratch = {0};
  fmt_buf_t b = FMT_BUF_INIT;
  job->t = q->t;
  verdict_pose_picture_t pic = {.job = job,
                                .names = names,
                                .range = &q->range,
                                .picture = q->picture,
                                .highlight = t->joints,
                                .highlight_count = t->joint_count};
  anim_result r = verdict_pose_svg(&b, &pic, &scratch);
  int rc = r == ANIM_OK ? write_out(out, &b, err)
           : r == ANIM_ERR_OUT_OF_MEMORY
               ? report(err, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "")
               : report(err, SRV_ERR_INTERNAL, NULL, "evaluation failed: %s",
                        anim_result_str(r));
  fmt_buf_free(&b);
  srv_eval_scratch_free(&scratch);
  if (rc == 0 && fflush(out) != 0)
    rc = report(err, SRV_ERR_IO_ERROR, NULL, "write: %s", strerror(errno));
  return rc;
}

/* What a query names (request/target.h), with the query's fields bound to
 * its skeleton; or -1 after reporting why, the fields freed. */
static int resolve(store_t *st, const srv_target_query_t *names,
                   srv_fields_t *fields, srv_target_t *t, FILE *err) {
  srv_error_t e;
  if (srv_target_resolve(st, names, t, &e, NULL) != 0) {
    srv_fields_free(fields);
    return report(err, e.code, e.at, "%s", e.message);
  }
  if (srv_fields_resolve(fields, t->skeleton->skeleton, NULL, &e) != 0) {
    srv_target_release(t);
    srv_fields_free(fields);
    return report(err, e.code, e.at, "%s", e.message);
  }
  return 0;
}

static int print_pose(store_t *st, const srv_query_t *query, FILE *out,
                      FILE *err) {
  srv_pose_query_t q;
  srv_error_t e;
  if (srv_pose_query_parse(query, &q, &e) != 0)
    return report(err, e.code, e.at, "%s", e.message);
  srv_target_query_t names = {
      .skeleton = q.skeleton, .clip = q.clip, .joints = {.csv = q.joints}};
  srv_target_t t;
  if (resolve(st, &names, &q.fields, &t, err) != 0) return -1;
  srv_eval_job_t job = {.skeleton = t.skeleton->skeleton,
                        .clip = t.clip ? t.clip->clip : NULL,
                        .wrap = q.wrap,
                        .space = q.space,
                        .joints = t.joints,
                        .joint_count = t.joint_count,
                        .fields = &q.fields};
  srv_frame_names_t names_out = srv_frame_names(t.skeleton, t.clip);
  int rc = q.picture.svg ? print_picture(&job, &names_out, &q, &t, out, err)
                         : print_frames(&job, &names_out, q.binary, &q.range,
                                        q.t, out, err);
  srv_target_release(&t);
  srv_fields_free(&q.fields);
  return rc;
}

static int print_skin(store_t *st, const srv_query_t *query, FILE *out,
                      FILE *err) {
  srv_skin_query_t q;
  srv_error_t e;
  if (srv_skin_query_parse(query, &q, &e) != 0)
    return report(err, e.code, e.at, "%s", e.message);
  srv_target_query_t names = {.clip = q.clip,
                              .mesh = q.mesh,
                              .need_normals = q.normals != ANIM_NORMALS_NONE};
  srv_target_t t;
  if (resolve(st, &names, &q.fields, &t, err) != 0) return -1;
  const store_asset_t *mesh = t.meshes[0];
  srv_eval_job_t job = {.skeleton = t.skeleton->skeleton,
                        .clip = t.clip ? t.clip->clip : NULL,
                        .wrap = q.wrap,
                        .mesh = mesh->mesh,
                        .method = q.method,
                        .normals = q.normals,
                        .fields = &q.fields};
  srv_frame_names_t names_out = srv_frame_names(mesh, t.clip);
  int rc = print_frames(&job, &names_out, q.binary, &q.range, q.t, out, err);
  srv_target_release(&t);
  srv_fields_free(&q.fields);
  return rc;
}

/* --request: a POST /v1/pose body, read from the file of that name or,
 * when no such file exists, the JSON text itself; parsed, looked up and
 * evaluated as the HTTP handler does (api/pose.c). */
static int print_request(store_t *st, const char *request, FILE *out,
                         FILE *err) {
  size_t len = 0;
  char *text = NULL;
  FILE *probe = fopen(request, "rb");
  if (probe != NULL) {
    fclose(probe);
    text = cli_read_file(request, &len, "animd eval", err);
    if (text == NULL) return -1;
  }
  srv_blend_body_t body;
  srv_blend_t blend = {0};
  srv_error_t e;
  int rc = srv_blend_body_parse(text != NULL ? text : request,
                                text != NULL ? len : strlen(request), NULL,
                                &body, &e);
  free(text);
  if (rc != 0) return report(err, e.code, e.at, "%s", e.message);
  if (srv_blend_resolve(st, &body, "", &blend, &e, NULL) != 0 ||
      srv_blend_masks(&blend, &body, "", &e) != 0) {
    rc = report(err, e.code, e.at, "%s", e.message);
  } else {
    srv_eval_job_t job = {.skeleton = blend.skeleton->skeleton,
                          .layers = blend.layers,
                          .layer_count = blend.layer_count,
                          .space = body.space,
                          .fields = &body.fields};
    srv_frame_names_t names = srv_frame_names(blend.skeleton, NULL);
    srv_pose_query_t picture = {.picture = body.picture};
    srv_target_t none = {0};
    srv_range_query_t one = {0};
    rc = body.picture.svg
             ? print_picture(&job, &names, &picture, &none, out, err)
             : print_frames(&job, &names, body.binary, &one, 0, out, err);
  }
  srv_blend_release(&blend);
  srv_blend_body_free(&body);
  return rc;
}

int srv_eval_main(int argc, char **argv, FILE *out, FILE *err) {
  cli_args_t a;
  if (parse_args(argc, argv, &a, err) != 0) return 2;
  if (a.help) {
    usage(out);
    return 0;
  }
  if (a.file_count == 0 ||
      (!a.list && a.param_count == 0 && a.request == NULL && !a.retarget) ||
      (a.request != NULL && (a.list || a.param_count > 0 || a.retarget))) {
    usage(err);
    return 2;
  }
  store_t *st = cli_store_open("animd eval", err);
  if (st == NULL) return 1;
  int rc = cli_files_load(st, (const char *const *)a.files, a.file_count,
                          a.type, "animd eval", err);
  if (rc == 0) {
    srv_config_t cfg;
    srv_config_defaults(&cfg);
    srv_query_t query = {.params = a.params,
                         .count = a.param_count,
                         .max_frames = cfg.max_frames,
                         .max_frames_svg = cfg.max_frames_svg};
    bool mesh = false;
    for (unsigned i = 0; i < a.param_count; i++)
      mesh |= strcmp(a.params[i].name, "mesh") == 0;
    rc = a.list              ? print_list(st, out, err)
         : a.request != NULL ? print_request(st, a.request, out, err)
         : a.retarget ? cli_retarget(st, a.retarget, cfg.max_frames, out, err)
         : mesh       ? print_skin(st, &query, out, err)
                      : print_pose(st, &query, out, err);
  }
  store_close(st);
  return rc == 0 ? 0 : 1;
}
