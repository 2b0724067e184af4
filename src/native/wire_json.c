/* wire_json.c - conversion between the supervisor's record format and jansson (host only). */
#include "native/wire_json.h"

#include <stdlib.h>
#include <string.h>

static json_t *level_to_json(const void *msg, size_t len)
{
    json_t *o = json_object();
    size_t off = 0;
    asb_wire_rec_t r;
    int got;
    while (o && (got = asb_wire_next(msg, len, &off, &r)) == 1) {
        char key[256];
        memcpy(key, r.key, r.klen);
        key[r.klen] = '\0';
        json_t *v = NULL;
        bool b;
        int64_t i;
        double d;
        char *s = NULL, **sv = NULL;
        switch (r.tag) {
        case ASB_WIRE_NULL:
            v = json_null();
            break;
        case ASB_WIRE_BOOL:
            if (asb_wire_rec_bool(&r, &b) == 0)
                v = json_boolean(b);
            break;
        case ASB_WIRE_INT:
            if (asb_wire_rec_int(&r, &i) == 0)
                v = json_integer((json_int_t)i);
            break;
        case ASB_WIRE_DOUBLE:
            if (asb_wire_rec_double(&r, &d) == 0)
                v = json_real(d);
            break;
        case ASB_WIRE_STR:
            if (asb_wire_rec_str(&r, &s) == 0)
                v = json_stringn(s, r.vlen);
            free(s);
            break;
        case ASB_WIRE_STRV:
            if (asb_wire_rec_strv(&r, &sv, NULL) == 0) {
                v = json_array();
                for (size_t k = 0; v && sv[k]; k++)
                    if (json_array_append_new(v, json_string(sv[k])) < 0) {
                        json_decref(v);
                        v = NULL;
                    }
            }
            asb_wire_strv_free(sv);
            break;
        case ASB_WIRE_OBJ:
            v = level_to_json(r.val, r.vlen);
            break;
        default:
            break;
        }
        if (!v || json_object_set_new(o, key, v) < 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

json_t *asb_wire_to_json(const void *msg, size_t len)
{
    if (asb_wire_check(msg, len) < 0)
        return NULL;
    return level_to_json(msg, len);
}

void asb_wire_from_json(asb_wire_buf_t *b, const json_t *obj)
{
    if (!json_is_object(obj)) {
        b->failed = true;
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        switch (json_typeof(v)) {
        case JSON_NULL:
            asb_wire_put_null(b, key);
            break;
        case JSON_TRUE:
        case JSON_FALSE:
            asb_wire_put_bool(b, key, json_is_true(v));
            break;
        case JSON_INTEGER:
            asb_wire_put_int(b, key, (int64_t)json_integer_value(v));
            break;
        case JSON_REAL:
            asb_wire_put_double(b, key, json_real_value(v));
            break;
        case JSON_STRING:
            if (strlen(json_string_value(v)) != json_string_length(v))
                b->failed = true; /* an embedded NUL: not representable */
            else
                asb_wire_put_str(b, key, json_string_value(v));
            break;
        case JSON_ARRAY: {
            size_t n = json_array_size(v);
            const char **sv = calloc(n + 1, sizeof(char *));
            for (size_t i = 0; sv && i < n; i++) {
                json_t *e = json_array_get(v, i);
                sv[i] = json_string_value(e);
                if (!sv[i] || strlen(sv[i]) != json_string_length(e)) {
                    free(sv);
                    sv = NULL;
                }
            }
            if (!sv)
                b->failed = true;
            else
                asb_wire_put_strv(b, key, sv, n);
            free(sv);
            break;
        }
        case JSON_OBJECT: {
            size_t h = asb_wire_begin_obj(b, key);
            asb_wire_from_json(b, v);
            asb_wire_end_obj(b, h);
            break;
        }
        }
        if (b->failed)
            return;
    }
}
