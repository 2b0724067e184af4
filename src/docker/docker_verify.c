/* docker_verify.c - compare what the engine created with what we asked for, before it starts.
 *
 * An engine may drop or rewrite a setting (an old API version ignoring a field, a daemon option,
 * a plugin, a proxy in front of the socket); the create call still succeeds. So the inspect
 * document must contain every field of the request with the same value, and on top of that the
 * profile's floor must hold whatever the request said (a tampered request fails the floor). */
#include "core/proc_masks.h"
#include "docker/docker.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(char *why, size_t len, const char *fmt, ...)
{
    size_t used = strlen(why);
    if (used + 4 >= len)
        return;
    if (used)
        used += (size_t)snprintf(why + used, len - used, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + used, len - used, fmt, ap);
    va_end(ap);
}

static bool empty(const json_t *v)
{
    return !v || json_is_null(v) || (json_is_array(v) && json_array_size(v) == 0) ||
           (json_is_object(v) && json_object_size(v) == 0);
}

/* want must be found in got: objects by key (extra keys in got allowed), arrays element by
 * element with equal length, scalars equal. null and empty containers are the same thing to
 * the engine. */
static bool match(const json_t *want, const json_t *got)
{
    /* The engine omits zero values (Go's omitempty): absent means false, 0 or "". */
    if (!got && (json_is_false(want) || (json_is_integer(want) && !json_integer_value(want)) ||
                 (json_is_string(want) && !*json_string_value(want))))
        return true;
    if (empty(want) || empty(got))
        return empty(want) && empty(got);
    if (json_is_object(want)) {
        if (!json_is_object(got))
            return false;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)want, k, v)
        {
            if (!match(v, json_object_get(got, k)))
                return false;
        }
        return true;
    }
    if (json_is_array(want)) {
        if (!json_is_array(got) || json_array_size(got) != json_array_size(want))
            return false;
        for (size_t i = 0; i < json_array_size(want); i++)
            if (!match(json_array_get(want, i), json_array_get(got, i)))
                return false;
        return true;
    }
    return json_equal((json_t *)want, (json_t *)got);
}

static void compare_section(const json_t *want, const json_t *got, const char *section, char *why,
                            size_t len)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)want, k, v)
    {
        if (strcmp(k, "HostConfig") == 0 || strcmp(k, "NetworkingConfig") == 0)
            continue;
        const json_t *g = json_object_get(got, k);
        if (!match(v, g)) {
            char *ws = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            char *gs = g ? json_dumps(g, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
            /* Env carries the whole spec: name it, do not quote it. */
            bool big = (ws && strlen(ws) > 200) || (gs && strlen(gs) > 200);
            if (big)
                note(why, len, "%s.%s differs from the request", section, k);
            else
                note(why, len, "%s.%s: requested %s, engine has %s", section, k, ws ? ws : "?",
                     gs ? gs : "nothing");
            free(ws);
            free(gs);
        }
    }
}

static bool has(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        const char *x = json_string_value(v);
        if (x && strcmp(x, s) == 0)
            return true;
    }
    return false;
}

