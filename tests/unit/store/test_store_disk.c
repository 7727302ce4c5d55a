/* Tests for store persistence: a missing data dir is created; every
 * ingested asset is a file named by its id whose SHA-256 (checked with the
 * system's sha256sum) is that id; reopening loads everything back with the
 * same encodings; temp, truncated and stray files are reported and skipped;
 * delete removes the file; a refused upload leaves no file; a FIFO named
 * like an asset is skipped unopened; an upload cut short by a crash is
 * all there after restart when it reached its commit list, else absent. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "store/internal.h"
#include "store/store.h"

typedef struct log_s {
  char text[4096];
} log_t;

static void capture(void *user, const char *message) {
  log_t *l = user;
  strncat(l->text, message, sizeof l->text - strlen(l->text) - 2);
  strcat(l->text, "\n");
}

static char *demo_text(size_t *len) {
  FILE *f = fopen("config/demo.json", "rb");
  ck_assert_msg(f != NULL, "config/demo.json (run from the repository root)");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)n);
  ck_assert_uint_eq(fread(data, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return data;
}

static store_t *open_dir(const char *dir, size_t max_bytes, log_t *log) {
  store_options_t o = {.data_dir = dir,
                       .max_bytes = max_bytes,
                       .log = capture,
                       .log_user_data = log};
  store_t *s = NULL;
  fmt_error_t err = {0};
  int rc = store_open(&o, &s, &err);
  ck_assert_msg(rc == 0, "open %s: %s", dir, err.message);
  return s;
}

static int upload_demo(store_t *s, store_ingest_result_t *res,
                       fmt_error_t *err) {
  size_t len;
  char *text = demo_text(&len);
  fmt_bundle_t b;
  int rc = fmt_decode_native_json(text, len, NULL, &b, err);
  free(text);
  if (rc != 0) return rc;
  return store_ingest(s, &b, NULL, res, err);
}

static size_t count_files(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

/* The describe text of every asset, concatenated in list order. */
static char *snapshot_text(store_t *s) {
  store_asset_t **list;
  size_t n;
  ck_assert_int_eq(store_list(s, &list, &n), 0);
  fmt_buf_t b = FMT_BUF_INIT;
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(store_asset_describe(list[i], &b), 0);
    fmt_buf_putc(&b, '\n');
  }
  store_list_free(list, n);
  fmt_buf_cstr(&b);
  return fmt_buf_steal(&b, NULL);
}

static void make_temp_dir(char *out, size_t size) {
  snprintf(out, size, "/tmp/animd-store-test-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(out));
}

static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return;
  struct dirent *e;
  char path[512];
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

START_TEST(test_persist_and_reload) {
  char root[128], dir[160];
  make_temp_dir(root, sizeof root);
  snprintf(dir, sizeof dir, "%s/data", root); /* Not there yet. */
  log_t log = {{0}};
  store_t *s = open_dir(dir, 0, &log);
  store_ingest_result_t r;
  fmt_error_t err = {0};
  ck_assert_int_eq(upload_demo(s, &r, &err), 0);
  ck_assert_uint_eq(count_files(dir), 4);
  /* The clip's file hashes to its id (the system's sha256sum). */
  char cmd[512], line[160];
  snprintf(cmd, sizeof cmd, "sha256sum %s/clip-%s.json", dir,
           r.entries[1].asset->id);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_nonnull(fgets(line, sizeof line, p));
  pclose(p);
  ck_assert_int_eq(memcmp(line, r.entries[1].asset->id, 64), 0);
  store_ingest_result_free(&r);
  char *before = snapshot_text(s);
  store_close(s);

  s = open_dir(dir, 0, &log);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.loaded, 4);
  ck_assert_uint_eq(st.skipped, 0);
  char *after = snapshot_text(s);
  ck_assert_str_eq(before, after);
  ck_assert_str_eq(log.text, "");
  /* Uploading again creates nothing and writes nothing new. */
  ck_assert_int_eq(upload_demo(s, &r, &err), 0);
  ck_assert(!r.any_created);
  store_ingest_result_free(&r);
  store_close(s);
  free(before);
  free(after);
  remove_dir(dir);
  rmdir(root);
}
END_TEST

