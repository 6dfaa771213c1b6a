/*
 * replay_classify.c — the engine's state over its partial graph (replay_int.h): the
 * per-instance and per-location arrays, and the category of every instance (LOCAL, OUT, IN,
 * COLL, DEAD) with its partner or channel, its count of missing inputs and, for LOCAL and
 * COLL instances, its place in the quads (made when first needed: rp_ensure_tq).
 */
#include "replay_int.h"

#include <string.h>

#include "../util/log.h"

/* The channel of a COLL/SYNC/RMA_COLL instance (intercommunicators: the receiving group's) and its seq. */
chan_t *rp_inst_chan(st_clc_replay_t *r, const st_rel_inst_t *in, uint64_t *seq)
{
    uint32_t t = key_type(in->key);
    *seq = in->key[1];
    if (t == ST_REL_KEY_RMA_COLL)
        return rp_find_chan(r, CH_WIN, st_rel_win_key(in->key[2], in->key[3]));
    chan_t *c = t == ST_REL_KEY_SYNC ? rp_find_chan(r, CH_SYNC, 0) : rp_find_chan(r, CH_COMM, in->key[2]);
    if (c && c->inter && in->key[3] != (uint64_t)(uint32_t)c->t.members[0])
        c = rp_find_chan(r, CH_INTER1, in->key[2]);
    return c;
}

/* Category, channel or partner rank (OUT/IN: ia = the partner's world rank until rp_assign_peers),
 * missing inputs and top-2 quad of instance k. */
static int classify_one(st_clc_replay_t *r, uint64_t k, int32_t *last_peer)
{
    const st_rel_inst_t *in = &r->g.inst[k];
    uint32_t t = key_type(in->key);
    if (t == ST_REL_KEY_P2P || t == ST_REL_KEY_RMA_PSCW || t == ST_REL_KEY_RMA_POST || t == ST_REL_KEY_RMA_LOCK) { /* one sender, one receiver */
        int32_t from = (int32_t)(in->key[1] >> 32), to = (int32_t)(uint32_t)in->key[1];
        int32_t other = from == r->me ? to : from;
        if (from == to || (from != r->me && to != r->me)) {
            r->cat[k] = from == to ? CAT_LOCAL : CAT_DEAD;
        } else if (other < 0 || other >= r->nranks) {
            r->cat[k] = CAT_DEAD;
        } else {
            r->cat[k] = from == r->me ? CAT_OUT : CAT_IN;
            r->ia[k] = (uint32_t)other;
            if (other != *last_peer && rp_add_peer(r, other)) /* (most instances repeat the last partner) */
                return -1;
            *last_peer = other;
        }
    } else if (t == ST_REL_KEY_COLL || t == ST_REL_KEY_SYNC || t == ST_REL_KEY_RMA_COLL) {
        uint64_t seq;
        chan_t *c = rp_inst_chan(r, in, &seq);
        r->cat[k] = c ? CAT_COLL : CAT_DEAD;
        r->ia[k] = c ? (uint32_t)(c - r->ch) : 0;
        if (c && t == ST_REL_KEY_RMA_COLL && seq < MAX_SEQ && seq + 1 > c->local_n)
            c->local_n = seq + 1; /* a window's instances are counted here: each member has both ends of each */
    } else {
        r->cat[k] = CAT_LOCAL;
    }
    r->pending[k] = r->cat[k] == CAT_LOCAL ? in->nsend : r->cat[k] == CAT_DEAD || r->cat[k] == CAT_OUT ? 0 : 1;
    r->tqi[k] = r->cat[k] == CAT_LOCAL || r->cat[k] == CAT_COLL ? (uint32_t)r->ntq++ : NONE32;
    return r->cat[k] == CAT_LOCAL ? rp_u64_push(&r->local_k, k) : 0;
}

static int classify(st_clc_replay_t *r)
{
    int32_t last_peer = -1;
    memset(r->sched.wait_head, 0xff, r->g.ninst * sizeof *r->sched.wait_head); /* NONE32 */
    for (uint64_t k = 0; k < r->g.ninst; k++)
        if (classify_one(r, k, &last_peer))
            return -1;
    for (uint32_t i = 0; i < st_clc_p2pchk_npeers(r->chk); i++) /* the check's partners (ascending) */
        if (rp_add_peer(r, st_clc_p2pchk_peer(r->chk, i)))
            return -1;
    return rp_assign_peers(r);
}

