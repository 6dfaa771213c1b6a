/*
 * config.c — parses the SYNCTRACE_* environment (see variables.def), and reads what the MPI
 * launcher announces in it.
 */
#include "config.h"

#include "../util/archive_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

st_config_t st_config;
volatile int st_config_loaded;

typedef enum { T_SIZE, T_BOOL, T_UINT, T_DOUBLE, T_FRACTION, T_STRING, T_PATH, T_ENUM } var_type_t;

typedef struct var_desc {
    const char *name;
    var_type_t type;
    size_t offset;
    size_t cap; /* string capacity */
    const char *def;
    double lo, hi; /* accepted range of SIZE, UINT, DOUBLE */
    const char *accepted, *doc;
} var_desc_t;

#define ST_VAR(name, type, field, def, lo, hi, accepted, doc)                                                \
    { "SYNCTRACE_" #name, T_##type, offsetof(st_config_t, field), sizeof(((st_config_t *)0)->field), def, lo, hi, \
      accepted, doc },
static const var_desc_t vars[] = {
#include "variables.def"
};
#undef ST_VAR
#define NVARS (sizeof vars / sizeof vars[0])

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the run of decimal digits at s. */
static size_t digits(const char *s)
{
    size_t n = 0;
    while (is_digit(s[n]))
        n++;
    return n;
}

int st_config_parse_number(const char *s, int frac, double lo, double hi, double *out)
{
    size_t n = digits(s);
    if (!n)
        return -1;
    if (frac && s[n] == '.') {
        size_t f = digits(s + n + 1);
        if (!f)
            return -1;
        n += 1 + f;
    }
    if (frac && (s[n] == 'e' || s[n] == 'E')) {
        size_t k = n + 1 + (s[n + 1] == '-' || s[n + 1] == '+');
        size_t x = digits(s + k);
        if (!x)
            return -1;
        n = k + x;
    }
    if (s[n])
        return -1;
    /* The text is now plain decimal: strtod cannot meet hex, inf, nan, blanks or a locale's separator. */
    errno = 0;
    double v = strtod(s, NULL);
    if (errno == ERANGE && v != 0)
        return -1;
    if (!(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

int st_config_parse_size(const char *s, size_t *out)
{
    size_t n = digits(s);
    if (!n || n > 19)
        return -1;
    unsigned long long v = strtoull(s, NULL, 10), mul = 1;
    const char *end = s + n;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1ull << 10; break;
        case 'm': case 'M': mul = 1ull << 20; break;
        case 'g': case 'G': mul = 1ull << 30; break;
        default: return -1;
        }
        end++;
        if (*end == 'B' || *end == 'b' || (*end == 'i' && end[1] == 'B' && end++))
            end++;
        if (*end)
            return -1;
    }
    if (v > ULLONG_MAX / mul || v * mul > SIZE_MAX)
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    static const char *const yes[] = { "1", "yes", "on", "true" }, *const no[] = { "0", "no", "off", "false" };
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i])) return *out = 1, 0;
        if (!strcasecmp(s, no[i])) return *out = 0, 0;
    }
    return -1;
}

