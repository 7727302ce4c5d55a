/* formats: one line of command-line help, as `animd --help`, `animd eval
 * --help` and `animd test --help` print every option:
 *
 *   "  --name ARG   description (default: X)"
 *
 * two leading spaces, the option and its argument, two or more spaces, the
 * description (with its default when it has one) wrapped at 79 columns,
 * continuation lines indented to the description's column. A manual page
 * generator parses this format, so every option list prints through here. */
#ifndef ANIMD_FORMATS_HELP_H
#define ANIMD_FORMATS_HELP_H

#include <stdio.h>

/* The column descriptions start at. */
#define FMT_HELP_COLUMN 28

/* Prints one option: flag ("--max-body-size"), arg (NULL or "": none),
 * help, and def (NULL: no default shown; "": shown as ""). */
void fmt_help_option(FILE *out, const char *flag, const char *arg,
                     const char *help, const char *def);

#endif
