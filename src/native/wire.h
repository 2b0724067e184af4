/* wire.h - the binary record format of the host <-> supervisor messages and run spec.
 *
 * The supervisor is built against musl (a static glibc binary spends ~0.9 ms probing the CPU at
 * start-up, on every run), where no JSON library is available; so the supervisor speaks this
 * small format and the host converts it to and from jansson (wire_json.c).
 *
 * A message is a sequence of records, each:
 *   u8 tag | u8 key length (1..255) | key bytes (UTF-8, no NUL) | u32 value length (LE) | value
 * bytes Tags and their values: 'n' null (empty)   'b' bool (1 byte, 0 or 1)   'i' int64 (8 bytes
 * LE) 'd' double (8 bytes, IEEE 754 bits LE, finite)          's' string (UTF-8, no NUL) 'a' array
 * of strings: a sequence of (u32 length LE | UTF-8 bytes, no NUL) 'o' object: a nested message (at
 * most ASB_WIRE_MAX_DEPTH levels) A key appears at most once per level. Decoding is strict:
 * anything else is malformed. */
#ifndef ASB_NATIVE_WIRE_H
#define ASB_NATIVE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ASB_WIRE_MAX_DEPTH 4
#define ASB_WIRE_MAX_ARRAY 65536 /* strings in one array */

enum {
    ASB_WIRE_NULL = 'n',
    ASB_WIRE_BOOL = 'b',
    ASB_WIRE_INT = 'i',
    ASB_WIRE_DOUBLE = 'd',
    ASB_WIRE_STR = 's',
    ASB_WIRE_STRV = 'a',
    ASB_WIRE_OBJ = 'o',
};

/* ---- encoder: a growable buffer; the first failure sticks and asb_wire_ok() says so ---- */
typedef struct asb_wire_buf {
    uint8_t *data;
    size_t len, cap;
    bool failed;
    bool fixed; /* data is caller storage of cap bytes: never grown or freed */
} asb_wire_buf_t;

/* Encode into caller storage (no allocation: usable where malloc is not, e.g. after clone). */
void asb_wire_init_fixed(asb_wire_buf_t *b, void *storage, size_t size);
void asb_wire_free(asb_wire_buf_t *b);
bool asb_wire_ok(const asb_wire_buf_t *b);
void asb_wire_put_null(asb_wire_buf_t *b, const char *key);
void asb_wire_put_bool(asb_wire_buf_t *b, const char *key, bool v);
void asb_wire_put_int(asb_wire_buf_t *b, const char *key, int64_t v);
void asb_wire_put_double(asb_wire_buf_t *b, const char *key, double v);
void asb_wire_put_str(asb_wire_buf_t *b, const char *key, const char *s);
/* A message for people (an error, a failed exec): like put_str, but each byte that is not part of
 * a UTF-8 character is sent as '?'. A message cut to fit a buffer can end inside a character,
 * and the decoder refuses a whole message for one such string (review finding: a long exec
 * error lost the exit report with it). */
void asb_wire_put_text(asb_wire_buf_t *b, const char *key, const char *s);
/* n strings, or up to the first NULL when n is SIZE_MAX. */
void asb_wire_put_strv(asb_wire_buf_t *b, const char *key, const char *const *v, size_t n);
/* A nested object: put its records between begin and end. Returns a handle for end. */
size_t asb_wire_begin_obj(asb_wire_buf_t *b, const char *key);
void asb_wire_end_obj(asb_wire_buf_t *b, size_t handle);
/* Append an already encoded message's records (validated first). */
void asb_wire_put_raw(asb_wire_buf_t *b, const void *msg, size_t len);

/* ---- decoder ---- */
typedef struct asb_wire_rec {
    int tag;
    const char *key; /* not NUL-terminated */
    size_t klen;
    const uint8_t *val;
    size_t vlen;
} asb_wire_rec_t;

/* The whole message, recursively: 0 when well-formed, -EINVAL otherwise. */
int asb_wire_check(const void *msg, size_t len);
/* Iterate over one level of a message: 1 with *rec filled, 0 at the end, -EINVAL if malformed
 * (iteration alone still bounds-checks every record). */
int asb_wire_next(const void *msg, size_t len, size_t *off, asb_wire_rec_t *rec);
/* Number of records at the top level, or -EINVAL. */
int asb_wire_count(const void *msg, size_t len);
/* Find `key` with tag `tag`: 0 found, -ENOENT absent, -EINVAL wrong tag or malformed. */
int asb_wire_find(const void *msg, size_t len, const char *key, int tag, asb_wire_rec_t *rec);
int asb_wire_get_bool(const void *msg, size_t len, const char *key, bool *out);
int asb_wire_get_int(const void *msg, size_t len, const char *key, int64_t *out);
int asb_wire_get_double(const void *msg, size_t len, const char *key, double *out);
/* A malloc'd NUL-terminated copy of a string. */
int asb_wire_get_str(const void *msg, size_t len, const char *key, char **out);
/* A malloc'd NULL-terminated vector of malloc'd strings; *n_out (optional) gets the count. */
int asb_wire_get_strv(const void *msg, size_t len, const char *key, char ***out, size_t *n_out);
/* Decode a record's value (-EINVAL on a wrong tag or a malformed value). */
int asb_wire_rec_bool(const asb_wire_rec_t *rec, bool *out);
int asb_wire_rec_int(const asb_wire_rec_t *rec, int64_t *out);
int asb_wire_rec_double(const asb_wire_rec_t *rec, double *out);
int asb_wire_rec_str(const asb_wire_rec_t *rec, char **out);
int asb_wire_rec_strv(const asb_wire_rec_t *rec, char ***out, size_t *n_out);
bool asb_wire_key_is(const asb_wire_rec_t *rec, const char *key);
void asb_wire_strv_free(char **v);

/* ---- hex, for channels that carry text (an environment variable, a NUL-framed pipe) ---- */
/* Lower-case hex of len bytes plus a NUL into a malloc'd string, NULL on allocation failure. */
char *asb_wire_hex(const void *data, size_t len);
/* Decode hex (even length, [0-9a-fA-F] only) into a malloc'd buffer: 0 or -EINVAL/-ENOMEM. */
int asb_wire_unhex(const char *hex, uint8_t **out, size_t *len);

#endif
