/* cli: `animd test SUITE.json [ASSET FILES...] [--format F] [-o FILE]`:
 * a test suite offline. The asset files are decoded into an in-memory
 * store as `animd eval` does (cli/files.h), the suite is parsed, resolved
 * and run by the daemon's own code (server/verdict/suite.h) and its
 * report printed by the same printer (server/verdict/report.h), so the
 * bytes are those POST /v1/test answers. A golden's "file" is read
 * relative to the suite's folder. */
#include "cli/test.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "cli/files.h"
#include "cli/options.h"
#include "server/config.h"
#include "server/verdict/report.h"
#include "server/verdict/suite.h"

#define CMD "animd test"
#define MAX_FILES 64

static const cli_option_t options[] = {
    {"format", 0, "F", "the report's format: json, junit, tap or html", -1,
     "json"},
    {"output", 'o', "FILE", "write the report to FILE", -1, "standard output"},
    {"help", 'h', NULL, "print this help", -1, NULL},
    {0},
};

void srv_test_synopsis(FILE *out, int indent) {
  cli_options_synopsis(out, "animd test SUITE.json [FILE...]", options, indent);
}

static void usage(FILE *out) {
  fprintf(out, "usage:");
  srv_test_synopsis(out, 1);
  fprintf(out, "\n"
               "Runs a test suite (the body of POST /v1/test) on the asset "
               "files, offline,\n"
               "and prints its report: the bytes POST /v1/test answers for the "
               "same suite\n"
               "and assets. FILE is recognized by its content as for animd "
               "eval (ALIAS=FILE\n"
               "qualifies its names as ALIAS/NAME); a golden case's \"file\" "
               "is relative to\n"
               "the suite's folder.\n"
               "\nOptions (--name VALUE or --name=VALUE):\n");
  cli_options_print(out, options);
  fprintf(out, "Exit status: 0 every case passed, 1 a case failed, 2 bad "
               "usage, a bad suite\n"
               "or asset file, or a name the files do not hold.\n");
}

typedef struct test_args_s {
  const char *suite;
  const char *files[MAX_FILES];
  size_t file_count;
  const char *format;
  const char *output;
  bool help;
} test_args_t;

/* 0, or 2 after saying what is wrong. */
static int parse_args(int argc, char **argv, test_args_t *a, FILE *err) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const cli_option_t *o;
    const char *value;
    int r = cli_option_read(options, argc, argv, &i, CMD, err, &o, &value);
    if (r < 0) return 2;
    if (r == 1 && strcmp(o->name, "help") == 0) {
      a->help = true;
    } else if (r == 1) {
      *(o->short_name == 'o' ? &a->output : &a->format) = value;
    } else if (a->suite == NULL) {
      a->suite = arg;
    } else if (a->file_count == MAX_FILES) {
      fprintf(err, CMD ": at most %d asset files\n", MAX_FILES);
      return 2;
    } else {
      a->files[a->file_count++] = arg;
    }
  }
  return 0;
}

/* The suite at path, parsed and resolved in st. 0, or -1 after reporting
 * why. */
static int load_suite(const char *path, store_t *st, verdict_suite_t *s,
                      FILE *err) {
  size_t len;
  char *text = cli_read_file(path, &len, CMD, err);
  if (text == NULL) return -1;
  char *copy = strdup(path);
  srv_config_t cfg;
  srv_config_defaults(&cfg);
  srv_error_t e;
  int rc = -1;
  if (copy == NULL)
    cli_report(err, CMD, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "");
  else if (verdict_suite_parse(text, len, dirname(copy), cfg.max_suite_cases, s,
                               &e) != 0)
    cli_report(err, CMD, e.code, e.at, "%s: %s", path,
               e.message[0] ? e.message : srv_error_message(e.code));
  else if (verdict_suite_resolve(st, s, &e, NULL) != 0) {
    cli_report(err, CMD, e.code, e.at, "%s", e.message);
    verdict_suite_free(s);
  } else
    rc = 0;
  free(copy);
  free(text);
  return rc;
}

/* Writes b to path (NULL: out). 0, or -1 after reporting why. */
static int write_report(const fmt_buf_t *b, const char *path, FILE *out,
                        FILE *err) {
  FILE *f = path ? fopen(path, "wb") : out;
  if (f == NULL)
    return cli_report(err, CMD, SRV_ERR_IO_ERROR, NULL, "%s: %s", path,
                      strerror(errno));
  bool ok = fwrite(b->data, 1, b->len, f) == b->len;
  ok &= (path ? fclose(f) : fflush(f)) == 0;
  if (!ok)
    return cli_report(err, CMD, SRV_ERR_IO_ERROR, NULL, "write %s: %s",
                      path ? path : "output", strerror(errno));
  return 0;
}

int srv_test_main(int argc, char **argv, FILE *out, FILE *err) {
  test_args_t a;
  if (parse_args(argc, argv, &a, err) != 0) return 2;
  if (a.help) {
    usage(out);
    return 0;
  }
  if (a.suite == NULL) {
    usage(err);
    return 2;
  }
  verdict_report_format format;
  srv_error_t e;
  if (verdict_report_format_parse(a.format, "--format", &format, &e) != 0) {
    cli_report(err, CMD, e.code, e.at, "%s", e.message);
    return 2;
  }
  store_t *st = cli_store_open(CMD, err);
  if (st == NULL) return 2;
  int status = 2;
  verdict_suite_t suite;
  if (cli_files_load(st, a.files, a.file_count, NULL, CMD, err) == 0 &&
      load_suite(a.suite, st, &suite, err) == 0) {
    srv_config_t cfg;
    srv_config_defaults(&cfg);
    verdict_suite_result_t r;
    fmt_buf_t b = FMT_BUF_INIT;
    if (verdict_suite_run(&suite, cfg.max_frames, format == VERDICT_REPORT_HTML,
                          &r) != 0) {
      cli_report(err, CMD, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "");
    } else {
      verdict_report_write(&b, format, &r);
      if (b.failed)
        cli_report(err, CMD, SRV_ERR_OUT_OF_MEMORY, NULL, "%s", "");
      else if (write_report(&b, a.output, out, err) == 0)
        status = r.failed > 0 ? 1 : 0;
      verdict_suite_result_free(&r);
    }
    fmt_buf_free(&b);
    verdict_suite_free(&suite);
  }
  store_close(st);
  return status;
}
