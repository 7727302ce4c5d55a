/* server/verdict: a suite's reports (report.h). */
#include "server/verdict/report.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[VERDICT_CASE_KIND_COUNT_] = {
    "pose", "compare", "check", "golden"};

static const char *const format_names[VERDICT_REPORT_FORMAT_COUNT_] = {
    "json", "junit", "tap", "html"};

static const char *const content_types[VERDICT_REPORT_FORMAT_COUNT_] = {
    "application/json", "application/xml", "text/plain; charset=utf-8",
    "text/html; charset=utf-8"};

const char *verdict_case_kind_name(verdict_case_kind kind) {
  return (unsigned)kind < VERDICT_CASE_KIND_COUNT_ ? kind_names[kind] : "";
}

int verdict_report_format_parse(const char *word, const char *at,
                                verdict_report_format *out, srv_error_t *err) {
  *out = VERDICT_REPORT_JSON;
  if (word == NULL) return 0;
  for (int f = 0; f < VERDICT_REPORT_FORMAT_COUNT_; f++)
    if (strcmp(word, format_names[f]) == 0) {
      *out = (verdict_report_format)f;
      return 0;
    }
  return srv_error_set(err, SRV_ERR_BAD_PARAMETER, at,
                       "%s is json, junit, tap or html", at);
}

const char *verdict_report_content_type(verdict_report_format f) {
  return (unsigned)f < VERDICT_REPORT_FORMAT_COUNT_ ? content_types[f]
                                                    : content_types[0];
}

void verdict_suite_result_free(verdict_suite_result_t *r) {
  for (size_t i = 0; i < r->case_count; i++) {
    fmt_buf_free(&r->cases[i].detail);
    fmt_buf_free(&r->cases[i].picture);
  }
  free(r->cases);
  memset(r, 0, sizeof *r);
}

/* ---- json ------------------------------------------------------------------
 */

static void write_json(fmt_buf_t *b, const verdict_suite_result_t *r) {
  fmt_buf_puts(b, "{\"name\":");
  fmt_buf_json_string(b, r->name);
  fmt_buf_printf(b, ",\"passed\":%zu,\"failed\":%zu,\"cases\":[", r->passed,
                 r->failed);
  for (size_t i = 0; i < r->case_count; i++) {
    const verdict_case_result_t *c = &r->cases[i];
    fmt_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
    fmt_buf_json_string(b, c->name);
    fmt_buf_puts(b, ",\"kind\":");
    fmt_buf_json_string(b, verdict_case_kind_name(c->kind));
    fmt_buf_puts(b, c->pass ? ",\"pass\":true" : ",\"pass\":false");
    if (!c->pass) {
      fmt_buf_puts(b, ",\"message\":");
      fmt_buf_json_string(b, c->message);
    }
    fmt_buf_puts(b, ",\"detail\":");
    if (c->detail.len > 0)
      fmt_buf_append(b, c->detail.data, c->detail.len);
    else
      fmt_buf_puts(b, "null");
    fmt_buf_putc(b, '}');
  }
  fmt_buf_puts(b, "]}\n");
}

/* ---- junit -----------------------------------------------------------------
 */

static void write_junit(fmt_buf_t *b, const verdict_suite_result_t *r) {
  fmt_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  for (int level = 0; level < 2; level++) {
    fmt_buf_puts(b, level ? "  <testsuite name=\"" : "<testsuites name=\"");
    fmt_buf_xml_text(b, r->name);
    fmt_buf_printf(b,
                   "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
                   "time=\"%.3f\">\n",
                   r->case_count, r->failed, r->seconds);
  }
  for (size_t i = 0; i < r->case_count; i++) {
    const verdict_case_result_t *c = &r->cases[i];
    fmt_buf_puts(b, "    <testcase name=\"");
    fmt_buf_xml_text(b, c->name);
    fmt_buf_puts(b, "\" classname=\"");
    fmt_buf_xml_text(b, r->name);
    fmt_buf_putc(b, '.');
    fmt_buf_puts(b, verdict_case_kind_name(c->kind));
    fmt_buf_printf(b, "\" time=\"%.3f\"", c->seconds);
    if (c->pass) {
      fmt_buf_puts(b, "/>\n");
      continue;
    }
    fmt_buf_puts(b, ">\n      <failure message=\"");
    fmt_buf_xml_text(b, c->message);
    fmt_buf_printf(b, "\" type=\"%s\">", verdict_case_kind_name(c->kind));
    fmt_buf_xml_text(b, c->message);
    fmt_buf_puts(b, "</failure>\n    </testcase>\n");
  }
  fmt_buf_puts(b, "  </testsuite>\n</testsuites>\n");
}

/* ---- tap -------------------------------------------------------------------
 */

/* A test line's description: one line, '#' escaped (it starts a
 * directive), as TAP 13 asks. */
static void tap_description(fmt_buf_t *b, const char *s) {
  for (; *s; s++) {
    if (*s == '#' || *s == '\\') fmt_buf_putc(b, '\\');
    fmt_buf_putc(b, *s == '\n' || *s == '\r' ? ' ' : *s);
  }
}

