/* fuzz_spec.c - the supervisor's run-spec parser (src/native/supervisor/spec.c) on arbitrary
 * bytes: the sandbox spec and the job spec arrive in this format, the job's at run time. It never
 * reads out of bounds or leaks, what it accepts satisfies the invariants the supervisor relies
 * on, and a spec always matches itself as a job. */
#include "native/supervisor/spec.c"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

static void must(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_spec: %s\n", what);
        abort();
    }
}

/* The supervisor never frees a spec (it exits); here every field goes, accepted or not. */
static void spec_free(sup_spec_t *s)
{
    asb_wire_strv_free(s->argv);
    asb_wire_strv_free(s->env);
    for (size_t i = 0; s->files_in && i < s->n_files_in; i++)
        free(s->files_in[i].name);
    free(s->files_in);
    for (size_t i = 0; i < s->n_bind_ro; i++)
        free(s->bind_ro[i]);
    memset(s, 0, sizeof(*s));
}

static int memfd_of(const uint8_t *data, size_t size)
{
    int fd = memfd_create("spec", MFD_CLOEXEC);
    must(fd >= 0, "memfd");
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        must(w > 0, "write memfd");
        off += (size_t)w;
    }
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_of(data, size);
    sup_spec_t spec, job;
    asb_error_t err = {0};
    int rc = sup_spec_read(fd, &spec, &err);
    if (rc == 0) {
        must(spec.argv && spec.argv[0] && spec.env, "accepted without argv/env");
        must(strlen(spec.nonce) < sizeof(spec.nonce), "nonce");
        must(spec.timeout_ms > 0, "timeout");
        for (size_t i = 0; i < spec.n_files_in; i++)
            must(spec.files_in[i].name && !strchr(spec.files_in[i].name, '/') &&
                     strcmp(spec.files_in[i].name, "..") != 0,
                 "file-in name");
        for (size_t i = 0; i < spec.n_bind_ro; i++)
            must(spec.bind_ro[i] && spec.bind_ro[i][0] == '/', "bind_ro path");
        /* The same bytes as a job: always the same sandbox, always taken. */
        must(sup_spec_read(fd, &job, &err) == 0, "second read differs");
        must(sup_spec_take_job(&spec, &job, &err) == 0, "a spec does not match itself");
        memset(&job, 0, sizeof(job)); /* its fields now belong to spec (or were freed) */
    } else {
        must(err.message[0] != '\0', "refused without a reason");
    }
    spec_free(&spec);
    close(fd);
    return 0;
}