static json_int_t ival(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

bool asb_docker_verify(const asb_profile_t *p, uint32_t weaken, const json_t *request,
                       const json_t *inspect, char *why, size_t why_len)
{
    why[0] = '\0';
    const json_t *cfg = json_object_get(inspect, "Config");
    const json_t *hc = json_object_get(inspect, "HostConfig");
    if (!json_is_object(cfg) || !json_is_object(hc)) {
        note(why, why_len, "inspect has no Config/HostConfig");
        return false;
    }
    compare_section(request, cfg, "Config", why, why_len);
    compare_section(json_object_get(request, "HostConfig"), hc, "HostConfig", why, why_len);

    /* The floor: what the profile means, whatever the request said. */
    if (json_is_true(json_object_get(hc, "Privileged")))
        note(why, why_len, "container is privileged");
    if (!empty(json_object_get(hc, "Devices")))
        note(why, why_len, "host devices are mapped in");
    if (has(json_object_get(hc, "SecurityOpt"), "apparmor=unconfined") ||
        has(json_object_get(hc, "SecurityOpt"), "label=disable"))
        note(why, why_len, "an LSM is switched off");
    if (p->seccomp != ASB_SECCOMP_NONE &&
        has(json_object_get(hc, "SecurityOpt"), "seccomp=unconfined"))
        note(why, why_len, "seccomp is unconfined");
    const char *pidmode = json_string_value(json_object_get(hc, "PidMode"));
    if (pidmode && *pidmode)
        note(why, why_len, "PidMode is '%s' (want a private pid namespace)", pidmode);
    const char *uts = json_string_value(json_object_get(hc, "UTSMode"));
    if (uts && *uts)
        note(why, why_len, "UTSMode is '%s'", uts);
    const char *ipc = json_string_value(json_object_get(hc, "IpcMode"));
    if (!ipc || strcmp(ipc, "private") != 0)
        note(why, why_len, "IpcMode is '%s' (want private)", ipc ? ipc : "");
    const char *net = json_string_value(json_object_get(hc, "NetworkMode"));
    if (net && strcmp(net, "host") == 0 && !(weaken & ASB_WEAKEN_NETNS))
        note(why, why_len, "NetworkMode is host");
    if (p->ns_net && (!net || strcmp(net, "none") != 0))
        note(why, why_len, "NetworkMode is '%s' (want none)", net ? net : "");
    if (p->root == ASB_ROOT_ALLOWLIST_RO && !json_is_true(json_object_get(hc, "ReadonlyRootfs")))
        note(why, why_len, "ReadonlyRootfs is not set");
    if (p->caps == ASB_CAPS_NONE && !has(json_object_get(hc, "CapDrop"), "ALL"))
        note(why, why_len, "CapDrop lacks ALL");
    if (!empty(json_object_get(hc, "CapAdd")))
        note(why, why_len, "CapAdd is not empty");
    if (p->no_new_privs && !has(json_object_get(hc, "SecurityOpt"), "no-new-privileges"))
        note(why, why_len, "no-new-privileges is not set");
    /* Every /proc mask of the native backend (core/proc_masks.h) and the boot id. */
    const json_t *masked = json_object_get(hc, "MaskedPaths");
    if (!has(masked, ASB_DOCKER_MASK_BOOT_ID))
        note(why, why_len, "MaskedPaths lacks the host's boot id");
    if (!p->devpts && (!has(masked, ASB_DOCKER_MASK_PTS) || !has(masked, ASB_DOCKER_MASK_PTMX)))
        note(why, why_len, "MaskedPaths lacks /dev/pts or /dev/ptmx (no pseudo-terminals)");
    if (p->root == ASB_ROOT_ALLOWLIST_RO && !has(masked, ASB_DOCKER_MASK_SYS))
        note(why, why_len, "MaskedPaths lacks /sys");
    for (size_t i = 0; i < ASB_PROC_MASK_N_FILES + ASB_PROC_MASK_N_DIRS; i++) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%s",
                 i < ASB_PROC_MASK_N_FILES ? ASB_PROC_MASK_FILES[i]
                                           : ASB_PROC_MASK_DIRS[i - ASB_PROC_MASK_N_FILES]);
        if (!has(masked, path)) {
            note(why, why_len, "MaskedPaths lacks %s", path);
            break;
        }
    }
    if (p->uid >= 0) {
        char user[48];
        snprintf(user, sizeof(user), "%ld:%ld", p->uid, p->gid);
        const char *u = json_string_value(json_object_get(cfg, "User"));
        if (!u || strcmp(u, user) != 0)
            note(why, why_len, "User is '%s' (want %s)", u ? u : "", user);
    }
    if (p->cgroup) {
        if (ival(hc, "Memory") <= 0 || ival(hc, "MemorySwap") != ival(hc, "Memory"))
            note(why, why_len, "Memory %lld / MemorySwap %lld (want a limit with no swap)",
                 (long long)ival(hc, "Memory"), (long long)ival(hc, "MemorySwap"));
        if (ival(hc, "PidsLimit") <= 0)
            note(why, why_len, "no PidsLimit");
    }
    /* Mounts: exactly the requested ones, and the supervisor's read-only. */
    const json_t *mounts = json_object_get(inspect, "Mounts");
    const json_t *req_mounts = json_object_get(json_object_get(request, "HostConfig"), "Mounts");
    if (json_array_size(mounts) != json_array_size(req_mounts))
        note(why, why_len, "%zu mounts, requested %zu", json_array_size(mounts),
             json_array_size(req_mounts));
    size_t i;
    json_t *m;
    json_array_foreach(mounts, i, m)
    {
        const char *dst = json_string_value(json_object_get(m, "Destination"));
        if (dst && strcmp(dst, ASB_DOCKER_SUPERVISOR_PATH) == 0 &&
            json_is_true(json_object_get(m, "RW")))
            note(why, why_len, "the supervisor is mounted writable");
    }
    return why[0] == '\0';
}
