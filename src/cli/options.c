/* cli: the offline commands' option tables (options.h). */
#include "cli/options.h"

#include <string.h>

#include "formats/help.h"
#include "formats/suggest.h"
#include "formats/vocab.h"

/* The row of --name (n bytes) or -c, or NULL. */
static const cli_option_t *find(const cli_option_t *opts, const char *name,
                                size_t n, char short_name) {
  for (; opts->name != NULL; opts++)
    if (short_name != 0
            ? opts->short_name == short_name
            : strlen(opts->name) == n && strncmp(opts->name, name, n) == 0)
      return opts;
  return NULL;
}

static int unknown(const cli_option_t *opts, const char *arg, const char *cmd,
                   FILE *err) {
  char typed[FMT_SUGGEST_NAME_MAX + 1];
  const char *name = arg + strspn(arg, "-");
  snprintf(typed, sizeof typed, "%.*s", (int)strcspn(name, "="), name);
  fmt_suggest_t s;
  fmt_suggest_init(&s, typed, 0);
  for (const cli_option_t *o = opts; o->name != NULL; o++)
    fmt_suggest_offer(&s, o->name);
  const char *near = fmt_suggest_best(&s);
  fprintf(err, "%s: unknown option '%s' (%s --help lists them)%s%s%s\n", cmd,
          arg, cmd, near ? "; did you mean '--" : "", near ? near : "",
          near ? "'?" : "");
  return -1;
}

int cli_option_read(const cli_option_t *opts, int argc, char **argv, int *i,
                    const char *cmd, FILE *err, const cli_option_t **opt,
                    const char **value) {
  const char *arg = argv[*i];
  *opt = NULL;
  *value = NULL;
  if (arg[0] != '-' || arg[1] == '\0') return 0;
  const cli_option_t *o;
  const char *glued = NULL;
  if (arg[1] != '-') {
    o = arg[2] == '\0' ? find(opts, NULL, 0, arg[1]) : NULL;
  } else {
    const char *name = arg + 2;
    size_t n = strcspn(name, "=");
    if (name[n] == '=') glued = name + n + 1;
    o = n > 0 ? find(opts, name, n, 0) : NULL;
  }
  if (o == NULL) return unknown(opts, arg, cmd, err);
  if (o->arg == NULL && glued != NULL) {
    fprintf(err, "%s: --%s takes no value\n", cmd, o->name);
    return -1;
  }
  if (o->arg != NULL && glued == NULL) {
    if (*i + 1 >= argc) {
      fprintf(err, "%s: %s needs a value\n", cmd, arg);
      return -1;
    }
    glued = argv[++*i];
  }
  *opt = o;
  *value = glued;
  return 1;
}

void cli_options_print(FILE *out, const cli_option_t *opts) {
  for (const cli_option_t *o = opts; o->name != NULL; o++) {
    char flag[80], help[512];
    if (o->short_name != 0)
      snprintf(flag, sizeof flag, "-%c, --%s", o->short_name, o->name);
    else
      snprintf(flag, sizeof flag, "--%s", o->name);
    if (o->vocab >= 0) {
      char words[128];
      fmt_vocab_list((fmt_vocab)o->vocab, words, sizeof words);
      snprintf(help, sizeof help, "%s: %s", o->help, words);
    } else {
      snprintf(help, sizeof help, "%s", o->help);
    }
    fmt_help_option(out, flag, o->arg, help, o->def);
  }
}

void cli_options_synopsis(FILE *out, const char *head, const cli_option_t *opts,
                          int indent) {
  int at = fprintf(out, "%*s%s", indent, "", head);
  for (const cli_option_t *o = opts; o->name != NULL; o++) {
    if (strcmp(o->name, "help") == 0) continue;
    char item[96];
    int n = snprintf(item, sizeof item, "[--%s%s%s]", o->name,
                     o->arg ? " " : "", o->arg ? o->arg : "");
    if (at + 1 + n > 79) {
      fprintf(out, "\n%*s", indent + 2 + (int)strcspn(head, " "), "");
      at = indent + 2 + (int)strcspn(head, " ");
    } else {
      fputc(' ', out);
      at++;
    }
    fputs(item, out);
    at += n;
  }
  fputc('\n', out);
}
