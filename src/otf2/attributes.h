/*
 * attributes.h — the OTF2 event attributes of synctrace archives (attributes.def): their
 * ids for the writer and their names and types for the readers.
 *
 *   CALLSITE   string: call-site text of an ENTER
 *   ORIG_TIME  uint64: time before CLC moved the event
 *   ID         uint64: OpenMP parallel id (fork/join/team)
 *   POST       uint64: a blocking receive's place in its process's post order (the id its post
 *              drew from the counter request ids come from)
 *   COLL_SEQ   uint64: instance number of a collective on its communicator (MpiCollectiveEnd,
 *              NonBlockingCollectiveComplete)
 *   CALLPATH   calling context: the application frame that entered the region (Enter;
 *              SYNCTRACE_CALLPATH)
 */
#ifndef ST_OTF2_ATTRIBUTES_H
#define ST_OTF2_ATTRIBUTES_H

#include <otf2/otf2.h>

enum {
#define ST_ATTR(name, otf2_name, type, doc) ST_ATTR_##name,
#include "attributes.def"
#undef ST_ATTR
    ST_ATTR__COUNT
};

typedef struct st_otf2_attr {
    const char *name, *doc;
    OTF2_Type   type;
} st_otf2_attr_t;

/* Name, description and type of attribute id a (< ST_ATTR__COUNT). */
static inline const st_otf2_attr_t *st_otf2_attr(unsigned a)
{
    static const st_otf2_attr_t list[] = {
#define ST_ATTR(name, otf2_name, type, doc) { otf2_name, doc, type },
#include "attributes.def"
#undef ST_ATTR
    };
    return &list[a];
}

#endif
