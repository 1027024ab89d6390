#!/usr/bin/env python3
"""Every ctest test names its compiled-cone cache (GSTACK_CACHE_DIR: `off` or a folder of its own), so the
suite never reads or fills the user's cache (docs/runtime.md, "Compiled-cone cache"). A folder that adds
tests without calling gs_tests_without_user_cache() (CMakeLists.txt) fails here, naming its tests.
  check_tests_cache_env.py --ctest CTEST --build BUILD_DIR"""
import argparse
import json
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctest", required=True)
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    out = subprocess.run([a.ctest, "--test-dir", a.build, "--show-only=json-v1"], check=True, stdout=subprocess.PIPE, text=True).stdout
    tests = json.loads(out)["tests"]
    missing = []
    for t in tests:
        if "_NOT_BUILT" in t["name"]:
            continue  # doctest's stand-in for an executable not built yet: it fails by itself and runs nothing
        env = next((p["value"] for p in t.get("properties", []) if p["name"] == "ENVIRONMENT"), [])
        if not any(e.startswith("GSTACK_CACHE_DIR=") for e in env):
            missing.append(t["name"])
    if missing:
        print(f"{len(missing)} of {len(tests)} tests run without GSTACK_CACHE_DIR (they would use the user's cache): "
              + ", ".join(missing[:20]) + (" ..." if len(missing) > 20 else ""), file=sys.stderr)
        return 1
    print(f"all {len(tests)} tests set GSTACK_CACHE_DIR")
    return 0


if __name__ == "__main__":
    sys.exit(main())