START_TEST(test_partial_and_stray_files_skipped) {
  char dir[128];
  make_temp_dir(dir, sizeof dir);
  log_t log = {{0}};
  store_t *s = open_dir(dir, 0, &log);
  store_ingest_result_t r;
  fmt_error_t err = {0};
  ck_assert_int_eq(upload_demo(s, &r, &err), 0);
  char mesh_file[256], path[256];
  snprintf(mesh_file, sizeof mesh_file, "%s/mesh-%s.json", dir,
           r.entries[3].asset->id);
  store_ingest_result_free(&r);
  store_close(s);
  /* A crash mid-write: the mesh file cut in half, a temp file left over,
   * and a file that is no asset at all. */
  struct stat sb;
  ck_assert_int_eq(stat(mesh_file, &sb), 0);
  ck_assert_int_eq(truncate(mesh_file, sb.st_size / 2), 0);
  snprintf(path, sizeof path, "%s/.tmp-1-0-skeleton-%064d.json", dir, 0);
  FILE *f = fopen(path, "w");
  fputs("{\"skeleton\":{\"joi", f);
  fclose(f);
  snprintf(path, sizeof path, "%s/notes.txt", dir);
  f = fopen(path, "w");
  fputs("hello", f);
  fclose(f);

  s = open_dir(dir, 0, &log);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.loaded, 3);
  ck_assert_uint_eq(st.meshes, 0);
  ck_assert_uint_eq(st.skipped, 3);
  ck_assert_ptr_nonnull(strstr(log.text, "does not match its name"));
  ck_assert_ptr_nonnull(strstr(log.text, ".tmp-1-0-skeleton-"));
  ck_assert_ptr_nonnull(strstr(log.text, "notes.txt"));
  /* The temp file is gone; the damaged mesh file stays for inspection. */
  snprintf(path, sizeof path, "%s/.tmp-1-0-skeleton-%064d.json", dir, 0);
  ck_assert_int_eq(access(path, F_OK), -1);
  ck_assert_int_eq(access(mesh_file, F_OK), 0);
  store_close(s);
  remove_dir(dir);
}
END_TEST

START_TEST(test_delete_removes_file_and_limit_writes_nothing) {
  char dir[128];
  make_temp_dir(dir, sizeof dir);
  log_t log = {{0}};
  store_t *s = open_dir(dir, 4096, &log);
  store_ingest_result_t r;
  fmt_error_t err = {0};
  ck_assert_int_eq(upload_demo(s, &r, &err), -1);
  ck_assert_int_eq(fmt_error_status(err.code), 507);
  ck_assert_uint_eq(count_files(dir), 0);
  store_close(s);

  s = open_dir(dir, 0, &log);
  ck_assert_int_eq(upload_demo(s, &r, &err), 0);
  ck_assert_uint_eq(count_files(dir), 4);
  char id[65];
  memcpy(id, r.entries[3].asset->id, 65);
  store_ingest_result_free(&r);
  ck_assert_int_eq(store_delete(s, STORE_MESH, id, &err), 0);
  ck_assert_uint_eq(count_files(dir), 3);
  store_close(s);
  s = open_dir(dir, 0, &log);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.loaded, 3);
  ck_assert_uint_eq(st.meshes, 0);
  store_close(s);
  remove_dir(dir);
}
END_TEST

/* Item: a FIFO named like an asset hung start-up in open(2) for ever. */
START_TEST(test_fifo_is_skipped_unopened) {
  char dir[128], path[512];
  make_temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/clip-%064d.json", dir, 0);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  snprintf(path, sizeof path, "%s/skeleton-%064d.json", dir, 1);
  ck_assert_int_eq(mkdir(path, 0700), 0);
  log_t log = {{0}};
  store_t *s = open_dir(dir, 0, &log);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skipped, 2);
  ck_assert_uint_eq(st.loaded, 0);
  ck_assert_ptr_nonnull(strstr(log.text, "not a regular file"));
  store_close(s);
  rmdir(path);
  remove_dir(dir);
}
END_TEST

/* Item: files were renamed one by one, so a crash mid-upload left part of
 * it. Stopping the write as a crash would, before and after the commit
 * point, then restarting: nothing, or everything. */
START_TEST(test_multi_asset_upload_is_all_or_nothing) {
  static const int stops[2] = {STORE_STOP_BEFORE_COMMIT,
                               STORE_STOP_AFTER_COMMIT};
  for (int k = 0; k < 2; k++) {
    char dir[128];
    make_temp_dir(dir, sizeof dir);
    log_t log = {{0}};
    store_t *s = open_dir(dir, 0, &log);
    s->_stop_at = stops[k];
    store_ingest_result_t r;
    fmt_error_t err = {0};
    ck_assert_int_eq(upload_demo(s, &r, &err), -1);
    store_close(s);
    s = open_dir(dir, 0, &log);
    store_stats_t st;
    store_stats(s, &st);
    ck_assert_uint_eq(st.loaded, k == 0 ? 0 : 4);
    ck_assert_uint_eq(st.skeletons + st.clips + st.meshes, k == 0 ? 0 : 4);
    store_close(s);
    /* Only asset files are left: temp files and the list are gone. */
    ck_assert_uint_eq(count_files(dir), k == 0 ? 0 : 4);
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
      ck_assert_msg(strcmp(e->d_name, ".") == 0 ||
                        strcmp(e->d_name, "..") == 0 ||
                        (e->d_name[0] != '.' && strstr(e->d_name, ".json")),
                    "left over: %s", e->d_name);
    closedir(d);
    remove_dir(dir);
  }
}
END_TEST

