/* The Check runner: every suite of tests/unit (listed at build time in
 * suites.inc) in one SRunner, so a run ends with one Check summary line.
 *
 * Check's own environment variables pick a subset: CK_RUN_SUITE=name,
 * CK_RUN_CASE=name. Each test runs in its own forked process. A verbose
 * log of every test goes to $ANIMD_BUILD/unit.log when ANIMD_BUILD is set. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define ANIMD_SUITE(name) Suite *name(void);
#include "suites.inc"
#undef ANIMD_SUITE

int main(void) {
  SRunner *sr = srunner_create(NULL);
#define ANIMD_SUITE(name) srunner_add_suite(sr, name());
#include "suites.inc"
#undef ANIMD_SUITE

  char log_path[4096];
  const char *build = getenv("ANIMD_BUILD");
  if (build != NULL) {
    snprintf(log_path, sizeof log_path, "%s/unit.log", build);
    srunner_set_log(sr, log_path);
  }
  srunner_run_all(sr, CK_SILENT);

  /* Failures first, then the summary, so the output ends with it. */
  TestResult **failures = srunner_failures(sr);
  int n = srunner_ntests_failed(sr);
  for (int i = 0; i < n; i++) {
    TestResult *tr = failures[i];
    fprintf(stdout, "%s:%d: %s: %s: %s\n", tr_lfile(tr), tr_lno(tr),
            tr_tcname(tr), tr_rtype(tr) == CK_ERROR ? "error" : "failure",
            tr_msg(tr));
  }
  free(failures);
  fflush(stdout);
  srunner_print(sr, CK_MINIMAL);
  srunner_free(sr);
  return n == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
