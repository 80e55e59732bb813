#!/bin/sh
# docs/render.sh BIN DIR — renders every picture docs/pictures lists into
# DIR with the program BIN (make docs: into docs/). Each picture is written
# beside its place and renamed over it, so a failed render keeps the old one.
set -eu
case $1 in /*) bin=$1 ;; *) bin=$(pwd)/$1 ;; esac
dir=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
grep -v '^#' "$root/docs/pictures" | grep -v '^[[:space:]]*$' | while read -r picture command script options; do
    # shellcheck disable=SC2086 # options are words
    (cd "$root" && "$bin" "$command" "$script" -o "$dir/.$picture" $options) || {
        rm -f "$dir/.$picture"
        echo "docs/render.sh: $picture: noisegraph $command $script failed" >&2
        exit 1
    }
    mv -f "$dir/.$picture" "$dir/$picture"
    echo "  DOC $dir/$picture"
done
