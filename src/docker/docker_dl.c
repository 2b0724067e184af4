/* docker_dl.c - load libcurl and libarchive for the docker backend (see docker_dl.h). */
#include "docker/docker_dl.h"

#include "core/error.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The sonames the build linked against (Debian: libcurl4, libarchive13). */
#define CURL_SONAME "libcurl.so.4"
#define ARCHIVE_SONAME "libarchive.so.13"

typedef struct sym {
    const char *name;
    size_t offset;
    int lib; /* 0 curl, 1 archive */
} sym_t;

#define C(f)                                                                                       \
    {                                                                                              \
#f, offsetof(asb_dl_t, f), 0                                                               \
    }
#define A(f)                                                                                       \
    {                                                                                              \
#f, offsetof(asb_dl_t, f), 1                                                               \
    }
static const sym_t SYMS[] = {
    C(curl_easy_init),
    C(curl_easy_setopt),
    C(curl_easy_perform),
    C(curl_easy_cleanup),
    C(curl_easy_reset),
    C(curl_easy_getinfo),
    C(curl_easy_strerror),
    C(curl_easy_recv),
    C(curl_easy_send),
    C(curl_slist_append),
    C(curl_slist_free_all),
    A(archive_write_new),
    A(archive_write_set_format_pax_restricted),
    A(archive_write_set_bytes_in_last_block),
    A(archive_write_open),
    A(archive_write_header),
    A(archive_write_data),
    A(archive_write_close),
    A(archive_write_free),
    A(archive_error_string),
    A(archive_entry_new),
    A(archive_entry_free),
    A(archive_entry_clear),
    A(archive_entry_set_pathname),
    A(archive_entry_set_filetype),
    A(archive_entry_set_perm),
    A(archive_entry_set_size),
};
#undef C
#undef A

/* Every slot has exactly the type of the function the headers declare (no reference to the
 * function itself: nothing is linked). */
#define SAME_TYPE(f)                                                                               \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&f), __typeof__(((asb_dl_t *)0)->f)),   \
                   #f " has another type in asb_dl_t")
SAME_TYPE(curl_easy_init);
SAME_TYPE(curl_easy_setopt);
SAME_TYPE(curl_easy_perform);
SAME_TYPE(curl_easy_cleanup);
SAME_TYPE(curl_easy_reset);
SAME_TYPE(curl_easy_getinfo);
SAME_TYPE(curl_easy_strerror);
SAME_TYPE(curl_easy_recv);
SAME_TYPE(curl_easy_send);
SAME_TYPE(curl_slist_append);
SAME_TYPE(curl_slist_free_all);
SAME_TYPE(archive_write_new);
SAME_TYPE(archive_write_set_format_pax_restricted);
SAME_TYPE(archive_write_set_bytes_in_last_block);
SAME_TYPE(archive_write_open);
SAME_TYPE(archive_write_header);
SAME_TYPE(archive_write_data);
SAME_TYPE(archive_write_close);
SAME_TYPE(archive_write_free);
SAME_TYPE(archive_error_string);
SAME_TYPE(archive_entry_new);
SAME_TYPE(archive_entry_free);
SAME_TYPE(archive_entry_clear);
SAME_TYPE(archive_entry_set_pathname);
SAME_TYPE(archive_entry_set_filetype);
SAME_TYPE(archive_entry_set_perm);
SAME_TYPE(archive_entry_set_size);

/* Every function pointer of the table has its row in SYMS: none can stay NULL. */
_Static_assert(sizeof(SYMS) / sizeof(SYMS[0]) ==
                   (sizeof(asb_dl_t) - offsetof(asb_dl_t, curl_easy_init)) / sizeof(void (*)(void)),
               "asb_dl_t and SYMS list different functions");

int asb_dl_open(asb_dl_t *dl, asb_error_t *err)
{
    memset(dl, 0, sizeof(*dl));
    const char *names[2] = {CURL_SONAME, ARCHIVE_SONAME};
    void **handles[2] = {&dl->curl_so, &dl->archive_so};
    for (int i = 0; i < 2; i++) {
        *handles[i] = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!*handles[i]) {
            const char *why = dlerror();
            int rc = asb_err(err, -ENOENT, "docker backend: cannot load %s (%s)", names[i],
                             why ? why : "unknown reason");
            asb_dl_close(dl);
            return rc;
        }
    }
    for (size_t i = 0; i < sizeof(SYMS) / sizeof(SYMS[0]); i++) {
        void *f = dlsym(SYMS[i].lib ? dl->archive_so : dl->curl_so, SYMS[i].name);
        if (!f) {
            int rc = asb_err(err, -ENOENT, "docker backend: %s has no %s",
                             SYMS[i].lib ? ARCHIVE_SONAME : CURL_SONAME, SYMS[i].name);
            asb_dl_close(dl);
            return rc;
        }
        /* A function pointer stored through its slot in the table (POSIX: dlsym's result is
         * usable as a function pointer). */
        memcpy((char *)dl + SYMS[i].offset, &f, sizeof(f));
    }
    return 0;
}

void asb_dl_close(asb_dl_t *dl)
{
    if (dl->curl_so)
        dlclose(dl->curl_so);
    if (dl->archive_so)
        dlclose(dl->archive_so);
    memset(dl, 0, sizeof(*dl));
}

la_ssize_t asb_dl_membuf_write(struct archive *a, void *buf, const void *data, size_t n)
{
    (void)a;
    asb_dl_membuf_t *m = buf;
    if (m->len + n > m->cap) {
        size_t nc = m->cap ? m->cap : 65536;
        while (nc < m->len + n)
            nc *= 2;
        unsigned char *nd = realloc(m->data, nc);
        if (!nd)
            return -1;
        m->data = nd;
        m->cap = nc;
    }
    memcpy(m->data + m->len, data, n);
    m->len += n;
    return (la_ssize_t)n;
}
