/* json.h - JSON encoding of results and of arbitrary bytes (jansson underneath). */
#ifndef ASB_CORE_JSON_H
#define ASB_CORE_JSON_H

#include "agent_sandbox.h"
#include <jansson.h>

/* True when buf is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
bool asb_utf8_valid(const unsigned char *buf, size_t len);

/* A JSON string for any bytes: invalid UTF-8 sequences become U+FFFD, NUL stays as \u0000. */
json_t *asb_json_text(const unsigned char *buf, size_t len);

/* Standard base64 of buf as a JSON string. */
json_t *asb_json_base64(const unsigned char *buf, size_t len);

/* The result record as a JSON object (new reference), NULL on allocation failure. */
json_t *asb_result_json(const asb_result_t *res);

json_t *asb_limits_json(const asb_limits_t *l);

#endif
