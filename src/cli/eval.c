/* server: `animd eval FILE --clip NAME --t T [--space S] [--format F]
 * [--wrap W] [--type CONTENT-TYPE]`: decodes FILE with the upload
 * decoders into an in-memory store and prints the body GET /v1/pose would
 * answer for that clip, byte for byte (same ids, same evaluation, same
 * encoder), for headless checks without a server. */
#include "cli/eval.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "formats/vocab.h"
#include "server/api/frame_answer.h"
#include "server/errors.h"
#include "store/store.h"

static const char *type_from_name(const char *path) {
  const char *dot = strrchr(path, '.');
  if (dot == NULL) return "application/json";
  if (strcasecmp(dot, ".glb") == 0) return "model/gltf-binary";
  if (strcasecmp(dot, ".gltf") == 0) return "model/gltf+json";
  if (strcasecmp(dot, ".bvh") == 0) return "application/x-bvh";
  if (strcasecmp(dot, ".md5mesh") == 0) return "application/x-md5mesh";
  return "application/json";
}

/* Prints an error as the API names it: "animd eval: MESSAGE (CODE at AT)". */
static int report(FILE *err, srv_error_code code, const char *at,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int report(FILE *err, srv_error_code code, const char *at,
                  const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(err, "animd eval: %s (%s%s%s)\n",
          msg[0] ? msg : srv_error_message(code), srv_error_name(code),
          at && at[0] ? " at " : "", at && at[0] ? at : "");
  return -1;
}

static char *read_file(const char *path, size_t *len, FILE *err) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    report(err, SRV_ERR_IO_ERROR, NULL, "%s: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf != NULL) {
    size_t r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (n < cap) break;
    char *nb = realloc(buf, cap * 2);
    if (nb == NULL) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  fclose(f);
  if (buf == NULL) report(err, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "");
  *len = n;
  return buf;
}

static void usage(FILE *err) {
  char space[64], format[64], wrap[64];
  fmt_vocab_list(FMT_VOCAB_SPACE, space, sizeof space);
  fmt_vocab_list(FMT_VOCAB_FORMAT, format, sizeof format);
  fmt_vocab_list(FMT_VOCAB_WRAP, wrap, sizeof wrap);
  fprintf(err,
          "usage: animd eval FILE --clip NAME --t T [--space S] [--format F] "
          "[--wrap W] [--type CONTENT-TYPE]\n  S: %s\n  F: %s\n  W: %s\n",
          space, format, wrap);
}

/* The value of an option naming a word of vocab (def when absent), or -1
 * after saying why. */
static int word(FILE *err, const char *option, fmt_vocab vocab,
                const char *text, int def) {
  if (text == NULL) return def;
  int v = fmt_vocab_parse(vocab, text);
  if (v < 0) {
    char list[64];
    fmt_vocab_list(vocab, list, sizeof list);
    report(err, SRV_ERR_BAD_PARAMETER, option, "%s must be %s", option,
           list);
  }
  return v;
}

static void quiet_log(void *user, const char *message) {
  fprintf((FILE *)user, "animd eval: %s\n", message);
}

int srv_eval_main(int argc, char **argv, FILE *out, FILE *err) {
  const char *file = NULL, *clip_name = NULL, *t_text = NULL;
  const char *space_text = NULL, *format_text = NULL, *wrap_text = NULL;
  const char *type = NULL;
  for (int i = 1; i < argc; i++) {
    const char **dst = NULL;
    if (!strcmp(argv[i], "--clip")) dst = &clip_name;
    else if (!strcmp(argv[i], "--t")) dst = &t_text;
    else if (!strcmp(argv[i], "--space")) dst = &space_text;
    else if (!strcmp(argv[i], "--format")) dst = &format_text;
    else if (!strcmp(argv[i], "--wrap")) dst = &wrap_text;
    else if (!strcmp(argv[i], "--type")) dst = &type;
    else if (argv[i][0] != '-' && file == NULL) {
      file = argv[i];
      continue;
    } else {
      fprintf(err, "animd eval: unknown argument '%s'\n", argv[i]);
      return 2;
    }
    if (i + 1 >= argc) {
      fprintf(err, "animd eval: %s needs a value\n", argv[i]);
      return 2;
    }
    *dst = argv[++i];
  }
  if (file == NULL || clip_name == NULL || t_text == NULL) {
    usage(err);
    return 2;
  }
  char *end;
  double t = strtod(t_text, &end);
  if (*t_text == '\0' || *end != '\0' || !isfinite(t)) {
    report(err, SRV_ERR_BAD_PARAMETER, "--t", "--t must be a finite number");
    return 2;
  }
  int space = word(err, "--space", FMT_VOCAB_SPACE, space_text,
                   FMT_SPACE_MODEL);
  int wrap = word(err, "--wrap", FMT_VOCAB_WRAP, wrap_text, ANIM_WRAP_CLAMP);
  int format = word(err, "--format", FMT_VOCAB_FORMAT, format_text,
                    FMT_FORMAT_JSON);
  if (space < 0 || wrap < 0 || format < 0) return 2;
  bool binary = format == FMT_FORMAT_BIN;

  size_t len;
  char *body = read_file(file, &len, err);
  if (body == NULL) return 1;
  int status = 1;
  store_t *st = NULL;
  fmt_error_t fe = {0};
  fmt_bundle_t bundle = {0};
  store_ingest_result_t res = {0};
  bool ingested = false;
  store_asset_t *clip = NULL;
  fmt_buf_t b = FMT_BUF_INIT;
  store_options_t opts = {.log = quiet_log, .log_user_data = err};
  if (store_open(&opts, &st, &fe) != 0) {
    fprintf(err, "animd eval: store: %s\n", fe.message);
    goto done;
  }
  if (fmt_decode(type ? type : type_from_name(file), body, len, NULL,
                 &bundle, &fe) != 0) {
    fprintf(err, "animd eval: %s: %s (at %s)\n", file, fe.message, fe.at);
    goto done;
  }
  if (store_ingest(st, &bundle, NULL, &res, &fe) != 0) {
    fprintf(err, "animd eval: %s\n", fe.message);
    goto done;
  }
  ingested = true;
  clip = store_lookup(st, STORE_CLIP, clip_name, NULL);
  if (clip == NULL) {
    report(err, SRV_ERR_NOT_FOUND, "--clip", "no clip '%s' in %s",
           clip_name, file);
    goto done;
  }
  srv_eval_scratch_t scratch = {0};
  srv_eval_job_t job = {.skeleton = clip->skeleton_asset->skeleton,
                        .clip = clip->clip,
                        .t = (float)t,
                        .wrap = (anim_wrap)wrap,
                        .space = (fmt_space)space};
  srv_frame_names_t names = {clip->skeleton_asset->id, clip->id};
  anim_result r = srv_frame_answer(&b, &job, &names, binary, -1, &scratch);
  srv_eval_scratch_free(&scratch);
  if (r != ANIM_OK || b.failed) {
    if (r == ANIM_ERR_OUT_OF_MEMORY || b.failed)
      report(err, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "");
    else
      report(err, SRV_ERR_INTERNAL, NULL, "evaluation failed: %s",
             anim_result_str(r));
    goto done;
  }
  if (fwrite(b.data, 1, b.len, out) != b.len || fflush(out) != 0) {
    report(err, SRV_ERR_IO_ERROR, NULL, "write: %s", strerror(errno));
    goto done;
  }
  status = 0;

done:
  fmt_buf_free(&b);
  store_asset_release(clip);
  if (ingested) store_ingest_result_free(&res);
  fmt_bundle_free(&bundle);
  if (st) store_close(st);
  free(body);
  return status;
}