/* A cascading delete is all or nothing across a crash: stopped before its
 * commit list is in place nothing is removed; stopped right after it, the
 * next start finishes the removal; run whole, every file goes. */
START_TEST(test_cascade_delete_is_all_or_nothing) {
  static const int stops[3] = {STORE_STOP_BEFORE_COMMIT,
                               STORE_STOP_AFTER_COMMIT, STORE_STOP_NONE};
  for (int k = 0; k < 3; k++) {
    char dir[128];
    make_temp_dir(dir, sizeof dir);
    log_t log = {{0}};
    store_t *s = open_dir(dir, 0, &log);
    store_ingest_result_t r;
    fmt_error_t err = {0};
    ck_assert_int_eq(upload_demo(s, &r, &err), 0);
    char id[FMT_ID_LEN + 1];
    memcpy(id, r.entries[0].asset->id, sizeof id);
    store_ingest_result_free(&r);
    s->_stop_at = stops[k];
    int rc = store_delete_cascade(s, id, NULL, NULL, &err);
    ck_assert_int_eq(rc, k == 0 ? -1 : 0);
    store_stats_t st;
    store_stats(s, &st);
    ck_assert_uint_eq(st.skeletons + st.clips + st.meshes, k == 0 ? 4 : 0);
    store_close(s);
    ck_assert_uint_eq(count_files(dir), k == 0 ? 4 : k == 1 ? 5 : 0);
    s = open_dir(dir, 0, &log);
    store_stats(s, &st);
    ck_assert_uint_eq(st.skeletons + st.clips + st.meshes, k == 0 ? 4 : 0);
    store_close(s);
    ck_assert_uint_eq(count_files(dir), k == 0 ? 4 : 0);
    remove_dir(dir);
  }
}
END_TEST

/* Item 10: the undo of a failed write freed the temp names before reading
 * them, so the kernel was asked to unlink freed bytes and a temp file
 * stayed behind. Every final name taken by a directory makes each rename
 * fail: the upload is refused and nothing of it stays, no temp file nor
 * commit list. */
START_TEST(test_failed_write_leaves_no_temp_file) {
  char first[128], dir[128], path[512];
  make_temp_dir(first, sizeof first);
  log_t log = {{0}};
  store_t *s = open_dir(first, 0, &log);
  store_ingest_result_t r;
  fmt_error_t err = {0};
  ck_assert_int_eq(upload_demo(s, &r, &err), 0);
  store_ingest_result_free(&r);
  store_close(s);
  make_temp_dir(dir, sizeof dir);
  s = open_dir(dir, 0, &log);
  DIR *d = opendir(first);
  struct dirent *e;
  size_t taken = 0;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    taken++;
  }
  closedir(d);
  ck_assert_uint_eq(taken, 4);
  ck_assert_int_eq(upload_demo(s, &r, &err), -1);
  ck_assert_int_eq(err.code, FMT_ERR_IO_ERROR);
  store_stats_t st;
  store_stats(s, &st);
  ck_assert_uint_eq(st.skeletons + st.clips + st.meshes, 0);
  store_close(s);
  d = opendir(dir);
  size_t entries = 0;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    ck_assert_msg(e->d_name[0] != '.' && strncmp(e->d_name, "commit-", 7) != 0,
                  "left over: %s", e->d_name);
    entries++;
  }
  closedir(d);
  ck_assert_uint_eq(entries, 4);
  d = opendir(first);
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    rmdir(path);
  }
  closedir(d);
  remove_dir(dir);
  remove_dir(first);
}
END_TEST

Suite *store_disk_suite(void) {
  Suite *s = suite_create("store_disk");
  TCase *tc = tcase_create("store_disk");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_persist_and_reload);
  tcase_add_test(tc, test_partial_and_stray_files_skipped);
  tcase_add_test(tc, test_delete_removes_file_and_limit_writes_nothing);
  tcase_add_test(tc, test_fifo_is_skipped_unopened);
  tcase_add_test(tc, test_multi_asset_upload_is_all_or_nothing);
  tcase_add_test(tc, test_cascade_delete_is_all_or_nothing);
  tcase_add_test(tc, test_failed_write_leaves_no_temp_file);
  suite_add_tcase(s, tc);
  return s;
}
