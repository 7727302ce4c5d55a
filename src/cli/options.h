/* cli: the option tables of the offline commands (`animd eval`, `animd
 * test`): reading --name VALUE and --name=VALUE alike, an unknown option
 * refused with the nearest one (formats/suggest.h), and the help and
 * usage lines printed from the same table (formats/help.h). */
#ifndef ANIMD_CLI_OPTIONS_H
#define ANIMD_CLI_OPTIONS_H

#include <stdio.h>

/* One option of a command. */
typedef struct cli_option_s {
  const char *name; /* "clip": --clip */
  char short_name;  /* 'o': -o too; 0 for none */
  const char *arg;  /* "C"; NULL: the option takes no value */
  const char *help;
  int vocab;       /* A word table (formats/vocab.h) listed in the help; -1
                      for none. */
  const char *def; /* The default shown; NULL for none. */
} cli_option_t;

/* Reads argv[*i] against opts (ended by a row with a NULL name). 1: an
 * option, *opt its row and *value its value (from "--name=VALUE" or the
 * next argument, *i moved past it; NULL for an option without one); 0:
 * not an option (a file or a word; "-" alone is not an option); -1 after
 * printing to err why not: "CMD: unknown option '--spcae' (CMD --help
 * lists them); did you mean '--space'?", a missing value, a value given
 * to an option that takes none. */
int cli_option_read(const cli_option_t *opts, int argc, char **argv, int *i,
                    const char *cmd, FILE *err, const cli_option_t **opt,
                    const char **value);

/* Every option's help line, with its default (formats/help.h). */
void cli_options_print(FILE *out, const cli_option_t *opts);

/* A usage line: head ("animd eval FILE...") and [--name ARG] for every
 * option but --help, wrapped at 79 columns under indent spaces. */
void cli_options_synopsis(FILE *out, const char *head, const cli_option_t *opts,
                          int indent);

#endif
