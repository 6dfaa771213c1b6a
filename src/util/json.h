/* json.h — the one JSON string writer of the command-line tools (dump, export, analyze, report --html, synctrace-bench). */
#ifndef ST_JSON_H
#define ST_JSON_H

#include <stdio.h>

/* Writes s as a JSON string literal: quotes, '"' and '\' escaped, control characters as \u00XX. */
void st_json_string(FILE *out, const char *s);
/* The same, also with '<', '>' and '&' as \u00XX, so the literal can sit inside an HTML <script>
 * element ("</script>" in a name cannot end it). */
void st_json_string_html(FILE *out, const char *s);

#endif
