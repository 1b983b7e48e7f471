#!/usr/bin/env bash
# The project's tests: the Rust workspace, then the Python package, freshly
# built and installed (pip install .) into a virtual environment in
# target/pyenv, tested with pytest. The Ray test runs when Ray is installed
# in that environment (.ci/run installs it) and is skipped, saying so,
# otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

# One build profile for everything below: the dev profile at the test
# profile's opt-level 1 (Cargo.toml), so the tests, the `mglru` binary they
# run (target/debug/mglru) and the wheel share one compilation of the
# workspace's crates instead of building it twice (test, then release).
export CARGO_PROFILE_DEV_OPT_LEVEL=1

cargo test --workspace

# The real-kernel harness's own tests (no guest: a stand-in for QEMU).
python3 validation/test_harness.py

venv=target/pyenv
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
fi
# The wheel in that same profile (maturin --profile dev): only pyo3 and the
# native module are compiled again. `pip install .` alone builds release.
MATURIN_PEP517_ARGS="--profile dev" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check . pytest
# The README's `mglru sweep` example runs against the binary cargo test built.
MGLRU_BIN="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/mglru" "$venv/bin/python" -m pytest python/tests -q -rs
