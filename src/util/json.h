/* json.h — the one JSON string writer of the command-line tools (dump, export, analyze, synctrace-bench). */
#ifndef ST_JSON_H
#define ST_JSON_H

#include <stdio.h>

/* Writes s as a JSON string literal: quotes, '"' and '\' escaped, control characters as \u00XX. */
void st_json_string(FILE *out, const char *s);

#endif
