#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int asb_err(asb_error_t *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
        err->code = code < 0 ? code : -EINVAL;
    }
    return code < 0 ? code : -EINVAL;
}

int asb_err_sys(asb_error_t *err, int errno_value, const char *fmt, ...)
{
    int code = errno_value > 0 ? -errno_value : -EIO;
    if (err) {
        char what[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        snprintf(err->message, sizeof(err->message), "%s (%s)", what,
                 strerror(errno_value > 0 ? errno_value : EIO));
        err->code = code;
    }
    return code;
}

int asb_err_wrap(asb_error_t *err, const char *fmt, ...)
{
    if (!err)
        return -EIO;
    char prefix[512], old[sizeof(err->message)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof(old));
    snprintf(err->message, sizeof(err->message), "%s: %s", prefix, old);
    if (err->code == 0)
        err->code = -EIO;
    return err->code;
}

void asb_err_clear(asb_error_t *err)
{
    if (err) {
        err->code = 0;
        err->message[0] = '\0';
    }
}
