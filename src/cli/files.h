/* cli: what the offline commands (`animd eval`, `animd test`) share: the
 * asset files of a command line decoded into an in-memory store with the
 * upload decoders, files read whole, and errors printed as the API names
 * them. */
#ifndef ANIMD_CLI_FILES_H
#define ANIMD_CLI_FILES_H

#include <stddef.h>
#include <stdio.h>

#include "server/errors.h"
#include "store/store.h"

/* Prints "CMD: MESSAGE (CODE at AT)" to err (the code's own message when
 * fmt makes an empty one). Returns -1. */
int cli_report(FILE *err, const char *cmd, srv_error_code code, const char *at,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The whole file at path (malloc'd, *len bytes), or NULL after reporting
 * why. */
char *cli_read_file(const char *path, size_t *len, const char *cmd, FILE *err);

/* An empty in-memory store whose log lines go to err as "CMD: ...", or
 * NULL after reporting why. Close it with store_close. */
store_t *cli_store_open(const char *cmd, FILE *err);

/* Decodes and stores each file in order (recognized by content unless
 * type forces a decoder; an md5anim gets the skeleton of the file before
 * it). 0, or -1 after reporting why.
 *
 * A file argument ALIAS=FILE (ALIAS of A-Z a-z 0-9 _ -, at most 63 bytes)
 * loads FILE with every name qualified as ALIAS/NAME (the upload's
 * ?prefix=ALIAS/, store_names_t), so two exports of one rig load side by
 * side: prev=prev.glb new=new.glb, clips prev/Walk and new/Walk. An
 * argument that exists as a file is that file, '=' or not. */
int cli_files_load(store_t *st, const char *const *files, size_t count,
                   const char *type, const char *cmd, FILE *err);

#endif
