/* Tests for ALIAS=FILE on the command line (cli/files.h, through `animd
 * eval`): two exports of one rig load side by side as prev/NAME and
 * new/NAME, a clip so named evaluates to the same numbers as the file
 * loaded alone, two exports without aliases are a name conflict that says
 * where, and an argument that exists as a file is that file, '=' or not. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/eval.h"

/* A one-joint rig "rig" with one clip "walk" moving by dx. */
static const char rig[] =
    "{\"skeleton\":{\"name\":\"rig\",\"joints\":[{\"name\":\"root\","
    "\"parent\":-1}]},\"clips\":[{\"name\":\"walk\",\"tracks\":[{\"joint\":"
    "\"root\",\"path\":\"translation\",\"times\":[0,1],"
    "\"values\":[0,0,0,%d,0,0]}]}]}";

static char dir[32];
static char prev[96], next[96];

static void write_rig(const char *path, int dx) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, rig, dx);
  fclose(f);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/animd-alias-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(prev, sizeof prev, "%s/prev.json", dir);
  snprintf(next, sizeof next, "%s/new.json", dir);
  write_rig(prev, 1);
  write_rig(next, 2);
}

static void teardown(void) {
  unlink(prev);
  unlink(next);
  rmdir(dir);
}

typedef struct run_s {
  int rc;
  char *out, *err;
  size_t out_len, err_len;
} run_t;

/* animd eval with the NULL-terminated arguments after "eval". */
static run_t eval(const char *const *args) {
  char *argv[16];
  int argc = 0;
  argv[argc++] = "eval";
  for (; *args != NULL; args++) argv[argc++] = (char *)*args;
  argv[argc] = NULL;
  run_t r = {0};
  FILE *out = open_memstream(&r.out, &r.out_len);
  FILE *err = open_memstream(&r.err, &r.err_len);
  r.rc = srv_eval_main(argc, argv, out, err);
  fclose(out);
  fclose(err);
  return r;
}

static void run_free(run_t *r) {
  free(r->out);
  free(r->err);
}

START_TEST(test_aliases_side_by_side) {
  char a1[128], a2[128];
  snprintf(a1, sizeof a1, "prev=%s", prev);
  snprintf(a2, sizeof a2, "new=%s", next);
  run_t r = eval((const char *[]){a1, a2, "list", NULL});
  ck_assert_msg(r.rc == 0, "%s", r.err);
  static const char *const names[] = {
      "\"name\":\"prev/rig\"", "\"name\":\"new/rig\"", "\"name\":\"prev/walk\"",
      "\"name\":\"new/walk\""};
  for (size_t i = 0; i < 4; i++)
    ck_assert_msg(strstr(r.out, names[i]) != NULL, "%s in %s", names[i], r.out);
  run_free(&r);
  /* new/walk is the numbers of new.json's walk. */
  run_t aliased =
      eval((const char *[]){a1, a2, "--clip", "new/walk", "--t", "0.5",
                            "--space", "local", "--format", "bin", NULL});
  run_t alone =
      eval((const char *[]){next, "--clip", "walk", "--t", "0.5", "--space",
                            "local", "--format", "bin", NULL});
  ck_assert_msg(aliased.rc == 0, "%s", aliased.err);
  ck_assert_int_eq(alone.rc, 0);
  ck_assert_uint_eq(aliased.out_len, alone.out_len);
  ck_assert_uint_gt(alone.out_len, 0);
  ck_assert_int_eq(memcmp(aliased.out, alone.out, alone.out_len), 0);
  run_free(&aliased);
  run_free(&alone);
}
END_TEST

START_TEST(test_without_aliases_a_conflict) {
  run_t r = eval((const char *[]){prev, next, "list", NULL});
  ck_assert_int_eq(r.rc, 1);
  ck_assert_msg(strstr(r.err, "(name_conflict at clips[0].name)\n") != NULL,
                "%s", r.err);
  ck_assert_msg(strstr(r.err, "prev=FILE new=FILE") != NULL, "%s", r.err);
  run_free(&r);
}
END_TEST

START_TEST(test_a_file_named_with_equals) {
  char cwd[PATH_MAX];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
  ck_assert_int_eq(chdir(dir), 0);
  write_rig("v=2.json", 3);
  /* It exists as given: loaded with its own names. */
  run_t r = eval((const char *[]){"v=2.json", "list", NULL});
  unlink("v=2.json");
  ck_assert_int_eq(chdir(cwd), 0);
  ck_assert_msg(r.rc == 0, "%s", r.err);
  ck_assert_ptr_nonnull(strstr(r.out, "\"name\":\"walk\""));
  ck_assert_ptr_null(strstr(r.out, "v/walk"));
  run_free(&r);
  /* An alias whose file is missing says which file. */
  r = eval((const char *[]){"v=/nonexistent/x.json", "list", NULL});
  ck_assert_int_eq(r.rc, 1);
  ck_assert_msg(strstr(r.err, "/nonexistent/x.json: ") != NULL, "%s", r.err);
  run_free(&r);
}
END_TEST

Suite *cli_files_alias_suite(void) {
  Suite *s = suite_create("cli_files_alias");
  TCase *tc = tcase_create("alias");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_aliases_side_by_side);
  tcase_add_test(tc, test_without_aliases_a_conflict);
  tcase_add_test(tc, test_a_file_named_with_equals);
  suite_add_tcase(s, tc);
  return s;
}
