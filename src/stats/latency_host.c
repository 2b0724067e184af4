/* latency_host.c - the facts about the machine a latency study ran on, for its record: timings
 * mean little without the CPU, the kernel and how busy the machine was. */
#include "stats/latency_study.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static double load1(void)
{
    double v = -1.0;
    FILE *f = fopen("/proc/loadavg", "re");
    if (f) {
        if (fscanf(f, "%lf", &v) != 1)
            v = -1.0;
        fclose(f);
    }
    return v;
}

static void cpu_model(char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        snprintf(buf, size, "%s", colon);
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(f);
}

static void utc_now(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void asb_latency_host_probe(asb_latency_host_t *h)
{
    memset(h, 0, sizeof(*h));
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(h->hostname, sizeof(h->hostname), "%s", u.nodename);
        snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
        snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
    }
    cpu_model(h->cpu_model, sizeof(h->cpu_model));
    h->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
    h->load1_start = load1();
    h->load1_end = -1.0;
    h->load1_max = h->load1_start;
    utc_now(h->started_at, sizeof(h->started_at));
}

void asb_latency_host_sample(asb_latency_host_t *h)
{
    double v = load1();
    if (v > h->load1_max)
        h->load1_max = v;
}

void asb_latency_host_finish(asb_latency_host_t *h)
{
    asb_latency_host_sample(h);
    h->load1_end = load1();
    utc_now(h->finished_at, sizeof(h->finished_at));
}
