/* obs.c - lifetime of the observation record. */
#include "chaos/obs.h"

#include <stdlib.h>
#include <string.h>

void asb_chaos_obs_init(asb_chaos_obs_t *o)
{
    memset(o, 0, sizeof(*o));
    o->watch.euid_seen = -1;
    o->watch.migr_base_ticks = o->watch.migr_end_ticks = -1;
    o->disk_read_before = o->disk_read_after = -1;
}

void asb_chaos_obs_free(asb_chaos_obs_t *o)
{
    for (int ch = 0; ch < ASB_CHAOS_CH_COUNT; ch++) {
        free(o->beacon[ch]);
        free(o->beacon_bridge[ch]);
    }
    free(o->shadow);
    free(o->kcore_hex);
    free(o->devmem_hex);
    memset(o, 0, sizeof(*o));
}
