/* error.h - filling the caller's asb_error_t with "what (why)" and passing it up. */
#ifndef ASB_CORE_ERROR_H
#define ASB_CORE_ERROR_H

#include "agent_sandbox.h"

/* Set err to "<fmt...>" with code; returns code so callers can `return asb_err(...)`. */
int asb_err(asb_error_t *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Set err to "<fmt...> (<strerror(errno_value)>)" and return -errno_value. */
int asb_err_sys(asb_error_t *err, int errno_value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepend context: "<fmt...>: <previous message>". Returns err->code. */
int asb_err_wrap(asb_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void asb_err_clear(asb_error_t *err);

#endif
