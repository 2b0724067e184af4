/* cli.h - subcommands and the few helpers they share. Only the CLI prints and exits. */
#ifndef ASB_CLI_H
#define ASB_CLI_H

#include "agent_sandbox.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#define CLI_EXIT_USAGE 2
#define CLI_EXIT_INTERNAL 125

int cli_run(int argc, char **argv);
int cli_profiles(int argc, char **argv);
int cli_preflight(int argc, char **argv);
int cli_cleanup(int argc, char **argv);
int cli_image(int argc, char **argv);
int cli_latency(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_chaos(int argc, char **argv);

/* "agent-sandbox: error: <msg>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* s with control characters (C0, DEL, C1 in UTF-8) escaped, for a line of the CLI's own. */
void cli_put_text(FILE *f, const char *s);
/* A program's output for a terminal: the same escapes, but its newlines and tabs kept. */
void cli_put_output(FILE *f, const unsigned char *data, size_t len);

/* The value-taking flags a command has met so far. A single-valued flag given twice is refused:
 * the later value used to win silently, so a wrapper's `--profile hardened` was undone by an
 * appended `--profile subprocess` (QA finding). */
#define CLI_MAX_FLAGS 32
typedef struct cli_seen {
    const char *flags[CLI_MAX_FLAGS];
    size_t n;
} cli_seen_t;
/* 0 the first time `flag` is met, else a clear error and -1. */
int cli_once(cli_seen_t *seen, const char *flag);

/* Whether `arg` is one of `cmd`'s value-taking options (`names`, NULL-terminated); if not, a
 * clear "unknown option" error first. Checked before the value is looked for, so that an
 * unknown last argument (or `--code=x`) is not reported as a missing value (QA finding). */
bool cli_value_option(const char *cmd, const char *arg, const char *const *names);

/* After printing --help: 0, or CLI_EXIT_INTERNAL with an error when stdout lost it. */
int cli_help_done(void);

/* Parse helpers: return 0 or print a clear error naming the flag and return -1. */
int cli_parse_double(const char *flag, const char *s, double min, double max, double *out);
int cli_parse_u64(const char *flag, const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Artifacts the CLI writes (flag names the option in errors; "-" is standard output): only a
 * regular or new file is replaced, by a rename, never through a symlink; a relative path's
 * directories are made as needed and never followed through symlinks (outfile.c).
 * cli_output_check: the same checks before any work, creating nothing. */
int cli_output_check(const char *flag, const char *path);
int cli_output_write(const char *flag, const char *path, const void *data, size_t len);
/* text and a newline. */
int cli_output_write_line(const char *flag, const char *path, const char *text);

/* TERM, INT and HUP while the CLI works (sigwatch.c): every child of ours and every container
 * of ours is killed. Without `cancel` the process then ends as the signal would have; with it,
 * *cancel is set, what we start is killed until cli_sigwatch_stop, and a second signal ends the
 * process at once (not the same one again within a second: timeout(1) sends TERM twice). Start
 * returns false when no watch could be set up (the signals then keep their defaults); stop returns
 * the signal caught, or 0. */
typedef struct cli_sigwatch {
    sigset_t set, old;
    int sigfd, stopfd;
    pthread_t thread;
    bool active;
    bool library; /* cli_sigwatch_start_cancel: the run itself watches sigfd, no thread */
    atomic_bool *cancel;
    atomic_int caught;
    bool docker; /* the work makes containers: a create may be in flight when a signal comes */
} cli_sigwatch_t;
bool cli_sigwatch_start(cli_sigwatch_t *w, atomic_bool *cancel, bool docker);
/* The same for a run the library can cancel (native, subprocess), without a thread: the signals
 * are blocked and cfg is made cancellable by a signalfd of them, so a signal ends the run, which
 * removes all of it and returns; cli_sigwatch_stop then ends the process by that signal (shells
 * report 128 + N). Falls back to cli_sigwatch_start when no signalfd can be made. */
bool cli_sigwatch_start_cancel(cli_sigwatch_t *w, asb_config_t *cfg);
int cli_sigwatch_stop(cli_sigwatch_t *w);

/* Read a whole file (size-capped) into a malloc'd buffer. */
int cli_read_file(const char *path, size_t cap, unsigned char **data, size_t *len);

/* Read all of stdin, but give up with a clear error if it has not ended within timeout_s: a
 * caller that leaves its stdin pipe open must not hang the run before it starts. */
int cli_read_stdin(size_t cap, double timeout_s, unsigned char **data, size_t *len);

#endif
