#!/usr/bin/env bash
# The README's configuration table is exactly what `synctrace env --markdown` prints.
source "$ST_ROOT/tests/lib.sh"
st env --markdown > "$ST_TMP/env.md"
sed -n '/<!-- begin: synctrace env --markdown/,/<!-- end: synctrace env --markdown/p' "$ST_ROOT/README.md" \
    | sed '1d;$d' > "$ST_TMP/readme.md"
diff -u "$ST_TMP/readme.md" "$ST_TMP/env.md" >&2 || fail "README configuration table is out of date: paste 'synctrace env --markdown'"
