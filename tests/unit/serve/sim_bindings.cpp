// Sets the simulator's bindings file for every test in this executable (tests/unit/support/source_workspace.h).
#include "tests/unit/support/source_workspace.h"
