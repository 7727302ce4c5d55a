/* server/web: the files the daemon serves to browsers: the JavaScript
 * client (/client/animd.js) and the viewer (/viewer, /viewer/viewer.js),
 * embedded in the binary (files.S), and three.js under /three/,
 * read from three_dir (npm's three, installed by make deps and make
 * install) so the binary carries no copy.
 * Loop thread only. */
#ifndef ANIMD_SERVER_WEB_STATIC_H
#define ANIMD_SERVER_WEB_STATIC_H

#include <stdbool.h>

#include "server/http/http.h"

/* Files under three_dir larger than this are not served. */
#define SRV_THREE_MAX_BYTES (16u * 1024 * 1024)

/* When req's path is one of these files (or under /three/), answers it
 * (200, 404, 405 with Allow, or the OPTIONS preflight) and returns true;
 * otherwise returns false and answers nothing. */
bool srv_web_static(srv_request_t *req);

#endif
