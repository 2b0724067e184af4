/* latency_json.c - JSON encoding of a latency study. Every time is in milliseconds. */
#include "stats/latency_json.h"

#include "stats/paired_json.h"

#include <math.h>

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *count(size_t v)
{
    return json_integer((json_int_t)v);
}

static json_t *weaken_json(uint32_t weaken)
{
    json_t *a = json_array();
    for (uint32_t bit = 1; a && bit && bit <= weaken; bit <<= 1)
        if ((weaken & bit) && asb_latency_control_name(bit))
            json_array_append_new(a, json_string(asb_latency_control_name(bit)));
    return a;
}

static json_t *host_json(const asb_latency_host_t *h)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:s, s:s}", "hostname", h->hostname,
                     "kernel", h->kernel, "machine", h->machine, "cpu_model", h->cpu_model,
                     "cpus_online", (json_int_t)h->cpus_online, "load1_start",
                     h->load1_start >= 0 ? json_real(h->load1_start) : json_null(), "load1_end",
                     h->load1_end >= 0 ? json_real(h->load1_end) : json_null(), "load1_max",
                     h->load1_max >= 0 ? json_real(h->load1_max) : json_null(), "started_at",
                     h->started_at, "finished_at", h->finished_at);
}

static json_t *run_json(const asb_latency_study_t *s, const asb_latency_run_t *r)
{
    /* exit_code null when the program did not exit on its own, as in the run record */
    return json_pack("{s:s, s:o, s:o, s:o, s:s, s:o, s:i, s:i, s:o}", "arm", s->arms[r->arm].name,
                     "position", count(r->position), "wall_ms", num(r->wall_ms), "duration_ms",
                     num(r->duration_ms), "status", asb_status_name(r->status), "exit_code",
                     r->exit_code >= 0 ? json_integer(r->exit_code) : json_null(), "signal",
                     r->signal, "rc", r->rc, "error",
                     r->error ? json_string(r->error) : json_null());
}

static json_t *rounds_json(const asb_latency_study_t *s)
{
    json_t *rounds = json_array();
    for (size_t r = 0; rounds && r < s->rounds_done; r++) {
        json_t *order = json_array(), *runs = json_array();
        for (size_t pos = 0; order && runs && pos < s->n_arms; pos++) {
            size_t a = s->order[r * s->n_arms + pos];
            json_array_append_new(order, json_string(s->arms[a].name));
            json_array_append_new(runs, run_json(s, &s->runs[r * s->n_arms + a]));
        }
        json_t *o =
            json_pack("{s:o, s:o, s:o, s:o}", "index", count(r), "order", order, "runs", runs,
                      "complete", s->analyzed ? json_boolean(s->complete[r]) : json_null());
        if (!o || json_array_append_new(rounds, o) < 0) {
            json_decref(rounds);
            return NULL;
        }
    }
    return rounds;
}

static json_t *arms_json(const asb_latency_study_t *s)
{
    json_t *arms = json_array();
    for (size_t a = 0; arms && a < s->n_arms; a++) {
        const asb_latency_arm_t *arm = &s->arms[a];
        json_t *o = json_pack(
            "{s:s, s:s, s:o, s:b, s:b, s:o, s:o, s:o}", "name", arm->name, "profile", arm->profile,
            "weaken", weaken_json(arm->weaken), "pooled", arm->pooled, "reference",
            a == s->reference, "failed", count(s->failed_per_arm[a]), "wall_ms",
            s->analyzed ? asb_describe_json(&s->wall[a]) : json_null(), "duration_ms",
            s->analyzed ? asb_describe_json(&s->duration[a]) : json_null());
        if (!o || json_array_append_new(arms, o) < 0) {
            json_decref(arms);
            return NULL;
        }
    }
    return arms;
}

static json_t *pairs_json(const asb_latency_study_t *s)
{
    json_t *pairs = json_array();
    for (size_t a = 0; pairs && s->analyzed && a < s->n_arms; a++) {
        if (a == s->reference)
            continue;
        json_t *o = asb_paired_json(&s->pair[a]);
        if (!o || json_object_set_new(o, "arm", json_string(s->arms[a].name)) < 0 ||
            json_object_set_new(o, "reference_arm", json_string(s->arms[s->reference].name)) < 0 ||
            json_object_set_new(o, "verdict", json_string(s->verdict[a])) < 0 ||
            json_object_set_new(o, "minuend", json_string(s->arms[s->minuend[a]].name)) < 0 ||
            json_object_set_new(o, "subtrahend", json_string(s->arms[s->subtrahend[a]].name)) < 0 ||
            json_object_set_new(o, "control",
                                s->ablation && s->arms[a].weaken
                                    ? json_string(asb_latency_control_name(s->arms[a].weaken))
                                    : json_null()) < 0 ||
            json_array_append_new(pairs, o) < 0) {
            json_decref(pairs);
            return NULL;
        }
    }
    return pairs;
}

json_t *asb_latency_json(const asb_latency_study_t *s)
{
    json_t *argv = json_array();
    for (size_t i = 0; argv && s->argv[i]; i++)
        json_array_append_new(argv, json_string(s->argv[i]));
    return json_pack(
        "{s:s, s:o, s:s, s:s, s:o, s:I, s:o, s:o, s:o, s:o, s:s,"
        " s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
        "schema", ASB_LATENCY_JSON_SCHEMA, "ablation", json_boolean(s->ablation), "unit", "ms",
        "clock", "CLOCK_MONOTONIC around asb_run (wall_ms); the result's duration_s (duration_ms)",
        "argv", argv, "seed", (json_int_t)s->seed, "rounds_requested", count(s->rounds),
        "rounds_done", count(s->rounds_done), "warmup_rounds", count(s->warmup), "rounds_complete",
        s->analyzed ? count(s->rounds_complete) : json_null(), "failure_policy",
        "a round with a failed run (asb_run error, status not completed, or exit code not 0) is "
        "recorded and excluded from every statistic",
        "host", host_json(&s->host), "reference", s->arms[s->reference].name, "arms", arms_json(s),
        "runs_failed", count(s->runs_failed), "rounds_excluded",
        s->analyzed ? count(s->rounds_done - s->rounds_complete) : json_null(), "analyzed",
        json_boolean(s->analyzed), "rounds", rounds_json(s), "pairs", pairs_json(s));
}
