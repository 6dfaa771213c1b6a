/*
 * config.h — all SYNCTRACE_* settings, parsed once into st_config; and what the MPI launcher
 * announces to this process in its environment (rank, number of processes).
 *
 * getenv() appears only in config.c. st_config_load() is called once (library
 * constructor, or the CLI) before any other module reads st_config; afterwards the
 * struct is read-only and may be read from any thread without locking.
 */
#ifndef ST_CONFIG_H
#define ST_CONFIG_H

#include <stddef.h>
#include <stdio.h>

typedef struct st_config {
#define ST_VAR_FIELD_SIZE(f)   size_t f;
#define ST_VAR_FIELD_BOOL(f)   int f;
#define ST_VAR_FIELD_UINT(f)   unsigned long f;
#define ST_VAR_FIELD_DOUBLE(f) double f;
#define ST_VAR_FIELD_FRACTION(f) double f;
#define ST_VAR_FIELD_STRING(f) char f[512];
#define ST_VAR_FIELD_PATH(f)   char f[4096];
#define ST_VAR_FIELD_ENUM(f)   int f;
#define ST_VAR(name, type, field, def, lo, hi, accepted, doc) ST_VAR_FIELD_##type(field)
#include "variables.def"
#undef ST_VAR
} st_config_t;

/* Enum values, in the order of their "accepted" lists in variables.def. */
enum { ST_CLOCK_MONOTONIC, ST_CLOCK_REALTIME, ST_CLOCK_MONOTONIC_RAW, ST_CLOCK_BOOTTIME };
enum { ST_CLC_ON, ST_CLC_OFF };
enum { ST_ANALYZE_ON, ST_ANALYZE_OFF };
enum { ST_ROOTCAUSE_ON, ST_ROOTCAUSE_OFF };
enum { ST_ANALYZE_CHECK_WARN, ST_ANALYZE_CHECK_FAIL };
enum { ST_TIMER_AUTO, ST_TIMER_TSC, ST_TIMER_CLOCK };
enum { ST_LOCK_TICKETS_AUTO, ST_LOCK_TICKETS_REMOTE, ST_LOCK_TICKETS_OFF };

extern st_config_t st_config;
/* Nonzero once st_config_load() succeeded (a runtime may call into the tool before the constructor). */
extern volatile int st_config_loaded;

/*
 * Parses every SYNCTRACE_* variable into st_config (defaults for unset ones).
 * Returns 0, or -1 with a one-line message in err naming the variable, the bad
 * value and what is accepted. Unknown SYNCTRACE_* names are also an error (typos).
 */
int st_config_load(char *err, size_t errlen);

/* Writes the variable table (markdown when markdown != 0, else plain text). */
void st_config_print(FILE *out, int markdown);

/* Parses a size with optional k/M/G suffix; returns 0 on success. */
int st_config_parse_size(const char *s, size_t *out);

/*
 * The one strict number parser of every numeric setting: decimal digits with an optional fraction
 * ("1.5") and exponent ("2e3") when frac is nonzero, digits only otherwise; no sign, blank, hexadecimal,
 * inf or nan; the value must lie in lo .. hi. Returns 0 and the value, or -1.
 */
int st_config_parse_number(const char *s, int frac, double lo, double hi, double *out);

/*
 * What the MPI launcher announces in the environment, read when asked (before MPI_Init, or in a
 * program that never calls it). MPICH's hydra sets PMI_RANK and PMI_SIZE, Open MPI
 * OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE; PMIx launchers PMIX_SIZE, and MPICH also
 * MPI_LOCALNRANKS (the processes on this host).
 * st_config_launcher_rank: this process's rank (PMI_RANK, else OMPI_COMM_WORLD_RANK), -1 when none
 *   is set (not started by a launcher); messages meant once per job print where it is <= 0.
 * st_config_launcher_size: the number of processes (PMI_SIZE, else OMPI_COMM_WORLD_SIZE), 0 when none.
 * st_config_launcher_family: the MPI family ("mpich", "openmpi") whose launcher set the variable
 *   st_config_launcher_size reads (PMI_SIZE: hydra, MPICH; OMPI_COMM_WORLD_SIZE: Open MPI), NULL when none.
 * st_config_mpi_launched: nonzero when a launcher started more than one process (any of PMI_SIZE,
 *   OMPI_COMM_WORLD_SIZE, PMIX_SIZE, MPI_LOCALNRANKS above 1).
 * st_config_job_error_wait: called before a process of a job leaves non-zero on an error that only
 *   rank 0 prints: the other ranks wait 2 s. Launchers end the whole job at the first non-zero exit,
 *   and a rank that left at once could have rank 0 killed before its line was written or forwarded
 *   (seen with Open MPI's mpirun: exit code 2 and no line).
 */
int st_config_launcher_rank(void);
int st_config_launcher_size(void);
const char *st_config_launcher_family(void);
int st_config_mpi_launched(void);
void st_config_job_error_wait(void);

#endif
