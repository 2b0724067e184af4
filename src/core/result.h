/* result.h - building a result: init, errors, files, freeing. */
#ifndef ASB_CORE_RESULT_H
#define ASB_CORE_RESULT_H

#include "agent_sandbox.h"

void asb_result_init(asb_result_t *res);
int asb_result_set_error(asb_result_t *res, const char *message);
/* Takes ownership of data (malloc'd). */
int asb_result_add_file(asb_result_t *res, const char *name, unsigned char *data, size_t len);
int asb_result_add_refused(asb_result_t *res, const char *name, const char *reason);
void asb_attestation_free(asb_attestation_t *a);

#endif