static void write_tap(fmt_buf_t *b, const verdict_suite_result_t *r) {
  fmt_buf_printf(b, "TAP version 13\n1..%zu\n", r->case_count);
  for (size_t i = 0; i < r->case_count; i++) {
    const verdict_case_result_t *c = &r->cases[i];
    fmt_buf_printf(b, "%s %zu - ", c->pass ? "ok" : "not ok", i + 1);
    tap_description(b, c->name);
    fmt_buf_putc(b, '\n');
    if (c->pass) continue;
    /* A JSON string is a YAML double-quoted scalar. */
    fmt_buf_printf(
        b, "  ---\n  kind: %s\n  message: ", verdict_case_kind_name(c->kind));
    fmt_buf_json_string(b, c->message);
    fmt_buf_puts(b, "\n  ...\n");
  }
  fmt_buf_puts(b, "# ");
  tap_description(b, r->name);
  fmt_buf_printf(b, ": %zu passed, %zu failed\n", r->passed, r->failed);
}

/* ---- html ------------------------------------------------------------------
 */

static const char html_style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
    ".pass td.verdict{color:#2a7d2a}.fail td.verdict{color:#c62828;"
    "font-weight:bold}"
    "section.case{border-top:1px solid #ccc;margin-top:1.5em}"
    "figure{margin:0}figure svg{border:1px solid #ddd;background:#fff}"
    "pre{background:#f6f6f6;padding:8px;overflow:auto;max-height:24em}";

static void write_html(fmt_buf_t *b, const verdict_suite_result_t *r) {
  fmt_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                  "<meta charset=\"utf-8\">\n<title>");
  fmt_buf_xml_text(b, r->name);
  fmt_buf_printf(b,
                 ": %zu passed, %zu failed</title>\n<style>%s</style>\n"
                 "</head>\n<body>\n<h1>",
                 r->passed, r->failed, html_style);
  fmt_buf_xml_text(b, r->name);
  fmt_buf_printf(b,
                 "</h1>\n<p class=\"summary\">%zu passed, %zu failed</p>\n"
                 "<table id=\"cases\">\n<thead><tr><th>#</th><th>case</th>"
                 "<th>kind</th><th>verdict</th><th>message</th></tr></thead>\n"
                 "<tbody>\n",
                 r->passed, r->failed);
  for (size_t i = 0; i < r->case_count; i++) {
    const verdict_case_result_t *c = &r->cases[i];
    fmt_buf_printf(b, "<tr class=\"%s\"><td>%zu</td><td>",
                   c->pass ? "pass" : "fail", i + 1);
    if (!c->pass) fmt_buf_printf(b, "<a href=\"#case-%zu\">", i + 1);
    fmt_buf_xml_text(b, c->name);
    if (!c->pass) fmt_buf_puts(b, "</a>");
    fmt_buf_printf(b, "</td><td>%s</td><td class=\"verdict\">%s</td><td>",
                   verdict_case_kind_name(c->kind), c->pass ? "pass" : "fail");
    fmt_buf_xml_text(b, c->message);
    fmt_buf_puts(b, "</td></tr>\n");
  }
  fmt_buf_puts(b, "</tbody>\n</table>\n");
  for (size_t i = 0; i < r->case_count; i++) {
    const verdict_case_result_t *c = &r->cases[i];
    if (c->pass) continue;
    fmt_buf_printf(b, "<section class=\"case\" id=\"case-%zu\">\n<h2>", i + 1);
    fmt_buf_xml_text(b, c->name);
    fmt_buf_puts(b, "</h2>\n<p>");
    fmt_buf_xml_text(b, c->message);
    fmt_buf_puts(b, "</p>\n");
    if (c->picture.len > 0) {
      fmt_buf_puts(b, "<figure>\n");
      fmt_buf_append(b, c->picture.data, c->picture.len);
      fmt_buf_puts(b, "\n<figcaption>");
      fmt_buf_xml_text(b, c->caption);
      fmt_buf_puts(b, "</figcaption>\n</figure>\n");
    }
    if (c->detail.len > 0) {
      fmt_buf_puts(b, "<details><summary>detail</summary><pre>");
      char *text = strndup(c->detail.data, c->detail.len);
      if (text == NULL) b->failed = true;
      fmt_buf_xml_text(b, text);
      free(text);
      fmt_buf_puts(b, "</pre></details>\n");
    }
    fmt_buf_puts(b, "</section>\n");
  }
  fmt_buf_puts(b, "</body>\n</html>\n");
}

void verdict_report_write(fmt_buf_t *b, verdict_report_format f,
                          const verdict_suite_result_t *r) {
  switch (f) {
  case VERDICT_REPORT_JUNIT: write_junit(b, r); break;
  case VERDICT_REPORT_TAP: write_tap(b, r); break;
  case VERDICT_REPORT_HTML: write_html(b, r); break;
  default: write_json(b, r); break;
  }
}
