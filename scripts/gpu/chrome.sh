#!/bin/sh
# The packed Chromium (scripts/gpu/pack-browser.sh): the headless shell with the pack's own libraries. Its child
# processes re-run the same binary and inherit this environment.
here=$(dirname "$(readlink -f "$0")")
libs="$here/lib"
# The pack's libstdc++/libgcc only where the host has none (a newer host copy must win).
ldconfig -p 2>/dev/null | grep -q 'libstdc++\.so\.6 ' || libs="$libs:$here/lib-compat"
export LD_LIBRARY_PATH="$libs${GLIMPSE_EXTRA_LIBS:+:$GLIMPSE_EXTRA_LIBS}"
export FONTCONFIG_FILE="$here/fonts.conf"
exec "$here/chromium-headless-shell" "$@"
