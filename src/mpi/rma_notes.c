/* rma_notes.c — one notes communicator per communicator with windows (rma_notes.h). */
#include "rma_notes.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "../util/log.h"

struct st_rma_notes {
    MPI_Comm comm;  /* the copy (MPI_COMM_NULL: it could not be made) */
    uint32_t holds; /* the windows that keep it, + 1 while the communicator it copies lives */
    uint64_t made;  /* windows created on that communicator so far: the next one's tag */
};

/* A communicator whose copy could not be kept (no memory): cached all the same, so that no member
 * makes one at a later window when the others do not. */
static st_rma_notes_t none = { MPI_COMM_NULL, 1, 0 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int keyval = MPI_KEYVAL_INVALID;
static uint64_t tags = 0; /* tags 1 .. tags: MPI_TAG_UB (at least 32767) */

static void drop(st_rma_notes_t *n)
{
    if (n == &none || --n->holds > 0)
        return;
    if (n->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&n->comm);
    free(n);
}

/* The communicator is freed (or MPI finalized): its hold ends. */
static int on_delete(MPI_Comm comm, int kv, void *value, void *extra)
{
    (void)comm, (void)kv, (void)extra;
    pthread_mutex_lock(&lock);
    drop(value);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* The keyval and the tag bound, once (under lock). 0, or -1. */
static int setup(void)
{
    if (keyval != MPI_KEYVAL_INVALID)
        return 0;
    int *ub = NULL, flag = 0;
    tags = PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag && ub && *ub > 1
               ? (uint64_t)*ub
               : 32767;
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &keyval, NULL) == MPI_SUCCESS ? 0 : -1;
}

st_rma_notes_t *st_rma_notes_attach(MPI_Comm comm, int keep, int *tag)
{
    *tag = 0;
    pthread_mutex_lock(&lock);
    st_rma_notes_t *n = NULL;
    int flag = 0;
    if (setup() != 0 || PMPI_Comm_get_attr(comm, keyval, &n, &flag) != MPI_SUCCESS) {
        pthread_mutex_unlock(&lock);
        st_log_warn_once("cannot look up the communicator for MPI_Win_post's notes; post -> start is not related");
        return NULL;
    }
    if (!flag) { /* the communicator's first window: every member comes here at the same creation */
        /* a split, not a dup: the application's attributes are not copied onto it (their callbacks would
         * see a communicator it never made); the collective whatever else fails */
        MPI_Comm dup = MPI_COMM_NULL;
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        int ok = PMPI_Comm_split(comm, 0, me, &dup) == MPI_SUCCESS;
        if (!(n = calloc(1, sizeof *n))) {
            if (ok)
                PMPI_Comm_free(&dup);
            n = &none;
        } else {
            n->comm = ok ? dup : MPI_COMM_NULL;
            n->holds = 1;
        }
        if (PMPI_Comm_set_attr(comm, keyval, n) != MPI_SUCCESS) { /* no memory in MPI either */
            drop(n);
            pthread_mutex_unlock(&lock);
            st_log_warn_once("cannot keep the communicator for MPI_Win_post's notes; post -> start is not related");
            return NULL;
        }
    }
    *tag = (int)(1 + n->made++ % tags);
    if (keep && n->comm != MPI_COMM_NULL)
        n->holds++;
    else
        n = NULL;
    pthread_mutex_unlock(&lock);
    return n;
}

MPI_Comm st_rma_notes_comm(const st_rma_notes_t *n) { return n ? n->comm : MPI_COMM_NULL; }

void st_rma_notes_release(st_rma_notes_t *n, int tag)
{
    if (!n)
        return;
    pthread_mutex_lock(&lock);
    int flag = 1;
    uint64_t buf[2];
    while (PMPI_Iprobe(MPI_ANY_SOURCE, tag, n->comm, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag)
        PMPI_Recv(buf, 2, MPI_UINT64_T, MPI_ANY_SOURCE, tag, n->comm, MPI_STATUS_IGNORE);
    drop(n);
    pthread_mutex_unlock(&lock);
}
