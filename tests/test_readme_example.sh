#!/bin/bash
# README.md's C example must be tests/example_readme.c verbatim (that file is compiled and run).
# Usage: test_readme_example.sh SOURCE_DIR
set -u
src=$1
block=$(awk '/^```c$/{on=1; next} on && /^```$/{exit} on' "$src/README.md")
if [ "$block" == "$(cat "$src/tests/example_readme.c")" ]; then
    echo "PASS: README example matches tests/example_readme.c"
else
    echo "FAIL: README example differs from tests/example_readme.c:"
    diff <(echo "$block") "$src/tests/example_readme.c" | head -20
    exit 1
fi
