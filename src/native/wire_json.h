/* wire_json.h - host side: the supervisor's record format (wire.h) to and from jansson, so the
 * host keeps working with json_t while the musl supervisor needs no JSON library. */
#ifndef ASB_NATIVE_WIRE_JSON_H
#define ASB_NATIVE_WIRE_JSON_H

#include "native/wire.h"

#include <jansson.h>

/* A checked message as a JSON object; NULL when malformed or out of memory. */
json_t *asb_wire_to_json(const void *msg, size_t len);
/* Encode a JSON object (values: null, bool, integer, real, string, array of strings, object)
 * into b; anything else fails the buffer. */
void asb_wire_from_json(asb_wire_buf_t *b, const json_t *obj);

#endif
