/* event.c — names of event kinds, expanded from events.def. */
#include "event.h"

static const char *const kind_names[] = {
#define ST_EVENT(name, dump, doc) dump,
#define ST_EVENT_READ(name, dump, doc) dump,
#include "events.def"
#undef ST_EVENT_READ
#undef ST_EVENT
};

const char *st_event_kind_name(unsigned kind)
{
    return kind < ST_EV__ALL ? kind_names[kind] : "?";
}
