/* report.c - text and JSON views of a finished matrix. */
#include "chaos/report.h"
#include "core/error.h"

#include <errno.h>
#include <jansson.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

static const asb_chaos_run_t *run_at(const asb_chaos_matrix_view_t *m, int rep, size_t a, size_t t)
{
    size_t i = ((size_t)rep * m->n_attacks + a) * m->n_targets + t;
    return i < m->n_runs ? &m->runs[i] : NULL;
}

asb_chaos_verdict_t asb_chaos_cell(const asb_chaos_matrix_view_t *m, size_t attack, size_t target,
                                   bool *differed)
{
    bool seen[4] = {false, false, false, false};
    for (int rep = 0; rep < m->repeat; rep++) {
        const asb_chaos_run_t *r = run_at(m, rep, attack, target);
        if (r)
            seen[r->verdict] = true;
    }
    if (differed)
        *differed = (seen[0] + seen[1] + seen[2] + seen[3]) > 1;
    if (seen[ASB_CHAOS_SUCCEEDED])
        return ASB_CHAOS_SUCCEEDED;
    if (seen[ASB_CHAOS_ERROR])
        return ASB_CHAOS_ERROR;
    if (seen[ASB_CHAOS_BLOCKED])
        return ASB_CHAOS_BLOCKED;
    return ASB_CHAOS_NA;
}

size_t asb_chaos_errors(const asb_chaos_matrix_view_t *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_runs; i++)
        n += m->runs[i].verdict == ASB_CHAOS_ERROR;
    return n;
}

