/* cli: the asset files of an offline command in an in-memory store
 * (files.h). */
#include "cli/files.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sniff.h"

int cli_report(FILE *err, const char *cmd, srv_error_code code, const char *at,
               const char *fmt, ...) {
  char msg[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(err, "%s: %s (%s%s%s)\n", cmd,
          msg[0] ? msg : srv_error_message(code), srv_error_name(code),
          at && at[0] ? " at " : "", at && at[0] ? at : "");
  return -1;
}

char *cli_read_file(const char *path, size_t *len, const char *cmd, FILE *err) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    cli_report(err, cmd, SRV_ERR_IO_ERROR, NULL, "%s: %s", path, strerror(errno));
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


int cli_files_load(store_t *st, const char *const *files, size_t count,
                   const char *type, const char *cmd, FILE *err) {
  store_asset_t *last_skeleton = NULL;
  int rc = 0;
  for (size_t i = 0; i < count && rc == 0; i++) {
    size_t len;
    char *body = cli_read_file(files[i], &len, cmd, err);
    if (body == NULL) {
      rc = -1;
      break;
    }
    const char *file_type = type ? type : cli_sniff_type(body, len);
    fmt_error_t fe = {0};
    fmt_bundle_t bundle = {0};
    store_ingest_result_t res = {0};
    fmt_decode_options_t opts = {0};
    opts.skeleton = last_skeleton ? last_skeleton->skeleton : NULL;
    if (file_type == NULL) {
      rc = cli_report(err, cmd, SRV_ERR_UNSUPPORTED_MEDIA_TYPE, NULL,
                  "%s: not glTF, JSON, BVH or MD5 (give --type)", files[i]);
    } else if (fmt_decode(file_type, body, len, &opts, &bundle, &fe) != 0) {
      rc = cli_report(err, cmd, SRV_ERR_BAD_INPUT, fe.at, "%s: %s", files[i],
                  fe.message);
    } else if (store_ingest(st, &bundle, last_skeleton, &res, &fe) != 0) {
      rc = cli_report(err, cmd, SRV_ERR_BAD_INPUT, fe.at, "%s: %s", files[i],
                  fe.message);
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

