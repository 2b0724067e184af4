/* grader_driver.h - the trusted Python program that runs a python_check oracle. */
#ifndef ASB_BENCH_GRADER_DRIVER_H
#define ASB_BENCH_GRADER_DRIVER_H

/* The line the driver prints, followed by the run's secret, once check() has returned. */
#define ASB_BENCH_COMPLETE_MARK "ASB-BENCH-ORACLE-COMPLETE "

extern const char ASB_BENCH_GRADER_DRIVER[];

#endif
