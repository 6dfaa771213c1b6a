/* comm.c — communicator registration and lookup (see comm.h). */
#include "comm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handle_map.h"
#include "../util/fnv.h"
#include "../util/log.h"

#define MAX_COMMS ST_COMM_MAX

int st_world_rank = -1, st_world_size = 0;

/*
 * Handle -> entry: open addressing keyed by the whole handle (ST_HMAP_KEY: an int in MPICH, a pointer in
 * Open MPI). A forgotten handle's slot (comm NULL) is taken by the next new handle, so the slots bound the
 * communicators alive at once, not the distinct handles over the run (Open MPI's pointers need not come
 * back after MPI_Comm_free as MPICH's small indices do). ST_COMM_EMPTY and ST_COMM_REUSING (comm.h) are
 * no handle: a sign-extended int is within 2^31 of 0, a user-space pointer below 2^63.
 */
st_comm_slot_t st_comm_map[ST_COMM_SLOTS]; /* comm.h: st_comm_get's first probe reads it inline */
static st_comm_t *all[MAX_COMMS];
static _Atomic uint32_t ncomms;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int map_ready;

/* Membership hashes seen so far with their counts (for the per-membership sequence). */
typedef struct seen_hash { uint64_t hash; uint32_t count; } seen_hash_t;
static seen_hash_t seen[MAX_COMMS];
static uint32_t nseen;


static void map_init(void)
{
    for (uint32_t i = 0; i < ST_COMM_SLOTS; i++)
        atomic_store(&st_comm_map[i].handle, ST_COMM_EMPTY);
    map_ready = 1;
}

/* st_comm_get past the first slot i of handle h's probe path (the first slot holds another handle). */
st_comm_t *st_comm_get_probe(uint64_t h, uint32_t i)
{
    for (uint32_t n = 0; n < ST_COMM_SLOTS; n++, i = (i + 1) & (ST_COMM_SLOTS - 1)) {
        uint64_t k = atomic_load_explicit(&st_comm_map[i].handle, memory_order_acquire);
        if (k == h)
            return atomic_load_explicit(&st_comm_map[i].comm, memory_order_acquire);
        if (k == ST_COMM_EMPTY)
            return NULL;
    }
    return NULL;
}

/* Under lock: bind handle to c: the handle's own slot if MPI reused the handle, else the first forgotten
 * or empty slot on its probe path (a handle is in one slot at most). */
static void map_put(MPI_Comm comm, st_comm_t *c)
{
    uint64_t h = ST_HMAP_KEY(comm);
    uint32_t i = st_comm_slot_of(h), free_slot = ST_COMM_SLOTS;
    for (uint32_t n = 0; n < ST_COMM_SLOTS; n++, i = (i + 1) & (ST_COMM_SLOTS - 1)) {
        uint64_t k = atomic_load(&st_comm_map[i].handle);
        if (k == h) {
            atomic_store_explicit(&st_comm_map[i].comm, c, memory_order_release);
            return;
        }
        if (free_slot == ST_COMM_SLOTS && (k == ST_COMM_EMPTY || !atomic_load(&st_comm_map[i].comm)))
            free_slot = i;
        if (k == ST_COMM_EMPTY)
            break;
    }
    if (free_slot == ST_COMM_SLOTS) {
        st_log_warn_once("more than %u communicator handles at once; later ones are not traced", ST_COMM_SLOTS);
        return;
    }
    /* A lookup of the forgotten handle that already read the old key must not find c: ST_COMM_REUSING first. */
    if (atomic_load(&st_comm_map[free_slot].handle) != ST_COMM_EMPTY)
        atomic_store_explicit(&st_comm_map[free_slot].handle, ST_COMM_REUSING, memory_order_release);
    atomic_store_explicit(&st_comm_map[free_slot].comm, c, memory_order_release);
    atomic_store_explicit(&st_comm_map[free_slot].handle, h, memory_order_release);
}

/* h over v's 8 bytes, lowest first (on every byte order) */
static uint64_t fnv(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++, v >>= 8)
        b[i] = (unsigned char)v;
    return st_fnv1a(h, b, sizeof b);
}

static uint64_t fnv_group(uint64_t h, const int32_t *world, uint32_t n)
{
    h = fnv(h, n);
    for (uint32_t i = 0; i < n; i++)
        h = fnv(h, (uint64_t)(uint32_t)world[i]);
    return h;
}

/* First world rank of a group (the groups of an intercommunicator are disjoint). */
static int32_t first_world(const int32_t *world, uint32_t n)
{
    return n ? world[0] : INT32_MAX;
}

static uint64_t membership_key(const st_comm_def_t *d)
{
    uint64_t h = ST_FNV_BASIS;
    /* The two groups of an intercommunicator see each other as local and remote: hash them
     * in an order both agree on (the group whose rank 0 has the lower world rank first). */
    if (d->remote_size && first_world(d->remote_world, d->remote_size) < first_world(d->world, d->size)) {
        h = fnv_group(h, d->remote_world, d->remote_size);
        h = fnv_group(h, d->world, d->size);
    } else {
        h = fnv_group(h, d->world, d->size);
        h = fnv_group(h, d->remote_world, d->remote_size);
    }
    uint32_t count = 0, j;
    for (j = 0; j < nseen; j++)
        if (seen[j].hash == h)
            break;
    if (j < nseen)
        count = ++seen[j].count;
    else if (nseen < MAX_COMMS)
        seen[nseen++] = (seen_hash_t){ h, 0 };
    return fnv(h, count);
}

