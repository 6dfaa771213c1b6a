/*
 * omp.h — OpenMP events through OMPT: what the rest of the library calls.
 *
 * libsynctrace.so defines ompt_start_tool(), so an LLVM libomp (clang's runtime, or
 * LLVM's GOMP-compatible libgomp.so.1 stand-in for gcc-built programs) activates the
 * tool when the library is loaded. The callbacks (the .c files of src/omp) record OpenMP events as
 * the THREAD_* kinds and ENTER/LEAVE of the OpenMP regions (events.def, regions.def)
 * on the calling thread's location; they take no lock and allocate nothing per event.
 *
 * Recording follows st_record_active: events are dropped while it is zero. The shim's
 * end paths (MPI_Finalize, exit of a program without MPI) call st_omp_finalize()
 * before they read the buffers back.
 */
#ifndef ST_OMP_H
#define ST_OMP_H

/*
 * Ends OpenMP recording and completes what the runtime has not reported yet.
 *
 * LLVM libomp reports the end of a worker's last implicit barrier and implicit task
 * only when the worker is woken for the next parallel region or at runtime shutdown,
 * which comes after the library's destructors and atexit handlers. This function
 * writes those missing LEAVE / THREAD_TEAM_END events for every idle worker, stamped
 * with the times its team's master published, so that every fork has a join and
 * every enter a leave. OpenMP callbacks record nothing afterwards.
 *
 * Call it once recording of OpenMP is over and before st_record_load(): from serial
 * code (no parallel region of this process active, as at MPI_Finalize or exit). A
 * team that is still running at that point is left as it is and reported once.
 * Idempotent; not thread-safe against itself (the end paths are serialized).
 * Not collective.
 */
void st_omp_finalize(void);

/* When the process's OpenMP runtime cannot report to the tool (gcc's GNU libgomp has no OMPT: a plain
 * LD_PRELOAD of a gcc-built program records MPI only; synctrace-run puts LLVM's GOMP-compatible
 * libgomp.so.1 in its place), says once per process in one line why OpenMP events are missing and how
 * to get them, when say is nonzero (the rank that speaks): at load (at_end 0, after the program's
 * libraries are loaded), and at the run's end (at_end 1) for a runtime loaded while the program ran
 * (dlopen: Python's numpy through OpenBLAS), which synctrace-run cannot see (--gomp). Not in a signal
 * handler. */
void st_omp_runtime_notice(int at_end, int say);

#endif
