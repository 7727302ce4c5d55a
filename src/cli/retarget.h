/* cli: `animd eval FILE... --retarget BODY`: POST /v1/retarget offline,
 * through the same request path (server/request/retarget.h), so the
 * answer and the errors are the HTTP API's. */
#ifndef ANIMD_CLI_RETARGET_H
#define ANIMD_CLI_RETARGET_H

#include <stdio.h>

#include "store/store.h"

/* Runs the retarget body arg (JSON text starting with '{', or the path of
 * a file holding it) against the assets of st and prints the answer to
 * out. 0, or -1 after reporting the error to err as the API names it. */
int cli_retarget(store_t *st, const char *arg, unsigned max_frames, FILE *out,
                 FILE *err);

#endif
