/* fuzz_json_text.c - any bytes a workload writes must become a JSON string that survives a
 * dump/parse round trip: asb_json_text (lossy for invalid UTF-8, exact otherwise) and
 * asb_json_base64 (exact). */
#include "core/json.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_TARGET "fuzz_json_text"
#include "fuzz_must.h"

/* Dump s as a JSON document, parse it back, and require the same string. */
static void round_trip(const json_t *s)
{
    char *doc = json_dumps(s, JSON_ENCODE_ANY);
    must(doc != NULL, "json_dumps failed");
    must(asb_utf8_valid((const unsigned char *)doc, strlen(doc)), "dump is not UTF-8");
    json_error_t e;
    json_t *back = json_loads(doc, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    must(back != NULL, "dump does not parse as JSON");
    must(json_is_string(back), "dump parses to a non-string");
    must(json_equal(s, back), "round trip changed the string");
    json_decref(back);
    free(doc);
}

static void check_text(const uint8_t *data, size_t size)
{
    json_t *t = asb_json_text(data, size);
    must(t != NULL && json_is_string(t), "asb_json_text gave no string");
    const char *v = json_string_value(t);
    size_t n = json_string_length(t);
    must(asb_utf8_valid((const unsigned char *)v, n), "text is not UTF-8");
    if (asb_utf8_valid(data, size))
        must(n == size && memcmp(v, data, size) == 0, "valid UTF-8 was altered");
    else
        must(n <= 3 * size, "text grew beyond one U+FFFD per byte");
    round_trip(t);
    json_decref(t);
}

static void check_base64(const uint8_t *data, size_t size)
{
    json_t *b = asb_json_base64(data, size);
    must(b != NULL && json_is_string(b), "asb_json_base64 gave no string");
    const char *v = json_string_value(b);
    size_t n = json_string_length(b);
    must(n == 4 * ((size + 2) / 3), "base64 length");
    if (n > 0) {
        unsigned char *dec = malloc(n / 4 * 3);
        must(dec != NULL, "malloc");
        int got = EVP_DecodeBlock(dec, (const unsigned char *)v, (int)n);
        must(got == (int)(n / 4 * 3), "base64 does not decode");
        size_t pad = (v[n - 1] == '=') + (v[n - 2] == '=');
        must((size_t)got - pad == size && memcmp(dec, data, size) == 0, "base64 not exact");
        free(dec);
    }
    round_trip(b);
    json_decref(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_text(data, size);
    check_base64(data, size);
    return 0;
}
