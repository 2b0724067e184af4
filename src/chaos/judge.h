/* judge.h - one pure function per attack: observations + result record -> verdict + evidence. */
#ifndef ASB_CHAOS_JUDGE_H
#define ASB_CHAOS_JUDGE_H

#include "agent_sandbox.h"
#include "chaos/obs.h"

typedef enum asb_chaos_verdict {
    ASB_CHAOS_SUCCEEDED = 0,
    ASB_CHAOS_BLOCKED,
    ASB_CHAOS_NA,
    ASB_CHAOS_ERROR,
} asb_chaos_verdict_t;

#define ASB_CHAOS_EVIDENCE_MAX 512

typedef asb_chaos_verdict_t (*asb_chaos_judge_fn)(const asb_chaos_obs_t *o, const asb_result_t *r,
                                                  char *ev, size_t n);

const char *asb_chaos_verdict_name(asb_chaos_verdict_t v);

/* Look a judge up by attack name; NULL when there is none. */
asb_chaos_judge_fn asb_chaos_judge_for(const char *attack);

/* The full decision for one run: a sandbox error is always `error` (never folded into blocked),
 * else the attack's judge decides. rc is what asb_run returned. */
asb_chaos_verdict_t asb_chaos_judge(const char *attack, int rc, const asb_chaos_obs_t *o,
                                    const asb_result_t *r, char *ev, size_t n);

/* Helpers, exposed for the unit tests. */
bool asb_chaos_output_has(const asb_result_t *r, const char *needle);
bool asb_chaos_buf_has(const char *buf, size_t len, const char *needle);

#endif
