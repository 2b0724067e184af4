#include "core/result.h"

#include <stdlib.h>
#include <string.h>

void asb_config_init(asb_config_t *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
}

const char *asb_status_name(asb_status_t status)
{
    switch (status) {
    case ASB_STATUS_COMPLETED:
        return "completed";
    case ASB_STATUS_TIMEOUT:
        return "timeout";
    case ASB_STATUS_OUTPUT_LIMIT:
        return "output_limit";
    case ASB_STATUS_OOM_KILLED:
        return "oom_killed";
    case ASB_STATUS_KILLED:
        return "killed";
    case ASB_STATUS_SANDBOX_ERROR:
        return "sandbox_error";
    }
    return "sandbox_error";
}

int asb_result_exit_status(const asb_result_t *res)
{
    switch (res->status) {
    case ASB_STATUS_COMPLETED:
        return res->exit_code >= 0 && res->exit_code <= 255 ? res->exit_code : 125;
    case ASB_STATUS_TIMEOUT:
        return 124;
    case ASB_STATUS_OUTPUT_LIMIT:
    case ASB_STATUS_OOM_KILLED:
    case ASB_STATUS_KILLED:
        return 137;
    case ASB_STATUS_SANDBOX_ERROR:
        return 125;
    }
    return 125;
}

void asb_result_init(asb_result_t *res)
{
    memset(res, 0, sizeof(*res));
    res->exit_code = -1;
    res->status = ASB_STATUS_SANDBOX_ERROR;
}

void asb_attestation_free(asb_attestation_t *a)
{
    free(a->mismatch);
    free(a->net_ifaces);
    free(a->hostname);
    free(a->domainname);
    free(a->pid_ns);
    a->mismatch = a->net_ifaces = a->hostname = a->pid_ns = a->domainname = NULL;
}

void asb_result_free(asb_result_t *res)
{
    if (!res)
        return;
    free(res->error);
    free(res->out.data);
    free(res->err.data);
    for (size_t i = 0; i < res->n_files_out; i++) {
        free(res->files_out[i].name);
        free(res->files_out[i].content.data);
    }
    free(res->files_out);
    for (size_t i = 0; i < res->n_files_refused; i++) {
        free(res->files_refused[i].name);
        free(res->files_refused[i].reason);
    }
    free(res->files_refused);
    asb_attestation_free(&res->attestation);
    memset(res, 0, sizeof(*res));
}

int asb_result_set_error(asb_result_t *res, const char *message)
{
    char *m = strdup(message ? message : "unknown error");
    if (!m)
        return -1;
    free(res->error);
    res->error = m;
    return 0;
}

int asb_result_add_refused(asb_result_t *res, const char *name, const char *reason)
{
    asb_file_refused_t *n =
        realloc(res->files_refused, (res->n_files_refused + 1) * sizeof(*res->files_refused));
    if (!n)
        return -1;
    res->files_refused = n;
    n[res->n_files_refused].name = strdup(name);
    n[res->n_files_refused].reason = strdup(reason);
    res->n_files_refused++;
    return 0;
}

int asb_result_add_file(asb_result_t *res, const char *name, unsigned char *data, size_t len)
{
    asb_file_out_t *n = realloc(res->files_out, (res->n_files_out + 1) * sizeof(*res->files_out));
    if (!n)
        return -1;
    res->files_out = n;
    n[res->n_files_out].name = strdup(name);
    n[res->n_files_out].content.data = data;
    n[res->n_files_out].content.len = len;
    res->n_files_out++;
    return 0;
}
