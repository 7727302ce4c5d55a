/* cli: the offline `animd eval` command: decodes asset files and prints
 * exactly what the HTTP API answers for the same query (the asset list, a
 * pose or a range of poses, skinned vertices). */
#ifndef ANIMD_CLI_EVAL_H
#define ANIMD_CLI_EVAL_H

#include <stdio.h>

/* argv[0] is "eval". Prints answers to out, errors and --help's absence to
 * err. Returns the process exit status: 0, 1 (the files or the query
 * failed) or 2 (bad usage). */
int srv_eval_main(int argc, char **argv, FILE *out, FILE *err);

/* The usage lines of `animd eval`, every option listed, the first line
 * indented by indent spaces, the others by 7 (`animd --help` shows them
 * too). */
void srv_eval_synopsis(FILE *out, int indent);

#endif
