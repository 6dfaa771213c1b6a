/*
 * tsc_points.h — calibration points of the TSC timer and the arithmetic on them (no state,
 * no clock reads), shared by the shim (tsc.c: the finalize correction) and the CLI
 * (`synctrace recover` applies the same correction to the events of raw dumps).
 */
#ifndef ST_CLOCK_TSC_POINTS_H
#define ST_CLOCK_TSC_POINTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct st_tsc_point {
    uint64_t tsc;   /* counter at the midpoint of the bracket */
    uint64_t local; /* the same as local ns (st_tsc_to_ns) */
    uint64_t ref;   /* the system clock (SYNCTRACE_CLOCK) read inside the bracket */
} st_tsc_point_t;

/*
 * A TSC conversion stays within ST_TSC_FIT_BASE_NS plus ST_TSC_FIT_PPM of the time since it was
 * measured of the system clock (a 2 ms measurement's rate is off by ppm); beyond that the counter
 * jumped: a virtual machine restored from a snapshot or moved to another host keeps its system
 * clock but not its TSC.
 */
#define ST_TSC_FIT_BASE_NS 1000000
#define ST_TSC_FIT_PPM     100.0

/* How far the TSC clock jumped against the system clock from point a to the later point b (ns: b's
 * offset, ref - local, minus a's) when more than its rate error explains, else 0. */
int64_t st_tsc_jump(const st_tsc_point_t *a, const st_tsc_point_t *b);

/* Piecewise linear local -> ref through n points (n >= 2, local increasing); extrapolates the end segments. */
uint64_t st_tsc_interp(const st_tsc_point_t *p, size_t n, uint64_t local);

/* st_tsc_interp of count times in place, stride bytes apart (the time fields of an array of events); the segment
 * searched from the previous time's step by step: for times in order a step or none instead of a binary search. */
void st_tsc_interp_many(const st_tsc_point_t *p, size_t n, uint64_t *time, size_t count, size_t stride);

/* Counter frequency over the points (first to last), Hz; 0 without two points. */
double st_tsc_hz(const st_tsc_point_t *p, size_t n);

/* Largest distance of a point from the line through the first and the last, ns (clock slewing, bad points). */
double st_tsc_nonlinearity(const st_tsc_point_t *p, size_t n);

/*
 * A point as text for the properties of a raw dump ("timer.tsc_point.N"): "tsc=T local=L ref=R"
 * (abend.c writes the same text without stdio for the point it takes while dumping).
 * st_tsc_point_parse returns 0, or -1 if value is not such a text.
 */
void st_tsc_point_format(const st_tsc_point_t *p, char *buf, size_t len);
int st_tsc_point_parse(const char *value, st_tsc_point_t *p);

#endif
