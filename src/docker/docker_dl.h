/* docker_dl.h - libcurl and libarchive, loaded only when the docker backend is used.
 *
 * Linked normally, their dependency trees (GnuTLS, Kerberos, LDAP, ICU, libstdc++: 45 libraries,
 * 650 page faults) cost every process that loads libagentsandbox about 8 ms at start-up, most of
 * the time of a native `agent-sandbox run`. Here they are dlopen'ed by the docker code that needs
 * them (RTLD_NODELETE: loaded once per process, never unloaded under a library's exit handlers),
 * and called through a table each user holds: no global state. */
#ifndef ASB_DOCKER_DL_H
#define ASB_DOCKER_DL_H

#include "agent_sandbox.h"

#include <archive.h>
#include <archive_entry.h>
/* curl's type-checking wrappers are macros named like the functions; the table's members are
 * the functions' own names, so the macros go. The table's types are checked in docker_dl.c. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

typedef struct asb_dl {
    void *curl_so, *archive_so;
    /* libcurl */
    CURL *(*curl_easy_init)(void);
    CURLcode (*curl_easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*curl_easy_perform)(CURL *);
    void (*curl_easy_cleanup)(CURL *);
    void (*curl_easy_reset)(CURL *);
    CURLcode (*curl_easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*curl_easy_strerror)(CURLcode);
    CURLcode (*curl_easy_recv)(CURL *, void *, size_t, size_t *);
    CURLcode (*curl_easy_send)(CURL *, const void *, size_t, size_t *);
    struct curl_slist *(*curl_slist_append)(struct curl_slist *, const char *);
    void (*curl_slist_free_all)(struct curl_slist *);
    /* libarchive: writing */
    struct archive *(*archive_write_new)(void);
    int (*archive_write_set_format_pax_restricted)(struct archive *);
    int (*archive_write_set_bytes_in_last_block)(struct archive *, int);
    int (*archive_write_open)(struct archive *, void *, archive_open_callback *,
                              archive_write_callback *, archive_close_callback *);
    int (*archive_write_header)(struct archive *, struct archive_entry *);
    la_ssize_t (*archive_write_data)(struct archive *, const void *, size_t);
    int (*archive_write_close)(struct archive *);
    int (*archive_write_free)(struct archive *);
    /* libarchive: reading */
    const char *(*archive_error_string)(struct archive *);
    /* libarchive: entries */
    struct archive_entry *(*archive_entry_new)(void);
    void (*archive_entry_free)(struct archive_entry *);
    struct archive_entry *(*archive_entry_clear)(struct archive_entry *);
    void (*archive_entry_set_pathname)(struct archive_entry *, const char *);
    void (*archive_entry_set_filetype)(struct archive_entry *, unsigned int);
    void (*archive_entry_set_perm)(struct archive_entry *, __LA_MODE_T);
    void (*archive_entry_set_size)(struct archive_entry *, la_int64_t);
} asb_dl_t;

/* A tar written to memory: archive_write_open(a, &buf, NULL, asb_dl_membuf_write, NULL). */
typedef struct asb_dl_membuf {
    unsigned char *data;
    size_t len, cap;
} asb_dl_membuf_t;
la_ssize_t asb_dl_membuf_write(struct archive *a, void *buf, const void *data, size_t n);

/* Load both libraries and every function above; a missing one is an error naming it. */
int asb_dl_open(asb_dl_t *dl, asb_error_t *err);
void asb_dl_close(asb_dl_t *dl);

#endif
