/*
 * test_exchange_mpi.c — the exchange layer's MPI transport (src/exchange/exchange_mpi.c) on 3 ranks:
 * every rank sends every rank (itself included) messages around and far beyond the piece size
 * (ST_XMPI_PIECE_BYTES), interleaved over the receivers, so that pieces from two senders arrive mixed
 * at each rank. Each message must be delivered once, whole, in its sender's order, byte for byte, and
 * the loop and the drain must end with every send completed; three engines in a row share the kept
 * receive buffer as finalize's do. Then a rank that rejects a message put together from pieces: its
 * loop and finish must fail and every rank's finish must drain what is in flight, without a hang (the
 * others, done before the failure, must not wait for their sends to it), and a next engine must work
 * again. tests/run-tests.sh runs it on 3 ranks (the ranks line).
 */
/* compiler: mpicc */
/* families: mpich openmpi */
/* ranks: 3 */
/* link: src/exchange/exchange_mpi.c src/exchange/polite_mpi.c src/util/log.c src/util/mem.c */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/exchange/exchange_mpi.h"
#include "../../src/util/clockread.h"
#include "../../src/util/mem.h"
#include "check.h"

/* MPICH's transport modules, unloaded at MPI_Finalize, leave allocations LeakSanitizer reports as leaks
 * of an unknown module. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "detect_leaks=0"; }

#define P ST_XMPI_PIECE_BYTES
static const size_t sizes[] = { 1, 1000, P - 1, P, P + 1, 2 * P, 3 * P + 17, 5 * P + 3, (size_t)5 << 20 };
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAXR   8

static int rank, nranks;

/* Byte i of message k from s to r (not periodic in the piece size). */
static uint8_t byte_of(int s, int r, size_t k, size_t i)
{
    return (uint8_t)(i * 131u + (i >> 9) * 7u + k * 29u + (size_t)s * 53u + (size_t)r * 17u);
}

typedef struct {
    st_xchg_net_t net;
    int           sent;            /* all sent */
    size_t        next[MAXR];      /* the next message index expected from each sender */
    size_t        got;             /* messages delivered */
    int           reject_from;     /* a sender whose message reject_k is refused (-1: none) */
    size_t        reject_k;
    int           bad;             /* a delivery was wrong (counted in failures too) */
} eng_t;

static int progress(void *ctx)
{
    eng_t *e = ctx;
    if (!e->sent) {
        e->sent = 1;
        for (size_t k = 0; k < NSIZES; k++) /* to every receiver in turn: their pieces interleave */
            for (int r = 0; r < nranks; r++) {
                uint8_t *b = st_mem_malloc(sizes[k]);
                REQUIRE(b != NULL);
                for (size_t i = 0; i < sizes[k]; i++)
                    b[i] = byte_of(rank, r, k, i);
                if (e->net.send(e->net.ctx, r, b, sizes[k]))
                    return ST_XMPI_FAILED;
            }
        return ST_XMPI_BUSY;
    }
    return e->got >= NSIZES * (size_t)nranks ? ST_XMPI_DONE : ST_XMPI_IDLE; /* more: a failure, reported */
}

static int deliver(void *ctx, int32_t from, const void *buf, size_t len)
{
    eng_t *e = ctx;
    const uint8_t *b = buf;
    REQUIRE(from >= 0 && from < nranks, "sender %d", (int)from);
    size_t k = e->next[from]++;
    if (from == e->reject_from && k == e->reject_k) { /* slowly: the others meanwhile get all they wait for */
        struct timespec ts = { 0, 300000000L };
        nanosleep(&ts, NULL);
        return -1;
    }
    int ok = k < NSIZES && len == sizes[k];
    EXPECT(ok, "message %zu from %d: %zu bytes (expected %zu)", k, (int)from, len, k < NSIZES ? sizes[k] : 0);
    size_t i = 0;
    while (ok && i < len && b[i] == byte_of(from, rank, k, i))
        i++;
    EXPECT(!ok || i == len, "message %zu from %d differs at byte %zu of %zu", k, (int)from, i, len);
    e->bad |= !ok || i != len;
    e->got++;
    return 0;
}

static void waiting(void *ctx, char *buf, size_t n)
{
    snprintf(buf, n, "%zu messages delivered", ((eng_t *)ctx)->got);
}

/* One engine's exchange; returns the loop's result and the finish's (1: ok). */
static int run(MPI_Comm comm, eng_t *e, int *finished)
{
    st_xmpi_t m;
    REQUIRE(st_xmpi_init(&m, comm) == 0);
    e->net = st_xmpi_net(&m);
    st_xmpi_engine_t eng = { "exchange test", progress, deliver, waiting, e };
    MPI_Barrier(comm); /* every engine exists before anyone sends */
    int rc = st_xmpi_loop(&m, &eng, rank, st_clock_s(CLOCK_MONOTONIC), 20.0, 0);
    *finished = st_xmpi_finish(&m, rc == 0, rank, 0, "exchange test");
    EXPECT(m.n == 0, "%d sends left after the finish", m.n);
    st_xmpi_free(&m);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    snprintf(check_context, sizeof check_context, "[rank %d] ", rank);
    REQUIRE(nranks >= 2 && nranks <= MAXR, "%d ranks", nranks);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);

    for (int round = 0; round < 3; round++) { /* the kept receive buffer from one engine to the next */
        eng_t e = { .reject_from = -1 };
        int fin = 0, rc = run(comm, &e, &fin);
        EXPECT(rc == 0 && fin == 1, "round %d: loop %d, finish %d", round, rc, fin);
        EXPECT(e.got == NSIZES * (size_t)nranks && !e.bad, "round %d: %zu of %zu messages, %s", round, e.got,
               NSIZES * (size_t)nranks, e.bad ? "some wrong" : "all right");
        for (int s = 0; s < nranks; s++)
            EXPECT(e.next[s] == NSIZES, "round %d: %zu messages from %d", round, e.next[s], s);
    }

    /* rank 1 refuses rank 2's message of 4 pieces, 0.3 s after it came: its loop fails, it tells the others, and
     * every rank's finish drains what is in flight. The others are done by then (all rank 1 sent arrived at once)
     * but their sends to it are not (rendezvous size: it receives nothing more until the drain): they must see
     * its abort at once, not wait for those sends for ever (nor until the loop's stall limit) */
    eng_t e = { .reject_from = rank == 1 ? 2 : -1, .reject_k = 6 };
    double t0 = st_clock_s(CLOCK_MONOTONIC);
    int fin = 1, rc = run(comm, &e, &fin);
    double took = st_clock_s(CLOCK_MONOTONIC) - t0;
    EXPECT(rank != 1 || (rc != 0 && fin == 0), "rank 1 refused a message: loop %d, finish %d", rc, fin);
    EXPECT(took < 5.0, "the failure took %.1f s to end the exchange (loop %d, finish %d, %zu messages)", took, rc,
           fin, e.got);

    eng_t again = { .reject_from = -1 };
    rc = run(comm, &again, &fin);
    EXPECT(rc == 0 && fin == 1 && again.got == NSIZES * (size_t)nranks && !again.bad,
           "after a failed exchange: loop %d, finish %d, %zu messages", rc, fin, again.got);

    st_xmpi_release();
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return failures != 0;
}
