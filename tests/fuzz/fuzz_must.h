/* fuzz_must.h - a fuzz target's property check: a broken promise aborts with its name. */
#ifndef ASB_FUZZ_MUST_H
#define ASB_FUZZ_MUST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_TARGET
#error "define FUZZ_TARGET (the target's name) before including fuzz_must.h"
#endif

static inline void must(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "%s: %s\n", FUZZ_TARGET, what);
        abort();
    }
}

#endif