void asb_chaos_print(FILE *f, const asb_chaos_matrix_view_t *m)
{
    fprintf(f, "%-20s", "attack");
    for (size_t t = 0; t < m->n_targets; t++)
        fprintf(f, "  %-16s", m->targets[t].label);
    fprintf(f, "\n");
    for (size_t a = 0; a < m->n_attacks; a++) {
        fprintf(f, "%-20s", m->attacks[a]->name);
        for (size_t t = 0; t < m->n_targets; t++) {
            bool diff;
            asb_chaos_verdict_t v = asb_chaos_cell(m, a, t, &diff);
            char cell[32];
            snprintf(cell, sizeof(cell), "%s%s", asb_chaos_verdict_name(v), diff ? "*" : "");
            fprintf(f, "  %-16s", cell);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\nevidence (repetition 1):\n");
    for (size_t a = 0; a < m->n_attacks; a++)
        for (size_t t = 0; t < m->n_targets; t++) {
            const asb_chaos_run_t *r = run_at(m, 0, a, t);
            if (r)
                fprintf(f, "  %-20s %-16s %-9s %s\n", m->attacks[a]->name, m->targets[t].label,
                        asb_chaos_verdict_name(r->verdict), r->evidence);
        }
    bool any_diff = false;
    for (size_t a = 0; a < m->n_attacks; a++)
        for (size_t t = 0; t < m->n_targets; t++) {
            bool diff;
            asb_chaos_cell(m, a, t, &diff);
            if (!diff)
                continue;
            if (!any_diff)
                fprintf(f, "\ncells whose verdict differed across repetitions (marked *):\n");
            any_diff = true;
            fprintf(f, "  %-20s %-16s", m->attacks[a]->name, m->targets[t].label);
            for (int rep = 0; rep < m->repeat; rep++) {
                const asb_chaos_run_t *r = run_at(m, rep, a, t);
                fprintf(f, " %s", r ? asb_chaos_verdict_name(r->verdict) : "?");
            }
            fprintf(f, "\n");
        }
    fprintf(f, "\n");
    for (size_t t = 0; t < m->n_targets; t++) {
        size_t c[4] = {0, 0, 0, 0};
        for (size_t a = 0; a < m->n_attacks; a++)
            c[asb_chaos_cell(m, a, t, NULL)]++;
        fprintf(f, "%s: %zu/%zu succeeded (%zu blocked, %zu n/a, %zu error)\n", m->targets[t].label,
                c[ASB_CHAOS_SUCCEEDED], m->n_attacks, c[ASB_CHAOS_BLOCKED], c[ASB_CHAOS_NA],
                c[ASB_CHAOS_ERROR]);
    }
    fprintf(f, "%zu runs (%d repetition%s, %d jobs) in %.1f s\n", m->n_runs, m->repeat,
            m->repeat == 1 ? "" : "s", m->jobs, m->wall_s);
}

static json_t *host_facts(void)
{
    struct utsname u;
    uname(&u);
    struct statfs sf;
    const char *cg = "none";
    if (statfs("/sys/fs/cgroup", &sf) == 0) {
        if (sf.f_type == CGROUP2_SUPER_MAGIC)
            cg = "v2";
        else if (access("/sys/fs/cgroup/unified/cgroup.controllers", F_OK) == 0)
            cg = "hybrid (v1 controllers, v2 unified)";
        else
            cg = "v1";
    }
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1 /* VERSION */);
    return json_pack("{s:s, s:s, s:s, s:s, s:i, s:I}", "kernel", u.release, "kernel_version",
                     u.version, "machine", u.machine, "cgroup", cg, "landlock_abi",
                     abi < 0 ? 0 : (int)abi, "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN));
}

int asb_chaos_json(const asb_chaos_matrix_view_t *m, char **out, asb_error_t *err)
{
    json_t *root = json_object(), *runs = json_array(), *attacks = json_array(),
           *targets = json_array(), *summary = json_object(), *differed = json_array();
    for (size_t a = 0; a < m->n_attacks; a++)
        json_array_append_new(attacks, json_string(m->attacks[a]->name));
    for (size_t t = 0; t < m->n_targets; t++) {
        json_array_append_new(targets, json_string(m->targets[t].label));
        size_t c[4] = {0, 0, 0, 0};
        json_t *cells = json_object();
        for (size_t a = 0; a < m->n_attacks; a++) {
            bool diff;
            asb_chaos_verdict_t v = asb_chaos_cell(m, a, t, &diff);
            c[v]++;
            json_object_set_new(cells, m->attacks[a]->name, json_string(asb_chaos_verdict_name(v)));
            if (diff)
                json_array_append_new(differed,
                                      json_pack("{s:s, s:s}", "attack", m->attacks[a]->name,
                                                "profile", m->targets[t].label));
        }
        json_object_set_new(summary, m->targets[t].label,
                            json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}", "succeeded",
                                      (json_int_t)c[0], "blocked", (json_int_t)c[1], "n/a",
                                      (json_int_t)c[2], "error", (json_int_t)c[3], "attacks",
                                      (json_int_t)m->n_attacks, "cells", cells));
    }
    for (size_t i = 0; i < m->n_runs; i++) {
        const asb_chaos_run_t *r = &m->runs[i];
        json_t *res = r->result_json ? json_loads(r->result_json, 0, NULL) : NULL;
        json_array_append_new(
            runs, json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:s, s:f, s:s, s:o}", "profile",
                            m->targets[r->target].label, "run_profile", r->profile, "backend",
                            r->backend, "attack", r->attack->name, "weaken", (json_int_t)r->weaken,
                            "repetition", r->rep + 1, "verdict", asb_chaos_verdict_name(r->verdict),
                            "evidence", r->evidence, "duration_s", r->duration_s, "nonce", r->nonce,
                            "result", res ? res : json_null()));
    }
    json_object_set_new(root, "host", host_facts());
    json_object_set_new(root, "profiles", targets);
    json_object_set_new(root, "attacks", attacks);
    json_object_set_new(root, "repeat", json_integer(m->repeat));
    json_object_set_new(root, "jobs", json_integer(m->jobs));
    json_object_set_new(root, "wall_s", json_real(m->wall_s));
    json_object_set_new(root, "summary", summary);
    json_object_set_new(root, "differed", differed);
    json_object_set_new(root, "runs", runs);
    *out = json_dumps(root, JSON_INDENT(1));
    json_decref(root);
    if (!*out)
        return asb_err_sys(err, ENOMEM, "chaos JSON");
    return 0;
}
