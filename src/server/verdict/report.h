/* server/verdict: a test suite's results and the reports printed from
 * them: json (the default), junit (JUnit XML as Jenkins, GitLab and GitHub
 * read it), tap (TAP version 13) and html (one self-contained page with
 * a picture of each failing pose, compare or golden case).
 *
 * Key design choice: a report is printed from the results alone (names,
 * verdicts, one-line messages, detail objects, timings and pictures made
 * by the run), so POST /v1/test and `animd test` print the same bytes,
 * and a report's exact text can be tested on results built by hand. The
 * only measured figures are JUnit's time attributes. Any thread. */
#ifndef ANIMD_SERVER_VERDICT_REPORT_H
#define ANIMD_SERVER_VERDICT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/buf.h"
#include "server/errors.h"

typedef enum verdict_case_kind {
  VERDICT_CASE_POSE = 0, /* "pose" + "expect" */
  VERDICT_CASE_COMPARE,
  VERDICT_CASE_CHECK,
  VERDICT_CASE_GOLDEN,
  VERDICT_CASE_KIND_COUNT_
} verdict_case_kind;

/* "pose", "compare", "check", "golden". */
const char *verdict_case_kind_name(verdict_case_kind kind);

typedef struct verdict_case_result_s {
  const char *name; /* Borrowed (from the suite). */
  verdict_case_kind kind;
  bool pass;
  char message[512]; /* One line, on failure; "" when passing. */
  fmt_buf_t detail;  /* A JSON object: the compare or check answer, the
                        expectations' results, or an error body. */
  double seconds;    /* Measured: only JUnit prints it. */
  fmt_buf_t picture; /* An <svg> element (html reports), or empty. */
  char caption[256]; /* What the picture shows. */
} verdict_case_result_t;

typedef struct verdict_suite_result_s {
  const char *name; /* Borrowed (from the suite). */
  verdict_case_result_t *cases;
  size_t case_count;
  size_t passed, failed;
  double seconds;
} verdict_suite_result_t;

void verdict_suite_result_free(verdict_suite_result_t *r);

typedef enum verdict_report_format {
  VERDICT_REPORT_JSON = 0,
  VERDICT_REPORT_JUNIT,
  VERDICT_REPORT_TAP,
  VERDICT_REPORT_HTML,
  VERDICT_REPORT_FORMAT_COUNT_
} verdict_report_format;

/* The format named word (NULL: json). 0, or -1 with bad_parameter at
 * `at` listing the words. */
int verdict_report_format_parse(const char *word, const char *at,
                                verdict_report_format *out, srv_error_t *err);
/* "application/json", "application/xml", "text/plain; charset=utf-8",
 * "text/html; charset=utf-8". */
const char *verdict_report_content_type(verdict_report_format f);

/* The report of r in format f, ending with a newline. */
void verdict_report_write(fmt_buf_t *b, verdict_report_format f,
                          const verdict_suite_result_t *r);

#endif