static int parse_enum(const char *s, const char *accepted, int *out)
{
    size_t len = strlen(s);
    int idx = 0;
    for (const char *p = accepted; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t wl = bar ? (size_t)(bar - p) : strlen(p);
        if (wl == len && !strncasecmp(p, s, len))
            return *out = idx, 0;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

static int parse_one(const var_desc_t *v, const char *s, st_config_t *c)
{
    void *field = (char *)c + v->offset;
    double d;
    switch (v->type) {
    case T_SIZE: {
        size_t z;
        if (st_config_parse_size(s, &z) != 0 || (double)z < v->lo || (double)z > v->hi)
            return -1;
        *(size_t *)field = z;
        return 0;
    }
    case T_BOOL:
        return parse_bool(s, (int *)field);
    case T_UINT:
        if (st_config_parse_number(s, 0, v->lo, v->hi, &d) != 0)
            return -1;
        *(unsigned long *)field = (unsigned long)d;
        return 0;
    case T_DOUBLE:
    case T_FRACTION:
        if (st_config_parse_number(s, 1, v->lo, v->hi, &d) != 0 || (v->type == T_FRACTION && d <= 0))
            return -1;
        *(double *)field = d;
        return 0;
    case T_STRING:
    case T_PATH:
        if (strlen(s) >= v->cap)
            return -1;
        strcpy((char *)field, s);
        return 0;
    case T_ENUM:
        return parse_enum(s, v->accepted, (int *)field);
    }
    return -1;
}

/* value as one printable line: control characters escaped, long values cut. */
static void quote_value(const char *s, char *out, size_t len)
{
    size_t o = 0, i = 0;
    for (; s[i] && o + 8 < len && i < 200; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\n')
            o += (size_t)snprintf(out + o, len - o, "\\n");
        else if (ch < 0x20 || ch == 0x7f)
            o += (size_t)snprintf(out + o, len - o, "\\x%02x", ch);
        else
            out[o++] = (char)ch;
    }
    if (s[i])
        o += (size_t)snprintf(out + o, len - o, "...");
    out[o] = 0;
}

static int known_name(const char *entry)
{
    for (size_t i = 0; i < NVARS; i++) {
        size_t n = strlen(vars[i].name);
        if (!strncmp(entry, vars[i].name, n) && entry[n] == '=')
            return 1;
    }
    return 0;
}

/*
 * Buffer flushes go to SYNCTRACE_TMPDIR, else $TMPDIR, else /tmp: resolved and checked once here, so a
 * missing or read-only directory stops the run before the application starts instead of losing events.
 */
static int resolve_tmpdir(st_config_t *c, char *err, size_t errlen)
{
    const char *var = "SYNCTRACE_TMPDIR", *env = getenv("TMPDIR");
    if (!c->tmpdir[0]) {
        var = "TMPDIR";
        if (!env || !*env)
            env = "/tmp", var = "the default temporary directory";
        if (strlen(env) >= sizeof c->tmpdir) {
            snprintf(err, errlen, "TMPDIR is longer than %zu bytes; set SYNCTRACE_TMPDIR to a writable directory",
                     sizeof c->tmpdir - 1);
            return -1;
        }
        strcpy(c->tmpdir, env);
    }
    struct stat st;
    char unsafe[160];
    const char *why = NULL;
    if (stat(c->tmpdir, &st) != 0)
        why = strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        why = "not a directory";
    else if (access(c->tmpdir, W_OK | X_OK) != 0)
        why = strerror(errno);
    else
        why = st_dir_unsafe(&st, 1, unsafe, sizeof unsafe);
    if (why) {
        char q[256];
        quote_value(c->tmpdir, q, sizeof q);
        snprintf(err, errlen, "%s='%s' cannot hold buffer flushes (%s); accepted: a writable directory of your own, or a "
                 "shared one with the sticky bit like /tmp", var, q, why);
        return -1;
    }
    return 0;
}

int st_config_load(char *err, size_t errlen)
{
    st_config_t c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < NVARS; i++) {
        const var_desc_t *v = &vars[i];
        if (parse_one(v, v->def, &c) != 0) { /* defaults are compiled in: a bug if bad */
            snprintf(err, errlen, "internal: bad default for %s", v->name);
            return -1;
        }
        const char *s = getenv(v->name);
        if (s && parse_one(v, s, &c) != 0) {
            char q[256];
            quote_value(s, q, sizeof q);
            snprintf(err, errlen, "%s='%s' is not valid; accepted: %s", v->name, q, v->accepted);
            return -1;
        }
    }
    for (char **e = environ; e && *e; e++) {
        if (!strncmp(*e, "SYNCTRACE_", 10) && !known_name(*e)) {
            char name[256], q[256];
            const char *eq = strchr(*e, '=');
            size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
            snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), *e);
            quote_value(name, q, sizeof q);
            snprintf(err, errlen, "unknown variable %s; see 'synctrace env' for the accepted SYNCTRACE_* variables", q);
            return -1;
        }
    }
    if (resolve_tmpdir(&c, err, errlen) != 0)
        return -1;
    st_config = c;
    st_config_loaded = 1;
    return 0;
}

void st_config_print(FILE *out, int markdown)
{
    if (markdown)
        fprintf(out, "| variable | default | accepted | meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < NVARS; i++) {
        const var_desc_t *v = &vars[i];
        const char *def = *v->def ? v->def : "(see meaning)";
        if (markdown)
            fprintf(out, "| `%s` | `%s` | %s | %s |\n", v->name, def, v->accepted, v->doc);
        else
            fprintf(out, "%s (default %s; accepted: %s)\n    %s\n", v->name, def, v->accepted, v->doc);
    }
}

/* ---- what the MPI launcher announces ------------------------------------------------------ */

/* The launchers that announce rank and size, in the order they are read, and the MPI family each
   starts: MPICH's hydra, Open MPI's mpirun. */
static const struct launcher {
    const char *rank, *size, *family;
} launchers[] = {
    { "PMI_RANK", "PMI_SIZE", "mpich" },
    { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "openmpi" },
};
#define NLAUNCHERS (sizeof launchers / sizeof launchers[0])

/* The first launcher whose rank (size: 0) or size (1) variable is set, or NULL. */
static const struct launcher *launcher_with(int size)
{
    for (size_t i = 0; i < NLAUNCHERS; i++)
        if (getenv(size ? launchers[i].size : launchers[i].rank))
            return &launchers[i];
    return NULL;
}

int st_config_launcher_rank(void)
{
    const struct launcher *l = launcher_with(0);
    return l ? atoi(getenv(l->rank)) : -1;
}

void st_config_job_error_wait(void)
{
    if (st_config_launcher_rank() <= 0)
        return;
    struct timespec wait = { 2, 0 };
    while (nanosleep(&wait, &wait) != 0 && errno == EINTR)
        ;
}

int st_config_launcher_size(void)
{
    const struct launcher *l = launcher_with(1);
    return l ? atoi(getenv(l->size)) : 0;
}

const char *st_config_launcher_family(void)
{
    const struct launcher *l = launcher_with(1);
    return l ? l->family : NULL;
}

int st_config_mpi_launched(void)
{
    static const char *const names[] = { "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && strtol(v, NULL, 10) > 1)
            return 1;
    }
    return 0;
}
