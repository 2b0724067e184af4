/* fuzz_wire.c - the supervisor's record decoder (native/wire.h) on arbitrary bytes: it never
 * reads out of bounds, what it accepts converts to JSON and back to an equal message, and what
 * it refuses converts to nothing. */
#include "native/wire.h"
#include "native/wire_json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void must(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_wire: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool ok = asb_wire_check(data, size) == 0;
    json_t *o = asb_wire_to_json(data, size);
    must(ok == (o != NULL), "check and the JSON conversion disagree");
    /* The getters the supervisor uses, on every key of the top level, whatever the verdict. */
    size_t off = 0;
    asb_wire_rec_t r;
    while (asb_wire_next(data, size, &off, &r) == 1) {
        char *s = NULL, **sv = NULL;
        if (asb_wire_rec_str(&r, &s) == 0)
            must(strlen(s) == r.vlen, "string length");
        free(s);
        if (asb_wire_rec_strv(&r, &sv, NULL) == 0)
            asb_wire_strv_free(sv);
    }
    if (o) {
        asb_wire_buf_t b = {0};
        asb_wire_from_json(&b, o);
        must(asb_wire_ok(&b), "an accepted message does not encode again");
        json_t *o2 = asb_wire_to_json(b.data, b.len);
        must(o2 && json_equal(o, o2), "round trip changed the message");
        json_decref(o2);
        asb_wire_free(&b);
    }
    json_decref(o);
    return 0;
}
