/*
 * rc_common.c — what every part of the root-cause analysis shares (rootcause.h): which delay
 * metric a wait-state metric is charged to, and freeing a timeline and its causes.
 */
#include "rootcause.h"

#include "../util/mem.h"

#include <stdlib.h>
#include <string.h>

int st_rc_delay_metric(int m)
{
    switch (m) {
    case ST_AN_M_LATESENDER:        return ST_AN_M_DELAY_LS;
    case ST_AN_M_LATERECEIVER:      return ST_AN_M_DELAY_LR;
    case ST_AN_M_BARRIER_WAIT:      return ST_AN_M_DELAY_BARRIER;
    case ST_AN_M_WAIT_NXN:          return ST_AN_M_DELAY_N2N;
    case ST_AN_M_LATEBROADCAST:     return ST_AN_M_DELAY_12N;
    case ST_AN_M_EARLYREDUCE:       return ST_AN_M_DELAY_N21;
    case ST_AN_M_OMP_EBARRIER_WAIT:
    case ST_AN_M_OMP_IBARRIER_WAIT: return ST_AN_M_DELAY_OMPBARRIER;
    case ST_AN_M_OMP_IDLE:          return ST_AN_M_DELAY_OMPIDLE;
    default:                        return -1;
    }
}

void st_rc_input_free(st_rc_input_t *in)
{
    for (uint32_t l = 0; in->locs && l < in->nlocs; l++) {
        st_rc_loc_t *L = &in->locs[l];
        st_mem_free(L->calls), st_mem_free(L->prof), st_mem_free(L->waits), st_mem_free(L->rels);
    }
    free(in->locs);
    memset(in, 0, sizeof *in);
}

void st_rc_causes_free(st_rc_causes_t *c)
{
    free(c->v), free(c->prop), free(c->path);
    memset(c, 0, sizeof *c);
}
