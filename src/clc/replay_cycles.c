/*
 * replay_cycles.c — dependency cycles across ranks in the message-by-message replay
 * (replay_int.h): waves over the world tree that find a stall and force the receive the
 * sequential reference would force.
 */
#include "replay_int.h"

/*
 * A trace with a dependency cycle (impossible in a real run: clocks merged out of order, a
 * wrong message match) stalls the replay. The sequential reference (run.c) then forces the
 * lowest-numbered waiting location's receive with the sends computed so far, once every
 * location waits. Here the same: waves over the world tree (rooted at rank 0) find out
 * that every rank is idle and nothing is in flight, and then which location to force.
 * Each rank reports when it has nothing to do (its counters of records sent and received
 * other than waves, whether those or its forward steps changed since its last report, its
 * lowest waiting location); the root starts the next wave when one is complete. Two
 * waves in a row without any change and with as many records received as sent: every
 * rank was idle with nothing in flight in between, so nothing will ever change. The next
 * wave then forces the lowest waiting location (rank-major numbering: the sequential run's
 * when the trace's locations are numbered rank by rank); when it waits for a collective, a
 * wave first gathers that collective's computed sends from all ranks (a scan: also the
 * lowest comm rank whose send is not computed: run.c takes the sends below it). The waves
 * end when every rank is past the forward pass; no rank finishes before the end reached
 * it, so no wave record arrives at a rank that is done. In a trace without cycles the
 * waves only watch: one report per rank whenever all have run out of work.
 */

static void rep_empty(wave_rep_t *a)
{
    *a = (wave_rep_t){ .past = 1, .loc = NONE64, .kind = NONE64, .unc = NONE64, .q = quad_empty };
}

static uint8_t *put_rep(uint8_t *p, const wave_rep_t *a, const entvec_t *e)
{
    const uint64_t v[] = { a->sent, a->recv, a->changed, a->past, a->loc, a->kind, a->key, a->seq, a->unc,
                           a->q.v1, a->q.l1, a->q.v2, a->q.l2, e->n };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        p = st_xchg_put_u64(p, v[i]);
    for (size_t i = 0; i < e->n; i++)
        p = st_xchg_put_u64(st_xchg_put_u64(p, e->v[i].order), e->v[i].v[0]);
    return p;
}

static size_t rep_size(const entvec_t *e) { return (14 + 2 * e->n) * 8; }

/* Merges the report of a subtree (a) into acc (entries into e). */
static int rep_merge(st_clc_replay_t *r, wave_rep_t *acc, entvec_t *e, const wave_rep_t *a, const entvec_t *ae)
{
    acc->sent += a->sent, acc->recv += a->recv;
    acc->changed |= a->changed, acc->past &= a->past;
    if (a->loc < acc->loc)
        acc->loc = a->loc, acc->kind = a->kind, acc->key = a->key, acc->seq = a->seq;
    if (a->unc < acc->unc)
        acc->unc = a->unc;
    quad_merge(&acc->q, &a->q);
    for (size_t i = 0; ae && i < ae->n; i++)
        if (rp_ent_push(e, ae->v[i]))
            return rp_fail(r, "out of memory"), -1;
    return 0;
}

static int get_rep(st_clc_replay_t *r, reader_t *rd, wave_rep_t *a, entvec_t *e)
{
    uint64_t v[14];
    for (size_t i = 0; i < 14; i++)
        if (st_xchg_get_u64(rd, &v[i]))
            return -1;
    *a = (wave_rep_t){ v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], { v[9], v[10], v[11], v[12] } };
    if (v[13] > (uint64_t)(rd->end - rd->p) / 16)
        return -1;
    e->n = 0;
    for (uint64_t i = 0; i < v[13]; i++) {
        ent_t x = { 0 };
        if (st_xchg_get_u64(rd, &x.order) || st_xchg_get_u64(rd, &x.v[0]))
            return -1;
        if (rp_ent_push(e, x))
            return rp_fail(r, "out of memory"), -1;
    }
    return 0;
}

/* Puts into a the collective of instance k (what a receive waits for), when it is one. */
static void wave_names(const st_clc_replay_t *r, uint64_t k, wave_rep_t *a)
{
    if (r->cat[k] != CAT_COLL)
        return;
    const chan_t *c = &r->ch[r->ia[k]];
    a->kind = c->kind, a->key = c->key, a->seq = r->ib[k];
}

/* This rank's own report of the current wave. */
static int wave_own(st_clc_replay_t *r, wave_rep_t *a, entvec_t *e)
{
    wave_t *W = &r->wv;
    rep_empty(a);
    e->n = 0;
    a->sent = W->sent, a->recv = W->recv;
    a->changed = W->sent != W->last[0] || W->recv != W->last[1] || W->prog != W->last[2];
    W->last[0] = W->sent, W->last[1] = W->recv, W->last[2] = W->prog;
    a->past = r->state != S_FWD;
    for (uint32_t l = 0; r->state == S_FWD && l < r->in->nlocs; l++)
        if (r->fwd[l].pos < r->in->locs[l].n) {
            a->loc = (uint64_t)(uint32_t)r->me << 32 | l;
            wave_names(r, r->g.ports[r->g.port_first[l] + r->fwd[l].blocked].inst, a);
            break;
        }
    if (W->act != W_GATHER)
        return 0;
    chan_t *c = rp_find_chan(r, (uint8_t)W->target.kind, W->target.key);
    uint64_t s = W->target.seq;
    if (!c || s >= c->N)
        return 0;
    a->q = qof(c, PH_F, s)[0];
    uint64_t k = c->inst0[s];
    if (c->lshape[s] == SH_PREFIX && c->pend[s] && k != NONE64)
        a->unc = ref_order(r, k, 0);
    const entvec_t *ce = ents_ro(c, PH_F, s);
    for (size_t i = 0; ce && i < ce->n; i++)
        if (rp_ent_push(e, ce->v[i]))
            return rp_fail(r, "out of memory"), -1;
    return 0;
}