/* World ranks of group g, in group order; malloc'd. */
static int32_t *group_world(MPI_Group g, uint32_t *size)
{
    int n = 0;
    MPI_Group world;
    PMPI_Group_size(g, &n);
    int32_t *out = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    int *in = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!out || !in) {
        free(out);
        free(in);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(g, n, in, world, (int *)out);
    PMPI_Group_free(&world);
    free(in);
    *size = (uint32_t)n;
    return out;
}

/* Whether a group has a process outside MPI_COMM_WORLD (MPI_UNDEFINED after translation). */
static int has_outsider(const int32_t *world, uint32_t n)
{
    for (uint32_t i = 0; world && i < n; i++)
        if (world[i] < 0)
            return 1;
    return 0;
}

/* 0, -1 (out of memory), or 1: a member outside MPI_COMM_WORLD. */
static int fill_def(MPI_Comm comm, st_comm_def_t *d)
{
    int inter = 0;
    MPI_Group g;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_group(comm, &g);
    d->world = group_world(g, &d->size);
    PMPI_Group_free(&g);
    if (inter) {
        d->flags |= ST_COMMF_INTER;
        PMPI_Comm_remote_group(comm, &g);
        d->remote_world = group_world(g, &d->remote_size);
        PMPI_Group_free(&g);
    }
    if (!d->world || (inter && !d->remote_world))
        return -1;
    return has_outsider(d->world, d->size) || has_outsider(d->remote_world, d->remote_size);
}

st_comm_t *st_comm_add(MPI_Comm comm, MPI_Comm parent)
{
    if (comm == MPI_COMM_NULL)
        return NULL;
    st_comm_t *c = calloc(1, sizeof *c);
    int rc = c ? fill_def(comm, &c->def) : -1;
    if (rc != 0) {
        if (c) {
            free(c->def.world);
            free(c->def.remote_world);
        }
        free(c);
        if (rc > 0) /* trace, matching and CLC name processes by world rank */
            st_log_warn_once("a communicator with processes outside MPI_COMM_WORLD (spawn, connect, join); "
                             "its events are not traced");
        else
            st_log_warn_once("cannot describe a new communicator; its events are not traced");
        return NULL;
    }
    st_comm_t *p = parent != MPI_COMM_NULL ? st_comm_get(parent) : NULL;
    c->def.parent = p ? p->index : ST_NO_COMM;
    pthread_mutex_lock(&lock);
    if (!map_ready)
        map_init();
    uint32_t n = atomic_load(&ncomms);
    if (n == MAX_COMMS) {
        pthread_mutex_unlock(&lock);
        free(c->def.world);
        free(c->def.remote_world);
        free(c);
        st_log_warn_once("more than %u communicators; later ones are not traced", MAX_COMMS);
        return NULL;
    }
    c->def.key = membership_key(&c->def);
    c->index = n;
    if (comm == MPI_COMM_WORLD) {
        c->def.flags |= ST_COMMF_WORLD;
        snprintf(c->def.name, sizeof c->def.name, "MPI_COMM_WORLD");
    } else if (comm == MPI_COMM_SELF) {
        c->def.flags |= ST_COMMF_SELF;
        snprintf(c->def.name, sizeof c->def.name, "MPI_COMM_SELF");
    } else {
        snprintf(c->def.name, sizeof c->def.name, "%s %u", (c->def.flags & ST_COMMF_INTER) ? "Intercomm" : "Comm", n);
    }
    all[n] = c;
    atomic_store(&ncomms, n + 1);
    map_put(comm, c);
    pthread_mutex_unlock(&lock);
    return c;
}

void st_comm_init(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &st_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &st_world_size);
    st_comm_add(MPI_COMM_WORLD, MPI_COMM_NULL);
    st_comm_add(MPI_COMM_SELF, MPI_COMM_NULL);
}

void st_comm_forget(MPI_Comm comm)
{
    uint64_t h = ST_HMAP_KEY(comm);
    pthread_mutex_lock(&lock);
    uint32_t i = st_comm_slot_of(h);
    for (uint32_t n = 0; map_ready && n < ST_COMM_SLOTS; n++, i = (i + 1) & (ST_COMM_SLOTS - 1)) {
        uint64_t k = atomic_load(&st_comm_map[i].handle);
        if (k == h) {
            atomic_store_explicit(&st_comm_map[i].comm, NULL, memory_order_release);
            break;
        }
        if (k == ST_COMM_EMPTY)
            break;
    }
    pthread_mutex_unlock(&lock);
}

st_comm_t **st_comm_all(uint32_t *n)
{
    *n = atomic_load(&ncomms);
    return all;
}
