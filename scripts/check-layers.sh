#!/usr/bin/env bash
# Checks the include layering of DESIGN.md "Layers": a file under src/<layer>/ includes headers of its own layer
# and of the layers before it only (ff, ec, poly, msm, r1cs, groth16, gpu, circuits, formats, engine, daemon);
# util/ and include/cuzk/ are free to everybody, and util/ itself may include only cuzk/ and util/. An include
# written without a directory ("x.h") is a header of the same directory. The listed exceptions are allowed, each
# with its reason. Prints every violation as FILE:LINE: ... and exits 1 if there is one.
#   scripts/check-layers.sh [REPO_ROOT]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
layers=(ff ec poly msm r1cs groth16 gpu circuits formats engine daemon)

# Includes allowed against the order, one "FILE INCLUDED|reason" each (none today).
exceptions=(
)

rank() { # layer -> its position, or -1 for util/cuzk (free), or empty for an unknown directory
    local i
    case $1 in util | cuzk) echo -1; return ;; esac
    for i in "${!layers[@]}"; do
        [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }
    done
}

is_exception() { # file included
    local e
    for e in "${exceptions[@]+"${exceptions[@]}"}"; do
        [ "${e%%|*}" = "$1 $2" ] && return 0
    done
    return 1
}

bad=0
checked=0
cd "$root" || exit 2
while IFS= read -r file; do
    own=${file#src/}
    own=${own%%/*}
    own_rank=$(rank "$own")
    if [ -z "$own_rank" ]; then
        echo "$file: src/$own is no layer of DESIGN.md"
        bad=$((bad + 1))
        continue
    fi
    checked=$((checked + 1))
    while IFS=: read -r line inc; do
        [ -n "$inc" ] || continue
        case $inc in */*) ;; *) continue ;; esac # same directory
        dir=${inc%%/*}
        r=$(rank "$dir")
        if [ -z "$r" ]; then
            echo "$file:$line: includes \"$inc\": $dir is no layer"
            bad=$((bad + 1))
        elif [ "$own" = util ] && [ "$r" -ge 0 ]; then
            echo "$file:$line: util includes \"$inc\" (util may include only cuzk/ and util/)"
            bad=$((bad + 1))
        elif [ "$r" -gt "$own_rank" ] && ! is_exception "$file" "$inc"; then
            echo "$file:$line: $own includes \"$inc\" of $dir, a later layer"
            bad=$((bad + 1))
        fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
        sed -E 's/^([0-9]+):[^"]*"([^"]+)".*/\1:\2/')
done < <(find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)

# The public headers are below every layer: they include only each other.
while IFS=: read -r file line inc; do
    case $inc in cuzk/*) ;; *)
        echo "$file:$line: a public header includes \"$inc\""
        bad=$((bad + 1))
        ;;
    esac
done < <(grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' include/cuzk/*.h 2>/dev/null |
    sed -E 's/^([^:]+):([0-9]+):[^"]*"([^"]+)".*/\1:\2:\3/')

if [ "$bad" -ne 0 ]; then
    echo "check-layers: $bad violations in $checked files"
    exit 1
fi
echo "check-layers: $checked files, no violations"
