/* formats: every error code of animd, one row each (the X-macro list
 * FMT_ERROR_CODES). A row is
 *
 *   X(ID, "wire_string", HTTP status, WebSocket kind, "default message")
 *
 * ID names the code in C (FMT_ERR_<ID>, and SRV_ERR_<ID> in the server);
 * the wire string is what clients read in {"error":{"code"}}; the status is
 * the one HTTP answers carry (one per code, no other map); the WebSocket
 * kind (fmt_error_ws in formats/error.h, FMT_<kind>) says how the code
 * reaches a WebSocket client, if at all: WS_NONE (HTTP only), WS_MESSAGE
 * (an error message on the open socket), WS_HANDSHAKE (the upgrade is
 * refused with the HTTP answer). docs/api.md's error table lists every row
 * (scripts/check-error-docs), and no file under src/ spells a wire string
 * but this one (scripts/check-error-codes).
 *
 * Two pairs of near synonyms are both kept, each pinned by the API:
 * wrong_type (HTTP bodies, native JSON) and bad_type (WebSocket messages,
 * glTF); skeleton_mismatch (HTTP) and mismatch (WebSocket, and the core's
 * ANIM_ERR_MISMATCH in an upload). */
#ifndef ANIMD_FORMATS_ERROR_CODES_H
#define ANIMD_FORMATS_ERROR_CODES_H

