/* archive_dir.c — see archive_dir.h. */
#include "archive_dir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* mkdir -p; returns 0 or -1 with errno set. */
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
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

static int requested_dir(const char *dir, char *err, size_t errlen)
{
    char anchor[4200];
    struct stat st;
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (stat(anchor, &st) == 0) {
        snprintf(err, errlen, "SYNCTRACE_DIR='%s' already holds an archive (traces.otf2); synctrace never overwrites one: choose a new directory", dir);
        return -1;
    }
    if (mkdirs(dir) != 0) {
        snprintf(err, errlen, "SYNCTRACE_DIR='%s' cannot be created: %s; accepted: a writable directory path", dir, strerror(errno));
        return -1;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "SYNCTRACE_DIR='%s' is not a directory; accepted: a writable directory path", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "SYNCTRACE_DIR='%s' is not writable: %s; accepted: a writable directory path", dir, strerror(errno));
        return -1;
    }
    return 0;
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
        if (mkdir(out, 0777) == 0)
            return 0;
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create archive directory '%s' in the working directory: %s; set SYNCTRACE_DIR to a writable directory", out, strerror(errno));
            return -1;
        }
    }
    snprintf(err, errlen, "cannot find a new archive directory name synctrace-%s-N; set SYNCTRACE_DIR", stamp);
    return -1;
}
