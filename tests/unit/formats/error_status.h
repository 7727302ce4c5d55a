/* tests: the HTTP status the server gives an error kind of the formats and
 * store layers (srv_error_kind_status, server/requtil.c), so that tests of
 * those layers keep asserting the statuses clients see. */
#ifndef ANIMD_TESTS_ERROR_STATUS_H
#define ANIMD_TESTS_ERROR_STATUS_H

#include "formats/error.h"

int srv_error_kind_status(fmt_error_kind kind);

#endif
