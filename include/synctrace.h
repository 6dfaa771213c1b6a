/*
 * synctrace.h — the public, app-facing API of synctrace (optional to use).
 *
 * An application never needs this header to be traced: synctrace is preloaded in front of
 * an unmodified program. The header is for programs that want to ask the tool something
 * while they run, chiefly to read the same synchronized global clock the trace is stamped
 * with (e.g. to print phase timings comparable across ranks and with the trace).
 *
 * Every function is declared weak, so a program that calls them links and runs without
 * synctrace; the address of a function is then NULL. Test it before calling:
 *
 *     #include <synctrace.h>
 *     uint64_t t = synctrace_global_time_ns ? synctrace_global_time_ns() : my_clock_ns();
 *     if (SYNCTRACE_LOADED() && synctrace_enabled()) ...
 *
 * Do not link with -lsynctrace: preload the library (synctrace-run), which resolves the weak
 * references at start-up. This works for position-independent executables (the default of
 * Debian's gcc and clang, and of mpicc); a program built with -no-pie must look the functions
 * up with dlsym(RTLD_DEFAULT, "synctrace_global_time_ns") instead.
 *
 * Compile flags: pkg-config --cflags synctrace. C99 or later, C++ (extern "C").
 */
#ifndef SYNCTRACE_H
#define SYNCTRACE_H

#include <stdint.h>

#define SYNCTRACE_API_VERSION 1  /* raised when a function is added */

/* The library defines SYNCTRACE_BUILDING before including this header: its definitions are
 * then strong and exported from a library built with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#  if defined(SYNCTRACE_BUILDING)
#    define SYNCTRACE_API __attribute__((visibility("default")))
#  else
#    define SYNCTRACE_API __attribute__((weak))
#  endif
#else
#  define SYNCTRACE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * synctrace_enabled — 1 if this process is being traced right now: the library is loaded,
 * its configuration is valid, SYNCTRACE_ENABLE is not 0 and tracing has not been stopped by
 * an internal failure; 0 otherwise (loaded but idle). Thread-safe, lock-free, any time
 * (before MPI_Init too), async-signal-safe.
 */
SYNCTRACE_API int synctrace_enabled(void);

/*
 * synctrace_global_time_ns — the synchronized global clock, in nanoseconds: the timestamp
 * an event recorded at this instant would get before the CLC correction (clock
 * synchronization applied; the CLC only moves events of the trace, not this clock). Before
 * the first synchronization (in MPI_Init) and in processes without MPI it is the local clock
 * selected by SYNCTRACE_CLOCK. Comparable across ranks after MPI_Init. Thread-safe,
 * lock-free, async-signal-safe, never blocks, costs about one clock_gettime.
 */
SYNCTRACE_API uint64_t synctrace_global_time_ns(void);

#ifdef __cplusplus
}
#endif

/* SYNCTRACE_LOADED() — true if the synctrace library is in the process (preloaded). */
#define SYNCTRACE_LOADED() (synctrace_enabled != 0 && synctrace_global_time_ns != 0)

#endif /* SYNCTRACE_H */
