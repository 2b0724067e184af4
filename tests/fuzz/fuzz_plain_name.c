/* fuzz_plain_name.c - what the name and environment validators accept is safe to use as a
 * single path component / an environment entry, whatever the bytes. */
#include "core/plan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_TARGET "fuzz_plain_name"
#include "fuzz_must.h"

static void check_plain_name(const char *s)
{
    const char *why = NULL;
    if (!asb_valid_plain_name(s, &why)) {
        must(why != NULL && *why != '\0', "refusal without a reason");
        return;
    }
    size_t n = strlen(s);
    must(n >= 1 && n <= 255, "accepted length outside 1..255");
    must(strchr(s, '/') == NULL, "accepted a '/'");
    must(strcmp(s, ".") != 0 && strcmp(s, "..") != 0, "accepted . or ..");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        must(c >= 0x20 && c != 0x7f, "accepted a control character");
    }
}

static void check_env_entry(const char *s)
{
    const char *why = NULL;
    if (!asb_valid_env_entry(s, &why)) {
        must(why != NULL && *why != '\0', "refusal without a reason");
        return;
    }
    const char *eq = strchr(s, '=');
    must(eq != NULL && eq > s, "accepted an entry without KEY=");
    must(!(s[0] >= '0' && s[0] <= '9'), "accepted a key starting with a digit");
    for (const char *p = s; p < eq; p++) {
        char c = *p;
        must(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'),
             "accepted a key character outside [A-Za-z0-9_]");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The validators take C strings: an embedded NUL ends the name, as it would for open(2). */
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    check_plain_name(s);
    check_env_entry(s);
    free(s);
    return 0;
}
