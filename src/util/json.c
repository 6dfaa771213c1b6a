/* json.c — see json.h. */
#include "json.h"

static void json_string(FILE *out, const char *s, int html)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || (html && (*p == '<' || *p == '>' || *p == '&')))
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

void st_json_string(FILE *out, const char *s) { json_string(out, s, 0); }

void st_json_string_html(FILE *out, const char *s) { json_string(out, s, 1); }
