/* cli: the asset files of an offline command in an in-memory store
 * (files.h). */
#include "cli/files.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/sniff.h"

int cli_report(FILE *err, const char *cmd, srv_error_code code, const char *at,
               const char *fmt, ...) {
  char msg[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(err, "%s: %s (%s%s%s)\n", cmd, msg[0] ? msg : srv_error_message(code),
          srv_error_name(code), at && at[0] ? " at " : "",
          at && at[0] ? at : "");
  return -1;
}

char *cli_read_file(const char *path, size_t *len, const char *cmd, FILE *err) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    cli_report(err, cmd, SRV_ERR_IO_ERROR, NULL, "%s: %s", path,
               strerror(errno));
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
  if (buf == NULL) cli_report(err, cmd, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "");
  *len = n;
  return buf;
}

/* ---- the store of the files -------------------------------------------------
 */

typedef struct log_target_s {
  const char *cmd;
  FILE *err;
} log_target_t;

static void log_line(void *user, const char *message) {
  const log_target_t *t = user;
  fprintf(t->err, "%s: %s\n", t->cmd, message);
}

store_t *cli_store_open(const char *cmd, FILE *err) {
  static _Thread_local log_target_t target;
  target = (log_target_t){.cmd = cmd, .err = err};
  store_t *st = NULL;
  fmt_error_t fe = {0};
  store_options_t opts = {.log = log_line, .log_user_data = &target};
  if (store_open(&opts, &st, &fe) != 0) {
    cli_report(err, cmd, SRV_ERR_INTERNAL, NULL, "store: %s", fe.message);
    return NULL;
  }
  return st;
}

/* A file argument: ALIAS=FILE when it has that form and is no file as
 * given; ALIAS of [A-Za-z0-9_-]+ becomes the prefix "ALIAS/" (into
 * prefix, cap bytes) and *path the FILE part. */
static void file_argument(const char *arg, const char **path, char *prefix,
                          size_t cap) {
  *path = arg;
  prefix[0] = '\0';
  size_t n = strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                         "0123456789_-");
  if (n == 0 || arg[n] != '=' || arg[n + 1] == '\0' || n + 2 > cap ||
      access(arg, F_OK) == 0)
    return;
  memcpy(prefix, arg, n);
  memcpy(prefix + n, "/", 2);
  *path = arg + n + 1;
}

int cli_files_load(store_t *st, const char *const *files, size_t count,
                   const char *type, const char *cmd, FILE *err) {
  store_asset_t *last_skeleton = NULL;
  int rc = 0;
  for (size_t i = 0; i < count && rc == 0; i++) {
    const char *path;
    char prefix[STORE_PREFIX_MAX + 1];
    file_argument(files[i], &path, prefix, sizeof prefix);
    store_names_t names = {.prefix = prefix[0] ? prefix : NULL};
    size_t len;
    char *body = cli_read_file(path, &len, cmd, err);
    if (body == NULL) {
      rc = -1;
      break;
    }
    const char *file_type = type ? type : fmt_sniff_type(body, len);
    fmt_error_t fe = {0};
    fmt_bundle_t bundle = {0};
    store_ingest_result_t res = {0};
    fmt_decode_options_t opts = {0};
    opts.skeleton = last_skeleton ? last_skeleton->skeleton : NULL;
    if (file_type == NULL) {
      rc = cli_report(err, cmd, SRV_ERR_UNSUPPORTED_MEDIA_TYPE, NULL,
                      "%s: not glTF, JSON, BVH or MD5 (give --type)", path);
    } else if (fmt_decode(file_type, body, len, &opts, &bundle, &fe) != 0) {
      rc = cli_report(err, cmd, SRV_ERR_BAD_INPUT, fe.at, "%s: %s", path,
                      fe.message);
    } else if (store_ingest_named(st, &bundle, last_skeleton, &names, &res,
                                  &fe) != 0) {
      bool clash = fe.code == FMT_ERR_NAME_CONFLICT;
      rc = cli_report(err, cmd,
                      clash ? SRV_ERR_NAME_CONFLICT : SRV_ERR_BAD_INPUT, fe.at,
                      "%s: %s%s", path, fe.message,
                      clash ? "; on the command line, give the files "
                              "aliases (prev=FILE new=FILE) to load them as "
                              "prev/NAME and new/NAME"
                            : "");
    } else {
      for (size_t k = 0; k < res.count; k++)
        if (res.entries[k].asset->kind == STORE_SKELETON) {
          store_asset_release(last_skeleton);
          last_skeleton = res.entries[k].asset;
          store_asset_retain(last_skeleton);
          break;
        }
      store_ingest_result_free(&res);
    }
    fmt_bundle_free(&bundle);
    free(body);
  }
  store_asset_release(last_skeleton);
  return rc;
}
