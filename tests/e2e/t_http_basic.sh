#!/usr/bin/env bash
# HTTP basics against the real daemon: health, info, metrics, 404, 405 with
# Allow, HEAD, the 501 of an unbuilt upgrade, and a clean SIGTERM exit.
source "$(dirname "$0")/lib.sh"
animd_start

http GET /healthz
expect_status 200
[ "$(jq_py 'j["status"]' "$HTTP_BODY")" = ok ] || die "healthz body"

http GET /v1/info
expect_status 200
[ "$(jq_py 'j["version"]' "$HTTP_BODY")" = "$("$ANIMD_BIN" --version | cut -d' ' -f2)" ] ||
  die "info version"
[ "$(jq_py 'j["limits"]["max_frames"]' "$HTTP_BODY")" = 100000 ] || die "max_frames"
[ "$(jq_py 'j["limits"]["max_header_size"]' "$HTTP_BODY")" = 16384 ] || die "header limit"

http GET /nope
expect_error 404 not_found null

http PUT /healthz
expect_error 405 method_not_allowed null
[ "$(http_header Allow)" = "GET, HEAD" ] || die "Allow: $(http_header Allow)"

http DELETE /v1/pose
expect_status 405
[ "$(http_header Allow)" = "GET, HEAD, POST" ] || die "Allow on /v1/pose"

# HEAD: same headers as GET, no body.
http HEAD /healthz -I
expect_status 200
[ "$(http_header Content-Length)" = 16 ] || die "HEAD Content-Length"

http GET /v1/stream
expect_error 400 upgrade_required Upgrade

http GET /metrics
expect_status 200
grep -q '^animd_requests_total{route="healthz",status="200"} 2$' "$HTTP_BODY" ||
  die "metrics: healthz count"
grep -q '^animd_requests_total{route="none",status="404"} 1$' "$HTTP_BODY" ||
  die "metrics: 404 count"
grep -q '^animd_open_connections 1$' "$HTTP_BODY" || die "metrics: connections"
grep -q '^animd_pool_threads 2$' "$HTTP_BODY" || die "metrics: pool threads"
grep -q '^animd_request_duration_seconds_count{route="healthz"} 3$' "$HTTP_BODY" ||
  die "metrics: histogram"

# One access log line per request.
n=$(grep -c '"GET /healthz HTTP/1.1" 200' "$ANIMD_LOG")
[ "$n" = 1 ] || die "access log lines for /healthz: $n"

animd_stop || die "exit status $? after SIGTERM"
grep -q "stopped" "$ANIMD_LOG" || die "no clean stop"
echo ok
