/* event.c — names of event kinds, expanded from events.def. */
#include "event.h"

static const char *const kind_names[] = {
#define ST_EVENT(name, dump, doc) dump,
#include "events.def"
#undef ST_EVENT
};

const char *st_event_kind_name(unsigned kind)
{
    return kind < ST_EV__COUNT ? kind_names[kind] : "?";
}
