/*
 * replay_records.c — the engine's records (replay_int.h): failing with one line, the small
 * vectors, appending records to the per-destination output buffers (exchange.h) and sending
 * them, and the incoming side: one record at a time to its handler, records that come early
 * (before the setup is done, of a later round, of the replay while still in rounds) kept
 * aside and handed over again when the state they wait for begins.
 */
#include "replay_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/log.h"

void rp_fail(st_clc_replay_t *r, const char *fmt, ...)
{
    if (r->state == S_FAILED)
        return;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st_log_error("CLC (parallel, rank %d): %s", r->me, msg);
    r->state = S_FAILED;
}

int rp_u64_push(u64vec_t *v, uint64_t x)
{
    if (st_mem_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
        return -1;
    v->v[v->n++] = x;
    return 0;
}

int rp_ent_push(entvec_t *v, ent_t e)
{
    if (st_mem_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
        return -1;
    v->v[v->n++] = e;
    return 0;
}

/* Appends a record header plus len payload bytes for `to`; returns the payload, NULL on failure. */
uint8_t *rp_rec_begin(st_clc_replay_t *r, int32_t to, uint8_t type, uint8_t phase, const chan_t *c,
                          uint64_t seq, uint32_t nseq, size_t len)
{
    if (to < 0 || to >= r->nranks)
        return rp_fail(r, "message for rank %d outside the world", to), NULL;
    rec_t h = { .type = type, .phase = phase, .chkind = c ? c->kind : 0, .round = (uint8_t)r->round, .nseq = nseq,
                .chan = c ? c->key : 0, .seq = seq };
    uint8_t *p = st_xchg_record(&r->out, to, &h, len);
    if (!p)
        return rp_fail(r, "out of memory"), NULL;
    r->busy = 1;
    r->wv.sent += type != R_WAVE_UP && type != R_WAVE_DOWN;
    return p;
}

int rp_flush(st_clc_replay_t *r, int all)
{
    int32_t bad = -1;
    if (st_xchg_flush(&r->out, all ? 0 : FLUSH_BYTES, &bad) != 0) {
        rp_fail(r, "cannot send to rank %d", bad);
        return -1;
    }
    return 0;
}

/* Records of a later round, or of the replay while this rank is still in rounds, wait. */
static int early(const st_clc_replay_t *r, const rec_t *h)
{
    int round_rec = h->type == R_RVAL || h->type == R_CONV_UP || h->type == R_CONV_DOWN ||
                    ((h->type == R_UP || h->type == R_DOWN) && h->phase == PH_R);
    if (round_rec)
        return r->state != S_ROUND || h->round > r->round;
    int replay_rec = h->type == R_FWD || h->type == R_PFX || h->type == R_WAVE_UP || h->type == R_WAVE_DOWN || ((h->type == R_UP || h->type == R_DOWN) && h->phase == PH_F);
    return replay_rec && r->state == S_ROUND;
}

static int process_record(st_clc_replay_t *r, int32_t from, const uint8_t *buf, size_t len, size_t *used);

/* Hands the deferred records to process_record again (it defers what is still early). */
void rp_replay_deferred(st_clc_replay_t *r)
{
    deferred_t *def = r->def;
    size_t ndef = r->ndef;
    r->def = NULL;
    r->ndef = r->capdef = 0;
    for (size_t i = 0; i < ndef; i++) {
        size_t used;
        if (r->state != S_FAILED && process_record(r, def[i].from, def[i].buf, def[i].len, &used))
            rp_fail(r, "malformed message from rank %d", def[i].from);
        st_mem_free(def[i].buf);
    }
    st_mem_free(def);
}

static int defer(st_clc_replay_t *r, int32_t from, const uint8_t *buf, size_t len)
{
    if (st_mem_grow((void **)&r->def, &r->capdef, r->ndef + 1, sizeof *r->def))
        return rp_fail(r, "out of memory"), -1;
    uint8_t *copy = st_mem_malloc(len);
    if (!copy)
        return rp_fail(r, "out of memory"), -1;
    memcpy(copy, buf, len);
    r->def[r->ndef++] = (deferred_t){ from, copy, len };
    return 0;
}

static int on_array(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    peer_t *pe = rp_find_peer(r, from);
    int bwd = h->type == R_BWD;
    size_t n = pe ? (bwd ? pe->send_inst.n : 2 * pe->recv_inst.n) : 0;
    if (!pe || h->len != n * 8 || (bwd ? pe->have_bwd : pe->have_stat))
        return -1;
    if (!bwd && !(pe->stat = st_mem_malloc(h->len + 8))) /* only when the rounds did not converge */
        return rp_fail(r, "out of memory"), -1;
    memcpy(bwd ? pe->bwd : pe->stat, rd->p, h->len);
    *(bwd ? &pe->have_bwd : &pe->have_stat) = 1;
    rd->p += h->len;
    return 0;
}

/* Handles one record at buf; *used = its size. Returns 0 or -1 (malformed). */
static int process_record(st_clc_replay_t *r, int32_t from, const uint8_t *buf, size_t len, size_t *used)
{
    rec_t h;
    if (len < sizeof h)
        return -1;
    memcpy(&h, buf, sizeof h);
    if (h.len > len - sizeof h)
        return -1;
    *used = sizeof h + h.len;
    reader_t rd = { buf + sizeof h, buf + *used };
    if (h.type < R_COUNTS || h.type > R_P2PCHK)
        return -1; /* before deferring: a record no rank sends would wait forever */
    if (r->state == S_SETUP && h.type != R_COUNTS && h.type != R_SETUP_UP && h.type != R_SETUP_DOWN &&
        h.type != R_P2PCHK)
        return defer(r, from, buf, *used);
    if (early(r, &h))
        return defer(r, from, buf, *used);
    r->busy = 1;
    chan_t *c = NULL;
    if (h.type == R_SETUP_UP || h.type == R_SETUP_DOWN || h.type == R_UP || h.type == R_DOWN || h.type == R_PFX) {
        c = rp_find_chan(r, h.chkind, h.chan);
        if (!c) {
            st_log_warn_once("CLC (parallel, rank %d): message about a communicator this rank does not know", r->me);
            return -1;
        }
    }
    switch (h.type) {
    case R_COUNTS: return rp_on_counts(r, from, &h, &rd);
    case R_P2PCHK: return rp_on_p2pchk(r, from, &h, &rd);
    case R_SETUP_UP:
    case R_SETUP_DOWN: return rp_on_setup(r, c, &h, &rd);
    case R_UP:
    case R_DOWN: return rp_on_op(r, c, &h, &rd);
    case R_FWD: return rp_on_fwd(r, from, &h, &rd);
    case R_BWD:
    case R_STAT: return on_array(r, from, &h, &rd);
    case R_RVAL: return rp_on_rval(r, from, &h, &rd);
    case R_CONV_UP:
    case R_CONV_DOWN: return rp_on_conv(r, &h, &rd);
    case R_PFX: return rp_on_pfx(r, c, &h, &rd);
    case R_WAVE_UP:
    case R_WAVE_DOWN: return rp_on_wave(r, &h, &rd);
    default: return -1;
    }
}

int st_clc_replay_deliver(st_clc_replay_t *r, int32_t from, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len && r->state != S_FAILED) {
        size_t used = 0;
        r->wv.recv += len < sizeof(rec_t) || (p[0] != R_WAVE_UP && p[0] != R_WAVE_DOWN);
        if (process_record(r, from, p, len, &used)) {
            rp_fail(r, "malformed or unexpected message from rank %d", from);
            break;
        }
        p += used;
        len -= used;
    }
    /* What the records produced (a tree's result passed down, a contribution passed up, the
     * rounds' agreement) is awaited elsewhere: sent now, not after this rank's next local work. */
    if (r->state != S_FAILED)
        rp_flush(r, 1);
    return r->state == S_FAILED ? -1 : 0;
}