/* clang-format off */
#define FMT_ERROR_CODES(X)                                                    \
  /* 400: the request, its query or its body. */                             \
  X(BAD_REQUEST, "bad_request", 400, WS_NONE, "bad request")                  \
  X(BAD_HTTP, "bad_http", 400, WS_NONE, "malformed HTTP request")             \
  X(BAD_HEADER, "bad_header", 400, WS_NONE,                                   \
    "a header name that is not a token, or a folded header")                  \
  X(TRUNCATED_REQUEST, "truncated_request", 400, WS_NONE,                     \
    "the request ended early")                                                \
  X(TOO_MANY_PARAMETERS, "too_many_parameters", 400, WS_NONE,                 \
    "too many query parameters")                                              \
  X(MISSING_PARAMETER, "missing_parameter", 400, WS_MESSAGE,                  \
    "a query parameter is required")                                          \
  X(BAD_PARAMETER, "bad_parameter", 400, WS_MESSAGE,                          \
    "a query parameter is malformed")                                         \
  X(UNKNOWN_PARAMETER, "unknown_parameter", 400, WS_MESSAGE,                  \
    "this endpoint takes no such parameter")                                  \
  X(TOO_MANY_FRAMES, "too_many_frames", 400, WS_MESSAGE,                      \
    "the range has more than max_frames")                                     \
  X(EMPTY_BODY, "empty_body", 400, WS_NONE, "the body is empty")              \
  X(BAD_JSON, "bad_json", 400, WS_MESSAGE, "the body is not JSON")            \
  X(WRONG_TYPE, "wrong_type", 400, WS_MESSAGE, "a field has the wrong type")  \
  X(MISSING_FIELD, "missing_field", 400, WS_MESSAGE, "a field is required")   \
  X(UNKNOWN_FIELD, "unknown_field", 400, WS_MESSAGE, "unknown field")         \
  X(BAD_VALUE, "bad_value", 400, WS_MESSAGE, "a value is out of range")       \
  X(VALUE_COUNT, "value_count", 400, WS_MESSAGE, "wrong number of values")    \
  X(NOT_FINITE, "not_finite", 400, WS_MESSAGE, "numbers must be finite")      \
  X(UNKNOWN_JOINT, "unknown_joint", 400, WS_MESSAGE,                          \
    "not a joint name of the skeleton")                                       \
  X(SKELETON_MISMATCH, "skeleton_mismatch", 400, WS_MESSAGE,                     \
    "the clip was built for another skeleton")                                \
  X(NO_NORMALS, "no_normals", 400, WS_MESSAGE, "the mesh has no normals")        \
  X(BAD_BLEND, "bad_blend", 400, WS_NONE, "blending failed")                  \
  X(BAD_INPUT, "bad_input", 400, WS_NONE, "solving failed")                   \
  X(BAD_HANDSHAKE, "bad_handshake", 400, WS_HANDSHAKE,                        \
    "bad WebSocket handshake")                                                \
  X(UPGRADE_REQUIRED, "upgrade_required", 400, WS_HANDSHAKE,                  \
    "this endpoint speaks WebSocket")                                         \
  /* 400: an upload's content (native JSON, glTF, BVH, MD5). */              \
  X(EMPTY_UPLOAD, "empty_upload", 400, WS_NONE,                               \
    "the upload holds no asset")                                              \
  X(NUMBER_RANGE, "number_range", 400, WS_NONE,                               \
    "a number is out of its range")                                           \
  X(INDEX_RANGE, "index_range", 400, WS_NONE, "an index is out of range")     \
  X(JOINT_RANGE, "joint_range", 400, WS_NONE,                                 \
    "a joint index that the skeleton does not have")                          \
  X(PARENT_RANGE, "parent_range", 400, WS_NONE,                               \
    "a parent index outside the skeleton")                                    \
  X(CYCLE, "cycle", 400, WS_NONE, "the parent links form a cycle")            \
  X(NAME_EMPTY, "name_empty", 400, WS_NONE, "a joint without a name")         \
  X(NAME_DUPLICATE, "name_duplicate", 400, WS_NONE,                           \
    "two joints with the same name")                                          \
  X(DUPLICATE_NAME, "duplicate_name", 400, WS_NONE,                           \
    "two items of the file with the same name")                               \
  X(DUPLICATE_JOINT, "duplicate_joint", 400, WS_NONE,                         \
    "a node used twice as a joint")                                           \
  X(CONFLICTING_PARENTS, "conflicting_parents", 400, WS_NONE,                 \
    "a node with two parents")                                                \
  X(NO_KEYS, "no_keys", 400, WS_NONE, "a track with no keys")                 \
  X(TIME_NEGATIVE, "time_negative", 400, WS_NONE, "a key time below zero")    \
  X(TIMES_ORDER, "times_order", 400, WS_NONE,                                 \
    "key times are not strictly increasing")                                  \
  X(BEZIER_RANGE, "bezier_range", 400, WS_NONE,                               \
    "a Bezier control value outside [0, 1]")                                  \
  X(DUPLICATE_TRACK, "duplicate_track", 400, WS_NONE,                         \
    "two tracks animate the same joint and path")                             \
  X(WEIGHT, "weight", 400, WS_NONE,                                           \
    "vertex weights negative or summing to zero")                             \
  X(BAD_WEIGHT, "bad_weight", 400, WS_NONE, "a bad vertex weight")            \
  X(WEIGHT_RANGE, "weight_range", 400, WS_NONE,                               \
    "a vertex's weights outside the mesh's list")                             \
  X(INFLUENCES, "influences", 400, WS_NONE,                                   \
    "a vertex with no influence or more than 8")                              \
  X(SINGULAR, "singular", 400, WS_NONE, "a matrix that cannot be inverted")   \
  X(ZERO_QUATERNION, "zero_quaternion", 400, WS_NONE,                         \
    "a rotation of zero length")                                              \
  X(INVALID_ARGUMENT, "invalid_argument", 400, WS_NONE,                       \
    "the asset could not be built")                                           \
  X(BUFFER_TOO_SMALL, "buffer_too_small", 400, WS_NONE,                       \
    "the asset could not be built")                                           \
  X(UNKNOWN_SKELETON, "unknown_skeleton", 400, WS_NONE,                       \
    "no skeleton of the upload has this name")                                \
  X(SKELETON_AMBIGUOUS, "skeleton_ambiguous", 400, WS_NONE,                   \
    "the upload has several skeletons: name one")                             \
  X(SEVERAL_STORED_SKELETONS, "several_stored_skeletons", 400, WS_NONE,       \
    "several stored skeletons could be meant: name one")                      \
  X(SKELETON_REQUIRED, "skeleton_required", 400, WS_NONE,                     \
    "an animation needs ?skeleton=")                                          \
  X(BAD_MAGIC, "bad_magic", 400, WS_NONE, "not a binary glTF file")           \
  X(BAD_CHUNK, "bad_chunk", 400, WS_NONE, "a malformed binary glTF chunk")    \
  X(CHUNK_LENGTH, "chunk_length", 400, WS_NONE,                               \
    "a binary glTF chunk length that does not fit")                           \
  X(LENGTH_MISMATCH, "length_mismatch", 400, WS_NONE,                         \
    "the binary glTF header's length is not the file's")                      \
  X(TRUNCATED, "truncated", 400, WS_NONE, "the file ends early")              \
  X(UNSUPPORTED_GLTF_VERSION, "unsupported_gltf_version", 400, WS_NONE,       \
    "only glTF 2.0 is read")                                                  \
  X(UNSUPPORTED_EXTENSION, "unsupported_extension", 400, WS_NONE,             \
    "a required glTF extension is not supported")                             \
  X(MISSING, "missing", 400, WS_NONE, "a required glTF property is absent")   \
  X(BAD_TYPE, "bad_type", 400, WS_NONE, "a field has the wrong type")      \
  X(OUT_OF_BOUNDS, "out_of_bounds", 400, WS_NONE,                             \
    "an accessor or view reaches past its buffer")                            \
  X(BUFFER_LENGTH, "buffer_length", 400, WS_NONE,                             \
    "a buffer is shorter than its byteLength")                                \
  X(BAD_URI, "bad_uri", 400, WS_NONE, "a malformed data URI")                 \
  X(EXTERNAL_URI, "external_uri", 400, WS_NONE,                               \
    "a URI that is not a data URI (upload a .glb)")                           \
  X(BAD_BASE64, "bad_base64", 400, WS_NONE, "malformed base64 data")          \
  X(BAD_STRIDE, "bad_stride", 400, WS_NONE, "a bad byteStride")               \
  X(BAD_COMPONENT_TYPE, "bad_component_type", 400, WS_NONE,                   \
    "an accessor of a component type that is not taken here")                 \
  X(COUNT_MISMATCH, "count_mismatch", 400, WS_NONE,                           \
    "accessors that should have the same count differ")                       \
  X(BAD_INTERPOLATION, "bad_interpolation", 400, WS_NONE,                     \
    "an unknown interpolation")                                               \
  X(BAD_PATH, "bad_path", 400, WS_NONE, "an unknown animation path")          \
  X(BAD_MATRIX, "bad_matrix", 400, WS_NONE,                                   \
    "a node matrix that is not a rotation, translation and scale")            \
  X(EMPTY, "empty", 400, WS_NONE, "the file has nothing animd can use")       \
  X(BVH_SYNTAX, "bvh_syntax", 400, WS_NONE, "malformed BVH")                  \
  X(MD5_SYNTAX, "md5_syntax", 400, WS_NONE, "malformed MD5")                  \
  X(BAD_NUMBER, "bad_number", 400, WS_NONE, "a malformed number")             \
  X(BAD_NAME, "bad_name", 400, WS_NONE, "a malformed name")                   \
  X(BAD_CHANNELS, "bad_channels", 400, WS_NONE, "a bad CHANNELS line")        \
  X(BAD_FRAMES, "bad_frames", 400, WS_NONE, "a bad frame count")              \
  X(BAD_FRAME_TIME, "bad_frame_time", 400, WS_NONE, "a bad frame time")       \
  X(JOINT_NOT_FOUND, "joint_not_found", 400, WS_NONE,                         \
    "a joint the skeleton does not have")                                     \
  /* WebSocket control messages. */                                          \
  X(BAD_MESSAGE, "bad_message", 400, WS_MESSAGE, "a message is an object")    \
  X(UNKNOWN_OP, "unknown_op", 400, WS_MESSAGE, "unknown op")                  \
  X(MISMATCH, "mismatch", 400, WS_NONE,                                    \
    "the clip was built for another skeleton")                                \
  X(UNKNOWN_STREAM, "unknown_stream", 404, WS_MESSAGE,                        \
    "no stream with this id")                                                 \
  X(STREAM_EXISTS, "stream_exists", 409, WS_MESSAGE,                          \
    "a stream with this id is playing")                                       \
  X(TOO_MANY_STREAMS, "too_many_streams", 429, WS_MESSAGE,                    \
    "too many streams on this connection")                                    \
  /* Other 4xx. */                                                           \
  X(UNAUTHORIZED, "unauthorized", 401, WS_HANDSHAKE,                          \
    "a bearer token is required")                                             \
  X(FORBIDDEN, "forbidden", 403, WS_HANDSHAKE,                                \
    "the token does not allow this")                                          \
  X(ORIGIN_NOT_ALLOWED, "origin_not_allowed", 403, WS_HANDSHAKE,              \
    "pages from this origin may not use this server (see allowed_origins)")   \
  X(NOT_FOUND, "not_found", 404, WS_MESSAGE, "not found")                     \
  X(METHOD_NOT_ALLOWED, "method_not_allowed", 405, WS_HANDSHAKE,              \
    "method not allowed")                                                     \
  X(TIMEOUT, "timeout", 408, WS_NONE, "the request took too long")            \
  X(CONFLICT, "conflict", 409, WS_NONE, "the asset is in use")                \
  X(NAME_CONFLICT, "name_conflict", 409, WS_NONE,                             \
    "another asset has this name")                                            \
  X(SKELETON_DELETED, "skeleton_deleted", 409, WS_NONE,                       \
    "the upload's skeleton was deleted meanwhile")                            \
  X(AMBIGUOUS, "ambiguous", 409, WS_MESSAGE,                                     \
    "several assets have this name: use an id")                               \
  X(BODY_TOO_LARGE, "body_too_large", 413, WS_NONE,                           \
    "the body is larger than max_body_size")                                  \
  X(TOO_LARGE, "too_large", 413, WS_MESSAGE,                                  \
    "too many values")                                                        \
  X(TOO_COMPLEX, "too_complex", 413, WS_NONE,                                 \
    "the file is beyond what animd decodes")                                  \
  X(TOO_MANY_JOINTS, "too_many_joints", 413, WS_NONE, "too many joints")      \
  X(TOO_MANY_KEYS, "too_many_keys", 413, WS_NONE, "too many keys")            \
  X(TOO_MANY_MESHES, "too_many_meshes", 413, WS_NONE, "too many meshes")      \
  X(TOO_MANY_VERTICES, "too_many_vertices", 413, WS_NONE,                     \
    "too many vertices")                                                      \
  X(MISDIRECTED_REQUEST, "misdirected_request", 421, WS_HANDSHAKE,          \
    "the Host is not a name of this server (see allowed_hosts)")              \
  X(UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", 415, WS_NONE,           \
    "unsupported Content-Type")                                               \
  X(EXPECTATION_FAILED, "expectation_failed", 417, WS_NONE,                   \
    "only 100-continue is supported")                                         \
  X(TESTS_FAILED, "tests_failed", 422, WS_NONE,                               \
    "a case of the test suite failed (the body is the report)")               \
  X(UNSUPPORTED_VERSION, "unsupported_version", 426, WS_HANDSHAKE,            \
    "only WebSocket version 13")                                              \
  X(RATE_LIMITED, "rate_limited", 429, WS_HANDSHAKE,                          \
    "too many requests from this address")                                    \
  X(HEADER_TOO_LARGE, "header_too_large", 431, WS_NONE,                       \
    "the headers are too large")                                              \
  X(TOO_MANY_HEADERS, "too_many_headers", 431, WS_NONE, "too many headers")   \
  /* 5xx. */                                                                 \
  X(INTERNAL, "internal", 500, WS_MESSAGE, "internal error")                  \
  X(OUT_OF_MEMORY, "out_of_memory", 500, WS_MESSAGE, "out of memory")         \
  X(IO_ERROR, "io_error", 500, WS_NONE, "input/output error")                 \
  X(NOT_IMPLEMENTED, "not_implemented", 501, WS_NONE, "not implemented")      \
  X(OVERLOADED, "overloaded", 503, WS_MESSAGE, "the server is overloaded")    \
  X(SHUTTING_DOWN, "shutting_down", 503, WS_HANDSHAKE,                        \
    "the server is shutting down")                                            \
  X(TOO_MANY_CONNECTIONS, "too_many_connections", 503, WS_NONE,               \
    "too many connections")                                                   \
  X(STORE_UNAVAILABLE, "store_unavailable", 503, WS_MESSAGE,                  \
    "the shared store cannot be reached; retry later")                        \
  X(HTTP_VERSION, "http_version", 505, WS_NONE,                               \
    "HTTP other than 1.0 and 1.1")                                            \
  X(INSUFFICIENT_STORAGE, "insufficient_storage", 507, WS_NONE,               \
    "the store is full")
/* clang-format on */

#endif
