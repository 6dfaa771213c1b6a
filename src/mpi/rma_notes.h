/*
 * rma_notes.h — the communicator that carries the post -> start notes of the windows of one
 * communicator (rma.c says what the notes are).
 *
 * One copy of a communicator (MPI_Comm_split into one part, which, unlike a dup, copies none of the
 * application's attributes, so that their callbacks see no communicator it did not make) serves every
 * window created on it, each window's notes under a tag of its own: one more context id per
 * communicator that has windows, where a duplicate per window took one per window (MPICH 4.0.2 has
 * 2,048: two processes that kept 1,022 windows could create no more traced, 2,046 untraced). The copy
 * is made at the communicator's first window and cached as an attribute of the communicator itself, so
 * that every member decides alike whether to make it (a collective), whatever the tool's own tables
 * hold; it is freed once the communicator and every window that uses it here are. A note that arrives
 * after its window's release (none should: every epoch is closed by then) stays unreceived, its tag not
 * given to another window before MPI_TAG_UB more windows.
 */
#ifndef ST_MPI_RMA_NOTES_H
#define ST_MPI_RMA_NOTES_H

#include <mpi.h>

typedef struct st_rma_notes st_rma_notes_t;

/* At a window's creation on comm (every member, after a successful PMPI creation: it may copy comm,
 * a collective): the window's tag on the notes' communicator in *tag. With keep, the window holds the
 * communicator until st_rma_notes_release; without (a window the tool does not know here), it takes no
 * part in it beyond the tag's count. Returns what st_rma_notes_comm and st_rma_notes_release take (NULL:
 * no communicator could be made, or keep was 0). */
st_rma_notes_t *st_rma_notes_attach(MPI_Comm comm, int keep, int *tag);

/* The notes' communicator a window holds (MPI_COMM_NULL for NULL: the window sends and takes no notes). */
MPI_Comm st_rma_notes_comm(const st_rma_notes_t *n);

/* At the release of a window that kept the notes' communicator (every epoch closed): the notes under its
 * tag that arrived and were not taken are received, and the communicator freed when nothing else holds it. */
void st_rma_notes_release(st_rma_notes_t *n, int tag);

#endif
