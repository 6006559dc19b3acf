/* units.h - the one way strata writes a time and a rate for people: engineering units
 * (s, ms, us; k, M, G) and four significant digits written with fixed decimals, so the
 * eval table, the search table and the explorer agree and no column turns into 4.254e+05.
 * (Machine output, --json and --csv, keeps full precision in base units.) */
#ifndef STRATA_IO_UNITS_H
#define STRATA_IO_UNITS_H

#include <stddef.h>

/* Seconds as "7.455 s", "289.7 ms", "21.79 ms", "512.0 us" ("0 s" for zero). */
void units_time(double s, char *out, size_t n);
/* A rate as "425.4k", "5.294M", "812.0" (the caller adds the unit: tokens/s). */
void units_rate(double v, char *out, size_t n);
/* A count: "812" below a thousand, else as units_rate ("1.070M"). */
void units_count(double v, char *out, size_t n);
/* A large quantity as people write it, digits significant figures and a k, M, B or T
 * suffix: tokens ("15T", "300B"), GPU-hours and dollars ("463k", "1.03M"). */
void units_big(double v, int digits, char *out, size_t n);

#endif
