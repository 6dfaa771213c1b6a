/*
 * rmagroups.c — the groups of MPI_Win_post and MPI_Win_start as the rank data holds them
 * (rankdata.h: st_group_def_t, rd->groups; prepare.h).
 *
 * The recorder writes a post's or start's group as RMA_GROUP_MEMBER events right after its
 * RMA_GROUP_SYNC (one per member, at the same time: the recorder's way with variable-length data,
 * no allocation in the call). Preparing folds them into the rank's table of distinct groups and
 * names the group in the RMA_GROUP_SYNC (id = index + 1), so that everyone after (the relations,
 * the analysis, the OTF2 writer: a Group definition) reads one table; the archive reader fills the
 * same table from the Group definitions that RmaGroupSync records name.
 */
#include "prepare.h"

#include <stdlib.h>
#include <string.h>

#include "region.h"
#include "../util/log.h"


int st_rankdata_group_intern(st_rankdata_t *rd, const int32_t *m, uint32_t n, uint64_t *id)
{
    *id = 0;
    if (n == 0)
        return 0;
    for (uint32_t i = 0; i < rd->ngroups; i++) /* few distinct groups per rank */
        if (rd->groups[i].size == n && memcmp(rd->groups[i].world, m, n * sizeof *m) == 0) {
            *id = (uint64_t)i + 1;
            return 0;
        }
    st_group_def_t *g = realloc(rd->groups, (rd->ngroups + 1) * sizeof *g);
    int32_t *w = malloc(n * sizeof *w);
    if (g)
        rd->groups = g;
    if (!g || !w) {
        free(w);
        return -1;
    }
    memcpy(w, m, n * sizeof *m);
    rd->groups[rd->ngroups++] = (st_group_def_t){ .size = n, .world = w };
    *id = rd->ngroups;
    return 0;
}

/* One thread: members folded into their RMA_GROUP_SYNC and removed; the thread events kept go to note. 0, or -1 (memory). */
static int fold_thread(st_rankdata_t *rd, st_thread_data_t *t, int32_t **buf, size_t *cap, st_thread_event_fn *note,
                       void *arg)
{
    st_event_t *ev = t->events;
    /* Up to the first member or group sync nothing moves and nothing folds: only the thread events are noted
     * (most traces have no post or start at all, and this pass sees every event) */
    uint64_t j0 = 0;
    for (; j0 < t->nevents; j0++) {
        unsigned kind = ev[j0].kind;
        if (kind == ST_EV_RMA_GROUP_MEMBER || kind == ST_EV_RMA_GROUP_SYNC)
            break;
        if (note && st_event_is_thread(kind))
            note(arg, t, &ev[j0]);
    }
    uint64_t k = j0, sync = UINT64_MAX; /* the post/start whose members follow (index after moving) */
    size_t n = 0;
    for (uint64_t j = j0; j <= t->nevents; j++) {
        int member = j < t->nevents && ev[j].kind == ST_EV_RMA_GROUP_MEMBER;
        if (member && sync != UINT64_MAX) {
            if (n == *cap) {
                size_t nc = *cap ? 2 * *cap : 64;
                int32_t *g = realloc(*buf, nc * sizeof *g);
                if (!g)
                    return -1;
                *buf = g, *cap = nc;
            }
            (*buf)[n++] = ev[j].peer;
            continue;
        }
        int flush = j < t->nevents && (ev[j].kind == ST_EV_ENTER || ev[j].kind == ST_EV_LEAVE) &&
                    ev[j].region == ST_REGION_FLUSH; /* a buffer flush may come between them */
        if (flush && sync != UINT64_MAX) {
            ev[k++] = ev[j];
            continue;
        }
        if (sync != UINT64_MAX && n && st_rankdata_group_intern(rd, *buf, (uint32_t)n, &ev[sync].id))
            return -1; /* (no members: the group as it is, e.g. read from an archive) */
        sync = UINT64_MAX, n = 0;
        if (j == t->nevents || member) /* a member without its post/start: dropped */
            continue;
        if (k != j)
            ev[k] = ev[j];
        if (note && st_event_is_thread(ev[k].kind))
            note(arg, t, &ev[k]);
        if (ev[k].kind == ST_EV_RMA_GROUP_SYNC && (ev[k].op == ST_PSCW_POST || ev[k].op == ST_PSCW_START))
            sync = k;
        k++;
    }
    t->nevents = k;
    return 0;
}

int st_rankdata_fold_groups(st_rankdata_t *rd, st_thread_event_fn *note, void *arg)
{
    int32_t *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < rd->nthreads; i++)
        if (rd->threads[i].events)
            rc = fold_thread(rd, &rd->threads[i], &buf, &cap, note, arg);
    free(buf);
    if (rc)
        st_log_error("out of memory while reading the RMA groups of rank %d", rd->rank);
    return rc;
}
