/*
 * correct.c — the sequential correction of rank data in place (clc.h): `synctrace clc` over an
 * archive's ranks, and an OpenMP-only run at exit; and putting C back after a failed correction.
 */
#include "clc.h"

#include <string.h>

void st_clc_restore_orig(st_rel_input_t *in)
{
    for (uint32_t l = 0; l < in->nlocs; l++)
        for (uint64_t i = 0; in->locs[l].orig && i < in->locs[l].n; i++) {
            in->locs[l].ev[i].time = in->locs[l].orig[i];
            in->locs[l].ev[i].flags &= (uint8_t)~ST_EVF_CLC_MOVED;
        }
}

int st_clc_correct_rankdata(const st_clc_params_t *p, st_rankdata_t *rd, int nrd, const st_rel_sync_region_t *sync,
                            uint32_t nsync, st_clc_stats_t *stats, st_rel_graph_t *keep)
{
    st_rel_input_t in;
    st_rel_graph_t g;
    st_clc_stats_t own;
    stats = stats ? stats : &own;
    if (keep)
        memset(keep, 0, sizeof *keep);
    if (st_rel_input_from_rankdata(rd, nrd, &in))
        return -1;
    in.nsync = sync ? nsync : 0, in.sync = sync;
    size_t nlocks = in.nlocks;
    st_rel_input_lock_keep_ticketed(&in); /* CLC keeps only the lock relations the tickets order (relations/locks.h) */
    int rc = st_rel_graph_build(&in, &g);
    if (rc == 0) {
        rc = st_clc_run(p, &in, &g, stats);
        /* the graph of the times as they stay, and of every relation (no lock epoch left out): the analysis' */
        if (keep && rc == 0 && stats->moved == 0 && in.nlocks == nlocks)
            *keep = g;
        else
            st_rel_graph_free(&g);
    }
    if (rc != 0)
        st_clc_restore_orig(&in); /* out of memory: back to C */
    for (uint32_t l = 0; rc == 0 && l < in.nlocs; l++)
        for (uint64_t i = 0; i < in.locs[l].n; i++)
            if (in.locs[l].ev[i].flags & ST_EVF_CLC_MOVED)
                st_event_set_orig_time(&in.locs[l].ev[i], in.locs[l].orig[i]);
    st_rel_input_free(&in);
    return rc;
}
