/*
 * gaps.h — a location's events where some were lost, made well nested again.
 *
 * When a full buffer cannot be written (a full disk), its events are gone: the stream a thread
 * leaves has holes. A region entered before a hole may have its LEAVE inside it, and a LEAVE
 * after it may close a region whose ENTER is inside it. Every reader of a location nests ENTER
 * and LEAVE on a stack (call paths, exclusive times, the call that a message event belongs
 * to), so one such pair would make the rest of the run a child of a call that never ended.
 * At each hole, the regions still open are closed (a LEAVE at the time of the last event
 * before it) and the LEAVEs after it that find no open region are dropped. OpenMP teams the
 * same way: a thread's TEAM_BEGIN and a master's FORK open before the hole get their TEAM_END
 * and JOIN there, and the rest of that team on this thread (up to the end whose beginning the
 * hole took) is dropped, so that no event of a team sits outside it. What happened inside the
 * hole is unknown and stays outside every region; `synctrace info` says how many events were
 * lost. Threads lose events at different places, so an OpenMP worker's time can no longer be
 * set exactly against its master's (analysis/check.h says so instead of failing).
 */
#ifndef ST_GAPS_H
#define ST_GAPS_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

/*
 * One hole in a location's stream: events were lost before event `upto` (an index into the
 * events as kept). Events at [at, upto) are dropped as well: a recorder that has no room to note
 * another hole widens its last one instead (they were kept, but may belong to unclosed regions
 * of holes not noted). at == upto for a plain hole.
 */
typedef struct st_gap {
    uint64_t at, upto;
} st_gap_t;

/*
 * Rewrites ev[0 .. *n) (allocated with malloc or util/hugealloc.h) for the holes gaps[0 ..
 * ngaps), ascending: returns the new array (ev is then freed) and its length in *n, ev itself
 * when nothing changes, NULL when out of memory (ev untouched). *dropped (may be NULL) gets
 * the number of recorded events removed (LEAVEs without an ENTER, and widened holes' events).
 */
st_event_t *st_events_close_gaps(st_event_t *ev, size_t *n, const st_gap_t *gaps, size_t ngaps, uint64_t *dropped);

#endif
