/* attacks.h - the attack table: what each attack needs from the harness, its run limits, and
 * its positive control (the configuration under which its judge must be able to say
 * `succeeded`). The programs themselves live in attacks/NAME.py. */
#ifndef ASB_CHAOS_ATTACKS_H
#define ASB_CHAOS_ATTACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    ASB_CHAOS_WATCH = 1u << 0,           /* run the /proc watcher */
    ASB_CHAOS_WATCH_FDS = 1u << 1,       /* ... and let it read fd tables */
    ASB_CHAOS_EXCLUSIVE = 1u << 2,       /* runs alone: its evidence is a host-wide measurement */
    ASB_CHAOS_AFTER = 1u << 3,           /* check for survivors and a live marker after the run */
    ASB_CHAOS_WATCH_MIGRATION = 1u << 4, /* ... and read the host's migration threads' CPU time
                                          * before and after the run (a /proc scan each) */
};

typedef struct asb_chaos_attack {
    const char *name;
    const char *what; /* one line */
    unsigned flags;
    unsigned plant;          /* ASB_CHAOS_PLANT_* (host.h) */
    double timeout_s;        /* 0 = ASB_CHAOS_DEFAULT_TIMEOUT_S */
    uint64_t file_out_bytes; /* 0 = the profile's default */
    const char *files_out;   /* one plain name to read back, or NULL */
    /* Positive control: profile (NULL = subprocess), weaken bits, limit overrides, and whether
     * the program is told it is a control run (ASB_CHAOS_CONTROL=1). */
    const char *control_profile;
    uint32_t control_weaken;
    double control_timeout_s;
    uint64_t control_output_bytes;
    bool control_env;
    /* The wall clock is how the attack is stopped (time_bomb). For every other attack a run the
     * clock ended with no sign of success is inconclusive, never `blocked`: the program may not
     * have got as far as trying (a loaded host). */
    bool timeout_is_the_block;
    /* An OOM kill is the defence (memory_bomb): such a run the clock ended is still judged. */
    bool oom_is_the_block;
} asb_chaos_attack_t;

#define ASB_CHAOS_DEFAULT_TIMEOUT_S 5.0

const asb_chaos_attack_t *asb_chaos_attacks(size_t *count);
const asb_chaos_attack_t *asb_chaos_attack_find(const char *name);

#endif
