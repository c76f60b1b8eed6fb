# Sourced by scripts/serve and scripts/test: make sure .venv exists and holds
# the project (with the extras named in $BBSPOKER_EXTRAS), reinstalling only
# when pyproject.toml changed since the last install. An install takes about a
# minute: one line on stderr says so first (stdout stays the command's own).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
extras="${BBSPOKER_EXTRAS:-}"
stamp="$venv/.bbspoker-installed${extras:+-$extras}"
if [ ! -f "$stamp" ]; then
    echo "installing bbspoker${extras:+[$extras]} into .venv (first run, about a minute)..." >&2
elif [ "$root/pyproject.toml" -nt "$stamp" ]; then
    echo "updating bbspoker in .venv (pyproject.toml changed, about a minute)..." >&2
fi
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    spec="$root"
    [ -n "$extras" ] && spec="$root[$extras]"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec"
    touch "$stamp"
fi
