// SIGINT/SIGTERM/SIGHUP handling: engine/process/interrupt.h, below the runner so that every
// process the engine starts registers its group there. Included by this name across the engine.
#pragma once

#include "engine/process/interrupt.h"
