/* cli: `animd eval --retarget` (retarget.h): the body parsed, its names
 * looked up, the plan made, the clip baked and stored in the command's
 * in-memory store, and the answer printed, step for step as the HTTP
 * route does. */
#include "cli/retarget.h"

#include <stdlib.h>
#include <string.h>

#include "cli/files.h"
#include "server/request/requests.h"
#include "server/request/retarget.h"
#include "server/request/target.h"

#define CMD "animd eval"

int cli_retarget(store_t *st, const char *arg, unsigned max_frames, FILE *out,
                 FILE *err) {
  const char *p = arg;
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
  char *file = NULL;
  size_t len = strlen(arg);
  if (*p != '{' && (file = cli_read_file(arg, &len, CMD, err)) == NULL)
    return -1;
  json_t *root = NULL;
  srv_error_t e;
  srv_retarget_body_t body;
  srv_retarget_plan_t plan = {0};
  store_asset_t *clip = NULL, *target = NULL;
  store_ingest_result_t result = {0};
  fmt_buf_t answer = FMT_BUF_INIT;
  int rc = -1;
  if (srv_json_body_parse(file ? file : arg, len, &root, &e) != 0) {
    free(file);
    return cli_report(err, CMD, e.code, e.at, "%s", e.message);
  }
  free(file);
  int parsed = srv_retarget_body_parse(root, &body, &e);
  json_decref(root);
  if (parsed != 0) return cli_report(err, CMD, e.code, e.at, "%s", e.message);
  if (srv_lookup(st, STORE_CLIP, "clip", body.clip, NULL, &clip, &e, NULL) !=
          0 ||
      srv_lookup(st, STORE_SKELETON, "to", body.to, NULL, &target, &e, NULL) !=
          0 ||
      srv_retarget_plan(&body, clip, target, max_frames, &plan, &e) != 0 ||
      srv_retarget_store(st, &plan, target, &result, &answer, &e) != 0) {
    cli_report(err, CMD, e.code, e.at, "%s", e.message);
    goto done;
  }
  store_ingest_result_free(&result);
  rc = 0;
  if (fwrite(answer.data, 1, answer.len, out) != answer.len || fflush(out) != 0)
    rc = cli_report(err, CMD, SRV_ERR_IO_ERROR, NULL, "%s", "write failed");
done:
  fmt_buf_free(&answer);
  srv_retarget_plan_free(&plan);
  srv_retarget_body_free(&body);
  store_asset_release(clip);
  store_asset_release(target);
  return rc;
}
