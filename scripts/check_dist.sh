#!/usr/bin/env bash
# Check pyfn as users install it: build the sdist and the wheel (python -m build), check both with twine, install
# them into fresh virtual environments outside the checkout (never editable) and check the installed package
# (scripts/check_installed.py: every module imports, --version, every verb's --help, the README's main job on the
# bundled sample and on FrameNet 1.5's test split with the published counts, the compiled readers used), first as
# `pip install pyfn` gives it (an optional extra's format is a clear error), then, on the first Python, with the
# extras (every module imports).
#
#   bash scripts/check_dist.sh [PYTHON ...]
#
# The first PYTHON (default: python) builds and installs the wheel; every further one installs the sdist, building
# its own wheel from it as pip does. FrameNet 1.5 comes from PYFN_FN15 (default ../shared/data/fndata-1.5.zip);
# without it the FN 1.5 check is skipped, except under CI, where it fails.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pyfn-dist.XXXXXX")
trap 'rm -rf "$work"' EXIT
pythons=("$@")
[ ${#pythons[@]} -gt 0 ] || pythons=(python)
fn15=${PYFN_FN15:-$repo/../shared/data/fndata-1.5.zip}
fn15_option=(--fn15 "$fn15")
if [ ! -f "$fn15" ]; then
  if [ -n "${CI:-}" ]; then echo "check_dist: no FrameNet 1.5 at $fn15 (set PYFN_FN15)" >&2; exit 1; fi
  echo "check_dist: no FrameNet 1.5 at $fn15 (set PYFN_FN15): its check is skipped" >&2
  fn15_option=()
fi

start=$SECONDS
step() { echo "check_dist [$((SECONDS - start)) s]: $*"; }
quietly() {  # run a command, its output in a log printed only when it fails
  local log=$1; shift
  if ! "$@" >"$log" 2>&1; then tail -n 40 "$log" >&2; echo "check_dist: failed: $*" >&2; exit 1; fi
}

step "building the sdist and the wheel with ${pythons[0]} ($("${pythons[0]}" --version))"
quietly "$work/build.log" "${pythons[0]}" -m build --outdir "$work/dist" "$repo"
sdist=$(ls "$work"/dist/pyfn-*.tar.gz)
wheel=$(ls "$work"/dist/pyfn-*.whl)
quietly "$work/twine.log" "${pythons[0]}" -m twine check --strict "$sdist" "$wheel"
step "twine check --strict passed: $(basename "$sdist") ($(stat -c %s "$sdist") bytes), $(basename "$wheel") ($(stat -c %s "$wheel") bytes)"
"${pythons[0]}" - "$wheel" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
packages = sorted(n.rsplit("/", 1)[0] for n in names if n.endswith("/__init__.py"))
extensions = sorted(n for n in names if n.endswith(".so"))
print(f"check_dist: the wheel holds {len(names)} files; {len(packages)} packages: {' '.join(packages)}; "
      f"compiled: {' '.join(extensions) or 'none'}")
EOF
version=$(basename "$wheel" | cut -d- -f2)

for i in "${!pythons[@]}"; do
  python_bin=${pythons[$i]}
  artifact=$([ "$i" -eq 0 ] && echo "$wheel" || echo "$sdist")
  venv="$work/venv-$i"
  step "installing $(basename "$artifact") into a fresh venv of $("$python_bin" --version)"
  quietly "$work/venv-$i.log" "$python_bin" -m venv "$venv"
  quietly "$work/install-$i.log" "$venv/bin/python" -m pip install --disable-pip-version-check "$artifact"
  (cd "$work" && "$venv/bin/python" "$repo/scripts/check_installed.py" --checkout "$repo" --version "$version" \
    "${fn15_option[@]}") || { echo "check_dist: the installed pyfn failed its checks on $python_bin" >&2; exit 1; }
  [ "$i" -eq 0 ] || continue
  step "adding the optional extras [parquet,hf,dask]: every module must import"
  quietly "$work/extras-$i.log" "$venv/bin/python" -m pip install --disable-pip-version-check "$artifact[parquet,hf,dask]"
  (cd "$work" && "$venv/bin/python" "$repo/scripts/check_installed.py" --checkout "$repo" --version "$version" \
    --extras) || { echo "check_dist: the installed pyfn with its extras failed on $python_bin" >&2; exit 1; }
done
step "passed for ${#pythons[@]} Python(s) in $((SECONDS - start)) s"
