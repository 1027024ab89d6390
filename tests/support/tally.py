"""The pass/fail tally the script-style tests share (tests/lsp/lsp_session.py, tests/editors/check_tmgrammar.py):
check() prints each verdict as it comes and keeps counting, so one run lists every failure; finish() prints
the counts and exits 1 when anything failed."""
import sys

failures = []
passed = 0


def check(cond, what):
    global passed
    print(("ok   " if cond else "FAIL ") + what)
    if cond:
        passed += 1
    else:
        failures.append(what)


def finish():
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)
