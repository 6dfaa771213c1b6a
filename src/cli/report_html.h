/*
 * report_html.h — `synctrace report DIR --html`: the analysis and the timeline of an archive
 * as one self-contained HTML page (no network: CSS, JavaScript and data inline).
 *
 * The page (src/cli/html/report.{html,css,js}) is embedded by the build as two C strings,
 * the part before the data and the part after it (scripts/embed_html.py -> report_page.c);
 * st_cli_report_html() writes the first, then the data as one JSON object (streamed, never
 * held in memory), then the second. The data's schema is described in report.js.
 *
 * Event detail: up to max_events events every region instance, message and collective
 * instance is in the page; beyond that each location's time is aggregated into bins (time
 * per kind of region), so the file stays small. Single-threaded.
 */
#ifndef ST_CLI_REPORT_HTML_H
#define ST_CLI_REPORT_HTML_H

#include <stdint.h>

#include "analyze.h"

/* The page around the data (generated from src/cli/html/ by scripts/embed_html.py). */
extern const char st_report_page_head[];
extern const char st_report_page_tail[];

/* Default event count up to which the page holds every event. */
#define ST_REPORT_HTML_MAX_EVENTS 1000000u

/*
 * Writes the report page of ar (analysed in a) to file. Returns 0, or 1 after printing
 * "synctrace: report: cannot write FILE: <cause>" (or out of memory) on stderr.
 */
int st_cli_report_html(const st_cli_archive_t *ar, const st_cli_analysis_t *a, const char *file,
                       uint64_t max_events);

#endif
