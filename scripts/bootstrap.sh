#!/usr/bin/env bash
# Installs the Debian packages the project needs when any is missing (LTTng-UST, lttng-tools,
# babeltrace2, PlantUML, Chromium). Uses sudo when not root. Safe to run repeatedly: it does nothing when all exist.
set -euo pipefail
# plantuml: the tests check the PlantUML export by rendering it (it brings a Java runtime);
# chromium and python3-pip: they open the Chrome export in the Perfetto UI (scripts/perfetto-ui.sh).
# tmux: the terminal UI's tests drive it in a real terminal.
packages=(liblttng-ust-dev lttng-tools babeltrace2 libbabeltrace2-dev plantuml chromium python3 python3-pip tmux)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "bootstrap: installing ${missing[*]}" >&2
    $sudo apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "bootstrap: the Swift toolchain (6.2 or later) must be on PATH" >&2
    exit 1
fi
