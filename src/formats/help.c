/* formats: one line of command-line help (help.h). */
#include "formats/help.h"

#include <stdbool.h>
#include <string.h>

#define HELP_WIDTH 79

void fmt_help_option(FILE *out, const char *flag, const char *arg,
                     const char *help, const char *def) {
  char left[128];
  snprintf(left, sizeof left, "  %s%s%s", flag, arg && arg[0] ? " " : "",
           arg ? arg : "");
  char text[1024];
  if (def != NULL)
    snprintf(text, sizeof text, "%s (default: %s)", help,
             def[0] != '\0' ? def : "\"\"");
  else
    snprintf(text, sizeof text, "%s", help);
  size_t col =
      strlen(left) + 2 > FMT_HELP_COLUMN ? strlen(left) + 2 : FMT_HELP_COLUMN;
  fprintf(out, "%-*s", (int)col, left);
  /* Words up to the width; a continuation line starts at FMT_HELP_COLUMN. */
  size_t at = col;
  const char *p = text;
  bool first = true;
  while (*p != '\0') {
    while (*p == ' ') p++;
    size_t n = strcspn(p, " ");
    if (n == 0) break;
    if (!first && at + 1 + n > HELP_WIDTH) {
      fprintf(out, "\n%*s", FMT_HELP_COLUMN, "");
      at = FMT_HELP_COLUMN;
      first = true;
    }
    fprintf(out, "%s%.*s", first ? "" : " ", (int)n, p);
    at += n + (first ? 0 : 1);
    first = false;
    p += n;
  }
  fputc('\n', out);
}