/* The LOCAL and COLL instances' quads, all empty: made for the first forward pass (rounds from
 * round 1, the replay) or backward limits. Rounds that converge in round 0 (the usual trace)
 * read none: 32 bytes per such instance (a hybrid trace's OpenMP relations) never touched. */
int rp_ensure_tq(st_clc_replay_t *r)
{
    if (r->tq)
        return 0;
    if (!(r->tq = st_mem_malloc((r->ntq + 1) * sizeof *r->tq)))
        return rp_fail(r, "out of memory"), -1;
    for (uint64_t i = 0; i < r->ntq; i++)
        r->tq[i] = quad_empty;
    return 0;
}

static int alloc_state(st_clc_replay_t *r)
{
    /* Instances, refs and ports are indexed with 32 bits in the state below (every instance
     * has a ref, so ninst <= nrefs): 4e9 refs would take hundreds of GB anyway. */
    if (r->g.nrefs >= UINT32_MAX) {
        st_log_error("CLC (parallel, rank %d): %llu message ends, more than the correction indexes", r->me,
                     (unsigned long long)r->g.nrefs);
        return -1;
    }
    size_t ni = r->g.ninst ? r->g.ninst : 1, nl = r->in->nlocs ? r->in->nlocs : 1;
    r->cat = st_mem_malloc(ni);
    r->ia = st_mem_calloc(ni, sizeof *r->ia), r->ib = st_mem_calloc(ni, sizeof *r->ib);
    r->tqi = st_mem_malloc(ni * sizeof *r->tqi);
    r->pending = st_mem_malloc(ni * sizeof *r->pending);
    r->sched.wait_head = st_mem_malloc(ni * sizeof *r->sched.wait_head);
    r->fwd = st_mem_calloc(nl, sizeof *r->fwd);
    r->sched.wait_next = st_mem_malloc(nl * sizeof *r->sched.wait_next);
    r->sched.queue = st_mem_malloc(nl * sizeof *r->sched.queue);
    r->sched.queued = st_mem_calloc(nl, 1);
    size_t nr = r->g.nrefs ? r->g.nrefs : 1;
    r->ref_c = r->g.ref_time; /* the join's (ST_REL_JOIN_TIMES): C, nothing has moved yet */
    r->g.ref_time = NULL;
    r->port_ref = st_mem_malloc(nr * sizeof *r->port_ref); /* ports and refs are one-to-one */
    if (!r->cat || !r->ia || !r->ib || !r->tqi || !r->pending || !r->sched.wait_head || !r->fwd ||
        !r->sched.wait_next || !r->sched.queue || !r->sched.queued || !r->ref_c || !r->port_ref)
        return -1;
    r->sched.nlocs = r->in->nlocs, r->sched.fwd = r->fwd, r->sched.locs = r->in->locs;
    for (uint64_t j = 0; j < r->g.nrefs; j++)
        r->port_ref[j] = (uint32_t)(r->g.inst[r->g.ports[j].inst].first + r->g.ports[j].slot);
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        r->sched.wait_next[l] = NONE32;
        r->unfinished += r->in->locs[l].n > 0;
    }
    return 0;
}

/* The engine's state over its graph, once the graph is made: 0, or -1 (memory). */
int rp_graph_ready(st_clc_replay_t *r)
{
    int rc = alloc_state(r);
    if (rc == 0)
        rc = classify(r);
    if (rc)
        return -1;
    /* Self messages are joined locally; a side missing there is unmatched (as st_rel_graph_build counts). */
    for (uint64_t k = 0; k < r->g.ninst; k++)
        if (r->cat[k] == CAT_LOCAL && (key_type(r->g.inst[k].key) == ST_REL_KEY_P2P ||
                                       key_type(r->g.inst[k].key) == ST_REL_KEY_RMA_PSCW ||
                                       key_type(r->g.inst[k].key) == ST_REL_KEY_RMA_POST)) {
            r->ds.unmatched_send += !r->g.inst[k].nrecv;
            r->ds.unmatched_recv += !r->g.inst[k].nsend;
        }
    r->setup_open = r->nch;
    return 0;
}