/* Forces location l's receive (the lowest waiting one of all ranks). */
static void wave_force(st_clc_replay_t *r, uint32_t l)
{
    wave_t *W = &r->wv;
    if (r->state != S_FWD || l >= r->in->nlocs || r->fwd[l].pos >= r->in->locs[l].n)
        return rp_fail(r, "cycle across ranks: location %u is not waiting", l);
    const st_rel_port_t *port = r->g.ports + r->g.port_first[l] + r->fwd[l].blocked;
    uint64_t k = port->inst;
    if (r->cat[k] == CAT_COLL) { /* the gathered sends (a scan: those below the first not computed) */
        uint64_t o = ref_order(r, k, port->slot);
        W->force_set = 1;
        W->force_v = 0;
        W->force_have = r->g.inst[k].shape == ST_REL_PREFIX
                            ? rp_prefix_max(&W->tents, o < W->target.unc ? o : W->target.unc, 0, &W->force_v)
                            : quad_other(&W->target.q, gid(&r->in->locs[l]), &W->force_v);
    }
    rp_count_forced(r, l);
    st_clc_sched_unlink(&r->sched, k, l);
    st_clc_sched_enqueue(&r->sched, l);
    rp_drain(r, l);
    W->force_set = 0;
}

/* Wave w starts here: what the root decided (act, about target), passed on to the children. */
void rp_wave_start(st_clc_replay_t *r, uint64_t w, uint64_t act)
{
    wave_t *W = &r->wv;
    for (uint32_t i = 0; i < r->nwchild; i++) {
        uint8_t *p = rp_rec_begin(r, r->wchild[i], R_WAVE_DOWN, 0, NULL, w, 0, 8 + rep_size(&W->tents));
        if (p)
            put_rep(st_xchg_put_u64(p, act), &W->target, &W->tents);
    }
    W->w = w, W->act = act, W->arrived = 0, W->up = 0, W->on = act != W_END;
    W->ended = act == W_END;
    rep_empty(&W->acc);
    W->ents.n = 0;
    if (act == W_FORCE && W->target.loc >> 32 == (uint64_t)(uint32_t)r->me)
        wave_force(r, (uint32_t)W->target.loc);
}

/* The root has the report of every rank: decides what the next wave does. */
static void wave_conclude(st_clc_replay_t *r)
{
    wave_t *W = &r->wv;
    const wave_rep_t *a = &W->acc;
    uint64_t act = W_NONE;
    if (a->past)
        act = W_END;
    else if (!a->changed && a->sent == a->recv && a->loc != NONE64) /* stalled: force, gathering first */
        act = W->act == W_GATHER || a->kind == NONE64 ? W_FORCE : W_GATHER;
    if (act != W_FORCE || W->act != W_GATHER) /* a forcing after gathering keeps the gathered target */
        W->target = *a, W->tents.n = 0;
    else
        W->target.q = a->q, W->target.unc = a->unc;
    for (size_t i = 0; act == W_FORCE && W->act == W_GATHER && i < W->ents.n; i++)
        if (rp_ent_push(&W->tents, W->ents.v[i]))
            return rp_fail(r, "out of memory");
    rp_wave_start(r, W->w + 1, act);
}

/* Reports the current wave when this rank is idle (and its subtree has reported). */
void rp_wave_step(st_clc_replay_t *r, int idle)
{
    wave_t *W = &r->wv;
    if (!W->used || !W->on || W->up || !idle || W->arrived < r->nwchild)
        return;
    wave_rep_t own;
    entvec_t e = { 0 };
    if (wave_own(r, &own, &e) == 0 && rep_merge(r, &W->acc, &W->ents, &own, &e) == 0) {
        W->up = 1;
        if (r->wparent < 0) {
            wave_conclude(r);
        } else {
            uint8_t *p = rp_rec_begin(r, r->wparent, R_WAVE_UP, 0, NULL, W->w, 0, rep_size(&W->ents));
            if (p)
                put_rep(p, &W->acc, &W->ents);
        }
    }
    st_mem_free(e.v);
}

int rp_on_wave(st_clc_replay_t *r, const rec_t *h, reader_t *rd)
{
    wave_t *W = &r->wv;
    wave_rep_t a;
    entvec_t e = { 0 };
    int rc = -1;
    if (!W->used || W->ended)
        return -1;
    if (h->type == R_WAVE_UP) {
        if (h->seq == W->w && W->on && !W->up && W->arrived < r->nwchild && get_rep(r, rd, &a, &e) == 0)
            rc = rep_merge(r, &W->acc, &W->ents, &a, &e), W->arrived++;
    } else {
        uint64_t act;
        if (h->seq == W->w + 1 && !st_xchg_get_u64(rd, &act) && act <= W_FORCE && get_rep(r, rd, &W->target, &W->tents) == 0)
            rp_wave_start(r, h->seq, act), rc = 0;
    }
    st_mem_free(e.v);
    return rc;
}
