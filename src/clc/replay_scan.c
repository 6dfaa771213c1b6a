/*
 * replay_scan.c — scans (MPI_Scan, MPI_Exscan and their kind: PREFIX instances) in the
 * engine (replay_int.h): the prefix maximum and suffix minimum over a scan's entries, and in
 * the message-by-message replay the chain of R_PFX records along the comm ranks that lets a
 * scan's receive go on before the tree's result (see the comment above CHAIN_IN).
 */
#include "replay_int.h"

/* Scans: largest value vi of entries below (or smallest above) order o. NONE64: the
 * entry has no such value (a round's entries are sends or receives). */
int rp_prefix_max(const entvec_t *e, uint64_t o, unsigned vi, uint64_t *v)
{
    int have = 0;
    for (size_t i = 0; e && i < e->n; i++)
        if (e->v[i].order < o && e->v[i].v[vi] != NONE64 && (!have || e->v[i].v[vi] > *v))
            *v = e->v[i].v[vi], have = 1;
    return have;
}

int rp_suffix_min(const entvec_t *e, uint64_t o, unsigned vi, uint64_t *v)
{
    int have = 0;
    for (size_t i = 0; e && i < e->n; i++)
        if (e->v[i].order > o && e->v[i].v[vi] != NONE64 && (!have || e->v[i].v[vi] < *v))
            *v = e->v[i].v[vi], have = 1;
    return have;
}

/*
 * Scans in the replay. The receive of comm rank o depends on the sends of ranks < o only,
 * but the tree's result needs every member's send, and a rank above o may reach the scan
 * only after a message that o sends after it (a scan that does not synchronize, e.g. a
 * linear one): waiting for the result would then stall a consistent trace. So every member
 * also passes the prefix maximum over ranks <= o to rank o + 1 (a chain of R_PFX records,
 * one per member and scan), and a receive goes on with whichever comes first. Each member
 * sends its record exactly once (from the chain or else from the tree's result, which
 * every member gets) and waits for the one of rank o - 1 before the backward pass, so no
 * record reaches a rank that is done. Members without the scan in their trace learn of it
 * from the first record or the result (the chain is then late, never wrong).
 */
enum { CHAIN_IN = 1, CHAIN_OUT = 2, CHAIN_WAIT = 4 };

/* This rank's rank o in channel c and the world rank of o + 1 (-1: none). -1: no chain
 * (not an intracommunicator of this rank). */
static int chain_place(const st_clc_replay_t *r, const chan_t *c, uint32_t *o, int32_t *next)
{
    const st_rel_proc_t *pr = &r->in->procs[r->me];
    for (uint32_t i = 0; c->kind == CH_COMM && !c->inter && i < pr->ncomms; i++) {
        const st_comm_def_t *d = &pr->comms[i];
        for (uint32_t j = 0; d->key == c->key && d->world && j < d->size; j++)
            if (d->world[j] == r->me) {
                *o = j;
                *next = j + 1 < d->size ? d->world[j + 1] : -1;
                return 0;
            }
    }
    return -1;
}

/* Sends this rank's prefix value of scan s once it is known: the value from rank o - 1 is
 * in (or o = 0) and the own sends are computed, or the tree's result is there. */
void rp_chain_send(st_clc_replay_t *r, chan_t *c, uint64_t s)
{
    tracker_t *t = tracker(c, PH_F, s);
    uint32_t o;
    int32_t next;
    if ((t->chain & CHAIN_OUT) || chain_place(r, c, &o, &next))
        return;
    if (!t->done && (c->pend[s] || (o > 0 && !(t->chain & CHAIN_IN))))
        return;
    t->chain |= CHAIN_OUT;
    uint64_t v = NONE64;
    if (!rp_prefix_max(ents_ro(c, PH_F, s), (uint64_t)o + 1, 0, &v)) /* entries: sends or prefixes of ranks <= o */
        v = NONE64;
    uint8_t *p = next < 0 ? NULL : rp_rec_begin(r, next, R_PFX, PH_F, c, s, 1, 8);
    if (p)
        st_xchg_put_u64(p, v);
}

/* Seq s of channel c is a scan: wait for the value of rank o - 1, send ours when we can. */
void rp_chain_known(st_clc_replay_t *r, chan_t *c, uint64_t s)
{
    tracker_t *t = tracker(c, PH_F, s);
    uint32_t o;
    int32_t next;
    if (chain_place(r, c, &o, &next))
        return;
    if (o > 0 && !(t->chain & (CHAIN_IN | CHAIN_WAIT))) {
        t->chain |= CHAIN_WAIT;
        r->chain_wait++;
    }
    rp_chain_send(r, c, s);
}

int rp_on_pfx(st_clc_replay_t *r, chan_t *c, const rec_t *h, reader_t *rd)
{
    uint64_t v, s = h->seq;
    uint32_t o;
    int32_t next;
    if (st_xchg_get_u64(rd, &v) || r->state != S_FWD || h->nseq != 1 || s >= c->N || chain_place(r, c, &o, &next) ||
        o == 0 || (tracker(c, PH_F, s)->chain & CHAIN_IN))
        return -1;
    tracker_t *t = tracker(c, PH_F, s);
    if (t->chain & CHAIN_WAIT)
        r->chain_wait--;
    t->chain |= CHAIN_IN;
    if (!t->done && v != NONE64) { /* the prefix of ranks < o, as an entry of rank o - 1 */
        entvec_t *e = rp_ents(r, c, PH_F, s);
        if (!e || rp_ent_push(e, (ent_t){ .order = o - 1, .v = { v, 0 } }))
            return rp_fail(r, "out of memory"), 0;
    }
    uint64_t ks[2] = { c->inst0[s], c->inst1[s] };
    for (int j = 0; j < 2; j++)
        if (ks[j] != NONE64)
            st_clc_sched_wake(&r->sched, ks[j]);
    rp_chain_known(r, c, s);
    return 0;
}

/* A scan's receive that may go on before the tree's result (see R_PFX above). */
int rp_chain_ready(const st_clc_replay_t *r, uint64_t k, const st_rel_port_t *p)
{
    if (r->state != S_FWD || r->cat[k] != CAT_COLL || r->g.inst[k].shape != ST_REL_PREFIX)
        return 0;
    const chan_t *c = &r->ch[r->ia[k]];
    return ref_order(r, k, p->slot) == 0 || (c->ph[PH_F].tr[r->ib[k]].chain & CHAIN_IN);
}
