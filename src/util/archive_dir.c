/* archive_dir.c — see archive_dir.h. */
#include "archive_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *st_dir_unsafe(const struct stat *st, int shared, char *buf, size_t len)
{
    uid_t me = geteuid();
    int others_write = (st->st_mode & (S_IWGRP | S_IWOTH)) != 0, sticky = (st->st_mode & S_ISVTX) != 0;
    if (st->st_uid != me && !(shared && st->st_uid == 0)) {
        snprintf(buf, len, "it is owned by uid %lu, not by you (uid %lu)", (unsigned long)st->st_uid,
                 (unsigned long)me);
        return buf;
    }
    if (others_write && (!shared || !sticky)) {
        snprintf(buf, len, "other users can write into it (mode %04o%s)", (unsigned)(st->st_mode & 07777),
                 shared ? " without the sticky bit" : "");
        return buf;
    }
    return NULL;
}

/* mkdir -p; returns 0 or -1 with errno set. New directories are not writable by others whatever the umask. */
static int mkdirs(const char *path)
{
    char tmp[4096];
    if (strlen(path) >= sizeof tmp)
        return errno = ENAMETOOLONG, -1;
    strcpy(tmp, path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* Creates and removes a probe file: as root, access(W_OK) says yes even on a read-only mount. */
static int probe_writable(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.synctrace-probe-%ld", dir, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(path);
    return 0;
}

st_dir_fault_t st_archive_dir_check(const char *dir, st_dir_verdict_t *v)
{
    struct stat st;
    memset(v, 0, sizeof *v);
    if (mkdirs(dir) != 0)
        v->err = errno, v->fault = ST_DIR_NOT_CREATABLE;
    else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        v->fault = ST_DIR_NOT_A_DIR;
    else if (st_dir_unsafe(&st, 0, v->why, sizeof v->why))
        v->fault = ST_DIR_UNSAFE;
    else if (probe_writable(dir) != 0)
        v->err = errno, v->fault = ST_DIR_NOT_WRITABLE;
    if (v->fault)
        return v->fault;
    static const char *const taken[] = { ST_ARCHIVE_NAME ".otf2", ST_ARCHIVE_NAME ".def", ST_ARCHIVE_NAME };
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, taken[i]);
        if (lstat(path, &st) == 0) {
            v->taken = taken[i];
            return v->fault = ST_DIR_HOLDS_ARCHIVE;
        }
    }
    return ST_DIR_USABLE;
}

/* A requested directory (SYNCTRACE_DIR): the rules of st_archive_dir_check, in its words. */
static int requested_dir(const char *dir, char *err, size_t errlen)
{
    st_dir_verdict_t v;
    switch (st_archive_dir_check(dir, &v)) {
    case ST_DIR_USABLE:
        return 0;
    case ST_DIR_HOLDS_ARCHIVE:
        snprintf(err, errlen, "SYNCTRACE_DIR='%s' already holds an archive (%s); synctrace never overwrites one: choose a new directory", dir, v.taken);
        break;
    case ST_DIR_NOT_CREATABLE:
        snprintf(err, errlen, "SYNCTRACE_DIR='%s' cannot be created: %s; accepted: a writable directory path", dir, strerror(v.err));
        break;
    case ST_DIR_NOT_A_DIR:
        snprintf(err, errlen, "SYNCTRACE_DIR='%s' is not a directory; accepted: a writable directory path", dir);
        break;
    case ST_DIR_UNSAFE:
        snprintf(err, errlen, "SYNCTRACE_DIR='%s' is not safe to write an archive into: %s; accepted: a directory "
                 "of your own that no one else can write into", dir, v.why);
        break;
    case ST_DIR_NOT_WRITABLE:
        snprintf(err, errlen, "SYNCTRACE_DIR='%s' is not writable: %s; accepted: a writable directory path", dir, strerror(v.err));
        break;
    }
    return -1;
}

int st_archive_dir_prepare(const char *requested, char *out, size_t cap, char *err, size_t errlen)
{
    if (requested && *requested) {
        if (strlen(requested) >= cap) {
            snprintf(err, errlen, "SYNCTRACE_DIR is too long (%zu characters)", strlen(requested));
            return -1;
        }
        if (requested_dir(requested, err, errlen) != 0)
            return -1;
        snprintf(out, cap, "%s", requested);
        return 0;
    }
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int n = 0; n < 1000; n++) {
        if (n == 0)
            snprintf(out, cap, "synctrace-%s", stamp);
        else
            snprintf(out, cap, "synctrace-%s-%d", stamp, n);
        if (mkdir(out, 0755) == 0)
            return 0;
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create archive directory '%s' in the working directory: %s; set SYNCTRACE_DIR to a writable directory", out, strerror(errno));
            return -1;
        }
    }
    snprintf(err, errlen, "cannot find a new archive directory name synctrace-%s-N; set SYNCTRACE_DIR", stamp);
    return -1;
}
