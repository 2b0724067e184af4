/* wire.c - encoder and strict decoder of the supervisor's record format (see wire.h). Built
 * into both the host library and the musl supervisor: it uses nothing beyond libc. */
#include "native/wire.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HDR_MIN 6 /* tag, key length, value length: the smallest record has a 1-byte key more */

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u64(uint8_t *p, uint64_t v)
{
    put_u32(p, (uint32_t)v);
    put_u32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

void asb_wire_init_fixed(asb_wire_buf_t *b, void *storage, size_t size)
{
    memset(b, 0, sizeof(*b));
    b->data = storage;
    b->cap = size;
    b->fixed = true;
}

void asb_wire_free(asb_wire_buf_t *b)
{
    if (!b->fixed)
        free(b->data);
    memset(b, 0, sizeof(*b));
}

bool asb_wire_ok(const asb_wire_buf_t *b)
{
    return !b->failed; /* an empty message (data still NULL) is a valid one */
}

/* Room for n more bytes; returns where they go or NULL (and the buffer is failed). */
static uint8_t *reserve(asb_wire_buf_t *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (n > UINT32_MAX || b->len > SIZE_MAX - n) {
        b->failed = true;
        return NULL;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap = cap > SIZE_MAX / 2 ? b->len + n : cap * 2;
        uint8_t *d = b->fixed ? NULL : realloc(b->data, cap);
        if (!d) {
            b->failed = true;
            return NULL;
        }
        b->data = d;
        b->cap = cap;
    }
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

/* The record header; returns the value's storage (vlen bytes) or NULL. */
static uint8_t *put_rec(asb_wire_buf_t *b, int tag, const char *key, size_t vlen)
{
    size_t klen = key ? strlen(key) : 0;
    if (klen == 0 || klen > 255 || vlen > UINT32_MAX) {
        b->failed = true;
        return NULL;
    }
    uint8_t *p = reserve(b, 2 + klen + 4 + vlen);
    if (!p)
        return NULL;
    p[0] = (uint8_t)tag;
    p[1] = (uint8_t)klen;
    memcpy(p + 2, key, klen);
    put_u32(p + 2 + klen, (uint32_t)vlen);
    return p + 2 + klen + 4;
}

void asb_wire_put_null(asb_wire_buf_t *b, const char *key)
{
    put_rec(b, ASB_WIRE_NULL, key, 0);
}

void asb_wire_put_bool(asb_wire_buf_t *b, const char *key, bool v)
{
    uint8_t *p = put_rec(b, ASB_WIRE_BOOL, key, 1);
    if (p)
        *p = v ? 1 : 0;
}

void asb_wire_put_int(asb_wire_buf_t *b, const char *key, int64_t v)
{
    uint8_t *p = put_rec(b, ASB_WIRE_INT, key, 8);
    if (p)
        put_u64(p, (uint64_t)v);
}

void asb_wire_put_double(asb_wire_buf_t *b, const char *key, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    uint8_t *p = put_rec(b, ASB_WIRE_DOUBLE, key, 8);
    if (p)
        put_u64(p, bits);
}

/* The length of the one UTF-8 character at p (at most n bytes), or 0 when none starts there:
 * NUL, a stray continuation byte, a cut sequence, an overlong form, a surrogate or a code point
 * beyond U+10FFFF. */
static size_t utf8_char_len(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    if (c == 0)
        return 0;
    if (c < 0x80)
        return 1;
    size_t k = c >= 0xc2 && c <= 0xdf   ? 1
               : c >= 0xe0 && c <= 0xef ? 2
               : c >= 0xf0 && c <= 0xf4 ? 3
                                        : 0;
    if (k == 0 || n <= k)
        return 0;
    uint32_t cp = c & (0x3fu >> k);
    for (size_t j = 1; j <= k; j++) {
        if ((p[j] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[j] & 0x3fu);
    }
    if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return k + 1;
}

/* A string record holding a copy of s; its bytes and their number, or NULL (b->failed set). */
static uint8_t *put_str_rec(asb_wire_buf_t *b, const char *key, const char *s, size_t *n)
{
    if (!s) {
        b->failed = true;
        return NULL;
    }
    *n = strlen(s);
    uint8_t *p = put_rec(b, ASB_WIRE_STR, key, *n);
    if (p)
        memcpy(p, s, *n);
    return p;
}

void asb_wire_put_str(asb_wire_buf_t *b, const char *key, const char *s)
{
    size_t n;
    (void)put_str_rec(b, key, s, &n);
}

void asb_wire_put_text(asb_wire_buf_t *b, const char *key, const char *s)
{
    size_t n = 0;
    uint8_t *p = put_str_rec(b, key, s, &n);
    for (size_t i = 0; p && i < n;) {
        size_t k = utf8_char_len(p + i, n - i);
        if (k == 0)
            p[i++] = '?';
        else
            i += k;
    }
}

void asb_wire_put_strv(asb_wire_buf_t *b, const char *key, const char *const *v, size_t n)
{
    size_t total = 0, count = 0;
    for (size_t i = 0; v && i < n && v[i]; i++, count++) {
        size_t l = strlen(v[i]);
        if (l > UINT32_MAX || total > SIZE_MAX - 4 - l) {
            b->failed = true;
            return;
        }
        total += 4 + l;
    }
    if ((n != SIZE_MAX && count != n) || count > ASB_WIRE_MAX_ARRAY) {
        b->failed = true; /* a NULL inside the n strings asked for, or too many */
        return;
    }
    uint8_t *p = put_rec(b, ASB_WIRE_STRV, key, total);
    for (size_t i = 0; p && i < count; i++) {
        size_t l = strlen(v[i]);
        put_u32(p, (uint32_t)l);
        memcpy(p + 4, v[i], l);
        p += 4 + l;
    }
}

size_t asb_wire_begin_obj(asb_wire_buf_t *b, const char *key)
{
    if (!put_rec(b, ASB_WIRE_OBJ, key, 0))
        return 0;
    return b->len; /* the value starts here; its length field is the 4 bytes before */
}

void asb_wire_end_obj(asb_wire_buf_t *b, size_t handle)
{
    if (b->failed || handle < 4 || handle > b->len || b->len - handle > UINT32_MAX) {
        b->failed = true;
        return;
    }
    put_u32(b->data + handle - 4, (uint32_t)(b->len - handle));
}

void asb_wire_put_raw(asb_wire_buf_t *b, const void *msg, size_t len)
{
    if (asb_wire_check(msg, len) < 0) {
        b->failed = true;
        return;
    }
    uint8_t *p = len ? reserve(b, len) : NULL;
    if (p)
        memcpy(p, msg, len);
}

/* ---- decoder ---- */

int asb_wire_next(const void *msg, size_t len, size_t *off, asb_wire_rec_t *rec)
{
    const uint8_t *m = msg;
    if (*off == len)
        return 0;
    if (!m || *off > len || len - *off < HDR_MIN + 1)
        return -EINVAL;
    const uint8_t *p = m + *off;
    size_t left = len - *off;
    size_t klen = p[1];
    if (klen == 0 || left - HDR_MIN < klen)
        return -EINVAL;
    size_t vlen = get_u32(p + 2 + klen);
    if (left - HDR_MIN - klen < vlen)
        return -EINVAL;
    rec->tag = p[0];
    rec->key = (const char *)p + 2;
    rec->klen = klen;
    rec->val = p + 2 + klen + 4;
    rec->vlen = vlen;
    *off += HDR_MIN + klen + vlen;
    return 1;
}

/* Text is UTF-8 without NUL: the host hands it to jansson, which accepts nothing else. */
static bool no_nul(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = utf8_char_len(p + i, n - i);
        if (k == 0)
            return false;
        i += k;
    }
    return true;
}

/* Visit each string of an 'a' value; returns the count or -EINVAL. */
static long strv_walk(const asb_wire_rec_t *rec, char **out)
{
    size_t off = 0;
    long n = 0;
    while (off < rec->vlen) {
        if (rec->vlen - off < 4 || n >= ASB_WIRE_MAX_ARRAY)
            return -EINVAL;
        size_t l = get_u32(rec->val + off);
        off += 4;
        if (rec->vlen - off < l || !no_nul(rec->val + off, l))
            return -EINVAL;
        if (out) {
            if (!(out[n] = malloc(l + 1)))
                return -ENOMEM;
            memcpy(out[n], rec->val + off, l);
            out[n][l] = '\0';
        }
        off += l;
        n++;
    }
    return n;
}

static int check_level(const uint8_t *m, size_t len, int depth)
{
    if (depth > ASB_WIRE_MAX_DEPTH)
        return -EINVAL;
    size_t off = 0;
    asb_wire_rec_t r;
    int got;
    while ((got = asb_wire_next(m, len, &off, &r)) == 1) {
        if (!no_nul((const uint8_t *)r.key, r.klen))
            return -EINVAL;
        /* Duplicate keys: an earlier record with the same key makes the message ambiguous. */
        size_t o2 = 0;
        asb_wire_rec_t q;
        while (o2 < off - (HDR_MIN + r.klen + r.vlen) && asb_wire_next(m, len, &o2, &q) == 1)
            if (q.klen == r.klen && memcmp(q.key, r.key, r.klen) == 0)
                return -EINVAL;
        switch (r.tag) {
        case ASB_WIRE_NULL:
            if (r.vlen != 0)
                return -EINVAL;
            break;
        case ASB_WIRE_BOOL:
            if (r.vlen != 1 || r.val[0] > 1)
                return -EINVAL;
            break;
        case ASB_WIRE_INT:
            if (r.vlen != 8)
                return -EINVAL;
            break;
        case ASB_WIRE_DOUBLE: {
            double d;
            if (asb_wire_rec_double(&r, &d) < 0 || !isfinite(d))
                return -EINVAL; /* NaN and infinities: JSON (the host's view) has none */
            break;
        }
        case ASB_WIRE_STR:
            if (!no_nul(r.val, r.vlen))
                return -EINVAL;
            break;
        case ASB_WIRE_STRV:
            if (strv_walk(&r, NULL) < 0)
                return -EINVAL;
            break;
        case ASB_WIRE_OBJ:
            if (check_level(r.val, r.vlen, depth + 1) < 0)
                return -EINVAL;
            break;
        default:
            return -EINVAL;
        }
    }
    return got == 0 ? 0 : -EINVAL;
}

int asb_wire_check(const void *msg, size_t len)
{
    if (!msg && len)
        return -EINVAL;
    return check_level(msg, len, 1);
}

int asb_wire_count(const void *msg, size_t len)
{
    size_t off = 0;
    asb_wire_rec_t r;
    int n = 0, got;
    while ((got = asb_wire_next(msg, len, &off, &r)) == 1)
        n++;
    return got == 0 ? n : -EINVAL;
}

bool asb_wire_key_is(const asb_wire_rec_t *rec, const char *key)
{
    return strlen(key) == rec->klen && memcmp(rec->key, key, rec->klen) == 0;
}

int asb_wire_find(const void *msg, size_t len, const char *key, int tag, asb_wire_rec_t *rec)
{
    size_t off = 0;
    int got;
    while ((got = asb_wire_next(msg, len, &off, rec)) == 1)
        if (asb_wire_key_is(rec, key))
            return rec->tag == tag ? 0 : -EINVAL;
    return got == 0 ? -ENOENT : -EINVAL;
}

int asb_wire_rec_bool(const asb_wire_rec_t *rec, bool *out)
{
    if (rec->tag != ASB_WIRE_BOOL || rec->vlen != 1 || rec->val[0] > 1)
        return -EINVAL;
    *out = rec->val[0] == 1;
    return 0;
}

int asb_wire_rec_int(const asb_wire_rec_t *rec, int64_t *out)
{
    if (rec->tag != ASB_WIRE_INT || rec->vlen != 8)
        return -EINVAL;
    *out = (int64_t)get_u64(rec->val);
    return 0;
}

int asb_wire_rec_double(const asb_wire_rec_t *rec, double *out)
{
    if (rec->tag != ASB_WIRE_DOUBLE || rec->vlen != 8)
        return -EINVAL;
    uint64_t bits = get_u64(rec->val);
    memcpy(out, &bits, sizeof(*out));
    return 0;
}

int asb_wire_get_bool(const void *msg, size_t len, const char *key, bool *out)
{
    asb_wire_rec_t r;
    int rc = asb_wire_find(msg, len, key, ASB_WIRE_BOOL, &r);
    return rc < 0 ? rc : asb_wire_rec_bool(&r, out);
}

int asb_wire_get_int(const void *msg, size_t len, const char *key, int64_t *out)
{
    asb_wire_rec_t r;
    int rc = asb_wire_find(msg, len, key, ASB_WIRE_INT, &r);
    return rc < 0 ? rc : asb_wire_rec_int(&r, out);
}

int asb_wire_get_double(const void *msg, size_t len, const char *key, double *out)
{
    asb_wire_rec_t r;
    int rc = asb_wire_find(msg, len, key, ASB_WIRE_DOUBLE, &r);
    return rc < 0 ? rc : asb_wire_rec_double(&r, out);
}

int asb_wire_rec_str(const asb_wire_rec_t *rec, char **out)
{
    if (rec->tag != ASB_WIRE_STR || !no_nul(rec->val, rec->vlen))
        return -EINVAL;
    char *s = malloc(rec->vlen + 1);
    if (!s)
        return -ENOMEM;
    memcpy(s, rec->val, rec->vlen);
    s[rec->vlen] = '\0';
    *out = s;
    return 0;
}

int asb_wire_get_str(const void *msg, size_t len, const char *key, char **out)
{
    asb_wire_rec_t r;
    int rc = asb_wire_find(msg, len, key, ASB_WIRE_STR, &r);
    return rc < 0 ? rc : asb_wire_rec_str(&r, out);
}

void asb_wire_strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

int asb_wire_rec_strv(const asb_wire_rec_t *rec, char ***out, size_t *n_out)
{
    if (rec->tag != ASB_WIRE_STRV)
        return -EINVAL;
    long n = strv_walk(rec, NULL);
    if (n < 0)
        return (int)n;
    char **v = calloc((size_t)n + 1, sizeof(char *));
    if (!v)
        return -ENOMEM;
    long got = strv_walk(rec, v);
    if (got != n) {
        asb_wire_strv_free(v);
        return got < 0 ? (int)got : -EINVAL;
    }
    *out = v;
    if (n_out)
        *n_out = (size_t)n;
    return 0;
}

int asb_wire_get_strv(const void *msg, size_t len, const char *key, char ***out, size_t *n_out)
{
    asb_wire_rec_t r;
    int rc = asb_wire_find(msg, len, key, ASB_WIRE_STRV, &r);
    return rc < 0 ? rc : asb_wire_rec_strv(&r, out, n_out);
}

/* ---- hex ---- */

char *asb_wire_hex(const void *data, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    const uint8_t *p = data;
    if (len > (SIZE_MAX - 1) / 2)
        return NULL;
    char *s = malloc(len * 2 + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        s[2 * i] = digits[p[i] >> 4];
        s[2 * i + 1] = digits[p[i] & 15];
    }
    s[len * 2] = '\0';
    return s;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int asb_wire_unhex(const char *hex, uint8_t **out, size_t *len)
{
    size_t n = hex ? strlen(hex) : 1;
    if (n % 2)
        return -EINVAL;
    uint8_t *d = malloc(n / 2 + 1); /* +1: never malloc(0) */
    if (!d)
        return -ENOMEM;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(d);
            return -EINVAL;
        }
        d[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = d;
    *len = n / 2;
    return 0;
}
